#!/usr/bin/env bash
# `npm run simulator [-- --port 8787 …]`: starts the local service (simulator/README.md). It builds the
# simulator first only when there is no build or a source file is newer than it, so a second start
# takes about as long as Node needs to load it (the whole package's build, which this used to run
# every time, took ~20 s and is not needed: the simulator shares only provider/contract).
set -euo pipefail
cd "$(dirname "$0")/.."
cli=simulator/dist/simulator/cli.js
stale() {
  [[ ! -f $cli ]] && return 0
  [[ -n "$(find simulator provider/contract -name '*.ts' -not -path '*/dist/*' -not -path '*/node_modules/*' -newer "$cli" -print -quit)" ]]
}
if stale; then
  echo "simulator: building (a source is newer than $cli)" >&2
  npm run --silent build -w pulumi-serviceapi-simulator >&2
  touch "$cli" # tsc leaves an unchanged output file's time alone; the next start must see it as fresh
fi
exec node "$cli" "$@"
