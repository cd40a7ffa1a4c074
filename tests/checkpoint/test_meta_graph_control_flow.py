"""Control flow across MetaGraphDefs, against TF 2.21. The ``while_context`` /
``cond_context`` collections: the same program exported by both gives equal WhileContextDef
/ CondContextDef protos (names, pivots, enters and exits, values, external values, nested
contexts), and TF importing tfcompat's MetaGraphDef puts every op in the context TF's own
graph has and builds gradients through the imported loops and conds with TF's numbers. The
other way, tfcompat importing TF's MetaGraphDef recovers the loops from their dataflow well
enough for ``tf.gradients`` through them to give TF's numbers too."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1

X = np.array([0.5, -1.0, 1.5], np.float32)


def _cond_in_loop(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.Variable(np.array([1.0, 0.5, -0.5], np.float32), name="w")

    def body(i, v):
        return i + 1, tf.cond(i < 1, lambda: v * w, lambda: v + x)

    _, out = tf.while_loop(lambda i, v: i < 3, body, [0, x])
    loss = tf.reduce_sum(out * out)
    tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return loss


def _top_level_cond(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: tf.sin(x))
    return tf.reduce_sum(y)


def _nested_loops(tf):
    x = tf.placeholder(tf.float32, [3], name="x")

    def inner(i, y):
        return tf.while_loop(lambda j, z: j < i, lambda j, z: (j + 1, z * 0.5 + x), [0, y])[1]

    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, inner(i, y)), [0, x])
    loss = tf.reduce_sum(y)
    tf.gradients(loss, x)
    return loss


def _loop_in_cond(tf):
    x = tf.placeholder(tf.float32, [3], name="x")

    def looped():
        return tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v * x), [0, x])[1]

    y = tf.cond(x[0] > 0, looped, lambda: x)
    return tf.reduce_sum(y)


def _maximum_iterations(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    _, out = tf.while_loop(
        lambda i, v: v[0] < 100.0, lambda i, v: [i + 1, v * 2.0], [0, x], maximum_iterations=4
    )
    return tf.reduce_sum(out)


def _dynamic_rnn(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    inputs = tf.reshape(tf.tile(x, [8]), [2, 4, 3])
    with tf.variable_scope("rnn_scope", initializer=tf.constant_initializer(0.1)):
        cell = tf.nn.rnn_cell.BasicRNNCell(5, name="cell")
        outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
    loss = tf.reduce_sum(outputs)
    tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return loss


PROGRAMS = {
    "cond_in_loop": _cond_in_loop,
    "top_level_cond": _top_level_cond,
    "nested_loops": _nested_loops,
    "loop_in_cond": _loop_in_cond,
    "maximum_iterations": _maximum_iterations,
    "dynamic_rnn": _dynamic_rnn,
}


def _export(tf, program):
    graph = tf.Graph()
    with graph.as_default():
        program(tf)
        return tf.train.export_meta_graph().SerializeToString()


def _contexts(serialized):
    """``{collection: [context proto]}`` of a serialized MetaGraphDef, parsed by TF."""
    from tensorflow.core.protobuf import control_flow_pb2, meta_graph_pb2

    meta = meta_graph_pb2.MetaGraphDef.FromString(serialized)
    out = {}
    for key, proto_type in (
        ("while_context", control_flow_pb2.WhileContextDef),
        ("cond_context", control_flow_pb2.CondContextDef),
    ):
        if key in meta.collection_def:
            values = meta.collection_def[key].bytes_list.value
            out[key] = [proto_type.FromString(v) for v in values]
    return out


@pytest.mark.parametrize("name", PROGRAMS)
def test_context_protos_match_tf(name):
    theirs = _contexts(_export(tf1(), PROGRAMS[name]))
    ours = _contexts(_export(tfcompat, PROGRAMS[name]))
    assert theirs, "the program builds control flow"
    assert ours == theirs


def _import_into_tf(serialized):
    """TF's graph of a serialized MetaGraphDef, with ``{op name: context name}``."""
    tf = tf1()
    from tensorflow.core.protobuf import meta_graph_pb2

    graph = tf.Graph()
    with graph.as_default():
        tf.train.import_meta_graph(meta_graph_pb2.MetaGraphDef.FromString(serialized))
    contexts = {}
    for op in graph.get_operations():
        ctx = op._get_control_flow_context()
        contexts[op.name] = None if ctx is None else ctx.name
    return graph, contexts


@pytest.mark.parametrize("name", PROGRAMS)
def test_tf_imports_ops_into_tfs_contexts(name):
    _, ours = _import_into_tf(_export(tfcompat, PROGRAMS[name]))
    _, theirs = _import_into_tf(_export(tf1(), PROGRAMS[name]))
    assert ours == theirs


@pytest.mark.parametrize("name", ["cond_in_loop", "top_level_cond", "nested_loops", "dynamic_rnn"])
def test_tf_builds_gradients_through_imported_contexts(name):
    """tf.gradients of the loss with respect to ``x`` in TF, on tfcompat's imported graph
    and on TF's own: the same values."""
    tf = tf1()
    grads = []
    for framework in (tfcompat, tf):
        graph, _ = _import_into_tf(_export(framework, PROGRAMS[name]))
        with graph.as_default():
            loss = graph.get_tensor_by_name(_loss_name(framework, PROGRAMS[name]))
            x = graph.get_tensor_by_name("x:0")
            (grad,) = tf.gradients(loss, x)
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                grads.append(sess.run(grad, {x: X}))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)


