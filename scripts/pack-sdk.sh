#!/usr/bin/env bash
# The generated Node.js SDK (sdk/nodejs, `@pulumi-serviceapi/serviceapi`): build it, pack it.
#
#   bash scripts/pack-sdk.sh build         # sdk/nodejs → sdk/nodejs/bin (part of `npm run build`)
#   bash scripts/pack-sdk.sh pack <dir>    # → <dir>/pulumi-serviceapi-serviceapi-<version>.tgz
#
# As Pulumi's own provider SDKs are published: compiled by the SDK's generated tsconfig into
# sdk/nodejs/bin, the package.json and README copied beside the output, and bin/ packed as the
# package root (so `index.js` is its entry, without a "main"). The compiler is the repository's;
# `@pulumi/pulumi` resolves from the repository's node_modules, upward from sdk/nodejs.
#
# SERVICEAPI_SDK_NODEJS=<dir> builds and packs another generation of the SDK instead (`npm run
# release -- --plugin-url`, scripts/release.ts): a folder inside the repository, for that resolution.
set -euo pipefail
# A relative <dir> is taken from where the script was run, before it moves to sdk/nodejs.
[[ "${1:-}" == pack ]] && dest="$(cd "${2:?usage: pack-sdk.sh pack <dir>}" && pwd)"
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "${SERVICEAPI_SDK_NODEJS:-$repo/sdk/nodejs}"
case "${1:-}" in
  build)
    rm -rf bin
    # Without source maps: the package ships no .ts sources for them to point at, and a map comment
    # makes the source-map support in a user's program look for it on every stack trace (docs/scale.md).
    node "$repo/node_modules/typescript/bin/tsc" -p tsconfig.json --sourceMap false --declarationMap false
    cp package.json README.md bin/
    ;;
  pack)
    test -f bin/index.js || { echo "pack-sdk: run \`npm run build\` first" >&2; exit 1; }
    npm pack --silent --ignore-scripts --pack-destination "$dest" ./bin
    ;;
  *) echo "usage: pack-sdk.sh build | pack <dir>" >&2; exit 2 ;;
esac
