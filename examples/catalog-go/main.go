// The quick start's catalog in Go, through the serviceapi plugin's generated Go SDK (sdk/go).
// CI builds and vets it (test/sdk/go.test.ts); running it needs Pulumi's Go language host, which
// the official CLI ships (docs/sdks.md).
package main

import (
	"github.com/pulumi-serviceapi/pulumi-serviceapi/sdk/go/serviceapi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		name := config.Get(ctx, "projectName")
		if name == "" {
			name = "Acme Web"
		}
		// Projects are referred to by name; the lookup fails clearly if none (or several) match.
		project, err := serviceapi.GetProject(ctx, &serviceapi.GetProjectArgs{Name: pulumi.StringRef(name)})
		if err != nil {
			return err
		}
		pro, err := serviceapi.NewProduct(ctx, "pro-plan", &serviceapi.ProductArgs{
			ProjectId:           pulumi.String(project.Id),
			Title:               pulumi.String("Pro plan"),
			Description:         pulumi.String("Everything in Starter, plus priority support."),
			Slug:                pulumi.String("pro"),
			Status:              pulumi.String("active"),
			ExternalCheckoutUrl: pulumi.String("https://shop.example.com/checkout/pro"),
		})
		if err != nil {
			return err
		}
		legacy, err := serviceapi.NewProduct(ctx, "legacy-plan", &serviceapi.ProductArgs{
			ProjectId: pulumi.String(project.Id),
			Title:     pulumi.String("Legacy basic plan"),
			Slug:      pulumi.String("legacy-basic"),
			Status:    pulumi.String("archived"),
		})
		if err != nil {
			return err
		}
		// Sites cannot be created through the API: this renames the project's default site, and
		// `pulumi destroy` gives it its original name back.
		site, err := serviceapi.LookupSite(ctx, &serviceapi.LookupSiteArgs{ProjectId: project.Id, IsDefault: pulumi.BoolRef(true)})
		if err != nil {
			return err
		}
		home, err := serviceapi.NewSite(ctx, "home", &serviceapi.SiteArgs{
			ProjectId: pulumi.String(project.Id),
			SiteId:    pulumi.String(site.Id),
			Name:      pulumi.String("Acme — Home"),
		})
		if err != nil {
			return err
		}
		ctx.Export("productIds", pulumi.StringMap{"pro": pro.ID().ToStringOutput(), "legacy": legacy.ID().ToStringOutput()})
		ctx.Export("siteSubdomain", home.Subdomain)
		return nil
	})
}
