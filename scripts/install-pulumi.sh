#!/usr/bin/env bash
# Finds or builds the Pulumi CLI that the engine tests, the demo and users' stacks need.
#
#   bash scripts/install-pulumi.sh          # prints where the CLI came from; last line: PULUMI_BIN=<dir>
#   bash scripts/install-pulumi.sh --quiet  # prints only the bin directory
#
# Order: a `pulumi` on PATH at version >= 3.216 (the engine must apply the `inputs` a dynamic
# provider's read returns), else a build cached outside the repo, else a build from the pinned Go
# modules in scripts/pulumi-cli/ (about 11 minutes on 2 cores the first time, seconds afterwards).
# The cache is ${SERVICEAPI_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-serviceapi}/pulumi-v<version>.
set -euo pipefail

PULUMI_VERSION=3.248.0
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
  cat > "$1/pulumi-resource-pulumi-nodejs" <<'EOF'
#!/bin/sh
exec node ./node_modules/@pulumi/pulumi/cmd/dynamic-provider "$@"
EOF
  chmod +x "$1/pulumi-resource-pulumi-nodejs"
}

# 1. A CLI on PATH (users' machines, Pulumi's CI setup action).
if [[ -z "${SERVICEAPI_PULUMI_BUILD:-}" ]] && command -v pulumi >/dev/null 2>&1; then
  found="$(pulumi version 2>/dev/null | sed 's/^v//')"
  dir="$(dirname "$(command -v pulumi)")"
  if version_ge "$found" "$MIN_VERSION" && [[ -x "$dir/pulumi-language-nodejs" ]]; then
    done_with "$dir" "using pulumi v$found from PATH ($dir)"
  fi
  say "ignoring pulumi v$found on PATH: need >= $MIN_VERSION with pulumi-language-nodejs beside it"
fi

# 2. A cached build.
cache_root="${SERVICEAPI_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-serviceapi}"
bin="$cache_root/pulumi-v$PULUMI_VERSION/bin"
if [[ -x "$bin/pulumi" && -x "$bin/pulumi-language-nodejs" ]]; then
  write_launcher "$bin"
  done_with "$bin" "using cached pulumi v$PULUMI_VERSION ($bin)"
fi

# 3. Build from the pinned modules.
if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<EOF
install-pulumi: the Pulumi CLI (>= $MIN_VERSION) is needed and none was found.
  Install it from https://www.pulumi.com/docs/iac/download-install/ (e.g. 'curl -fsSL https://get.pulumi.com | sh'),
  or install Go (>= 1.25) so this script can build pulumi v$PULUMI_VERSION from source into $bin.
EOF
  exit 1
fi
say "building pulumi v$PULUMI_VERSION from pinned Go modules into $bin"
say "this takes about 11 minutes on 2 cores the first time (about 2 GB of modules); later runs reuse it"
mkdir -p "$bin.partial"
export CGO_ENABLED=0 GOFLAGS=-mod=readonly
started=$SECONDS
(cd "$here/pulumi-cli/cli" && go build -trimpath -tags osusergo,grpcnotrace \
  -ldflags "-w -s -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION" \
  -o "$bin.partial/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
(cd "$here/pulumi-cli/nodejs-host" && go build -trimpath -ldflags "-w -s" \
  -o "$bin.partial/pulumi-language-nodejs" github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs)
write_launcher "$bin.partial"
rm -rf "$bin" && mv "$bin.partial" "$bin"
done_with "$bin" "built pulumi $("$bin/pulumi" version) in $((SECONDS - started)) s ($bin)"
