"""Betweenness from one source at a time, direction-optimised, with recorded plans (TurboBC, Algorithm 1).

Definition: the dependencies δ_s(v) of :mod:`betweenness_dense` (Brandes; networkx
``betweenness_centrality_subset`` for one source), with k = 1 and 1-D vectors:

    forward, d = 1, 2, ...:   f<!reached> += f' +.first A      (f' the previous frontier;  σ += f)
    backward, d = D .. 1:     T<rank == 1> += A +.second c,  c = 1/σ̃ + T at rank 0       (T = δ/σ̃)
                              δ = σ̃ · T,  0 at the source

Each level's product pushes from the frontier (``kernel="push"``: the arcs leaving the level) or
pulls into the unreached vertices (the arcs entering them), whichever
``spla.choose_kernel(push_arcs=..., pull_arcs=...)`` finds cheaper, forward and backward.  The levels
are in-place steps replayed as CUDA graphs (``spla.Replay``); after a first source measured level by
level, the next ones run as one replayed graph per source (a plan), checked afterwards
(:class:`SingleSource`).  σ is rescaled by powers of two as in :mod:`betweenness_dense`, level by level.

Needs: P, a square pattern matrix, and P.T for a directed graph.  Memory: a workspace of seven (n,)
arrays (σ̃, T, two frontiers in float64; level in int32; reached; a vertex index), cached on P (key
``"bc_single_source"``) when it is at most the tunable ``single_source_cache_bytes`` or P's own size,
so that its recorded graphs and plan serve the next call.  Host traffic: one 24-byte read per level,
or one read per source by a plan.

Tunables (``spla.tuning``; their values are explained in docs/decisions/algorithms.md):
speculative_max_depth, speculative_check_every, speculative_waste, speculative_misses,
single_source_cache_bytes.
"""

from __future__ import annotations

import logging

import numpy as np

import spla
from spla.device import count_true

from ._common import to_numpy
from .betweenness_dense import RESCALE_ABOVE, accumulate

log = logging.getLogger("spla")

#: P's cached single-source workspaces, by kernel
WORKSPACE = spla.matrix.declare_cache("bc_single_source",
                                      "betweenness's single-source workspace (buffers, recorded steps, plan), by kernel")


# σ += f;  level += ~reached (a vertex counts the levels until it is reached);  reached |= (f != 0);
# prev = 0 (the previous frontier, spent: the next level's product accumulates into it)
def _book_level_fn(xp):
    def book(sigma, level, reached, f, prev):
        sigma += f
        level += ~reached
        reached |= f != 0
        prev *= 0.0
    return book


# the same, and each new vertex's degree (0 elsewhere): summed, the level's out- or in-arcs.  (The sums
# are CuPy's own reductions: a reduction inside a fused kernel runs on one thread block.)
def _book_level_arcs_fn(xp):
    def book(sigma, level, reached, f, prev, deg):
        new = f != 0
        sigma += f
        level += ~reached
        reached |= new
        prev *= 0.0
        return xp.where(new, deg, 0)
    return book


_book_level = spla.fuse(_book_level_fn, name="bc_book_level")
_book_level_arcs = spla.fuse(_book_level_arcs_fn, name="bc_book_level_arcs")
_where_new = spla.fuse(lambda xp: lambda f, deg: xp.where(f != 0, deg, 0), name="bc_level_arcs")


# σ = fa = e_s, T = fb = 0, level = 0, reached = {s}.  In place by multiplication: σ, T, fa and fb
# must be finite (SingleSource.clean refills them after a run that overflowed).
def _reset_fn(xp):
    def reset(sigma, T, fa, fb, level, reached, index, s):
        src = index == s
        sigma *= 0.0
        sigma += src
        fa *= 0.0
        fa += src
        fb *= 0.0
        T *= 0.0
        level *= 0
        reached &= src
        reached |= src
    return reset


_reset_source = spla.fuse(_reset_fn, name="bc_reset_source")


# δ = σ̃ · T, 0 at the source (its own dependency is not betweenness)
def _dependencies_fn(xp):
    def finish(T, sigma, index, s):
        T *= xp.where(index == s, 0.0, sigma)
    return finish


_dependencies = spla.fuse(_dependencies_fn, name="bc_dependencies")


