"""The GPU's weighted-search kernels (spla/kernels/sssp.cuh, sssp_small.cuh, sssp_rows.cuh) transcribed
to Python, and the ``emulated`` fixture: spla.backends.gpu.sssp's host side (blocks, rounds, vertex
lists, buckets, the reductions) running them on NumPy arrays of a CPU matrix, NumPy standing in for
CuPy.  Each kernel runs one listed vertex (or source) at a time in a shuffled order, and the row
kernels' reads may see values of earlier in a phase: the tests check the algorithm the kernels
implement, not their CUDA text, on any machine.
"""

from __future__ import annotations

import math
import random
import types

import numpy as np
import pytest

from spla.backends.gpu import sssp, sssp_rows, sssp_small


_ORDER = random.Random(0)


def _bits(x):
    return int(np.array(x, dtype=np.float64).view(np.uint64))


def _order(nlist):
    idx = list(range(int(nlist)))
    _ORDER.shuffle(idx)
    return idx


def _append(r, out, count):
    out[int(count[0])] = r
    count[0] += 1


def _list(r, mark, tag, out, count):
    if mark[r] != tag:
        mark[r] = tag
        _append(r, out, count)


def _length(unit, lens, p):
    return 1.0 if unit else float(lens[p])


def _entry(q, k):
    return int(q) // k, int(q) % k


def _buffer(bufs, sel, shift):
    return bufs[(int(sel) >> shift) & 3]


def _next_round(c, nlist):
    """spla_sssp_next_round: the appended list becomes the list, or the phase is done."""
    c[sssp.ROUNDS] += 1 if nlist else 0
    c[sssp.LISTED] += nlist
    sel, nout = int(c[sssp.SEL]), int(c[sssp.OUT])
    c[sssp.IN], c[sssp.OUT] = nout, 0
    c[sssp.T] += 1
    if nout:
        c[sssp.SEL] = ((sel >> 2) & 3) | ((sel & 3) << 2) | (sel & ~15)
    else:
        c[sssp.DONE] = 1


def _relax_next(c, nlist):
    """spla_sssp_relax_next: the next list, or the next bucket's (the far list), or done."""
    nfar = int(c[sssp.FAR])
    if c[sssp.OUT] or not nfar:
        _next_round(c, nlist)
        return
    c[sssp.ROUNDS] += 1 if nlist else 0
    c[sssp.LISTED] += nlist
    far_min, bound, width = (float(np.array(c[i], dtype=np.uint64).view(np.float64))
                             for i in (sssp.FAR_MIN, sssp.BOUND, sssp.WIDTH))
    c[sssp.BOUND] = _bits(max(max(bound, far_min) + width, float(np.nextafter(far_min, np.inf))))
    sel = int(c[sssp.SEL])
    c[sssp.SEL] = ((sel >> 4) & 3) | (((sel >> 2) & 3) << 2) | ((sel & 3) << 4)
    c[sssp.IN], c[sssp.FAR], c[sssp.FAR_MIN] = nfar, 0, _bits(np.inf)
    c[sssp.FAR_TAG] += 1
    c[sssp.T] += 1


