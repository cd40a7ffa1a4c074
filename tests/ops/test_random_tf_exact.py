"""Seeded stateful random ops give TF 2.21's exact values: ``tf.random_normal`` /
``random_uniform`` / ``truncated_normal`` (floats of every width, ints) under
``tf.set_random_seed`` or op seeds, seeded initializers (glorot, variance scaling, normal,
truncated normal, uniform) through ``global_variables_initializer``, seeded dropout, and the
later runs of ops that run in every ``Session.run``; on both backends. Unseeded ops keep
their own (non-TF) streams."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import run, tf1

BACKENDS = ("xla", "reference")


def _assert_equal(ours, theirs, label):
    assert len(ours) == len(theirs), label
    for i, (a, b) in enumerate(zip(ours, theirs)):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype, f"{label} fetch {i}: {a.dtype} vs TF {b.dtype}"
        np.testing.assert_array_equal(a, b, err_msg=f"{label} fetch {i}")


def _assert_exact(program, xla_fused=False):
    """Fetched values equal TF's. ``xla_fused``: XLA:CPU fuses a wrapper's ``rnd * scale +
    offset`` (``Mul`` then ``AddV2``) into one fused multiply-add, rounding once where TF
    rounds twice, so on that backend scaled values may differ by the product's rounding
    (one ulp of the largest value) when ``scale`` is not a power of two. The random ops' own
    outputs are exact on both backends, and the reference backend is exact throughout."""
    theirs = run(tf1(), program)
    for backend in BACKENDS:
        ours = run(tfcompat, program, backend=backend)
        assert ours.shapes == theirs.shapes, backend
        if backend == "xla" and xla_fused:
            for i, (a, b) in enumerate(zip(ours.values, theirs.values)):
                assert np.asarray(a).dtype == np.asarray(b).dtype, f"fetch {i}"
                ulp = np.spacing(np.max(np.abs(b)))
                np.testing.assert_allclose(a, b, rtol=0, atol=ulp, err_msg=f"fetch {i}")
            continue
        _assert_equal(ours.values, theirs.values, f"[{backend}]")


def test_graph_seeded_samplers_match_tf():
    def program(tf):
        tf.set_random_seed(1)
        out = [
            tf.random_normal([5, 7]),
            tf.random_uniform([3, 3], -2.0, 6.0),  # scale 8: exact, fused or not
            tf.truncated_normal([1001], stddev=0.3),
            tf.random_uniform([11], 0, 100, dtype=tf.int32),
            tf.random_uniform([7], -(2**40), 2**40, dtype=tf.int64),
        ]
        for dtype in (tf.float16, tf.bfloat16, tf.float64):
            out += [
                tf.random_normal([9], dtype=dtype),
                tf.random_uniform([9], dtype=dtype),
                tf.truncated_normal([9], dtype=dtype),
            ]
        return out

    _assert_exact(program)


def test_op_seeds_and_large_shapes_match_tf():
    def program(tf):
        return [
            tf.random_normal([301, 333], seed=5),
            tf.truncated_normal([100003], seed=7),
            tf.random_uniform([4, 5], seed=123456789),
            tf.random.uniform([20001], maxval=7, dtype=tf.int64, seed=3),
        ]

    _assert_exact(program)


def test_seeded_initializers_give_tf_weights():
    def program(tf):
        tf.set_random_seed(42)
        variables = [
            tf.get_variable("glorot", [30, 20], initializer=tf.glorot_uniform_initializer(seed=3)),
            tf.get_variable("glorot_normal", [7, 9], initializer=tf.glorot_normal_initializer()),
            tf.get_variable("default", [5, 4]),  # glorot uniform, seed from the graph seed
            tf.get_variable("normal", [6], initializer=tf.random_normal_initializer(1.0, 2.0)),
            tf.get_variable("trunc", [3, 3, 4, 8], initializer=tf.truncated_normal_initializer()),
            tf.get_variable("he", [10, 3], initializer=tf.initializers.he_normal(seed=1)),
            tf.get_variable("uniform", [8], initializer=tf.random_uniform_initializer(-1, 1)),
            tf.get_variable(
                "scaling",
                [4, 6],
                tf.float64,
                initializer=tf.variance_scaling_initializer(2.0, "fan_avg", "uniform"),
            ),
        ]
        return variables

    _assert_exact(program, xla_fused=True)


def test_dense_layer_weights_match_tf():
    def program(tf):
        tf.set_random_seed(7)
        x = tf.constant(np.linspace(-1.0, 1.0, 24).reshape(4, 6).astype(np.float32))
        tf.layers.dense(x, 5, activation=tf.nn.relu, name="dense")
        tf.layers.dense(x, 3, kernel_initializer=tf.truncated_normal_initializer(stddev=0.5))
        return tf.trainable_variables()

    _assert_exact(program, xla_fused=True)


def test_seeded_dropout_matches_tf():
    # No variables: the dropout's first run is the Session's first run.
    def program(tf):
        tf.set_random_seed(7)
        x = tf.constant(np.linspace(-1.0, 1.0, 60).reshape(6, 10).astype(np.float32))
        return [tf.nn.dropout(x, rate=0.4, seed=11), tf.nn.dropout(x, keep_prob=0.5)]

    _assert_exact(program)


def _repeated_runs(tf, backend=None, runs=3):
    """Every fetch runs in every ``Session.run``: each run draws TF's next values."""
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        fetches = [
            tf.random_normal([6]),
            tf.truncated_normal([5], dtype=tf.float64),
            tf.random_uniform([7], 0, 9, dtype=tf.int32),
        ]
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(**kwargs) as sess:
            return [sess.run(fetches) for _ in range(runs)]


