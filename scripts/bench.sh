#!/usr/bin/env bash
# npm run bench: throughput and memory on large synthetic captures (issues 7 and 16),
# every reader measured in this one run, on the same files, so the ratios compare like
# with like. Prints ONE markdown table (and writes it to $BENCH_OUT).
#
# 1. bench/gen-large.py writes .bench/{bulk-snap96,bulk-full,short-conns,syn-1m}.pcap once
#    (BENCH_SCALE, default 1: ~2.5 M packets bulk / ~1 GB / 100 k connections / 10^6 SYNs).
# 2. Per file, each under `/usr/bin/time -v` (wall time, peak RSS of the whole process):
#      tshark     `tshark -q -z io,stat,0 -r FILE` (a full dissection pass: the reference)
#      framing    bare pcap-parser, native (`analyze --frame-only`): the floor
#      native     the engine built natively (wasm/examples/analyze.rs)
#      wasm       the engine in wasm under Node, as the CLI and the worker run it
#                 (bench/run-wasm.mjs): also its linear-memory high-water mark
#      --ndjson   the CLI writing NDJSON to /dev/null (peak RSS: target < 300 MB at 100 k)
#      browser    headless Chromium (bench/browser.mjs): drop → charts drawn, the peak
#                 memory (PSS) of Chromium's processes, zoom/pan frame times, worker query
#                 times; only for BENCH_BROWSER_FILES (default bulk-snap96 syn-1m),
#                 BENCH_SKIP_BROWSER=1 skips it
#      progressive  headless Chromium (bench/progressive.mjs, issue 41): drop → first
#                 partial chart, redraws/s, ready with progressive display on vs off
#
# Informational only: nothing here fails on speed (times depend on the machine and on
# what else runs on it: the load average is printed). Options (env): BENCH_SCALE,
# BENCH_DIR (default .bench), BENCH_FORCE=1 (regenerate), BENCH_FILES (subset),
# BENCH_BROWSER_FILES, BENCH_SKIP_TSHARK=1, BENCH_SKIP_BROWSER=1, BENCH_OUT=file.md,
# BENCH_SKIP_FLEET=1 (then bench/fleet.sh, issue 43's fleet table, is not run)
# BENCH_PROGRESSIVE_ONLY=1 (only issue 41's progressive table: no per-file table, no fleet)
# BENCH_4G=1 (issue 41: the first chart of a 4 GB capture, written on demand; BENCH_4G_REMOVE=1 deletes it after)
set -uo pipefail
cd "$(dirname "$0")/.."
DIR=${BENCH_DIR:-.bench}
export BENCH_DIR="$DIR"
FILES=${BENCH_FILES:-"bulk-snap96 bulk-full short-conns syn-1m"}
BROWSER_FILES=${BENCH_BROWSER_FILES:-"bulk-snap96 syn-1m"}
OUTMD=${BENCH_OUT:-$DIR/bench-results.md}
PROGRESSIVE_ONLY=${BENCH_PROGRESSIVE_ONLY:-0}
if [ "$PROGRESSIVE_ONLY" = 1 ]; then
  # Only the captures the progressive table reads (bulk-10m is written below).
  FILES=""
  export BENCH_FILES="bulk-snap96 short-conns"
  BENCH_SKIP_FLEET=1
  : > "$OUTMD"
fi

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
python3 bench/gen-large.py || { echo "bench: generating the captures failed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time (GNU time) is needed for peak memory: apt-get install time" >&2; exit 1; }

echo "bench: building the wasm package and the native example" >&2
bash scripts/build-wasm.sh >/dev/null
[ "$PROGRESSIVE_ONLY" = 1 ] || (cd wasm && cargo build --release --example analyze --quiet) || { echo "bench: native build failed" >&2; exit 1; }
NATIVE=${CARGO_TARGET_DIR:-wasm/target}/release/examples/analyze
if [ "${BENCH_SKIP_BROWSER:-0}" != 1 ]; then
  echo "bench: building dist/ for the browser measurement" >&2
  npx vite build >/dev/null 2>&1 || { echo "bench: vite build failed; skipping the browser part" >&2; BENCH_SKIP_BROWSER=1; }
fi