def _relax(unit):
    def run(_grid, _block, a):
        ocp, ori, olen, b0, b1, b2, k, _G, dist, mark, fmark, _cap, c = a
        if c[sssp.DONE]:
            return
        k, d, mk, fm = int(k), dist.reshape(-1), mark.reshape(-1), fmark.reshape(-1)
        bufs, sel = (b0, b1, b2), c[sssp.SEL]
        lst, nxt, far = _buffer(bufs, sel, 0), _buffer(bufs, sel, 2), _buffer(bufs, sel, 4)
        nlist = int(c[sssp.IN])
        bound = float(np.array(c[sssp.BOUND], dtype=np.uint64).view(np.float64))
        tag, ftag = int(c[sssp.T]), int(c[sssp.FAR_TAG])
        ncount, fcount, fmin = (c[i:i + 1] for i in (sssp.OUT, sssp.FAR, sssp.FAR_MIN))
        assert int(ncount[0]) == 0
        for i in _order(nlist):
            q = int(lst[i])
            v, s = _entry(q, k)
            dv = float(d[q])
            if not dv < bound:
                _list(q, fm, ftag, far, fcount)
                fmin[0] = min(int(fmin[0]), _bits(dv))
                continue
            for p in range(int(ocp[v]), int(ocp[v + 1])):
                r = int(ori[p]) * k + s
                cand = dv + _length(unit, olen, p)
                if cand < d[r]:
                    d[r] = cand
                    if cand < bound:
                        _list(r, mk, tag, nxt, ncount)
                    else:
                        _list(r, fm, ftag, far, fcount)
                        fmin[0] = min(int(fmin[0]), _bits(cand))
        _relax_next(c, nlist)
    return run


def _hops(unit):
    def run(_grid, _block, a):
        ocp, ori, olen, b0, b1, k, _G, dist, hops, _cap, c = a
        if c[sssp.DONE]:
            return
        k, d, h = int(k), dist.reshape(-1), hops.reshape(-1)
        bufs, sel = (b0, b1, b1), c[sssp.SEL]
        lst, nxt, ncount = _buffer(bufs, sel, 0), _buffer(bufs, sel, 2), c[sssp.OUT:sssp.OUT + 1]
        nlist, t = int(c[sssp.IN]), int(c[sssp.T])
        assert int(ncount[0]) == 0
        for i in _order(nlist):
            q = int(lst[i])
            v, s = _entry(q, k)
            assert h[q] == t
            for p in range(int(ocp[v]), int(ocp[v + 1])):
                w = int(ori[p])
                r = w * k + s
                if w != v and h[r] == -1 and d[q] + _length(unit, olen, p) == d[r]:
                    h[r] = t + 1
                    _append(r, nxt, ncount)
        _next_round(c, nlist)
    return run


def _scale_of(scale):
    """A kernel's optional scale array (a null pointer: zeros), flat."""
    if isinstance(scale, np.ndarray):
        return scale.reshape(-1)
    assert scale == 0
    return _Zeros()


class _Zeros:
    def __getitem__(self, _i):
        return 0


def _dag(du, dv, hu, hv):
    return du < dv or (du == dv and hu < hv)


def _dag_count(unit):
    def run(_grid, _block, a):
        icp, iri, ilen, n, k, _G, dist, hops, count = a
        k, d, h, c = int(k), dist.reshape(-1), hops.reshape(-1), count.reshape(-1)
        for w in range(int(n)):
            for s in range(k):
                r = w * k + s
                c[r] = 0
                if not d[r] < math.inf:
                    continue
                for p in range(int(icp[w]), int(icp[w + 1])):
                    u = int(iri[p])
                    q = u * k + s
                    if u != w and d[q] + _length(unit, ilen, p) == d[r] and _dag(d[q], d[r], h[q], h[r]):
                        c[r] += 1
    return run


def _sigma(unit):
    def run(_grid, _block, a):
        ocp, ori, olen, queue, cap, start, levels, top, k, _G, dist, hops, count, sigma, ctl = a
        k, t = int(k), int(ctl[sssp.T])
        d, h, c, sg = (x.reshape(-1) for x in (dist, hops, count, sigma))
        lo, nlist = int(start[t]), int(levels[t])
        start[t + 1] = lo + nlist
        assert int(levels[t + 1]) == 0
        lst, nxt, ncount = queue[lo:], queue[lo + nlist:], levels[t + 1:t + 2]
        for i in _order(nlist):
            q = int(lst[i])
            v, s = _entry(q, k)
            top[t] = max(int(top[t]), _bits(sg[q]))
            for p in range(int(ocp[v]), int(ocp[v + 1])):
                w = int(ori[p])
                r = w * k + s
                if w != v and d[q] + _length(unit, olen, p) == d[r] and _dag(d[q], d[r], h[q], h[r]):
                    sg[r] += sg[q]
                    c[r] -= 1
                    if c[r] == 0:
                        assert lo + nlist + int(ncount[0]) < int(cap)
                        _append(r, nxt, ncount)
        ctl[sssp.T] += 1
    return run


