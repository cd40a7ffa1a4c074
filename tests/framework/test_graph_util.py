"""tf.graph_util against TF 2.21: extract_sub_graph, convert_variables_to_constants
(ref and resource variables, gathers, allow/deny lists) and remove_training_nodes give
TF's GraphDefs node for node; a frozen graph imports and computes what the session did,
here and in TF; must_run_on_cpu gives TF's answers."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1

W = np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0
TABLE = np.arange(10, dtype=np.float32).reshape(5, 2)
X = np.array([[1.0, -2.0, 0.5, 3.0], [0.0, 1.0, -1.0, 2.0]], np.float32)


def _model(tf, use_resource):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    ids = tf.placeholder(tf.int32, [None], name="ids")
    w = tf.get_variable("w", initializer=W, use_resource=use_resource)
    b = tf.get_variable("b", initializer=np.ones(3, np.float32), use_resource=use_resource)
    table = tf.get_variable("table", initializer=TABLE, use_resource=use_resource)
    checked = tf.check_numerics(tf.matmul(x, w), "bad")
    logits = tf.identity(tf.nn.relu(checked + b), name="logits")
    emb = tf.reduce_sum(tf.gather(table, ids), name="emb")
    loss = tf.reduce_sum(logits) + emb
    tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
    return {x: X, ids: np.array([0, 3, 3])}


def _nodes(graph_def):
    return [
        (
            n.name,
            n.op,
            list(n.input),
            {k: v.SerializeToString(deterministic=True) for k, v in n.attr.items()},
        )
        for n in graph_def.node
    ]


def _frozen(tf, use_resource, **kwargs):
    with tf.Graph().as_default() as graph:
        feed = _model(tf, use_resource)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            expected = sess.run(["logits:0", "emb:0"], {f.name: v for f, v in feed.items()})
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), ["logits", "emb"], **kwargs
            )
    return frozen, expected, {f.name: v for f, v in feed.items()}


def _run_imported(tf, graph_def, feed):
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            return sess.run(["logits:0", "emb:0"], feed)


@pytest.mark.parametrize("use_resource", [False, True])
def test_convert_variables_to_constants_matches_tf(use_resource):
    ours, ours_expected, feed = _frozen(tfcompat, use_resource)
    theirs, _, _ = _frozen(tf1(), use_resource)
    assert _nodes(ours) == _nodes(theirs)
    assert not any(n.op in ("VariableV2", "VarHandleOp") for n in ours.node)
    # the frozen graph computes what the session did, here and in TF
    theirs_parsed = tf1().GraphDef.FromString(ours.SerializeToString())
    for tf, graph_def in ((tfcompat, ours), (tf1(), theirs_parsed)):
        for got, want in zip(_run_imported(tf, graph_def, feed), ours_expected):
            np.testing.assert_allclose(got, want, rtol=1e-6)


def test_variable_allow_and_deny_lists_match_tf():
    for kwargs in ({"variable_names_whitelist": ["w"]}, {"variable_names_blacklist": ["b"]}):
        ours, _, _ = _frozen(tfcompat, False, **kwargs)
        theirs, _, _ = _frozen(tf1(), False, **kwargs)
        assert _nodes(ours) == _nodes(theirs)


def _graph_def(tf):
    with tf.Graph().as_default() as graph:
        _model(tf, False)
    return graph.as_graph_def()


def test_extract_sub_graph_and_remove_training_nodes_match_tf():
    ours, theirs = _graph_def(tfcompat), _graph_def(tf1())
    for dest in (["logits"], ["emb", "train"], ["b/read"]):
        assert _nodes(tfcompat.graph_util.extract_sub_graph(ours, dest)) == _nodes(
            tf1().graph_util.extract_sub_graph(theirs, dest)
        )
    sub_ours = tfcompat.graph_util.extract_sub_graph(ours, ["logits", "emb"])
    sub_theirs = tf1().graph_util.extract_sub_graph(theirs, ["logits", "emb"])
    for protected in (None, ["logits"]):
        assert _nodes(tfcompat.graph_util.remove_training_nodes(sub_ours, protected)) == _nodes(
            tf1().graph_util.remove_training_nodes(sub_theirs, protected)
        )


def test_graph_util_errors_match_tf():
    ours, theirs = _graph_def(tfcompat), _graph_def(tf1())
    for module, graph_def in ((tfcompat, ours), (tf1(), theirs)):
        with pytest.raises(AssertionError, match="nope is not in graph"):
            module.graph_util.extract_sub_graph(graph_def, ["nope"])
        with pytest.raises(TypeError, match="dest_nodes must be an iterable of strings"):
            module.graph_util.extract_sub_graph(graph_def, "logits")
        with pytest.raises(TypeError, match="graph_def must be a graph_pb2.GraphDef proto"):
            module.graph_util.extract_sub_graph("not a graph", ["logits"])


def test_must_run_on_cpu_matches_tf():
    ours, theirs = _graph_def(tfcompat), _graph_def(tf1())
    for pin in (False, True):
        assert [tfcompat.graph_util.must_run_on_cpu(n, pin) for n in ours.node] == [
            tf1().graph_util.must_run_on_cpu(n, pin) for n in theirs.node
        ]
