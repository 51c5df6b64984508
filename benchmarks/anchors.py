"""Numbers measured by others, printed beside ours (never re-measured by the harness).

Sources: the project's issues #2 and #3 (TurboBC's own code built and run on an H200,
time per source as TurboBC reports it, which excludes upload and launch gaps;
NetworKit 11.2 on the same machine's 16 CPU cores; cuSPARSE on an H200).
Keys are the benchmark registry's graph names (benchmarks/graphs.py).
"""

#: TurboBC, single-source BC, best of its three kernels, ms per source (H200).
TURBOBC_SINGLE_MS = {
    "myc15": 0.25,
    "myc16": 0.58,
    "myc17": 1.12,
    "kron18": 1.09,
    "kron20": 4.17,
    "kron21": 9.21,
    "ws100k": 0.49,
    "ba1M_m4": 1.58,
    "grid400": 29.8,
}

#: Remarks on TurboBC's numbers.
TURBOBC_NOTES = {
    "grid400": "TurboBC's answer is wrong (shortest-path counts overflow; its BFS stops two levels short)",
    "ba20k_m4": "10.3 s wall clock",
}

#: TurboBC, exact BC over all sources, seconds (H200).
TURBOBC_ALL_S = {"myc12": 0.29, "ba20k_m4": 5.4}

#: NetworKit 11.2, 16 threads, exact BC over all sources, seconds.
NETWORKIT_BC_S = {"musae-facebook": 19.4, "email-Enron": 31.8, "ca-AstroPh": 14.7, "delaunay_n16": 111.0}

#: NetworKit 11.2, 16 threads, closeness of all vertices, seconds.
NETWORKIT_CLOSENESS_S = {"musae-facebook": 2.5, "email-Enron": 3.5, "ca-AstroPh": 1.9, "delaunay_n16": 13.0}

#: cuSPARSE CSR SpMV throughput measured on an H200, G arcs/s (range).
CUSPARSE_H200_GARCS = (170.0, 180.0)

#: The issues' performance targets, as used by the report's pass/fail column.
TARGETS = {
    "spmv_best_vs_cusparse": 0.8,       # best spla kernel throughput / cuSPARSE CSR SpMV
    "spmv_mask90_speedup": 4.0,         # unmasked time / 90%-masked time
    "spmv_block32_vs_k1": 8.0,          # arc*vectors/s at k=32 over k=1
    "bc_single_vs_turbobc_geomean": 1.5,  # on graphs with >= 1M arcs, each must be > 1
    "bc_all_vs_turbobc": 10.0,
    "bc_all_vs_networkit": 30.0,
    "closeness_vs_networkit": 30.0,
    "daccer_ba1M_m4_r1_ms": 50.0,
    "daccer_ba1M_m4_r2_ms": 1000.0,
    "pagerank_iter_vs_spmv": 1.5,       # one iteration / one cuSPARSE SpMV, at most
}

#: Other seeds, for the record (no comparable number to print).
NOTES = {
    "cudaccer": "CUDACCER ran 3-7x slower (median per minimum degree 1-4) than DACCER on 32 CPU "
                "cores (a 4-node OpenMP/MPI cluster) at radius 2; its layered neighbour lists "
                "(kernel FillEakD) took up to 98% of its time there.",
    "sriram": "Sriram et al. Table 1 used R-MAT scales 12-19 with 2^12 sampled sources.",
    "yin": "Yin et al. Table 3: Pearson correlations of BC, closeness and PageRank on "
           "musae-facebook and wave.",
}
