"""tf.sets against TF 2.21: SetSize and the dense/sparse set operations (values, dtypes and
static shapes of the resulting SparseTensors), validate_indices, aminusb, argument order,
GraphDefs, gradients and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1

OPS = {
    "intersection": lambda tf, a, b: tf.sets.intersection(a, b),
    "set_intersection": lambda tf, a, b: tf.sets.set_intersection(a, b),
    "union": lambda tf, a, b: tf.sets.union(a, b),
    "a-b": lambda tf, a, b: tf.sets.difference(a, b),
    "b-a": lambda tf, a, b: tf.sets.set_difference(a, b, aminusb=False),
    "no_validation": lambda tf, a, b: tf.sets.set_union(a, b, validate_indices=False),
}
DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "string"]


def _cast(values, dtype):
    values = np.asarray(values)
    if dtype == "string":
        return np.array([str(v).encode() for v in values.reshape(-1)], object).reshape(values.shape)
    return values.astype(dtype)


def _dense_sets(rng, shape, high=6):
    return rng.integers(0, high, shape)


def _sparse_parts(rng, shape, high=6, density=0.6):
    """Sorted, in-bounds entries: per group, a prefix of the last dimension (as TF's
    SparseTensors of id lists are)."""
    mask = rng.uniform(size=shape) < density
    indices = np.argwhere(mask).astype(np.int64)
    values = rng.integers(0, high, len(indices))
    return indices, values, np.array(shape, np.int64)


def _sparse(tf, parts, dtype):
    indices, values, shape = parts
    return tf.SparseTensor(indices, _cast(values, dtype), shape)


def _fetch(result):
    return (result.indices, result.values, result.dense_shape)


def _operands(kind, dtype, shape1=(3, 4), shape2=(3, 5)):
    rng = np.random.default_rng(7)
    dense1, dense2 = _dense_sets(rng, shape1), _dense_sets(rng, shape2)
    parts1, parts2 = _sparse_parts(rng, shape1), _sparse_parts(rng, shape2)

    def make(tf):
        if kind == "dense_dense":
            return tf.constant(_cast(dense1, dtype)), tf.constant(_cast(dense2, dtype))
        if kind == "dense_sparse":
            return tf.constant(_cast(dense1, dtype)), _sparse(tf, parts2, dtype)
        if kind == "sparse_dense":  # flipped to dense-sparse by the wrapper
            return _sparse(tf, parts1, dtype), tf.constant(_cast(dense2, dtype))
        return _sparse(tf, parts1, dtype), _sparse(tf, parts2, dtype)

    return make


KINDS = ["dense_dense", "dense_sparse", "sparse_dense", "sparse_sparse"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("op", sorted(OPS))
def test_set_operation(op, kind, dtype):
    make = _operands(kind, dtype)

    def program(tf):
        a, b = make(tf)
        result = OPS[op](tf, a, b)
        return _fetch(result) + (tf.sets.size(result),)

    assert_parity(program)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 3, 2)), ((1, 2, 1, 5), (1, 2, 1, 3))])
def test_higher_rank(kind, shapes):
    make = _operands(kind, "int64", *shapes)

    def program(tf):
        a, b = make(tf)
        results = [tf.sets.union(a, b), tf.sets.difference(a, b), tf.sets.intersection(a, b)]
        return [_fetch(r) + (tf.sets.set_size(r),) for r in results]

    assert_parity(program)


def test_unknown_static_shapes():
    """Placeholders of unknown shape: the result's static shapes follow TF's shape fn."""
    rng = np.random.default_rng(1)
    a, b = _dense_sets(rng, (4, 3)).astype(np.int32), _dense_sets(rng, (4, 6)).astype(np.int32)

    def program(tf):
        pa = tf.placeholder(tf.int32, None)
        pb = tf.placeholder(tf.int32, [None, None])
        pc = tf.placeholder(tf.int32, [4, None])
        r1 = tf.sets.intersection(pa, pb)
        r2 = tf.sets.union(pc, pb)
        return [_fetch(r1), _fetch(r2), tf.sets.size(r2)], {pa: a, pb: b, pc: a}

    assert_parity(program)


def test_empty_results():
    """No common values: an empty SparseTensor whose last dimension is 0."""

    def program(tf):
        a = tf.constant([[1, 2], [3, 4]], tf.int64)
        b = tf.constant([[5, 6], [7, 8]], tf.int64)
        result = tf.sets.intersection(a, b)
        return _fetch(result) + (tf.sets.size(result),)

    assert_parity(program)


def test_set_size_of_sparse_with_duplicates():
    """SetSize counts distinct values; sets without entries have size 0."""

    def program(tf):
        sp = tf.SparseTensor(
            [[0, 0], [0, 1], [0, 2], [2, 0], [2, 3]], np.array([5, 5, 1, 7, 7], np.int64), [4, 5]
        )
        return tf.sets.size(sp), tf.sets.set_size(sp, validate_indices=False)

    assert_parity(program)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    groups=st.integers(1, 4),
    n1=st.integers(1, 6),
    n2=st.integers(1, 6),
    high=st.integers(1, 8),
    op=st.sampled_from(["intersection", "union", "a-b", "b-a"]),
)
def test_random_sparse_sparse(seed, groups, n1, n2, high, op):
    rng = np.random.default_rng(seed)
    parts1 = _sparse_parts(rng, (groups, n1), high)
    parts2 = _sparse_parts(rng, (groups, n2), high)

    def program(tf):
        result = OPS[op](tf, _sparse(tf, parts1, "int64"), _sparse(tf, parts2, "int64"))
        return _fetch(result) + (tf.sets.size(result),)

    assert_parity(program, backends=("reference",))


@pytest.mark.parametrize("kind", KINDS)
def test_graph_def(kind):
    make = _operands(kind, "int32")

    def program(tf):
        a, b = make(tf)
        result = tf.sets.difference(a, b, aminusb=False)
        return _fetch(result) + (tf.sets.size(result),)

    assert_same_graph_def(program)


def test_graph_def_python_values():
    """Python lists become Consts named after the wrapper's arguments (a, b)."""

    def program(tf):
        result = tf.sets.union([[1, 2]], [[2, 3]])
        return _fetch(result)

    assert_same_graph_def(program)