def _delta(unit):
    def run(_grid, _block, a):
        ocp, ori, olen, queue, start, levels, k, _G, dist, hops, sigma, scale, delta, c = a
        k, t = int(k), int(np.array(c[sssp.T], dtype=np.uint64).view(np.int64))
        if t < 0:
            return
        d, h, sg, dl = (x.reshape(-1) for x in (dist, hops, sigma, delta))
        e = _scale_of(scale)
        lst = queue[int(start[t]):]
        for i in _order(levels[t]):
            q = int(lst[i])
            v, s = _entry(q, k)
            acc = 0.0
            for p in range(int(ocp[v]), int(ocp[v + 1])):
                w = int(ori[p])
                r = w * k + s
                if w != v and d[q] + _length(unit, olen, p) == d[r] and _dag(d[q], d[r], h[q], h[r]):
                    acc += math.ldexp((1.0 + dl[r]) / sg[r], int(e[q] - e[r]))
            dl[q] = sg[q] * acc
        c[sssp.T] = np.int64(t - 1).view(np.uint64)
    return run


def _arc_sums(unit):
    def run(_grid, _block, a):
        icp, iri, ilen, n, k, _G, dist, hops, sigma, delta, scale, out = a
        k = int(k)
        d, sg, dl = (x.reshape(-1) for x in (dist, sigma, delta))
        h = np.zeros(d.size, dtype=np.int32) if isinstance(hops, np.uint64) else hops.reshape(-1)  # null: every h 0
        e = _scale_of(scale)
        for w in range(int(n)):
            for p in range(int(icp[w]), int(icp[w + 1])):
                u = int(iri[p])
                acc = 0.0
                for s in range(k):
                    q, r = u * k + s, w * k + s
                    if u != w and d[q] + _length(unit, ilen, p) == d[r] and _dag(d[q], d[r], h[q], h[r]):
                        acc += math.ldexp(sg[q] / sg[r] * (1.0 + dl[r]), int(e[q] - e[r]))
                out[p] += acc
    return run


#: kernel key -> its Python transcription (a factory over UNIT)
class _Small:
    """spla_sssp_small: a thread block per source (sources in a shuffled order), each running its rounds
    over a frontier (a vertex at most once, as the kernel's bitmap holds it), in a shuffled order."""

    def __init__(self, unit):
        self.unit = unit
        self.max_dynamic_shared_size_bytes = 48 * 1024

    def __call__(self, _grid, _block, a, shared_mem=0):
        ocp, ori, olen, src, k, n, _G, dist = a
        k, n = int(k), int(n)
        assert shared_mem == sssp_small.small_bytes(n) <= self.max_dynamic_shared_size_bytes
        out = dist.reshape(-1)
        for s in _order(k):
            d, mark = [math.inf] * n, [0] * n
            s0 = int(src[s])
            d[s0], mark[s0], listed, rnd = 0.0, 1, [s0], 1
            while listed:
                nxt = []
                for i in _order(len(listed)):
                    u = listed[i]
                    du = d[u]
                    for p in range(int(ocp[u]), int(ocp[u + 1])):
                        w = int(ori[p])
                        cand = du + _length(self.unit, olen, p)
                        if w != u and cand < d[w]:
                            d[w] = cand
                            if mark[w] != rnd + 1:
                                mark[w] = rnd + 1
                                nxt.append(w)
                listed, rnd = nxt, rnd + 1
            out[np.arange(n) * k + s] = d


