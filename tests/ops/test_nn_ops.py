"""TF parity of the nn primitives: activations, BiasAdd, Softmax/LogSoftmax on the last
axis, cross-entropy ops, L2Loss and TopKV2 (values, dtypes, static shapes, node names,
construction and run-time errors)."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.ops.nn_helpers import raw_op, run_expecting_error, sample
from tests.oracle import assert_parity, assert_same_graph_def, run, tf1

FLOATS = [np.float16, np.float32, np.float64]
# Tolerances by dtype: half rounds at ~1e-3.
TOL = {np.float16: 2e-3, np.float32: 1e-5, np.float64: 1e-6}


def _fed(dtype, shape, values, static_shape=None):
    """A program helper: a placeholder of ``static_shape`` (default: ``shape`` with an
    unknown batch) fed ``values``."""

    def make(tf):
        known = static_shape if static_shape is not None else [None] + list(shape[1:])
        x = tf.placeholder(tf.as_dtype(dtype), known, name="x")
        return x, {x: values}

    return make


# ---------------------------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------------------------
ACTIVATIONS = {
    "relu": FLOATS + [np.int32, np.int64, np.uint8, np.int8],
    "relu6": FLOATS + [np.int32, np.int64, np.uint8],
    "elu": FLOATS,
    "selu": FLOATS,
    "softplus": FLOATS,
    "softsign": FLOATS,
    "leaky_relu": FLOATS,
}


def _activation_cases():
    for name, dtypes in ACTIVATIONS.items():
        for dtype in dtypes:
            yield pytest.param(name, dtype, id=f"{name}-{np.dtype(dtype).name}")


@pytest.mark.parametrize("name, dtype", list(_activation_cases()))
def test_activation_parity(name, dtype):
    values = sample((4, 7), dtype, seed=1, scale=8.0)
    if np.dtype(dtype).kind == "f":
        # Thresholds of the formulas: zero, relu6's cap, softplus' cut-offs, large inputs.
        values.flat[:8] = [0.0, -0.0, 6.0, 6.5, 20.0, -20.0, 15.0, -90.0]

    def program(tf):
        x, feeds = _fed(dtype, values.shape, values)(tf)
        return getattr(tf.nn, name)(x), feeds

    tol = TOL.get(dtype, 0)
    assert_parity(program, rtol=tol, atol=tol)


def test_activation_nan_propagates():
    values = np.array([np.nan, -1.0, 7.0], np.float32)

    def program(tf):
        x, feeds = _fed(np.float32, values.shape, values)(tf)
        return [tf.nn.relu(x), tf.nn.relu6(x), tf.nn.elu(x), tf.nn.softplus(x)], feeds

    assert_parity(program)


@pytest.mark.parametrize("alpha", [0.2, 0.01, 1.5, np.float64(0.3), np.array(0.7)])
def test_leaky_relu_alpha(alpha):
    values = sample((3, 5), np.float32, seed=2)

    def program(tf):
        x, feeds = _fed(np.float32, values.shape, values)(tf)
        return tf.nn.leaky_relu(x, alpha=alpha), feeds

    assert_parity(program)
    assert_same_graph_def(program)


def test_leaky_relu_casts_integers_to_float32():
    def program(tf):
        return tf.nn.leaky_relu(np.array([-5, 0, 4], np.int32), name="lr")

    assert_parity(program)


def test_activation_graph_def():
    def program(tf):
        x = tf.placeholder(tf.float32, [2, 3])
        outs = [
            tf.nn.relu(x),
            tf.nn.relu6(x, name="r6"),
            tf.nn.elu([1.0, -1.0]),
            tf.nn.selu(x),
            tf.math.softplus(x),
            tf.nn.softsign(x),
            tf.nn.leaky_relu(x),
            tf.nn.l2_loss(x),
        ]
        return outs, {x: sample((2, 3))}

    assert_same_graph_def(program)


@pytest.mark.parametrize("name", ["elu", "selu", "softplus", "softsign"])
def test_float_only_activations_reject_integers(name):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(TypeError, match="allowed values"):
                getattr(tf.nn, name)(tf.constant([1, 2]))


# ---------------------------------------------------------------------------------------------
# BiasAdd
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shape, data_format",
    [
        ((4, 5), None),
        ((2, 3, 4, 5), "NHWC"),
        ((2, 3, 4), "NWC"),
        ((2, 5, 3), "NCW"),
        ((2, 5, 3, 4), "NCHW"),
        ((2, 5, 3, 4, 2), "NCDHW"),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_bias_add_parity(shape, data_format, dtype):
    values = sample(shape, dtype, seed=3)
    channels = shape[1] if data_format and data_format.startswith("NC") else shape[-1]
    bias = sample((channels,), dtype, seed=4)

    def program(tf):
        x = tf.placeholder(tf.as_dtype(dtype), [None] + list(shape[1:]), name="x")
        return tf.nn.bias_add(x, bias, data_format=data_format), {x: values}

    assert_parity(program)
    assert_same_graph_def(program)


def test_bias_add_v1_op():
    values, bias = sample((3, 4)), sample((4,), seed=5)
    assert_parity(lambda tf: raw_op(tf, "BiasAddV1", value=values, bias=bias))


@pytest.mark.parametrize(
    "value_shape, bias_shape, data_format, match",
    [
        ([4, 5], [4], "NHWC", "Dimensions must be equal, but are 5 and 4"),
        ([4], [4], "NHWC", "Shape must be at least rank 2 but is rank 1"),
        ([4, 5], [5, 1], "NHWC", "Shape must be rank 1 but is rank 2"),
        ([4, 5], [5], "NCHW", "Shape must be at least rank 3 but is rank 2"),
        ([4, 5, 6], [6], "NCHW", "Dimensions must be equal, but are 5 and 6"),
        ([4, 5], [5], "XX", "`data_format` must be of the form"),
    ],
)
def test_bias_add_shape_errors(value_shape, bias_shape, data_format, match):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            v = tf.placeholder(tf.float32, value_shape)
            b = tf.placeholder(tf.float32, bias_shape)
            with pytest.raises(ValueError, match=match):
                tf.nn.bias_add(v, b, data_format=data_format)


@pytest.mark.parametrize(
    "value_shape, bias_shape, data_format",
    [
        ([4, None], [None], "NHWC"),
        ([None, 3], [None], "NHWC"),
        (None, [3], "NHWC"),
        (None, [3], "NCHW"),
        ([2, None, 3], [7], "NCHW"),
    ],
)
def test_bias_add_partial_static_shapes(value_shape, bias_shape, data_format):
    shapes = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            v = tf.placeholder(tf.float32, value_shape)
            b = tf.placeholder(tf.float32, bias_shape)
            shapes.append(str(tf.nn.bias_add(v, b, data_format=data_format).shape))
    assert shapes[0] == shapes[1]


# ---------------------------------------------------------------------------------------------
# Softmax / LogSoftmax on the last axis
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4)])
def test_softmax_last_axis_parity(fn, dtype, shape):
    values = sample(shape, dtype, seed=6, scale=4.0)

    def program(tf):
        x, feeds = _fed(dtype, shape, values)(tf)
        return getattr(tf.nn, fn)(x), feeds

    tol = TOL[dtype]
    assert_parity(program, rtol=tol, atol=tol)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_large_logits_are_stable(fn):
    values = np.array(
        [[1000.0, 0.0, -1000.0], [88.0, 89.0, 90.0], [-1e30, -1e30, -1e30], [3e38, 3e38, 0.0]],
        np.float32,
    )

    def program(tf):
        x, feeds = _fed(np.float32, values.shape, values)(tf)
        return getattr(tf.nn, fn)(x), feeds

    assert_parity(program, rtol=1e-5, atol=1e-6)
    ours = run(tfcompat, program).values
    assert np.all(np.isfinite(ours))


def test_softmax_graph_def_and_aliases():
    def program(tf):
        x = tf.placeholder(tf.float32, [2, 3])
        return [
            tf.nn.softmax(x),
            tf.math.softmax(x, name="sm"),
            tf.nn.log_softmax(x, axis=-1),
            tf.math.log_softmax(x, dim=1, name="lsm"),
        ], {x: sample((2, 3))}

    assert_same_graph_def(program)


def test_softmax_rejects_scalars():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
                tf.nn.softmax(tf.placeholder(tf.float32, []))


def test_softmax_empty_rows():
    def program(tf):
        return [tf.nn.softmax(np.zeros((2, 0), np.float32)), tf.nn.log_softmax(np.zeros((0, 3)))]

    assert_parity(program)


# ---------------------------------------------------------------------------------------------
# Cross-entropy primitives and L2Loss
# ---------------------------------------------------------------------------------------------
def _labels(shape, seed):
    p = np.random.default_rng(seed).random(shape)
    return p / p.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("f_shape, l_shape", [((4, 5), (4, 5)), ((1, 5), (3, 5)), ((3, 5), (1, 5))])
def test_softmax_xent_op_parity(dtype, f_shape, l_shape):
    features = sample(f_shape, dtype, seed=7)
    labels = _labels(l_shape, 8).astype(dtype)
    tol = TOL[dtype]
    assert_parity(
        lambda tf: raw_op(tf, "SoftmaxCrossEntropyWithLogits", features=features, labels=labels),
        rtol=tol,
        atol=tol,
    )


def test_softmax_xent_op_large_logits():
    features = np.array([[1000.0, -1000.0, 0.0], [-5e4, 5e4, 1.0]], np.float32)
    labels = np.array([[0.5, 0.25, 0.25], [0.0, 1.0, 0.0]], np.float32)
    assert_parity(
        lambda tf: raw_op(tf, "SoftmaxCrossEntropyWithLogits", features=features, labels=labels),
        rtol=1e-5,
    )


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_xent_op_parity(dtype, label_dtype):
    features = sample((6, 4), dtype, seed=9, scale=30.0)
    labels = np.array([0, 3, 1, 2, 3, 0], label_dtype)
    tol = TOL[dtype]
    assert_parity(
        lambda tf: raw_op(
            tf, "SparseSoftmaxCrossEntropyWithLogits", features=features, labels=labels
        ),
        rtol=tol,
        atol=tol,
    )


@pytest.mark.parametrize("bad_label", [3, -1])
def test_sparse_xent_label_out_of_range(bad_label):
    features = sample((2, 3))

    def program(tf):
        x = tf.placeholder(tf.float32, [None, 3])
        labels = tf.placeholder(tf.int32, [None])
        loss, backprop = raw_op(
            tf, "SparseSoftmaxCrossEntropyWithLogits", features=x, labels=labels
        )
        return [loss, backprop], {x: features, labels: np.array([0, bad_label], np.int32)}

    theirs = run_expecting_error(program, "InvalidArgumentError")
    ours = run_expecting_error(program, "InvalidArgumentError", backend="reference")
    prefix = f"Received a label value of {bad_label} which is outside the valid range of [0, 3)"
    assert prefix in theirs.message and prefix in ours.message
    # Inside XLA nothing can raise: the row of the bad label is NaN (TF's GPU behavior).
    loss, backprop = run(tfcompat, program, backend="xla").values
    assert np.isfinite(loss[0]) and np.isnan(loss[1])
    assert np.all(np.isfinite(backprop[0])) and np.all(np.isnan(backprop[1]))


@pytest.mark.parametrize(
    "op_type, shapes, match",
    [
        (
            "SoftmaxCrossEntropyWithLogits",
            ([2, 4], [3, 4]),
            "Dimensions must be equal, but are 2 and 3",
        ),
        ("SoftmaxCrossEntropyWithLogits", ([4], [4]), "Shape must be broadcasted with rank 2"),
        (
            "SparseSoftmaxCrossEntropyWithLogits",
            ([2, 4], [3]),
            "Dimensions must be equal, but are 2 and 3",
        ),
        (
            "SparseSoftmaxCrossEntropyWithLogits",
            ([2, 4, 1], [2]),
            "Shape must be rank 2 but is rank 3",
        ),
    ],
)
def test_xent_op_shape_errors(op_type, shapes, match):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            features = tf.placeholder(tf.float32, shapes[0])
            label_dtype = tf.int32 if op_type.startswith("Sparse") else tf.float32
            labels = tf.placeholder(label_dtype, shapes[1])
            with pytest.raises(ValueError, match=match):
                raw_op(tf, op_type, features=features, labels=labels)


@pytest.mark.parametrize(
    "op_type, shapes",
    [
        ("SoftmaxCrossEntropyWithLogits", ([None, 4], [3, None])),
        ("SoftmaxCrossEntropyWithLogits", (None, [2, 4])),
        ("SoftmaxCrossEntropyWithLogits", ([2, None], [None, 4])),
        ("SoftmaxCrossEntropyWithLogits", (None, None)),
        ("SparseSoftmaxCrossEntropyWithLogits", (None, [3])),
        ("SparseSoftmaxCrossEntropyWithLogits", ([2, 4], None)),
    ],
)
def test_xent_op_partial_static_shapes(op_type, shapes):
    got = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            features = tf.placeholder(tf.float32, shapes[0])
            label_dtype = tf.int32 if op_type.startswith("Sparse") else tf.float32
            labels = tf.placeholder(label_dtype, shapes[1])
            outs = raw_op(tf, op_type, features=features, labels=labels)
            got.append([o.shape.as_list() if o.shape.rank is not None else None for o in outs])
    assert got[0] == got[1]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(), (7,), (3, 4, 5), (0, 3)])
def test_l2_loss_parity(dtype, shape):
    values = sample(shape, dtype, seed=10)
    tol = TOL[dtype]

    def program(tf):
        x = tf.placeholder(tf.as_dtype(dtype), None)
        return tf.nn.l2_loss(x), {x: values}

    assert_parity(program, rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------------
# TopKV2
# ---------------------------------------------------------------------------------------------
TOP_K_DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.int8]


@pytest.mark.parametrize("dtype", TOP_K_DTYPES)
@pytest.mark.parametrize("shape, k", [((9,), 4), ((3, 6), 6), ((2, 3, 5), 1), ((4, 5), 0)])
def test_top_k_parity(dtype, shape, k):
    values = sample(shape, dtype, seed=11)

    def program(tf):
        x = tf.placeholder(tf.as_dtype(dtype), [None] * len(shape))
        return tf.nn.top_k(x, k), {x: values}

    assert_parity(program)


def test_top_k_ties_keep_index_order():
    values = np.array(
        [[1.0, 3.0, 3.0, 2.0, 3.0, 1.0], [0.0, -0.0, 0.0, -0.0, 5.0, 0.0], [7, 7, 7, 7, 7, 7]],
        np.float32,
    )

    def program(tf):
        x = tf.placeholder(tf.float32, [3, 6])
        return [tf.nn.top_k(x, 4), tf.math.top_k(x, 6)], {x: values}

    assert_parity(program)
    indices = run(tfcompat, program).values[0].indices
    np.testing.assert_array_equal(indices[0], [1, 2, 4, 3])


def test_top_k_nan_is_largest():
    values = np.array([1.0, np.nan, 3.0, 2.0, 4.0], np.float32)

    def program(tf):
        x = tf.placeholder(tf.float32, [5])
        return tf.nn.top_k(x, 3), {x: values}

    assert_parity(program)


@pytest.mark.parametrize(
    "index_type, k_dtype", [("int64", "int64"), ("int16", "int32"), ("int32", "int16")]
)
def test_top_k_index_and_k_types(index_type, k_dtype):
    values = sample((3, 5), np.float32, seed=12)

    def program(tf):
        k = tf.constant(2, tf.as_dtype(k_dtype))
        return tf.nn.top_k(values, k, index_type=tf.as_dtype(index_type), name="tk")

    assert_parity(program)
    assert_same_graph_def(program)


def test_top_k_unsorted_returns_the_top_set():
    values = sample((4, 9), np.float32, seed=13)

    def program(tf):
        return tf.nn.top_k(values, 4, sorted=False)

    theirs = run(tf1(), program).values
    for backend in ("xla", "reference"):
        ours = run(tfcompat, program, backend=backend).values
        for a, b in zip(ours.indices, theirs.indices):
            assert sorted(a) == sorted(b)
        np.testing.assert_array_equal(np.take_along_axis(values, ours.indices, -1), ours.values)


def test_top_k_graph_def():
    def program(tf):
        x = tf.placeholder(tf.float32, [2, 5])
        outs = [tf.nn.top_k(x), tf.math.top_k(x, 3, name="t3"), tf.nn.top_k(x, 2, sorted=False)]
        return outs, {x: sample((2, 5))}

    assert_same_graph_def(program)


@pytest.mark.parametrize(
    "shape, k, match",
    [
        ([2, 3], 5, "input must have last dimension >= k = 5 but is 3"),
        ([2, 3], -1, "Dimension size, given by scalar input 1, must be non-negative but is -1"),
        ([], 1, "Shape must be at least rank 1 but is rank 0"),
        ([3], [2], "Input must be scalar but has rank 1"),
    ],
)
def test_top_k_construction_errors(shape, k, match):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, shape)
            with pytest.raises(ValueError, match=match):
                tf.nn.top_k(x, k)


@pytest.mark.parametrize(
    "k, message",
    [(3, "input must have at least k columns. Had 2, needed 3"), (-3, "Need k >= 0, got -3")],
)
def test_top_k_run_time_errors(k, message):
    def program(tf):
        return tf.nn.top_k([1.0, 2.0], tf.placeholder_with_default(k, []))

    theirs = run_expecting_error(program, "InvalidArgumentError")
    ours = run_expecting_error(program, "InvalidArgumentError", backend="reference")
    assert message in theirs.message and message in ours.message


def test_top_k_fed_k_compiles_specialised():
    """A fed ``k`` fixes the output shape: XLA specialises the step on its value."""

    def program(tf):
        k = tf.placeholder(tf.int32, [])
        return tf.nn.top_k([1.0, 2.0, 3.0], k), {k: 2}

    ours = run(tfcompat, program, backend="xla").values
    theirs = run(tf1(), program).values
    np.testing.assert_array_equal(ours.values, theirs.values)
    np.testing.assert_array_equal(ours.indices, theirs.indices)


@pytest.mark.parametrize(
    "shape",
    [[2, None], None],
)
def test_top_k_partial_static_shapes(shape):
    got = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, shape)
            outs = [tf.nn.top_k(x, 2), tf.nn.top_k(x, tf.placeholder(tf.int32, []))]
            got.append([str(t.shape) for out in outs for t in out])
    assert got[0] == got[1]
