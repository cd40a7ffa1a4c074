"""Resource variables (``use_resource=True``) against TF 2.21's ``tf.compat.v1``: graph
structure and node names, values of reads, assignments and scatters, gradients, errors."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1


def _table(seed, shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def creation(tf):
    """Every way of creating one: tf.Variable, get_variable, variable_scope's default."""
    v = tf.Variable(_table(0, (3, 2)), name="v", use_resource=True)
    c = tf.Variable([1, 2, 3], name="c", dtype=tf.int64, use_resource=True)
    f = tf.Variable(lambda: tf.ones((2,)), name="f", use_resource=True, trainable=False)
    with tf.name_scope("outer"):
        s = tf.Variable(2.5, use_resource=True)
    w = tf.get_variable("w", shape=(4, 2), initializer=tf.ones_initializer(), use_resource=True)
    with tf.variable_scope("scope", use_resource=True):
        u = tf.get_variable("u", initializer=tf.constant_initializer(0.5), shape=(2,))
        z = tf.get_variable("z", [3], dtype=tf.int32)
    return [v, c, f, s, w, u, z]


def reads(tf):
    v = tf.Variable(_table(1, (3, 2)), name="v", use_resource=True)
    w = tf.get_variable("w", initializer=_table(2, (5, 3)), use_resource=True)
    ids = tf.constant([4, 0, 4], name="ids")
    return [
        v.read_value(),
        v.value(),
        v + 1.0,
        tf.matmul(v, v, transpose_b=True),
        tf.identity(v),
        v.sparse_read([2, 0]),
        tf.gather(w, ids),
        tf.nn.embedding_lookup(w, ids),
        tf.nn.embedding_lookup(w, [[1, 2], [3, 3]], name="lookup"),
        v[1:, 0],
    ]


def writes(tf):
    """Assignments and scatters, ordered by control dependencies, then a final read."""
    v = tf.Variable(_table(3, (4, 2)), name="v", use_resource=True)
    i = tf.Variable([1, 2, 3], name="i", use_resource=True)
    a = v.assign(_table(4, (4, 2)))
    with tf.control_dependencies([a]):
        b = v.assign_add(tf.ones((4, 2)), read_value=False)
    with tf.control_dependencies([b]):
        c = tf.assign_sub(v, 0.5 * tf.ones((4, 2)))
    with tf.control_dependencies([c.op]):
        d = v.scatter_add(tf.IndexedSlices(tf.ones((2, 2)), tf.constant([0, 0])))
    with tf.control_dependencies([d.op]):
        e = tf.scatter_update(v, [3], [[7.0, 8.0]])
    with tf.control_dependencies([e.op]):
        f = tf.scatter_sub(v, tf.constant([1]), tf.ones((1, 2)), name="sub")
    with tf.control_dependencies([f.op]):
        g = v.scatter_max(tf.IndexedSlices(tf.fill((1, 2), 100.0), tf.constant([2])))
    with tf.control_dependencies([g.op]):
        h = tf.assign_add(i, [10, 20, 30])
    with tf.control_dependencies([h.op]):
        final = v.read_value()
    # Each write's result reads after that write only: TF leaves the order of those reads
    # and later writes open, so only reads after the last writes are compared.
    return [final, h]


@pytest.mark.parametrize("program", [creation, reads, writes])
def test_graph_def_matches_tf(program):
    assert_same_graph_def(program)


@pytest.mark.parametrize("program", [creation, reads, writes])
def test_values_match_tf(program):
    assert_parity(program)


