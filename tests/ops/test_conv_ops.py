"""Convolution and pooling ops against TF 2.21: forward values and static shapes over a table
of shapes, strides, paddings, data formats and dilations; GraphDef node names of the
wrappers; construction-time shape errors."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.ops.nn_helpers import raw_op, sample
from tests.oracle import assert_parity, assert_same_graph_def, tf1

_TOL = {"rtol": 1e-4, "atol": 1e-4}

# (input shape NHWC, filter shape, strides, padding, dilations)
CONV2D_CASES = [
    ((2, 7, 7, 3), (3, 3, 3, 4), [1, 1, 1, 1], "SAME", [1, 1, 1, 1]),
    ((2, 7, 7, 3), (3, 3, 3, 4), [1, 2, 2, 1], "SAME", [1, 1, 1, 1]),
    ((1, 8, 6, 2), (2, 3, 2, 3), [1, 2, 3, 1], "VALID", [1, 1, 1, 1]),
    ((1, 9, 9, 2), (3, 3, 2, 2), [1, 1, 1, 1], "VALID", [1, 2, 2, 1]),
    ((1, 9, 9, 2), (3, 2, 2, 2), [1, 1, 1, 1], "SAME", [1, 3, 2, 1]),
    ((2, 5, 5, 4), (3, 3, 2, 4), [1, 1, 1, 1], "SAME", [1, 1, 1, 1]),  # 2 groups
    ((1, 6, 6, 2), (3, 3, 2, 2), [1, 2, 2, 1], [[0, 0], [1, 2], [0, 1], [0, 0]], [1, 1, 1, 1]),
]


def _to_nchw(shape):
    return (shape[0], shape[3], shape[1], shape[2])


def _nchw_list(values):
    return [values[0], values[3], values[1], values[2]]


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("case", CONV2D_CASES, ids=str)
def test_conv2d_values(case, data_format):
    x_shape, w_shape, strides, padding, dilations = case
    if data_format == "NCHW":
        x_shape, strides, dilations = _to_nchw(x_shape), _nchw_list(strides), _nchw_list(dilations)
        if isinstance(padding, list):
            padding = _nchw_list(padding)
    x, w = sample(x_shape, seed=1), sample(w_shape, seed=2)

    def program(tf):
        return tf.nn.conv2d(x, w, strides, padding, data_format=data_format, dilations=dilations)

    if data_format == "NCHW":  # TF's CPU Conv2D runs NHWC only: compare with our reference
        ours = [tfcompat_run(program, b) for b in ("xla", "reference")]
        np.testing.assert_allclose(ours[0], ours[1], **_TOL)
        return
    assert_parity(program, **_TOL)


def tfcompat_run(program, backend):
    from tests.oracle import run

    return run(tfcompat, program, backend=backend).values


def test_conv2d_nchw_matches_transposed_nhwc():
    """NCHW results are NHWC results transposed (TF's CPU kernels only run NHWC)."""
    x, w = sample((2, 6, 6, 3), seed=3), sample((3, 3, 3, 2), seed=4)
    nchw = np.transpose(x, (0, 3, 1, 2))

    def program(tf):
        a = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
        b = tf.nn.conv2d(nchw, w, [1, 1, 2, 2], "SAME", data_format="NCHW")
        return a, tf.transpose(b, [0, 2, 3, 1])

    for backend in ("xla", "reference"):
        a, b = tfcompat_run(program, backend)
        np.testing.assert_allclose(a, b, **_TOL)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_backprops_values(dtype):
    x, w = sample((2, 7, 7, 3), dtype, seed=5), sample((3, 3, 3, 4), dtype, seed=6)
    g = sample((2, 4, 4, 4), dtype, seed=7)

    def program(tf):
        dx = tf.nn.conv2d_backprop_input([2, 7, 7, 3], w, g, [1, 2, 2, 1], "SAME")
        dw = tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], g, [1, 2, 2, 1], "SAME")
        return dx, dw

    assert_parity(program, **_TOL)


def test_conv2d_transpose():
    x, w = sample((2, 4, 4, 4), seed=8), sample((3, 3, 3, 4), seed=9)

    def program(tf):
        return tf.nn.conv2d_transpose(x, w, [2, 8, 8, 3], [1, 2, 2, 1], "SAME")

    assert_parity(program, **_TOL)
    assert_same_graph_def(program)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("stride", [1, 2])
