# A team's policy (docs/policies.md): a change that writes to more than 200 records is worth a
# warning in the pull request (not a denial: a re-price of every plan is a real change).
package serviceapi.blast_radius

writes := count([change | some change in input.changes; change.writes])

warn contains sprintf("this change writes to %d records: check the preview's totals before approving", [writes]) if writes > 200
