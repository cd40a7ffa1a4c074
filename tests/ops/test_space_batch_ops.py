"""Space/batch/depth rearrangements and the dilated convolutions and pools TF builds from
them (``with_space_to_batch``): values, static shapes, GraphDefs, errors and gradients vs
TF 2.21, and registered gradients vs ``jax.vjp``."""

import numpy as np
import pytest

import tfcompat
from lowering.gradcheck import check_gradients
from tests.oracle import assert_parity, assert_same_graph_def, graph_def_nodes, tf1

_RNG = np.random.default_rng(7)


def _fixed(shape):
    """Values a program builds itself: the same in every build (TF's and each backend's)."""
    return np.random.default_rng(11).standard_normal(shape)


def _data(shape, dtype=np.float32):
    if np.dtype(dtype).kind == "f":
        return _RNG.standard_normal(shape).astype(dtype)
    return _RNG.integers(-50, 50, shape).astype(dtype)


# ---------------------------------------------------------------------------------------------
# SpaceToBatchND / BatchToSpaceND
# ---------------------------------------------------------------------------------------------
_ND_CASES = [
    # input shape, block shape, paddings
    ((1, 4, 4, 1), [2, 2], [[0, 0], [0, 0]]),
    ((2, 5, 6, 3), [2, 3], [[1, 0], [0, 0]]),
    ((3, 7, 2), [4], [[0, 1]]),
    ((2, 3, 4, 5, 2), [1, 2, 3], [[0, 0], [1, 1], [2, 2]]),
    ((2, 6, 3), [], []),
    ((2, 4, 4, 3), [2], [[1, 1]]),  # blocks only dim 1; dims 2, 3 are "remaining"
]


