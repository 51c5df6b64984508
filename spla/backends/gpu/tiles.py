"""Masked scCSC products with one vector as warp tiles (spla_sccsc_tiles): the rule that chooses them,
their launch shape, how their long columns are reduced, and the per-stream state they keep between
launches (the listed chunks' listing, the fused chunks' counters).
"""

from __future__ import annotations

import weakref

import numpy as np

from ... import device as _dev
from ...matrix import declare_cache
from .compile import BLOCK
from .launch import long_chunks, sm_count, resident_blocks, use_worklist
from .layouts import interleaved_chunks_of, long_split_of

TILE_GROUP_KEY = declare_cache("tile_group", "the tiles' lanes per kept column for the matrix (tile_group)")
TILE_DONE_KEY = declare_cache("tile_done", "the fused tile chunks' counters of the matrix, per CUDA stream")


def use_tiles(cp, A, colptr, ncols, device_id, t):
    """Whether a masked k == 1 scCSC product runs as warp tiles (the tuning's sccsc_tiles): "auto" when
    walking every column would take at least worklist_min_waves waves of the device, or when a column is
    longer than tile_long (the tiles split it; the walk would leave it to one thread).  Smaller graphs of
    short columns keep the walk, whose thread per column has more parallelism than a warp per tile."""
    if t.sccsc_tiles != "auto":
        return bool(t.sccsc_tiles)
    if use_worklist(ncols, device_id, t):
        return True
    return long_split_of(cp, A, colptr, 32, t.tile_long, t.tile_chunk) is not None


def tile_group(cp, A, colptr, t):
    """spla_sccsc_tiles' group_max for A (the tuning's tile_group; "auto": the least power of two G <= 8
    giving a lane at most tile_lane_entries entries of the mean non-empty column with at most tile_long
    entries), cached on A."""
    if t.tile_group != "auto":
        return int(t.tile_group)

    def build():
        lengths = cp.diff(colptr)
        short = (lengths > 0) & (lengths <= t.tile_long)
        count = _dev.count_true(short)
        # an int64 sum: CuPy sums int32 into int64 with a CUB block reduction compiled on first use
        mean = float(lengths[short].astype(np.int64).sum()) / count if count else 0.0
        group = 1
        while group < 8 and mean > group * t.tile_lane_entries:
            group *= 2
        return group
    return A.cached((TILE_GROUP_KEY, t.tile_long, t.tile_lane_entries, colptr.device.id), build)