# timed LOG CMD... : runs CMD under GNU time -v; sets SEC, CPU (user + system seconds: on a
# loaded machine wall time is mostly waiting for a core), RSS_MIB, OUT (last stdout line), RC
timed() {
  local log=$1; shift
  /usr/bin/time -v -o "$log.time" "$@" > "$log.out" 2> "$log.err"
  RC=$?
  SEC=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log.time" |
    awk -F: '{ s=0; for (i=1;i<=NF;i++) s=s*60+$i; printf "%.2f", s }')
  CPU=$(sed -n 's/^[[:space:]]*\(User\|System\) time (seconds): //p' "$log.time" | awk '{ s += $1 } END { printf "%.2f", s }')
  RSS_MIB=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$log.time" | awk '{ printf "%.0f", $1/1024 }')
  OUT=$(tail -c 4096 "$log.out" | tail -1)
}
json() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); v=d$2; print('' if v is None else v)" "$1" 2>/dev/null; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.1f×", b/a; else print "—" }'; }  # a faster than b: b/a
# ratio of wall times, then of CPU times: "23.1× (CPU 30.2×)"
ratios() { echo "$(ratio "$1" "$2") (CPU $(ratio "$3" "$4"))"; }

rows=()
notes=()
for name in $FILES; do
  f=$DIR/$name.pcap
  [ -f "$f" ] || { echo "bench: $f missing" >&2; continue; }
  packets=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['packets'])" "$DIR/$name.json")
  mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN{printf "%.0f", b/1e6}')
  echo "bench: $name ($packets packets, $mb MB)" >&2
  note=""

  t_sec="" t_cpu="" t_rss=""
  if [ "${BENCH_SKIP_TSHARK:-0}" != 1 ] && command -v tshark >/dev/null; then
    timed "$DIR/$name.tshark" tshark -q -z io,stat,0 -r "$f"
    t_sec=$SEC t_cpu=$CPU t_rss=$RSS_MIB
    seen=$(awk -F'|' '/<>/ {gsub(/ /,"",$3); print $3}' "$DIR/$name.tshark.out" | tail -1)
    [ "$RC" = 0 ] && [ "$seen" = "$packets" ] || note+="tshark: exit $RC, counted ${seen:-?} packets. "
  fi

  timed "$DIR/$name.framing" "$NATIVE" "$f" --frame-only
  f_sec=$SEC f_cpu=$CPU
  [ "$(json "$OUT" "['packets']")" = "$packets" ] || note+="framing counted $(json "$OUT" "['packets']") packets. "

  timed "$DIR/$name.native" "$NATIVE" "$f"
  n_sec=$SEC n_cpu=$CPU n_rss=$RSS_MIB
  conns=$(json "$OUT" "['connections']")
  [ "$(json "$OUT" "['packets']")" = "$packets" ] || note+="native counted $(json "$OUT" "['packets']") packets. "
  generated=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('tcp_connections', ''))" "$DIR/$name.json")
  [ -z "$generated" ] || [ "$generated" = "$conns" ] ||
    note+="$generated connections generated, $conns analysed (the rest beyond AnalysisOptions::max_connections, counted in a warning). "

  timed "$DIR/$name.wasm" node bench/run-wasm.mjs "$f"
  w_sec=$SEC w_cpu=$CPU w_rss=$RSS_MIB
  w_bpp=$(json "$OUT" "['bytesPerPacket']")
  w_live=$(json "$OUT" "['heapBytesPerPacket']")
  w_mem=$(json "$OUT" "['wasmMemoryBytes']")
  w_bpc=$(awk -v m="$w_mem" -v c="$conns" 'BEGIN{ if (c+0 > 0) printf "%.0f", m/c; else print "—" }')
  [ "$RC" = 0 ] && [ "$(json "$OUT" "['packets']")" = "$packets" ] || note+="wasm: exit $RC (see $DIR/$name.wasm.err). "

  timed "$DIR/$name.ndjson" node bin/tcpscope.mjs analyze "$f" --ndjson
  j_sec=$SEC j_rss=$RSS_MIB
  [ "$RC" -le 1 ] || note+="--ndjson: exit $RC. "

  b_cell="—"
  if [ "${BENCH_SKIP_BROWSER:-0}" != 1 ] && [[ " $BROWSER_FILES " == *" $name "* ]]; then
    node bench/browser.mjs "$f" > "$DIR/$name.browser.out" 2> "$DIR/$name.browser.err"
    b=$(tail -1 "$DIR/$name.browser.out")
    b_ms=$(json "$b" "['readyMs']")
    if [ -n "$b_ms" ]; then
      b_sec=$(awk -v m="$b_ms" 'BEGIN{printf "%.1f", m/1000}')
      # How many times quicker than tshark's pass (ratio's b ÷ a; it printed "0.0× tshark" when a and b were swapped).
      b_cell="$b_sec s (tshark ÷ browser $(ratio "$(awk -v m="$b_ms" 'BEGIN{print m/1000}')" "$t_sec")), peak $(json "$b" "['peakPssMiB']") MiB"
      note+="browser: read $(json "$b" "['readMs']") ms, drop → report $(json "$b" "['reportMs']") ms, ready ÷ read $(json "$b" "['readyVsRead']") (≤ 2); progressive: first chart $(json "$b" "['progressive']['firstChartMs']") ms (÷ read $(json "$b" "['progressive']['firstChartVsRead']")), $(json "$b" "['progressive']['updatesPerS']") updates/s; "
      note+="worker: push $(json "$b" "['phases']['pushMs']") ms, waiting for reads $(json "$b" "['phases']['readWaitMs']") ms, finish $(json "$b" "['phases']['finishMs']") ms, chart columns built beside the page's render $(json "$b" "['phases']['prepareMs']") ms, first view queries $(json "$b" "['phases']['firstViewQueriesMs']") ms; "
      note+="zoom/pan frames p95 $(json "$b" "['frames']['p95Ms']") ms (with $(json "$b" "['framesStack']['chartsOnScreen']") charts on screen: p95 $(json "$b" "['framesStack']['p95Ms']"), max $(json "$b" "['framesStack']['maxMs']") ms), "
      note+="worker query p95 $(json "$b" "['query']['workerMs']['p95']") ms, $(json "$b" "['memory']['bytesPerPacket']") B/packet. "
    else
      b_cell="failed: $(json "$b" "['error']")"
    fi
  fi

  rows+=("| $name | $packets | ${conns:-—} | $mb | ${t_sec:-—} | $f_sec | $n_sec | $w_sec | $(ratios "$w_sec" "$t_sec" "$w_cpu" "$t_cpu") | $(ratios "$n_sec" "$t_sec" "$n_cpu" "$t_cpu") | $(ratios "$f_sec" "$n_sec" "$f_cpu" "$n_cpu") | $w_bpp (live $w_live) | $w_bpc | ${t_rss:-—} / $n_rss / $w_rss | $j_sec s, $j_rss MiB | $b_cell | $note |")