@pytest.mark.parametrize("shape,block,paddings", _ND_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_space_to_batch_nd_round_trip_parity(shape, block, paddings, dtype):
    x = _data(shape, dtype)

    def program(tf):
        pads = np.asarray(paddings, np.int32).reshape(-1, 2)
        a = tf.space_to_batch_nd(x, np.asarray(block, np.int32), pads)
        b = tf.batch_to_space_nd(a, np.asarray(block, np.int32), pads)
        return [a, b]

    _, ours = assert_parity(program)
    np.testing.assert_array_equal(ours.values[1], x)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_nd_ops_fed_input_and_int64_indices(index_dtype):
    x = _data((4, 3, 4, 2))

    def program(tf):
        p = tf.placeholder(tf.float32, [None, None, 4, 2], name="p")
        block = np.array([2, 2], index_dtype)
        a = tf.space_to_batch_nd(p, block, np.array([[1, 0], [0, 2]], index_dtype), name="s2b")
        b = tf.manip.batch_to_space_nd(p, block, np.array([[0, 1], [1, 0]], index_dtype))
        return [a, b], {p: x}

    assert_parity(program)
    assert_same_graph_def(program)


def test_legacy_wrappers_and_depth_ops_graph_def():
    x = _data((2, 4, 6, 3))

    def program(tf):
        a = tf.space_to_batch(x, [[0, 0], [2, 0]], block_size=2)
        b = tf.batch_to_space(a, [[0, 0], [2, 0]], block_size=2)
        c = tf.nn.space_to_depth(x, 2, name="s2d")
        d = tf.depth_to_space(c, 2)
        e = tf.space_to_depth(x[:, :3, :3], 3)
        return [a, b, c, d, e]

    _, ours = assert_parity(program)
    assert_same_graph_def(program)
    np.testing.assert_array_equal(ours.values[3], x)


def test_legacy_ops_match_tf_raw_ops():
    x = _data((1, 4, 6, 2))
    pads = np.array([[0, 2], [0, 0]], np.int32)
    ours = []
    for backend in ("xla", "reference"):
        with tfcompat.Graph().as_default():
            from tfcompat.ops import space_batch_ops as sb

            a = sb.space_to_batch_legacy(x, pads, 2)
            b = sb.batch_to_space_legacy(a, pads, 2)
            with tfcompat.Session(backend=backend) as sess:
                ours.append(sess.run([a, b]))
    tf = tf1()
    import tensorflow

    with tf.Graph().as_default():
        a = tensorflow.raw_ops.SpaceToBatch(input=x, paddings=pads, block_size=2)
        b = tensorflow.raw_ops.BatchToSpace(input=a, crops=pads, block_size=2)
        with tf.Session() as sess:
            theirs = sess.run([a, b])
    for values in ours:
        for v, t in zip(values, theirs):
            np.testing.assert_array_equal(v, t)


@pytest.mark.parametrize("op_name", ["SpaceToDepth", "DepthToSpace"])
def test_depth_ops_nchw_agree_with_nhwc(op_name):
    """TF's CPU kernels only take NHWC; NCHW must equal the transposed NHWC result."""
    x = _data((2, 4, 6, 8))
    results = {}
    for backend in ("xla", "reference"):
        with tfcompat.Graph().as_default():
            fn = {"SpaceToDepth": tfcompat.space_to_depth, "DepthToSpace": tfcompat.depth_to_space}
            nhwc = fn[op_name](x, 2)
            nchw = fn[op_name](np.transpose(x, (0, 3, 1, 2)), 2, data_format="NCHW")
            assert nchw.shape.as_list() == [nhwc.shape.as_list()[i] for i in (0, 3, 1, 2)]
            with tfcompat.Session(backend=backend) as sess:
                a, b = sess.run([nhwc, nchw])
        np.testing.assert_array_equal(np.transpose(a, (0, 3, 1, 2)), b)
        results[backend] = a
    np.testing.assert_array_equal(results["xla"], results["reference"])


# ---------------------------------------------------------------------------------------------
# Shapes and errors
# ---------------------------------------------------------------------------------------------
def test_static_shapes_with_unknown_values():
    def program(tf):
        p = tf.placeholder(tf.float32, [3, 8, 5], name="p")
        block = tf.placeholder(tf.int32, [2], name="block")
        pads = tf.placeholder(tf.int32, [2, 2], name="pads")
        out = [
            tf.space_to_batch_nd(p, block, pads),
            tf.batch_to_space_nd(p, [1, 1], pads),
            tf.space_to_batch_nd(p, [2], pads[:1]),
        ]
        feeds = {p: _fixed((3, 8, 5)), block: [2, 1], pads: [[0, 0], [0, 1]]}
        return out, feeds

    assert_parity(program)


@pytest.mark.parametrize(
    "build,message",
    [
        (lambda tf, x: tf.space_to_batch_nd(x, [2, 2], [[0, 1], [0, 0]]), "divisible by 2"),
        (lambda tf, x: tf.space_to_batch_nd(x, [2, 2], [[0, -1], [0, 0]]), "negative"),
        (lambda tf, x: tf.space_to_batch_nd(x, [[2, 2]], [[0, 0], [0, 0]]), "rank 1"),
        (lambda tf, x: tf.space_to_batch_nd(x, [2, 2, 2, 2], [[0, 0]] * 4), "at least rank 5"),
        (lambda tf, x: tf.batch_to_space_nd(x, [2, 2], [[0, 0], [0, 0]]), "divisible by 2"),
        (lambda tf, x: tf.batch_to_space_nd(x, [1, 1], [[0, 0], [-1, 0]]), "negative"),
        (lambda tf, x: tf.space_to_depth(x, 3), "divisible by 3"),
        (lambda tf, x: tf.depth_to_space(x, 2), "divisible by 4"),
    ],
)
def test_construction_errors(build, message):
    x = np.zeros((3, 4, 4, 2), np.float32)
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match=message):
                build(tf, x)


@pytest.mark.parametrize("backend", ["xla", "reference"])
@pytest.mark.parametrize(
    "op,args,message",
    [
        ("s2b", ([2, 2], [[0, 1], [0, 0]]), "not divisible by block_shape"),
        ("b2s", ([2, 2], [[0, 0], [0, 0]]), "not divisible by product of block sizes"),
    ],
)
def test_run_time_errors_as_tf(backend, op, args, message):
    x = np.zeros((3, 4, 4, 2), np.float32)
    for tf, kwargs in ((tf1(), {}), (tfcompat, {"backend": backend})):
        with tf.Graph().as_default():
            p = tf.placeholder(tf.float32, None)
            fn = tf.space_to_batch_nd if op == "s2b" else tf.batch_to_space_nd
            y = fn(p, *args)
            with tf.Session(**kwargs) as sess:
                with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                    sess.run(y, {p: x})


