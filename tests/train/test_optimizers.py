"""TF1 optimizers against TF 2.21: 50 steps of updates with fed dense and sparse gradients,
and of ``minimize`` on small models; names of slots and variables; one XLA call per step.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1
from tests.train.harness import (
    OPTIMIZERS,
    assert_training_parity,
    fed_gradients,
    rng_values,
    train,
)


def linear_regression(tf, optimizer, gs, **minimize_kwargs):
    """``mean((x @ w + b - y)**2)`` minimized with ``minimize``."""
    x = tf.constant(rng_values(10, (8, 3)))
    y = tf.constant(rng_values(11, (8, 1)))
    w = tf.Variable(rng_values(12, (3, 1)), name="w")
    b = tf.Variable(np.zeros((1,), np.float32), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    return optimizer.minimize(loss, global_step=gs, **minimize_kwargs), loss, lambda step: None


def embedding_regression(tf, optimizer, gs):
    """A gather from an embedding table (IndexedSlices gradient with duplicate ids)."""
    ids = tf.placeholder(tf.int32, (6,), name="ids")
    emb = tf.Variable(rng_values(20, (10, 4)), name="emb")
    w = tf.Variable(rng_values(21, (4, 1)), name="w")
    y = tf.constant(rng_values(22, (6, 1)))
    rows = tf.gather(emb, ids)
    loss = tf.reduce_mean(tf.square(tf.matmul(rows, w) - y))

    def feed_fn(step):
        return {ids: np.random.default_rng(step).integers(0, 10, 6).astype(np.int32)}

    return optimizer.minimize(loss, global_step=gs), loss, feed_fn


# ---------------------------------------------------------------------------------------------
# Update math and names with fed gradients
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_fed_dense_and_sparse_gradients_match_tf(name):
    theirs, ours = assert_training_parity(fed_gradients, OPTIMIZERS[name])
    assert theirs.variables["global_step"] == 50
    # A training step is one XLA executable: no host segment, one device segment.
    plan = ours.metadata.executable.plan
    assert len(plan.device_segments) == 1
    assert [s.kind for s in plan.segments if s.ops] == ["device"]
    assert ours.metadata.executable.compile_count == 1
    assert ours.metadata.executable.run_count == 50


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_dense_update_graph_matches_tf(name):
    """Node names, op types, inputs and attrs of a dense ``apply_gradients`` graph."""
    from tests.oracle import graph_def_nodes

    def build(tf):
        graph = tf.Graph()
        with graph.as_default():
            gs = tf.train.get_or_create_global_step()
            fed_gradients(tf, OPTIMIZERS[name](tf, gs), gs, sparse=False)
        return graph_def_nodes(graph)

    ours, theirs = build(tfcompat), build(tf1())
    assert sorted(ours) == sorted(theirs)
    for node, (op, inputs, attrs) in theirs.items():
        assert ours[node][0] == op, node
        assert ours[node][1] == inputs, node
        assert sorted(ours[node][2]) == sorted(k for k in attrs if k != "_output_shapes"), node


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_sparse_update_ops_match_tf(name):
    """The sparse update is TF's, node for node (op, inputs): the deduplication of the
    gradient rows (``Unique`` + ``UnsortedSegmentSum``, none for GradientDescent's
    ``ScatterSub``) then ``SparseApplyX`` / ``ScatterAdd``..., so the graph computes the
    same in TF."""
    from tests.oracle import graph_def_nodes

    def build(tf):
        graph = tf.Graph()
        with graph.as_default():
            gs = tf.train.get_or_create_global_step()
            fed_gradients(tf, OPTIMIZERS[name](tf, gs), gs)
        return graph_def_nodes(graph)

    def update_nodes(nodes):
        return {n: (op, inputs) for n, (op, inputs, _) in nodes.items() if "/update_emb/" in n}

    ours, theirs = build(tfcompat), build(tf1())
    assert update_nodes(ours) == update_nodes(theirs)


def test_adam_slots_and_beta_powers_as_tf():
    """``w/Adam`` (m), ``w/Adam_1`` (v); beta powers colocated with the first variable by
    name and created in the caller's name scope; slots ignore the name scope."""

    def build(tf):
        graph = tf.Graph()
        with graph.as_default():
            w = tf.Variable(np.ones((2, 2), np.float32), name="w")
            a = tf.Variable(np.ones((2,), np.float32), name="a")
            with tf.name_scope("outer"):
                opt = tf.train.AdamOptimizer(0.1)
                opt.apply_gradients([(tf.ones((2, 2)), w), (tf.ones((2,)), a)])
            return (
                opt.get_slot_names(),
                opt.get_slot(w, "m").name,
                opt.get_slot(w, "v").name,
                [v.name for v in opt.variables()],
                graph.get_operation_by_name("outer/beta1_power").colocation_groups(),
            )

    assert build(tfcompat) == build(tf1())
    assert build(tfcompat)[1:3] == ("w/Adam:0", "w/Adam_1:0")


