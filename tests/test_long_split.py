"""The long-column split of the GPU kernels (spla.backends.gpu.layouts.vecsc_long_split), built with NumPy:
the index arrays the chunk kernels walk, against a loop over the columns.  The GPU tests check the
kernels that read them; this runs everywhere (CI has no GPU)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from spla.backends.gpu.layouts import vecsc_long_split


def _reference(lengths, long_len, chunk):
    """(long_cols, [(column index, begin, end) per chunk]) by walking the columns one by one."""
    colptr = np.concatenate([[0], np.cumsum(lengths)])
    long_cols, chunks = [], []
    for j, n in enumerate(lengths):
        if n > long_len:
            for b in range(colptr[j], colptr[j + 1], chunk):
                chunks.append((len(long_cols), b, min(b + chunk, colptr[j + 1])))
            long_cols.append(j)
    return colptr, long_cols, chunks


@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.integers(0, 40), max_size=30), long_len=st.integers(0, 12),
       chunk=st.integers(1, 9), index=st.sampled_from([np.int32, np.int64]))
def test_vecsc_long_split_matches_a_column_walk(lengths, long_len, chunk, index):
    colptr, long_cols, chunks = _reference(lengths, long_len, chunk)
    split = vecsc_long_split(np, colptr.astype(index), long_len, chunk)
    if not long_cols or long_len <= 0:
        assert split is None if long_len <= 0 or not long_cols else split is not None
        return
    assert split["long_cols"].tolist() == long_cols and split["long_cols"].dtype == index
    assert split["nlong"] == len(long_cols) and split["nchunks"] == len(chunks)
    got = list(zip(split["chunk_col"].tolist(), split["chunk_begin"].tolist(), split["chunk_end"].tolist()))
    assert got == [tuple(int(v) for v in c) for c in chunks]
    # col_chunk0: each long column's chunks are one consecutive run; col_slot numbers the columns of
    # more than one chunk (the fused tiles' completion counters), -1 for the others
    per_col = np.bincount([c[0] for c in chunks], minlength=len(long_cols))
    assert split["col_chunk0"].tolist() == np.concatenate([[0], np.cumsum(per_col)]).tolist()
    multi = np.flatnonzero(per_col > 1)
    want_slot = np.full(len(long_cols), -1)
    want_slot[multi] = np.arange(len(multi))
    assert split["col_slot"].tolist() == want_slot.tolist() and split["nmulti"] == len(multi)
    assert split["col_chunk0"].dtype == np.int32 and split["col_slot"].dtype == np.int32


@settings(max_examples=100, deadline=None)
@given(lengths=st.lists(st.integers(0, 40), min_size=1, max_size=30), long_len=st.integers(1, 12),
       chunk=st.integers(1, 9))
def test_interleaved_chunks_are_the_same_chunks_rank_major(lengths, long_len, chunk):
    from spla.backends.gpu.layouts import interleaved_chunks
    colptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    split = vecsc_long_split(np, colptr, long_len, chunk)
    if split is None:
        return
    inter = interleaved_chunks(np, split)
    part = inter["chunk_part"]
    assert sorted(part.tolist()) == list(range(split["nchunks"]))  # a permutation of the chunks
    col = split["chunk_col"][part]
    assert inter["chunk_col"].tolist() == col.tolist()
    assert inter["chunk_j"].tolist() == split["long_cols"][col].tolist()
    assert inter["chunk_begin"].tolist() == split["chunk_begin"][part].tolist()
    assert inter["chunk_end"].tolist() == split["chunk_end"][part].tolist()
    rank = part - split["col_chunk0"][col]  # the chunk's rank within its column
    assert list(zip(rank.tolist(), col.tolist())) == sorted(zip(rank.tolist(), col.tolist()))


@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.integers(0, 200), max_size=40), min_cv=st.sampled_from([-1.0, 0.5]),
       index=st.sampled_from([np.int32, np.int64]))
def test_rows_order_is_longest_first_and_stable(lengths, min_cv, index):
    """spla_vecsc_rows' column order: a permutation, lengths non-increasing, ties in index order; None
    when the short columns' lengths hardly vary (or there are none)."""
    from spla import tuning
    from spla.backends.gpu.layouts import rows_order
    rows_long = tuning.current().rows_long
    colptr = np.concatenate([[0], np.cumsum(lengths)]).astype(index)
    order = rows_order(np, colptr, min_cv, rows_long)
    lens = np.asarray(lengths, dtype=np.int64)
    short = lens[lens <= rows_long].astype(float)
    varies = short.size > 0 and short.mean() > 0 and short.std() / short.mean() > min_cv
    if not varies:
        assert order is None
        return
    assert order.dtype == index and sorted(order.tolist()) == list(range(len(lengths)))
    assert order.tolist() == sorted(range(len(lengths)), key=lambda j: (-lengths[j], j))


