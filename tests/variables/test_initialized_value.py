"""``Variable.initialized_value()`` against TF 2.21: TF's ``cond`` on
``IsVariableInitialized`` (the initial value until the variable is initialized, its value
after), so an initializer computed from another variable runs on its own; GraphDef as TF's.
A variable whose initial value reads other variables directly gets the same guard (TF's
``_try_guard_against_uninitialized_dependencies``: the ops on the way copied as
``<op>_<scope>``), for ref and resource variables, on both backends."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_same_graph_def, tf1


def test_initialized_value_graph_matches_tf():
    def program(tf):
        v = tf.Variable(np.ones(3, np.float32), name="v")
        return [v.initialized_value() * 2]

    assert_same_graph_def(program)


def test_initializer_from_initialized_value_runs_before_and_after_like_tf():
    results = []
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            v = tf.Variable(np.ones(3, np.float32), name="v")
            w = tf.Variable(v.initialized_value() * 2, name="w")
            with tf.Session() as sess:
                sess.run(w.initializer)  # v not initialized: its initial value
                before = sess.run(w)
                sess.run(v.initializer)
                sess.run(v.assign([5.0, 5.0, 5.0]))
                sess.run(w.initializer)  # v initialized: its current value
                results.append((before, sess.run(w)))
    (tf_before, tf_after), (before, after) = results
    np.testing.assert_array_equal(before, tf_before)
    np.testing.assert_array_equal(after, tf_after)
    np.testing.assert_array_equal(after, [10.0, 10.0, 10.0])


def _reads_other_variables(tf, use_resource=False):
    a = tf.Variable(np.full(3, 2.0, np.float32), name="a")
    b = tf.Variable(a * 3.0 + 1.0, name="b", use_resource=use_resource)
    return a, b


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
def test_initial_value_reading_a_variable_is_guarded_like_tf(use_resource):
    def program(tf):
        return list(_reads_other_variables(tf, use_resource))

    assert_same_graph_def(program)


@pytest.mark.parametrize("backend", ["xla", "reference"])
@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
def test_initializer_reading_an_uninitialized_variable_runs_alone(use_resource, backend):
    def values(tf, **session_kwargs):
        with tf.Graph().as_default():
            a, b = _reads_other_variables(tf, use_resource)
            with tf.Session(**session_kwargs) as sess:
                sess.run(b.initializer)  # a uninitialized: its initial value
                alone = sess.run(b)
                sess.run(a.initializer)
                sess.run(a.assign([1.0, 2.0, 3.0]))
                sess.run(b.initializer)  # a initialized: its current value
                return [alone, sess.run(b)]

    theirs = values(tf1())
    ours = values(tfcompat, backend=backend)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(theirs[0], [7.0, 7.0, 7.0])