def test_conv1d(stride, padding):
    x, w = sample((2, 9, 3), seed=10), sample((3, 3, 5), seed=11)

    def program(tf):
        return tf.nn.conv1d(x, w, stride, padding)

    assert_parity(program, **_TOL)
    assert_same_graph_def(program)


@pytest.mark.parametrize("strides", [[1, 1, 1, 1], [1, 2, 2, 1]])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_depthwise_conv2d(strides, padding):
    x, w = sample((2, 7, 7, 3), seed=12), sample((3, 3, 3, 2), seed=13)

    def program(tf):
        return tf.nn.depthwise_conv2d(x, w, strides, padding)

    assert_parity(program, **_TOL)
    assert_same_graph_def(program)


def test_depthwise_native_dilations_and_backprops():
    x, w = sample((1, 8, 8, 2), seed=14), sample((3, 3, 2, 3), seed=15)
    g = sample((1, 8, 8, 6), seed=16)

    def program(tf):
        y = tf.nn.depthwise_conv2d_native(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1])
        dx = raw_op(
            tf,
            "DepthwiseConv2dNativeBackpropInput",
            input_sizes=[1, 8, 8, 2],
            filter=w,
            out_backprop=g,
            strides=[1, 1, 1, 1],
            padding="SAME",
        )[0]
        dw = raw_op(
            tf,
            "DepthwiseConv2dNativeBackpropFilter",
            input=x,
            filter_sizes=[3, 3, 2, 3],
            out_backprop=g,
            strides=[1, 1, 1, 1],
            padding="SAME",
        )[0]
        return y, dx, dw

    assert_parity(program, **_TOL)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv3d(padding):
    x, w = sample((1, 5, 6, 4, 2), seed=17), sample((2, 3, 2, 2, 3), seed=18)

    def program(tf):
        y = tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], padding)
        g = np.ones(y.shape.as_list(), np.float32)
        dx = raw_op(
            tf,
            "Conv3DBackpropInputV2",
            input_sizes=[1, 5, 6, 4, 2],
            filter=w,
            out_backprop=g,
            strides=[1, 1, 2, 1, 1],
            padding=padding,
        )[0]
        dw = raw_op(
            tf,
            "Conv3DBackpropFilterV2",
            input=x,
            filter_sizes=[2, 3, 2, 2, 3],
            out_backprop=g,
            strides=[1, 1, 2, 1, 1],
            padding=padding,
        )[0]
        return y, dx, dw

    assert_parity(program, **_TOL)
    assert_same_graph_def(lambda tf: tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], padding))


def test_atrous_conv2d_rate_one():
    x, w = sample((1, 6, 6, 2), seed=19), sample((3, 3, 2, 2), seed=20)

    def program(tf):
        return tf.nn.atrous_conv2d(x, w, 1, "VALID")

    assert_parity(program, **_TOL)
    assert_same_graph_def(program)


def test_dilations_via_conv2d_match_atrous_tf():
    """TF's atrous_conv2d(rate=2) (SpaceToBatchND route) equals our Conv2D dilations=2."""
    x, w = sample((1, 9, 9, 2), seed=21), sample((3, 3, 2, 2), seed=22)
    theirs = tfcompat_like_tf(lambda tf: tf.nn.atrous_conv2d(x, w, 2, "SAME"))
    for backend in ("xla", "reference"):
        ours = tfcompat_run(lambda tf: tf.nn.conv2d(x, w, 1, "SAME", dilations=2), backend)
        np.testing.assert_allclose(ours, theirs, **_TOL)


def tfcompat_like_tf(program):
    from tests.oracle import run

    return run(tf1(), program).values