def test_required_space_to_batch_paddings_parity():
    def program(tf):
        shape = tf.placeholder(tf.int32, [3], name="shape")
        fed = tf.required_space_to_batch_paddings(shape, [2, 3, 4], [[1, 0], [0, 2], [0, 0]])
        const = tf.required_space_to_batch_paddings([5, 7], [2, 3], name="static")
        return [fed, const], {shape: [5, 6, 9]}

    assert_parity(program)
    assert_same_graph_def(program)


# ---------------------------------------------------------------------------------------------
# Gradients
# ---------------------------------------------------------------------------------------------
def _grad_program(build, shape):
    x_value = _data(shape, np.float64)

    def program(tf):
        x = tf.placeholder(tf.float64, shape, name="x")
        y = build(tf, x)
        w = tf.constant(_fixed(y.shape.as_list()))
        return tf.gradients(tf.reduce_sum(y * w), x), {x: x_value}

    return program


_GRAD_CASES = [
    (lambda tf, x: tf.space_to_batch_nd(x, [2, 3], [[1, 1], [0, 2]]), (2, 4, 4, 3)),
    (lambda tf, x: tf.batch_to_space_nd(x, [2, 2], [[1, 0], [0, 1]]), (8, 3, 2, 2)),
    (lambda tf, x: tf.space_to_batch(x, [[0, 0], [1, 1]], 2), (1, 4, 2, 2)),
    (lambda tf, x: tf.batch_to_space(x, [[0, 1], [1, 0]], 2), (4, 2, 2, 1)),
    (lambda tf, x: tf.space_to_depth(x, 2), (2, 4, 6, 3)),
    (lambda tf, x: tf.depth_to_space(x, 2), (2, 2, 3, 8)),
]


@pytest.mark.parametrize("build,shape", _GRAD_CASES)
def test_gradients_parity(build, shape):
    assert_parity(_grad_program(build, shape), rtol=1e-10, atol=1e-10)
    assert_same_graph_def(_grad_program(build, shape))


@pytest.mark.parametrize("build,shape", _GRAD_CASES)
def test_gradients_match_vjp(build, shape):
    with tfcompat.Graph().as_default():
        x = tfcompat.placeholder(tfcompat.float64, shape)
        y = build(tfcompat, x)
        check_gradients(y, [x], feed_dict={x: _data(shape, np.float64)}).assert_close(atol=1e-12)


# ---------------------------------------------------------------------------------------------
# Dilated convolutions and pools (TF's with_space_to_batch graphs)
# ---------------------------------------------------------------------------------------------
def _conv_inputs(shape=(2, 9, 10, 3), filt=(3, 3, 3, 4)):
    return _data(shape, np.float64), _data(filt, np.float64)


_DILATED = {
    "convolution_same": lambda tf, x, w: tf.nn.convolution(x, w, "SAME", dilation_rate=[2, 2]),
    "convolution_valid_23": lambda tf, x, w: tf.nn.convolution(
        x, w, "VALID", dilation_rate=[2, 3], name="conv"
    ),
    "atrous_same": lambda tf, x, w: tf.nn.atrous_conv2d(x, w, 2, "SAME"),
    "atrous_valid": lambda tf, x, w: tf.nn.atrous_conv2d(x, w, 3, "VALID"),
    "depthwise_rate": lambda tf, x, w: tf.nn.depthwise_conv2d(
        x, w[..., :2], [1, 1, 1, 1], "SAME", rate=[2, 2]
    ),
    "separable_rate": lambda tf, x, w: tf.nn.separable_conv2d(
        x, w[..., :2], tf.ones([1, 1, 6, 4], tf.float64), [1, 1, 1, 1], "VALID", rate=[2, 1]
    ),
    "max_pool": lambda tf, x, w: tf.nn.pool(x, [2, 2], "MAX", "VALID", dilation_rate=[2, 2]),
    "avg_pool_1d": lambda tf, x, w: tf.nn.pool(x[:, 0], [3], "AVG", "VALID", dilation_rate=[2]),
}


