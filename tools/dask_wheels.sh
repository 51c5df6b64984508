#!/usr/bin/env bash
# The Dask wheels the device machine lacks (its image has cloudpickle, click, fsspec, jinja2, msgpack,
# psutil, pyyaml, sortedcontainers, toolz, pandas, nvidia-ml-py and cuda-core), for CPython 3.12 on
# x86-64, into .whl/ (ignored by git).  Run here, then carry .whl and install it there first:
#   bash tools/dask_wheels.sh
#   (device) python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
#              --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit; ...
# dask and distributed are the versions dask-cuda's rapids-dask-dependency pins.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform manylinux_2_5_x86_64 --platform manylinux1_x86_64 -d .whl \
  "dask==2026.7.1" "distributed==2026.7.1" "dask-cuda==26.10.0" "rapids-dask-dependency==26.10.0" \
  "partd==1.4.2" "locket==1.0.0" "tornado==6.6.1" "zict==3.0.0" "tblib==3.2.2"
ls -la .whl
