#!/usr/bin/env bash
# Fuzz the Rust core with cargo-fuzz (libFuzzer), share-link snapshots included. Installs what is missing (nightly toolchain,
# cargo-fuzz), seeds the corpora from the repo's example captures (first 64 KiB) and
# synth-generated files, runs every target, and prints executions and crashes.
#
#   bash scripts/fuzz.sh                     # every target, 10 000 000 runs each
#   bash scripts/fuzz.sh -runs=100000        # shorter
#   bash scripts/fuzz.sh -max_total_time=600 # or for a set time (seconds) each
#   TARGETS="synth_roundtrip" bash scripts/fuzz.sh
#
# Targets (wasm/fuzz/fuzz_targets): decode_analyze (any bytes through decode +
# analysis + JSON report, random chunk sizes, chunking must not change the result),
# synth_roundtrip (synth writes scripted segments, the decoder must return them),
# share_parse (any bytes through the share-link parser; what opens answers every series),
# view_query (arbitrary t0/t1/columns/bin/threshold/series/direction against analysed examples),
# link_fragment (any text as a link's fragment: the snap= reader, then the snapshot parser),
# twin_merge (two captures cut from one input through the two-vantage-point merge),
# ask_parse (any text as a boundary question, answered over an analysed capture).
# The sanitizer of outside text is JavaScript (cli/outsideText.mjs): its fuzzer is
#   node cli/outsideText.fuzz.mjs 10000000
# A crash leaves its input in wasm/fuzz/artifacts/<target>/; minimise it with
#   cd wasm && cargo +nightly fuzz tmin --fuzz-dir fuzz -s none <target> <file>
# and add it to wasm/tests/hostile_regressions.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$HOME/.cargo/bin:$PATH"

LIMIT=("${@:--runs=10000000}")
TARGETS=${TARGETS:-"decode_analyze synth_roundtrip share_parse view_query link_fragment twin_merge ask_parse"}
MAX_LEN=${MAX_LEN:-16384}

if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz
fi

cd wasm
# No sanitizer: the crate has no `unsafe`, so ASan would only slow the search; debug
# assertions on (integer overflow panics count as crashes); no trace-compares (the
# seeds carry the magic numbers; it halves the speed).
BUILD=(cargo +nightly fuzz build --fuzz-dir fuzz -s none --debug-assertions --no-trace-compares)
for t in $TARGETS; do "${BUILD[@]}" "$t"; done
BIN=fuzz/target/x86_64-unknown-linux-gnu/release

# Seeds (idempotent: same names, same bytes).
(cd fuzz && cargo +nightly build --release --quiet --bin seed && ./target/release/seed "$ROOT" corpus)

status=0
for t in $TARGETS; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  # The committed seeds (wasm/fuzz/seeds/<target>: the corpus of the last 10 M-run,
  # minimised with -merge=1) start where that run stopped.
  [ -d "fuzz/seeds/$t" ] && cp -n fuzz/seeds/"$t"/* "fuzz/corpus/$t/" 2>/dev/null || true
  log="fuzz/artifacts/$t.log"
  echo "== $t (${LIMIT[*]}, -max_len=$MAX_LEN)"
  start=$(date +%s)
  set +e
  "$BIN/$t" "${LIMIT[@]}" -max_len="$MAX_LEN" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="fuzz/artifacts/$t/" "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  crashes=$(find "fuzz/artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  echo "$t: ${runs:-?} executions in $(( $(date +%s) - start )) s, exit $rc, $crashes crash/timeout/oom inputs in fuzz/artifacts/$t (log: wasm/$log)"
  [ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ] || status=1
done
cd "$ROOT"

# SAVE_SEEDS=1: minimise each corpus into wasm/fuzz/seeds/<target> (to commit).
if [ "${SAVE_SEEDS:-0}" = 1 ]; then
  for t in $TARGETS; do
    rm -rf "wasm/fuzz/seeds/$t" && mkdir -p "wasm/fuzz/seeds/$t"
    "wasm/$BIN/$t" -merge=1 -max_len="$MAX_LEN" "wasm/fuzz/seeds/$t" "wasm/fuzz/corpus/$t" >/dev/null 2>&1
    echo "$t: $(ls "wasm/fuzz/seeds/$t" | wc -l) seeds kept"
  done
fi
exit $status
