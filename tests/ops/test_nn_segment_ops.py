"""TF parity of the segment reductions: sorted ``Segment*`` (host ops) and
``UnsortedSegment*`` (XLA scatters), with empty segments, dropped ids, static shapes and
TF's construction and run-time errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat
from tests.ops.nn_helpers import run_expecting_error, sample
from tests.oracle import assert_parity, assert_same_graph_def, run, tf1

SORTED = ["segment_sum", "segment_mean", "segment_prod", "segment_max", "segment_min"]
UNSORTED = [
    "unsorted_segment_sum",
    "unsorted_segment_prod",
    "unsorted_segment_max",
    "unsorted_segment_min",
]
DTYPES = [np.float32, np.float64, np.int32, np.int64]


@pytest.mark.parametrize("name", SORTED)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("id_dtype", [np.int32, np.int64])
def test_sorted_segment_parity(name, dtype, id_dtype):
    data = sample((7, 3), dtype, seed=20)
    # Segments 1 and 4 are empty; segment 0 has three rows.
    ids = np.array([0, 0, 0, 2, 3, 3, 5], id_dtype)

    def program(tf):
        x = tf.placeholder(tf.as_dtype(dtype), [None, 3])
        i = tf.placeholder(tf.as_dtype(id_dtype), [None])
        return getattr(tf.math, name)(x, i), {x: data, i: ids}

    assert_parity(program, rtol=1e-6)


@settings(max_examples=12, deadline=None)
@given(
    counts=st.lists(st.integers(0, 3), min_size=1, max_size=6),
    name=st.sampled_from(SORTED),
    seed=st.integers(0, 99),
)
def test_sorted_segment_runs_of_any_length(counts, name, seed):
    """Segments of 0-3 rows each (so gaps and runs of one), on [n, 2, 2] data."""
    ids = np.repeat(np.arange(len(counts)), counts).astype(np.int32)
    if not ids.size:
        ids = np.zeros(1, np.int32)
    data = sample((ids.size, 2, 2), np.float32, seed=seed)

    def program(tf):
        x = tf.placeholder(tf.float32, [None, 2, 2])
        i = tf.placeholder(tf.int32, [None])
        return getattr(tf.math, name)(x, i), {x: data, i: ids}

    assert_parity(program, rtol=1e-6)


@pytest.mark.parametrize("name", SORTED)
def test_sorted_segment_constant_ids_and_names(name):
    def program(tf):
        x = tf.placeholder(tf.float32, [4, 2])
        return [
            getattr(tf, name)(x, [0, 0, 1, 1]),
            getattr(tf.math, name)(x, np.array([0, 1, 1, 3]), name="seg"),
        ], {x: sample((4, 2), seed=21)}

    assert_parity(program)
    assert_same_graph_def(program)


def test_segment_mean_of_integers_truncates():
    def program(tf):
        return tf.math.segment_mean(np.array([1, 2, -7, -2, 5], np.int32), [0, 0, 1, 1, 2])

    assert_parity(program)


def test_sorted_segment_empty_input():
    def program(tf):
        return tf.math.segment_sum(np.zeros((0, 2), np.float32), np.zeros(0, np.int32))

    assert_parity(program)


@pytest.mark.parametrize(
    "ids, message",
    [
        ([0, 2, 1], "segment ids are not increasing"),
        ([-1, 0, 1], "Segment id -1 out of range [0, 2), possibly because 'segment_ids'"),
        ([0, 1], "segment_ids should be the same size as dimension 0 of input."),
    ],
)
@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_sorted_segment_run_time_errors(ids, message, backend):
    def program(tf):
        i = tf.placeholder(tf.int32, [None])
        return tf.math.segment_sum(tf.constant([1.0, 2.0, 3.0]), i), {i: np.array(ids, np.int32)}

    theirs = run_expecting_error(program, "InvalidArgumentError")
    ours = run_expecting_error(program, "InvalidArgumentError", backend=backend)
    assert message in theirs.message and message in ours.message


@pytest.mark.parametrize("name", UNSORTED)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unsorted_segment_parity(name, dtype):
    data = sample((8, 3), dtype, seed=22)
    # Unsorted, with a dropped negative id and empty segments 1 and 4 (of 5).
    ids = np.array([3, 0, 2, 0, -1, 3, 2, 0], np.int32)

    def program(tf):
        x = tf.placeholder(tf.as_dtype(dtype), [None, 3])
        i = tf.placeholder(tf.int32, [None])
        return getattr(tf.math, name)(x, i, 5), {x: data, i: ids}

    assert_parity(program, rtol=1e-6)


@pytest.mark.parametrize("name", UNSORTED)
def test_unsorted_segment_multi_dimensional_ids(name):
    data = sample((2, 3, 4), np.float32, seed=23)
    ids = np.array([[0, 2, 2], [1, 0, -1]], np.int64)

    def program(tf):
        x = tf.placeholder(tf.float32, [2, 3, 4])
        n = tf.constant(4, tf.int64)
        return getattr(tf, name)(x, ids, n), {x: data}

    assert_parity(program)
    assert_same_graph_def(program)


@pytest.mark.parametrize("dtype", [np.float16, np.complex64, np.uint8, np.int16])
def test_unsorted_segment_sum_other_types(dtype):
    data = sample((5,), np.float32, seed=24).astype(dtype)
    ids = np.array([1, 1, 0, 2, 1], np.int16 if dtype == np.int16 else np.int32)

    def program(tf):
        return tf.math.unsorted_segment_sum(data, ids, 3)

    assert_parity(program, rtol=2e-3)


def test_unsorted_segment_num_segments_from_static_shape():
    data = sample((6, 2), np.float32, seed=25)
    ids = np.array([0, 1, 2, 0, 1, 2], np.int32)

    def program(tf):
        x = tf.placeholder(tf.float32, [6, 2])
        return tf.math.unsorted_segment_max(x, ids, tf.shape(x)[0]), {x: data}

    assert_parity(program)


def test_unsorted_segment_fed_num_segments():
    """A fed ``num_segments`` sets the output size: XLA specialises on its value."""

    def program(tf):
        n = tf.placeholder(tf.int32, [])
        return tf.math.unsorted_segment_sum([1.0, 2.0], [0, 1], n), {n: 3}

    theirs = run(tf1(), program).values
    for backend in ("reference", "xla"):
        ours = run(tfcompat, program, backend=backend).values
        np.testing.assert_array_equal(ours, theirs)


def test_unsorted_segment_id_out_of_range():
    def program(tf):
        i = tf.placeholder(tf.int32, [2, 2])
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        return tf.math.unsorted_segment_max(x, i, 4), {i: np.array([[0, 5], [1, 1]], np.int32)}

    message = "segment_ids[0,1] = 5 is out of range [0, 4)"
    assert message in run_expecting_error(program, "InvalidArgumentError").message
    ours = run_expecting_error(program, "InvalidArgumentError", backend="reference")
    assert message in ours.message
    # XLA drops the id, as TF's GPU kernel does.
    values = run(tfcompat, program, backend="xla").values
    np.testing.assert_array_equal(values[:2], [1.0, 4.0])


@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda tf, P: tf.math.segment_sum(P([4, 5]), P([3], tf.int32)), "(?, 5)"),
        (lambda tf, P: tf.math.segment_sum(P(None), P([4], tf.int32)), "<unknown>"),
        (
            lambda tf, P: tf.math.unsorted_segment_sum(P([4, 5, 6]), P([4, 5], tf.int32), 3),
            "(3, 6)",
        ),
        (
            lambda tf, P: tf.math.unsorted_segment_sum(
                P([4, 5, 6]), P([4, 5], tf.int32), P([], tf.int32)
            ),
            "(?, 6)",
        ),
        (lambda tf, P: tf.math.unsorted_segment_min(P([4, 5]), P(None, tf.int32), 3), "<unknown>"),
        (lambda tf, P: tf.math.unsorted_segment_min(P(None), P([4], tf.int32), 3), "<unknown>"),
        (lambda tf, P: tf.math.unsorted_segment_prod(P([2, 3]), P([], tf.int32), 2), "(2, 2, 3)"),
    ],
)
def test_segment_static_shapes(build, expected):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            shape = build(tf, lambda s, d=tf.float32, tf=tf: tf.placeholder(d, s)).shape
            assert str(shape) in (expected, expected.replace("?", "None"))


@pytest.mark.parametrize(
    "build, match",
    [
        (
            lambda tf, P: tf.math.segment_sum(P([4, 5]), P([4, 1], tf.int32)),
            "Shape must be rank 1 but is rank 2",
        ),
        (
            lambda tf, P: tf.math.segment_sum(P([]), P([4], tf.int32)),
            "Shape must be at least rank 1 but is rank 0",
        ),
        (
            lambda tf, P: tf.math.unsorted_segment_sum(P([4, 5, 6]), P([4, 6], tf.int32), 3),
            "Dimensions must be equal, but are 5 and 6",
        ),
        (
            lambda tf, P: tf.math.unsorted_segment_sum(P([2, 3]), P([2, 3, 4], tf.int32), 2),
            "Shape must be at least rank 3 but is rank 2",
        ),
        (
            lambda tf, P: tf.math.unsorted_segment_sum(P([4]), P([4], tf.int32), -1),
            "Dimension size, given by scalar input 2, must be non-negative but is -1",
        ),
        (
            lambda tf, P: tf.math.unsorted_segment_sum(P([4]), P([4], tf.int32), [3]),
            "Shape must be rank 0 but is rank 1",
        ),
    ],
)
def test_segment_construction_errors(build, match):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match=match.replace("[", r"\[")):
                build(tf, lambda s, d=tf.float32, tf=tf: tf.placeholder(d, s))


def test_sorted_segments_run_on_the_host():
    from lowering import plan

    with tfcompat.Graph().as_default():
        out = tfcompat.math.segment_sum([1.0, 2.0], [0, 1])
        assert plan.is_host_op(out.op)
        unsorted = tfcompat.math.unsorted_segment_sum([1.0, 2.0], [0, 1], 2)
        assert not plan.is_host_op(unsorted.op)
