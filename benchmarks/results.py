"""The results files of ``python -m benchmarks``: finding them and merging a device's files.

``benchmarks/results/<device-slug>/<date>.json`` holds one day's runs on one device.  Several files
of one device are merged section by section: for each section, the file given last that has it
wins, so separate runs of ``--only`` sections combine and each section shows its newest run.
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def default_inputs(results_dir: Path = RESULTS_DIR) -> list[Path]:
    """Every results JSON of every device folder under ``results_dir``, oldest first (merged by
    :func:`merge`, each section shows its newest run)."""
    out = []
    if results_dir.is_dir():
        for d in sorted(results_dir.iterdir()):
            out.extend(sorted(d.glob("*.json")))
    return out


def merge(paths: list[Path]) -> dict[str, dict]:
    """Merge result files per device slug (later files win section by section).  Each merged dict
    gets ``section_files``: the name of the file each section's records come from."""
    by_dev: dict[str, dict] = {}
    for p in paths:
        data = json.loads(Path(p).read_text())
        slug = data.get("device", {}).get("slug", "unknown")
        secs = {r.get("section") for r in data.get("records", [])}
        if slug not in by_dev:
            data["section_files"] = {s: Path(p).name for s in secs if s}
            by_dev[slug] = data
            continue
        cur = by_dev[slug]
        cur["records"] = [r for r in cur["records"] if r.get("section") not in secs] + data.get("records", [])
        cur.setdefault("sections", {}).update(data.get("sections", {}))
        for name, g in data.get("graphs", {}).items():
            cur.setdefault("graphs", {}).setdefault(name, {}).update(g)
        cur["runs"] = cur.get("runs", []) + data.get("runs", [])
        cur["date"] = max(cur.get("date", ""), data.get("date", ""))
        cur["device"] = data.get("device", cur.get("device"))
        cur["section_files"].update({s: Path(p).name for s in secs if s})
    return by_dev
