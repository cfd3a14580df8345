#!/usr/bin/env bash
# Writes the typed SDKs (Node.js/TypeScript, Go, Python) of the serviceapi plugin from its package
# schema — the schema `pulumi package get-schema` prints, read from the sources — with the
# Pulumi CLI's own code generators (scripts/sdkgen, pinned in its go.mod at the CLI's version).
#
#   npm run gen-sdk                    # regenerates schema.json, sdk/nodejs, sdk/go/serviceapi, sdk/python
#   bash scripts/gen-sdk.sh <dir>      # the SDKs into <dir> instead (test/sdk/generated.test.ts compares with sdk/)
#
# schema.json is the schema committed for review; test/plugin/committed-schema.test.ts keeps it equal
# to what the plugin serves. It is written first, before the Go check, so a machine without Go can
# still refresh it (the SDKs then wait for one with Go).
#
# The generator binary is cached outside the repo under a name derived from its sources, so it is
# built once (about a minute with Go's module cache filled by the CLI build) and again only when
# scripts/sdkgen changes. sdk/go.mod, sdk/go.sum and sdk/nodejs's build files are not generated.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-sdk}"

# SERVICEAPI_PLUGIN_DOWNLOAD_URL: where the SDKs say the plugin archives are (`pluginDownloadURL`),
# for SDKs made for a release (`npm run release -- --plugin-url`); the committed sdk/ and schema.json
# carry the default, PLUGIN_DOWNLOAD_URL in provider/plugin/schema.ts.
if [[ "$out" == sdk && -n "${SERVICEAPI_PLUGIN_DOWNLOAD_URL:-}" ]]; then
  echo "gen-sdk: SERVICEAPI_PLUGIN_DOWNLOAD_URL is for SDKs generated into another folder; sdk/ carries PLUGIN_DOWNLOAD_URL of provider/plugin/schema.ts: change it there, or unset the variable" >&2
  exit 2
fi

schema=$(mktemp)
trap 'rm -f "$schema"' EXIT
# From the sources (ts-node, no type-check): the build itself compiles the generated Node.js SDK.
node -r ts-node/register/transpile-only \
  -e 'const url = process.env.SERVICEAPI_PLUGIN_DOWNLOAD_URL || undefined;
      const schema = require("./provider/plugin/schema.ts").packageSchema({ pluginDownloadURL: url });
      process.stdout.write(JSON.stringify(schema, null, 2) + "\n")' > "$schema"
if [[ "$out" == sdk ]]; then cp "$schema" schema.json; fi

command -v go >/dev/null 2>&1 || { echo "gen-sdk: needs Go (>= 1.25) on PATH to build the generator" >&2; exit 1; }

key=$(cat scripts/sdkgen/go.mod scripts/sdkgen/go.sum scripts/sdkgen/main.go | sha256sum | cut -c1-16)
cache="${SERVICEAPI_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-serviceapi}/sdkgen-$key"
if [[ ! -x "$cache/sdkgen" ]]; then
  echo "gen-sdk: building the generator into $cache" >&2
  mkdir -p "$cache"
  # A temporary name, then a rename: test files that run this at once never see half a binary.
  (cd scripts/sdkgen && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -o "$cache/sdkgen.$$" .)
  mv -f "$cache/sdkgen.$$" "$cache/sdkgen"
fi

"$cache/sdkgen" -schema "$schema" -out "$out" >&2