def test_gradient_descent_sparse_scatter_sub_sums_duplicates():
    """SGD's sparse path is one ScatterSub of the rows (duplicates add up), as in TF."""
    theirs, _ = assert_training_parity(fed_gradients, OPTIMIZERS["gradient_descent"], steps=3)
    assert "GradientDescent/update_emb/ScatterSub" in [
        op.name for op in theirs.graph.get_operations()
    ]


# ---------------------------------------------------------------------------------------------
# minimize on small models
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_minimize_linear_regression_matches_tf(name):
    theirs, ours = assert_training_parity(linear_regression, OPTIMIZERS[name])
    assert theirs.history[-1] < theirs.history[0] or name.startswith("adagrad_da")
    assert len(ours.metadata.executable.plan.device_segments) == 1


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_minimize_embedding_lookup_matches_tf(name):
    theirs, ours = assert_training_parity(embedding_regression, OPTIMIZERS[name])
    plan = ours.metadata.executable.plan
    assert [s.kind for s in plan.segments if s.ops] == ["device"]


# ---------------------------------------------------------------------------------------------
# API behaviour and errors
# ---------------------------------------------------------------------------------------------
def _both(fn):
    return fn(tfcompat), fn(tf1())


def test_apply_gradients_increments_global_step_and_records_train_op():
    def build(tf):
        with tf.Graph().as_default():
            w = tf.Variable(np.ones((2,), np.float32), name="w")
            gs = tf.train.get_or_create_global_step()
            op = tf.train.GradientDescentOptimizer(0.5).apply_gradients(
                [(tf.constant([1.0, 2.0]), w)], global_step=gs, name="step"
            )
            assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [op]
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(3):
                    sess.run(op)
                return op.name, op.type, sess.run([w, gs])

    ours, theirs = _both(build)
    assert ours[:2] == theirs[:2] == ("step", "AssignAdd")
    np.testing.assert_allclose(ours[2][0], theirs[2][0])
    assert ours[2][1] == theirs[2][1] == 3


@pytest.mark.parametrize(
    "case, message",
    [
        ("no_gradients", "No gradients provided for any variable"),
        ("no_variables", "No variables provided."),
        ("int_loss", "Invalid type tf.int32"),
        ("minimize_unconnected", "No gradients provided for any variable, check your graph"),
        ("no_variables_to_optimize", "No variables to optimize."),
    ],
)
def test_value_errors_as_tf(case, message):
    def build(tf):
        with tf.Graph().as_default():
            w = tf.Variable(np.ones((2,), np.float32), name="w")
            opt = tf.train.GradientDescentOptimizer(0.1)
            with pytest.raises(ValueError, match=message) as info:
                if case == "no_gradients":
                    opt.apply_gradients([(None, w)])
                elif case == "no_variables":
                    opt.apply_gradients([])
                elif case == "int_loss":
                    opt.compute_gradients(tf.constant(1))
                elif case == "minimize_unconnected":
                    opt.minimize(tf.constant(1.0) * 2.0, var_list=[w])
                else:
                    opt.compute_gradients(tf.constant(1.0), var_list=[])
            return str(info.value).split(":")[0]

    ours, theirs = _both(build)
    assert ours == theirs


