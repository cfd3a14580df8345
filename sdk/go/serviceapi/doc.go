// Products, site names and scheduled tasks of the Project/Site/Task/Product Service, as Pulumi resources.
package serviceapi
