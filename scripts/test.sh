#!/usr/bin/env bash
# npm test: install what is missing, then every suite: cargo tests, the CLI tests,
# Vitest unit tests, a type check, a production build, Playwright e2e in Chromium, and
# the Firefox ESR smoke suite (e2e/firefox/).
#
# Two lanes side by side (issue 42 item 1: a fresh clone in ≤ 8 min on 2 cores):
#   rust: cargo test (a native build of the core and its tests, then the tests)
#   js:   build wasm → the static renderer → the production build → Playwright (two
#         workers) → Firefox; beside Playwright: the type check, the CLI tests, Vitest
# Nothing in one lane reads what the other writes (cargo test builds natively into its
# own profile, the wasm build into wasm32-unknown-unknown/release). Each step's output
# goes to its own log; a line says when it starts and when it ends (time, result, test
# count), a failed step's log is printed, and the table at the end gives every step.
# The exit status is 1 when any step failed.
#   TCPSCOPE_TEST_LOGS=DIR  keep the step logs there (default: a temporary folder,
#                           kept when a step failed)
# Where the cgroup cpuacct controller can be written (root on Linux with cgroup v1, as
# on the project's 2-core machine), each step runs in a cgroup of its own and the table
# gives its CPU seconds too, every process it started included (Chromium's renderers
# are not the children `time` counts): on two cores the suites' CPU time, more than any
# lane's wall time, is what bounds npm test.
set -uo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
bash scripts/bootstrap.sh --browser || { echo "npm test: bootstrap failed" >&2; exit 1; }
export PATH="$HOME/.cargo/bin:$PATH"

logs=${TCPSCOPE_TEST_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/tcpscope-test.XXXXXX")}
mkdir -p "$logs"
bold() { printf '\033[1m%s\033[0m\n' "$*"; }

# tests_in LOG: how many tests a step's log says ran ("" when it names none).
tests_in() {
  local log=$1 plain
  plain=$(sed -E 's/\x1b\[[0-9;]*[A-Za-z]//g' "$log")
  case $(basename "$log" .log) in
    cargo) grep -oE '^test result: [a-zA-Z]+\. [0-9]+ passed; [0-9]+ failed; [0-9]+ ignored' <<< "$plain" \
             | awk '{p+=$4; f+=$6; i+=$8} END {if (NR) printf "%d passed, %d failed, %d ignored", p, f, i}' ;;
    cli|firefox) awk '/^ℹ (pass|fail|skipped) / {n[$2]=$3} END {if (length(n)) printf "%d passed, %d failed, %d skipped", n["pass"], n["fail"], n["skipped"]}' <<< "$plain" ;;
    vitest) grep -oE '^ *Tests +.*' <<< "$plain" | tail -1 | sed -E 's/^ *Tests +//' ;;
    e2e) grep -oE '^ +[0-9]+ (passed|failed|flaky|skipped|did not run)' <<< "$plain" | awk '{printf "%s%s %s", (NR>1?", ":""), $1, $2}' ;;
  esac
}

# A cpuacct cgroup for this run, if one can be made ("" if not: no CPU column).
cpu_root=""
cpu_dir=/sys/fs/cgroup/cpuacct
if [ -w "$cpu_dir" ] && [ -f "$cpu_dir/cpuacct.usage" ] && mkdir "$cpu_dir/tcpscope-test.$$" 2>/dev/null; then
  cpu_root="$cpu_dir/tcpscope-test.$$"
  # Each step's group is removed when the step ends; the run's when the script ends.
  trap 'rmdir "$cpu_root"/* "$cpu_root" 2>/dev/null' EXIT
fi

# in_group ID CMD...: runs CMD in the step's cgroup, when there is one.
in_group() {
  local id=$1
  shift
  if [ -n "$cpu_root" ] && mkdir "$cpu_root/$id" 2>/dev/null; then
    ( echo "$BASHPID" 2> /dev/null > "$cpu_root/$id/cgroup.procs"; exec "$@" )
  else
    "$@"
  fi
}
# cpu_of ID: CPU seconds used in the step's cgroup ("" without one); removes the group.
cpu_of() {
  local group="$cpu_root/$1" ns
  [ -n "$cpu_root" ] && [ -f "$group/cpuacct.usage" ] || return 0
  ns=$(cat "$group/cpuacct.usage")
  rmdir "$group" 2>/dev/null # stays if a process the step started still runs
  echo $(( (ns + 500000000) / 1000000000 ))
}