# σ̃ where the last frontier is empty, +inf where it is not: its maximum is the plan's check
_plan_check = spla.fuse(lambda xp: lambda sigma, f: xp.where(f != 0, xp.inf, sigma), name="bc_plan_check")


# c = 1/σ̃ + T on the level being swept (rank 0), 0 elsewhere;  below = (rank == 1), its parents' level;
# rank -= 1 (the next step sweeps one level up)
def _sweep_coeff_fn(xp):
    def coeff(rank, sigma, T):
        at = rank == 0
        c = xp.where(at, 1.0 / xp.where(at, sigma, 1.0) + T, 0.0)
        below = rank == 1
        rank -= 1
        return c, below
    return coeff


_sweep_coeff = spla.fuse(_sweep_coeff_fn, name="bc_sweep_coeff")


# rank = depth - level where reached, -1 elsewhere (level of reached vertices is their BFS depth)
def _to_rank_fn(xp):
    def to_rank(level, reached, depth):
        level -= depth + 1
        level *= -1
        level *= reached
        level -= 1
    return to_rank


_to_rank = spla.fuse(_to_rank_fn, name="bc_to_rank")


class Plan:
    """The kernels of one whole single-source run, from a source measured level by level.

    forward[d - 1]: the kernel of forward step d = 1 .. depth + 1 (the last one finds the empty
    level that ends the BFS); backward[i]: the kernel of the backward step for level depth - i.
    """

    def __init__(self, forward, backward):
        self.forward = tuple(forward)
        self.backward = tuple(backward)
        self.depth = len(self.backward)

    def __repr__(self):
        return f"Plan(depth={self.depth}, forward={self.forward}, backward={self.backward})"


