"""Registered gradients of the nn, sort and segment ops against an independent derivation:
``jax.vjp`` of their lowerings (``lowering.gradcheck.check_gradients``) for device ops, and
central finite differences for the host ops (sorted ``Segment*``) and for
``UnsortedSegmentProd`` (JAX cannot differentiate a multiplying scatter with repeated ids).

Every differentiable op of the family is covered, in float32 and float64, over shapes and
attrs; second derivatives (the gradients of the fused ``*Grad`` ops) likewise. Inputs of
piecewise ops stay away from their kinks, where the two derivations may legitimately pick
different one-sided derivatives.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat as tf
from lowering.gradcheck import check_gradients
from tfcompat.framework.gradient_registry import GRADIENTS
from tfcompat.framework.op_helper import apply_op

_DTYPES = [np.float32, np.float64]
_TOLERANCE = {np.float32: (3e-5, 3e-4), np.float64: (1e-10, 1e-8)}


def away_from(kinks, shape, seed, low=-8.0, high=8.0, margin=0.1):
    """Uniform values in ``[low, high)`` none of which lies within ``margin`` of a kink."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(low, high, size=shape)
    for kink in kinks:
        near = np.abs(values - kink) < margin
        values[near] = kink + np.where(values[near] < kink, -margin, margin) * 2
    return values


def distinct(shape, seed):
    """Values with no ties, at least 0.1 apart (max/min/top-k pick a unique entry)."""
    rng = np.random.default_rng(seed)
    return (rng.permutation(int(np.prod(shape))) * 0.1 - 1.0).reshape(shape)


def distribution(shape, seed):
    """Rows that are probability distributions (cross entropy's labels)."""
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])


def normal(shape, seed):
    return np.random.default_rng(seed).normal(size=shape)


@dataclasses.dataclass
class Case:
    """``build(tf, *xs)`` of placeholders with ``values`` (one array per x): the ys."""

    name: str
    build: Callable
    values: Callable  # seed -> list of arrays

    def __str__(self):
        return self.name


def raw(op_type, output=0, **attrs):
    """A builder calling op ``op_type`` directly: inputs are the xs in OpDef order."""

    def build(tf, *xs):
        from tfcompat.framework.op_def import get_op_def

        names = [a.name for a in get_op_def(op_type).inputs]
        outputs = apply_op(op_type, **dict(zip(names, xs)), **attrs).outputs
        return outputs if output is None else outputs[output]

    return build


def _activation_cases():
    kinks = {"relu": [0.0], "relu6": [0.0, 6.0], "leaky_relu": [0.0], "elu": [0.0], "selu": [0.0]}
    for name in ("relu", "relu6", "elu", "selu", "softplus", "softsign"):
        points = kinks.get(name, [])
        yield Case(
            name,
            lambda tf, x, name=name: getattr(tf.nn, name)(x),
            lambda seed, points=points: [away_from(points, (3, 5), seed)],
        )
    for alpha in (0.2, 0.01, 1.5):
        yield Case(
            f"leaky_relu-{alpha}",
            lambda tf, x, alpha=alpha: tf.nn.leaky_relu(x, alpha),
            lambda seed: [away_from([0.0], (4, 3), seed)],
        )
    yield Case(
        "softplus-large",  # beyond softplus' thresholds both branches must still agree
        lambda tf, x: tf.nn.softplus(x),
        lambda seed: [np.array([-40.0, -15.0, -1.0, 1.0, 15.0, 40.0])],
    )


_SPARSE_LABELS = np.array([0, 3, 1, 3])
_IDS = np.array([0, 2, -1, 2, 0, 1])  # a negative id: the entry is dropped
_IDS_2D = np.array([[1, 0, 1], [-1, 2, 0]])


def _sparse_xent(output=None):
    return lambda tf, f: raw("SparseSoftmaxCrossEntropyWithLogits", output, labels=_SPARSE_LABELS)(
        tf, f
    )


