#!/usr/bin/env bash
# The fast tier on a busy machine: `bash scripts/flake-check.sh [--runs N] [--keep-going]`.
#
# Starts one CPU burner per CPU (an empty shell loop each, so every CPU is busy all the time), then runs
# `npm run test:unit` N times in a row (default 20) and stops at the first run that fails, printing its
# number, its failing tests and where its full output is. At the end it prints "K of N runs passed" and
# the total minutes. `--keep-going` runs all N even after a failure, to count how often a test fails.
#
# Why: a test that passes on an idle machine and fails when other work shares the CPUs is a flaky test
# (issue 43); it is found here, not in CI. The burners and the run in progress are killed on any exit,
# Ctrl-C and `kill` included, so nothing is left running. Each run's output and JSON report are kept in
# a temporary folder whose path is printed (removed when every run passed).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=20
keep_going=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs)
      [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || { echo "--runs needs a positive whole number" >&2; exit 2; }
      runs=$2
      shift 2
      ;;
    --runs=*)
      runs=${1#--runs=}
      [[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "--runs needs a positive whole number" >&2; exit 2; }
      shift
      ;;
    --keep-going) keep_going=true; shift ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (usage: bash scripts/flake-check.sh [--runs N] [--keep-going])" >&2; exit 2 ;;
  esac
done

cpus=$(nproc)
out=$(mktemp -d "${TMPDIR:-/tmp}/flake-check.XXXXXX")
burners=()
run_pid=""

# Every process a run starts inherits this, detached ones too (the reaper tests start whole trees in sessions
# of their own), so that a run stopped half-way leaves none behind.
marker="FLAKE_CHECK_RUN=$$-$RANDOM$RANDOM"

# The PIDs of the processes carrying the marker: those a run started and that are still alive. One grep
# reads every environment (NUL-separated entries, matched whole).
marked() {
  grep -lzxF "$marker" /proc/[0-9]*/environ 2>/dev/null | sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p' || true
}

cleanup() {
  local pid
  for pid in "${burners[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${burners[@]}"; do wait "$pid" 2>/dev/null || true; done
  burners=()
  # The run in progress is a session of its own (setsid below): its npm, vitest and vitest's workers go together.
  if [[ -n "$run_pid" ]]; then
    kill -TERM -- "-$run_pid" 2>/dev/null || true
    wait "$run_pid" 2>/dev/null || true
  fi
  for pid in $(marked); do kill -KILL "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
# A signal ends the script (after cleanup, through the EXIT trap) with the usual 128+N status.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

for ((i = 0; i < cpus; i++)); do
  # A busy loop in a subshell of its own: one process, no children, killed by its PID.
  (while :; do :; done) &
  burners+=("$!")
done
echo "flake-check: $cpus CPU burner(s) running (PIDs ${burners[*]}); $runs run(s) of npm run test:unit; output in $out"

started=$(date +%s)
passed=0
failed_runs=()
for ((run = 1; run <= runs; run++)); do
  log="$out/run-$run.log"
  report="$out/run-$run.json"
  run_started=$(date +%s)
  # In the background and waited for, so that a signal runs the traps at once rather than after the run.
  env "$marker" setsid npm run test:unit -- --outputFile.json="$report" >"$log" 2>&1 &
  run_pid=$!
  status=0
  wait "$run_pid" || status=$?
  run_pid=""
  seconds=$(($(date +%s) - run_started))
  # The failing tests from the JSON report (its numbers, not the exit status alone: a run that ran no test fails too).
  failures=$(
    node -e '
      const fs = require("node:fs");
      const file = process.argv[1];
      if (!fs.existsSync(file)) { console.log("  (no JSON report: the run did not finish; see its log)"); process.exit(0); }
      const r = JSON.parse(fs.readFileSync(file, "utf8"));
      const lines = [];
      for (const f of r.testResults)
        for (const a of f.assertionResults)
          if (a.status !== "passed") lines.push(`  ${a.status}: ${f.name.replace(process.cwd() + "/", "")} > ${a.fullName}`);
      if (r.numTotalTests === 0) lines.push("  no test ran");
      if (lines.length === 0 && !r.success) lines.push("  (no failing test in the report, but the run failed: see its log)");
      console.log(lines.join("\n"));
    ' "$report"
  )
  if [[ $status -eq 0 && -z "$failures" ]]; then
    passed=$((passed + 1))
    echo "run $run of $runs: passed (${seconds} s)"
    continue
  fi
  failed_runs+=("$run")
  echo "run $run of $runs: FAILED (${seconds} s, exit status $status); log: $log"
  echo "$failures"
  # The assertion messages, as vitest printed them.
  grep -E -A12 '^ *(FAIL|×) ' "$log" | head -80 || true
  $keep_going || break
done

minutes=$(awk -v s="$(($(date +%s) - started))" 'BEGIN { printf "%.1f", s / 60 }')
echo "$passed of $runs runs passed in $minutes minutes${failed_runs[*]:+ (failed: run ${failed_runs[*]})}"
if [[ ${#failed_runs[@]} -eq 0 && $passed -eq $runs ]]; then
  rm -rf "$out"
  exit 0
fi
echo "the runs' output is kept in $out"
exit 1