class SingleSource:
    """Device buffers and replayed steps of TurboBC's single-source Algorithm 1 on one matrix.

    Arrays, all on P's device: sigma, T, fa, fb (n,) float64 (σ̃, T = δ/σ̃, the frontier and the
    next one); level (n,) int32 (BFS depth while going forward, then the backward sweep's rank);
    reached (n,) bool; s (1,) int64 the source; depth (1,) int32; stats (3,) float64 the newest
    level's (largest σ, out-arcs, in-arcs).

    Two ways to run a source:

    * level by level (:meth:`run_levels`): each BFS level is one replayed step (a product, push or
      pull as ``spla.choose_kernel`` picks from the level's arc counts, and one fused pass that
      books it and measures the next), then one 24-byte read of its statistics, which ends the BFS,
      chooses the next level's kernel and detects σ > 2^512 (rescaled exactly, eagerly).
    * as a plan (:meth:`run_plan`): after a source measured level by level, the same kernels, level
      for level, are recorded as ONE CUDA graph (reset, depth + 1 forward steps, depth backward
      steps, δ = σ̃·T) and replayed for the next sources with one launch and one read.  Levels
      past a source's own depth are empty and change nothing, so the result is exact for every
      source whose BFS ends within the plan's depth and whose σ stays below 2^512; the read checks
      both, and a source that fails either runs level by level instead.  The plan's push/pull
      choices may suit another source less well: that costs time, never correctness; every
      ``speculative_check_every``-th source a plan could run is run level by level instead and its
      own choices score the plan's (:meth:`learn`); the matrix stops using plans after repeated misses.
      Plans cover at most ``speculative_max_depth`` levels (tunables of ``spla.tuning``).
    """

    def __init__(self, P, kernel):
        xp, n = P.xp, P.shape[0]
        self.xp, self.P, self.kernel, self.n = xp, P, kernel, n
        self.sigma = xp.zeros(n, dtype=np.float64)
        self.T = xp.zeros(n, dtype=np.float64)
        self.fa = xp.zeros(n, dtype=np.float64)
        self.fb = xp.zeros(n, dtype=np.float64)
        self.level = xp.zeros(n, dtype=np.int32)
        self.reached = xp.zeros(n, dtype=np.bool_)
        self.s = xp.zeros(1, dtype=np.int64)
        self.depth = xp.zeros(1, dtype=np.int32)
        self.stats = xp.zeros(3, dtype=np.float64)
        self.top = self.stats[0:1].reshape(())  # a 0-d view: the largest σ of the newest level
        self.stats_host = spla.device.HostCopy(self.stats)
        self.index = xp.arange(n, dtype=np.int64 if n >= 2**31 else np.int32)
        self.symmetric = P.T is P
        # count each level's arcs only where they can choose the direction of the next product
        self.directions = kernel == "auto" and spla.may_push(P)
        self.out_deg = P.out_degree()  # int64, cached on P (the same array as in_deg when symmetric)
        self.in_deg = P.in_degree()
        self.out_deg_host = to_numpy(self.out_deg)
        self.in_deg_host = to_numpy(self.in_deg)
        self.nbytes = sum(int(a.nbytes) for a in (self.sigma, self.T, self.fa, self.fb, self.level, self.reached,
                                                  self.index))
        self.reset = spla.Replay(self._reset, P.device, name="bc reset")
        self.between = spla.Replay(lambda: _to_rank(self.level, self.reached, self.depth), P.device,
                                   name="bc between sweeps")
        self.finish = spla.Replay(self._finish, P.device, name="bc dependencies")
        self._forward, self._backward = {}, {}
        self.plan = self.whole = self.check = None
        self.hits = self.misses = self.planned = 0
        self.speculate = True

    # ------------------------------------------------------------------ steps (in place, replayable)
    def _reset(self):
        """σ = fa = e_s, T = fb = 0, level = 0, reached = {s} (one fused pass)."""
        # σ = fa = e_s;  T = fb = 0;  level = 0;  reached = {s}
        _reset_source(self.sigma, self.T, self.fa, self.fb, self.level, self.reached, self.index, self.s)

    def clean(self):
        """Refill σ, T and the frontiers with zeros: after a run whose σ overflowed they may hold
        inf or NaN, which the fused reset's multiplication by 0 would keep."""
        for a in (self.sigma, self.T, self.fa, self.fb):
            a.fill(0)

    def _forward_step(self, kernel, src, dst, measure):
        """One BFS level: dst<!reached> += src +.first A (dst is 0: the spent frontier before last),
        then book dst and zero src.  ``measure``: also stats = (largest σ of dst, and when the
        directions are chosen its vertices' out-arcs and in-arcs)."""
        xp = self.xp
        # dst<!reached> += src +.first A    (accumulating into zeros: push and scCOOC need no fill)
        spla.vxm(src, self.P, "plus_first", mask=self.reached, complement=True, accum="plus", out=dst,
                 kernel=kernel)
        if not (measure and self.directions):
            # σ += dst;  level += ~reached;  reached |= dst != 0;  src = 0
            _book_level(self.sigma, self.level, self.reached, dst, src)
            if measure:
                dst.max(out=self.top)
            return
        # the same, and the new level's out-arcs, vertex by vertex
        out_arcs = _book_level_arcs(self.sigma, self.level, self.reached, dst, src, self.out_deg).sum()
        in_arcs = out_arcs if self.symmetric else _where_new(dst, self.in_deg).sum()
        xp.stack((dst.max(), out_arcs, in_arcs), out=self.stats)

    def _backward_step(self, kernel, scale=0):
        """T<rank == 1> += A +.second c,  c = (1/σ̃ + T) at rank 0;  then rank -= 1."""
        # c<rank == 0> = 1/σ̃ + T;  below = (rank == 1);  rank -= 1
        c, below = _sweep_coeff(self.level, self.sigma, self.T)
        if scale:
            # c = c · 2^scale
            c = self.xp.ldexp(c, scale)
        # T<below> += A +.second c
        accumulate(self.P, c, below, self.T, kernel)

    def _finish(self):
        """T = δ = σ̃ · T, and 0 at the source (its own dependency is not betweenness)."""
        # T = σ̃ · T;  T(s) = 0
        _dependencies(self.T, self.sigma, self.index, self.s)

    def _forward_replay(self, kernel, parity):
        key = (kernel, parity)
        if key not in self._forward:
            src, dst = (self.fa, self.fb) if parity == 0 else (self.fb, self.fa)
            self._forward[key] = spla.Replay(lambda: self._forward_step(kernel, src, dst, True),
                                             self.P.device, name=f"bc forward level ({kernel})")
        return self._forward[key]

    def _backward_replay(self, kernel):
        if kernel not in self._backward:
            self._backward[kernel] = spla.Replay(lambda: self._backward_step(kernel), self.P.device,
                                                 name=f"bc backward level ({kernel})")
        return self._backward[kernel]

    # ------------------------------------------------------------------ kernel choice per level
    def forward_kernel(self, frontier_out_arcs, unreached_in_arcs):
        """frontier<!reached> = frontier +.first A: push from the frontier or pull into the unreached."""
        if self.kernel != "auto":
            return self.kernel
        if not self.directions:  # the masks keep most columns in the expensive levels
            return spla.choose_kernel(self.P, masked="dense", dtype=np.float64)[0]
        return spla.choose_kernel(self.P, masked=True, dtype=np.float64, push_arcs=frontier_out_arcs,
                                  pull_arcs=unreached_in_arcs)[0]

    def backward_kernel(self, level_in_arcs, parents_out_arcs):
        """T<level d-1> += A +.second c: push from level d (its in-arcs) or pull into level d-1 (out-arcs)."""
        if self.kernel != "auto":
            return self.kernel
        if not self.directions:
            return spla.choose_kernel(self.P.T, masked="dense", dtype=np.float64)[0]
        return spla.choose_kernel(self.P.T, masked=True, dtype=np.float64, push_arcs=level_in_arcs,
                                  pull_arcs=parents_out_arcs)[0]

    # ------------------------------------------------------------------ level by level
    def run_levels(self, s):
        """δ_s into T, one replayed step per level.  Returns (per-level (top, out-arcs, in-arcs) of
        levels 0..depth, the forward kernels, the backward kernels, whether a level was rescaled)."""
        xp = self.xp
        self.s.fill(s)
        self.reset()
        levels = [(1.0, float(self.out_deg_host[s]), float(self.in_deg_host[s]))]
        unreached_in = float(self.P.nnz) - levels[0][2]
        exps = [0]  # e_d for d = 0, 1, ...: σ̃ at level d = σ_d · 2^-(e_1 + ... + e_d)
        fwd = []
        parity = 0
        while True:
            kernel = self.forward_kernel(levels[-1][1], unreached_in)
            fwd.append(kernel)
            self._forward_replay(kernel, parity)()
            top, out_arcs, in_arcs = (float(x) for x in self.stats_host.read())
            if not top > 0:
                break
            e = int(np.frexp(top)[1]) if top > RESCALE_ABOVE else 0
            if e:  # σ̃ of the new level: its frontier scaled by 2^-e (booked unscaled: fix σ there too)
                dst = self.fb if parity == 0 else self.fa
                # frontier = frontier · 2^-e;  σ<frontier> = frontier
                xp.copyto(dst, xp.ldexp(dst, -e))
                xp.copyto(self.sigma, xp.where(dst != 0, dst, self.sigma))
            exps.append(e)
            levels.append((top, out_arcs, in_arcs))
            unreached_in -= in_arcs
            parity ^= 1
        depth = len(levels) - 1
        self.depth.fill(depth)
        # rank = depth - level where reached, -1 elsewhere
        self.between()
        bwd = []
        for d in range(depth, 0, -1):
            kernel = self.backward_kernel(levels[d][2], levels[d - 1][1])
            bwd.append(kernel)
            if exps[d]:
                self._backward_step(kernel, scale=-exps[d])
            else:
                self._backward_replay(kernel)()
        self.finish()
        return levels, fwd, bwd, any(exps)

    # ------------------------------------------------------------------ as a replayed plan
    def use_plan(self, plan):
        """Make ``plan`` this workspace's replayed whole run (a new CUDA graph on the GPU)."""
        self.plan = plan
        self.check = self.xp.zeros((), dtype=np.float64)
        self.check_host = spla.device.HostCopy(self.check)
        self.whole = spla.Replay(self._whole_step, self.P.device, name=f"bc whole source (depth {plan.depth})")

    def _whole_step(self):
        plan = self.plan
        self._reset()
        src, dst = self.fa, self.fb
        for kernel in plan.forward:
            # dst<!reached> += src +.first A;  σ += dst;  src = 0
            self._forward_step(kernel, src, dst, False)
            src, dst = dst, src
        # rank = depth - level where reached, -1 elsewhere
        _to_rank(self.level, self.reached, plan.depth)
        for kernel in plan.backward:
            # T<rank == 1> += A +.second (1/σ̃ + T)<rank == 0>;  rank -= 1
            self._backward_step(kernel)
        # δ = σ̃ · T
        self._finish()
        # check = largest σ̃, or +inf when the last step found a level (the BFS is deeper than the plan)
        _plan_check(self.sigma, src).max(out=self.check)

    def run_plan(self, s):
        """δ_s into T by the replayed plan; False (T unusable) when the source's BFS is deeper than
        the plan or its σ needs rescaling."""
        self.s.fill(s)
        self.whole()
        if float(self.check_host.read()[()]) <= RESCALE_ABOVE:  # not inf, not NaN, no rescaling needed
            return True
        self.clean()
        return False

    def learn(self, levels, fwd, bwd, rescaled, scored):
        """After a level-by-level run: make it the plan (the first, or deeper than the plan), and when
        ``scored`` (a plan could have run it) and the levels' arcs were measured (``directions``) count
        the plan a hit or a miss on this source."""
        depth = len(levels) - 1
        tuning = spla.tuning.current()
        if rescaled or depth > tuning.speculative_max_depth or not self.speculate:
            return
        if self.plan is None or depth > self.plan.depth:
            self.use_plan(Plan(fwd, bwd))
            return
        if not scored or not self.directions:  # one kernel each way at every level: nothing to score
            return
        out_arcs = [lv[1] for lv in levels]
        in_arcs = [lv[2] for lv in levels]
        unreached = float(self.P.nnz) - np.cumsum(in_arcs)  # [d - 1]: in-arcs not reached before step d
        cost = spla.direction_cost
        own = planned = 0.0
        for d in range(1, depth + 2):  # forward step d (the last one finds the empty level)
            push, pull = out_arcs[d - 1], max(unreached[d - 1], 0.0)
            own += cost(self.P, fwd[d - 1], push, pull)
            planned += cost(self.P, self.plan.forward[d - 1], push, pull)
        T = self.P.T
        for i, d in enumerate(range(depth, 0, -1)):  # backward step for level d
            own += cost(T, bwd[i], in_arcs[d], out_arcs[d - 1])
            planned += cost(T, self.plan.backward[self.plan.depth - d], in_arcs[d], out_arcs[d - 1])
        # the plan misses when its kernels would have cost this source more than 1 + speculative_waste
        # times its own; after speculative_misses misses, and more misses than hits, plans stop
        if planned > (1 + tuning.speculative_waste) * own:
            self.misses += 1
            if self.misses >= tuning.speculative_misses and self.misses > self.hits:
                self.speculate = False
                log.debug("betweenness: single-source plans stopped (%d misses, %d hits): the sources' "
                          "levels differ too much; choosing each level's kernel from its statistics",
                          self.misses, self.hits)
        else:
            self.hits += 1


