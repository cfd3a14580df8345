# A team's policy (docs/policies.md): an archive needs the owners' approval, passed in by CI from the
# pull request's `archive-approved` label: `--policy-param archive-approved=yes`.
package serviceapi.archives_need_approval

approved if input.params["archive-approved"] == "yes"

deny contains {"msg": msg, "key": change.key} if {
	some change in input.changes
	change.archives
	not approved
	msg := "an archive needs the owners' approval: the pull request's archive-approved label (--policy-param archive-approved=yes)"
}
