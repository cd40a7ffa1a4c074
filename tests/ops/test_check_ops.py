"""``tf.debugging.assert_*`` vs TF 2.21: GraphDefs, passing and failing runs (static
failures at construction, dynamic ones from Session.run), rank and dtype checks."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_same_graph_def, run, tf1

BINARY = {
    "assert_equal": ([1, 2], [1, 2], [1, 3]),
    "assert_none_equal": ([1, 2], [3, 4], [1, 4]),
    "assert_less": ([1, 2], [2, 3], [2, 2]),
    "assert_less_equal": ([1, 2], [1, 3], [2, 1]),
    "assert_greater": ([2, 3], [1, 2], [2, 2]),
    "assert_greater_equal": ([2, 3], [2, 2], [1, 4]),
}
UNARY = {
    "assert_positive": ([1.0, 2.0], [0.0, 1.0]),
    "assert_negative": ([-1.0, -2.0], [-1.0, 0.0]),
    "assert_non_negative": ([0.0, 2.0], [-1.0, 1.0]),
    "assert_non_positive": ([0.0, -2.0], [1.0, -1.0]),
}


def _guarded(tf, check, value):
    """``value`` computed after ``check`` (so running it runs the assert)."""
    with tf.control_dependencies([check]):
        return tf.identity(value)


@pytest.mark.parametrize("kind", sorted(BINARY))
def test_binary_assert_graphs_and_runs_match_tf(kind):
    x, y_ok, y_bad = BINARY[kind]

    def program(tf, y_value=y_ok):
        xp = tf.placeholder(tf.int32, [2], name="xp")
        check = getattr(tf.debugging, kind)(xp, tf.constant(y_value), message="msg")
        return _guarded(tf, check, xp), {xp: np.array(x, np.int32)}

    assert_same_graph_def(program)
    for tf in (tfcompat, tf1()):
        np.testing.assert_array_equal(run(tf, program).values, x)
        with pytest.raises(tf.errors.InvalidArgumentError, match="msg"):
            run(tf, lambda t: program(t, y_bad))


@pytest.mark.parametrize("kind", sorted(BINARY))
def test_binary_assert_of_constants_fails_at_construction(kind):
    x, _, y_bad = BINARY[kind]
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(tf.errors.InvalidArgumentError, match="did not hold"):
                getattr(tf, kind)(tf.constant(x), tf.constant(y_bad))


@pytest.mark.parametrize("kind", sorted(UNARY))
def test_sign_assert_graphs_and_runs_match_tf(kind):
    ok, bad = UNARY[kind]

    def program(tf, value=ok):
        xp = tf.placeholder(tf.float32, [2], name="xp")
        check = getattr(tf.debugging, kind)(xp, name="check")
        return _guarded(tf, check, xp), {xp: np.array(value, np.float32)}

    assert_same_graph_def(program)
    for tf in (tfcompat, tf1()):
        np.testing.assert_array_equal(run(tf, program).values, ok)
        with pytest.raises(tf.errors.InvalidArgumentError, match="did not hold"):
            run(tf, lambda t: program(t, bad))


def test_assert_equal_of_a_tensor_with_itself_is_a_no_op():
    def program(tf):
        x = tf.constant([1.0])
        return _guarded(tf, tf.assert_equal(x, x), x)

    assert_same_graph_def(program)


RANK_CASES = {
    "rank_ok": ("assert_rank", [2, 3], 2, None),
    "rank_bad": ("assert_rank", [2, 3], 1, "must have rank 1"),
    "at_least_ok": ("assert_rank_at_least", [2, 3], 1, None),
    "at_least_bad": ("assert_rank_at_least", [2], 2, "must have rank at least 2"),
}


@pytest.mark.parametrize("case", sorted(RANK_CASES))
def test_static_rank_asserts_match_tf(case):
    kind, shape, rank, error = RANK_CASES[case]

    def program(tf):
        x = tf.zeros(shape, name="x")
        return _guarded(tf, getattr(tf.debugging, kind)(x, rank), x)

    if error is None:
        assert_same_graph_def(program)
        return
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default(), pytest.raises(ValueError, match=error):
            program(tf)


_MATRIX = np.zeros((2, 3), np.float32)


@pytest.mark.parametrize("kind", ["assert_rank", "assert_rank_at_least"])
def test_dynamic_rank_asserts_match_tf(kind):
    def program(tf, value=_MATRIX):
        x = tf.placeholder(tf.float32, None, name="x")
        return _guarded(tf, getattr(tf.debugging, kind)(x, 2), x), {x: value}

    assert_same_graph_def(program)
    for tf in (tfcompat, tf1()):
        assert run(tf, program).values.shape == (2, 3)
        with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank"):
            run(tf, lambda t: program(t, np.zeros(3, np.float32)))


def test_assert_type_matches_tf():
    def program(tf):
        x = tf.constant([1, 2])
        return _guarded(tf, tf.debugging.assert_type(x, tf.int32), x)

    assert_same_graph_def(program)
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default(), pytest.raises(TypeError, match="must be of type"):
            tf.debugging.assert_type(tf.constant([1.0]), tf.int32)
