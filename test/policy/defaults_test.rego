# `opa test` of the default policies and the example's (test/policy/policies.test.ts runs it).
package serviceapi_test

import data.serviceapi.archive_limit
import data.serviceapi.archives_need_approval
import data.serviceapi.https_checkout_urls
import data.serviceapi.removal_keeps_archived
import data.serviceapi.slugs

url(op, to) := {"changes": [{"key": "k", "op": op, "archives": false, "fields": [{"field": "externalCheckoutUrl", "to": to}]}], "params": {}}

test_https_allowed if count(https_checkout_urls.deny) == 0 with input as url("create", "https://shop.example.com/a")

test_https_any_case if count(https_checkout_urls.deny) == 0 with input as url("update", "HTTPS://shop.example.com/a")

test_javascript_denied if {
	https_checkout_urls.deny == {{
		"msg": "\"javascript:alert(1)\" is not an https:// URL: a checkout page must be https",
		"key": "k",
		"field": "externalCheckoutUrl",
	}} with input as url("create", "javascript:alert(1)")
}

test_http_denied if count(https_checkout_urls.deny) == 1 with input as url("adopt", "http://shop.example.com")

# A drift reports the service's value; nothing is sent, so nothing to deny.
test_drift_not_denied if count(https_checkout_urls.deny) == 0 with input as url("drift", "javascript:alert(1)")

# A cleared URL (no `to`) is allowed.
test_cleared_allowed if {
	count(https_checkout_urls.deny) == 0 with input as {"changes": [{"key": "k", "op": "update", "fields": [{"field": "externalCheckoutUrl", "from": "https://a"}]}]}
}

give_back(status_to) := {"changes": [{"key": "k", "op": "give-back", "archives": false, "fields": [{"field": "status", "from": "archived", "to": status_to}]}]}

test_removal_unarchiving_denied if count(removal_keeps_archived.deny) == 1 with input as give_back("active")

test_removal_keeping_archived_allowed if count(removal_keeps_archived.deny) == 0 with input as give_back("archived")

test_replace_then_give_back_denied if {
	count(removal_keeps_archived.deny) == 1 with input as {"changes": [{"key": "k", "op": "replace", "then": "give-back", "fields": [{"field": "status", "from": "archived", "to": "draft"}]}]}
}

# An update that un-archives is an explicit edit of the catalog, not a removal: allowed.
test_update_unarchiving_allowed if {
	count(removal_keeps_archived.deny) == 0 with input as {"changes": [{"key": "k", "op": "update", "fields": [{"field": "status", "from": "archived", "to": "active"}]}]}
}

archiving(n, params) := {"params": params, "changes": [{"key": sprintf("p%d", [i]), "op": "archive", "archives": true, "fields": []} | some i in numbers.range(1, n)]}

test_twenty_archives_allowed if count(archive_limit.deny) == 0 with input as archiving(20, {})

test_twenty_one_denied if {
	archive_limit.deny == {"21 products archived by one change, above the limit of 20: if that is meant, run again with --policy-param archive-limit=21"} with input as archiving(21, {})
}

test_limit_raised if count(archive_limit.deny) == 0 with input as archiving(21, {"archive-limit": "21"})

# A typo in CI keeps the guard on: it denies, naming the value.
test_limit_not_a_number if {
	archive_limit.deny == {"--policy-param archive-limit=abc is not a whole number: give the most archives one change may make, e.g. archive-limit=40"} with input as archiving(1, {"archive-limit": "abc"})
}

test_limit_not_whole if count(archive_limit.deny) == 1 with input as archiving(0, {"archive-limit": "0.5"})

test_approval_needed if count(archives_need_approval.deny) == 2 with input as archiving(2, {})

test_approval_given if count(archives_need_approval.deny) == 0 with input as archiving(2, {"archive-approved": "yes"})

test_slug_denied if {
	count(slugs.deny) == 1 with input as {"changes": [{"key": "k", "op": "create", "fields": [{"field": "slug", "to": "Pro Plan"}]}]}
}

test_slug_allowed if {
	count(slugs.deny) == 0 with input as {"changes": [{"key": "k", "op": "create", "fields": [{"field": "slug", "to": "pro-plan-2"}]}]}
}
