"""``python -m benchmarks.stage``: copy the real benchmark graphs into benchmarks/data/graphs.

The device machine receives only the repository's working tree, not the
``../shared`` folder beside it.  This copies the few real graphs the harness
reads (about 8 MiB) into ``benchmarks/data/graphs`` (ignored by git through
benchmarks/.gitignore), keeping the shared folder's layout, so that a device run
can carry it (``carry: ["benchmarks/data"]``) and ``benchmarks.graphs.real`` finds
it there.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from .graphs import REAL_FILES, real_path

DEST = Path(__file__).resolve().parent / "data" / "graphs"


def main(argv: list[str] | None = None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or list(REAL_FILES)
    total = 0
    for name in names:
        try:
            src = real_path(name)
        except (FileNotFoundError, KeyError) as e:
            print(f"skip {name}: {e}", file=sys.stderr)
            continue
        dst = DEST / REAL_FILES[name]
        if src.resolve() == dst.resolve():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        total += dst.stat().st_size
        print(f"{name}: {dst} ({dst.stat().st_size / 2**20:.2f} MiB)")
    print(f"copied {total / 2**20:.1f} MiB into {DEST}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
