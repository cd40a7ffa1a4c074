"""Numpy reference kernels of nn ops: activations, bias add, softmax, cross entropy, top-k.

Where TF's CPU kernels check values at run time (labels in range, ``k`` not above the
dimension) these kernels raise the same InvalidArgumentError.
"""

from __future__ import annotations

import numpy as np

from lowering.registry import REFERENCE, elementwise, reference
from tfcompat.framework import errors


def _like(x, value):
    """``value`` as an array of ``x``'s dtype (results of float64 math are cast back)."""
    return np.asarray(value).astype(x.dtype)


def _f64(x):
    return np.asarray(x, dtype=np.float64)


def _selu(x):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    v = _f64(x)
    return _like(x, scale * np.where(v < 0, alpha * np.expm1(v), v))


def _softplus(x):
    # Exact log(1 + exp(x)) in float64; np.logaddexp avoids the overflow of exp(x).
    with np.errstate(invalid="ignore"):  # NaN in, NaN out
        return _like(x, np.logaddexp(_f64(x), 0.0))


elementwise(
    REFERENCE,
    {
        "Relu": lambda x: np.where(x < 0, np.zeros_like(x), x),
        "Relu6": lambda x: np.where(x < 0, np.zeros_like(x), np.where(x > 6, _like(x, 6), x)),
        "Elu": lambda x: _like(x, np.where(_f64(x) < 0, np.expm1(_f64(x)), _f64(x))),
        "Selu": _selu,
        "Softplus": _softplus,
        "Softsign": lambda x: _like(x, _f64(x) / (1.0 + np.abs(_f64(x)))),
        "L2Loss": lambda t: _like(t, np.sum(np.square(_f64(t))) / 2.0),
    },
)


def _alpha(op):
    """TF's kernels hold float attrs as C++ floats: alpha is rounded to float32."""
    return float(np.float32(op.attrs["alpha"]))


@reference("LeakyRelu")
def _leaky_relu(ctx, op, x):
    return _like(x, np.where(x > 0, _f64(x), _f64(x) * _alpha(op)))


# Fused activation gradients, in float64 and cast back.
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _grad_kernel(f):
    """A kernel ``(gradients, x) -> f(gradients, x)`` computed in float64 and cast to the
    gradients' dtype."""
    return lambda g, x: _like(g, f(_f64(g), _f64(x)))


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


elementwise(
    REFERENCE,
    {
        # Masks keep g's dtype exactly (int64 gradients do not survive float64).
        "ReluGrad": lambda g, x: np.where(x > 0, g, np.zeros_like(g)),
        "Relu6Grad": lambda g, x: np.where((x > 0) & (x < 6), g, np.zeros_like(g)),
        "EluGrad": _grad_kernel(lambda g, y: np.where(y < 0, g * (y + 1.0), g)),
        "SeluGrad": _grad_kernel(
            lambda g, y: np.where(y < 0, g * (y + _SELU_SCALE * _SELU_ALPHA), g * _SELU_SCALE)
        ),
        "SoftplusGrad": _grad_kernel(lambda g, x: g * _sigmoid(x)),
        "SoftsignGrad": _grad_kernel(lambda g, x: g / np.square(1.0 + np.abs(x))),
    },
)


@reference("LeakyReluGrad")
def _leaky_relu_grad(ctx, op, g, x):
    return _like(g, np.where(_f64(x) > 0, _f64(g), _f64(g) * _alpha(op)))


@reference("BiasAdd", "BiasAddV1")
def _bias_add(ctx, op, value, bias):
    channel_axis = 1 if op.attrs.get("data_format", b"NHWC") == b"NCHW" else value.ndim - 1
    shape = [1] * value.ndim
    shape[channel_axis] = -1
    return _like(value, value + np.reshape(bias, shape))


@reference("BiasAddGrad")
def _bias_add_grad(ctx, op, out_backprop):
    channel_axis = 1 if op.attrs["data_format"] == b"NCHW" else out_backprop.ndim - 1
    axes = tuple(a for a in range(out_backprop.ndim) if a != channel_axis)
    # Integers sum in their own type (wrapping as TF's kernel does); floats and complex
    # numbers in double precision, cast back.
    wide = {"f": np.float64, "c": np.complex128}.get(out_backprop.dtype.kind)
    if wide is None:
        return np.sum(out_backprop, axis=axes, dtype=out_backprop.dtype)
    return _like(out_backprop, np.sum(out_backprop.astype(wide), axis=axes))


@reference("PreventGradient")
def _prevent_gradient(ctx, op, x):
    return x


def _log_softmax64(logits):
    """Log-softmax over the last axis in float64."""
    v = _f64(logits)
    if v.size == 0:
        return v
    m = np.max(v, axis=-1, keepdims=True)
    return v - m - np.log(np.sum(np.exp(v - m), axis=-1, keepdims=True))


@reference("Softmax")
def _softmax(ctx, op, logits):
    return _like(logits, np.exp(_log_softmax64(logits)))


@reference("LogSoftmax")
def _log_softmax(ctx, op, logits):
    return _like(logits, _log_softmax64(logits))


@reference("SoftmaxCrossEntropyWithLogits")
def _xent(ctx, op, features, labels):
    features, labels = np.broadcast_arrays(features, labels)
    log_probs = _log_softmax64(features)
    loss = -np.sum(_f64(labels) * log_probs, axis=-1)
    return _like(features, loss), _like(features, np.exp(log_probs) - _f64(labels))


@reference("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent(ctx, op, features, labels):
    num_classes = features.shape[-1]
    bad = (labels < 0) | (labels >= num_classes)
    if np.any(bad):
        first = int(labels[np.argmax(bad)])
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Received a label value of {first} which is outside the valid range of "
            f"[0, {num_classes}).  Label values: {' '.join(str(int(v)) for v in labels)}",
        )
    log_probs = _log_softmax64(features)
    rows = np.arange(labels.shape[0])
    loss = -log_probs[rows, labels]
    backprop = np.exp(log_probs)
    backprop[rows, labels] -= 1.0
    return _like(features, loss), _like(features, backprop)


@reference("TopKV2")
def _top_k(ctx, op, x, k):
    k = int(k)
    if k < 0:
        raise errors.InvalidArgumentError(None, op, f"Need k >= 0, got {k}")
    n = x.shape[-1]
    if n < k:
        raise errors.InvalidArgumentError(
            None, op, f"input must have at least k columns. Had {n}, needed {k}"
        )
    # Descending order with ties in index order: a stable ascending sort of the reversed
    # row, read backwards. numpy sorts NaN last, so it comes out first (largest), as in TF.
    ascending = np.argsort(x[..., ::-1], axis=-1, kind="stable")
    indices = (n - 1 - ascending[..., ::-1])[..., :k]
    values = np.take_along_axis(x, indices, axis=-1)
    return values, indices.astype(op.attrs["index_type"].as_numpy_dtype)
