"""The GPU backend's semiring products: ``vxm`` validates what only the backend can check, prepares one
:class:`Product` and runs the first variant of :data:`VARIANTS` that applies.

Every way a product can run is one entry ``(name, applies, launch)`` of the table, in the order the
rules are tried: the kernel asked for (scCSC, veCSC, scCOOC or push) and what the operands allow (one
vector or a block, a mask, 16-byte row pieces, tensor-core windows) choose the entry; its launch runs
the kernels and names the variant for the DEBUG line.  ``docs/kernels.md`` gives the thread mappings
and the bytes moved per arc; ``docs/decisions/tuning.md`` the reasons for the tunables they read.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ... import semirings as _sr
from ... import tuning as _tuning
from ...errors import KernelUnavailable
from . import compile as _c
from . import tiles as _tiles
from .compile import ACCUM_CODES, BLOCK, FRESH, INDEX_TYPES, MASK_NONE, REPLACE, log, supports_cached
from .launch import (
    adds_into_y,
    atomic_target,
    blocks_for,
    input_worklist,
    long_chunks,
    mask_args,
    mask_worklist,
    merge,
    push_group_size,
    resident_blocks,
    rows_fit,
    rows_group,
    use_worklist,
    values_as,
    vecsc_group_size,
)
from .layouts import empty_fraction, long_split_of, rows_chunk_of, rows_items_of, rows_order_of
from .windows import WINDOW, use_windows, window_layout_of

i64, i32 = np.int64, np.int32


class Product:
    """One product's operands and settings, as every variant reads them.

    :func:`vxm` fills the operands and settings; ``__init__`` gives the slots a launch may change
    (worklist, count, chunk; and variant, grid, block, listed for the DEBUG line) their defaults.  A
    product is made on every call, so it is a plain record with slots: no keyword matching, no
    instance dict."""

    __slots__ = ("cp", "t", "mb", "sr", "add", "mul", "dtype", "index_dtype", "pattern", "kernel", "A", "colptr",
                 "rowidx", "vals", "u", "y", "out_shape", "marr", "js", "cs", "mode", "accum", "replace", "acc",
                 "flags", "ncols", "k", "device_id", "funcs", "tiles", "can_split", "becomes", "adds", "vec4",
                 "debug", "worklist", "count", "chunk",
                 # set by the launch
                 "variant", "grid", "block", "group", "listed")

    def __init__(self):
        self.variant, self.grid, self.block, self.listed = "", 0, BLOCK, False
        self.worklist = self.count = _NULL  # null pointers: every column is walked
        self.chunk = None


_NULL = np.uint64(0)


@dataclass(frozen=True)
class Variant:
    """One way a product runs: ``applies(p)`` says whether it does, ``launch(p)`` runs it."""

    name: str
    applies: Callable[[Product], bool]
    launch: Callable[[Product], None]


# ---------------------------------------------------------------------------------------------
# The variants' launches
# ---------------------------------------------------------------------------------------------
def _list_computed_columns(p):
    """Masked k == 1 scCSC/veCSC products: compact the computed columns first when the tuning's rule
    says so (the worklist kernel also stores the outputs it leaves out)."""
    p.listed = p.mode != MASK_NONE and use_worklist(p.ncols * p.group, p.device_id, p.t)
    if p.listed:
        skip_empty = empty_fraction(p.A, p.colptr) > p.t.worklist_skip_empty
        p.worklist, p.count = mask_worklist(p.cp, p.funcs, p.colptr if skip_empty else None, p.marr, p.js, p.mode,
                                            p.ncols, p.y, p.acc, p.flags, p.index_dtype, p.mb)


def _sccsc(p):
    """scCSC: a thread per (column, vector)."""
    if p.k == 1 and p.mode != MASK_NONE:
        _list_computed_columns(p)
    threads = p.ncols * p.k
    p.grid = min(blocks_for(threads, p.mb), resident_blocks(p.device_id)) if p.listed else blocks_for(threads, p.mb)
    p.funcs["scCSC"]((p.grid,), (BLOCK,), (p.colptr, p.rowidx, p.vals, p.u, p.y, p.marr, i64(p.js), i64(p.cs),
                                           i32(p.mode), i64(p.ncols), i64(p.k), p.acc, i32(p.flags), p.worklist,
                                           p.count))


def _vecsc(p):
    """veCSC with one vector: a group of lanes per column, long columns cut into chunks."""
    _list_computed_columns(p)
    p.grid = blocks_for(p.ncols * p.group, p.mb)
    if p.listed:
        p.grid = min(p.grid, resident_blocks(p.device_id))
    split = long_split_of(p.cp, p.A, p.colptr, p.group, p.t.long, p.t.chunk) if p.can_split else None
    direct = split is not None and p.adds
    p.funcs["veCSC"]((p.grid,), (BLOCK,), (p.colptr, p.rowidx, p.vals, p.u, p.y, p.marr, i64(p.js), i32(p.mode),
                                           i64(p.ncols), i32(p.group), p.acc, i32(p.flags),
                                           i64(split["long_len"] if split is not None else 0),
                                           i32(1 if direct and p.becomes else 0), p.vec4, p.worklist, p.count))
    if split is not None:
        p.variant = p.debug and (f" (columns over {split['long_len']} entries cut into {split['nchunks']} chunks, "
                                 + ("added into out)" if direct else "reduced through a buffer)"))
        long_chunks(p.cp, p.funcs, p.sr, p.dtype, split, direct, p.rowidx, p.vals, p.u, p.y, p.marr, p.js, p.mode,
                    p.acc, p.flags, p.vec4, p.mb)


def _windows_apply(p):
    return use_windows(p.cp, p.A, p.colptr, p.rowidx, p.add, p.mul, p.dtype, p.pattern, p.k, p.mode, p.adds,
                       p.device_id, p.t)


def _windows(p):
    """veCSC k-blocks as windows of 32 columns on tensor cores."""
    cp, k = p.cp, p.k
    windows, items, seg = window_layout_of(cp, p.A, p.colptr, p.rowidx, k, p.device_id, p.t)
    if p.becomes and items["multi_window_cols"].size:
        p.y[items["multi_window_cols"]] = 0.0  # their items ADD into it
    nitems = items["nitems"]
    p.grid = blocks_for(nitems * (k // WINDOW) * 32, p.mb)
    p.variant = p.debug and (f" (windows of {WINDOW} columns on tensor cores: {nitems} items of at most {seg} "
                             f"distinct rows, {windows['reuse']:.2f} entries a row)")
    # check = whether U holds a value off the tensor cores' exact path (not finite, or tiny)
    check = cp.zeros(1, dtype=np.int32)
    p.funcs["windows_scan"]((blocks_for(p.u.size // 4, p.mb),), (BLOCK,), (p.u, i64(p.u.size), check))
    # Y = U +.* A, a warp per item of a window's distinct rows and 32 components, on tensor cores
    p.funcs["veCSC_windows"]((p.grid,), (BLOCK,), (
        items["item_col"], items["item_begin"], items["item_end"], items["item_multi"], i64(nitems),
        windows["slots"], check, p.u, p.y, i64(p.ncols), i64(k), p.acc, i32(p.flags)))


def _rows_items_chunk(p):
    """The row kernel's item length where long columns are cut into work items, else None.  Items of
    one column ADD into y, which needs ADD's atomic on T and output semantics that such ADDs give."""
    if p.chunk is None and p.adds and supports_cached("scCOOC", p.sr, p.dtype)[0]:
        p.chunk = rows_chunk_of(p.A, p.colptr, rows_group(p.k, p.dtype), p.device_id, p.t)
    return p.chunk


