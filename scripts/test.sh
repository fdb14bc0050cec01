#!/usr/bin/env bash
# npm test: install what is missing, then every suite: cargo tests, the CLI tests,
# Vitest unit tests, a type check, a production build, Playwright e2e in Chromium, and
# the Firefox ESR smoke suite (e2e/firefox/).
#
# Two lanes side by side (issue 42 item 1: a fresh clone in ≤ 8 min on 2 cores):
#   rust: cargo test (a native build of the core and its tests, then the tests)
#   js:   build wasm → the static renderer, the type check and the production build →
#         the CLI tests and Vitest beside Playwright → Firefox
# Nothing in one lane reads what the other writes (cargo test builds natively into its
# own profile, the wasm build into wasm32-unknown-unknown/release), and each lane is
# one or two processes at a time, so two cores stay busy without piling up. Each step's
# output goes to its own log; a line says when it starts and when it ends (time,
# result, test count), a failed step's log is printed, and the table at the end gives
# every step. The exit status is 1 when any step failed.
#   TCPSCOPE_TEST_LOGS=DIR  keep the step logs there (default: a temporary folder,
#                           kept when a step failed)
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

# step ID NAME CMD...: runs CMD with its output in $logs/ID.log; says when it starts
# and ends; on failure prints the log's last 150 lines. Returns CMD's status. The
# record "ID|NAME|seconds|result|tests" goes to $logs/steps for the table.
step() {
  local id=$1 name=$2 t=$SECONDS rc
  shift 2
  bold "▶ $name"
  "$@" > "$logs/$id.log" 2>&1
  rc=$?
  local secs=$((SECONDS - t)) count
  count=$(tests_in "$logs/$id.log")
  if [ $rc = 0 ]; then
    bold "✔ $name: $secs s${count:+ ($count)}"
    echo "$id|$name|$secs|ok|$count" >> "$logs/steps"
  else
    { bold "✘ $name: FAILED (exit $rc) after $secs s${count:+ ($count)}; last lines of $logs/$id.log:"
      tail -n 150 "$logs/$id.log"
      bold "✘ end of $name"; } >&2
    echo "$id|$name|$secs|FAILED|$count" >> "$logs/steps"
  fi
  return $rc
}
# skipped ID NAME WHY: a step not run because one it needs failed.
skipped() { bold "- $2: not run ($3)"; echo "$1|$2|0|not run ($3)|" >> "$logs/steps"; }

# The rust lane runs at a lower priority (nice 10): the js lane is the longer one (its
# end is npm test's end), and the wasm build's last step (LTO, one codegen unit) and
# Playwright leave a core idle much of the time, which cargo then fills. At equal
# priority the two builds shared the cores and the wasm build took 505 s instead of ~100.
lane_rust() {
  step cargo "cargo test (Rust core, natively)" nice -n 10 bash -c 'cd wasm && cargo test --quiet'
}

lane_js() {
  if ! step wasm "build wasm" bash scripts/build-wasm.sh; then
    for s in "render|static renderer" "app|type check + production build" "cli|CLI tests" "vitest|unit tests (vitest)" "e2e|e2e (playwright)" "firefox|e2e (firefox)"; do
      skipped "${s%%|*}" "${s#*|}" "build wasm failed"
    done
    return 1
  fi
  local ok=0
  step render "build the static renderer (tcpscope render's Node bundle)" npx vite build -c vite.render.config.ts || ok=1
  step app "type check + production build" bash -c 'npx tsc -p . && npx vite build --logLevel warn' || ok=1
  # The CLI tests (node --test, two test files at a time) and Vitest run beside
  # Playwright, which keeps one worker (the lanes already fill both cores), a little
  # below it in priority (nice 5): Playwright is the end of the longest lane.
  (
    renice -n 5 -p $BASHPID > /dev/null
    step cli "CLI tests (node --test)" node --test --test-reporter=spec --test-concurrency=2 cli/
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
printf '%-8s %7s  %-8s %-36s %s\n' step seconds result tests name
while IFS='|' read -r id name secs result count; do
  printf '%-8s %7s  %-8s %-36s %s\n' "$id" "$secs" "$result" "${count:--}" "$name"
done < "$logs/steps"
total=$((SECONDS - started))
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
