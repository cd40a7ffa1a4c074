"""TF2 behaviour switches that legacy scripts call; tfcompat is always TF1 graph mode."""

from __future__ import annotations


def disable_v2_behavior():
    """Accepted: tfcompat always has TF1 behaviour."""


def disable_eager_execution():
    """Accepted: tfcompat always builds graphs."""


def enable_v2_behavior():
    raise NotImplementedError("tfcompat implements the TF1 graph API only")


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    raise NotImplementedError("tfcompat implements the TF1 graph API only")


def executing_eagerly() -> bool:
    return False