class _SmallSums(_Small):
    """spla_sssp_small_sums: per source (shuffled), the distances as _Small, then (Σ d, |reached|,
    Σ 1/d over d > 0) into the source's slots."""

    def __call__(self, _grid, _block, a, shared_mem=0):
        ocp, ori, olen, src, k, n, _G, dsum, reach, harm = a
        k = int(k)
        for s in _order(k):
            one = np.empty(int(n))
            super().__call__(None, None, (ocp, ori, olen, src[s:s + 1], 1, n, _G, one), shared_mem)
            fin = one[one != math.inf]
            dsum[s], reach[s], harm[s] = fin.sum(), fin.size, (1.0 / fin[fin > 0]).sum()


class _SmallDeps(_Small):
    """spla_sssp_small_deps: per source (shuffled), from the distances in dist, h level by level over
    tight arcs (every h 0 without with_h, which the host passes only where no source can have ties,
    and where the source's farthest distance admits none, ``sssp_small.ties_possible``), the DAG counts,
    Kahn's levels of σ (each level's vertices shuffled), failed[s] = 1 where σ passes 2^512, else δ
    deepest level first."""

    def __call__(self, _grid, _block, a, shared_mem=0):
        ocp, ori, olen, src, k, n, _G, min_length, with_h, counts, dist, hops, sigma, delta, failed = a
        k, n = int(k), int(n)
        assert n < 2 ** 16
        assert shared_mem == sssp_small.small_bytes(n, deps=True, with_h=bool(with_h))
        assert shared_mem <= self.max_dynamic_shared_size_bytes
        assert counts == (not isinstance(hops, np.uint64)) == (not isinstance(sigma, np.uint64))
        col = np.arange(n) * k
        dist, delta = dist.reshape(-1), delta.reshape(-1)
        hops, sigma = (x.reshape(-1) if counts else None for x in (hops, sigma))
        for s in _order(k):
            d, s0 = dist[col + s].tolist(), int(src[s])  # spla_sssp_small's distances

            def arcs(u):
                for p in range(int(ocp[u]), int(ocp[u + 1])):
                    w = int(ori[p])
                    if w != u and d[u] + _length(self.unit, olen, p) == d[w]:
                        yield w

            far = max((x for x in d if x != math.inf), default=0.0)
            ties = sssp_small.ties_possible(float(min_length), far)
            assert with_h or not ties  # the host's bound covers every source
            h = [-1] * n if ties else [0] * n
            h[s0], level, t = 0, [s0] if ties else [], 0
            while level:
                nxt = []
                for i in _order(len(level)):
                    for w in arcs(level[i]):
                        if h[w] == -1:
                            h[w] = t + 1
                            nxt.append(w)
                level, t = nxt, t + 1

            def dag(u):
                return [w for w in arcs(u) if (d[u], h[u]) < (d[w], h[w])]

            count = [0] * n
            for u in range(n):
                if d[u] != math.inf:
                    for w in dag(u):
                        count[w] += 1
            sg = [0.0] * n
            sg[s0], levels = 1.0, [[s0]]
            while levels[-1]:
                nxt = []
                for i in _order(len(levels[-1])):
                    u = levels[-1][i]
                    for w in dag(u):
                        sg[w] += sg[u]
                        count[w] -= 1
                        if count[w] == 0:
                            nxt.append(w)
                levels.append(nxt)
            if counts:
                hops[col + s], sigma[col + s] = h, sg
            if not all(x <= 2.0 ** 512 for x in sg):
                failed[s] = 1
                continue
            for level in reversed(levels):
                for u in level:
                    dl = sg[u] * sum(sg[w] for w in dag(u))
                    delta[u * k + s] = 0.0 if u == s0 else dl
                    sg[u] = (1.0 + dl) / sg[u]


