# Default policy `archive_limit` (docs/policies.md): one change archives at most `archive-limit`
# products (20 unless the run passes `--policy-param archive-limit=N`): a file emptied by mistake
# takes a catalog off sale in one merge. A larger clean-up passes the number it means.
package serviceapi.archive_limit

given := object.get(input.params, "archive-limit", "20")

# A whole number only: a typo in CI must not switch the limit off.
limit := to_number(given) if regex.match(`^[0-9]+$`, given)

archived := [change.key | some change in input.changes; change.archives]

deny contains msg if {
	not limit
	msg := sprintf("--policy-param archive-limit=%v is not a whole number: give the most archives one change may make, e.g. archive-limit=40", [given])
}

deny contains msg if {
	count(archived) > limit
	msg := sprintf(
		"%d products archived by one change, above the limit of %d: if that is meant, run again with --policy-param archive-limit=%d",
		[count(archived), limit, count(archived)],
	)
}