def test_properties_and_collections_match_tf():
    def describe(tf):
        graph = tf.Graph()
        with graph.as_default():
            v = tf.Variable(np.zeros((2, 3), np.float32), name="v", use_resource=True)
            n = tf.Variable(1.0, name="n", trainable=False, use_resource=True)
            loc = tf.Variable(2, collections=[tf.GraphKeys.LOCAL_VARIABLES], use_resource=True)
            a = v.assign(np.ones((2, 3), np.float32))
            return {
                "names": [x.name for x in (v, n, loc)],
                "ops": [x.op.name for x in (v, n, loc)],
                "types": [x.op.type for x in (v, n, loc)],
                "dtypes": [x.dtype.name for x in (v, n, loc)],
                "shapes": [x.shape.as_list() for x in (v, n, loc)],
                "initializers": [x.initializer.name for x in (v, n, loc)],
                "handle": (v.handle.name, v.handle.dtype.name, v.handle.shape.as_list()),
                "trainable": [x.trainable for x in (v, n, loc)],
                "global": [x.name for x in tf.global_variables()],
                "trainable_vars": [x.name for x in tf.trainable_variables()],
                "local": [x.name for x in tf.local_variables()],
                "assign": (a.name, a.op.name, a.op.type, a.shape.as_list()),
                "graph_element": v._as_graph_element().name,
            }

    assert describe(tfcompat) == describe(tf1())


def test_initialized_value_is_not_implemented_as_tf():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            v = tf.Variable(1.0, use_resource=True)
            with pytest.raises(NotImplementedError):
                v.initialized_value()


def test_is_initialized_and_report_uninitialized_match_tf():
    def program(tf):
        v = tf.Variable(1.0, name="v", use_resource=True)
        w = tf.Variable(2.0, name="w", use_resource=True)
        r = tf.Variable(3.0, name="r")
        with tf.Session() as sess:
            sess.run(v.initializer)
            return sess.run(
                [
                    v.is_initialized(),
                    tf.is_variable_initialized(w),
                    tf.report_uninitialized_variables(),
                    tf.report_uninitialized_variables([v, r]),
                ]
            )

    results = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            results.append(program(tf))
    ours, theirs = results
    assert [bool(x) for x in ours[:2]] == [bool(x) for x in theirs[:2]] == [True, False]
    np.testing.assert_array_equal(ours[2], theirs[2])
    np.testing.assert_array_equal(ours[3], theirs[3])


# ---------------------------------------------------------------------------------------------
# enable_resource_variables and use_resource defaults
# ---------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _resource_variables_enabled(tf):
    """Turns resource variables on for the block (TF's switch is process-wide)."""
    tf.enable_resource_variables()
    try:
        yield
    finally:
        tf.disable_resource_variables()


def test_enable_resource_variables_matches_tf():
    def describe(tf):
        kinds = [tf.resource_variables_enabled()]
        with tf.Graph().as_default():
            kinds.append(tf.Variable(1.0, name="a").op.type)
            with _resource_variables_enabled(tf):
                kinds.append(tf.resource_variables_enabled())
                kinds.append(tf.Variable(1.0, name="b").op.type)
                kinds.append(tf.get_variable("c", [2]).op.type)
                kinds.append(tf.Variable(1.0, name="d", use_resource=False).op.type)
                with tf.variable_scope("s", use_resource=False):
                    kinds.append(tf.get_variable("e", [2]).op.type)
            kinds.append(tf.resource_variables_enabled())
            kinds.append(tf.get_variable("f", [2]).op.type)
        return kinds

    ours, theirs = describe(tfcompat), describe(tf1())
    assert ours == theirs
    assert ours[:5] == [False, "VariableV2", True, "VarHandleOp", "VarHandleOp"]
    assert ours[5:] == ["VariableV2", "VariableV2", False, "VariableV2"]


def test_compat_v1_names():
    v1 = tfcompat.compat.v1
    assert v1.enable_resource_variables is tfcompat.enable_resource_variables
    assert v1.resource_variables_enabled is tfcompat.resource_variables_enabled


