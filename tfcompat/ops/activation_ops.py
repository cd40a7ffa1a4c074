"""Activation ops (``Relu``, ``Elu``, ``Softplus``...), the fused gradient ops their
gradients build (``ReluGrad``, ``EluGrad``, ``SoftplusGrad``...), and the gradients of both,
so that second derivatives exist wherever TF has them.

OpDefs follow ``tensorflow/core/ops/nn_ops.cc``; gradient functions build the ops TF 2.21's
``nn_grad`` builds, under the same names. ``nn_ops`` re-exports the wrappers.
"""

from __future__ import annotations

import numpy as np

from tfcompat.framework import dtypes
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.util.tf_export import tf_export

_FLOAT = "{half, bfloat16, float, double}"


def _unchanged(op):
    return [op.inputs[0].shape]


def _merge_both_inputs(op):
    """TF's ``MergeBothInputsShapeFn``: both inputs have one shape, which is the output's;
    errors are worded as TF's shape merge words them."""
    a, b = op.inputs[0].shape, op.inputs[1].shape
    if a.rank is None:
        return [b]
    if b.rank is None:
        return [a]
    if a.rank != b.rank:
        raise ValueError(f"Shapes must be equal rank, but are {a.rank} and {b.rank}")
    merged = []
    for i, (da, db) in enumerate(zip(a.as_list(), b.as_list())):
        if da is not None and db is not None and da != db:
            raise ValueError(
                f"Dimension {i} in both shapes must be equal, but are {da} and {db}. "
                f"Shapes are {_text(a)} and {_text(b)}."
            )
        merged.append(da if da is not None else db)
    return [TensorShape(merged)]


def _text(shape: TensorShape) -> str:
    if shape.rank is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


# ---------------------------------------------------------------------------------------------
# Activations: elementwise, one input ``features`` and one output ``activations``
# ---------------------------------------------------------------------------------------------
# op type -> allowed types of T, as in nn_ops.cc
_ACTIVATION_TYPES = {
    "Relu": "{realnumbertype, qint8}",
    "Relu6": "realnumbertype",
    "Elu": _FLOAT,
    "Selu": _FLOAT,
    "Softplus": _FLOAT,
    "Softsign": _FLOAT,
}
for _op_type, _types in _ACTIVATION_TYPES.items():
    register_op(
        _op_type,
        inputs=["features: T"],
        outputs=["activations: T"],
        attrs=[f"T: {_types}"],
        shape_fn=_unchanged,
    )

register_op(
    "LeakyRelu",
    inputs=["features: T"],
    outputs=["activations: T"],
    attrs=["alpha: float = 0.2", f"T: {_FLOAT} = float"],
    shape_fn=_unchanged,
)


def _activation(op_type, features, name):
    return apply_op(op_type, name=name, features=features).outputs[0]


@tf_export("nn.relu")
def relu(features, name=None):
    """``max(features, 0)``."""
    return _activation("Relu", features, name)


@tf_export("nn.relu6")
def relu6(features, name=None):
    """``min(max(features, 0), 6)``."""
    return _activation("Relu6", features, name)


@tf_export("nn.elu")
def elu(features, name=None):
    """``features`` where positive, ``exp(features) - 1`` elsewhere."""
    return _activation("Elu", features, name)


@tf_export("nn.selu")
def selu(features, name=None):
    """Scaled ELU: ``scale * (features if > 0 else alpha * (exp(features) - 1))``."""
    return _activation("Selu", features, name)


@tf_export("nn.softplus", "math.softplus")
def softplus(features, name=None):
    """``log(exp(features) + 1)``, computed without overflow."""
    return _activation("Softplus", features, name)


@tf_export("nn.softsign", "math.softsign")
def softsign(features, name=None):
    """``features / (abs(features) + 1)``."""
    return _activation("Softsign", features, name)