@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.integers(0, 200), max_size=40), long_len=st.integers(0, 150),
       share=st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0]), groups=st.integers(0, 40),
       min_chunks=st.sampled_from([0.0, 0.01, 0.1, 2.0]), index=st.sampled_from([np.int32, np.int64]))
def test_rows_chunk_follows_the_long_columns_share(lengths, long_len, share, groups, min_chunks, index):
    """The k-block row-piece products' item length: None without a column of more than long_len entries
    (whole columns then), the heavy chunks exactly when those columns hold at least rows_heavy_share of
    the entries and fill rows_heavy_min_chunks heavy chunks per resident group, else rows_chunk."""
    from spla import tuning
    from spla.backends.gpu import layouts
    colptr = np.concatenate([[0], np.cumsum(lengths)]).astype(index)
    total = sum(lengths)
    long_entries = sum(n for n in lengths if n > long_len)
    with tuning.override(rows_heavy_share=share, rows_heavy_min_chunks=min_chunks) as t:
        heavy = long_entries >= share * total and long_entries >= min_chunks * groups * t.rows_heavy_chunk
        want = None if long_entries == 0 else t.rows_heavy_chunk if heavy else t.rows_chunk
        assert layouts.rows_chunk(colptr, long_len, groups) == want
        assert layouts.rows_chunk(colptr, long_len, groups, t) == want


def test_bad_chunk_and_order_switches_are_refused():
    """A mistyped tile_chunks would otherwise leave the long columns unreduced (a wrong answer), a bad
    listed_chunk would overrun the listing, and a mistyped rows_order would silently mean "auto": the
    tuning refuses each, naming the field and the allowed values, and keeps the values in force."""
    import pytest

    from spla import tuning
    from spla.backends.gpu import tiles
    split = vecsc_long_split(np, np.array([0, 40, 41], dtype=np.int32), 32, 16)
    with pytest.raises(ValueError, match="tile_chunks must be one of 'auto', 'fused', 'listed', 'static', got 'fusd'"):
        with tuning.override(tile_chunks="fusd"):
            pass
    # "auto": 3 chunks for 2 (or 10) columns is more than tile_fused_max_chunks = 0.1 per column: listed
    # where the chunks may ADD straight into y, else fused; 3 chunks for 40 columns: fused
    t = tuning.current()
    assert t.tile_chunks == "auto" and t.tile_fused_max_chunks == 0.1
    assert tiles.tile_chunk_mode(split, 2, True, True, t) == "listed"
    assert tiles.tile_chunk_mode(split, 10, True, True, t) == "listed"
    assert tiles.tile_chunk_mode(split, 2, False, True, t) == "fused"
    assert tiles.tile_chunk_mode(split, 40, True, True, t) == "fused"
    assert tiles.tile_chunk_mode(None, 10, True, True, t) is None
    for bad in (0, -512, 512.0, True, "512"):
        with pytest.raises(ValueError, match=f"listed_chunk must be a positive int, got {bad!r}"):
            with tuning.override(listed_chunk=bad):
                pass
    with pytest.raises(ValueError, match="rows_order must be one of 'auto', True, False, got 'yes'"):
        with tuning.override(rows_order="yes"):
            pass
    assert tuning.current() == t


@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.integers(0, 40), max_size=30), chunk=st.integers(1, 9),
       index=st.sampled_from([np.int32, np.int64]))
def test_rows_items_are_every_column_cut_and_sorted_longest_first(lengths, chunk, index):
    from spla.backends.gpu.layouts import rows_items
    colptr = np.concatenate([[0], np.cumsum(lengths)]).astype(index)
    items = rows_items(np, colptr, chunk)
    # the items of a column walk: [b, min(b + chunk, end)) for b = start, start + chunk, ...; one empty
    # item for an empty column
    want = []
    for j, n in enumerate(lengths):
        starts = range(int(colptr[j]), int(colptr[j + 1]), chunk) if n else [int(colptr[j])]
        want += [(j, b, min(b + chunk, int(colptr[j + 1]))) for b in starts]
    got = list(zip(items["item_col"].tolist(), items["item_begin"].tolist(), items["item_end"].tolist()))
    assert sorted(got) == sorted(want) and items["nitems"] == len(want)
    lens = [e - b for _, b, e in got]
    assert lens == sorted(lens, reverse=True)
    assert all(a.dtype == index for a in (items["item_col"], items["item_begin"], items["item_end"]))
    several = {j for j, n in enumerate(lengths) if n > chunk}
    assert items["item_multi"].tolist() == [int(j in several) for j, _, _ in got]
    assert items["multi_cols"].tolist() == sorted(several)
