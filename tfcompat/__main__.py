"""``python -m tfcompat``: the ``tfcompat`` command (see ``tfcompat.cli``)."""

import sys

from tfcompat.cli import main

sys.exit(main())
