"""Benchmark harness of spla: ``python -m benchmarks`` runs it, ``python -m benchmarks.plot`` draws
its plots and ``python -m benchmarks.docs`` writes docs/benchmarks.md.  See benchmarks/README.md."""
