# A team's policy (docs/policies.md): slugs are lower-case letters, digits and dashes.
package serviceapi.slugs

deny contains {"msg": sprintf("slug %q: use lower-case letters, digits and '-' only", [field.to]), "key": change.key, "field": "slug"} if {
	some change in input.changes
	some field in change.fields
	field.field == "slug"
	is_string(field.to)
	not regex.match(`^[a-z0-9-]+$`, field.to)
}
