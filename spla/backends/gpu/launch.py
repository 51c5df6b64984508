"""Launch geometry and the launch steps the GPU products share: grids, the device's resident
threads, lanes per column, the mask and input worklists, atomic targets and their merge, the
long-column chunks of k == 1 products.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ... import tuning as _tuning
from ...device import gpu_index, is_gpu
from ...matrix import declare_cache
from . import compile as _c
from .compile import BLOCK, FRESH, MASK_COMPLEMENT, MASK_MASK, MASK_NONE, SAME_ACCUM

WORKLIST_PER = 16  # columns per thread of spla_mask_worklist (SPLA_WORKLIST_PER in spmv.cuh)

VALUES_AS_KEY = declare_cache("gpu_values_as", "the matrix's values cast to a product's domain, on its GPU")


def nullable(x):
    """x, or a null pointer for a kernel's optional array left out (None)."""
    return np.uint64(0) if x is None else x


def blocks_for(threads, max_blocks):
    """Blocks of BLOCK threads for ``threads`` threads, at most ``max_blocks`` (the tuning's max_blocks:
    the kernels loop grid-stride beyond it)."""
    return int(max(1, min(max_blocks, -(-int(threads) // BLOCK))))


@functools.lru_cache(maxsize=None)
def sm_count(device_id):
    """Streaming multiprocessors of the device."""
    return int(_c.load_cupy().cuda.Device(device_id).attributes["MultiProcessorCount"])


@functools.lru_cache(maxsize=None)
def resident_blocks(device_id):
    """Blocks of BLOCK threads the device holds at once (SMs x threads per SM / BLOCK): the grid of
    a worklist launch, whose length is known only on the device."""
    per_sm = int(_c.load_cupy().cuda.Device(device_id).attributes["MaxThreadsPerMultiProcessor"])
    return max(1, sm_count(device_id) * max(1, per_sm // BLOCK))


@functools.lru_cache(maxsize=None)
def compute_capability(device_id):
    return int(_c.load_cupy().cuda.Device(device_id).compute_capability)


def resident_threads(device):
    """Threads the device holds at once (an int: SMs x threads per SM, in whole blocks of BLOCK) for a
    device string "gpu:N" (a Matrix's ``device``; "gpu" is GPU 0); the tuning's vecsc_fill_threads
    (about an H100's or H200's count) for "cpu", so that a rule that scales with the device decides on
    the CPU as it would on such a GPU."""
    if not is_gpu(device):
        return _tuning.current().vecsc_fill_threads
    return resident_blocks(gpu_index(device) if ":" in device else 0) * BLOCK


def vecsc_group_size(A, k=1, fill_threads=None, t=None):
    """Lanes per column of veCSC: a power of two in {2, 4, 8, 16, 32}.

    k == 1: the power of two nearest (in log scale) to the mean column length / vecsc_lane_entries,
    clamped to [2, 32], so that each lane walks about that many entries of a typical column; then
    doubled while ncols * G < ``fill_threads`` (the threads the device holds at once; None:
    vecsc_fill_threads), so that a graph of few columns spreads each over more lanes instead of
    leaving the device idle.  The tuning's vecsc_group overrides.  k > 1: lanes span the k
    components, G = min(32, next power of two >= k).  ``t``: the spla.tuning.Tuning (None: current).
    """
    if k > 1:
        return int(min(32, max(2, 1 << (int(k) - 1).bit_length())))
    t = _tuning.current() if t is None else t
    if t.vecsc_group is not None:
        return int(t.vecsc_group)
    ncols = int(A.shape[1])
    mean = A.nnz / ncols if ncols else 0.0
    g = 2
    if mean > 0:
        g = int(min(32, max(2, 2 ** round(math.log2(mean / t.vecsc_lane_entries)))))
    fill = t.vecsc_fill_threads if fill_threads is None else int(fill_threads)
    while g < 32 and ncols * g < fill:
        g *= 2
    return g


def push_group_size(R, t=None):
    """Lanes per input of push (k == 1): the smallest power of two >= R's mean column length (the
    out-arcs per input), clamped to [2, 32] (the tuning's vecsc_group overrides, as for veCSC).  Its
    best group follows the frontier's size, which the host does not know at launch
    (docs/decisions/tuning.md#vecsc_group)."""
    t = _tuning.current() if t is None else t
    if t.vecsc_group is not None:
        return int(t.vecsc_group)
    ncols = R.shape[1]
    mean = R.nnz / ncols if ncols else 0.0
    need = max(1, math.ceil(mean))
    return int(min(32, max(2, 1 << (need - 1).bit_length())))


def use_worklist(walk_threads, device_id, t):
    """Whether a masked k == 1 product compacts its computed columns first (the tuning's mask_worklist;
    "auto": when walking every column would take worklist_min_waves full waves of the device)."""
    if t.mask_worklist == "auto":
        return walk_threads >= t.worklist_min_waves * resident_blocks(device_id) * BLOCK
    return bool(t.mask_worklist)


def mask_worklist(cp, funcs, colptr, marr, js, mode, ncols, y, acc, flags, index_dtype, max_blocks):
    """Compact the computed columns of a 1-D mask: (list (ncols,) index_dtype, count (1,) uint64).

    Also stores y[j] for every not-computed column (the identity under FRESH or REPLACE) and, when
    ``colptr`` is not None, every computed empty one (its result, the identity, with accum), which
    it leaves out of the list."""
    worklist = cp.empty(ncols, dtype=index_dtype)
    count = cp.zeros(1, dtype=np.uint64)
    # list = [j : mask[j] != complement, column j not empty];  y<!computed> = identity (fresh or replace)
    funcs["mask_worklist"]((blocks_for(-(-ncols // WORKLIST_PER), max_blocks),), (BLOCK,), (
        np.uint64(0) if colptr is None else colptr, marr, np.int64(js), np.int32(mode), np.int64(ncols), y, acc,
        np.int32(flags), worklist, count))
    return worklist, count


def input_worklist(cp, funcs, u, nin, index_dtype, max_blocks):
    """Compact the inputs that contribute (u[i] != identity) of a k == 1 push:
    (list (nin,) index_dtype, count (1,) uint64)."""
    worklist = cp.empty(nin, dtype=index_dtype)
    count = cp.zeros(1, dtype=np.uint64)
    # list = [i : u[i] != identity]
    funcs["input_worklist"]((blocks_for(-(-nin // WORKLIST_PER), max_blocks),), (BLOCK,),
                            (u, np.int64(nin), worklist, count))
    return worklist, count


def adds_into_y(add, flags, mode, accum, replace):
    """When atomic ADDs straight into y give the output semantics: (becomes, adds).

    becomes: every output becomes the result or the identity (a fresh output; or no accum with no
    mask or replace), so y may be set to the identity first and ADDed into; adds: that, or accum is
    the monoid ``add`` itself and nothing is replaced (out = ADD(out, result) where computed is what
    the atomics do).  Otherwise an atomic kernel needs a buffer and the merge."""
    becomes = bool(flags & FRESH) or (accum is None and (mode == MASK_NONE or replace))
    return becomes, becomes or (accum is not None and accum == SAME_ACCUM.get(add) and not replace)


def atomic_target(cp, sr, dtype, y, flags, mode, accum, replace, out_shape):
    """The buffer an atomic kernel (scCOOC, push) ADDs into, and whether spla_merge must then combine it
    into y: y itself, filled with the identity or as it is (:func:`adds_into_y`), else a new buffer."""
    ident = sr.add.identity(dtype)
    becomes, adds = adds_into_y(sr.add.name, flags, mode, accum, replace)
    if becomes:
        y.fill(ident)
    if adds:
        return y, False
    return cp.full(out_shape, ident, dtype=dtype), True


def merge(funcs, target, y, marr, js, cs, mode, ncols, k, acc, flags, max_blocks):
    """y = computed ? accum(y, target) : (replace ? identity : y), elementwise (after an atomic kernel)."""
    funcs["merge"]((blocks_for(ncols * k, max_blocks),), (BLOCK,), (target, y, marr, np.int64(js), np.int64(cs),
                                                                np.int32(mode), np.int64(ncols), np.int64(k), acc,
                                                                np.int32(flags)))


def values_as(A, dtype):
    """A's values cast to the domain (cached on A)."""
    v = A.values
    if v.dtype == dtype:
        return v
    return A.cached((VALUES_AS_KEY, dtype.str), lambda: v.astype(dtype))


def mask_args(cp, mask, complement, k):
    """(mask array or None, js, cs, mode): mask[j, c] lives at mask[j * js + c * cs] (elements).

    ``mask``: None, or a bool array of the output's shape (ncols,) or (ncols, k), or (ncols,) or
    (ncols, 1) shared by a block's k vectors, as spla.ops checked it (a view with zero or negative
    strides is read as it lies, or copied)."""
    if mask is None:
        return None, 0, 0, MASK_NONE
    if mask.dtype != np.bool_:
        mask = mask.astype(np.bool_)
    if any(s < 0 for s in mask.strides):
        mask = cp.ascontiguousarray(mask)
    mode = MASK_COMPLEMENT if complement else MASK_MASK
    item = mask.itemsize
    if mask.ndim == 1:
        return mask, mask.strides[0] // item, 0, mode
    cs = mask.strides[1] // item if mask.shape[1] == k and k > 1 else 0
    return mask, mask.strides[0] // item, cs, mode


def rows_fit(u, y, k, dtype, t):
    """Whether a k > 1 veCSC product can read 16-byte row pieces (spla_vecsc_rows): the tuning's
    vecsc_rows, rows a multiple of 16 bytes, u and y 16-byte aligned."""
    return (t.vecsc_rows and k > 1 and (k * dtype.itemsize) % 16 == 0
            and u.data.ptr % 16 == 0 and y.data.ptr % 16 == 0)


def rows_group(k, dtype):
    """Lanes per column of spla_vecsc_rows: min(32, next power of two >= the 16-byte pieces of a row)."""
    pieces = k * dtype.itemsize // 16
    return int(min(32, 1 << (pieces - 1).bit_length()))


def long_chunks(cp, funcs, sr, dtype, split, direct, rowidx, vals, u, y, marr, js, mode, acc, flags, vec4,
                       max_blocks, per_warp=1):
    """The long columns of a k == 1 veCSC or scCSC-tiles product (the main kernel skipped them): a warp
    per ``per_warp`` chunks, ADDed straight into y (``direct``) or into a buffer that
    spla_vecsc_long_finish stores."""
    i64, i32 = np.int64, np.int32
    nlong, nchunks = split["nlong"], split["nchunks"]
    tl = y if direct else cp.full(nlong, sr.add.identity(dtype), dtype=dtype)
    # y<mask>[long columns] += chunk partials (atomic ADD), or tl = those partials
    funcs["veCSC_long_chunks"]((blocks_for(-(-nchunks // per_warp) * 32, max_blocks),), (BLOCK,),
                               (split["chunk_col"], split["chunk_begin"], split["chunk_end"], split["long_cols"],
                                rowidx, vals, u, tl, y, i32(1 if direct else 0), marr, i64(js), i32(mode),
                                i64(nchunks), vec4, i32(per_warp)))
    if not direct:
        # y<mask>[long columns] = accum(y, tl)
        funcs["veCSC_long_finish"]((blocks_for(nlong, max_blocks),), (BLOCK,),
                                   (split["long_cols"], tl, y, marr, i64(js), i32(mode), i64(nlong), acc, i32(flags)))
