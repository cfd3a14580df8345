#!/usr/bin/env bash
# Installs this package into its own node_modules from its packed tarball — the form users get.
#
# The repo's Pulumi programs (examples/, scripts/engine/program/) import "pulumi-serviceapi" and find
# it here. It must be a real copy under node_modules, not a symlink (npm workspaces, `file:` to a
# folder): Pulumi serializes a dynamic provider that lives outside node_modules by value, so only
# an installed copy gives the one-line `require("pulumi-serviceapi/dynamic/…")` stub users get.
# `npm run install-self` builds and runs it; `npm test`, `npm run demo` and `npm run bench` start
# with that. It is deliberately not an install (prepare) script: the published manifest carries the
# scripts, and a package that installs with no lifecycle script gets no allowScripts warning.
set -euo pipefail
cd "$(dirname "$0")/.."
test -f dist/provider/index.js || { echo "install-self: run \`npm run build\` first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm pack --silent --ignore-scripts --pack-destination "$tmp" >/dev/null
rm -rf node_modules/pulumi-serviceapi
mkdir -p node_modules/pulumi-serviceapi
tar -xzf "$tmp"/pulumi-serviceapi-*.tgz -C node_modules/pulumi-serviceapi --strip-components=1

# The plugin's typed Node.js SDK (generated into sdk/nodejs), packed and installed the same way:
# TypeScript programs that use the plugin import "@pulumi-serviceapi/serviceapi".
mkdir "$tmp/sdk"
bash scripts/pack-sdk.sh pack "$tmp/sdk" >/dev/null
rm -rf node_modules/@pulumi-serviceapi/serviceapi
mkdir -p node_modules/@pulumi-serviceapi/serviceapi
tar -xzf "$tmp"/sdk/*.tgz -C node_modules/@pulumi-serviceapi/serviceapi --strip-components=1

# The examples run in place too (`cd examples/quickstart && pulumi up`, or the root Pulumi.yaml):
# Pulumi's dynamic-provider launcher starts ./node_modules/@pulumi/pulumi from the program folder,
# so give each example that one entry, pointing at the repo's copy. Everything else resolves upward.
for example in examples/*/; do
  [ -f "$example/Pulumi.yaml" ] || continue
  # Go and Python examples (the plugin's SDKs) have no use for it.
  grep -Eq '^runtime: (go|python)$|^  name: (go|python)$' "$example/Pulumi.yaml" && continue
  mkdir -p "$example/node_modules/@pulumi"
  ln -sfn ../../../../node_modules/@pulumi/pulumi "$example/node_modules/@pulumi/pulumi"
done
