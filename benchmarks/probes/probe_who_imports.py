"""Which import chain loads a module (default networkx) during one CLI run.

    PYTHONPATH=. python3 tools/probe_who_imports.py GRAPH [--device gpu] [--module networkx]
"""
import argparse
import sys
import traceback

ap = argparse.ArgumentParser()
ap.add_argument("graph")
ap.add_argument("--device", default="gpu")
ap.add_argument("--module", default="networkx")
a = ap.parse_args()


class Finder:
    def find_spec(self, name, path=None, target=None):
        if name == a.module:
            print(f"--- {a.module} imported from:", flush=True)
            traceback.print_stack(limit=25, file=sys.stdout)
        return None


sys.meta_path.insert(0, Finder())
from spla import cli  # noqa: E402

rc = cli.main(["centrality", a.graph, "--device", a.device, "--out", "/tmp/o.csv", "--quiet", "--correlations"])
print("rc", rc, a.module in sys.modules)
