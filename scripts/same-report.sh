#!/usr/bin/env bash
# Is the report unchanged? (issue 40: a reshaping of the analysis changes no byte of
# what the page reads.) Builds the native pipeline (wasm/examples/analyze.rs, the same
# Session the worker runs) at BASE and at the working tree, writes the report JSON of
# every capture in public/examples/ and ../shared/captures/ (when it exists) with both,
# and compares them byte for byte. Exit 0 when every report is identical, 1 otherwise
# (the differing files are listed, with the first differing line of each).
#
#   bash scripts/same-report.sh [BASE]        BASE defaults to origin/main, else HEAD~1
#   CAPTURES="a.pcap b.pcapng" bash scripts/same-report.sh BASE   other captures
#   IGNORE_FIELDS="warningTotals stallSeconds" bash scripts/same-report.sh BASE
#                                 fields a change added, left out of the comparison
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
base=${1:-$(git rev-parse -q --verify origin/main || git rev-parse HEAD~1)}
base=$(git rev-parse "$base")
work=$(mktemp -d "${TMPDIR:-/tmp}/tcpscope-same-XXXXXX")
trap 'git -C "$root" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

build() { # DIR TARGET -> path of the analyze binary
  (cd "$1/wasm" && CARGO_TARGET_DIR="$2" cargo build -q --release --example analyze) >&2
  echo "$2/release/examples/analyze"
}
git worktree add -q --detach "$work/base" "$base"
target=${CARGO_TARGET_DIR:-$root/wasm/target}
before=$(build "$work/base" "${target}/same-base") # inside target/: ignored by git, kept for the next run
after=$(build "$root" "$target")

if [ -n "${CAPTURES:-}" ]; then
  read -r -a files <<<"$CAPTURES"
else
  files=("$root"/public/examples/*.pcap "$root"/public/examples/*.pcapng)
  shared="$root/../shared/captures"
  if [ -d "$shared" ]; then files+=("$shared"/*.pcap "$shared"/*.pcapng); fi
fi

same=0; differ=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  "$before" "$f" --json >"$work/a.json" 2>/dev/null || true
  "$after" "$f" --json >"$work/b.json" 2>/dev/null || true
  if [ -n "${IGNORE_FIELDS:-}" ]; then
    # A change that adds fields: compare everything else (keys named in IGNORE_FIELDS
    # dropped at any depth, on both sides).
    for j in a b; do python3 -c 'import json,sys
drop=set(sys.argv[2].split())
def strip(v):
    if isinstance(v, dict): return {k: strip(x) for k, x in v.items() if k not in drop}
    if isinstance(v, list): return [strip(x) for x in v]
    return v
t=open(sys.argv[1]).read()
try: out=json.dumps(strip(json.loads(t)), separators=(",", ":"))
except ValueError: out=t
open(sys.argv[1], "w").write(out)' "$work/$j.json" "$IGNORE_FIELDS"; done
  fi
  if cmp -s "$work/a.json" "$work/b.json"; then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    echo "DIFFERS: $f"
    diff <(tr ',' '\n' <"$work/a.json") <(tr ',' '\n' <"$work/b.json") | head -4 | sed 's/^/    /' || true
  fi
done
echo "report JSON, ${base:0:8} against the working tree: $same identical, $differ different ($((same + differ)) captures)"
[ "$differ" -eq 0 ]