def _device_cases():
    yield from _activation_cases()
    for shape in [(4, 3), (2, 3, 5)]:
        yield Case(
            f"bias_add-{shape}",
            lambda tf, v, b: tf.nn.bias_add(v, b),
            lambda seed, shape=shape: [normal(shape, seed), normal(shape[-1:], seed + 1)],
        )
    for shape in [(2, 3, 4), (2, 3, 2, 2)]:
        yield Case(
            f"bias_add-NCHW-{shape}",
            lambda tf, v, b: tf.nn.bias_add(v, b, data_format="NCHW"),
            lambda seed, shape=shape: [normal(shape, seed), normal(shape[1:2], seed + 1)],
        )
    yield Case(
        "BiasAddV1",
        raw("BiasAddV1"),
        lambda seed: [normal((2, 3, 4), seed), normal((4,), seed + 1)],
    )
    for shape in [(5,), (3, 4), (2, 3, 4)]:
        for name in ("softmax", "log_softmax"):
            yield Case(
                f"{name}-{shape}",
                lambda tf, x, name=name: getattr(tf.nn, name)(x),
                lambda seed, shape=shape: [normal(shape, seed)],
            )
    yield Case(
        "SoftmaxCrossEntropyWithLogits-loss",
        raw("SoftmaxCrossEntropyWithLogits"),
        lambda seed: [normal((4, 5), seed), distribution((4, 5), seed + 1)],
    )
    yield Case(
        "SparseSoftmaxCrossEntropyWithLogits-loss",
        _sparse_xent(0),
        lambda seed: [normal((4, 5), seed)],
    )
    yield Case(
        "SparseSoftmaxCrossEntropyWithLogits-both-outputs",
        _sparse_xent(None),
        lambda seed: [normal((4, 5), seed)],
    )
    yield Case("l2_loss", lambda tf, x: tf.nn.l2_loss(x), lambda seed: [normal((3, 4), seed)])
    for shape, k in [((6,), 3), ((3, 5), 2), ((2, 3, 4), 4)]:
        yield Case(
            f"top_k-{shape}-k{k}",
            lambda tf, x, k=k: tf.nn.top_k(x, k).values,
            lambda seed, shape=shape: [distinct(shape, seed)],
        )
    yield Case(
        "sort-axis0", lambda tf, x: tf.sort(x, axis=0), lambda seed: [distinct((4, 3), seed)]
    )
    for reduction in ("sum", "max", "min"):
        op_name = f"unsorted_segment_{reduction}"
        yield Case(
            op_name,
            lambda tf, d, op_name=op_name: getattr(tf.math, op_name)(d, _IDS, 4),
            lambda seed: [distinct((6, 2), seed)],
        )
        yield Case(
            f"{op_name}-2d-ids",
            lambda tf, d, op_name=op_name: getattr(tf.math, op_name)(d, _IDS_2D, 3),
            lambda seed: [distinct((2, 3, 2), seed)],
        )