def tile_geometry(ncols, device_id, t):
    """(R, threads per block) of a spla_sccsc_tiles launch over ncols columns: the tuning's tile_r
    (at most SPLA_TILE_R = 8 of spmv.cuh), halved while the graph has fewer than tile_min_warps tiles
    per SM; BLOCK, halved (down to one warp) while the grid would give an SM fewer than two blocks."""
    sms = sm_count(device_id)
    R = int(t.tile_r)
    while R > 1 and -(-ncols // (32 * R)) < t.tile_min_warps * sms:
        R //= 2
    tiles = -(-ncols // (32 * R))
    block = BLOCK
    while block > 32 and -(-tiles // (block // 32)) < 2 * sms:
        block //= 2
    return R, block


def tile_chunk_mode(split, ncols, direct, can_split, t):
    """How a tiles product reduces its long columns: None (no long column), "fused", "listed" or
    "static" (the tuning's tile_chunks; "auto": listed above tile_fused_max_chunks chunks per column,
    else fused).  Listing needs chunks that ADD straight into y (``direct``), else the static chunks;
    static chunks need ADD's atomic on T (``can_split``), else fused."""
    if split is None:
        return None
    chunks = t.tile_chunks
    if chunks == "auto":
        chunks = "listed" if direct and split["nchunks"] > t.tile_fused_max_chunks * ncols else "fused"
    if chunks == "listed" and not direct:
        chunks = "static"
    if chunks == "static" and not can_split:
        chunks = "fused"
    return chunks


LISTINGS = {}  # device id -> WeakKeyDictionary: stream -> [(capacity, buffer), ...], newest last


def tile_listing(cp, device_id, capacity):
    """(item_col, item_first, item_last, listing_count) pointers (np.uint64) of the current stream's tile
    listing on the current device, with room for ``capacity`` chunks: three int64 arrays with no initial
    value and two uint64 counters, zero, which spla_listed_chunks zeroes again (no memset per product).

    One listing per stream: the launches of a stream run in order, so they never share it at once, while
    launches on two streams may.  A CUDA graph recorded on a stream (spla.Replay records on a private
    one) keeps using that stream's listing when replayed, so a listing lives as long as its stream and is
    never freed or moved before: a bigger one is a new buffer (at least twice the room), the old one
    kept.  Its counters are zeroed on the stream, so a graph that recorded the creation zeroes them first."""
    streams = LISTINGS.setdefault(device_id, weakref.WeakKeyDictionary())
    stream = cp.cuda.get_current_stream()
    held = streams.get(stream)
    if held is None or held[-1][0] < capacity:
        room = max(int(capacity), 2 * held[-1][0] if held else 1024)
        buf = cp.empty(3 * room + 2, dtype=np.int64)
        buf[3 * room:].fill(0)
        held = (held or []) + [(room, buf)]
        streams[stream] = held
    room, buf = held[-1]
    base = buf.data.ptr
    return tuple(np.uint64(base + 8 * room * i) for i in range(4))


def tile_done(cp, A, split, device_id, t):
    """The fused chunks' counters (split["nmulti"],) uint32 of A on the current stream (a cupy array):
    zero when created, and every launch leaves them zero (a column's last chunk resets its
    counter), so no memset per product.  Kept on A per stream, for the reasons :func:`tile_listing`
    gives."""
    key = (TILE_DONE_KEY, split["long_len"], t.tile_chunk, device_id)
    streams = A.cached(key, weakref.WeakKeyDictionary)
    stream = cp.cuda.get_current_stream()
    done = streams.get(stream)
    if done is None:
        done = cp.zeros(max(1, int(split["nmulti"])), dtype=np.uint32)
        streams[stream] = done
    return done


def launch(p):
    """Run a masked k == 1 scCSC product (a :class:`~.products.Product`) as warp tiles: a warp per tile of
    columns, the computed ones spread over its lanes, the long columns' chunks fused into the tile
    kernel, listed by it for spla_listed_chunks, or reduced by spla_vecsc_long_chunks after it."""
    cp, A, t, colptr = p.cp, p.A, p.t, p.colptr
    i64, i32 = np.int64, np.int32
    split = long_split_of(cp, A, colptr, 32, t.tile_long, t.tile_chunk)
    direct = split is not None and p.can_split and p.adds
    chunks = tile_chunk_mode(split, p.ncols, direct, p.can_split, t)
    R, p.block = tile_geometry(p.ncols, p.device_id, t)
    group_max = tile_group(cp, A, colptr, t)
    p.variant = p.debug and (f" (tiles of {32 * R} columns, up to {group_max} lanes a column"
                             + (f", {split['nchunks']} long-column chunks {chunks}" if chunks else "") + ")")
    long_len = i64(split["long_len"] if split is not None else 0)
    null = np.uint64(0)
    chunk_groups, fused_args, listing = 0, (i64(0), i32(1), i64(0)) + (null,) * 9, (null,) * 4
    if chunks == "fused":
        ichunks = interleaved_chunks_of(cp, A, colptr, split, t)
        per_warp = int(t.chunks_per_warp)
        chunk_groups = -(-split["nchunks"] // per_warp)
        part = cp.empty(split["nchunks"], dtype=p.dtype)  # a partial per chunk, no initial value
        fused_args = (i64(chunk_groups), i32(per_warp), i64(split["nchunks"]), ichunks["chunk_j"],
                      ichunks["chunk_begin"], ichunks["chunk_end"], ichunks["chunk_col"], ichunks["chunk_part"],
                      split["col_chunk0"], split["col_slot"], part,
                      tile_done(cp, A, split, p.device_id, t) if split["nmulti"] else null)
    elif chunks == "listed":
        # room for every long column's chunks of listed_chunk entries: ceil(len / listed_chunk) <=
        # ceil(len / tile_chunk) * ceil(tile_chunk / listed_chunk)
        listing = tile_listing(cp, p.device_id, split["nchunks"] * -(-int(t.tile_chunk) // int(t.listed_chunk)))
    ntiles = -(-p.ncols // (32 * R))
    p.grid = int(max(1, min(-(-(chunk_groups + ntiles) // (p.block // 32)), t.max_blocks)))
    # y<mask> = u +.* A: a warp per tile of columns, the computed ones spread over its lanes (and a
    # warp per group of long-column chunks first, when fused)
    p.funcs["scCSC_tiles_listed" if chunks == "listed" else "scCSC_tiles"]((p.grid,), (p.block,), (
        colptr, p.rowidx, p.vals, p.u, p.y, p.marr, i64(p.js), i32(p.mode), i64(p.ncols), i32(R), p.acc,
        i32(p.flags), long_len, i32(1 if chunks in ("static", "listed") and direct and p.becomes else 0),
        i32(group_max), *fused_args, p.vec4, *listing, i64(t.listed_chunk)))
    if chunks == "listed":
        try:
            # y<mask>[long computed columns] += their chunks (atomic ADD)
            p.funcs["listed_chunks"]((resident_blocks(p.device_id),), (BLOCK,),
                                     (*listing, p.rowidx, p.vals, p.u, p.y, p.vec4))
        except BaseException:
            # the tiles counted into the listing and nothing will zero it: the stream gets a fresh one
            LISTINGS[p.device_id].pop(cp.cuda.get_current_stream(), None)
            raise
    elif chunks == "static":
        long_chunks(cp, p.funcs, p.sr, p.dtype, split, direct, p.rowidx, p.vals, p.u, p.y, p.marr, p.js, p.mode,
                    p.acc, p.flags, p.vec4, t.max_blocks, int(t.chunks_per_warp))