done

[ "$PROGRESSIVE_ONLY" = 1 ] || {
  echo "### tcpscope bench — $(date -u +%FT%TZ), $(nproc) CPU, $(uname -r), BENCH_SCALE=${BENCH_SCALE:-1}, load average $LOAD0 at start, $(cut -d' ' -f1-3 /proc/loadavg) at end"
  echo
  echo "| capture | packets | connections | MB | tshark s | framing s | native s | wasm s | tshark ÷ wasm (≥ 50× bulk, ≥ 20× 100 k conns) | tshark ÷ native | native ÷ framing (≤ 4×) | wasm B/packet high-water (≤ 40) | wasm B/connection (≤ 2048) | peak RSS MiB tshark / native / wasm | CLI --ndjson (< 300 MB at 100 k) | browser drop → chart, memory (PSS) | notes |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Wall times of whole processes (Node start included for wasm and --ndjson); each ratio is of"
  echo "wall times, then (CPU …) of user + system CPU seconds, which a loaded machine disturbs less; framing ="
  echo "bare pcap-parser (native), the floor; wasm B/packet = linear memory at the end / packets"
  echo "(its high-water mark: wasm memory never shrinks; live = bytes still allocated after the"
  echo "analysis); B/connection = the same high-water / connections. Browser: headless Chromium,"
  echo "file input → charts drawn, peak PSS summed over all its processes. Informational: nothing fails on speed."
} | tee "$OUTMD"