def _check(case, dtype, seed=0):
    """Builds ``case`` on placeholders and compares the registered gradients with
    ``jax.vjp``, under a random cotangent so that transposition errors show."""
    values = [v.astype(dtype) for v in case.values(seed)]
    graph = tf.Graph()
    with graph.as_default():
        xs = [tf.placeholder(dtype, v.shape, name=f"x{i}") for i, v in enumerate(values)]
        feed = dict(zip(xs, values))
        ys = case.build(tf, *xs)
        ys_list = ys if isinstance(ys, list) else [ys]
        with tf.Session(graph=graph) as sess:
            y_values = sess.run(ys_list, feed)
        rng = np.random.default_rng(seed + 7)
        grad_ys = [tf.constant(rng.uniform(0.5, 1.5, np.shape(v)).astype(dtype)) for v in y_values]
        report = check_gradients(ys_list, xs, feed_dict=feed, grad_ys=grad_ys)
    report.assert_close(*_TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("case", list(_device_cases()), ids=str)
def test_gradient_matches_autodiff(case, dtype):
    _check(case, dtype)


@settings(max_examples=8, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    name=st.sampled_from(["softmax", "log_softmax", "softplus", "elu", "selu"]),
    seed=st.integers(0, 2**16),
)
def test_gradient_matches_autodiff_any_shape(shape, name, seed):
    """Hypothesis: random shapes and inputs (kept off Elu/Selu's kink at 0)."""
    case = Case(
        name,
        lambda tf, x: getattr(tf.nn, name)(x),
        lambda s: [away_from([0.0], tuple(shape), s, low=-4.0, high=4.0)],
    )
    _check(case, np.float64, seed)


# ---------------------------------------------------------------------------------------------
# Second derivatives: differentiate the gradient graph, which holds the fused *Grad ops
# ---------------------------------------------------------------------------------------------
def _gradient_of(forward, wrt=0):
    """A builder of ``tf.gradients(forward(*xs[:-1]), xs[wrt], grad_ys=xs[-1])``: the last x
    is the cotangent, so both of a fused gradient op's inputs are differentiated."""

    def build(tf, *xs):
        *inputs, dy = xs
        return tf.gradients(forward(tf, *inputs), inputs[wrt], grad_ys=dy)[0]

    return build


def _second_derivative_cases():
    # op -> kinks of the forward op
    for name, kinks in [
        ("relu", [0.0]),
        ("relu6", [0.0, 6.0]),
        ("elu", [0.0]),
        ("selu", [0.0]),
        ("softplus", []),
        ("leaky_relu", [0.0]),
    ]:
        yield Case(
            f"{name}''",
            _gradient_of(lambda tf, x, name=name: getattr(tf.nn, name)(x)),
            lambda seed, kinks=kinks: [away_from(kinks, (3, 4), seed), normal((3, 4), seed + 1)],
        )
    # The fused ops directly (SoftplusGrad, for one, appears only in Softplus' third
    # derivative): their second input is features, or outputs for Elu and Selu.
    for op_type, kinks in [
        ("ReluGrad", [0.0]),
        ("Relu6Grad", [0.0, 6.0]),
        ("LeakyReluGrad", [0.0]),
        ("EluGrad", [0.0]),
        ("SeluGrad", [0.0]),
        ("SoftplusGrad", []),
    ]:
        yield Case(
            op_type,
            raw(op_type),
            lambda seed, kinks=kinks: [normal((3, 4), seed), away_from(kinks, (3, 4), seed + 1)],
        )
    yield Case(
        "BiasAddGrad-NCHW",
        raw("BiasAddGrad", data_format="NCHW"),
        lambda seed: [normal((2, 3, 4), seed)],
    )
    for data_format, shape in [("NHWC", (3, 4)), ("NCHW", (2, 4, 3))]:
        channels = shape[-1] if data_format == "NHWC" else shape[1]
        yield Case(
            f"bias_add''-{data_format}",
            _gradient_of(
                lambda tf, v, b, data_format=data_format: tf.nn.bias_add(
                    v, b, data_format=data_format
                ),
                wrt=1,
            ),
            lambda seed, shape=shape, channels=channels: [
                normal(shape, seed),
                normal((channels,), seed + 1),
                normal(shape, seed + 2),
            ],
        )
    for name in ("softmax", "log_softmax"):
        yield Case(
            f"{name}''",
            _gradient_of(lambda tf, x, name=name: getattr(tf.nn, name)(x)),
            lambda seed: [normal((3, 4), seed), normal((3, 4), seed + 1)],
        )
    yield Case(
        "sparse_xent''",
        _gradient_of(_sparse_xent(0)),
        lambda seed: [normal((4, 5), seed), normal((4,), seed + 1)],
    )
    yield Case(
        "xent''-logits",
        lambda tf, f, labels, dy: tf.gradients(
            raw("SoftmaxCrossEntropyWithLogits")(tf, f, labels), f, grad_ys=dy
        )[0],
        lambda seed: [normal((4, 5), seed), distribution((4, 5), seed + 1), normal((4,), seed)],
    )
    yield Case(
        "xent-both-outputs-logits",
        lambda tf, f, labels: raw("SoftmaxCrossEntropyWithLogits", None)(tf, f, labels),
        lambda seed: [normal((4, 5), seed), distribution((4, 5), seed + 1)],
    )


def _check_wrt(case, dtype, wrt):
    """As ``_check``, comparing only the gradients w.r.t. the xs at positions ``wrt``."""
    values = [v.astype(dtype) for v in case.values(0)]
    graph = tf.Graph()
    with graph.as_default():
        xs = [tf.placeholder(dtype, v.shape, name=f"x{i}") for i, v in enumerate(values)]
        ys = case.build(tf, *xs)
        ys = ys if isinstance(ys, list) else [ys]
        report = check_gradients(ys, [xs[i] for i in wrt], feed_dict=dict(zip(xs, values)))
    report.assert_close(*_TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("case", list(_second_derivative_cases()), ids=str)
def test_second_derivative_matches_autodiff(case, dtype):
    # Cross entropy's labels are left out: TF's gradient ignores what flows into the
    # backprop output for them (see the parity tests), so JAX and TF differ there by design.
    wrt = [0] if case.name.startswith("xent") else range(len(case.values(0)))
    _check_wrt(case, dtype, list(wrt))


# ---------------------------------------------------------------------------------------------
# Finite differences: host ops and UnsortedSegmentProd
# ---------------------------------------------------------------------------------------------
def _finite_difference_check(build, values, rtol=1e-6, atol=1e-8, step=1e-6):
    """Compares ``tf.gradients(y, x, grad_ys=w)`` with central differences of
    ``sum(w * y)`` in float64, for the single x given by ``values``."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float64, values.shape, name="x")
        y = build(tf, x)
        with tf.Session(graph=graph) as sess:
            y_value = sess.run(y, {x: values})
            weights = np.random.default_rng(3).uniform(0.5, 1.5, y_value.shape)
            (grad,) = tf.gradients(y, [x], grad_ys=tf.constant(weights))
            registered = sess.run(grad, {x: values})
            numeric = np.zeros_like(values)
            for index in np.ndindex(values.shape):
                up, down = values.copy(), values.copy()
                up[index] += step
                down[index] -= step
                delta = sess.run(y, {x: up}) - sess.run(y, {x: down})
                numeric[index] = np.sum(weights * delta) / (2 * step)
    np.testing.assert_allclose(registered, numeric, rtol=rtol, atol=atol)


_SORTED_IDS = np.array([0, 0, 1, 3, 3, 3])  # segment 2 is empty


@pytest.mark.parametrize("inner", [(), (2,)], ids=["rows", "matrix-rows"])
@pytest.mark.parametrize("op_name", ["segment_sum", "segment_mean", "segment_max", "segment_min"])
def test_sorted_segment_gradient_matches_finite_differences(op_name, inner):
    values = distinct((6,) + inner, seed=4)
    op = getattr(tf.math, op_name)
    _finite_difference_check(lambda tf, x: op(x, _SORTED_IDS), values)


@pytest.mark.parametrize(
    "data",
    [
        np.array([0.5, -2.0, 1.5, 3.0, -0.7, 1.1]),  # no zeros
        np.array([0.0, -2.0, 1.5, 3.0, 0.0, 1.1]),  # one zero in a segment
        np.array([0.0, 0.0, 1.5, 0.0, 0.0, 1.1]),  # two zeros in a segment
    ],
    ids=["no-zero", "one-zero", "two-zeros"],
)
@pytest.mark.parametrize("op_name", ["segment_prod", "unsorted_segment_prod"])
def test_segment_prod_gradient_matches_finite_differences(op_name, data):
    """The three cases of the product's gradient. At a zero entry central differences are
    exact too: the product is linear in each entry."""
    if op_name == "segment_prod":
        build = lambda tf, x: tf.math.segment_prod(x, _SORTED_IDS)  # noqa: E731
    else:
        build = lambda tf, x: tf.math.unsorted_segment_prod(x, _IDS, 4)  # noqa: E731
    _finite_difference_check(build, data)


# ---------------------------------------------------------------------------------------------
# Registry checklist
# ---------------------------------------------------------------------------------------------
_DIFFERENTIABLE = [
    "Relu",
    "Relu6",
    "Elu",
    "Selu",
    "Softplus",
    "Softsign",
    "LeakyRelu",
    "ReluGrad",
    "Relu6Grad",
    "EluGrad",
    "SeluGrad",
    "SoftplusGrad",
    "LeakyReluGrad",
    "BiasAdd",
    "BiasAddV1",
    "BiasAddGrad",
    "Softmax",
    "LogSoftmax",
    "SoftmaxCrossEntropyWithLogits",
    "SparseSoftmaxCrossEntropyWithLogits",
    "L2Loss",
    "TopKV2",
    "PreventGradient",
    "SegmentSum",
    "SegmentMean",
    "SegmentMax",
    "SegmentMin",
    "SegmentProd",
    "UnsortedSegmentSum",
    "UnsortedSegmentMax",
    "UnsortedSegmentMin",
    "UnsortedSegmentProd",
]


@pytest.mark.parametrize("op_type", _DIFFERENTIABLE)
def test_gradient_is_registered(op_type):
    assert GRADIENTS.get(op_type) is not None


def test_softsign_grad_has_no_gradient_as_in_tf():
    """TF registers no gradient for SoftsignGrad: a second derivative of softsign fails."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, (3,))
        (g,) = tf.gradients(tf.nn.softsign(x), x)
        with pytest.raises(LookupError, match="op type: SoftsignGrad"):
            tf.gradients(g, x)
