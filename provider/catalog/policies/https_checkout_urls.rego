# Default policy `https_checkout_urls` (docs/policies.md): a checkout URL the catalog sends must be
# https. The API takes any absolute URI, `javascript:alert(1)` included; a buyer's browser would not.
package serviceapi.https_checkout_urls

# The operations whose fields are sent to the service (a drift's are the service's own values).
sends := {"create", "adopt", "update", "replace", "give-back"}

deny contains {"msg": msg, "key": change.key, "field": field.field} if {
	some change in input.changes
	sends[change.op]
	some field in change.fields
	field.field == "externalCheckoutUrl"
	is_string(field.to)
	not startswith(lower(field.to), "https://")
	msg := sprintf("%q is not an https:// URL: a checkout page must be https", [field.to])
}
