"""Host segments run as prepared programs (lowering/interpreter.HostProgram): values
computed from constants only are computed on the first run and kept, everything else runs
every step, with TF's results."""

from __future__ import annotations

import numpy as np

import tfcompat as tf
from lowering.registry import REFERENCE


def _counting(monkeypatch, op_type):
    calls = []
    kernel = REFERENCE[op_type]

    def counted(ctx, op, *args):
        calls.append(op.name)
        return kernel(ctx, op, *args)

    monkeypatch.setitem(REFERENCE, op_type, counted)
    return calls


def test_constant_arithmetic_runs_once_and_fed_arithmetic_every_step(monkeypatch):
    calls = _counting(monkeypatch, "AddV2")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [2], name="x")
        fixed = tf.strings.as_string(tf.add(tf.constant([1, 2]), 3, name="fixed_sum"))
        fed = tf.strings.as_string(tf.add(x, 1, name="fed_sum"))
        with tf.Session() as sess:
            for step in range(3):
                out_fixed, out_fed = sess.run([fixed, fed], {x: [step, 10 * step]})
                assert list(out_fixed) == [b"4", b"5"]
                assert list(out_fed) == [str(step + 1).encode(), str(10 * step + 1).encode()]
    assert calls.count("fixed_sum") == 1
    assert calls.count("fed_sum") == 3


def test_host_program_reads_variables_when_they_run():
    """A string variable read by a host op sees each run's assignments."""
    with tf.Graph().as_default():
        v = tf.Variable(np.array([b"a", b"b"], dtype=object), name="v")
        joined = tf.strings.join([v[0], v[1]])
        assign = tf.assign(v, tf.constant([b"c", b"d"]))
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(joined) == b"ab"
            sess.run(assign)
            assert sess.run(joined) == b"cd"


def test_identical_host_ops_run_once(monkeypatch):
    """Two identical hashing ops of the same strings (as linear_model and input_layer build
    for a shared column) run one kernel; a different bucket count is another op."""
    calls = _counting(monkeypatch, "StringToHashBucketFast")
    with tf.Graph().as_default():
        words = tf.placeholder(tf.string, [None], name="words")
        first = tf.strings.to_hash_bucket_fast(words, 10, name="first")
        twin = tf.strings.to_hash_bucket_fast(words, 10, name="twin")
        other = tf.strings.to_hash_bucket_fast(words, 7, name="other")
        with tf.Session() as sess:
            a, b, c = sess.run([first, twin, other], {words: [b"a", b"bc", b""]})
    import farmhash

    strings = [b"a", b"bc", b""]
    np.testing.assert_array_equal(a, [farmhash.fingerprint64(s) % 10 for s in strings])
    np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(c, [farmhash.fingerprint64(s) % 7 for s in strings])
    assert sorted(calls) == ["first", "other"]


def test_shape_arithmetic_is_remembered_per_input_value(monkeypatch):
    """Small integer arithmetic on a host value (a shape) runs once per distinct shape:
    a repeated batch shape reuses the outputs, a new one computes them, and the results
    are TF's every time."""
    calls = _counting(monkeypatch, "Prod")
    with tf.Graph().as_default():
        words = tf.placeholder(tf.string, [None, None], name="words")
        shape = tf.shape(words, out_type=tf.int64)
        size = tf.reduce_prod(shape, name="size")
        rows = tf.stack([size, shape[1]], name="rows")
        text = tf.strings.as_string(rows)
        with tf.Session() as sess:
            for rows_count, cols in [(2, 3), (2, 3), (4, 1), (2, 3), (4, 1)]:
                batch = np.full((rows_count, cols), b"w", dtype=object)
                out, sizes = sess.run([text, rows], {words: batch})
                assert list(out) == [str(rows_count * cols).encode(), str(cols).encode()]
                np.testing.assert_array_equal(sizes, [rows_count * cols, cols])
    assert calls == ["size", "size"]  # once for [2, 3], once for [4, 1]


def test_remembered_shape_arithmetic_leaves_fed_arrays_writable():
    """A shape island one of whose outputs is its fed input (an Identity beside the
    arithmetic) does not make the caller's array read-only."""
    with tf.Graph().as_default():
        sizes = tf.placeholder(tf.int64, [2], name="sizes")
        same = tf.identity(sizes)
        text = tf.strings.as_string(tf.reduce_prod(same) + same[0])
        fed = np.array([2, 3], np.int64)
        with tf.Session() as sess:
            assert sess.run(text, {sizes: fed}) == b"8"
            assert sess.run(text, {sizes: fed}) == b"8"
    fed[0] = 4  # still the caller's, still writable
    assert fed.flags.writeable
