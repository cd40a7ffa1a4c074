"""The convolution/pooling lowerings chosen for speed (``lowering/conv.py``): filter
gradients as transposed convolutions, and the max-pool gradient of disjoint windows.
Values against TF 2.21 (and the reference backend where TF's CPU kernels lack the
layout)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from lowering import conv
from tests.ops.nn_helpers import raw_op, sample
from tests.oracle import assert_parity

_TOL = {"rtol": 1e-4, "atol": 1e-4}


# name -> (builder(tf, x, g), x shape, out_backprop shape, dtype)
FILTER_GRADS = {
    "conv2d_same": (
        lambda tf, x, g: tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], g, [1, 1, 1, 1], "SAME"),
        (5, 6, 6, 3),
        (5, 6, 6, 4),
        np.float32,
    ),
    "conv2d_strided_valid_f64": (
        lambda tf, x, g: tf.nn.conv2d_backprop_filter(x, [3, 2, 3, 2], g, [1, 2, 1, 1], "VALID"),
        (4, 7, 6, 3),
        (4, 3, 5, 2),
        np.float64,
    ),
    "depthwise": (
        lambda tf, x, g: raw_op(
            tf,
            "DepthwiseConv2dNativeBackpropFilter",
            input=x,
            filter_sizes=[3, 3, 3, 2],
            out_backprop=g,
            strides=[1, 1, 1, 1],
            padding="SAME",
        )[0],
        (3, 6, 6, 3),
        (3, 6, 6, 6),
        np.float32,
    ),
    "conv3d": (
        lambda tf, x, g: raw_op(
            tf,
            "Conv3DBackpropFilterV2",
            input=x,
            filter_sizes=[2, 2, 2, 2, 3],
            out_backprop=g,
            strides=[1, 1, 1, 1, 1],
            padding="SAME",
        )[0],
        (3, 4, 4, 4, 2),
        (3, 4, 4, 4, 3),
        np.float32,
    ),
}


@pytest.mark.parametrize("name", FILTER_GRADS)
def test_filter_gradients_match_tf(name):
    build, x_shape, g_shape, dtype = FILTER_GRADS[name]
    x, g = sample(x_shape, dtype, seed=1), sample(g_shape, dtype, seed=2)
    assert_parity(lambda tf: build(tf, x, g), **_TOL)


def test_filter_gradient_nchw_matches_reference():
    """TF's CPU convolutions run NHWC only: NCHW is checked against the NHWC result."""
    x, g = sample((5, 3, 6, 6), seed=3), sample((5, 4, 6, 6), seed=4)

    def program(tf):
        nchw = tf.nn.conv2d_backprop_filter(
            x, [3, 3, 3, 4], g, [1, 1, 1, 1], "SAME", data_format="NCHW"
        )
        nhwc = tf.nn.conv2d_backprop_filter(
            np.transpose(x, (0, 2, 3, 1)),
            [3, 3, 3, 4],
            np.transpose(g, (0, 2, 3, 1)),
            [1, 1, 1, 1],
            "SAME",
        )
        return nchw, nhwc

    from tests.ops.test_conv_ops import tfcompat_run

    for backend in ("xla", "reference"):
        nchw, nhwc = tfcompat_run(program, backend)
        np.testing.assert_allclose(nchw, nhwc, **_TOL)


def test_cnn_training_gradients_match_tf():
    """tf.gradients of a small conv + pool net: pooling gradients by disjoint windows."""
    x = sample((6, 8, 8, 2), seed=5)
    w1, w2 = sample((3, 3, 2, 4), seed=6, scale=0.3), sample((3, 3, 4, 3), seed=7, scale=0.3)

    def program(tf):
        args = [tf.constant(v) for v in (x, w1, w2)]
        h = tf.nn.relu(tf.nn.conv2d(args[0], args[1], 1, "SAME"))
        h = tf.nn.max_pool(h, 2, 2, "VALID")
        h = tf.nn.conv2d(h, args[2], 1, "SAME")
        loss = tf.reduce_sum(h * h)
        return [loss] + tf.gradients(loss, args)

    assert_parity(program, rtol=1e-4, atol=1e-3)


