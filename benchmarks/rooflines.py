"""Measured floors under the ``spmv`` section's 90%-masked and k = 32 products, per device and graph.

The roofline probe (:data:`PROBE`) measures the device's memory rates and prices the bytes each
product must move with them (float32 values, int32 indices, the benchmark's u and mask: a random
tenth of the columns kept):

* ``masked_copy_us``: the mask and y (written whole) plus the distinct 32-byte sectors a random tenth
  of the columns must touch (colptr around each kept column, each kept column's rowidx run, the u
  values of its rows), each counted once, all at the device-to-device copy rate: a strict floor for
  any kernel that reads CSC in this layout;
* ``masked_model_us``: the same sectors at the measured random-run rate of their length (a strict
  floor only where the kernel's reads are as scattered as the model's);
* ``block_ideal_ms``: every distinct row of U (128 bytes at k = 32) read once and Y written once at
  the copy rate, plus the indices: a kernel with perfect reuse of U's rows;
* ``block_no_reuse_ms``: every arc's row of U gathered at the 128-byte random-run rate of where U
  lives (``block_no_reuse_in``: L2 when it fits in half of L2, else DRAM): a kernel without on-chip
  reuse of rows.

A product cannot run faster than its floor, so a ratio to the unmasked (or k = 1) product is bounded
by the unmasked time over the floor; ``docs/benchmarks.md`` sets these bounds beside the misses.
"""

from __future__ import annotations

#: the probe that measures the floors (run as ``python -m benchmarks.probes.probe_roofline``)
PROBE = "benchmarks/probes/probe_roofline.py"

#: device slug -> graph -> floors (see the module docstring)
FLOORS = {
    "nvidia-h100-80gb-hbm3": {
        "kron20": dict(masked_copy_us=8.8, masked_model_us=14.6, block_ideal_ms=0.119, block_no_reuse_ms=1.622,
                       block_no_reuse_in="DRAM"),
        "kron21": dict(masked_copy_us=17.9, masked_model_us=29.4, block_ideal_ms=0.236, block_no_reuse_ms=3.281,
                       block_no_reuse_in="DRAM"),
        "myc16": dict(masked_copy_us=4.9, masked_model_us=5.7, block_ideal_ms=0.050, block_no_reuse_ms=0.690,
                      block_no_reuse_in="L2"),
        "myc17": dict(masked_copy_us=14.3, masked_model_us=16.4, block_ideal_ms=0.146, block_no_reuse_ms=2.070,
                      block_no_reuse_in="L2"),
        "ws2M": dict(masked_copy_us=12.1, masked_model_us=22.8, block_ideal_ms=0.205, block_no_reuse_ms=1.093,
                     block_no_reuse_in="DRAM"),
        "grid2000": dict(masked_copy_us=21.2, masked_model_us=45.8, block_ideal_ms=0.377, block_no_reuse_ms=0.983,
                         block_no_reuse_in="DRAM"),
        "ba2M_m4": dict(masked_copy_us=11.7, masked_model_us=23.5, block_ideal_ms=0.200, block_no_reuse_ms=0.893,
                        block_no_reuse_in="DRAM"),
    },
}

#: device slug -> the rates the floors were priced at, for the page's text
RATES = {
    "nvidia-h100-80gb-hbm3": "device-to-device copy 2.92 TB/s (read + write); random runs of 32-byte sectors "
                             "from a 4 GiB array 0.97 TB/s one sector at a time, 1.88 TB/s two, 2.62 TB/s four "
                             "(a 128-byte row); from an 8 MiB array resident in L2 3.8, 6.5 and 6.7 TB/s",
}
