# Default policy `archive_limit` (docs/policies.md): one change archives at most `archive-limit`
# products (20 unless the run passes `--policy-param archive-limit=N`): a file emptied by mistake
# takes a catalog off sale in one merge. A larger clean-up passes the number it means.
package serviceapi.archive_limit

limit := to_number(object.get(input.params, "archive-limit", "20"))

archived := [change.key | some change in input.changes; change.archives]

deny contains msg if {
	count(archived) > limit
	msg := sprintf(
		"%d products archived by one change, above the limit of %d: if that is meant, run again with --policy-param archive-limit=%d",
		[count(archived), limit, count(archived)],
	)
}
