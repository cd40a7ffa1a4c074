"""Fed values XLA needs at compile time (lowering/static.py): the device function retraces
with the inputs they come from as constants. One exploratory trace finds them all, so a
step needing many (a feature-column step: one Reshape per column) retraces once, not once
per value; each distinct value then compiles once."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat as tf
from lowering import static as static_lib

COLUMNS = 6


def _reshapes_by_fed_shapes():
    """COLUMNS reshapes, each by its own fed shape: each needs a compile-time value."""
    x = tf.placeholder(tf.float32, [None], name="x")
    shapes = [tf.placeholder(tf.int32, [2], name=f"shape{i}") for i in range(COLUMNS)]
    total = tf.add_n(
        [tf.reduce_sum(tf.reshape(x * (i + 1), s), axis=1) for i, s in enumerate(shapes)]
    )
    return x, shapes, total


def _feed(x, shapes, rows, cols):
    feed = {x: np.arange(rows * cols, dtype=np.float32)}
    feed.update({s: np.array([rows, cols], np.int32) for s in shapes})
    return feed


def _expected(rows, cols):
    base = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols).sum(axis=1)
    return base * sum(range(1, COLUMNS + 1))


def test_all_compile_time_values_found_in_one_retrace():
    with tf.Graph().as_default():
        x, shapes, total = _reshapes_by_fed_shapes()
        meta = tf.RunMetadata()
        with tf.Session() as sess:
            out = sess.run(total, _feed(x, shapes, 3, 4), run_metadata=meta)
            np.testing.assert_allclose(out, _expected(3, 4))
            # The failed trace, the exploring trace (not counted: nothing compiled) and the
            # retrace with every shape static: 2, where one retrace per shape made 7.
            assert meta.executable.compile_count == 2
            device = next(iter(meta.executable.device_functions.values()))
            assert len(device.static_positions) == COLUMNS
            # A new value compiles once more; a value seen before compiles nothing.
            np.testing.assert_allclose(sess.run(total, _feed(x, shapes, 2, 6)), _expected(2, 6))
            np.testing.assert_allclose(sess.run(total, _feed(x, shapes, 3, 4)), _expected(3, 4))
            assert meta.executable.compile_count == 3


def test_collecting_records_each_needed_tensor():
    """``static.collecting`` hands rules the evaluated value and records the tensor."""
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int32, [], name="n")
        (op,) = [tf.range(n).op]
    import jax

    def needs_static(traced):
        return static_lib.static_int(op, 1, traced)

    with static_lib.collecting(lambda tensor: np.int32(5)) as found:
        jax.eval_shape(lambda v: np.zeros(needs_static(v)), np.int32(0))
    assert found == [op.inputs[1]]
    with pytest.raises(static_lib.StaticValueRequired):
        jax.eval_shape(lambda v: np.zeros(needs_static(v)), np.int32(0))
