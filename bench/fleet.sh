#!/usr/bin/env bash
# The fleet measurements of issue 43 (run by scripts/bench.sh after its table, or alone:
# `bash bench/fleet.sh`), every reader in this one run on the same files, tshark included:
#
# 1. 100 k connections (.bench/short-conns.pcap, bench/gen-large.py): `tcpscope analyze
#    --ndjson` (compact rows) and `--ndjson=full` to /dev/null against
#    `tshark -q -z io,stat,0`: wall and CPU seconds, peak RSS (GNU time), bytes per row.
#    And the same compact rows with `--shards 2` (one capture's connections on two threads,
#    cli/shards.mjs): the output must be the same bytes as with one thread (checked).
# 2. A folder of 16 captures (8 bulk transfers, 8 × 5,000 short connections: copies of
#    gen-large.py's files at BENCH_FLEET_SCALE, default 0.05): `analyze DIR --jobs 1`
#    against `--jobs 2`, and tshark over the same 16 files, one after another and two at
#    a time (xargs -P 2).
#
# Informational: nothing fails on speed (other work on the machine moves wall times; the
# load average is printed, and CPU seconds beside them). Env: BENCH_DIR (default .bench),
# BENCH_FLEET_SCALE, BENCH_SKIP_TSHARK=1, BENCH_FLEET_OUT (default $BENCH_DIR/fleet-results.md).
set -uo pipefail
cd "$(dirname "$0")/.."
DIR=${BENCH_DIR:-.bench}
FLEET_SCALE=${BENCH_FLEET_SCALE:-0.05}
OUTMD=${BENCH_FLEET_OUT:-$DIR/fleet-results.md}
CLI="node bin/tcpscope.mjs"
[ -x /usr/bin/time ] || { echo "bench/fleet: /usr/bin/time (GNU time) is needed: apt-get install time" >&2; exit 1; }
TSHARK=0
[ "${BENCH_SKIP_TSHARK:-0}" != 1 ] && command -v tshark >/dev/null && TSHARK=1
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# timed LOG CMD...: sets SEC (wall), CPU (user + system), RSS (peak MiB), RC.
timed() {
  local log=$1; shift
  /usr/bin/time -v -o "$log.time" "$@" > "$log.out" 2> "$log.err"
  RC=$?
  SEC=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log.time" |
    awk -F: '{ s=0; for (i=1;i<=NF;i++) s=s*60+$i; printf "%.2f", s }')
  CPU=$(sed -n 's/^[[:space:]]*\(User\|System\) time (seconds): //p' "$log.time" | awk '{ s += $1 } END { printf "%.2f", s }')
  RSS=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$log.time" | awk '{ printf "%.0f", $1/1024 }')
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.2f×", b/a; else print "—" }'; }  # b ÷ a

# 1. 100 k connections.
BENCH_FILES=short-conns python3 bench/gen-large.py || { echo "bench/fleet: generating short-conns failed" >&2; exit 1; }
bash scripts/build-wasm.sh >/dev/null
big=$DIR/short-conns.pcap
conns=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('tcp_connections', ''))" "$DIR/short-conns.json")
mb=$(awk -v b="$(stat -c %s "$big")" 'BEGIN{printf "%.0f", b/1e6}')
echo "bench/fleet: $big ($conns connections, $mb MB)" >&2
t_sec="" t_cpu="" t_rss=""
if [ $TSHARK = 1 ]; then
  timed "$DIR/fleet-big.tshark" tshark -q -z io,stat,0 -r "$big"
  t_sec=$SEC t_cpu=$CPU t_rss=$RSS
fi
timed "$DIR/fleet-big.compact" bash -c "$CLI analyze '$big' --ndjson | wc -c"
c_sec=$SEC c_cpu=$CPU c_rss=$RSS c_bytes=$(cat "$DIR/fleet-big.compact.out")
timed "$DIR/fleet-big.full" bash -c "$CLI analyze '$big' --ndjson=full | wc -c"
f_sec=$SEC f_cpu=$CPU f_rss=$RSS f_bytes=$(cat "$DIR/fleet-big.full.out")
timed "$DIR/fleet-big.shards2" bash -c "$CLI analyze '$big' --ndjson --shards 2 | wc -c"
s2_sec=$SEC s2_cpu=$CPU s2_rss=$RSS s2_bytes=$(cat "$DIR/fleet-big.shards2.out")
s2_note=$(grep -o 'analysed in one thread.*' "$DIR/fleet-big.shards2.err" | head -1)
# The same bytes as one thread (not only the same count): compared by checksum.
s1_sum=$($CLI analyze "$big" --ndjson | md5sum | cut -c1-32)
s2_sum=$($CLI analyze "$big" --ndjson --shards 2 | md5sum | cut -c1-32)
[ "$s1_sum" = "$s2_sum" ] && s2_same="same bytes as 1 thread" || s2_same="DIFFERS from 1 thread"
per_row() { awk -v b="$1" -v c="$conns" 'BEGIN{ if (c > 0) printf "%.0f", b/c; else print "—" }'; }

# 2. A folder of 16 captures.
fleet=$DIR/fleet16
if [ ! -f "$fleet/.scale-$FLEET_SCALE" ]; then
  rm -rf "$fleet" "$DIR/fleet-gen"
  mkdir -p "$fleet" "$DIR/fleet-gen"
  BENCH_DIR="$DIR/fleet-gen" BENCH_SCALE=$FLEET_SCALE BENCH_FILES="bulk-snap96 short-conns" python3 bench/gen-large.py >&2 ||
    { echo "bench/fleet: generating the folder failed" >&2; exit 1; }
  # Copies, not links: a directory walk counts a file once by its inode (cli/analyze.mjs).
  for i in $(seq -w 1 8); do
    cp "$DIR/fleet-gen/bulk-snap96.pcap" "$fleet/bulk-$i.pcap"
    cp "$DIR/fleet-gen/short-conns.pcap" "$fleet/conns-$i.pcap"
  done
  touch "$fleet/.scale-$FLEET_SCALE"
