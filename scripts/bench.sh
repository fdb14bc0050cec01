#!/usr/bin/env bash
# npm run bench: throughput and peak memory on large synthetic captures (issue 7).
#
# 1. bench/gen-large.py writes .bench/{bulk-snap96,bulk-full,short-conns}.pcap once
#    (size: BENCH_SCALE, default 1 = ~2.5 M packets / ~1 GB / 100k connections).
# 2. Each file is read by tshark (`tshark -q -z io,stat,0 -r FILE`) and, when
#    bench/run-wasm.mjs exists, by the tcpscope engine (`node bench/run-wasm.mjs FILE`),
#    each under `/usr/bin/time -v` for wall time and peak RSS.
# 3. Prints a markdown table: packets/s and MB/s (file bytes / wall time), peak RSS,
#    and the wasm engine's memory per packet (linear-memory high-water mark and the
#    live heap after the analysis).
# 4. Unless BENCH_SKIP_BROWSER=1: builds dist/ and runs bench/browser.mjs per file in
#    headless Chromium (drop-to-chart time against merely reading the bytes, frame
#    times while zooming), a second table.
#
# Informational only: nothing here fails on speed (times depend on the machine).
# Options (env): BENCH_SCALE, BENCH_DIR (default .bench), BENCH_FORCE=1 (regenerate),
# BENCH_FILES="bulk-snap96 short-conns" (subset), BENCH_SKIP_TSHARK=1, BENCH_SKIP_BROWSER=1,
# BENCH_OUT=file.md
set -uo pipefail
cd "$(dirname "$0")/.."
DIR=${BENCH_DIR:-.bench}
export BENCH_DIR="$DIR"
FILES=${BENCH_FILES:-"bulk-snap96 bulk-full short-conns"}
ENGINE=bench/run-wasm.mjs
OUTMD=${BENCH_OUT:-$DIR/bench-results.md}

# Other work on the machine skews every number: the table records the load average.
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
python3 bench/gen-large.py || { echo "bench: generating the captures failed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time (GNU time) is needed for peak memory: apt-get install time" >&2; exit 1; }

# run_timed LOG CMD... : runs CMD under GNU time -v, stdout to LOG.out, time report to LOG.time
run_timed() {
  local log=$1; shift
  /usr/bin/time -v -o "$log.time" "$@" > "$log.out" 2> "$log.err"
  echo $? > "$log.rc"
}
# field NAME LOGFILE : value from a GNU time -v report
field() { sed -n "s/^[[:space:]]*$1: //p" "$2" | head -1; }
# wall-clock "h:mm:ss" or "m:ss.ss" -> seconds
to_seconds() { awk -F: '{ s=0; for (i=1;i<=NF;i++) s=s*60+$i; printf "%.3f", s }' <<< "$1"; }

