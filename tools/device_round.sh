#!/usr/bin/env bash
# One device round: GPU tests, the exhaustive kernel compile (pytest -m exhaustive: every kernel
# instantiation through nvcc), then benchmarks, logs under $OUT.  Usage on the device machine:
#   bash tools/device_round.sh "<pytest args>" "<benchmark args>"
# The exhaustive compile runs whenever the tests do; EXHAUSTIVE=0 leaves it out.
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; python3 -c "import cupy, numpy, scipy; print('cupy', cupy.__version__, 'numpy', numpy.__version__, 'scipy', scipy.__version__)"; } 2>&1 | tee "$OUT/env.txt"
if [ -n "${1:-}" ]; then
  timeout "${TEST_TIMEOUT:-300}" python3 -m pytest -m "gpu or (gpu and slow)" -q -p no:cacheprovider -x $1 2>&1 | tail -n 60 > "$OUT/gpu_tests.log"
  echo "pytest rc=${PIPESTATUS[0]}" >> "$OUT/gpu_tests.log"
  tail -n 25 "$OUT/gpu_tests.log"
  if [ "${EXHAUSTIVE:-1}" != 0 ]; then
    timeout "${EXHAUSTIVE_TIMEOUT:-600}" python3 -m pytest -m exhaustive -q -rs -p no:cacheprovider 2>&1 | tail -n 60 > "$OUT/exhaustive_tests.log"
    echo "pytest rc=${PIPESTATUS[0]}" >> "$OUT/exhaustive_tests.log"
    tail -n 8 "$OUT/exhaustive_tests.log"
  fi
fi
if [ -n "${2:-}" ]; then
  python3 -m benchmarks $2 --out "$OUT/bench" 2>&1 | tail -n 80 > "$OUT/bench.log"
  tail -n 40 "$OUT/bench.log"
fi
