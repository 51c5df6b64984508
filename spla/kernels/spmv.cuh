// spla/kernels/spmv.cuh -- semiring SpMV kernels of the spla GPU backend (the umbrella header).
//
//   y[j] = ADD_{i : u[i] != ADD.identity} MUL(u[i], A[i, j])          (vxm over the columns j of A)
//
// A is stored CSC (colptr (ncols+1,), rowidx (nnz,), vals (nnz,) or none for a pattern matrix whose
// entries are all 1) and, for scCOOC, also COOC (colidx (nnz,): the column of every stored entry).
// u is (nrows,) or a row-major block (nrows, k); y is (ncols,) or (ncols, k).  Every product kernel
// is a template over (spla_sccsc_tiles and spla_vecsc_rows add one bool; spla_merge,
// spla_vecsc_long_finish and the worklists take only Add, T and I; spla_vecsc_windows only I)
//
//     Add      the ADD monoid functor   (spla_add_plus, _min, _max, _lor, _bor, _any)
//     Mul      the MUL operator functor (spla_mul_times, _plus, _first, _second, _pair, _land,
//                                        _min, _max, _band); MUL(x, a): x from u, a from A
//     T        the domain (bool, int, long long, unsigned int, unsigned long long, float, double)
//     I        the index type of colptr/rowidx/colidx (int or long long)
//     PATTERN  true when A has no values (a == 1); vals is then never read
//
// The Python side (spla/backends/gpu/compile.py, name_expressions) instantiates them through
// CuPy/NVRTC name expressions such as "spla_sccsc<spla_add_plus, spla_mul_times, float, int, true>";
// tests/test_kernels_compile.py instantiates every combination the backend can request with nvcc.
// MUL(a, x) (mxv through A^T) is handled in Python by exchanging first and second; every other
// operator is commutative.
//
// This file only includes the kernel families below, in dependency order; every name expression and
// every loader points at it.  spla/backends/cuda_source.py inlines the includes (each file once)
// before NVRTC sees the text, so that CuPy's module cache, keyed by the source text, sees an edit of
// any part; nvcc resolves them itself.  Every part must stay compilable by NVRTC: no system #include,
// no standard library, only builtin types.  The output semantics shared by every kernel are at the top
// of spmv/reduce.cuh.
//
// See docs/kernels.md for the thread mappings and the bytes moved per arc.

#ifndef SPLA_SPMV_CUH
#define SPLA_SPMV_CUH

// Building blocks (no kernels)
#include "spmv/common.cuh"         // host constants, SPLA_BLOCK, loads, shuffles, limits, min / max
#include "spmv/atomics.cuh"        // atomic ADD / min / max / or on every domain, spla_atomic_update
#include "spmv/functors.cuh"       // ADD monoids and MUL operators
#include "spmv/reduce.cuh"         // mask test, output semantics, column / group / warp-chunk reductions

// Kernel families
#include "spmv/sccsc.cuh"          // spla_sccsc
#include "spmv/vecsc.cuh"          // spla_vecsc, spla_vecsc_long_chunks, spla_vecsc_long_finish
#include "spmv/vecsc_block.cuh"    // spla_vecsc_block, spla_vecsc_rows, spla_vecsc_rows_items
#include "spmv/sccooc.cuh"         // spla_sccooc
#include "spmv/tiles.cuh"          // spla_sccsc_tiles, spla_listed_chunks
#include "spmv/vecsc_windows.cuh"  // spla_vecsc_windows, spla_windows_scan
#include "spmv/worklists.cuh"      // spla_mask_worklist, spla_input_worklist
#include "spmv/push.cuh"           // spla_push, spla_push_long_chunks
#include "spmv/merge.cuh"          // spla_merge

#endif  // SPLA_SPMV_CUH
