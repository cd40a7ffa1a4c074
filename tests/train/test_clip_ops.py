"""clip_by_norm, global_norm, clip_by_global_norm against TF 2.21 (values and graphs)."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1


def _x(seed, shape, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


CLIP_BY_NORM = {
    "clipped": lambda tf: tf.clip_by_norm(tf.constant(_x(0, (3, 4), 5.0)), 2.0),
    "unclipped": lambda tf: tf.clip_by_norm(tf.constant(_x(1, (3, 4), 0.1)), 2.0),
    "axes": lambda tf: tf.clip_by_norm(tf.constant(_x(2, (3, 4), 3.0)), 1.5, axes=[1]),
    "zeros": lambda tf: tf.clip_by_norm(tf.zeros((2, 3)), 1.0),
    "tensor_norm": lambda tf: tf.clip_by_norm(
        tf.constant(_x(3, (5,), 4.0)), tf.constant(1.0), name="clip"
    ),
    "negative_norm": lambda tf: tf.clip_by_norm(tf.constant(_x(4, (2, 2))), -1.0),
}


@pytest.mark.parametrize("name", sorted(CLIP_BY_NORM))
def test_clip_by_norm_matches_tf(name):
    assert_parity(CLIP_BY_NORM[name])
    assert_same_graph_def(CLIP_BY_NORM[name])


def _global(tf, scale, with_none=False, name=None, use_norm=False):
    ts = [tf.constant(_x(5, (3, 2), scale)), tf.constant(_x(6, (4,), scale))]
    if with_none:
        ts.insert(1, None)
    norm = tf.constant(3.0) if use_norm else None
    clipped, n = tf.clip_by_global_norm(ts, 1.0, use_norm=norm, name=name)
    return [c for c in clipped if c is not None], n, tf.global_norm(ts)


GLOBAL = {
    "clipped": lambda tf: _global(tf, 5.0),
    "unclipped": lambda tf: _global(tf, 0.01),
    "with_none": lambda tf: _global(tf, 3.0, with_none=True),
    "named": lambda tf: _global(tf, 3.0, name="gclip"),
    "use_norm": lambda tf: _global(tf, 3.0, use_norm=True),
}


@pytest.mark.parametrize("name", sorted(GLOBAL))
def test_clip_by_global_norm_matches_tf(name):
    assert_parity(GLOBAL[name])
    assert_same_graph_def(GLOBAL[name])


def test_clip_by_global_norm_of_infinite_norm_is_nan_as_tf():
    assert_parity(lambda tf: tf.clip_by_global_norm([tf.constant([np.inf, 1.0])], 1.0))


def test_indexed_slices_are_clipped_on_values():
    def program(tf):
        s = tf.IndexedSlices(tf.constant(_x(7, (2, 3), 4.0)), tf.constant([0, 2]), [4, 3])
        by_norm = tf.clip_by_norm(s, 1.0)
        (by_global,), norm = tf.clip_by_global_norm([s], 1.0)
        return [by_norm.values, by_norm.indices, by_global.values, by_global.indices, norm]

    assert_parity(program)


def test_t_list_must_be_a_sequence():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
                tf.clip_by_global_norm(tf.constant([1.0]), 1.0)
            with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
                tf.global_norm(tf.constant([1.0]))