def _rows_items(p):
    """veCSC k-blocks in 16-byte row pieces, every column cut into work items, longest first."""
    p.group = rows_group(p.k, p.dtype)
    chunk = _rows_items_chunk(p)
    items = rows_items_of(p.cp, p.A, p.colptr, chunk)
    if p.becomes:
        p.y[items["multi_cols"]] = p.sr.add.identity(p.dtype)  # their items ADD into it
    nitems = items["nitems"]
    p.grid = max(1, min(-(-nitems // (BLOCK // p.group)), resident_blocks(p.device_id), p.mb))
    p.variant = p.debug and f" (rows, {nitems} items of at most {chunk} entries, longest first)"
    # Y<mask> = U +.* A, a group of lanes per work item of one column
    p.funcs["veCSC_rows_items"]((p.grid,), (BLOCK,), (
        items["item_col"], items["item_begin"], items["item_end"], items["item_multi"], i64(nitems),
        p.cp.zeros(1, dtype=np.uint32), p.rowidx, p.vals, p.u, p.y, p.marr, i64(p.js), i64(p.cs), i32(p.mode),
        i64(p.k), i32(p.group), p.acc, i32(p.flags)))


def _rows(p):
    """veCSC k-blocks in 16-byte row pieces, a group of lanes per column (longest first when the
    lengths vary)."""
    p.group = rows_group(p.k, p.dtype)
    p.grid = blocks_for(p.ncols * p.group, p.mb)
    order = rows_order_of(p.cp, p.A, p.colptr, p.t)
    p.variant = " (rows, longest first)" if order is not None else " (rows)"
    # Y<mask> = U +.* A, a group of lanes per column reading 16-byte pieces of U's rows
    p.funcs["veCSC_rows" if order is None else "veCSC_rows_ordered"](
        (p.grid,), (BLOCK,), (p.colptr, p.rowidx, p.vals, p.u, p.y, p.marr, i64(p.js), i64(p.cs), i32(p.mode),
                              i64(p.ncols), i64(p.k), i32(p.group), p.acc, i32(p.flags), i64(0), i32(0),
                              np.uint64(0) if order is None else order))


def _block(p):
    """veCSC k-blocks component by component."""
    p.grid = blocks_for(p.ncols * p.group, p.mb)
    p.variant = " (block: U's or Y's rows are not 16-byte pieces, or the rows kernel is off)"
    p.funcs["veCSC_block"]((p.grid,), (BLOCK,), (p.colptr, p.rowidx, p.vals, p.u, p.y, p.marr, i64(p.js),
                                                 i64(p.cs), i32(p.mode), i64(p.ncols), i64(p.k), i32(p.group),
                                                 p.acc, i32(p.flags)))


def _sccooc(p):
    """scCOOC: a thread per stored entry, atomics into a buffer of the identity, merged into out if needed."""
    nnz = int(p.A.nnz)
    target, merged = atomic_target(p.cp, p.sr, p.dtype, p.y, p.flags, p.mode, p.accum, p.replace, p.out_shape)
    p.grid = blocks_for(nnz * p.k, p.mb)
    if nnz:
        p.funcs["scCOOC"]((p.grid,), (BLOCK,), (p.A.rowidx, p.A.colidx, p.vals, p.u, target, p.marr, i64(p.js),
                                                i64(p.cs), i32(p.mode), i64(nnz), i64(p.k)))
    p.variant = p.debug and ((" (no entries: nothing launched" if not nnz else " (atomics into "
                              + ("a buffer of the identity, merged into out" if merged else "the output")) + ")")
    if merged:
        merge(p.funcs, target, p.y, p.marr, p.js, p.cs, p.mode, p.ncols, p.k, p.acc, p.flags, p.mb)


def _push(p):
    """push: walk the input side R = A.T (its inputs that are not the identity), atomics as scCOOC."""
    R, k, t = p.A.T, p.k, p.t
    nin = int(R.shape[1])
    target, merged = atomic_target(p.cp, p.sr, p.dtype, p.y, p.flags, p.mode, p.accum, p.replace, p.out_shape)
    p.group = push_group_size(R, t) if k == 1 else vecsc_group_size(R, k, None, t)
    p.grid = blocks_for(nin * p.group, p.mb)
    split = long_split_of(p.cp, R, R.colptr, p.group, t.push_long, t.push_chunk) if k == 1 else None
    p.listed = k == 1 and use_worklist(nin * p.group, p.device_id, t)
    if p.listed:
        p.worklist, p.count = input_worklist(p.cp, p.funcs, p.u, nin, p.index_dtype, p.mb)
        p.grid = min(p.grid, resident_blocks(p.device_id))
    rvals = p.u if p.pattern else p.cp.ascontiguousarray(values_as(R, p.dtype))
    if R.nnz and nin:
        p.funcs["push"]((p.grid,), (BLOCK,), (R.colptr, R.rowidx, rvals, p.u, target, p.marr, i64(p.js), i64(p.cs),
                                              i32(p.mode), i64(nin), i64(k), i32(p.group),
                                              i64(split["long_len"] if split is not None else 0),
                                              p.worklist, p.count))
        p.variant = p.debug and (" (atomics into "
                                 + ("a buffer of the identity, merged into out" if merged else "the output")
                                 + (f"; inputs over {split['long_len']} entries cut into {split['nchunks']} chunks"
                                    if split is not None else "") + ")")
        if split is not None:
            p.funcs["push_long_chunks"]((blocks_for(split["nchunks"] * 32, p.mb),), (BLOCK,),
                                        (split["chunk_col"], split["chunk_begin"], split["chunk_end"],
                                         split["long_cols"], R.rowidx, rvals, p.u, target, p.marr, i64(p.js),
                                         i32(p.mode), i64(split["nchunks"])))
    else:
        p.variant = " (no entries or inputs: nothing launched)"
    if merged:
        merge(p.funcs, target, p.y, p.marr, p.js, p.cs, p.mode, p.ncols, k, p.acc, p.flags, p.mb)


def _veCSC_rows_fit(p):
    return p.kernel == "veCSC" and rows_fit(p.u, p.y, p.k, p.dtype, p.t)


#: Every way a product runs, tried in order: the first entry that applies launches.
VARIANTS = (
    Variant("scCSC tiles", lambda p: p.kernel == "scCSC" and p.tiles, _tiles.launch),
    Variant("scCSC", lambda p: p.kernel == "scCSC", _sccsc),
    Variant("veCSC", lambda p: p.kernel == "veCSC" and p.k == 1, _vecsc),
    Variant("veCSC windows", lambda p: _veCSC_rows_fit(p) and _windows_apply(p), _windows),
    Variant("veCSC rows items", lambda p: _veCSC_rows_fit(p) and _rows_items_chunk(p) is not None, _rows_items),
    Variant("veCSC rows", _veCSC_rows_fit, _rows),
    Variant("veCSC block", lambda p: p.kernel == "veCSC", _block),
    Variant("scCOOC", lambda p: p.kernel == "scCOOC", _sccooc),
    Variant("push", lambda p: p.kernel == "push", _push),
)


# ---------------------------------------------------------------------------------------------
# The entry point
# ---------------------------------------------------------------------------------------------
def vxm(u, A, semiring, mask, complement, accum, out, replace, kernel, swap=False):
    """y[j] = ADD_i MUL(u[i], A[i, j]) on the GPU with kernel scCSC, veCSC, scCOOC or push.

    u      cupy (nrows,) or (nrows, k), dtype = the domain T
    A      CSC matrix: colptr (ncols+1,), rowidx (nnz,), values (nnz,) or None (pattern),
           colidx (nnz,) (scCOOC only); int32 or int64 indices; cupy arrays on u's device
    mask   None, or cupy bool of the output's shape, or (ncols,) shared by a block's k vectors
    complement, replace: bool; accum: None or a name in spla.semirings.ACCUM_OPS (needs out)
    out    None or a cupy array of the output's shape and dtype (written in place and returned)
    kernel "scCSC", "veCSC", "scCOOC" or "push" (push walks the input side, A.T: a Matrix's cached
           transpose, A itself when symmetric); swap: MUL(a, x) instead of MUL(x, a) (mxv via A.T)
    Returns the (ncols,) or (ncols, k) result: ``out`` itself when given.
    Raises KernelUnavailable when :func:`~.compile.supports` says no; spla.ops has checked everything
    else (shapes, dtypes, the mask, accum) at the door.
    """
    cp = _c.load_cupy()
    t = _tuning.current()
    sr = _sr.get(semiring)
    dtype = np.dtype(u.dtype)
    ok, why = supports_cached(kernel, sr, dtype)
    if not ok:
        raise KernelUnavailable(f"GPU kernel {kernel} cannot run {sr.name} on {dtype}: {why}")
    add, mul = _c.functor_keys(sr, swap)  # MUL(a, x) for mxv
    ncols = int(A.shape[1])
    k = 1 if u.ndim == 1 else int(u.shape[1])
    out_shape = (ncols,) + tuple(u.shape[1:])
    index_dtype = np.dtype(A.colptr.dtype)
    if index_dtype not in INDEX_TYPES:
        raise KernelUnavailable(f"GPU kernels need int32 or int64 indices, A has {index_dtype}")
    device_id = u.device.id

    # spla.ops runs every product with A's GPU current (spla.device.activate)
    if not u.flags.c_contiguous:
        u = cp.ascontiguousarray(u)
    if out is None:
        y, flags = cp.empty(out_shape, dtype=dtype), FRESH
    else:
        # work on out in place unless it is strided or overlaps an input that the kernel reads
        aliased = any(x is not None and cp.may_share_memory(out, x) for x in (u, mask))
        y = out if out.flags.c_contiguous and not aliased else out.copy(order="C")
        flags = REPLACE if replace else 0
    if ncols * k == 0:
        return y if out is None else out

    pattern = A.values is None
    vals = u if pattern else cp.ascontiguousarray(values_as(A, dtype))  # u: unused placeholder
    colptr, rowidx = A.colptr, A.rowidx  # a Matrix's index arrays are contiguous and of one dtype
    marr, js, cs, mode = mask_args(cp, mask, complement, k)
    if marr is None:
        marr = u  # unused placeholder pointer
    funcs = _c.spmv_module(add, mul, dtype.str, index_dtype.str, pattern, device_id, _c.current_defines(),
                           _c.user_code(sr, swap))
    group = vecsc_group_size(A, k, resident_blocks(device_id) * BLOCK, t) if kernel == "veCSC" else 1
    tiles = kernel == "scCSC" and k == 1 and mode != MASK_NONE and _tiles.use_tiles(cp, A, colptr, ncols, device_id,
                                                                                   t)
    # long-column split (k == 1): needs ADD's atomic on T (every functor has one; checked anyway); the
    # chunks ADD straight into y when y[j] becomes the result (the main kernel stores the identity
    # first) or ADD(y[j], result)
    can_split = k == 1 and supports_cached("scCOOC", sr, dtype)[0]
    becomes, adds = adds_into_y(add, flags, mode, accum, replace)
    p = Product()
    p.cp, p.t, p.mb, p.sr, p.add, p.mul, p.dtype, p.index_dtype = cp, t, t.max_blocks, sr, add, mul, dtype, index_dtype
    p.pattern, p.kernel, p.A, p.colptr, p.rowidx, p.vals, p.u, p.y = pattern, kernel, A, colptr, rowidx, vals, u, y
    p.out_shape, p.marr, p.js, p.cs, p.mode, p.accum, p.replace = out_shape, marr, js, cs, mode, accum, replace
    p.acc, p.flags, p.ncols, p.k, p.device_id, p.funcs = i32(ACCUM_CODES[accum]), flags, ncols, k, device_id, funcs
    p.group, p.tiles, p.can_split, p.becomes, p.adds = group, tiles, can_split, becomes, adds
    p.vec4, p.debug = i32(1 if t.vecsc_vec4 else 0), log.isEnabledFor(logging.DEBUG)
    for variant in VARIANTS:
        if variant.applies(p):
            variant.launch(p)
            break
    if p.debug:
        log.debug("gpu vxm: kernel=%s%s semiring=%s_%s%s T=%s I=%s %s k=%d grid=%d block=%d group=%d "
                  "mask=%s%s accum=%s out=%s replace=%s", kernel, p.variant, add, mul, " (swapped)" if swap else "",
                  dtype, index_dtype, "pattern" if pattern else "valued", k, p.grid, p.block, p.group,
                  ("none", "mask", "~mask")[mode],
                  (" (inputs listed)" if kernel == "push" else " (worklist)") if p.listed else "", accum,
                  out is not None, replace)
    if out is not None and y is not out:
        out[...] = y
        return out
    return y