# ---------------------------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------------------------
# (input shape, ksize, strides, padding)
POOL_CASES = [
    ((2, 8, 8, 3), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    ((2, 7, 7, 3), [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
    ((1, 7, 6, 2), [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
    ((1, 7, 6, 2), [1, 3, 2, 1], [1, 1, 2, 1], "VALID"),
    ((1, 5, 5, 1), [1, 3, 3, 1], [1, 1, 1, 1], "SAME"),
]


@pytest.mark.parametrize("case", POOL_CASES, ids=str)
def test_max_and_avg_pool(case):
    shape, ksize, strides, padding = case
    x = sample(shape, seed=23)

    def program(tf):
        return (
            tf.nn.max_pool(x, ksize, strides, padding),
            tf.nn.avg_pool(x, ksize, strides, padding),
        )

    assert_parity(program, **_TOL)


def test_max_pool_explicit_padding_and_depth_pooling():
    x = sample((1, 6, 6, 4), seed=24)

    def program(tf):
        explicit = tf.nn.max_pool(x, 3, 2, [[0, 0], [1, 1], [1, 0], [0, 0]])
        depth = tf.nn.max_pool(x, [1, 1, 1, 2], [1, 1, 1, 2], "VALID")
        return explicit, depth

    assert_parity(program, **_TOL)


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32])
def test_max_pool_dtypes(dtype):
    x = sample((1, 4, 4, 2), dtype, seed=25)
    assert_parity(lambda tf: tf.nn.max_pool(x, 2, 2, "SAME"))


def test_max_pool_v2_and_pool3d():
    x = sample((1, 6, 6, 2), seed=26)
    v = sample((1, 4, 5, 4, 2), seed=27)

    def program(tf):
        return (
            raw_op(
                tf, "MaxPoolV2", input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME"
            )[0],
            tf.nn.max_pool3d(v, 2, 2, "SAME"),
            tf.nn.avg_pool3d(v, [1, 2, 3, 2, 1], [1, 1, 2, 2, 1], "VALID"),
        )

    assert_parity(program, **_TOL)


def test_pool_grad_ops():
    x = sample((2, 6, 6, 3), seed=28)
    g = sample((2, 3, 3, 3), seed=29)
    gg = sample((2, 6, 6, 3), seed=30)

    def program(tf):
        y = tf.nn.max_pool(x, 3, 2, "SAME")
        attrs = dict(ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
        return (
            raw_op(tf, "MaxPoolGrad", orig_input=x, orig_output=y, grad=g, **attrs)[0],
            raw_op(tf, "MaxPoolGradGrad", orig_input=x, orig_output=y, grad=gg, **attrs)[0],
            raw_op(tf, "AvgPoolGrad", orig_input_shape=[2, 6, 6, 3], grad=g, **attrs)[0],
        )

    assert_parity(program, **_TOL)


WRAPPERS = {
    "max_pool": lambda tf, x: tf.nn.max_pool(x, 2, 2, "VALID"),
    "max_pool_named": lambda tf, x: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME", name="p"),
    "max_pool2d": lambda tf, x: tf.nn.max_pool2d(x, 2, 2, "VALID"),
    "avg_pool": lambda tf, x: tf.nn.avg_pool(x, 3, 1, "SAME"),
    "pool_max": lambda tf, x: tf.nn.pool(x, [2, 2], "MAX", "SAME", strides=[2, 2]),
    "pool_avg": lambda tf, x: tf.nn.pool(x, [3, 3], "AVG", "VALID"),
    "pool_1d": lambda tf, x: tf.nn.pool(tf.reshape(x, [2, 64, 3]), [2], "MAX", "VALID"),
    "conv2d_named": lambda tf, x: tf.nn.conv2d(
        x, np.ones((2, 2, 3, 1), np.float32), 1, "SAME", name="c"
    ),
    "conv2d_explicit": lambda tf, x: tf.nn.conv2d(
        x, np.ones((2, 2, 3, 1), np.float32), 2, [[0, 0], [1, 0], [0, 1], [0, 0]]
    ),
}


@pytest.mark.parametrize("name", list(WRAPPERS))
def test_wrapper_graph_defs(name):
    x = sample((2, 8, 8, 3), seed=31)

    def program(tf):
        p = tf.placeholder(tf.float32, [2, 8, 8, 3], name="x")
        return WRAPPERS[name](tf, p), {p: x}

    assert_same_graph_def(program)
    assert_parity(program, **_TOL)


# ---------------------------------------------------------------------------------------------
# Static shapes and construction-time errors
# ---------------------------------------------------------------------------------------------
SHAPE_PROGRAMS = {
    "unknown_batch": lambda tf: tf.nn.conv2d(
        tf.placeholder(tf.float32, [None, 8, 8, 3]),
        tf.placeholder(tf.float32, [3, 3, 3, 4]),
        2,
        "SAME",
    ),
    "unknown_spatial": lambda tf: tf.nn.conv2d(
        tf.placeholder(tf.float32, [1, None, 8, 3]),
        tf.placeholder(tf.float32, [3, 3, 3, 4]),
        1,
        "VALID",
    ),
    "unknown_filter_same": lambda tf: tf.nn.conv2d(
        tf.placeholder(tf.float32, [1, 7, 8, 3]), tf.placeholder(tf.float32, None), 2, "SAME"
    ),
    "unknown_rank_pool": lambda tf: tf.nn.max_pool(tf.placeholder(tf.float32), 2, 2, "SAME"),
    "backprop_input_from_shape": lambda tf: tf.nn.conv2d_backprop_input(
        tf.shape(tf.placeholder(tf.float32, [None, 6, 6, 3])),
        tf.placeholder(tf.float32, [3, 3, 3, 4]),
        tf.placeholder(tf.float32, [None, 3, 3, 4]),
        [1, 2, 2, 1],
        "SAME",
    ),
    "avg_pool_grad_unknown": lambda tf: raw_op(
        tf,
        "AvgPoolGrad",
        orig_input_shape=tf.placeholder(tf.int32, [4]),
        grad=tf.placeholder(tf.float32),
        ksize=[1, 2, 2, 1],
        strides=[1, 2, 2, 1],
        padding="VALID",
    )[0],
}


@pytest.mark.parametrize("name", list(SHAPE_PROGRAMS))
def test_static_shapes(name):
    shapes = []
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            t = SHAPE_PROGRAMS[name](tf)
            shapes.append(None if t.shape.rank is None else t.shape.as_list())
    assert shapes[0] == shapes[1]


ERROR_PROGRAMS = {
    "rank": lambda tf: tf.nn.conv2d(
        np.zeros((8, 8, 3), np.float32), np.zeros((3, 3, 3, 4), np.float32), 1, "SAME"
    ),
    "depth": lambda tf: tf.nn.conv2d(
        np.zeros((1, 8, 8, 3), np.float32), np.zeros((3, 3, 2, 4), np.float32), 1, "SAME"
    ),
    "valid_too_small": lambda tf: tf.nn.conv2d(
        np.zeros((1, 2, 8, 3), np.float32), np.zeros((3, 3, 3, 4), np.float32), 1, "VALID"
    ),
    "pool_too_small": lambda tf: tf.nn.max_pool(np.zeros((1, 2, 2, 1), np.float32), 3, 1, "VALID"),
    "strides_length": lambda tf: tf.nn.conv2d(
        np.zeros((1, 8, 8, 3), np.float32), np.zeros((3, 3, 3, 4), np.float32), [1, 1, 1], "SAME"
    ),
    "explicit_length": lambda tf: tf.nn.conv2d(
        np.zeros((1, 8, 8, 3), np.float32), np.zeros((3, 3, 3, 4), np.float32), 1, [[0, 0], [1, 1]]
    ),
    "explicit_batch": lambda tf: tf.nn.conv2d(
        np.zeros((1, 8, 8, 3), np.float32),
        np.zeros((3, 3, 3, 4), np.float32),
        1,
        [[1, 0], [1, 1], [0, 0], [0, 0]],
    ),
    "ksize_zero": lambda tf: tf.nn.max_pool(np.zeros((1, 4, 4, 1), np.float32), 0, 1, "SAME"),
    "bad_padding": lambda tf: tf.nn.max_pool(np.zeros((1, 4, 4, 1), np.float32), 2, 1, "FULL"),
    "depthwise_channels": lambda tf: tf.nn.depthwise_conv2d_native(
        np.zeros((1, 4, 4, 3), np.float32), np.zeros((2, 2, 2, 1), np.float32), [1, 1, 1, 1], "SAME"
    ),
    "ksize_length": lambda tf: tf.nn.max_pool(
        np.zeros((1, 4, 4, 1), np.float32), [1, 2, 2], 1, "SAME"
    ),
}


@pytest.mark.parametrize("name", list(ERROR_PROGRAMS))
def test_construction_errors(name):
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            with pytest.raises(ValueError):
                ERROR_PROGRAMS[name](tf)


def test_int_conv2d_type_error():
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            with pytest.raises(TypeError):
                tf.nn.conv2d(
                    np.zeros((1, 4, 4, 1), np.int64), np.zeros((1, 1, 1, 1), np.int64), 1, "SAME"
                )
