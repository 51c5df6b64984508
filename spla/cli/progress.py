"""The progress bar the ``spla`` command draws on a terminal while a measure runs."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    """``progress(done, total)`` callable drawing a bar with an ETA on a terminal.

    Draws nothing unless ``enabled`` (the CLI enables it when stderr is a TTY and not
    --quiet).  Redraws at most ten times a second; :meth:`close` erases the bar.
    """

    def __init__(self, label: str, stream=None, enabled: bool = True, width: int = 30):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.width = width
        self.start = time.perf_counter()
        self._last = 0.0
        self._drawn = 0

    def __call__(self, done, total):
        if not self.enabled or not total:
            return
        now = time.perf_counter()
        done, total = int(done), int(total)
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        frac = min(max(done / total, 0.0), 1.0)
        elapsed = now - self.start
        eta = elapsed * (1 - frac) / frac if frac > 0 else None
        fill = int(round(self.width * frac))
        line = (f"{self.label:<13}[{'#' * fill}{'-' * (self.width - fill)}] {100 * frac:5.1f}% "
                f"{done}/{total}  {_clock(elapsed)} elapsed, ETA {_clock(eta) if eta is not None else '?'}")
        self.stream.write("\r" + line.ljust(self._drawn))
        self.stream.flush()
        self._drawn = len(line)

    def close(self):
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0


def _clock(seconds) -> str:
    seconds = int(round(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