def test_later_runs_match_tf_when_the_op_runs_every_time():
    theirs = _repeated_runs(tf1())
    assert not np.array_equal(theirs[0][0], theirs[1][0])
    for backend in BACKENDS:
        for step, (ours, want) in enumerate(zip(_repeated_runs(tfcompat, backend), theirs)):
            _assert_equal(ours, want, f"[{backend}] run {step}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_unseeded_ops_still_differ_between_sessions(backend):
    def draw():
        with tfcompat.Graph().as_default():
            value = tfcompat.random_normal([8])
            with tfcompat.Session(backend=backend) as sess:
                return sess.run(value)

    assert not np.array_equal(draw(), draw())


def _tables_drawn_together(tf, backend=None, runs=2):
    """Several seeded truncated normals of two dtypes in every run (the initializer of
    many embedding tables), one of them empty and one of one element."""
    with tf.Graph().as_default():
        tf.set_random_seed(5)
        fetches = [
            tf.truncated_normal([1000, 16], stddev=0.25),
            tf.truncated_normal([3, 7], seed=9),
            tf.truncated_normal([0, 4]),
            tf.truncated_normal([1]),
            tf.truncated_normal([17], dtype=tf.float64),
            tf.truncated_normal([2, 5], dtype=tf.float64, seed=4),
            tf.truncated_normal([6], dtype=tf.float16),
        ]
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(**kwargs) as sess:
            return [sess.run(fetches) for _ in range(runs)]


def test_truncated_normals_drawn_together_match_tf(monkeypatch):
    from lowering import philox

    batches = []
    draw_together = philox.truncated_normals

    def recording(streams, dtype):
        batches.append((len(streams), np.dtype(dtype)))
        return draw_together(streams, dtype)

    monkeypatch.setattr(philox, "truncated_normals", recording)
    theirs = _tables_drawn_together(tf1())
    for backend in BACKENDS:
        for step, (ours, want) in enumerate(zip(_tables_drawn_together(tfcompat, backend), theirs)):
            _assert_equal(ours, want, f"[{backend}] run {step}")
    # The XLA step drew the four float32 tables in one loop, and the two float64 ones in
    # another (a lone float16 op draws alone); the step compiled once for both runs.
    assert (4, np.dtype(np.float32)) in batches
    assert (2, np.dtype(np.float64)) in batches