def workspace(P, kernel):
    """P's cached :class:`SingleSource` for ``kernel`` (a new one, cached when small enough: its buffers,
    and the recorded graphs' temporaries about as much again, up to the tunable
    ``single_source_cache_bytes`` or P's own size)."""
    key = (WORKSPACE, kernel)
    ws = P.peek_cached(key)
    if ws is None:
        ws = SingleSource(P, kernel)
        if ws.nbytes <= max(spla.tuning.current().single_source_cache_bytes, P.nbytes):
            P.cached(key, lambda: ws)
    return ws


def single_source(P, s, acc, *, endpoints, kernel):
    """Add source s's dependencies δ_s into ``acc`` (n,), or into a new array when ``acc`` is None;
    returns it.  TurboBC's Algorithm 1.

    Same mathematics as ``betweenness_dense.block`` with k = 1, one push-or-pull product per BFS level
    each way (see :class:`SingleSource`): by the workspace's replayed plan when it has one that this
    source fits, else level by level (which then becomes the plan when it needed no rescaling).
    """
    ws = workspace(P, kernel)
    done = scored = False
    if ws.plan is not None and ws.speculate:
        ws.planned += 1
        scored = ws.planned % spla.tuning.current().speculative_check_every == 0
        done = not scored and ws.run_plan(s)
    if not done:
        ws.learn(*ws.run_levels(s), scored=scored)
    if acc is None:
        acc = ws.T.copy()  # acc = δ_s
    else:
        acc += ws.T  # acc += δ_s
    if endpoints:
        acc += ws.reached
        acc[s] += count_true(ws.reached) - 2  # the source counts its other reached vertices, not itself twice
    return acc