# Issue 41's progressive view: drop → first partial chart, redraws per second, ready with
# progressive display on and off, each against the bytes' read time (bench/progressive.mjs,
# median of BENCH_PROGRESSIVE_RUNS loads each). BENCH_PROGRESSIVE_FILES (default the 2.5 M-
# and 10 M-packet bulk captures and the 100 k connections); skipped with the browser part.
if [ "${BENCH_SKIP_BROWSER:-0}" != 1 ]; then
  {
    echo
    echo "#### Progressive view (issue 41): headless Chromium, median of ${BENCH_PROGRESSIVE_RUNS:-3} loads on / off, load average $(cut -d' ' -f1 /proc/loadavg)"
    echo
    echo "| capture | MB | load average (1 min) at start → end | read ms | first table ms | first chart ms on / off (≤ 500; off: nothing is drawn before ready) | chart ÷ read | updates/s (≥ 2) | ready on ms | ready off ms | on ÷ off (≤ 1.1) | ready ÷ read on / off |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    # The issue's 10^7-packet bulk capture (× BENCH_SCALE), written once by bench/bulk-capture.mjs.
    if [[ " ${BENCH_PROGRESSIVE_FILES:-bulk-10m} " == *" bulk-10m "* ]] && [ ! -f "$DIR/bulk-10m.pcap" ]; then
      node bench/bulk-capture.mjs "$DIR/bulk-10m.pcap" "$(awk -v s="${BENCH_SCALE:-1}" 'BEGIN{printf "%d", 1e7 * s}')" >&2
    fi
    for name in ${BENCH_PROGRESSIVE_FILES:-bulk-snap96 bulk-10m short-conns}; do
      f="$DIR/$name.pcap"
      [ -f "$f" ] || continue
      p=$(node bench/progressive.mjs "$f" --runs "${BENCH_PROGRESSIVE_RUNS:-3}" 2> "$DIR/$name.progressive.err" | tail -1)
      if [ -z "$p" ] || [ -z "$(json "$p" "['readMs']")" ]; then
        echo "| $name | failed: see $DIR/$name.progressive.err ||||||||||"
        continue
      fi
      echo "| $name | $(awk -v b="$(json "$p" "['bytes']")" 'BEGIN{printf "%.0f", b/1e6}') | $(json "$p" "['load']") → $(json "$p" "['loadEnd']") | $(json "$p" "['readMs']") | $(json "$p" "['on']['firstTableMs']") | $(json "$p" "['on']['firstChartMs']") / $(json "$p" "['off']['readyMs']") | $(json "$p" "['firstChartVsRead']") | $(json "$p" "['on']['updatesPerS']") | $(json "$p" "['on']['readyMs']") | $(json "$p" "['off']['readyMs']") | $(json "$p" "['readyOnVsOff']") | $(json "$p" "['readyVsRead']['on']") / $(json "$p" "['readyVsRead']['off']") |"
    done
  } | tee -a "$OUTMD"
fi

# Issue 41's 4 GB capture: drop → first partial chart only (the page is closed then, and the
# load with it). Opt-in, BENCH_4G=1: the file (4.0 GB, 4.1·10^7 packets of a snaplen-96 bulk
# connection, bench/bulk-capture.mjs, ≈ 1.5 min) is written once into $DIR/4g and removed
# again with BENCH_4G_REMOVE=1. The caps that apply to such a file (bench/README.md): the
# reader holds ≤ 48 MiB of it at a time; wasm32's 4 GiB of memory, of which the rows kept
# for the charts are capped at 2^25 packets (analysis/limits.rs max_stored_packets: the
# 7.5·10^6 packets past it count in the totals and throughput, not in the stored rows).
if [ "${BENCH_4G:-0}" = 1 ] && [ "${BENCH_SKIP_BROWSER:-0}" != 1 ]; then
  f4="$DIR/4g/bulk-4g.pcap"
  if [ ! -f "$f4" ]; then mkdir -p "$DIR/4g" && node bench/bulk-capture.mjs "$f4" 41000000 >&2; fi
  p=$(node bench/progressive.mjs "$f4" --first-only --runs "${BENCH_PROGRESSIVE_RUNS:-3}" 2> "$DIR/4g/progressive.err" | tail -1)
  echo
  echo "4 GB capture (issue 41, target first chart ≤ 1 s): load average $(cut -d' ' -f1 /proc/loadavg): $p" | tee -a "$OUTMD"
  if [ "${BENCH_4G_REMOVE:-0}" = 1 ]; then rm -f "$f4"; fi
fi

# Issue 43's fleet measurements (100 k connections --ndjson, a folder of 16 captures with
# --jobs 1 and 2), tshark in the same run: bench/fleet.sh. BENCH_SKIP_FLEET=1 skips them.
if [ "${BENCH_SKIP_FLEET:-0}" != 1 ]; then
  echo
  bash bench/fleet.sh
fi
exit 0