@tf_export("nn.leaky_relu")
def leaky_relu(features, alpha=0.2, name=None):
    """``features`` where positive, ``alpha * features`` elsewhere; integer inputs are cast
    to float32 first, as TF does."""
    with name_scope(name, "LeakyRelu", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            from tfcompat.ops import math_ops

            features = math_ops.cast(features, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        return apply_op("LeakyRelu", name=scope, features=features, alpha=alpha).outputs[0]


# ---------------------------------------------------------------------------------------------
# Fused gradient ops: ``backprops = f(gradients, features or outputs)``, elementwise
# ---------------------------------------------------------------------------------------------
# op type -> (name of the second input, allowed types of T), as in nn_ops.cc
_GRAD_OPS = {
    "ReluGrad": ("features", "realnumbertype"),
    "Relu6Grad": ("features", "realnumbertype"),
    "EluGrad": ("outputs", _FLOAT),
    "SeluGrad": ("outputs", _FLOAT),
    "SoftplusGrad": ("features", _FLOAT),
    "SoftsignGrad": ("features", _FLOAT),
}
for _op_type, (_second, _types) in _GRAD_OPS.items():
    register_op(
        _op_type,
        inputs=["gradients: T", f"{_second}: T"],
        outputs=["backprops: T"],
        attrs=[f"T: {_types}"],
        shape_fn=_merge_both_inputs,
    )

register_op(
    "LeakyReluGrad",
    inputs=["gradients: T", "features: T"],
    outputs=["backprops: T"],
    attrs=["alpha: float = 0.2", f"T: {_FLOAT} = float"],
    shape_fn=_merge_both_inputs,
)


def _fused_grad(op_type, gradients, second, **attrs):
    """``op_type(gradients, second)``; the second input is named as the OpDef names it."""
    second_name = _GRAD_OPS[op_type][0] if op_type in _GRAD_OPS else "features"
    keywords = {"gradients": gradients, second_name: second, **attrs}
    return apply_op(op_type, **keywords).outputs[0]


# ---------------------------------------------------------------------------------------------
# Gradients of the activations
# ---------------------------------------------------------------------------------------------
def _grad_from_output(grad_op_type):
    """Gradient ``grad_op_type(grad, y)`` of an activation whose derivative is a function
    of its output ``y`` (Relu, Relu6, Elu, Selu)."""

    def grad_fn(op, grad):
        return _fused_grad(grad_op_type, grad, op.outputs[0])

    return grad_fn


for _op_type in ("Relu", "Relu6", "Elu", "Selu"):
    RegisterGradient(_op_type)(_grad_from_output(_op_type + "Grad"))


@RegisterGradient("LeakyRelu")
def _leaky_relu_grad(op, grad):
    return _fused_grad("LeakyReluGrad", grad, op.inputs[0], alpha=op.attrs["alpha"])


@RegisterGradient("Softplus")
def _softplus_grad(op, grad):
    from tfcompat.ops import math_ops

    return grad * math_ops.sigmoid(op.inputs[0])


@RegisterGradient("Softsign")
def _softsign_grad(op, grad):
    return _fused_grad("SoftsignGrad", grad, op.inputs[0])


# ---------------------------------------------------------------------------------------------
# Gradients of the fused gradient ops (second derivatives). TF registers none for
# SoftsignGrad.
# ---------------------------------------------------------------------------------------------
def _piecewise_linear_grad_grad(op, grad):
    """ReluGrad, Relu6Grad and LeakyReluGrad are linear in ``gradients`` with a slope that
    is piecewise constant in ``features``: the features get a zero gradient."""
    from tfcompat.ops import array_ops

    x = op.inputs[1]
    attrs = {"alpha": op.attrs["alpha"]} if "alpha" in op.attrs else {}
    return _fused_grad(op.type, grad, x, **attrs), array_ops.zeros_like(x)


for _op_type in ("ReluGrad", "Relu6Grad", "LeakyReluGrad"):
    RegisterGradient(_op_type)(_piecewise_linear_grad_grad)


def _exponential_grad_grad(op, grad):
    """EluGrad and SeluGrad: on the negative side the slope is ``outputs + constant``, so
    the outputs get ``grad * gradients`` there."""
    from tfcompat.ops import array_ops, math_ops

    dy, y = op.inputs
    return (
        _fused_grad(op.type, grad, y),
        math_ops.where(y < 0.0, grad * dy, array_ops.zeros_like(y)),
    )


for _op_type in ("EluGrad", "SeluGrad"):
    RegisterGradient(_op_type)(_exponential_grad_grad)


@RegisterGradient("SoftplusGrad")
def _softplus_grad_grad(op, grad):
    # SoftplusGrad(dy, x) = dy * sigmoid(x): its derivative in x is
    # dy * sigmoid'(x) = dy / (exp(-x) + 2 + exp(x)).
    from tfcompat.ops import math_ops

    dy, x = op.inputs
    with op.graph.control_dependencies([grad]):
        ddy = _fused_grad("SoftplusGrad", grad, x)
        d2x = grad * dy / (math_ops.exp(-x) + 2.0 + math_ops.exp(x))
        return ddy, d2x
