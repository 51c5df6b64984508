"""Compare two benchmark results files measurement by measurement: ``python tools/bench_ab.py OLD NEW``.

OLD and NEW are results folders or JSON files written by ``python -m benchmarks`` (two trees timed
on one device, one after the other).  Prints, per timed measurement present in both, the median
times and their ratio new/old, then the geometric mean of the ratios per section.
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from pathlib import Path

#: fields that say what was measured (the rest are results)
KEY_FIELDS = ("section", "graph", "measure", "system", "kernel", "k", "radius", "sources", "batch",
              "mask", "iterations", "variant", "what")


def records(path: Path) -> dict:
    files = [path] if path.is_file() else sorted(path.rglob("*.json"))
    out = {}
    for f in files:
        for r in json.loads(f.read_text()).get("records", []):
            if r.get("status") == "ok" and isinstance(r.get("median_ms"), (int, float)):
                out[tuple((k, str(r.get(k))) for k in KEY_FIELDS if k in r)] = r
    return out


def main(argv=None) -> int:
    old_path, new_path = (Path(a) for a in (argv or sys.argv[1:]))
    old, new = records(old_path), records(new_path)
    ratios = defaultdict(list)
    print(f"{'measurement':90s} {'old ms':>10s} {'new ms':>10s} {'new/old':>8s}")
    for key in sorted(set(old) & set(new)):
        a, b = old[key]["median_ms"], new[key]["median_ms"]
        if a <= 0 or b <= 0:
            continue
        ratio = b / a
        ratios[dict(key)["section"]].append(ratio)
        label = " ".join(f"{v}" for k, v in key if k != "section")
        print(f"{dict(key)['section'] + ' ' + label:90.90s} {a:10.4f} {b:10.4f} {ratio:8.3f}")
    print()
    every = [r for rs in ratios.values() for r in rs]
    for section, rs in sorted(ratios.items()) + [("all", every)]:
        if rs:
            gm = math.exp(sum(math.log(r) for r in rs) / len(rs))
            print(f"{section:12s} {len(rs):4d} measurements  geomean new/old {gm:.3f}  "
                  f"range {min(rs):.3f}-{max(rs):.3f}")
    print(f"only in old: {len(set(old) - set(new))}, only in new: {len(set(new) - set(old))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