def test_not_differentiable():
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            a = tf.constant([[1, 2]], tf.int64)
            result = tf.sets.intersection(a, a)
            size = tf.cast(tf.sets.size(result), tf.float32)
            assert tf.gradients(size, a) == [None]


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------
CONSTRUCTION_ERRORS = {
    "float_values": (TypeError, lambda tf: tf.sets.union([[1.0]], [[2.0]])),
    "mixed_dtypes": (
        TypeError,
        lambda tf: tf.sets.union(tf.constant([[1]]), tf.constant([[1]], tf.int64)),
    ),
    "dense_for_size": (TypeError, lambda tf: tf.sets.size(tf.constant([[1]]))),
    "rank_1": (ValueError, lambda tf: tf.sets.union([1, 2], [[2]])),
    "rank_mismatch": (ValueError, lambda tf: tf.sets.union([[1, 2]], [[[2]]])),
    "group_mismatch": (ValueError, lambda tf: tf.sets.union([[1, 2]], [[2], [3]])),
}


@pytest.mark.parametrize("case", sorted(CONSTRUCTION_ERRORS))
def test_construction_errors(case):
    error, build = CONSTRUCTION_ERRORS[case]
    with tf1().Graph().as_default(), pytest.raises(error):
        build(tf1())
    with tfcompat.Graph().as_default(), pytest.raises(error):
        build(tfcompat)


def _run_error(build):
    messages = []
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            fetches, feed = build(tf)
            with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(fetches, feed)
            messages.append(str(e.value))
    return messages


def _unsorted(tf, validate=True):
    ph = tf.sparse_placeholder(tf.int64)
    value = tf.SparseTensorValue(
        np.array([[0, 1], [0, 0]], np.int64), np.array([1, 2], np.int64), np.array([2, 3])
    )
    result = tf.sets.intersection(ph, ph, validate_indices=validate)
    return _fetch(result), {ph: value}


RUN_ERRORS = {
    "out_of_order": _unsorted,
    "out_of_bounds": lambda tf: (
        tf.sets.size(tf.sparse_placeholder(tf.int64, name="sp")),
        {
            "sp/indices:0": np.array([[0, 0], [2, 0]], np.int64),
            "sp/values:0": np.array([1, 2], np.int64),
            "sp/shape:0": np.array([2, 3], np.int64),
        },
    ),
    "repeated": lambda tf: (
        tf.sets.size(tf.sparse_placeholder(tf.int64, name="sp")),
        {
            "sp/indices:0": np.array([[0, 0], [0, 0]], np.int64),
            "sp/values:0": np.array([1, 2], np.int64),
            "sp/shape:0": np.array([2, 3], np.int64),
        },
    ),
    "mismatched_groups": lambda tf: (
        lambda a, b: (_fetch(tf.sets.union(a, b)), {a: np.ones((2, 3)), b: np.ones((3, 3))})
    )(tf.placeholder(tf.int32, [None, 3]), tf.placeholder(tf.int32, [None, 3])),
    "rank_1_at_run_time": lambda tf: (lambda a: (_fetch(tf.sets.union(a, a)), {a: np.ones(3)}))(
        tf.placeholder(tf.int32)
    ),
}


@pytest.mark.parametrize("case", sorted(RUN_ERRORS))
def test_run_errors(case):
    theirs, ours = _run_error(RUN_ERRORS[case])
    assert ours.split("\n")[0] in theirs
