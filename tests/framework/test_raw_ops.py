"""``tf.raw_ops`` and the namedtuples TF's generated op wrappers return, vs TF 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.framework.test_op_def_parity import TFCOMPAT_ONLY
from tests.oracle import assert_parity, assert_same_graph_def, tf1

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def _raw_program(tf):
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    y = tf.raw_ops.MatMul(a=x, b=x, transpose_b=True, name="mm")
    z = tf.raw_ops.ConcatV2(values=[x, 2.0 * x], axis=0)
    total = tf.raw_ops.AddN(inputs=[x, x, x])
    uniq = tf.raw_ops.Unique(x=tf.constant([3, 1, 3, 2]), out_idx=tf.int64)
    cast = tf.raw_ops.Cast(x=x, DstT=tf.int32)
    mean = tf.raw_ops.Mean(input=x, axis=[1], keep_dims=True)
    pick = tf.raw_ops.Select(condition=[True, False], x=x, y=-x)
    return [y, z, total, uniq.y, uniq.idx, cast, mean, pick], {x: X}


def test_raw_ops_build_tf_graphs_and_values():
    assert_parity(_raw_program)
    assert_same_graph_def(_raw_program)


def test_raw_ops_results_are_tf_namedtuples_tensors_and_operations():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            x = tf.constant([3, 1, 3, 2])
            uniq = tf.raw_ops.UniqueWithCounts(x=x)
            assert type(uniq).__name__ == "UniqueWithCounts"
            assert uniq._fields == ("y", "idx", "count")
            assert isinstance(tf.raw_ops.Add(x=1.0, y=2.0), tf.Tensor)
            assert isinstance(tf.raw_ops.NoOp(name="nothing"), tf.Operation)
            split = tf.raw_ops.Split(axis=0, value=tf.zeros([4]), num_split=2)
            assert isinstance(split, list) and len(split) == 2


def test_raw_ops_take_keyword_arguments_only_as_in_tf():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(TypeError, match=r"only takes keyword args \(possible keys: "):
                tf.raw_ops.Add(1.0, 2.0)
            with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
                tf.raw_ops.Add(x=1.0, z=2.0)
    with pytest.raises(AttributeError, match="NoSuchOp"):
        tfcompat.raw_ops.NoSuchOp  # noqa: B018


def test_raw_ops_take_tf_argument_names_in_tf_order():
    # TF's wrappers: inputs and the attrs not inferred from them, with api_def renames
    # (``Sum(input, axis, keep_dims)``, not ``reduction_indices``; ``Add`` takes no ``T``).
    import inspect

    from tfcompat.framework import op_def as op_def_lib

    theirs_ops = tf1().raw_ops
    different = {}
    for op_type in sorted(set(dir(tfcompat.raw_ops)) - TFCOMPAT_ONLY):
        theirs = [p for p in inspect.signature(getattr(theirs_ops, op_type)).parameters]
        ours = [p for p, _ in tfcompat.raw_ops.python_args(op_def_lib.OPDEFS[op_type])]
        if ours + ["name"] != theirs:
            different[op_type] = (ours, theirs)
    assert not different, different


def test_raw_ops_export_tf_op_names_only():
    ours = set(dir(tfcompat.raw_ops))
    missing_in_tf = sorted(ours - set(dir(tf1().raw_ops)) - TFCOMPAT_ONLY)
    assert not missing_in_tf, missing_in_tf
    assert {"MatMul", "SparseApplyAdagrad", "StringToHashBucketFast", "ParseExampleV2"} <= ours


MULTI_OUTPUT = {
    "unique": lambda tf: tf.unique(tf.constant([3, 1, 3])),
    "unique_with_counts": lambda tf: tf.unique_with_counts(tf.constant([3, 1, 3])),
    "setdiff1d": lambda tf: tf.setdiff1d(tf.constant([3, 1, 3]), [1]),
    "qr": lambda tf: tf.qr(tf.constant(X)),
    "slogdet": lambda tf: tf.linalg.slogdet(tf.eye(2)),
    "top_k": lambda tf: tf.nn.top_k(tf.constant(X), 2),
    "uniform_candidate_sampler": lambda tf: tf.nn.uniform_candidate_sampler(
        tf.constant([[1]], tf.int64), 1, 2, True, 5, seed=1
    ),
    "compute_accidental_hits": lambda tf: tf.nn.compute_accidental_hits(
        tf.constant([[1]], tf.int64), tf.constant([1, 2], tf.int64), 1
    ),
}


@pytest.mark.parametrize("name", sorted(MULTI_OUTPUT))
def test_multi_output_wrappers_return_tf_namedtuples(name):
    kinds = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            result = MULTI_OUTPUT[name](tf)
            kinds.append((type(result).__name__, getattr(result, "_fields", None)))
    assert kinds[0] == kinds[1]


def test_session_run_returns_the_namedtuple():
    with tfcompat.Graph().as_default():
        uniq = tfcompat.unique(tfcompat.constant([3, 1, 3]))
        value = tfcompat.Session().run(uniq)
    assert type(value).__name__ == "Unique"
    np.testing.assert_array_equal(value.y, [3, 1])
    np.testing.assert_array_equal(value.idx, [0, 1, 0])