@pytest.mark.parametrize("case", sorted(_DILATED))
@pytest.mark.parametrize("fed_shape", [False, True])
def test_dilated_ops_parity_and_graph_def(case, fed_shape):
    x_value, w_value = _conv_inputs()

    def program(tf):
        shape = [None, None, None, 3] if fed_shape else list(x_value.shape)
        x = tf.placeholder(tf.float64, shape, name="x")
        w = tf.constant(w_value, name="w")
        y = _DILATED[case](tf, x, w)
        (gx,) = tf.gradients(tf.reduce_sum(y * y), x)
        return [y, gx], {x: x_value}

    assert_parity(program, rtol=1e-9, atol=1e-9)
    assert_same_graph_def(program)


def test_dilated_convolution_3d_and_1d_and_nchw():
    x3 = _data((1, 7, 6, 5, 2), np.float64)
    x1 = _data((2, 11, 3), np.float64)
    xc = _data((2, 3, 9, 8), np.float64)

    def program(tf):
        a = tf.nn.convolution(x3, _fixed((2, 2, 3, 2, 3)), "SAME", dilation_rate=[1, 2, 2])
        b = tf.nn.convolution(x1, _fixed((3, 3, 2)), "VALID", dilation_rate=[3])
        c = tf.nn.convolution(xc, _fixed((3, 3, 3, 2)), "SAME",
                              dilation_rate=[2, 2], data_format="NCHW")  # fmt: skip
        return [a, b, c]

    # TF's CPU Conv2D has no NCHW kernel: compare only what TF can run, graphs for all.
    assert_parity(lambda tf: program(tf)[:2], rtol=1e-9, atol=1e-9)
    graphs = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default() as graph:
            fetches = program(tf)
            graphs.append(graph_def_nodes(graph))
            if tf is tfcompat:
                shapes = [t.shape.as_list() for t in fetches]
            else:
                assert shapes == [t.shape.as_list() for t in fetches]
    assert graphs[0] == graphs[1]


def test_dilated_conv_gradients_match_vjp():
    x_value, w_value = _conv_inputs()
    with tfcompat.Graph().as_default():
        x = tfcompat.placeholder(tfcompat.float64, x_value.shape)
        w = tfcompat.placeholder(tfcompat.float64, w_value.shape)
        y = tfcompat.nn.atrous_conv2d(x, w, 2, "SAME")
        report = check_gradients(y, [x, w], feed_dict={x: x_value, w: w_value})
        report.assert_close(atol=1e-9)


@pytest.mark.parametrize(
    "layer,shape,kwargs",
    [
        ("conv2d", (2, 9, 10, 3), {"padding": "same", "dilation_rate": 2}),
        ("conv2d", (2, 9, 10, 3), {"padding": "valid", "dilation_rate": (2, 3)}),
        ("conv1d", (2, 9, 3), {"padding": "causal", "dilation_rate": 2}),
        ("conv3d", (1, 6, 7, 5, 2), {"padding": "same", "dilation_rate": (2, 1, 2)}),
        ("separable_conv2d", (2, 9, 10, 3), {"padding": "same", "dilation_rate": 2}),
    ],
)
def test_dilated_layers_parity_and_graph_def(layer, shape, kwargs):
    x_value = _data(shape)

    def program(tf):
        x = tf.placeholder(tf.float32, shape, name="x")
        init = tf.constant_initializer(0.1) if layer != "separable_conv2d" else None
        extra = {"kernel_initializer": init} if init is not None else {
            "depthwise_initializer": tf.constant_initializer(0.2),
            "pointwise_initializer": tf.constant_initializer(0.3),
        }  # fmt: skip
        y = getattr(tf.layers, layer)(x, 4, 3, **kwargs, **extra)
        return y, {x: x_value}

    assert_parity(program, rtol=1e-5, atol=1e-5)
    assert_same_graph_def(program)


def test_dilation_with_strides_is_rejected_as_tf():
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            x = tf.zeros([1, 8, 8, 1])
            with pytest.raises(ValueError, match="strides > 1. not supported"):
                tf.nn.convolution(x, tf.zeros([3, 3, 1, 1]), "SAME", strides=[2, 2],
                                  dilation_rate=[2, 2])  # fmt: skip
