"""Gradients TF registers for ops tfcompat had marked or left without one: MaxPoolGradV2
(via MaxPoolGradGradV2), RandomGamma (via RandomGammaGrad), DynamicStitch and LoopCond.
Values and gradient-graph node names against TF 2.21; registered gradients against
``jax.vjp`` of the lowerings."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from lowering.gradcheck import check_gradients
from tests.ops.nn_helpers import raw_op, sample
from tests.oracle import assert_parity, assert_same_graph_def, run

_TOL = {"rtol": 1e-5, "atol": 1e-5}


# ---------------------------------------------------------------------------------------------
# MaxPoolGradV2 -> MaxPoolGradGradV2
# ---------------------------------------------------------------------------------------------
POOL_CASES = {
    "valid_2x2": ((1, 4, 4, 2), [1, 2, 2, 1], [1, 2, 2, 1], "VALID", "NHWC"),
    "same_3x3_s2": ((2, 5, 5, 1), [1, 3, 3, 1], [1, 2, 2, 1], "SAME", "NHWC"),
    "overlap": ((1, 5, 4, 3), [1, 3, 2, 1], [1, 1, 1, 1], "VALID", "NHWC"),
}


def _max_pool_v2(tf, x, ksize, strides, padding, fmt):
    ksize_t = tf.constant(np.array(ksize, np.int32), name="ksize")
    strides_t = tf.constant(np.array(strides, np.int32), name="strides")
    return raw_op(
        tf, "MaxPoolV2", input=x, ksize=ksize_t, strides=strides_t, padding=padding,
        data_format=fmt,
    )[0]  # fmt: skip


@pytest.mark.parametrize("case", sorted(POOL_CASES))
def test_max_pool_second_order_through_grad_v2_matches_tf(case):
    shape, ksize, strides, padding, fmt = POOL_CASES[case]
    x_value = sample(shape, np.float32)

    def program(tf):
        x = tf.constant(x_value)
        y = _max_pool_v2(tf, x, ksize, strides, padding, fmt)
        w = tf.constant(sample(y.shape.as_list(), np.float32, seed=3))
        (dx,) = tf.gradients(tf.reduce_sum(y * w), [x])
        v = tf.constant(sample(shape, np.float32, seed=4))
        # d/dw of <dx, v>: the gradient of MaxPoolGradV2 w.r.t. its incoming gradient.
        return [dx, tf.gradients(tf.reduce_sum(dx * v), [w, x])]

    assert_parity(program, **_TOL)
    assert_same_graph_def(program)


@pytest.mark.parametrize("case", sorted(POOL_CASES))
def test_max_pool_grad_grad_v2_matches_jax_vjp(case):
    shape, ksize, strides, padding, fmt = POOL_CASES[case]
    x_value = sample(shape, np.float32)
    graph = tfcompat.Graph()
    with graph.as_default():
        x = tfcompat.constant(x_value)
        y = _max_pool_v2(tfcompat, x, ksize, strides, padding, fmt)
        g = tfcompat.placeholder(tfcompat.float32, y.shape)
        dx = raw_op(
            tfcompat, "MaxPoolGradV2", orig_input=x, orig_output=y, grad=g,
            ksize=ksize, strides=strides, padding=padding,
        )[0]  # fmt: skip
        feed = {g: sample(y.shape.as_list(), np.float32, seed=5)}
        ct = tfcompat.constant(sample(shape, np.float32, seed=6))
        check_gradients(dx, [g], feed_dict=feed, grad_ys=ct).assert_close(atol=1e-5)


def test_max_pool_grad_grad_v2_raw_op_matches_tf():
    x_value = sample((1, 6, 6, 2), np.float32)

    def program(tf):
        x = tf.constant(x_value)
        y = tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
        g = tf.constant(sample((1, 6, 6, 2), np.float32, seed=1))
        return raw_op(
            tf, "MaxPoolGradGradV2", orig_input=x, orig_output=y, grad=g,
            ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME",
        )  # fmt: skip

    assert_parity(program, **_TOL)


# ---------------------------------------------------------------------------------------------
# RandomGamma -> RandomGammaGrad
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_gamma_grad_op_matches_tf(dtype):
    rng = np.random.default_rng(0)
    alpha = rng.uniform(0.05, 20.0, size=(3, 40)).astype(dtype)
    samples = rng.gamma(alpha.astype(np.float64)).astype(dtype) + dtype(1e-3)

    def program(tf):
        return raw_op(tf, "RandomGammaGrad", alpha=alpha, sample=samples)

    rtol = 1e-3 if dtype == np.float32 else 1e-5
    assert_parity(program, rtol=rtol, atol=1e-6)


def test_random_gamma_grad_op_broadcasts_alpha():
    alpha = np.array([[0.5, 2.0, 7.0]], np.float64)
    samples = np.array([[0.2, 1.0, 5.0], [1.5, 3.0, 9.0]], np.float64)
    assert_parity(lambda tf: raw_op(tf, "RandomGammaGrad", alpha=alpha, sample=samples))


def _gamma_program(tf):
    alpha = tf.constant(np.array([0.5, 3.0], np.float32), name="alpha")
    samples = tf.random_gamma([2000, 3], alpha, seed=7)
    return samples, alpha, tf.gradients(tf.reduce_mean(samples), [alpha])[0]


def test_random_gamma_gradient_graph_matches_tf():
    assert_same_graph_def(lambda tf: _gamma_program(tf)[2])


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_random_gamma_gradient_is_the_reparameterization_gradient(backend):
    """d mean(samples) / d alpha: each sample's d x / d alpha (RandomGammaGrad) averaged;
    in expectation 1/2 per alpha here (E[x] = alpha, half of the 2-entry mean)."""

    def program(tf):
        samples, alpha, grad = _gamma_program(tf)
        partial = raw_op(tf, "RandomGammaGrad", alpha=alpha, sample=samples)[0]
        return [grad, tf.reduce_mean(partial, axis=[0, 1]) / 2.0]

    grad, expected = run(tfcompat, program, backend=backend).values
    np.testing.assert_allclose(grad, expected, rtol=1e-5)
    np.testing.assert_allclose(grad, [0.5, 0.5], rtol=0.1)


# ---------------------------------------------------------------------------------------------
# DynamicStitch and LoopCond
# ---------------------------------------------------------------------------------------------
def test_dynamic_stitch_gradient_matches_tf():
    a, b = sample((3, 2), np.float32), sample((2, 2), np.float32, seed=1)

    def program(tf):
        x, y = tf.constant(a), tf.constant(b)
        out = tf.dynamic_stitch([[0, 4, 2], [1, 3]], [x, y])
        w = tf.constant(sample((5, 2), np.float32, seed=2))
        return [out, tf.gradients(tf.reduce_sum(out * w), [x, y])]

    assert_parity(program)
    assert_same_graph_def(program)


def test_dynamic_stitch_gradient_with_overwritten_index_matches_tf():
    """A later piece overwrites an index: both still get the gradient's row (TF's rule)."""
    a, b = sample((2,), np.float32), sample((2,), np.float32, seed=1)

    def program(tf):
        x, y = tf.constant(a), tf.constant(b)
        out = tf.dynamic_stitch([[0, 1], [1, 2]], [x, y])
        return tf.gradients(out * tf.constant([1.0, 2.0, 3.0]), [x, y])

    assert_parity(program)


def test_loop_cond_has_a_gradient_function_returning_none():
    from tfcompat.framework.gradient_registry import GRADIENTS

    assert GRADIENTS["LoopCond"] is not None
    with tfcompat.Graph().as_default():
        op = tfcompat.while_loop(lambda i: i < 3, lambda i: i + 1, [0]).op
        loop_cond = next(o for o in op.graph.get_operations() if o.type == "LoopCond")
        assert GRADIENTS["LoopCond"](loop_cond, None) == [None]