class _Rows(_Small):
    """spla_sssp_rows: a thread block per source (sources in a shuffled order), its distances its row of
    dist.  A phase takes the queue's entries first in, first out, a warp's claim of a few at a time in a
    shuffled order; it skips an entry whose vertex was lowered since, relaxes the others' out-arcs and
    enqueues each head whose d, as read, its candidate lowers (below the bound into the queue, else
    into the far list; past a list's cap into the spill set): a read may see a d of earlier in the
    phase.  Between phases the spill set is enqueued again from its d; when that
    queues nothing the bound moves one bucket past the smallest waiting d and the far list is split."""

    def __call__(self, _grid, _block, a, shared_mem=0):
        ocp, ori, olen, src, k, n, _G, width, cap, fcap, dist, spill, far, rounds = a
        k, n, width, cap, fcap = int(k), int(n), float(width), int(cap), int(fcap)
        assert shared_mem == sssp_rows.rows_bytes(cap) <= self.max_dynamic_shared_size_bytes
        assert spill.shape == (k, -(-n // 32)) and not spill.any()
        assert far.shape == (k, 3 * fcap) and far.dtype == np.float64  # a block's two far lists
        out = dist.reshape(-1)
        assert np.shares_memory(out, dist)
        for s in _order(k):
            d = [math.inf] * n
            s0 = int(src[s])
            d[s0] = 0.0
            st = {"queue": [(s0, 0.0)], "far": [], "bound": width}
            spilled = set()

            def enqueue(w, x):
                lst, most = (st["queue"], cap) if x < st["bound"] else (st["far"], fcap)
                if len(lst) < most:
                    lst.append((w, x))
                else:
                    spilled.add(w)

            r = 0
            began = list(d)  # d as the phase began
            while True:
                r += 1
                head = 0
                while head < len(st["queue"]):  # the phase (the queue grows as it goes)
                    claim = min(len(st["queue"]) - head, 4)
                    for i in _order(claim):
                        u, x = st["queue"][head + i]
                        if d[u] < x:
                            continue  # lowered since: a later entry carries it
                        for p in range(int(ocp[u]), int(ocp[u + 1])):
                            w = int(ori[p])
                            cand = x + _length(self.unit, olen, p)
                            # the kernel's read of d(w) may come before lowerings still in flight:
                            # any value d(w) held since the phase began
                            seen = d[w] if _ORDER.random() < 0.5 else began[w]
                            if w != u and cand < seen:
                                d[w] = min(d[w], cand)
                                enqueue(w, cand)
                    head += claim
                st["queue"] = []
                began = list(d)
                if spilled:
                    swept = sorted(spilled)
                    spilled.clear()
                    for w in swept:
                        enqueue(w, d[w])
                    if st["queue"]:
                        continue
                if not st["far"] and not spilled:
                    break
                f = min([x for _, x in st["far"]] + [d[w] for w in spilled])
                st["bound"] = max(max(st["bound"], f) + width, float(np.nextafter(f, math.inf)))
                waiting, st["far"] = st["far"], []
                for u, x in waiting:
                    enqueue(u, x)
            out[s * n:(s + 1) * n] = d
            if not isinstance(rounds, np.uint64):
                rounds[s] = r


class _RowsDeps(_Small):
    """spla_sssp_rows_deps: per source (shuffled), from its row of dist (no tight arc joins equal
    distances), the DAG in-arc counts; Kahn's sweep, the queue first in, first out in shuffled claims of
    a few, σ(w) += σ(u) over each DAG arc and w queued when its count empties; each vertex's count then
    its DAG out-degree; the sinks queued, δ pulled over the out-arcs in their order and each DAG
    predecessor queued when its count empties; failed[s] = 1 where σ passes 2^512."""

    def __call__(self, _grid, _block, a, shared_mem=0):
        ocp, ori, olen, icp, iri, ilen, src, k, n, _G, dist, sigma, delta, cnt, queue, failed = a
        k, n = int(k), int(n)
        assert shared_mem == 0 and dist.shape == sigma.shape == delta.shape == cnt.shape == queue.shape == (k, n)
        for s in _order(k):
            d, s0 = dist[s].tolist(), int(src[s])

            def tight_out(u):
                for p in range(int(ocp[u]), int(ocp[u + 1])):
                    w = int(ori[p])
                    if w != u and d[u] + _length(self.unit, olen, p) == d[w]:
                        assert d[w] > d[u]  # the host's guarantee: no tight arc joins equal distances
                        yield w

            def tight_in(w):
                for p in range(int(icp[w]), int(icp[w + 1])):
                    u = int(iri[p])
                    if u != w and d[u] + _length(self.unit, ilen, p) == d[w]:
                        yield u

            def sweep(first, visit):
                q, head = list(first), 0
                while head < len(q):
                    claim = min(len(q) - head, 4)
                    for i in _order(claim):
                        q.extend(visit(q[head + i]))
                    head += claim

            c = [len(list(tight_in(v))) if d[v] != math.inf else 0 for v in range(n)]
            sg = [0.0] * n
            sg[s0] = 1.0
            dl = [0.0] * n

            def forward(u):
                if not sg[u] <= 2.0 ** 512:
                    failed[s] = 1
                out = list(tight_out(u))
                for w in out:
                    sg[w] += sg[u]
                    c[w] -= 1
                    if c[w] == 0:
                        yield w
                c[u] = len(out)

            def back(w):
                dl[w] = sg[w] * sum((1.0 + dl[x]) / sg[x] for x in tight_out(w))
                for u in tight_in(w):
                    c[u] -= 1
                    if c[u] == 0:
                        yield u

            sweep([s0], forward)
            sweep([v for v in range(n) if d[v] != math.inf and c[v] == 0], back)
            sigma[s], delta[s] = sg, dl


EMULATED = {"relax": _relax, "hops": _hops, "dag_count": _dag_count, "sigma": _sigma, "delta": _delta,
            "arc_sums": _arc_sums, "small": _Small, "small_sums": _SmallSums, "small_deps": _SmallDeps, "rows": _Rows,
            "rows_deps": _RowsDeps}


class _FakeDevice:
    id = 0
    attributes = {"MaxSharedMemoryPerBlockOptin": 227 * 1024}  # an H100's

    def __init__(self, *_):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _FakeCupy:
    """NumPy under CuPy's name (what spla.backends.gpu.sssp uses of it)."""

    cuda = types.SimpleNamespace(Device=_FakeDevice)

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def asnumpy(x):
        return np.asarray(x)

    def __repr__(self):
        return "<NumPy as CuPy>"


@pytest.fixture
def emulated(monkeypatch):
    """spla.backends.gpu.sssp running the Python kernels on NumPy arrays of a CPU matrix."""
    fake = _FakeCupy()
    monkeypatch.setattr(sssp, "load_cupy", lambda: fake)
    monkeypatch.setattr(sssp, "_module", lambda _q, _i, unit, _d: {key: make(unit) for key, make in EMULATED.items()})
    monkeypatch.setattr(sssp, "resident_blocks", lambda _d: 4)
    most = _FakeDevice.attributes["MaxSharedMemoryPerBlockOptin"]
    for module in (sssp_small, sssp_rows):
        monkeypatch.setattr(module, "shared_per_block", lambda _d: most)
    monkeypatch.setattr(sssp._memory, "available_bytes", lambda _d: 1 << 30)
    return fake


#: the paths of the searches: every phase over entry lists; the distances on the row path (a thread
#: block per source, distances in global memory) and the rest over entry lists; the defaults (a thread
#: block per source, the whole search in shared memory, on these small graphs)
LISTS = dict(sssp_small_bytes=0, sssp_rows=False)
PATHS = [LISTS, dict(sssp_small_bytes=0, sssp_rows=True), {}]
PATH_IDS = ["lists", "rows", "small"]
