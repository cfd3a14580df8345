# Default policy `removal_keeps_archived` (docs/policies.md): removing an entry never makes its
# record more live than it is. The provider already keeps an archived product archived when it gives
# it back (`keeps-status`); this says so as a rule a security review can read, and stops a plan that
# would do otherwise.
package serviceapi.removal_keeps_archived

removals := {"archive", "give-back", "retain", "forget"}

deny contains {"msg": msg, "key": change.key, "field": "status"} if {
	some change in input.changes
	removes(change)
	some field in change.fields
	field.field == "status"
	field.from == "archived"
	field.to != "archived"
	msg := sprintf("removing %s would set its status from archived to %q: a removal never un-archives", [change.key, field.to])
}

removes(change) if removals[change.op]

removes(change) if removals[change.then]
