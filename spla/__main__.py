"""``python -m spla``: the same as the ``spla`` command (see :mod:`spla.cli`)."""

import sys

from spla.cli import main

sys.exit(main())
