"""TF parity of the nn, sort and segment gradients: values (``tf.gradients`` programs run
under TF 2.21 and both tfcompat backends, at kinks and ties too, where conventions matter),
second derivatives, the node names of gradient graphs, and the errors TF raises."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.ops.nn_helpers import raw_op, sample
from tests.oracle import assert_parity, assert_same_graph_def, run, tf1

_TOL = {np.float32: 2e-5, np.float64: 1e-10}
_ACTIVATIONS = ["relu", "relu6", "elu", "selu", "softplus", "softsign", "leaky_relu"]


def _with_kinks(shape, dtype, seed):
    """Seeded values with the kinks of the activations planted (0, 6, ±0)."""
    values = sample(shape, dtype, seed=seed, scale=4.0)
    values.flat[:5] = [0.0, -0.0, 6.0, 6.5, -7.0]
    return values


# ---------------------------------------------------------------------------------------------
# Activations: first and second derivatives
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("name", _ACTIVATIONS)
def test_activation_gradient_parity(name, dtype):
    values = _with_kinks((3, 5), dtype, seed=1)
    weights = sample((3, 5), dtype, seed=2)

    def program(tf):
        x = tf.placeholder(dtype, (3, 5), name="x")
        y = getattr(tf.nn, name)(x)
        return tf.gradients(y, x, grad_ys=tf.constant(weights)), {x: values}

    assert_parity(program, rtol=_TOL[dtype], atol=_TOL[dtype])


@pytest.mark.parametrize("name", [n for n in _ACTIVATIONS if n != "softsign"])
def test_activation_second_derivative_parity(name):
    """Through the fused gradient ops' own gradients, w.r.t. the input and the cotangent."""
    values = _with_kinks((2, 5), np.float64, seed=3)
    weights = sample((2, 5), np.float64, seed=4)

    def program(tf):
        x = tf.placeholder(tf.float64, (2, 5), name="x")
        dy = tf.placeholder(tf.float64, (2, 5), name="dy")
        (g,) = tf.gradients(getattr(tf.nn, name)(x), x, grad_ys=dy)
        return tf.gradients(g * g, [x, dy]), {x: values, dy: weights}

    assert_parity(program, rtol=1e-10, atol=1e-10)


