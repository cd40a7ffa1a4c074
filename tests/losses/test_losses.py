"""tf.losses against TF 2.21: every loss x reduction x weights form (values, GraphDef node
names and attrs, loss collections), the collection helpers, and construction errors."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, run, tf1

RNG = np.random.default_rng(7)
N, C = 4, 3
PRED = RNG.uniform(0.05, 0.95, (N, C)).astype(np.float32)
LABELS01 = (RNG.uniform(size=(N, C)) > 0.5).astype(np.float32)
LOGITS = RNG.normal(size=(N, C)).astype(np.float32)
REGRESSION = RNG.normal(size=(N, C)).astype(np.float32)
UNIT_A = (REGRESSION / np.linalg.norm(REGRESSION, axis=1, keepdims=True)).astype(np.float32)
UNIT_B = (LOGITS / np.linalg.norm(LOGITS, axis=1, keepdims=True)).astype(np.float32)
ONEHOT = np.eye(C, dtype=np.float32)[[0, 2, 1, 2]]
CLASS_IDS = np.array([0, 2, 1, 2], np.int32)


def _pl(tf, value, name):
    return tf.placeholder(tf.as_dtype(value.dtype), value.shape, name=name)


def _two_inputs(labels, predictions):
    """A builder ``(tf, loss_fn, **kw) -> (loss, feeds)`` feeding two placeholders."""

    def build(tf, fn, **kw):
        a, b = _pl(tf, labels, "labels"), _pl(tf, predictions, "predictions")
        return fn(a, b, **kw), {a: labels, b: predictions}

    return build


# name -> (builder, loss function getter, extra kwargs, shape of the unreduced loss)
LOSSES = {
    "absolute_difference": (_two_inputs(REGRESSION, PRED), "absolute_difference", {}, (N, C)),
    "cosine_distance": (_two_inputs(UNIT_A, UNIT_B), "cosine_distance", {"axis": 1}, (N, 1)),
    "hinge_loss": (_two_inputs(LABELS01, LOGITS), "hinge_loss", {}, (N, C)),
    "huber_loss": (_two_inputs(REGRESSION, LOGITS), "huber_loss", {"delta": 0.7}, (N, C)),
    "log_loss": (_two_inputs(LABELS01, PRED), "log_loss", {}, (N, C)),
    "mean_squared_error": (_two_inputs(REGRESSION, PRED), "mean_squared_error", {}, (N, C)),
    "sigmoid_cross_entropy": (_two_inputs(LABELS01, LOGITS), "sigmoid_cross_entropy", {}, (N, C)),
    "sigmoid_cross_entropy_smoothed": (
        _two_inputs(LABELS01, LOGITS),
        "sigmoid_cross_entropy",
        {"label_smoothing": 0.2},
        (N, C),
    ),
    "softmax_cross_entropy": (_two_inputs(ONEHOT, LOGITS), "softmax_cross_entropy", {}, (N,)),
    "softmax_cross_entropy_smoothed": (
        _two_inputs(ONEHOT, LOGITS),
        "softmax_cross_entropy",
        {"label_smoothing": 0.1},
        (N,),
    ),
    "sparse_softmax_cross_entropy": (
        _two_inputs(CLASS_IDS, LOGITS),
        "sparse_softmax_cross_entropy",
        {},
        (N,),
    ),
}


def _weights(form, loss_shape):
    """A weights value of the given form for a loss of ``loss_shape`` (None: default)."""
    if form == "default":
        return None
    if form == "float":
        return 2.5
    if form == "float_zero":
        return 0.0
    if form == "int_one":
        return 1
    if form == "scalar_tensor":
        return np.float32(0.5)
    w = np.round(RNG.uniform(0, 2, loss_shape), 1).astype(np.float32)
    w.flat[1] = 0.0  # zeros count in the SUM_BY_NONZERO_WEIGHTS denominators
    if form == "full":
        return w
    # per example: one weight per batch entry, broadcast over the remaining dimensions
    return w.reshape(-1)[: loss_shape[0]].reshape((loss_shape[0],) + (1,) * (len(loss_shape) - 1))


WEIGHT_FORMS = ("default", "float", "float_zero", "int_one", "scalar_tensor", "per_example", "full")
REDUCTIONS = (
    "none",
    "weighted_sum",
    "weighted_mean",
    "weighted_sum_over_batch_size",
    "weighted_sum_by_nonzero_weights",
)


def _program(loss_name, weight_form, reduction):
    build, fn_name, extra, loss_shape = LOSSES[loss_name]
    weights = _weights(weight_form, loss_shape)

    def program(tf):
        kw = dict(extra, reduction=reduction)
        if weights is not None:
            kw["weights"] = (
                tf.constant(weights, name="w") if isinstance(weights, np.ndarray) else weights
            )
        return build(tf, getattr(tf.losses, fn_name), **kw)

    return program


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight_form", WEIGHT_FORMS)
@pytest.mark.parametrize("loss_name", sorted(LOSSES))
def test_loss_values(loss_name, weight_form, reduction):
    assert_parity(_program(loss_name, weight_form, reduction), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("reduction", ["none", "weighted_mean", "weighted_sum_by_nonzero_weights"])
@pytest.mark.parametrize("weight_form", ["default", "int_one", "per_example", "full"])
@pytest.mark.parametrize("loss_name", sorted(LOSSES))
def test_loss_graph_def(loss_name, weight_form, reduction):
    assert_same_graph_def(_program(loss_name, weight_form, reduction))


def _collection_names(module, program, key):
    graph = run(module, program).graph
    return [t.name for t in graph.get_collection(key)]


@pytest.mark.parametrize("loss_name", sorted(LOSSES))
def test_loss_collection_and_scope(loss_name):
    build, fn_name, extra, _ = LOSSES[loss_name]

    def program(tf):
        loss, feeds = build(tf, getattr(tf.losses, fn_name), scope="my_loss", **extra)
        build(tf, getattr(tf.losses, fn_name), loss_collection="custom", **extra)
        build(tf, getattr(tf.losses, fn_name), loss_collection=None, **extra)
        return loss, feeds

    for key in ("losses", "custom"):
        ours = _collection_names(tfcompat, program, key)
        assert ours == _collection_names(tf1(), program, key)
        assert len(ours) == 1
    assert_same_graph_def(program)


@pytest.mark.parametrize("weight_form", ["default", "float_zero", "int_one", "per_example", "full"])
def test_mean_pairwise_squared_error(weight_form):
    labels = RNG.normal(size=(N, 3, 2)).astype(np.float32)
    preds = RNG.normal(size=(N, 3, 2)).astype(np.float32)
    weights = _weights(weight_form, (N, 1, 1) if weight_form == "per_example" else (N, 3, 2))

    def program(tf):
        kw = {} if weights is None else {"weights": weights}
        a, b = _pl(tf, labels, "labels"), _pl(tf, preds, "predictions")
        return tf.losses.mean_pairwise_squared_error(a, b, **kw), {a: labels, b: preds}

    assert_parity(program, rtol=1e-5, atol=1e-6)
    assert_same_graph_def(program)


@pytest.mark.parametrize("weights_shape", [(N, 1), (N, C), (1, C)])
def test_compute_weighted_loss_float64_and_broadcast(weights_shape):
    losses = RNG.uniform(size=(N, C))  # float64: the result is cast back
    weights = RNG.uniform(size=weights_shape).astype(np.float32)

    def program(tf):
        return [tf.losses.compute_weighted_loss(losses, weights, reduction=r) for r in REDUCTIONS]

    assert_parity(program)
    assert_same_graph_def(program)


def test_sparse_softmax_squeezes_labels_and_weights():
    labels = CLASS_IDS.reshape(N, 1)
    weights = np.arange(N, dtype=np.float32).reshape(N, 1)

    def program(tf):
        return tf.losses.sparse_softmax_cross_entropy(labels, LOGITS, weights=weights)

    assert_parity(program)
    assert_same_graph_def(program)


def test_total_and_regularization_losses():
    def program(tf):
        tf.losses.mean_squared_error(REGRESSION, PRED)
        tf.losses.add_loss(tf.constant(3.0, name="extra"))
        none_yet = tf.losses.get_regularization_loss()
        with tf.variable_scope("layer", regularizer=lambda w: 0.1 * tf.reduce_sum(w * w)):
            tf.get_variable("w", initializer=np.ones((2, 2), np.float32))
        return {
            "none_yet": none_yet,
            "reg": tf.losses.get_regularization_loss(),
            "reg_scoped": tf.losses.get_regularization_loss(scope="layer", name="scoped"),
            "total": tf.losses.get_total_loss(),
            "total_no_reg": tf.losses.get_total_loss(add_regularization_losses=False, name="t2"),
            "n_losses": len(tf.losses.get_losses()),
            "n_reg": len(tf.losses.get_regularization_losses()),
        }

    def tensors_only(tf):
        out = program(tf)
        return {k: v for k, v in out.items() if not isinstance(v, int)}

    theirs = program_counts = None
    with tf1().Graph().as_default():
        theirs = program(tf1())
    with tfcompat.Graph().as_default():
        program_counts = program(tfcompat)
    for key in ("n_losses", "n_reg"):
        assert program_counts[key] == theirs[key]
    assert_parity(tensors_only)
    assert_same_graph_def(tensors_only)


def test_reduction_enum():
    ours, theirs = tfcompat.losses.Reduction, tf1().losses.Reduction
    assert ours.all() == theirs.all()
    assert ours.SUM_OVER_NONZERO_WEIGHTS == theirs.SUM_OVER_NONZERO_WEIGHTS
    with pytest.raises(ValueError, match="Invalid Reduction Key bogus"):
        ours.validate("bogus")


ERROR_CASES = {
    "bad_reduction": lambda tf: tf.losses.mean_squared_error(REGRESSION, PRED, reduction="x"),
    "shape_mismatch": lambda tf: tf.losses.absolute_difference(REGRESSION, PRED[:, :2]),
    "weights_rank": lambda tf: tf.losses.mean_squared_error(
        REGRESSION, PRED, weights=np.ones(N, np.float32)
    ),
    "weights_dim": lambda tf: tf.losses.mean_squared_error(
        REGRESSION, PRED, weights=np.ones((N, 2), np.float32)
    ),
    "no_axis": lambda tf: tf.losses.cosine_distance(UNIT_A, UNIT_B),
    "axis_and_dim": lambda tf: tf.losses.cosine_distance(UNIT_A, UNIT_B, axis=1, dim=1),
    "none_labels": lambda tf: tf.losses.hinge_loss(None, LOGITS),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_construction_errors(case):
    build = ERROR_CASES[case]
    with tf1().Graph().as_default(), pytest.raises(ValueError) as theirs:
        build(tf1())
    with tfcompat.Graph().as_default(), pytest.raises(ValueError) as ours:
        build(tfcompat)
    first = lambda e: str(e.value).split(".")[0]  # noqa: E731 - messages name TF's tensors
    assert first(ours) == first(theirs)


def _unknown_shape_weights_loss(tf, weights):
    ph = tf.placeholder(tf.float32, None, name="w")
    return tf.losses.mean_squared_error(REGRESSION, PRED, weights=ph), {ph: weights}


RUNTIME_WEIGHTS = {
    "scalar": np.float32(0.5),
    "per_row": RNG.uniform(size=(N, 1)).astype(np.float32),
    "full": RNG.uniform(size=(N, C)).astype(np.float32),
}


@pytest.mark.parametrize("case", sorted(RUNTIME_WEIGHTS))
def test_runtime_broadcast_check(case):
    """Weights of unknown shape are checked at run time (set ops in a tf.cond, as TF)."""
    program = lambda tf: _unknown_shape_weights_loss(tf, RUNTIME_WEIGHTS[case])  # noqa: E731
    assert_parity(program, rtol=1e-5)
    assert_same_graph_def(program)


@pytest.mark.parametrize("bad", [(C,), (1, N, C), (N, 2)], ids=str)
def test_runtime_broadcast_check_fails(bad):
    """Weights that do not broadcast fail the run-time check, as in TF. Where the weighted
    product itself cannot broadcast ((N, 2)), tfcompat's device step fails when it is traced,
    before the check's flag is read: an InvalidArgumentError naming the Mul."""
    weights = np.ones(bad, np.float32)
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            loss, feed = _unknown_shape_weights_loss(tf, weights)
            with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(loss, feed)
            if tf is tf1() or bad != (N, 2):
                assert "weights can not be broadcast to values." in str(e.value)
