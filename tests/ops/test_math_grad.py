"""Registered gradients of math ops against ``jax.vjp`` of their lowerings
(``lowering.gradcheck.check_gradients``), for every differentiable math op, over shapes with
and without broadcasting, static and dynamic, in float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat as tf
from lowering.gradcheck import check_gradients
from tests.ops.math_grad_cases import BINARY, BINARY_SHAPES, UNARY, UNARY_SHAPES, values
from tfcompat.framework.gradient_registry import GRADIENTS

_TOLERANCE = {np.float32: (2e-5, 2e-4), np.float64: (1e-10, 1e-8)}
_DTYPES = [np.float32, np.float64]


def _check(case, shapes, dtype, static=True):
    """Builds ``case`` on placeholders of ``shapes`` and compares the two derivations,
    with a random cotangent so that transposition errors show."""
    graph = tf.Graph()
    with graph.as_default():
        placeholders, feed = [], {}
        for i, shape in enumerate(shapes):
            static_shape = shape if static else [None] * len(shape)
            p = tf.placeholder(dtype, static_shape, name=f"x{i}")
            placeholders.append(p)
            feed[p] = values(case, shape, dtype, seed=len(shape), which=i)
        out = case.build(tf, *placeholders)
        with tf.Session(graph=graph) as sess:
            out_value = sess.run(out, feed)
        rng = np.random.default_rng(7)
        grad_y = tf.constant(rng.uniform(0.5, 1.5, np.shape(out_value)).astype(out_value.dtype))
        report = check_gradients(out, placeholders, feed_dict=feed, grad_ys=grad_y)
    atol, rtol = _TOLERANCE[dtype]
    report.assert_close(atol=atol, rtol=rtol)
    return report


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
@pytest.mark.parametrize("case", UNARY, ids=lambda c: c.name)
def test_unary_gradient_matches_autodiff(case, shape, dtype):
    _check(case, [shape], dtype)


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("shapes", BINARY_SHAPES, ids=str)
@pytest.mark.parametrize("case", BINARY, ids=lambda c: c.name)
def test_binary_gradient_matches_autodiff(case, shapes, dtype):
    _check(case, list(shapes), dtype)


@pytest.mark.parametrize("shapes", [((2, 3), (3,)), ((2, 1), (1, 3))], ids=str)
@pytest.mark.parametrize("case", BINARY[:6], ids=lambda c: c.name)
def test_binary_gradient_with_unknown_dims(case, shapes):
    """Unknown dims: the reduction axes come from BroadcastGradientArgs at run time."""
    _check(case, list(shapes), np.float32, static=False)


@pytest.mark.parametrize(
    "case", [c for c in UNARY if c.name in ("Sum", "Mean", "Max", "Prod")], ids=lambda c: c.name
)
def test_reduction_gradient_with_unknown_dims(case):
    """Dynamic shapes: reduced shapes are built with DynamicStitch."""
    _check(case, [(2, 3)], np.float32, static=False)


_MATMULS = {
    "MatMul": ((3, 4), (4, 2), {}),
    "MatMulTA": ((4, 3), (4, 2), {"transpose_a": True}),
    "MatMulTB": ((3, 4), (2, 4), {"transpose_b": True}),
    "MatMulTATB": ((4, 3), (2, 4), {"transpose_a": True, "transpose_b": True}),
    "BatchMatMulV2": ((2, 3, 4), (2, 4, 5), {}),
    "BatchMatMulV2Adj": ((2, 4, 3), (2, 5, 4), {"adjoint_a": True, "adjoint_b": True}),
    "BatchMatMulV2Broadcast": ((2, 1, 3, 4), (5, 4, 2), {}),
    "BatchMatMulV2Rank2": ((3, 4), (2, 4, 5), {"transpose_a": False}),
}


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("name", list(_MATMULS))
def test_matmul_gradients(name, dtype):
    a_shape, b_shape, kwargs = _MATMULS[name]
    from tests.ops.math_grad_cases import Case

    case = Case(name, lambda tf, a, b: tf.matmul(a, b, **kwargs), arity=2)
    _check(case, [a_shape, b_shape], dtype)


def test_mlp_loss_gradients():
    """A two-layer network's loss: matmul, add, tanh, squared difference, mean."""
    rng = np.random.default_rng(0)
    shapes = {"w1": (4, 5), "b1": (5,), "w2": (5, 2)}
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(rng.normal(size=(8, 4)).astype(np.float32))
        target = tf.constant(rng.normal(size=(8, 2)).astype(np.float32))
        params = {k: tf.placeholder(tf.float32, s, name=k) for k, s in shapes.items()}
        feed = {params[k]: rng.normal(size=s).astype(np.float32) for k, s in shapes.items()}
        hidden = tf.tanh(tf.matmul(x, params["w1"]) + params["b1"])
        loss = tf.reduce_mean(tf.math.squared_difference(tf.matmul(hidden, params["w2"]), target))
        report = check_gradients(loss, list(params.values()), feed_dict=feed)
        report.assert_close(atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize(
    "op_type",
    ["Less", "Equal", "LogicalAnd", "LogicalNot", "IsNan", "Range", "BroadcastGradientArgs"],
)
def test_not_differentiable_ops_are_marked(op_type):
    assert op_type in GRADIENTS and GRADIENTS[op_type] is None


def test_integer_paths_give_no_gradient():
    """FloorDiv, Floor and ArgMax have registered gradients that return None."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, (3,))
        outs = [tf.math.floordiv(x, 2.0), tf.floor(x), tf.cast(tf.argmax(x), tf.float32)]
        for out in outs:
            assert tf.gradients(out, x) == [None]