# (input shape, ksize = strides, tied values): disjoint, unpadded windows. TF's
# MaxPool3DGrad does not route tied maxima as its 2-D kernel does (neither backend follows
# it there), so the 3-D case uses distinct values.
DISJOINT_POOLS = [
    ((2, 6, 6, 2), [1, 2, 2, 1], True),
    ((2, 7, 9, 2), [1, 2, 2, 1], True),  # trailing rows/columns outside every window
    ((1, 6, 6, 3), [1, 3, 2, 1], True),
    ((1, 4, 6, 6, 2), [1, 2, 3, 2, 1], False),
]


@pytest.mark.parametrize("shape, window, ties", DISJOINT_POOLS, ids=str)
def test_disjoint_max_pool_gradient_matches_tf(shape, window, ties):
    """With tied maxima (small integers) the gradient goes to the first one in row-major
    window order, as TF's 2-D kernel does."""
    rng = np.random.default_rng(8)
    x = (rng.integers(0, 3, size=shape) if ties else rng.normal(size=shape)).astype(np.float32)

    def program(tf):
        xt = tf.constant(x)
        pool = tf.nn.max_pool3d if len(shape) == 5 else tf.nn.max_pool
        y = pool(xt, window, window, "VALID")
        g = np.arange(np.prod(y.shape.as_list()), dtype=np.float32) + 1.0
        return tf.gradients(y, xt, grad_ys=tf.constant(g.reshape(y.shape.as_list())))

    assert_parity(program)


@pytest.mark.parametrize(
    "shape, window",
    [((2, 3, 8, 8), [1, 1, 2, 2]), ((2, 5, 5, 4), [1, 2, 2, 2]), ((3, 8, 2), [1, 4, 1])],
    ids=str,
)
def test_disjoint_form_equals_offset_form(shape, window):
    """Layouts TF's CPU kernels do not pool (NCHW, depth) and rank 3: both forms agree."""
    x = jnp.asarray(np.random.default_rng(9).integers(0, 3, size=shape).astype(np.float32))
    pads = [(0, 0)] * len(shape)
    y = conv.max_pool(x, window, window, pads)
    g = jnp.asarray(sample(y.shape, seed=10))
    assert conv._tiles_input(window, window, pads)
    np.testing.assert_array_equal(
        conv._first_max_tiled(x, g, window, window, pads),
        conv._first_max_general(x, g, window, window, pads),
    )


# (input shape, ksize, strides, padding): the strided-slice max pool against XLA's
# reduce_window; the 6x6 window exceeds _MAX_POOL_OFFSETS (reduce_window itself).
SLICED_POOLS = [
    ((2, 28, 28, 3), [1, 2, 2, 1], [1, 2, 2, 1], b"VALID"),
    ((2, 27, 27, 3), [1, 2, 2, 1], [1, 2, 2, 1], b"VALID"),
    ((2, 9, 8, 3), [1, 3, 3, 1], [1, 2, 2, 1], b"SAME"),
    ((2, 9, 8, 3), [1, 3, 3, 1], [1, 1, 1, 1], b"SAME"),
    ((2, 3, 9, 8), [1, 1, 3, 2], [1, 1, 2, 3], b"SAME"),
    ((1, 6, 6, 4), [1, 1, 1, 2], [1, 1, 1, 2], b"VALID"),
    ((1, 4, 5, 4, 2), [1, 2, 3, 2, 1], [1, 1, 2, 2, 1], b"SAME"),
    ((2, 9, 9, 2), [1, 6, 6, 1], [1, 2, 2, 1], b"SAME"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("shape, ksize, strides, padding", SLICED_POOLS, ids=str)
def test_max_pool_slices_equal_reduce_window(shape, ksize, strides, padding, dtype):
    from jax import lax

    x = jnp.asarray(np.random.default_rng(11).integers(-9, 9, size=shape).astype(dtype))
    pads = conv.window_pads(shape, ksize, strides, [1] * len(shape), padding)
    expected = lax.reduce_window(x, conv._lowest(x.dtype), lax.max, ksize, strides, pads)
    got = conv.max_pool(x, ksize, strides, pads)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_max_pool_large_window_matches_tf():
    """A window past _MAX_POOL_OFFSETS (reduce_window) next to the sliced form."""
    x = sample((2, 9, 9, 2), seed=12)

    def program(tf):
        return tf.nn.max_pool(x, 6, 2, "SAME"), tf.nn.max_pool(x, 3, 2, "SAME")

    assert_parity(program)
