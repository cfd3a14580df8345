#!/usr/bin/env bash
# Finds or builds the Pulumi CLI that the engine tests, the demo and users' stacks need, with the
# Node.js and YAML language hosts beside it.
#
#   bash scripts/install-pulumi.sh          # prints where the CLI came from; last line: PULUMI_BIN=<dir>
#   bash scripts/install-pulumi.sh --quiet  # prints only the bin directory
#
# Order: a `pulumi` on PATH at version >= 3.216 (the engine must apply the `inputs` a dynamic
# provider's read returns) with pulumi-language-nodejs and pulumi-language-yaml beside it, else a
# build cached outside the repo, else a build from the pinned Go modules in scripts/pulumi-cli/
# (3.6 minutes on a fresh 2-CPU machine here on 2026-11-30, modules downloaded included; up to 15 on a slow day; seconds afterwards). A cached CLI without the YAML
# host gets only that host built and added (2 to 7 minutes, depending on what Go's caches hold).
# The cache is ${SERVICEAPI_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-serviceapi}/pulumi-v<version>.
set -euo pipefail

PULUMI_VERSION=3.248.0
YAML_HOST_VERSION=1.38.1
MIN_VERSION=3.216.0
here="$(cd "$(dirname "$0")" && pwd)"
quiet=false
[[ "${1:-}" == "--quiet" ]] && quiet=true
say() { $quiet || echo "install-pulumi: $*" >&2; }
done_with() { say "$2"; $quiet && echo "$1" || echo "PULUMI_BIN=$1"; exit 0; }

version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

write_launcher() {
  # The engine starts the dynamic-provider plugin in the program's directory; it runs the SDK's
  # own dynamic provider from the program's node_modules, as the official distribution's launcher does.
  # Every engine test file runs this script while other files' engines exec the launcher: rewriting
  # it in place made such an exec fail with "text file busy". So it is left alone when it is already
  # right, and otherwise replaced whole (a new file renamed over it; a running exec keeps the old one).
  local file="$1/pulumi-resource-pulumi-nodejs"
  local want='#!/bin/sh
exec node ./node_modules/@pulumi/pulumi/cmd/dynamic-provider "$@"'
  if [[ -x "$file" && "$(cat "$file")" == "$want" ]]; then return 0; fi
  local tmp
  tmp=$(mktemp "$1/.launcher.XXXXXX")
  printf '%s\n' "$want" >"$tmp"
  chmod 755 "$tmp"
  mv -f "$tmp" "$file"
}

has_hosts() { [[ -x "$1/pulumi-language-nodejs" && -x "$1/pulumi-language-yaml" ]]; }

# 1. A CLI on PATH (users' machines, Pulumi's CI setup action: the official CLI ships both hosts).
if [[ -z "${SERVICEAPI_PULUMI_BUILD:-}" ]] && command -v pulumi >/dev/null 2>&1; then
  found="$(pulumi version 2>/dev/null | sed 's/^v//')"
  dir="$(dirname "$(command -v pulumi)")"
  if version_ge "$found" "$MIN_VERSION" && has_hosts "$dir"; then
    done_with "$dir" "using pulumi v$found from PATH ($dir)"
  fi
  say "ignoring pulumi v$found on PATH: need >= $MIN_VERSION with pulumi-language-nodejs and pulumi-language-yaml beside it"
fi

cache_root="${SERVICEAPI_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-serviceapi}"
bin="$cache_root/pulumi-v$PULUMI_VERSION/bin"

# Engine test files run in parallel and each runs this script: one builds, the others wait and reuse it.
. "$here/cache-lock.sh"
cache_lock "$cache_root" install "waiting for another install-pulumi.sh that is building into $cache_root"

# 2. A cached build.
if [[ -x "$bin/pulumi" ]] && has_hosts "$bin"; then
  write_launcher "$bin"
  done_with "$bin" "using cached pulumi v$PULUMI_VERSION ($bin)"
fi

# 3. Build from the pinned modules.
if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<EOF
install-pulumi: the Pulumi CLI (>= $MIN_VERSION) with its Node.js and YAML language hosts is needed and none was found.
  Install it from https://www.pulumi.com/docs/iac/download-install/ (e.g. 'curl -fsSL https://get.pulumi.com | sh'),
  or install Go (>= 1.25) so this script can build pulumi v$PULUMI_VERSION from source into $bin.
EOF
  exit 1
fi
export CGO_ENABLED=0 GOFLAGS=-mod=readonly
started=$SECONDS

build_yaml_host() {
  (cd "$here/pulumi-cli/yaml-host" && go build -trimpath \
    -ldflags "-w -s -X github.com/pulumi/pulumi-yaml/pkg/version.Version=v$YAML_HOST_VERSION" \
    -o "$1/pulumi-language-yaml" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml)
}

if [[ -x "$bin/pulumi" && -x "$bin/pulumi-language-nodejs" ]]; then
  say "adding pulumi-language-yaml v$YAML_HOST_VERSION to the cached CLI: building it from pinned Go modules into $bin"
  say "this takes 2 to 7 minutes on 2 cores (less when Go's caches still hold the CLI build); later runs reuse it"
  partial="$(mktemp -d "$bin.yaml-host.XXXXXX")"
  trap 'rm -rf "$partial"' EXIT
  build_yaml_host "$partial"
  mv "$partial/pulumi-language-yaml" "$bin/pulumi-language-yaml" && rmdir "$partial"
  write_launcher "$bin"
  done_with "$bin" "built pulumi-language-yaml v$YAML_HOST_VERSION in $((SECONDS - started)) s ($bin)"
fi

say "building pulumi v$PULUMI_VERSION and its language hosts from pinned Go modules into $bin"
say "this takes 4 to 15 minutes on 2 cores the first time (over 1 GB of modules); later runs reuse it"
mkdir -p "$bin.partial"
(cd "$here/pulumi-cli/cli" && go build -trimpath -tags osusergo,grpcnotrace \
  -ldflags "-w -s -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION" \
  -o "$bin.partial/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
(cd "$here/pulumi-cli/nodejs-host" && go build -trimpath -ldflags "-w -s" \
  -o "$bin.partial/pulumi-language-nodejs" github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs)
build_yaml_host "$bin.partial"
write_launcher "$bin.partial"
rm -rf "$bin" && mv "$bin.partial" "$bin"
done_with "$bin" "built pulumi $("$bin/pulumi" version) and pulumi-language-yaml v$YAML_HOST_VERSION in $((SECONDS - started)) s ($bin)"