rows=()
declare -A PPS   # packets/s per "capture|reader", for the ratios
ratio() { awk "BEGIN{ if (($2) + 0 > 0) printf \"%.1f×\", ($1)/($2); else print \"—\" }"; }
add_row() { # file tool packets bytes seconds rss_kb note
  local f=$1 tool=$2 pk=$3 by=$4 sec=$5 rss=$6 note=$7
  if [ -n "$sec" ] && awk "BEGIN{exit !($sec > 0)}"; then
    local pps mbs mem
    pps=$(awk "BEGIN{printf \"%.0f\", $pk/$sec}")
    mbs=$(awk "BEGIN{printf \"%.1f\", $by/1e6/$sec}")
    mem=$(awk "BEGIN{printf \"%.0f\", $rss/1024}")
    rows+=("| $f | $tool | $pk | $(awk "BEGIN{printf \"%.1f\", $by/1e6}") | $sec | $pps | $mbs | $mem | $note |")
  else
    rows+=("| $f | $tool | $pk | $(awk "BEGIN{printf \"%.1f\", $by/1e6}") | — | — | — | — | $note |")
  fi
}

# run_engine NAME FILE PACKETS BYTES LABEL CMD...
run_engine() {
  local name=$1 f=$2 packets=$3 bytes=$4 label=$5; shift 5
  local log=$DIR/$name.$(echo "$label" | tr -c 'a-z0-9' '_')
  run_timed "$log" "$@"
  local sec rss seen note extra
  sec=$(to_seconds "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$log.time")")
  rss=$(field 'Maximum resident set size (kbytes)' "$log.time")
  seen=$(tail -1 "$log.out" | python3 -c "import json,sys; print(json.loads(sys.stdin.read()).get('packets',''))" 2>/dev/null)
  extra=$(tail -1 "$log.out" | python3 -c "
import json,sys; d=json.loads(sys.stdin.read())
if 'bytesPerPacket' in d and d.get('connections') is not None:
    live = f\", live heap {d['heapBytesPerPacket']} B/packet\" if 'heapBytesPerPacket' in d else ''
    print(f\"wasm memory {d['bytesPerPacket']} B/packet (high-water){live}; finish {d.get('finishSeconds', 0):.2f} s\")
elif 'finishSeconds' in d:
    print(f\"finish {d['finishSeconds']:.2f} s\")" 2>/dev/null)
  note=$extra
  [ "$(cat "$log.rc")" = 0 ] || note="$note exit $(cat "$log.rc") (see $log.err)"
  [ "$seen" = "$packets" ] || note="$note counted ${seen:-?} packets"
  add_row "$name" "$label" "$packets" "$bytes" "$sec" "$rss" "$note"
  PPS["$name|$label"]=$(awk "BEGIN{ if (\"$sec\" + 0 > 0) printf \"%.0f\", $packets/$sec; else print 0 }")
}

echo "bench: building the wasm package and the native example" >&2
bash scripts/build-wasm.sh >/dev/null
(cd wasm && cargo build --release --example analyze --quiet) || { echo "bench: native build failed" >&2; exit 1; }
NATIVE=wasm/target/release/examples/analyze
if [ "${BENCH_SKIP_BROWSER:-0}" != 1 ]; then
  echo "bench: building dist/ for the browser measurement" >&2
  npx vite build >/dev/null 2>&1 || { echo "bench: vite build failed; skipping the browser part" >&2; BENCH_SKIP_BROWSER=1; }
fi
browser_rows=()

for name in $FILES; do
  f=$DIR/$name.pcap
  [ -f "$f" ] || { echo "bench: $f missing" >&2; continue; }
  bytes=$(stat -c %s "$f")
  packets=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['packets'])" "$DIR/$name.json")
  echo "bench: $name ($packets packets, $((bytes / 1000000)) MB)" >&2

  if [ "${BENCH_SKIP_TSHARK:-0}" != 1 ] && command -v tshark >/dev/null; then
    log=$DIR/$name.tshark
    run_timed "$log" tshark -q -z io,stat,0 -r "$f"
    sec=$(to_seconds "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$log.time")")
    rss=$(field 'Maximum resident set size (kbytes)' "$log.time")
    # packets tshark actually counted (io,stat row "| 0.000 <> x | frames | bytes |")
    seen=$(awk -F'|' '/<>/ {gsub(/ /,"",$3); print $3}' "$log.out" | tail -1)
    note="tshark $(tshark -v 2>/dev/null | head -1 | awk '{print $3}')"
    [ "$(cat "$log.rc")" = 0 ] || note="$note, exit $(cat "$log.rc")"
    [ "$seen" = "$packets" ] || note="$note, counted ${seen:-?} packets"
    add_row "$name" tshark "$packets" "$bytes" "$sec" "$rss" "$note"
    PPS["$name|tshark"]=$(awk "BEGIN{ if (\"$sec\" + 0 > 0) printf \"%.0f\", $packets/$sec; else print 0 }")
  else
    add_row "$name" tshark "$packets" "$bytes" "" 0 "skipped"
  fi

  # Engines: `CMD FILE` prints one JSON line {"packets": N, ...} (bench/run-wasm.mjs,
  # the native example); each is timed as a whole process, like tshark.
  run_engine "$name" "$f" "$packets" "$bytes" "tcpscope wasm (node)" node "$ENGINE" "$f"
  run_engine "$name" "$f" "$packets" "$bytes" "tcpscope wasm, decode only" node "$ENGINE" "$f" --decode-only
  run_engine "$name" "$f" "$packets" "$bytes" "tcpscope native" "$NATIVE" "$f"

  if [ "${BENCH_SKIP_BROWSER:-0}" != 1 ]; then
    log=$DIR/$name.browser
    node bench/browser.mjs "$f" > "$log.out" 2> "$log.err"
    browser_rows+=("$(tail -1 "$log.out" | python3 -c "
import json,sys
try: d=json.loads(sys.stdin.read())
except Exception: print('| $name | — | — | — | — | — | — | — | — | failed, see $log.err |'); sys.exit()
if 'error' in d: print(f\"| $name | — | — | — | — | — | — | — | — | {d['error']} |\"); sys.exit()
f=d['frames']; q=d.get('query', {}).get('workerMs', {}); m=d.get('memory', {})
print(f\"| $name | {d['readMs']/1000:.2f} | {d.get('reportMs', 0)/1000:.2f} | {d['readyMs']/1000:.2f} | {d['readyVsRead']}× | {f['p50Ms']} / {f['p95Ms']} / {f['maxMs']} | {f['over16ms']} of {f['count']} | {q.get('p50', '—')} / {q.get('p95', '—')} / {q.get('max', '—')} | {m.get('bytesPerPacket', '—')} | idle frame {d['idleFrameMs']} ms; {f['wheelFrames']} wheel + {f['dragFrames']} drag frames |\")
")")
  fi
done

{
  echo "### tcpscope bench — $(date -u +%FT%TZ), $(nproc) CPU, $(uname -r), BENCH_SCALE=${BENCH_SCALE:-1}, load average at start $LOAD0, at end $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| capture | reader | packets | file MB | wall s | packets/s | MB/s | peak RSS MiB | notes |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "| capture | wasm ÷ tshark (target ≥ 50×) | native ÷ tshark | wasm analysis ÷ wasm decode only (target ≥ 0.25) | wasm ÷ native |"
  echo "|---|---|---|---|---|"
  for name in $FILES; do
    w=${PPS["$name|tcpscope wasm (node)"]:-0}; d=${PPS["$name|tcpscope wasm, decode only"]:-0}
    n=${PPS["$name|tcpscope native"]:-0}; t=${PPS["$name|tshark"]:-0}
    echo "| $name | $(ratio "$w" "$t") | $(ratio "$n" "$t") | $(ratio "$w" "$d") | $(ratio "$w" "$n") |"
  done
  echo
  echo "MB/s = file bytes / wall time (10^6 bytes). Wall time and peak RSS from GNU time -v"
  echo "(whole process, including start-up). Informational: nothing fails on speed."
  echo "wasm memory: linear memory at the end / packets (its high-water mark: wasm memory never"
  echo "shrinks); live heap: bytes still allocated after the analysis (what it retains)."
  if [ ${#browser_rows[@]} -gt 0 ]; then
    echo
    echo "Headless Chromium ($(chromium --version 2>/dev/null | awk '{print $2}')), bench/browser.mjs:"
    echo
    echo "| capture | read bytes s | drop → report s | drop → chart s | ratio (target ≤ 2×) | zoom/pan frame ms p50 / p95 / max (targets p95 ≤ 16.7, max ≤ 50) | frames > 16.7 ms | worker query ms p50 / p95 / max, 1600 columns (target p95 ≤ 2) | memory B/packet, all Chromium processes (target ≤ 100) | notes |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${browser_rows[@]}"
  fi
} | tee "$OUTMD"
exit 0
