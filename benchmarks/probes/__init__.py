"""Probes: small measurement programs, run on a GPU machine, that reproduce the measurements behind
the engine's tunables (``spla.tuning.Tuning``), its kernel-choice rules and its kernel designs.

Each runs from the repository root as ``PYTHONPATH=. python -m benchmarks.probes.<probe> [args]``;
``README.md`` beside this file indexes them.  They import without CuPy (it is imported when a probe
runs), so ``tests/test_probes.py`` checks every reference they make into the project on any machine.
"""