# step ID NAME CMD...: runs CMD with its output in $logs/ID.log; says when it starts
# and ends; on failure prints the log's last 150 lines. Returns CMD's status. The
# record "ID|NAME|seconds|result|tests|CPU seconds" goes to $logs/steps for the table.
step() {
  local id=$1 name=$2 t=$SECONDS rc
  shift 2
  bold "▶ $name"
  in_group "$id" "$@" > "$logs/$id.log" 2>&1
  rc=$?
  local secs=$((SECONDS - t)) count cpu
  count=$(tests_in "$logs/$id.log")
  cpu=$(cpu_of "$id")
  if [ $rc = 0 ]; then
    bold "✔ $name: $secs s${cpu:+, $cpu CPU-s}${count:+ ($count)}"
    echo "$id|$name|$secs|ok|$count|$cpu" >> "$logs/steps"
  else
    { bold "✘ $name: FAILED (exit $rc) after $secs s${count:+ ($count)}; last lines of $logs/$id.log:"
      tail -n 150 "$logs/$id.log"
      bold "✘ end of $name"; } >&2
    echo "$id|$name|$secs|FAILED|$count|$cpu" >> "$logs/steps"
  fi
  return $rc
}
# skipped ID NAME WHY: a step not run because one it needs failed.
skipped() { bold "- $2: not run ($3)"; echo "$1|$2|0|not run ($3)||" >> "$logs/steps"; }

# The rust lane runs at a lower priority (nice 10): the js lane is the longer one (its
# end is npm test's end), and the wasm build's last step (LTO, one codegen unit) and
# Playwright leave a core idle much of the time, which cargo then fills. At equal
# priority the two builds shared the cores and the wasm build took 505 s instead of ~100.
# CARGO_INCREMENTAL=0: npm test builds the tests once (a fresh clone builds everything,
# a warm run nothing), so incremental compilation's cache, which rustc writes as it
# compiles, is work no later build of npm test reads; cargo's own advice for CI.
lane_rust() {
  step cargo "cargo test (Rust core, natively)" nice -n 10 env CARGO_INCREMENTAL=0 bash -c 'cd wasm && cargo test --quiet'
}

lane_js() {
  if ! step wasm "build wasm" bash scripts/build-wasm.sh; then
    for s in "render|static renderer" "app|production build" "types|type check" "cli|CLI tests" "vitest|unit tests (vitest)" "e2e|e2e (playwright)" "firefox|e2e (firefox)"; do
      skipped "${s%%|*}" "${s#*|}" "build wasm failed"
    done
    return 1
  fi
  local ok=0
  step render "build the static renderer (tcpscope render's Node bundle)" npx vite build -c vite.render.config.ts || ok=1
  step app "production build" npx vite build --logLevel warn || ok=1
  # The type check (~12 CPU-s; the build does not need it), the CLI tests (node --test,
  # two test files at a time) and Vitest run beside Playwright, a little below it in
  # priority (nice 5): Playwright, with its two workers (playwright.config.ts), is the
  # end of the longest lane.
  (
    renice -n 5 -p $BASHPID > /dev/null
    step types "type check (tsc)" npx tsc -p .
    # --liftoff-only: V8's baseline wasm compiler only, for the test files' own processes
    # (the in-process runs) and, through cli/testing/node.mjs, for the bin/tcpscope.mjs
    # children they start: the optimising compiler's work on the engine's hot functions,
    # once per process, is more than the tests' small captures ever give back.
    step cli "CLI tests (node --test)" node --liftoff-only --test --test-reporter=spec --test-concurrency=2 cli/
    step vitest "unit tests (vitest)" npx vitest run
  ) &
  local side=$!
  if [ $ok = 0 ]; then
    step e2e "e2e (playwright, Debian chromium)" npx playwright test \
      && step firefox "e2e in the second engine (Debian firefox-esr, puppeteer-core over WebDriver BiDi)" node --test --test-reporter=spec e2e/firefox/ \
      || ok=1
  else
    skipped e2e "e2e (playwright)" "a build failed"
    skipped firefox "e2e (firefox)" "a build failed"
  fi
  wait $side || ok=1
  return $ok
}

lane_rust &
rust=$!
lane_js &
js=$!
status=0
wait $rust || status=1
wait $js || status=1

echo
bold "== npm test: step times (logs in $logs)"
printf '%-8s %7s %7s  %-8s %-36s %s\n' step seconds CPU-s result tests name
cpu_total=0
while IFS='|' read -r id name secs result count cpu; do
  printf '%-8s %7s %7s  %-8s %-36s %s\n' "$id" "$secs" "${cpu:--}" "$result" "${count:--}" "$name"
  cpu_total=$((cpu_total + ${cpu:-0}))
done < "$logs/steps"
total=$((SECONDS - started))
[ -z "$cpu_root" ] || bold "== npm test: the steps used $cpu_total CPU-s in $total s on $(nproc) cores"
# Every step's own result counts, whichever lane it ran in.
! awk -F'|' '$4 != "ok"' "$logs/steps" | grep -q . || status=1
if [ $status = 0 ]; then
  [ -n "${TCPSCOPE_TEST_LOGS:-}" ] || rm -rf "$logs"
  bold "== npm test: every suite passed in $total s"
else
  failed=$(awk -F'|' '$4 != "ok" {printf "%s%s", (n++ ? ", " : ""), $1}' "$logs/steps")
  bold "== npm test: FAILED after $total s: $failed (logs in $logs)" >&2
  exit 1
fi
