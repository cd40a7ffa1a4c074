"""TF1 ref variables: construction, collections, initialization, updates — against TF 2.21."""

import numpy as np
import pytest

import tfcompat as tf
from tests.oracle import assert_parity, assert_same_graph_def, run, tf1


def _variable_program(tf):
    a = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="a")
    b = tf.Variable(np.float64(2.5), name="b", trainable=False)
    c = tf.Variable([1, 2, 3], name="c", dtype=tf.int64)
    d = tf.Variable(lambda: tf.constant(np.ones(2, np.float32)), name="d")
    return [a, b, c, d, a.value(), a.read_value(), d.initial_value]


def test_values_after_initialization():
    assert_parity(_variable_program)


def test_graph_def_of_variables_matches_tf():
    assert_same_graph_def(_variable_program)


def test_names_shapes_dtypes_and_collections_match_tf():
    def describe(module):
        graph = module.Graph()
        with graph.as_default():
            a = module.Variable(np.zeros((2, 3), np.float32), name="a")
            b = module.Variable(1.0, trainable=False, name="b")
            c = module.Variable(2, collections=[module.GraphKeys.LOCAL_VARIABLES], name="c")
            with module.name_scope("scope"):
                d = module.Variable(3.0)
            return {
                "names": [v.name for v in (a, b, c, d)],
                "ops": [v.op.name for v in (a, b, c, d)],
                "dtypes": [v.dtype.name for v in (a, b, c, d)],
                "shapes": [v.shape.as_list() for v in (a, b, c, d)],
                "global": [v.name for v in module.global_variables()],
                "local": [v.name for v in module.local_variables()],
                "trainable": [v.name for v in module.trainable_variables()],
                "initializer": a.initializer.name,
                "initial_value": a.initial_value.name,
                "value": a.value().name,
                "repr": repr(a),
            }

    assert describe(tf) == describe(tf1())


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_updates(backend):
    def program(tf):
        v = tf.Variable(np.zeros((4, 2), np.float32), name="v")
        ops = [
            tf.assign(v, np.ones((4, 2), np.float32)),
            tf.assign_add(v, np.full((4, 2), 2.0, np.float32)),
            tf.assign_sub(v, np.full((4, 2), 0.5, np.float32)),
            tf.scatter_update(v, [0, 2], np.full((2, 2), 7.0, np.float32)),
            tf.scatter_add(v, [1, 1], np.ones((2, 2), np.float32)),
            tf.scatter_sub(v, np.array([3]), np.ones((1, 2), np.float32)),
        ]
        return v, ops

    for module in (tf1(), tf):
        graph = module.Graph()
        with graph.as_default():
            v, ops = program(module)
            kwargs = {"backend": backend} if module is tf else {}
            with module.Session(graph=graph, **kwargs) as sess:
                sess.run(v.initializer)
                seen = [sess.run(op) for op in ops]
        if module is not tf:
            expected = seen
    for ours, theirs in zip(seen, expected):
        np.testing.assert_array_equal(ours, theirs)


def test_variable_methods():
    def program(tf):
        v = tf.Variable(np.float32(1.0), name="v")
        return [v.assign(4.0), v.assign_add(1.0), v.assign_sub(2.0)]

    for module in (tf1(), tf):
        graph = module.Graph()
        with graph.as_default():
            ops = program(module)
            with module.Session(graph=graph) as sess:
                sess.run(module.global_variables_initializer())
                values = [sess.run(op) for op in ops]
        assert values == [4.0, 5.0, 3.0]


def test_initialization_reporting():
    def program(tf):
        a = tf.Variable(1.0, name="a")
        b = tf.Variable(2.0, name="b")
        c = tf.Variable(3.0, name="c", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        return a, b, c

    for module in (tf1(), tf):
        graph = module.Graph()
        with graph.as_default():
            a, b, c = program(module)
            report = module.report_uninitialized_variables()
            flags = [module.is_variable_initialized(v) for v in (a, b, c)]
            with module.Session(graph=graph) as sess:
                before = sess.run(report)
                sess.run(module.variables_initializer([a]))
                middle = (sess.run(report), sess.run(flags))
                sess.run(
                    [module.global_variables_initializer(), module.local_variables_initializer()]
                )
                after = sess.run(report)
        result = (list(before), list(middle[0]), list(middle[1]), list(after))
        if module is not tf:
            expected = result
    assert result == expected
    assert expected[0] == [b"a", b"b", b"c"]


def test_uninitialized_read_raises_failed_precondition_naming_it():
    v = tf.Variable(1.0, name="weights")
    doubled = tf.identity(v)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value weights"):
            sess.run(doubled)


def test_variable_initialized_from_another_variable():
    def program(tf):
        a = tf.Variable(np.float32(3.0), name="a")
        b = tf.Variable(a.initialized_value() + 1.0, name="b")
        return b

    theirs = run(tf1(), program).values
    ours = run(tf, program).values
    assert ours == theirs == 4.0


def test_validate_shape_false_allows_new_shape():
    v = tf.Variable(np.zeros(2, np.float32), validate_shape=False, name="v")
    grow = tf.assign(v, np.ones(5, np.float32), validate_shape=False)
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(grow)
        np.testing.assert_array_equal(sess.run(v), np.ones(5))


def test_variable_requires_initial_value_and_list_collections():
    with pytest.raises(ValueError, match="initial_value must be specified"):
        tf.Variable()
    with pytest.raises(ValueError, match="collections argument"):
        tf.Variable(1.0, collections="x")
