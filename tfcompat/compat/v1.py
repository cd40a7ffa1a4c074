"""``tf.compat.v1``: the same TF1 namespace as ``tfcompat`` itself."""

import sys as _sys

import tfcompat as _tf

for _name in dir(_tf):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_tf, _name)

_sys.modules[__name__ + ".compat"] = _sys.modules["tfcompat.compat"]
