#!/usr/bin/env bash
# Time an old tree and this tree with the quick benchmark, section by section, alternating, on one
# device; then compare.  Usage (repo root, on the device machine):
#   bash tools/bench_ab.sh OLD_TREE "spmv:50 bc_single:48" [more benchmark args]
# Each SECTION:BUDGET runs the old tree, then this tree, with that budget in seconds (the section's
# share of the quick run's budget).  Results and logs go under $OUT/{old,new}.
set -u
old=$1; sections=$2; shift 2
OUT=${OUT:-/tmp/out}
export PYTHONUNBUFFERED=1 SPLA_GRAPHS=${SPLA_GRAPHS:-$PWD/benchmarks/data/graphs}
for item in $sections; do
  sec=${item%%:*}; budget=${item##*:}
  for side in old new; do
    dir=$PWD; [ "$side" = old ] && dir=$old
    (cd "$dir" && PYTHONPATH=. python3 -m benchmarks --quick --no-peers --only "$sec" --budget-s "$budget" \
       --out "$OUT/$side" "$@" >> "$OUT/$side.log" 2>&1)
    echo "$side $sec rc=$? $(tail -n 1 "$OUT/$side.log")"
  done
done
python3 tools/bench_ab.py "$OUT/old" "$OUT/new" | tee "$OUT/ab.txt" | tail -n 14
