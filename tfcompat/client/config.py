"""Session configuration objects, accepted for compatibility.

XLA decides threading and memory; these record what was asked so code that builds them
(``tf.ConfigProto(allow_soft_placement=True, gpu_options=tf.GPUOptions(...))``) runs as is.
"""

from __future__ import annotations


class _Options:
    """Attribute bag that accepts TF's keyword arguments and nested option objects."""

    _defaults: dict = {}

    def __init__(self, **kwargs):
        for key, value in self._defaults.items():
            setattr(self, key, value() if callable(value) else value)
        for key, value in kwargs.items():
            setattr(self, key, value)

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class GPUOptions(_Options):
    _defaults = {
        "allow_growth": False,
        "per_process_gpu_memory_fraction": 0.0,
        "visible_device_list": "",
    }


class GraphOptions(_Options):
    _defaults = {}


class ConfigProto(_Options):
    _defaults = {
        "allow_soft_placement": False,
        "log_device_placement": False,
        "intra_op_parallelism_threads": 0,
        "inter_op_parallelism_threads": 0,
        "gpu_options": GPUOptions,
        "graph_options": GraphOptions,
        "device_count": dict,
    }


class RunOptions(_Options):
    FULL_TRACE = 3
    NO_TRACE = 0
    SOFTWARE_TRACE = 1
    HARDWARE_TRACE = 2
    _defaults = {"trace_level": 0, "timeout_in_ms": 0}


class RunMetadata(_Options):
    """After ``run(..., run_metadata=md)``, ``md.executable`` is the executable that ran."""

    _defaults = {"executable": None}
