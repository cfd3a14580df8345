#!/usr/bin/env bash
# Finds or builds OPA (Open Policy Agent), the engine `serviceapi-catalog` runs the catalog's
# policies with (docs/policies.md): for the engine tests, the demo, the bench and CI.
#
#   bash scripts/install-opa.sh          # prints where opa came from; last line: OPA_BIN=<dir>
#   bash scripts/install-opa.sh --quiet  # prints only the bin directory
#
# Order: an `opa` on PATH (v1.x: the tool needs Rego v1), else a build cached outside the repo, else
# `go install github.com/open-policy-agent/opa@v1.22.3` into that cache (48 s on a 2-CPU machine here
# on 2026-11-30, modules downloaded included; seconds afterwards). Users install OPA as they like
# (docs/policies.md): the release binary, a package manager, or the same `go install`.
# The cache is ${SERVICEAPI_OPA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-serviceapi}/opa-v<version>.
set -euo pipefail

OPA_VERSION=1.22.3
quiet=false
[[ "${1:-}" == "--quiet" ]] && quiet=true
say() { $quiet || echo "install-opa: $*" >&2; }
done_with() { say "$2"; $quiet && echo "$1" || echo "OPA_BIN=$1"; exit 0; }

# 1. An opa on PATH, if it is v1 (`opa version` says "Version: 1.x.y" on its first line).
if command -v opa >/dev/null 2>&1; then
  found="$(opa version 2>/dev/null | sed -n 's/^Version: //p' | head -n1)"
  if [[ "$found" == 1.* ]]; then done_with "$(dirname "$(command -v opa)")" "using opa v$found from PATH"; fi
  say "ignoring opa ${found:-of unknown version} on PATH: need v1.x"
fi

cache_root="${SERVICEAPI_OPA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-serviceapi}"
bin="$cache_root/opa-v$OPA_VERSION/bin"
. "$(dirname "$0")/cache-lock.sh"
cache_lock "$cache_root" install-opa "waiting for another install-opa.sh that is building into $cache_root"

# 2. A cached build.
if [[ -x "$bin/opa" ]]; then done_with "$bin" "using cached opa v$OPA_VERSION ($bin)"; fi

# 3. Build it.
if ! command -v go >/dev/null 2>&1; then
  echo "install-opa: OPA v1 is needed and none was found: install it (https://www.openpolicyagent.org/docs#running-opa), or Go so this script can build opa v$OPA_VERSION into $bin" >&2
  exit 1
fi
started=$SECONDS
say "building opa v$OPA_VERSION with go install into $bin (about a minute the first time)"
partial="$(mktemp -d "$cache_root/opa.partial.XXXXXX")"
trap 'rm -rf "$partial"' EXIT
CGO_ENABLED=0 GOBIN="$partial" go install -trimpath "github.com/open-policy-agent/opa@v$OPA_VERSION"
mkdir -p "$bin"
mv "$partial/opa" "$bin/opa"
done_with "$bin" "built opa v$OPA_VERSION in $((SECONDS - started)) s ($bin)"
