"""Array-op gradients: the registered gradient graph agrees with ``jax.vjp`` of the lowering.

Every differentiable array op is differentiated through ``tf.gradients`` of a weighted sum
(random weights, so each output element has its own cotangent) and cross-checked with
``lowering.gradcheck.check_gradients``, with static and with partly unknown input shapes
(the latter take the gradients' Shape/ShapeN/dynamic branches).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat as tf
from lowering.gradcheck import check_gradients
from tfcompat.ops import embedding_ops


def _partition_and_stitch(x, partitions):
    """Rows of x partitioned and stitched back in reverse order (the supported use of
    DynamicPartition under XLA: its padded outputs go to a gather or a stitch)."""
    n = len(partitions)
    parts = tf.dynamic_partition(x * x, partitions, 3)
    positions = tf.dynamic_partition(tf.range(n - 1, -1, -1), partitions, 3)
    return tf.reshape(embedding_ops.parallel_dynamic_stitch(positions, parts), [n, 2])


# name -> (input shape, builder(x) -> y)
CASES = {
    "identity": ((3, 4), lambda x: tf.identity(x)),
    "identity_n": ((3, 4), lambda x: tf.identity_n([x, 2.0 * x])[1]),
    "placeholder_with_default": (
        (3, 4),
        lambda x: tf.reshape(tf.placeholder_with_default(x, [None, 4]), [3, 4]),
    ),
    "reshape": ((3, 4), lambda x: tf.reshape(x, [2, 6])),
    "reshape_minus1": ((3, 4), lambda x: tf.reshape(x, [-1])),
    "transpose": ((2, 3, 4), lambda x: tf.transpose(x, [2, 0, 1])),
    "transpose_default": ((3, 4), lambda x: tf.transpose(x)),
    "expand_dims": ((3, 4), lambda x: tf.expand_dims(x, -1)),
    "squeeze": ((3, 1, 4), lambda x: tf.squeeze(x, [1])),
    "concat": ((3, 4), lambda x: tf.concat([x, 2.0 * x, x[:, :1]], 1)),
    "concat_axis0": ((3, 4), lambda x: tf.concat([x, x[:1]], 0)),
    "concat_neg_axis": ((3, 4), lambda x: tf.concat([x, 3.0 * x], -1)),
    "concat_sparse_grad_axis0": (
        (3, 4),
        lambda x: tf.gather(tf.concat([x, 2.0 * x], 0), [4, 0, 4]),
    ),
    "concat_sparse_grad_axis1": ((3, 4), lambda x: tf.gather(tf.concat([x, 2.0 * x], 1), [2, 0])),
    "tile_sparse_grad": ((3, 4), lambda x: tf.gather(tf.tile(x, [2, 1]), [5, 0, 5])),
    "concat_17": ((3, 2), lambda x: tf.concat([x * float(i) for i in range(17)], 1)),
    "split": ((3, 4), lambda x: tf.split(x, 2, 1)[1]),
    "split_all": ((4, 3), lambda x: tf.concat(tf.split(x, 2, 0)[::-1], 1)),
    "split_v": ((3, 5), lambda x: tf.split(x, [2, -1, 1], 1)[1]),
    "split_v_unused": ((3, 5), lambda x: tf.split(x, [2, 3], 1)[0]),
    "stack": ((3, 4), lambda x: tf.stack([x, 3.0 * x], 1)),
    "unstack": ((3, 4), lambda x: tf.unstack(x, axis=1)[2]),
    "unstack_all": ((3, 4), lambda x: tf.stack(tf.unstack(x)[::-1], 1)),
    "tile": ((3, 4), lambda x: tf.tile(x, [2, 3])),
    "pad": ((3, 4), lambda x: tf.pad(x, [[1, 2], [0, 1]])),
    "pad_v2": ((3, 4), lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=3.0)),
    "mirror_pad_symmetric": ((3, 4), lambda x: tf.pad(x, [[1, 2], [0, 3]], mode="SYMMETRIC")),
    "mirror_pad_reflect": ((3, 4), lambda x: tf.pad(x, [[2, 2], [3, 1]], mode="REFLECT")),
    "slice": ((3, 4), lambda x: tf.slice(x, [1, 1], [2, -1])),
    "strided_slice": ((3, 4), lambda x: x[1:, ::-2]),
    "strided_slice_masks": ((2, 3, 4), lambda x: x[1, None, ..., 1:3]),
    "strided_slice_shrink": ((3, 4), lambda x: x[-1]),
    "reverse": ((3, 4), lambda x: tf.reverse(x, [1])),
    "reverse_both": ((3, 4), lambda x: tf.reverse(x, [0, 1])),
    "broadcast_to": ((1, 4), lambda x: tf.broadcast_to(x, [2, 3, 4])),
    "gather_axis0": ((5, 3), lambda x: tf.gather(x, [0, 2, 2, 4])),
    "gather_2d_ids": ((5, 3), lambda x: tf.gather(x, [[0, 2], [4, 4]])),
    "gather_axis1": ((3, 4), lambda x: tf.gather(x, [[0, 2], [3, 3]], axis=1)),
    "gather_batch_dims": (
        (2, 4, 3),
        lambda x: tf.gather(x, [[0, 3], [1, 1]], axis=1, batch_dims=1),
    ),
    "gather_nd": ((3, 4), lambda x: tf.gather_nd(x, [[0, 1], [2, 2], [0, 1]])),
    "gather_nd_rows": ((3, 4), lambda x: tf.gather_nd(x, [[0], [2], [0]])),
    "scatter_nd": ((3, 2), lambda x: tf.scatter_nd([[1], [3], [1]], x, [5, 2])),
    "band_part": ((4, 4), lambda x: tf.linalg.band_part(x, 1, 0)),
    "diag": ((3,), lambda x: tf.diag(x)),
    "diag_part": ((3, 3), lambda x: tf.diag_part(x)),
    "matrix_diag": ((2, 3), lambda x: tf.linalg.diag(x)),
    "matrix_diag_part": ((2, 3, 3), lambda x: tf.linalg.diag_part(x)),
    "matrix_diag_part_rect": ((3, 4), lambda x: tf.linalg.diag_part(x)),
    "fill": ((), lambda x: tf.fill([2, 3], x)),
    "embedding_lookup": ((6, 2), lambda x: tf.nn.embedding_lookup(x, [[1, 5], [1, 0]])),
    "embedding_lookup_max_norm": (
        (6, 2),
        lambda x: tf.nn.embedding_lookup(x, [4, 1, 4], max_norm=0.5),
    ),
    "dynamic_partition_stitch": ((5, 2), lambda x: _partition_and_stitch(x, [1, 0, 1, 2, 0])),
}


def _weighted_loss(y, rng):
    weights = rng.standard_normal(y.shape.as_list()).astype(np.float32)
    return tf.reduce_sum(y * tf.constant(weights))


def _check(shape, build, dynamic, seed=0):
    rng = np.random.default_rng(seed)
    graph = tf.Graph()
    with graph.as_default():
        placeholder_shape = [None] + list(shape[1:]) if dynamic and shape else shape
        x = tf.placeholder(tf.float32, placeholder_shape, name="x")
        y = build(x)
        if not y.shape.is_fully_defined():
            y = tf.reshape(y, _static_shape(build, shape))
        x_value = rng.standard_normal(shape).astype(np.float32)
        report = check_gradients([_weighted_loss(y, rng)], [x], feed_dict={x: x_value})
    report.assert_close(atol=1e-5, rtol=1e-4)


def _static_shape(build, shape):
    with tf.Graph().as_default():
        return build(tf.placeholder(tf.float32, shape)).shape.as_list()


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_jax_vjp(name):
    shape, build = CASES[name]
    _check(shape, build, dynamic=False)


# Ops whose gradient takes a different branch when the leading dimension is unknown.
DYNAMIC = [
    "reshape",
    "reshape_minus1",
    "transpose",
    "expand_dims",
    "concat",
    "concat_axis0",
    "stack",
    "tile",
    "pad",
    "slice",
    "strided_slice",
    "gather_axis0",
    "gather_axis1",
    "gather_nd",
    "embedding_lookup",
]


@pytest.mark.parametrize("name", DYNAMIC)
def test_gradient_matches_jax_vjp_unknown_batch(name):
    shape, build = CASES[name]
    _check(shape, build, dynamic=True)


@settings(max_examples=15, deadline=None)
@given(
    dims=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    multiples=st.lists(st.integers(1, 3), min_size=3, max_size=3),
    seed=st.integers(0, 2**16),
)
def test_tile_and_transpose_gradients_random_shapes(dims, multiples, seed):
    multiples = multiples[: len(dims)]
    perm = np.random.default_rng(seed).permutation(len(dims)).tolist()
    _check(tuple(dims), lambda x: tf.transpose(tf.tile(x, multiples), perm), False, seed)


@settings(max_examples=15, deadline=None)
@given(
    dims=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    data=st.data(),
)
def test_strided_slice_gradients_random_specs(dims, data):
    spec = []
    for d in dims:
        begin = data.draw(st.integers(-d, d - 1))
        stride = data.draw(st.sampled_from([-2, -1, 1, 2]))
        spec.append(slice(begin, None, stride))
    _check(tuple(dims), lambda x: x[tuple(spec)], False)


@pytest.mark.parametrize("strategy", ["mod", "div"])
@pytest.mark.parametrize("shards", [2, 3])
def test_sharded_embedding_lookup_gradients(strategy, shards):
    rng = np.random.default_rng(1)
    table = rng.standard_normal((7, 3)).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        parts = (
            np.array_split(table, shards)
            if strategy == "div"
            else [table[i::shards] for i in range(shards)]
        )
        xs = [tf.placeholder(tf.float32, p.shape, name=f"shard{i}") for i, p in enumerate(parts)]
        ids = tf.placeholder(tf.int32, [None, 2])
        y = tf.nn.embedding_lookup(xs, ids, partition_strategy=strategy)
        feeds = dict(zip(xs, parts))
        feeds[ids] = np.array([[6, 0], [3, 6], [1, 5]], np.int32)
        loss = tf.reduce_sum(y * y)
        check_gradients([loss], xs, feed_dict=feeds).assert_close(atol=1e-5, rtol=1e-4)


def test_gather_axis0_gradient_is_indexed_slices():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [5, 3])
        (grad,) = tf.gradients(tf.reduce_sum(tf.gather(x, [[1, 1], [4, 0]])), [x])
        assert isinstance(grad, tf.IndexedSlices)
        assert grad.values.shape.as_list() == [4, 3]
        assert grad.indices.shape.as_list() == [4]


@pytest.mark.parametrize(
    "op_type", ["StopGradient", "Shape", "Size", "Rank", "OneHot", "ZerosLike", "Assign"]
)
def test_not_differentiable_ops_are_registered_as_none(op_type):
    from tfcompat.framework.gradient_registry import GRADIENTS

    assert op_type in GRADIENTS and GRADIENTS[op_type] is None


def test_stop_gradient_blocks():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        grads = tf.gradients(tf.reduce_sum(tf.stop_gradient(x) * x), [x])
        with tf.Session() as sess:
            value = np.arange(3, dtype=np.float32)
            np.testing.assert_allclose(sess.run(grads[0], {x: value}), value)
