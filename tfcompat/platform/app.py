"""``tf.app`` / ``tf.flags`` (TF1): TF's are absl's ``app`` and ``flags``; ``tf.app.run``
parses the command line tolerating flags nobody defined, then calls ``main(argv)``."""

from __future__ import annotations

import sys

from absl import app as _absl_app
from absl import flags

from tfcompat.util.tf_export import export_constant, tf_export

export_constant(flags, "flags", "app.flags")


def _parse_flags_tolerate_undef(argv):
    return flags.FLAGS(sys.argv if argv is None else argv, known_only=True)


@tf_export("app.run")
def run(main=None, argv=None):
    """Parses flags from ``argv`` (default ``sys.argv``) and runs ``main`` (default the
    ``__main__`` module's ``main``), exiting with its result."""
    main = main or sys.modules["__main__"].main
    _absl_app.run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