def test_softplus_third_derivative_parity():
    """Softplus'' builds SoftplusGrad, whose gradient builds SoftplusGrad again."""
    values = np.linspace(-5.0, 5.0, 7)

    def program(tf):
        x = tf.placeholder(tf.float64, (7,), name="x")
        (g1,) = tf.gradients(tf.nn.softplus(x), x)
        (g2,) = tf.gradients(g1, x)
        (g3,) = tf.gradients(g2, x)
        return [g1, g2, g3], {x: values}

    assert_parity(program, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("op_type", ["ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad"])
def test_fused_gradient_op_parity(op_type):
    """The fused ops on their own, integer inputs included where TF allows them."""
    dtypes = [np.float32, np.float64] + ([np.int32] if "Relu" in op_type else [])
    for dtype in dtypes:
        gradients = sample((3, 4), dtype, seed=5)
        second = _with_kinks((3, 4), dtype, seed=6) if dtype != np.int32 else sample((3, 4), dtype)

        def program(tf, gradients=gradients, second=second):
            name = "outputs" if op_type in ("EluGrad", "SeluGrad") else "features"
            return raw_op(tf, op_type, gradients=gradients, **{name: second})

        assert_parity(program, rtol=_TOL.get(dtype, 0), atol=_TOL.get(dtype, 0))


# ---------------------------------------------------------------------------------------------
# BiasAdd, softmax, losses
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("data_format, shape", [("NHWC", (2, 3, 4)), ("NCHW", (2, 3, 4, 2))])
def test_bias_add_gradients_parity(data_format, shape):
    values = sample(shape, np.float32, seed=7)
    channels = shape[-1] if data_format == "NHWC" else shape[1]
    bias = sample((channels,), np.float32, seed=8)
    weights = sample(shape, np.float32, seed=9)

    def program(tf):
        v = tf.placeholder(tf.float32, shape, name="v")
        b = tf.constant(bias)
        dy = tf.constant(weights)
        y = tf.nn.bias_add(v, b, data_format=data_format)
        gv, gb = tf.gradients(y, [v, b], grad_ys=dy)
        # BiasAddGrad's gradient: differentiate the bias gradient w.r.t. the cotangent.
        second = tf.gradients(gb * gb, dy)
        return [gv, gb, second], {v: values}

    assert_parity(program, rtol=1e-5, atol=1e-5)


def test_bias_add_v1_gradient_parity():
    values, bias = sample((2, 3, 4), seed=10), sample((4,), seed=11)

    def program(tf):
        v, b = tf.constant(values), tf.constant(bias)
        (y,) = raw_op(tf, "BiasAddV1", value=v, bias=b)
        return tf.gradients(y * y, [v, b])

    assert_parity(program, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_gradient_parity(name, axis):
    values, weights = sample((3, 4, 5), seed=12), sample((3, 4, 5), seed=13)

    def program(tf):
        x = tf.constant(values)
        y = getattr(tf.nn, name)(x, axis=axis)
        (g,) = tf.gradients(y, x, grad_ys=tf.constant(weights))
        return [g, tf.gradients(g * g, x)]

    assert_parity(program, rtol=1e-4, atol=1e-5)


def _classifier(tf, loss_name, sparse):
    """A linear softmax classifier: logits = x w + b, the mean cross entropy, and its
    gradients w.r.t. the weights, the bias and the logits."""
    rng = np.random.default_rng(14)
    x = tf.constant(rng.normal(size=(6, 4)).astype(np.float32))
    w = tf.Variable(rng.normal(size=(4, 3)).astype(np.float32), name="w")
    b = tf.Variable(np.zeros(3, np.float32), name="b")
    logits = tf.nn.bias_add(tf.matmul(x, w), b)
    if sparse:
        labels = tf.constant(np.array([0, 2, 1, 1, 0, 2]))
    else:
        labels = tf.constant(rng.dirichlet(np.ones(3), size=6).astype(np.float32))
    xent = getattr(tf.nn, loss_name)(labels=labels, logits=logits)
    loss = tf.reduce_mean(xent)
    return loss, [w, b, logits], labels


@pytest.mark.parametrize(
    "loss_name, sparse",
    [
        ("softmax_cross_entropy_with_logits", False),
        ("softmax_cross_entropy_with_logits_v2", False),
        ("sparse_softmax_cross_entropy_with_logits", True),
    ],
)
def test_classifier_gradient_parity(loss_name, sparse):
    def program(tf):
        loss, xs, _ = _classifier(tf, loss_name, sparse)
        return [loss, tf.gradients(loss, xs)]

    assert_parity(program, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_cross_entropy_second_derivative_parity(sparse):
    """The Hessian-vector product of the loss w.r.t. the logits goes through the backprop
    output's gradient (the softmax Jacobian term)."""
    loss_name = (
        "sparse_softmax_cross_entropy_with_logits"
        if sparse
        else ("softmax_cross_entropy_with_logits_v2")
    )

    def program(tf):
        loss, (w, b, logits), _ = _classifier(tf, loss_name, sparse)
        (g,) = tf.gradients(loss, logits)
        vector = tf.constant(sample((6, 3), np.float32, seed=15))
        return tf.gradients(g, [logits, w], grad_ys=vector)

    assert_parity(program, rtol=1e-5, atol=1e-6)


def test_cross_entropy_labels_gradient_parity():
    """The v2 loss differentiates into the labels (v1 stops them); what flows into the
    backprop output does not reach the labels, in TF as here."""
    features = sample((4, 5), np.float64, seed=16)
    labels = np.random.default_rng(17).dirichlet(np.ones(5), size=4)

    def program(tf):
        f, lab = tf.constant(features), tf.constant(labels)
        loss, backprop = raw_op(tf, "SoftmaxCrossEntropyWithLogits", features=f, labels=lab)
        weights = tf.constant(sample((4, 5), np.float64, seed=18))
        return [
            tf.gradients(loss, [f, lab]),
            tf.gradients(backprop * weights, [f, lab]),
        ]

    assert_parity(program, rtol=1e-10, atol=1e-12)
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            f, lab = tf.constant(features), tf.constant(labels)
            v1_loss = tf.nn.softmax_cross_entropy_with_logits(labels=lab, logits=f)
            assert tf.gradients(v1_loss, lab) == [None]


def test_l2_loss_gradient_parity():
    values = sample((3, 4), np.float64, seed=19)

    def program(tf):
        x = tf.constant(values)
        (g,) = tf.gradients(3.0 * tf.nn.l2_loss(x), x)
        return [g, tf.gradients(tf.reduce_sum(g * g), x)]

    assert_parity(program, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# Top-k and sort
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, k", [((7,), 3), ((3, 5), 5), ((2, 3, 4), 2)])
def test_top_k_gradient_parity(shape, k):
    values = sample(shape, np.float32, seed=20)
    weights = sample(shape[:-1] + (k,), np.float32, seed=21)

    def program(tf):
        x = tf.placeholder(tf.float32, [None] * len(shape), name="x")
        top = tf.nn.top_k(x, k)
        return tf.gradients(top.values, x, grad_ys=tf.constant(weights)), {x: values}

    assert_parity(program, backends=("reference",))
    assert_parity(lambda tf: _static_top_k(tf, values, weights, k))


def _static_top_k(tf, values, weights, k):
    x = tf.constant(values)
    return tf.gradients(tf.nn.top_k(x, k).values, x, grad_ys=tf.constant(weights))


@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
@pytest.mark.parametrize("axis", [-1, 0])
def test_sort_gradient_parity(axis, direction):
    values = np.array([[3.0, 1.0, 2.0], [1.0, 1.0, -4.0]], np.float32)  # a tie in row 1
    weights = sample((2, 3), np.float32, seed=22)

    def program(tf):
        x = tf.constant(values)
        y = tf.sort(x, axis=axis, direction=direction)
        return tf.gradients(y, x, grad_ys=tf.constant(weights))

    assert_parity(program)


# ---------------------------------------------------------------------------------------------
# Segment reductions: ties, zeros, negative ids, empty segments
# ---------------------------------------------------------------------------------------------
_DATA = np.array([[1.0, 2.0], [1.0, -3.0], [0.0, 5.0], [4.0, 0.0], [4.0, 0.0], [-2.0, 0.5]])
_SORTED_IDS = np.array([0, 0, 1, 3, 3, 3])
_UNSORTED_IDS = np.array([2, 0, -1, 2, 0, 2])


def _segment_program(op_name, ids, *extra):
    weights = sample((4, 2), np.float64, seed=23)

    def program(tf):
        data = tf.placeholder(tf.float64, (6, 2), name="data")
        y = getattr(tf.math, op_name)(data, ids, *extra)
        return tf.gradients(y, data, grad_ys=tf.constant(weights)), {data: _DATA}

    return program


@pytest.mark.parametrize("reduction", ["sum", "mean", "max", "min", "prod"])
def test_sorted_segment_gradient_parity(reduction):
    assert_parity(_segment_program(f"segment_{reduction}", _SORTED_IDS), rtol=1e-12)


@pytest.mark.parametrize("reduction", ["sum", "max", "min", "prod"])
def test_unsorted_segment_gradient_parity(reduction):
    assert_parity(_segment_program(f"unsorted_segment_{reduction}", _UNSORTED_IDS, 4), rtol=1e-12)


def test_unsorted_segment_gradient_with_matrix_ids_parity():
    data = sample((2, 3, 2), np.float32, seed=24)
    ids = np.array([[1, 0, 1], [-1, 2, 0]])

    def program(tf):
        d = tf.constant(data)
        return [
            tf.gradients(tf.math.unsorted_segment_sum(d, ids, 3) ** 2, d),
            tf.gradients(tf.math.unsorted_segment_max(d, ids, 3), d),
        ]

    assert_parity(program)


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------
def _error(program, tf):
    with pytest.raises(Exception) as info:
        run(tf, program)
    return info.value


def test_prevent_gradient_raises_lookup_error_as_tf():
    def program(tf):
        x = tf.constant([1.0, 2.0])
        if tf is tfcompat:
            from tfcompat.ops.nn_ops import prevent_gradient

            y = prevent_gradient(x, message="no second derivative")
        else:
            y = tf.raw_ops.PreventGradient(input=x, message="no second derivative")
        return tf.gradients(y * y, x)

    ours, theirs = _error(program, tfcompat), _error(program, tf1())
    assert type(ours) is type(theirs) is LookupError
    assert str(ours) == str(theirs)


def test_prevent_gradient_forward_parity():
    def program(tf):
        return raw_op(tf, "PreventGradient", input=sample((2, 3), seed=25), message="m")

    assert_parity(program)


def test_broadcast_labels_gradient_shape_error_as_tf():
    """TF's cross-entropy gradient gives labels the broadcast shape, which tf.gradients
    rejects for labels of batch 1."""

    def program(tf):
        f = tf.constant(sample((4, 5), seed=26))
        lab = tf.constant(np.full((1, 5), 0.2, np.float32))
        (loss, _) = raw_op(tf, "SoftmaxCrossEntropyWithLogits", features=f, labels=lab)
        return tf.gradients(loss, [f, lab])

    ours, theirs = _error(program, tfcompat), _error(program, tf1())
    assert type(ours) is type(theirs) is ValueError
    assert str(ours) == str(theirs)


@pytest.mark.parametrize("op_type", ["ReluGrad", "EluGrad", "LeakyReluGrad"])
def test_fused_gradient_shape_error_as_tf(op_type):
    def program(tf):
        g = tf.constant(np.zeros((2, 3), np.float32))
        other = tf.constant(np.zeros((2, 4), np.float32))
        name = "outputs" if op_type == "EluGrad" else "features"
        return raw_op(tf, op_type, gradients=g, **{name: other})

    ours, theirs = _error(program, tfcompat), _error(program, tf1())
    assert type(ours) is type(theirs) is ValueError
    assert "Dimension 1 in both shapes must be equal, but are 3 and 4" in str(theirs)
    assert "Dimension 1 in both shapes must be equal, but are 3 and 4" in str(ours)


# ---------------------------------------------------------------------------------------------
# Node names of gradient graphs
# ---------------------------------------------------------------------------------------------
class _Feeds(dict):
    """Placeholders of a graph program and the seeded values fed to them."""

    def placeholder(self, tf, name, shape):
        p = tf.placeholder(tf.float32, shape, name=name)
        self[p] = sample(shape, np.float32, seed=len(self))
        return p


def _sparse_classifier_graph(tf):
    feeds = _Feeds()
    w = feeds.placeholder(tf, "w", (4, 3))
    x = tf.constant(np.ones((2, 4), np.float32))
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 2], logits=tf.matmul(x, w))
    return tf.gradients(tf.reduce_mean(xent), [w]), feeds


def _dense_classifier_graph(tf):
    loss, xs, _ = _classifier(tf, "softmax_cross_entropy_with_logits_v2", sparse=False)
    return tf.gradients(loss, xs)


def _xent_hessian_graph(tf):
    feeds = _Feeds()
    logits = feeds.placeholder(tf, "logits", (3, 4))
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 3], logits=logits)
    (g,) = tf.gradients(tf.reduce_sum(xent), logits)
    return tf.gradients(g, logits), feeds