# ---------------------------------------------------------------------------------------------
# Gradients: the read passes the gradient to the handle; a gather gives IndexedSlices
# ---------------------------------------------------------------------------------------------
def gradients(tf):
    v = tf.Variable(_table(5, (3, 2)), name="v", use_resource=True)
    w = tf.get_variable("w", initializer=_table(6, (6, 2)), use_resource=True)
    ids = tf.constant([5, 1, 5, 0])
    loss = tf.reduce_sum(v * v) + tf.reduce_sum(tf.square(tf.nn.embedding_lookup(w, ids)))
    dv, dw = tf.gradients(loss, [v, w])
    assert isinstance(dw, tf.IndexedSlices)
    return [dv, dw.values, dw.indices, dw.dense_shape]


def test_gradients_match_tf():
    assert_parity(gradients, rtol=1e-5, atol=1e-5)


def test_gradients_graph_matches_tf():
    assert_same_graph_def(gradients)


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------
def _run_error(tf, build, backend=None):
    """Runs ``build``'s fetch after initializing only ``w``; returns (class, message)."""
    graph = tf.Graph()
    with graph.as_default():
        w = tf.Variable(1.0, name="w", use_resource=True)
        fetch = build(tf)
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(**kwargs) as sess:
            sess.run(w.initializer)
            with pytest.raises(Exception) as info:
                sess.run(fetch)
    error = info.value
    return type(error).__name__, error.message.split("\n\t")[-2].split("\n")[-1]


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.Variable(1.0, name="v", use_resource=True) + 1.0,
        lambda tf: tf.Variable(1.0, name="v", use_resource=True),
        lambda tf: tf.Variable(1.0, name="v", use_resource=True).assign_add(1.0).op,
        lambda tf: tf.gather(tf.Variable([1.0], name="v", use_resource=True), [0]),
    ],
    ids=["read", "fetch", "assign_add", "gather"],
)
@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_uninitialized_errors_match_tf(build, backend):
    assert _run_error(tfcompat, build, backend) == _run_error(tf1(), build)


def test_assign_of_incompatible_shape_raises_value_error_as_tf():
    messages = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            v = tf.Variable(np.zeros((2, 3), np.float32), name="v", use_resource=True)
            with pytest.raises(ValueError) as info:
                v.assign(np.zeros((3, 2), np.float32))
            messages.append(str(info.value))
    assert messages[0] == messages[1]


# ---------------------------------------------------------------------------------------------
# GraphDefs written by TF
# ---------------------------------------------------------------------------------------------
def _training_graph_def(tf):
    """A GraphDef of resource variables, an embedding lookup and an SGD step."""
    with tf.Graph().as_default() as graph:
        w = tf.Variable(_table(7, (5, 2)), name="w", use_resource=True)
        b = tf.get_variable("b", initializer=np.ones(2, np.float32), use_resource=True)
        ids = tf.placeholder(tf.int32, (3,), name="ids")
        loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(w, ids) + b))
        tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        tf.identity(loss, name="loss")
        tf.group(w.initializer, b.initializer, name="init")
    graph_def = graph.as_graph_def()
    return tf1().GraphDef.FromString(graph_def.SerializeToString())


def _run_imported(tf, graph_def, backend=None):
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(**kwargs) as sess:
            sess.run("init")
            feed = {"ids:0": np.array([4, 0, 4], np.int32)}
            losses = [sess.run(["loss:0", "train"], feed)[0] for _ in range(3)]
            return losses, sess.run(["w/Read/ReadVariableOp:0", "b/Read/ReadVariableOp:0"])


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_import_of_tf_graph_def_runs_as_in_tf(backend):
    graph_def = _training_graph_def(tf1())
    assert {"VarHandleOp", "ResourceGather", "ResourceScatterAdd"} <= {n.op for n in graph_def.node}
    ours = _run_imported(tfcompat, graph_def, backend)
    theirs = _run_imported(tf1(), graph_def)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_our_graph_def_runs_in_tf():
    graph_def = _training_graph_def(tfcompat)
    ours = _run_imported(tfcompat, graph_def)
    theirs = _run_imported(tf1(), graph_def)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
