"""Benchmark harness of spla: ``python -m benchmarks`` runs it, ``python -m benchmarks.plot``
turns its JSON into plots and the tables of docs/benchmarks.md.  See benchmarks/README.md."""