def _activation_second_derivatives_graph(tf):
    feeds = _Feeds()
    x = feeds.placeholder(tf, "x", (3,))
    ys = [tf.nn.relu(x), tf.nn.elu(x), tf.nn.selu(x), tf.nn.softplus(x), tf.nn.leaky_relu(x)]
    ys += [tf.nn.relu6(x), tf.nn.softsign(x)]
    grads = [tf.gradients(y, x)[0] for y in ys]
    return [tf.gradients(g, x) for g in grads[:-1]] + [grads[-1]], feeds


def _bias_add_second_derivative_graph(tf):
    feeds = _Feeds()
    v = feeds.placeholder(tf, "v", (2, 3, 4))
    b = feeds.placeholder(tf, "b", (3,))
    dy = feeds.placeholder(tf, "dy", (2, 3, 4))
    (gb,) = tf.gradients(tf.nn.bias_add(v, b, data_format="NCHW"), b, grad_ys=dy)
    return tf.gradients(gb, dy), feeds


def _softmax_graph(tf):
    feeds = _Feeds()
    x = feeds.placeholder(tf, "x", (3, 4))
    return tf.gradients(tf.nn.softmax(x) + tf.nn.log_softmax(x) + tf.nn.l2_loss(x), x), feeds


def _top_k_graph(tf, static=False):
    feeds = _Feeds()
    x = feeds.placeholder(tf, "x", (3, 5))
    if not static:
        x = tf.placeholder_with_default(x, (None, 5), name="unknown_rows")
    return tf.gradients(tf.nn.top_k(x, 2).values, x), feeds


