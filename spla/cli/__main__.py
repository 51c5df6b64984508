"""``python -m spla.cli``: the same as the ``spla`` command."""

import sys

from spla.cli import main

sys.exit(main())