fi
fleet_mb=$(du -sm "$fleet" | cut -f1)
probe=$(node bench/parallel-probe.mjs)
echo "bench/fleet: $fleet (16 captures, $fleet_mb MB)" >&2
timed "$DIR/fleet16.jobs1" bash -c "$CLI analyze '$fleet' --jobs 1 | wc -l"
j1_sec=$SEC j1_cpu=$CPU j1_rss=$RSS j1_rows=$(cat "$DIR/fleet16.jobs1.out")
timed "$DIR/fleet16.jobs2" bash -c "$CLI analyze '$fleet' --jobs 2 | wc -l"
j2_sec=$SEC j2_cpu=$CPU j2_rss=$RSS j2_rows=$(cat "$DIR/fleet16.jobs2.out")
[ "$j1_rows" = "$j2_rows" ] || echo "bench/fleet: --jobs 1 wrote $j1_rows rows, --jobs 2 $j2_rows" >&2
ts1_sec="" ts2_sec="" ts1_cpu="" ts2_cpu=""
if [ $TSHARK = 1 ]; then
  timed "$DIR/fleet16.tshark1" bash -c "ls '$fleet'/*.pcap | xargs -n 1 -P 1 tshark -q -z io,stat,0 -r"
  ts1_sec=$SEC ts1_cpu=$CPU
  timed "$DIR/fleet16.tshark2" bash -c "ls '$fleet'/*.pcap | xargs -n 1 -P 2 tshark -q -z io,stat,0 -r"
  ts2_sec=$SEC ts2_cpu=$CPU
fi

{
  echo "### tcpscope fleet bench — $(date -u +%FT%TZ), $(nproc) CPU, load average $LOAD0 at start, $(cut -d' ' -f1-3 /proc/loadavg) at end"
  echo
  echo "**100 k connections** ($big: $conns connections, $mb MB)"
  echo
  echo "| reader | wall s | CPU s | peak RSS MiB | output | tshark ÷ reader, wall (CPU) |"
  echo "|---|---|---|---|---|---|"
  [ $TSHARK = 1 ] && echo "| tshark -q -z io,stat,0 | $t_sec | $t_cpu | $t_rss | — | 1 |"
  echo "| analyze --ndjson (compact) | $c_sec | $c_cpu | $c_rss | $c_bytes B, $(per_row "$c_bytes") B/connection | $(ratio "$c_sec" "$t_sec") ($(ratio "$c_cpu" "$t_cpu")) |"
  echo "| analyze --ndjson --shards 2 | $s2_sec | $s2_cpu | $s2_rss | $s2_bytes B, $s2_same${s2_note:+; $s2_note} | $(ratio "$s2_sec" "$t_sec") ($(ratio "$s2_cpu" "$t_cpu")); 1 thread ÷ 2 shards: $(ratio "$s2_sec" "$c_sec") |"
  echo "| analyze --ndjson=full | $f_sec | $f_cpu | $f_rss | $f_bytes B, $(per_row "$f_bytes") B/connection | $(ratio "$f_sec" "$t_sec") ($(ratio "$f_cpu" "$t_cpu")) |"
  echo
  echo "**A folder of 16 captures** ($fleet: 8 bulk + 8 × short connections at scale $FLEET_SCALE, $fleet_mb MB, $j1_rows rows)"
  echo
  echo "Parallelism the machine gave during this run (bench/parallel-probe.mjs, the same CPU loop on 1 then 2 threads): $probe"
  echo
  echo "| reader | wall s | CPU s | peak RSS MiB | --jobs 1 ÷ reader, wall | tshark one at a time ÷ reader, wall (CPU) |"
  echo "|---|---|---|---|---|---|"
  echo "| analyze DIR --jobs 1 | $j1_sec | $j1_cpu | $j1_rss | 1 | $(ratio "$j1_sec" "$ts1_sec") ($(ratio "$j1_cpu" "$ts1_cpu")) |"
  echo "| analyze DIR --jobs 2 | $j2_sec | $j2_cpu | $j2_rss | $(ratio "$j2_sec" "$j1_sec") | $(ratio "$j2_sec" "$ts1_sec") ($(ratio "$j2_cpu" "$ts1_cpu")) |"
  if [ $TSHARK = 1 ]; then
    echo "| tshark, one file at a time | $ts1_sec | $ts1_cpu | — | $(ratio "$ts1_sec" "$j1_sec") | 1 |"
    echo "| tshark, two at a time (xargs -P 2) | $ts2_sec | $ts2_cpu | — | $(ratio "$ts2_sec" "$j1_sec") | $(ratio "$ts2_sec" "$ts1_sec") |"
  fi
  echo
  echo "Whole processes under GNU time (Node's start included); peak RSS of the whole CLI process,"
  echo "its workers included. The issue's goals: 100 k connections --ndjson ≥ 5× tshark (20×),"
  echo "peak RSS ≤ 300 MB; --jobs 2 ≥ 1.7× faster than --jobs 1 on 2 cores. Informational: nothing fails on speed."
} | tee "$OUTMD"
exit 0
