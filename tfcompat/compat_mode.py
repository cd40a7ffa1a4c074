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


def executing_eagerly_outside_functions() -> bool:
    return False


def disable_control_flow_v2():
    """Accepted: tfcompat builds TF1 control flow (Switch / Merge / Enter / Exit)."""


def enable_control_flow_v2():
    raise NotImplementedError(
        "tfcompat builds TF1 control flow (Switch/Merge/Enter/Exit) only; graphs with TF2's "
        "functional While/If are not built here"
    )


def control_flow_v2_enabled() -> bool:
    return False


def disable_v2_tensorshape():
    """Accepted: tfcompat's TensorShape holds TF1 ``Dimension`` objects."""


def enable_v2_tensorshape():
    raise NotImplementedError("tfcompat's TensorShape follows TF1 (Dimension objects) only")


def disable_tensor_equality():
    """Accepted: tfcompat's Tensors compare by identity, as in TF1."""


def enable_tensor_equality():
    raise NotImplementedError("tfcompat's Tensors compare by identity (TF1) only")
