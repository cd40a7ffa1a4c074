"""TF1 optimizers on resource variables against TF 2.21: ``ResourceApply*`` /
``ResourceSparseApply*`` updates (fed dense and sparse gradients, ``minimize`` on small
models, embedding lookups), resource slots and their names, one XLA call per step."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import graph_def_nodes, tf1
from tests.train.harness import OPTIMIZERS, assert_training_parity, fed_gradients, rng_values

STEPS = 20


def resource_variable(tf, value, name):
    return tf.Variable(value, name=name, use_resource=True)


def resource_fed_gradients(tf, optimizer, gs, sparse=True):
    """``harness.fed_gradients`` on resource variables."""
    return fed_gradients(tf, optimizer, gs, sparse=sparse, use_resource=True)


def embedding_regression(tf, optimizer, gs):
    """``get_variable(use_resource=True)`` tables; the lookup's gradient is IndexedSlices
    of a ``ResourceGather`` (duplicate ids in a batch)."""
    ids = tf.placeholder(tf.int32, (6,), name="ids")
    with tf.variable_scope("model", use_resource=True):
        emb = tf.get_variable("emb", initializer=rng_values(20, (10, 4)))
        w = tf.get_variable("w", initializer=rng_values(21, (4, 1)))
    y = tf.constant(rng_values(22, (6, 1)))
    rows = tf.nn.embedding_lookup(emb, ids)
    loss = tf.reduce_mean(tf.square(tf.matmul(rows, w) - y))

    def feed_fn(step):
        return {ids: np.random.default_rng(step).integers(0, 10, 6).astype(np.int32)}

    return optimizer.minimize(loss, global_step=gs), loss, feed_fn


def linear_regression(tf, optimizer, gs):
    x = tf.constant(rng_values(10, (8, 3)))
    y = tf.constant(rng_values(11, (8, 1)))
    w = resource_variable(tf, rng_values(12, (3, 1)), "w")
    b = resource_variable(tf, np.zeros((1,), np.float32), "b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    return optimizer.minimize(loss, global_step=gs), loss, lambda step: None


def _one_device_step(result):
    plan = result.metadata.executable.plan
    assert [s.kind for s in plan.segments if s.ops] == ["device"]
    assert result.metadata.executable.compile_count == 1


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_fed_dense_and_sparse_gradients_match_tf(name):
    theirs, ours = assert_training_parity(resource_fed_gradients, OPTIMIZERS[name], steps=STEPS)
    assert theirs.variables["global_step"] == STEPS
    _one_device_step(ours)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_minimize_embedding_lookup_matches_tf(name):
    _, ours = assert_training_parity(embedding_regression, OPTIMIZERS[name], steps=STEPS)
    _one_device_step(ours)


@pytest.mark.parametrize("name", ["adam", "momentum", "ftrl", "gradient_descent"])
def test_minimize_linear_regression_matches_tf(name):
    theirs, _ = assert_training_parity(linear_regression, OPTIMIZERS[name], steps=STEPS)
    assert theirs.history[-1] < theirs.history[0]


def _graph_nodes(tf, name, sparse):
    graph = tf.Graph()
    with graph.as_default():
        gs = tf.train.get_or_create_global_step()
        resource_fed_gradients(tf, OPTIMIZERS[name](tf, gs), gs, sparse=sparse)
    return graph_def_nodes(graph)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_dense_update_graph_matches_tf(name):
    """Node names, op types (``ResourceApply*``, resource slots), inputs and attrs."""
    ours, theirs = _graph_nodes(tfcompat, name, False), _graph_nodes(tf1(), name, False)
    assert sorted(ours) == sorted(theirs)
    for node, (op, inputs, attrs) in theirs.items():
        assert ours[node][0] == op, node
        assert ours[node][1] == inputs, node
        assert sorted(ours[node][2]) == sorted(k for k in attrs if k != "_output_shapes"), node
    assert any(op.startswith("ResourceApply") for op, _, _ in ours.values())


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_sparse_update_ops_match_tf(name):
    """The sparse update of ``emb`` is TF's, node for node (op, inputs): the deduplication
    (``Unique`` + ``UnsortedSegmentSum``) then ``ResourceSparseApply*`` /
    ``ResourceScatterAdd``..., so the graph computes the same in TF."""
    ours, theirs = _graph_nodes(tfcompat, name, True), _graph_nodes(tf1(), name, True)

    def update_nodes(nodes):
        return {n: (op, inputs) for n, (op, inputs, _) in nodes.items() if "/update_emb/" in n}

    expected = update_nodes(theirs)
    assert update_nodes(ours) == expected
    assert any(op.startswith("Resource") for op, _ in expected.values())


def test_adam_resource_slots_and_beta_powers_as_tf():
    def build(tf):
        graph = tf.Graph()
        with graph.as_default():
            w = resource_variable(tf, np.ones((2, 2), np.float32), "w")
            a = resource_variable(tf, np.ones((2,), np.float32), "a")
            with tf.name_scope("outer"):
                opt = tf.train.AdamOptimizer(0.1)
                opt.apply_gradients([(tf.ones((2, 2)), w), (tf.ones((2,)), a)])
            slots = [opt.get_slot(w, "m"), opt.get_slot(w, "v")]
            return (
                opt.get_slot_names(),
                [(s.name, s.op.type) for s in slots],
                [(v.name, v.op.type) for v in opt.variables()],
                graph.get_operation_by_name("outer/beta1_power").colocation_groups(),
            )

    ours = build(tfcompat)
    assert ours == build(tf1())
    assert ours[1] == [("w/Adam:0", "VarHandleOp"), ("w/Adam_1:0", "VarHandleOp")]


def test_ref_variable_slots_stay_ref_variables_when_resource_variables_are_enabled():
    """Slots follow their primary, whatever the default."""

    def build(tf):
        tf.enable_resource_variables()
        try:
            with tf.Graph().as_default():
                w = tf.Variable(np.ones((2,), np.float32), name="w", use_resource=False)
                opt = tf.train.MomentumOptimizer(0.1, 0.9)
                opt.apply_gradients([(tf.ones((2,)), w)])
                return opt.get_slot(w, "momentum").op.type
        finally:
            tf.disable_resource_variables()

    assert build(tfcompat) == build(tf1()) == "VariableV2"


@pytest.mark.parametrize("missing", ["w", "w/Momentum", "e/Momentum"])
def test_update_of_uninitialized_variable_raises_as_tf(missing):
    """An update whose variable or slot holds no value: TF's InternalError."""

    def message(tf, backend=None):
        with tf.Graph().as_default():
            w = resource_variable(tf, np.ones((2,), np.float32), "w")
            e = resource_variable(tf, np.ones((3, 2), np.float32), "e")
            sparse = tf.IndexedSlices(tf.ones((1, 2)), tf.constant([1]))
            opt = tf.train.MomentumOptimizer(0.1, 0.9)
            op = opt.apply_gradients([(tf.ones((2,)), w), (sparse, e)])
            kwargs = {"backend": backend} if backend else {}
            with tf.Session(**kwargs) as sess:
                sess.run([v.initializer for v in tf.global_variables() if v.op.name != missing])
                with pytest.raises(tf.errors.InternalError) as info:
                    sess.run(op)
        return info.value.message.split("\n")[-2:]

    theirs = message(tf1())
    assert theirs[0] == "Invalid variable reference."
    for backend in ("xla", "reference"):
        assert message(tfcompat, backend) == theirs
