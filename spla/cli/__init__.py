"""The ``spla`` command: every centrality of a graph file, from the shell.

    spla centrality [GRAPH] [--measures bc,closeness,...|all] [--weight [NAME]] [--out FILE] [--top N] ...
    spla info [GRAPH] [--weight [NAME]]

With no GRAPH both run on the bundled US power grid (``spla/data/power.graph.gz``).
See ``docs/cli.md`` for the options and examples.

Conventions
-----------
* Results go to ``--out FILE`` (CSV; TSV for ``.tsv``/``.tab``/``.txt``; ``.gz`` compresses;
  Parquet for ``.parquet``; any other name is refused) or to stdout as CSV (``--out -``, or no
  ``--out`` when stdout is not a terminal: on a terminal a line says how to get the rows): one
  row per vertex, labelled with the file's own vertex ids, byte for byte.  A file is written
  under a temporary name in the same directory, made before computing and renamed when
  complete, so a failure or Ctrl-C never leaves a truncated file or clobbers an existing one.
  The input graph file and the package's data folder (the bundled graph's) are never written.
* Everything else (graph size, directedness and why, device, kernel and why, timings,
  top-N tables, correlations, progress bars) goes to stderr.  Labels and file names reach a
  terminal with their non-printable characters escaped (:mod:`.text`).
* Bad input gets one line ``spla: error: ...`` on stderr and exit status 2, and so does a size
  (a Matrix Market size line, a METIS header, the measures' vectors) that needs more memory than is
  available: it is checked before anything is allocated (:func:`spla.memory.require`); PageRank that
  does not converge within ``--max-iter`` exits 3; Ctrl-C exits with 130, SIGTERM with 143; an unexpected
  failure prints ``spla: internal error: ...`` and exits 1 (``SPLA_DEBUG=1`` shows its
  traceback).
* Self-loops count where networkx counts them: in pagerank (an arc i -> i), degree (twice)
  and the degrees that daccer sums; bc, closeness, harmonic and distance-sum ignore them
  (they change no shortest path).  Their number is reported.  Edge weights are used by
  pagerank (they must then be finite and non-negative); with ``--weight`` they are also the arc
  lengths of bc, closeness, harmonic and distance-sum (weighted shortest paths, each pair its
  shortest parallel arc: the measures table's ``lengths`` keyword); daccer and degree run on the
  pattern.

Modules: :mod:`.args` (the parser), :mod:`.measures` (the registry of measures),
:mod:`.commands` (centrality and info), :mod:`.inputs` (the graph and the device),
:mod:`.output` (--out and the table), :mod:`.report` (stderr report, top-N tables,
correlations), :mod:`.memory` (info's memory estimates), :mod:`.progress` (the bar),
:mod:`.text` (escaping for the terminal), :mod:`.errors` (exit statuses).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

from spla.errors import ConvergenceError, SplaError
from spla.io import GraphFormatError

from .args import build_parser
from .commands import COMMANDS
from .errors import (EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_NOT_CONVERGED, EXIT_OK, EXIT_TERMINATED, EXIT_USAGE,
                     UsageError)
from .inputs import bundled_graph
from .measures import MEASURES, parse_measures
from .memory import estimate_device_memory
from .output import write_table
from .progress import ProgressBar
from .text import escape

__all__ = ["main", "MEASURES", "bundled_graph", "estimate_device_memory", "ProgressBar", "UsageError",
           "parse_measures", "write_table", "build_parser"]


def _error(message: str):
    text = " ".join(str(message).split())  # one line
    # control bytes from a binary file would reach the terminal: show them escaped (messages quote
    # labels with repr, which doubles their backslashes already)
    print(f"spla: error: {escape(text, backslashes=False)}", file=sys.stderr, flush=True)


class _Terminated(BaseException):
    """SIGTERM, raised where the process is, so that the output's cleanup runs as for Ctrl-C."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def main(argv=None) -> int:
    """Entry point of the ``spla`` command; returns the exit status."""
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if in_main_thread else None
    try:
        return _main(argv)
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def _main(argv) -> int:
    debug = bool(os.environ.get("SPLA_DEBUG"))
    parser = build_parser()
    command = None
    try:
        args = parser.parse_args(argv)
        command = args.command
        if command is None:
            _error("a command is required: 'spla centrality [GRAPH]' or 'spla info [GRAPH]' (see 'spla --help')")
            return EXIT_USAGE
        return COMMANDS[command](args)
    except KeyboardInterrupt:
        print("spla: interrupted", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    except _Terminated:
        print("spla: terminated", file=sys.stderr, flush=True)
        return EXIT_TERMINATED
    except UsageError as e:
        hint = f" (see 'spla {command} --help')" if command and "--" in str(e) else ""
        _error(f"{e}{hint}")
        return EXIT_USAGE
    except ConvergenceError as e:
        if debug:
            raise
        _error(f"{e} (spla centrality: --max-iter N, --tol T)")
        return EXIT_NOT_CONVERGED
    except (GraphFormatError, SplaError, ValueError) as e:
        if debug:
            raise
        _error(str(e))
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader of stdout went away (e.g. `spla centrality | head`): not an error
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except MemoryError:
        if debug:
            raise
        _error("out of memory; try a smaller graph, --samples K, or another --device")
        return EXIT_INTERNAL
    except Exception as e:  # a bug: say so in one line, traceback on request
        if debug:
            raise
        print(f"spla: internal error: {type(e).__name__}: {' '.join(str(e).split())} "
              f"(set SPLA_DEBUG=1 for the traceback)", file=sys.stderr, flush=True)
        return EXIT_INTERNAL
