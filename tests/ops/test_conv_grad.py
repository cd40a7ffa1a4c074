"""Gradients of convolution and pooling ops: registered gradient functions against
``jax.vjp`` of the lowerings (``check_gradients``), and ``tf.gradients`` values against TF 2.21,
including max pooling over tied values."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat as tf
from lowering.gradcheck import check_gradients
from tests.ops.nn_helpers import raw_op, sample
from tests.oracle import assert_parity

_TOL = {"rtol": 1e-4, "atol": 1e-4}


def _check(build, shapes, seed=0, dtype=np.float32):
    """``build(*placeholders)`` on seeded inputs of ``shapes``; both derivations must agree
    under a random cotangent."""
    graph = tf.Graph()
    with graph.as_default():
        xs = [tf.placeholder(dtype, s, name=f"x{i}") for i, s in enumerate(shapes)]
        feed = {x: sample(s, dtype, seed=seed + i) for i, (x, s) in enumerate(zip(xs, shapes))}
        out = build(*xs)
        with tf.Session(graph=graph) as sess:
            value = sess.run(out, feed)
        cotangent = tf.constant(sample(value.shape, dtype, seed=99))
        report = check_gradients(out, xs, feed_dict=feed, grad_ys=cotangent)
    report.assert_close(atol=1e-3, rtol=1e-4)


CONV_GRADS = {
    "conv2d_same_s2": (lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"), [(2, 7, 7, 3), (3, 3, 3, 4)]),
    "conv2d_valid_dil": (
        lambda x, w: tf.nn.conv2d(x, w, 1, "VALID", dilations=2),
        [(1, 8, 8, 2), (3, 3, 2, 3)],
    ),
    "conv2d_nchw": (
        lambda x, w: tf.nn.conv2d(x, w, [1, 1, 2, 1], "SAME", data_format="NCHW"),
        [(1, 2, 6, 5), (2, 3, 2, 3)],
    ),
    "conv2d_explicit": (
        lambda x, w: tf.nn.conv2d(x, w, 2, [[0, 0], [1, 2], [2, 0], [0, 0]]),
        [(1, 6, 6, 2), (3, 3, 2, 2)],
    ),
    "conv2d_groups": (lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"), [(1, 5, 5, 4), (3, 3, 2, 4)]),
    "conv1d": (lambda x, w: tf.nn.conv1d(x, w, 2, "SAME"), [(2, 9, 3), (3, 3, 2)]),
    "depthwise": (
        lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME"),
        [(1, 7, 7, 3), (3, 3, 3, 2)],
    ),
    "conv3d": (
        lambda x, w: tf.nn.conv3d(x, w, [1, 2, 1, 1, 1], "SAME"),
        [(1, 5, 4, 4, 2), (2, 2, 3, 2, 3)],
    ),
    "conv2d_transpose": (
        lambda x, w: tf.nn.conv2d_transpose(x, w, [2, 8, 8, 3], [1, 2, 2, 1], "SAME"),
        [(2, 4, 4, 4), (3, 3, 3, 4)],
    ),
    "backprop_filter": (
        lambda x, g: tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], g, [1, 2, 2, 1], "SAME"),
        [(2, 7, 7, 3), (2, 4, 4, 4)],
    ),
    "depthwise_backprop_input": (
        lambda w, g: raw_op(
            tf,
            "DepthwiseConv2dNativeBackpropInput",
            input_sizes=[1, 6, 6, 2],
            filter=w,
            out_backprop=g,
            strides=[1, 1, 1, 1],
            padding="SAME",
        )[0],
        [(3, 3, 2, 2), (1, 6, 6, 4)],
    ),
    "depthwise_backprop_filter": (
        lambda x, g: raw_op(
            tf,
            "DepthwiseConv2dNativeBackpropFilter",
            input=x,
            filter_sizes=[3, 3, 2, 2],
            out_backprop=g,
            strides=[1, 1, 1, 1],
            padding="SAME",
        )[0],
        [(1, 6, 6, 2), (1, 6, 6, 4)],
    ),
    "conv3d_backprop_input": (
        lambda w, g: raw_op(
            tf,
            "Conv3DBackpropInputV2",
            input_sizes=[1, 4, 4, 4, 2],
            filter=w,
            out_backprop=g,
            strides=[1, 1, 1, 1, 1],
            padding="SAME",
        )[0],
        [(2, 2, 2, 2, 3), (1, 4, 4, 4, 3)],
    ),
    "conv3d_backprop_filter": (
        lambda x, g: raw_op(
            tf,
            "Conv3DBackpropFilterV2",
            input=x,
            filter_sizes=[2, 2, 2, 2, 3],
            out_backprop=g,
            strides=[1, 1, 1, 1, 1],
            padding="SAME",
        )[0],
        [(1, 4, 4, 4, 2), (1, 4, 4, 4, 3)],
    ),
}

POOL_GRADS = {
    "max_2x2_valid": (lambda x: tf.nn.max_pool(x, 2, 2, "VALID"), [(2, 8, 8, 3)]),
    "max_3x3_s2_same": (lambda x: tf.nn.max_pool(x, 3, 2, "SAME"), [(1, 7, 6, 2)]),
    "max_nchw": (
        lambda x: tf.nn.max_pool(x, [1, 1, 2, 2], [1, 1, 2, 2], "SAME", data_format="NCHW"),
        [(1, 2, 5, 5)],
    ),
    "max_explicit": (
        lambda x: tf.nn.max_pool(x, 3, 2, [[0, 0], [1, 1], [1, 0], [0, 0]]),
        [(1, 6, 6, 2)],
    ),
    "avg_3x3_same": (lambda x: tf.nn.avg_pool(x, 3, 2, "SAME"), [(1, 7, 6, 2)]),
    "max3d": (lambda x: tf.nn.max_pool3d(x, 2, 2, "SAME"), [(1, 5, 4, 4, 2)]),
    "avg3d": (lambda x: tf.nn.avg_pool3d(x, 2, 1, "VALID"), [(1, 4, 4, 3, 2)]),
    "max_pool_grad_second_order": (
        lambda x, g: raw_op(
            tf,
            "MaxPoolGrad",
            orig_input=x,
            orig_output=tf.nn.max_pool(x, 3, 2, "SAME"),
            grad=g,
            ksize=[1, 3, 3, 1],
            strides=[1, 2, 2, 1],
            padding="SAME",
        )[0],
        [(1, 6, 6, 2), (1, 3, 3, 2)],
    ),
    "max_pool_grad_grad": (
        lambda x, g: raw_op(
            tf,
            "MaxPoolGradGrad",
            orig_input=x,
            orig_output=tf.nn.max_pool(x, 2, 2, "VALID"),
            grad=g,
            ksize=[1, 2, 2, 1],
            strides=[1, 2, 2, 1],
            padding="VALID",
        )[0],
        [(1, 4, 4, 2), (1, 4, 4, 2)],
    ),
    "avg_pool_grad": (
        lambda g: raw_op(
            tf,
            "AvgPoolGrad",
            orig_input_shape=[1, 6, 6, 2],
            grad=g,
            ksize=[1, 3, 3, 1],
            strides=[1, 2, 2, 1],
            padding="SAME",
        )[0],
        [(1, 3, 3, 2)],
    ),
}


@pytest.mark.parametrize("name", list(CONV_GRADS))
def test_conv_gradients_match_autodiff(name):
    build, shapes = CONV_GRADS[name]
    _check(build, shapes)


@pytest.mark.parametrize("name", list(POOL_GRADS))
def test_pool_gradients_match_autodiff(name):
    build, shapes = POOL_GRADS[name]
    _check(build, shapes)


def test_conv2d_gradients_float64():
    _check(
        lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"), [(1, 5, 5, 2), (3, 3, 2, 2)], dtype=np.float64
    )


# ---------------------------------------------------------------------------------------------
# tf.gradients values against TF
# ---------------------------------------------------------------------------------------------
def _lenet_like(tf, x, w1, w2):
    h = tf.nn.relu(tf.nn.conv2d(x, w1, 1, "SAME"))
    h = tf.nn.max_pool(h, 2, 2, "VALID")
    h = tf.nn.conv2d(h, w2, 1, "VALID")
    h = tf.nn.avg_pool(h, 2, 2, "SAME")
    return tf.reduce_sum(h * h)


def test_cnn_gradients_match_tf():
    x, w1, w2 = (
        sample((2, 12, 12, 1), seed=1),
        sample((5, 5, 1, 4), seed=2, scale=0.3),
        sample((3, 3, 4, 6), seed=3, scale=0.3),
    )

    def program(tf):
        args = [tf.constant(v) for v in (x, w1, w2)]
        loss = _lenet_like(tf, *args)
        return [loss] + tf.gradients(loss, args)

    assert_parity(program, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize(
    "pool",
    [
        ([1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
        ([1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
        ([1, 3, 3, 1], [1, 1, 1, 1], "VALID"),
    ],
    ids=str,
)
def test_max_pool_ties_route_to_first_maximum_as_tf(pool):
    """Windows of repeated values: TF sends the gradient to the first maximum in row-major
    window order (and, where windows overlap, adds the shares); so do both backends."""
    ksize, strides, padding = pool
    rng = np.random.default_rng(5)
    x = rng.integers(0, 3, size=(2, 6, 6, 2)).astype(np.float32)  # many ties

    def program(tf):
        xt = tf.constant(x)
        y = tf.nn.max_pool(xt, ksize, strides, padding)
        g = tf.constant(
            np.arange(np.prod(y.shape.as_list()), dtype=np.float32).reshape(y.shape.as_list()) + 1.0
        )
        return tf.gradients(y, xt, grad_ys=g)

    assert_parity(program)


def test_second_order_max_pool_matches_tf():
    x = sample((1, 6, 6, 2), seed=7)

    def program(tf):
        xt = tf.constant(x)
        y = tf.nn.max_pool(xt, 3, 2, "SAME")
        (dx,) = tf.gradients(tf.reduce_sum(y * y), xt)
        return tf.gradients(tf.reduce_sum(dx * dx), xt)

    assert_parity(program, **_TOL)