def _loss_name(framework, program):
    graph = framework.Graph()
    with graph.as_default():
        return program(framework).name


@pytest.mark.parametrize("name", PROGRAMS)
def test_gradients_through_loops_imported_from_tf(name):
    """tf.gradients with respect to ``x`` built by tfcompat on TF's imported MetaGraphDef
    (TF's programs already hold a gradient loop, which is just another loop here), against
    TF's gradient on the same import."""
    tf = tf1()
    serialized = _export(tf, PROGRAMS[name])
    loss_name = _loss_name(tf, PROGRAMS[name])
    values = []
    for framework in (tfcompat, tf):
        graph = framework.Graph()
        with graph.as_default():
            framework.train.import_meta_graph(_parse_meta(framework, serialized))
            loss, x = graph.get_tensor_by_name(loss_name), graph.get_tensor_by_name("x:0")
            (grad,) = framework.gradients(loss, x)
            with framework.Session(graph=graph) as sess:
                sess.run(framework.global_variables_initializer())
                values.append(sess.run(grad, {x: X}))
    np.testing.assert_allclose(values[0], values[1], rtol=1e-5)


def _parse_meta(framework, serialized):
    if framework is tfcompat:
        from tfcompat.framework.proto import meta_graph_pb2
    else:
        from tensorflow.core.protobuf import meta_graph_pb2
    return meta_graph_pb2.MetaGraphDef.FromString(serialized)


def test_gradient_through_imported_loop_without_exit_raises():
    """A loop variable whose ``Exit`` a pruned GraphDef dropped: tf.gradients through the
    loop raises UnimplementedError naming it (rather than a wrong or missing gradient)."""
    from tfcompat.framework import errors

    tf = tf1()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        _, out = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), [0, x])
        tf.reduce_sum(out, name="loss")
    graph_def = graph.as_graph_def()
    kept = [n for n in graph_def.node if n.name != "while/Exit"]
    del graph_def.node[:]
    graph_def.node.extend(kept)
    ours = tfcompat.Graph()
    with ours.as_default():
        tfcompat.import_graph_def(_parse_graph_def(graph_def.SerializeToString()), name="")
        loss, x = ours.get_tensor_by_name("loss:0"), ours.get_tensor_by_name("x:0")
        with pytest.raises(errors.UnimplementedError, match="while/Enter:0.*has no Exit"):
            tfcompat.gradients(loss, x)


def _parse_graph_def(serialized):
    from tfcompat.framework.proto import graph_pb2

    return graph_pb2.GraphDef.FromString(serialized)


def _bn_rnn_training(tf, x, y):
    """A TF1 sequence model as such code is written: dynamic_rnn, batch norm with a
    training flag, Adam under ``control_dependencies(UPDATE_OPS)`` (TF then makes the
    forward loop's gradient bookkeeping wait for the batch-norm updates)."""
    tf.set_random_seed(1)
    xs = tf.placeholder(tf.float32, [None, 5, 3], name="x")
    ys = tf.placeholder(tf.float32, [None, 1], name="y")
    training = tf.placeholder_with_default(False, [], name="training")
    cell = tf.nn.rnn_cell.LSTMCell(4, initializer=tf.constant_initializer(0.1))
    out, _ = tf.nn.dynamic_rnn(cell, xs, dtype=tf.float32)
    h = tf.layers.batch_normalization(out[:, -1], training=training)
    p = tf.layers.dense(h, 1, kernel_initializer=tf.constant_initializer(0.3), name="head")
    loss = tf.losses.mean_squared_error(ys, p)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.AdamOptimizer(0.05).minimize(loss, name="train")
    tf.add_to_collection("train", train)
    tf.add_to_collection("loss", loss)
    return {xs: x, ys: y, training: True}, loss, train


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_training_graph_with_batch_norm_and_rnn_imported_from_tf(tmp_path, backend):
    """TF builds, initialises and checkpoints the model; tfcompat imports the MetaGraphDef,
    restores and keeps training with TF's losses (the loop's bookkeeping edges that wait for
    the updates would otherwise close a cycle through the loop run as one unit)."""
    tf = tf1()
    x = np.random.default_rng(3).normal(size=(8, 5, 3)).astype(np.float32)
    y = np.random.default_rng(4).normal(size=(8, 1)).astype(np.float32)
    path = str(tmp_path / "model")
    with tf.Graph().as_default():
        feed, loss, train = _bn_rnn_training(tf, x, y)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, path)
            theirs = [sess.run([loss, train], feed)[0] for _ in range(3)]
    with tfcompat.Graph().as_default():
        restorer = tfcompat.train.import_meta_graph(path + ".meta")
        loss = tfcompat.get_collection("loss")[0]
        train = tfcompat.get_collection("train")[0]
        feed = {"x:0": x, "y:0": y, "training:0": True}
        with tfcompat.Session(backend=backend) as sess:
            restorer.restore(sess, path)
            ours = [sess.run([loss, train], feed)[0] for _ in range(3)]
    np.testing.assert_allclose(ours, theirs, rtol=2e-5)