def test_constructor_errors_as_tf():
    for make in (
        lambda tf: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0),
        lambda tf: tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=-1.0),
        lambda tf: tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5),
        lambda tf: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0),
        lambda tf: tf.train.AdagradDAOptimizer(0.1, None, 0.0),
        lambda tf: tf.train.Optimizer(False, ""),
    ):
        messages = []
        for tf in (tfcompat, tf1()):
            with pytest.raises(ValueError) as info:
                make(tf)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


def test_compute_gradients_returns_none_for_unconnected_variables():
    with tfcompat.Graph().as_default():
        w = tfcompat.Variable(np.ones((2,), np.float32), name="w")
        v = tfcompat.Variable(np.ones((2,), np.float32), name="v")
        loss = tfcompat.reduce_sum(w * 3.0)
        pairs = tfcompat.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
        assert [p[1] for p in pairs] == [w, v]
        assert pairs[1][0] is None and pairs[0][0] is not None


@pytest.mark.parametrize("gate", [0, 1, 2])
def test_gate_gradients_values_match_tf(gate):
    """GATE_NONE / GATE_OP / GATE_GRAPH change only the ordering, not the values."""
    assert_training_parity(
        lambda tf, opt, gs: linear_regression(tf, opt, gs, gate_gradients=gate),
        OPTIMIZERS["momentum"],
        steps=5,
    )


def test_get_slot_for_unknown_variable_is_none():
    with tfcompat.Graph().as_default():
        w = tfcompat.Variable(np.ones((2,), np.float32), name="w")
        opt = tfcompat.train.MomentumOptimizer(0.1, 0.9)
        assert opt.get_slot(w, "momentum") is None
        opt.apply_gradients([(tfcompat.ones((2,)), w)])
        assert opt.get_slot(w, "momentum").name == "w/Momentum:0"
        assert opt.get_slot(w, "nope") is None
        assert opt.get_name() == "Momentum"


def test_train_compat_v1_namespace():
    assert tfcompat.compat.v1.train.AdamOptimizer is tfcompat.train.AdamOptimizer
    assert tfcompat.train.write_graph is not None


def test_optimizer_xla_run_is_one_call_per_step():
    """After the first step, further steps reuse the compiled executable."""
    result = train(tfcompat, fed_gradients, OPTIMIZERS["adam"], steps=4, backend="xla")
    executable = result.metadata.executable
    assert executable.compile_count == 1
    assert executable.run_count == 4


def test_deduplication_runs_in_the_one_step_and_its_values_stay_exact_when_fetched():
    """TF's deduplication (Unique + UnsortedSegmentSum) of a sparse gradient runs inside
    the training step's one XLA call, at static size; fetching its values puts the Unique
    on the host with its exact size (the device form's padding is never seen)."""
    from lowering import plan as plan_lib

    graph = tfcompat.Graph()
    with graph.as_default():
        ids = tfcompat.placeholder(tfcompat.int64, [None], name="ids")
        table = tfcompat.Variable(np.arange(12, dtype=np.float32).reshape(6, 2), name="table")
        loss = tfcompat.reduce_sum(tfcompat.nn.embedding_lookup(table, ids) ** 2)
        train = tfcompat.train.AdagradOptimizer(0.1).minimize(loss)
        unique_op = graph.get_operation_by_name("Adagrad/update_table/Unique")
        summed = graph.get_tensor_by_name("Adagrad/update_table/UnsortedSegmentSum:0")
        feed = {ids: np.array([3, 1, 3, 3, 0])}
        step = plan_lib.build_plan([], [train], [ids])
        assert [s.kind for s in step.segments] == ["device"]
        fetching = plan_lib.build_plan([summed], [], [ids])
        assert any(unique_op in s.ops for s in fetching.segments if s.kind == "host")
        with tfcompat.Session() as sess:
            sess.run(tfcompat.global_variables_initializer())
            rows = sess.run(summed, feed)
        np.testing.assert_allclose(rows, [[36.0, 42.0], [4.0, 6.0], [0.0, 2.0]])  # 3, 1, 0
