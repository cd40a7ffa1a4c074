"""JAX lowerings of nn ops: activations, bias add, softmax, cross entropy, top-k.

Data-dependent checks that TF's CPU kernels make at run time (a label outside
``[0, num_classes)``) cannot raise inside a jitted function; there these lowerings give
what TF's GPU kernels give (NaN rows), and the numpy reference kernels raise TF's error.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from lowering import static as static_lib
from lowering.registry import LOWERINGS, elementwise, lowering
from tfcompat.framework import errors

# SELU's constants, as in TF's kernel (from Klambauer et al., 2017).
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def static_int(op, index, value, what):
    """Input ``index`` as a Python int at trace time (see ``lowering.static``)."""
    return static_lib.static_int(op, index, value, what)


def _softplus(x):
    # TF's thresholds: beyond them log1p(exp(x)) equals x (or exp(x)) in x's precision.
    threshold = np.log(np.finfo(x.dtype).eps) + 2.0
    return jnp.where(x > -threshold, x, jnp.where(x < threshold, jnp.exp(x), jnp.log1p(jnp.exp(x))))


elementwise(
    LOWERINGS,
    {
        "Relu": lambda x: jnp.maximum(x, jnp.zeros((), x.dtype)),
        "Relu6": lambda x: jnp.minimum(
            jnp.maximum(x, jnp.zeros((), x.dtype)), jnp.full((), 6, x.dtype)
        ),
        "Elu": lambda x: jnp.where(x < 0, jnp.expm1(x), x),
        "Selu": lambda x: (SELU_SCALE * jnp.where(x < 0, SELU_ALPHA * jnp.expm1(x), x)).astype(
            x.dtype
        ),
        "Softplus": _softplus,
        "Softsign": lambda x: x / (1 + jnp.abs(x)),
        "L2Loss": lambda t: (jnp.sum(t * t) / 2).astype(t.dtype),
    },
)


def _float_attr(op, name):
    """A float attr as TF's kernels see it: a C++ float (float32), then cast to T; float64
    results differ from using the Python double (0.2 is not 0.2f)."""
    return np.float32(op.attrs[name])


@lowering("LeakyRelu")
def _leaky_relu(ctx, op, x):
    alpha = jnp.asarray(_float_attr(op, "alpha"), x.dtype)
    return jnp.where(x > 0, x, x * alpha)


# ---------------------------------------------------------------------------------------------
# Fused activation gradients: ``backprops = f(gradients, features or outputs)``. Written as
# plain jnp expressions so that JAX can differentiate them again (second derivatives).
# ---------------------------------------------------------------------------------------------
def _zero_like(x):
    return jnp.zeros((), x.dtype)


elementwise(
    LOWERINGS,
    {
        "ReluGrad": lambda g, x: jnp.where(x > 0, g, _zero_like(g)),
        "Relu6Grad": lambda g, x: jnp.where((x > 0) & (x < 6), g, _zero_like(g)),
        "EluGrad": lambda g, y: jnp.where(y < 0, g * (y + 1), g),
        "SeluGrad": lambda g, y: jnp.where(
            y < 0, g * (y + SELU_SCALE * SELU_ALPHA), g * SELU_SCALE
        ).astype(g.dtype),
        "SoftplusGrad": lambda g, x: g * jax.nn.sigmoid(x),
        "SoftsignGrad": lambda g, x: g / jnp.square(1 + jnp.abs(x)),
    },
)


@lowering("LeakyReluGrad")
def _leaky_relu_grad(ctx, op, g, x):
    return jnp.where(x > 0, g, g * jnp.asarray(_float_attr(op, "alpha"), g.dtype))


@lowering("BiasAdd", "BiasAddV1")
def _bias_add(ctx, op, value, bias):
    if op.attrs.get("data_format", b"NHWC") == b"NCHW":
        bias = bias.reshape((bias.shape[0],) + (1,) * (value.ndim - 2))
    return value + bias


def _bias_reduction_axes(op, ndim):
    channel = 1 if op.attrs["data_format"] == b"NCHW" else ndim - 1
    return tuple(a for a in range(ndim) if a != channel)


@lowering("BiasAddGrad")
def _bias_add_grad(ctx, op, out_backprop):
    return jnp.sum(out_backprop, axis=_bias_reduction_axes(op, out_backprop.ndim)).astype(
        out_backprop.dtype
    )


@lowering("PreventGradient")
def _prevent_gradient(ctx, op, x):
    return x


# ---------------------------------------------------------------------------------------------
# Softmax family: shift by the row maximum so exp never overflows
# ---------------------------------------------------------------------------------------------
def _shifted(logits):
    if logits.size == 0:
        return logits  # no rows, or empty rows: there is no maximum to shift by
    return logits - lax.stop_gradient(jnp.max(logits, axis=-1, keepdims=True))


@lowering("Softmax")
def _softmax(ctx, op, logits):
    e = jnp.exp(_shifted(logits))
    return e / jnp.sum(e, axis=-1, keepdims=True)


@lowering("LogSoftmax")
def _log_softmax(ctx, op, logits):
    shifted = _shifted(logits)
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=-1, keepdims=True))


def _softmax_parts(logits):
    """(log-softmax, softmax) of rank-2 ``logits`` along the last axis."""
    shifted = _shifted(logits)
    e = jnp.exp(shifted)
    total = jnp.sum(e, axis=-1, keepdims=True)
    return shifted - jnp.log(total), e / total


@lowering("SoftmaxCrossEntropyWithLogits")
def _xent(ctx, op, features, labels):
    features, labels = jnp.broadcast_arrays(features, labels)
    log_probs, probs = _softmax_parts(features)
    loss = -jnp.sum(labels * log_probs, axis=-1)
    return loss, probs - labels


@lowering("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent(ctx, op, features, labels):
    num_classes = features.shape[-1]
    log_probs, probs = _softmax_parts(features)
    valid = (labels >= 0) & (labels < num_classes)
    safe = jnp.where(valid, labels, 0).astype(jnp.int32)
    picked = jnp.take_along_axis(log_probs, safe[:, None], axis=-1)[:, 0]
    nan = jnp.asarray(jnp.nan, features.dtype)
    loss = jnp.where(valid, -picked, nan)
    one_hot = jax.nn.one_hot(safe, num_classes, dtype=features.dtype)
    backprop = jnp.where(valid[:, None], probs - one_hot, nan)
    return loss, backprop


# ---------------------------------------------------------------------------------------------
# TopKV2
# ---------------------------------------------------------------------------------------------
@lowering("TopKV2")
def _top_k(ctx, op, x, k):
    k = static_int(op, 1, k, "k")
    if k < 0:
        raise errors.InvalidArgumentError(None, op, f"Need k >= 0, got {k}")
    if x.shape[-1] < k:
        raise errors.InvalidArgumentError(
            None, op, f"input must have at least k columns. Had {x.shape[-1]}, needed {k}"
        )
    keys = x
    if jnp.issubdtype(x.dtype, jnp.floating):
        # TF compares -0.0 and 0.0 as equal (ties keep index order); XLA's sort orders
        # -0.0 below 0.0. The keys map both to 0.0; values come from ``x``.
        keys = jnp.where(x == 0, jnp.zeros((), x.dtype), x)
    _, indices = lax.top_k(keys, k)
    values = jnp.take_along_axis(x, indices, axis=-1)
    return values, indices.astype(op.attrs["index_type"].as_numpy_dtype)