def _segment_graph(tf, static=False):
    feeds = _Feeds()
    d = feeds.placeholder(tf, "d", (4, 2))
    sorted_ids = tf.constant([0, 0, 1, 1])
    unsorted_ids = tf.constant([1, 0, -1, 1])
    if not static:
        d = tf.placeholder_with_default(d, (None, 2), name="unknown_rows")
        sorted_ids = tf.placeholder_with_default(sorted_ids, (None,), name="sorted_ids")
        unsorted_ids = tf.placeholder_with_default(unsorted_ids, (None,), name="unsorted_ids")
    ys = [
        tf.math.segment_mean(d, sorted_ids),
        tf.math.segment_max(d, sorted_ids),
        tf.math.unsorted_segment_max(d, unsorted_ids, 2),
        tf.math.unsorted_segment_prod(d, unsorted_ids, 2),
    ]
    return [tf.gradients(y, d) for y in ys], feeds


@pytest.mark.parametrize(
    "program",
    [
        _sparse_classifier_graph,
        _dense_classifier_graph,
        _xent_hessian_graph,
        _activation_second_derivatives_graph,
        _bias_add_second_derivative_graph,
        _softmax_graph,
        _top_k_graph,
        _segment_graph,
    ],
    ids=lambda p: p.__name__.strip("_"),
)
def test_gradient_graph_node_names(program):
    assert_same_graph_def(program)


# Shape inference folds what TF's C++ shape functions fold on shape tensors (a GatherV2
# of a static shape, Sub of sizes), so TF's Python sees the same static shapes here and
# builds Consts where an unknown shape would build Shape / ZerosLike.
@pytest.mark.parametrize("program", [_top_k_graph, _segment_graph], ids=["top_k", "segment"])
def test_gradient_graph_node_names_with_static_shapes(program):
    assert_same_graph_def(lambda tf: program(tf, static=True))
