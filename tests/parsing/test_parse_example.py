"""tf.parse_example / tf.parse_single_example vs TF 2.21: values, dtypes and static shapes of
every feature kind (FixedLen with and without defaults, FixedLenSequence, VarLen, Sparse)
for float, int64 and string features, with records made by TF's protos and by ours; and
the GraphDefs the wrappers build (node names, inputs, attrs)."""

import numpy as np
import pytest

from tests.oracle import assert_parity, assert_same_graph_def
from tests.parsing.examples import MAKERS, batch, serialize

# name -> (features(tf) -> spec dict, records)
CASES = {
    "dense_float_default": (
        lambda tf: {"x": tf.io.FixedLenFeature([2], tf.float32, default_value=[-1.0, -2.0])},
        [{"x": [1.5, 2.5]}, {}, {"x": None}, {"x": [3.0, 4.0]}],
    ),
    "dense_int64_matrix": (
        lambda tf: {"m": tf.io.FixedLenFeature([2, 2], tf.int64)},
        [{"m": [1, 2, 3, 4]}, {"m": [-5, 2**40, 0, 7]}],
    ),
    "dense_string_scalar_default": (
        lambda tf: {"s": tf.io.FixedLenFeature([], tf.string, default_value="none")},
        [{"s": [b"a"]}, {}, {"s": [b"\xff\x00z"]}],
    ),
    "dense_required_scalar": (
        lambda tf: {"y": tf.FixedLenFeature((), tf.float32)},
        [{"y": [0.25]}, {"y": [-3.0]}],
    ),
    "sequence_float": (
        lambda tf: {"q": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)},
        [{"q": [1.0, 2.0, 3.0]}, {}, {"q": [4.0]}, {"q": None}],
    ),
    "sequence_int64_blocks_default": (
        lambda tf: {
            "q": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True, default_value=-1)
        },
        [{"q": [1, 2]}, {"q": [3, 4, 5, 6, 7, 8]}, {}],
    ),
    "sequence_string_default": (
        lambda tf: {
            "q": tf.io.FixedLenSequenceFeature(
                [], tf.string, allow_missing=True, default_value="pad"
            )
        },
        [{"q": [b"a", b"b"]}, {"q": [b"c"]}],
    ),
    "varlen_int64": (
        lambda tf: {"ids": tf.io.VarLenFeature(tf.int64)},
        [{"ids": [3, 1, 4]}, {}, {"ids": None}, {"ids": [1, 5]}],
    ),
    "varlen_float": (
        lambda tf: {"w": tf.VarLenFeature(tf.float32)},
        [{"w": [0.5]}, {"w": [1.0, -2.0, 3.5, 4.0]}],
    ),
    "varlen_string": (
        lambda tf: {"t": tf.io.VarLenFeature(tf.string)},
        [{"t": [b"x", b"yy"]}, {"t": [b""]}, {}],
    ),
    "varlen_all_missing": (
        lambda tf: {"ids": tf.io.VarLenFeature(tf.int64)},
        [{}, {"other": [1]}],
    ),
    "sparse_unsorted": (
        lambda tf: {"sp": tf.io.SparseFeature("ix", "val", tf.float32, 10)},
        [{"ix": [7, 2, 5], "val": [1.0, 2.0, 3.0]}, {}, {"ix": [0], "val": [9.0]}],
    ),
    "sparse_already_sorted": (
        lambda tf: {"sp": tf.SparseFeature("ix", "val", tf.int64, 6, already_sorted=True)},
        [{"ix": [1, 4], "val": [10, 40]}, {"ix": [2], "val": [20]}],
    ),
    "sparse_two_dims_string": (
        lambda tf: {"sp": tf.io.SparseFeature(["r", "c"], "v", tf.string, [3, 4])},
        [{"r": [2, 0], "c": [1, 3], "v": [b"b", b"a"]}, {"r": [1], "c": [0], "v": [b"c"]}],
    ),
    "mixed": (
        lambda tf: {
            "label": tf.io.FixedLenFeature([1], tf.float32),
            "dense": tf.io.FixedLenFeature([3], tf.float32, default_value=[0.0, 0.0, 0.0]),
            "cat": tf.io.FixedLenFeature([], tf.string, default_value=""),
            "ids": tf.io.VarLenFeature(tf.int64),
            "seq": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
            "sp": tf.io.SparseFeature("sp_ix", "sp_val", tf.float32, 100),
        },
        [
            {"label": [1.0], "dense": [1.0, 2.0, 3.0], "cat": [b"a"], "ids": [1, 2, 3]},
            {"label": [0.0], "seq": [5, 6], "sp_ix": [99, 3], "sp_val": [0.5, 0.25]},
            {"label": [1.0], "ids": None, "cat": [b"c"], "seq": [7]},
        ],
    ),
}


def _batch_program(case, maker, static_batch):
    features, records = CASES[case]

    def program(tf):
        serialized = tf.placeholder(tf.string, [len(records) if static_batch else None])
        parsed = tf.io.parse_example(serialized, features(tf))
        return parsed, {serialized: batch(records, maker)}

    return program


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_parse_example_matches_tf(case, maker):
    assert_parity(_batch_program(case, maker, static_batch=False))


@pytest.mark.parametrize("case", ["mixed", "sequence_int64_blocks_default", "sparse_unsorted"])
def test_parse_example_with_static_batch_matches_tf(case):
    assert_parity(_batch_program(case, "tf", static_batch=True))


@pytest.mark.parametrize("case", sorted(CASES))
def test_parse_example_graph_def_matches_tf(case):
    assert_same_graph_def(_batch_program(case, "tf", static_batch=False))


def test_empty_batch_matches_tf():
    def program(tf):
        serialized = tf.placeholder(tf.string, [None])
        parsed = tf.parse_example(
            serialized,
            {
                "x": tf.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0]),
                "ids": tf.VarLenFeature(tf.int64),
                "q": tf.FixedLenSequenceFeature([3], tf.float32, allow_missing=True),
            },
        )
        return parsed, {serialized: np.array([], dtype=object)}

    assert_parity(program)


def test_example_names_and_constant_input_match_tf():
    records = batch([{"a": [1, 2]}, {"a": [3]}])

    def program(tf):
        return tf.parse_example(
            tf.constant(records),
            {"a": tf.VarLenFeature(tf.int64), "b": tf.FixedLenFeature([], tf.int64, 0)},
            name="parse",
            example_names=["first", "second"],
        )

    assert_parity(program)
    assert_same_graph_def(program)


SINGLE_CASES = ["dense_float_default", "varlen_string", "sequence_int64_blocks_default", "mixed"]


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("case", SINGLE_CASES + ["sparse_two_dims_string"])
@pytest.mark.parametrize("static_rank", [True, False])
def test_parse_single_example_matches_tf(case, maker, static_rank):
    features, records = CASES[case]

    def program(tf):
        serialized = tf.placeholder(tf.string, [] if static_rank else None)
        parsed = tf.io.parse_single_example(serialized, features(tf))
        return parsed, {serialized: serialize(records[0], maker)}

    assert_parity(program)
    assert_same_graph_def(program)


def test_parse_single_example_named_matches_tf():
    def program(tf):
        serialized = tf.placeholder(tf.string)
        return tf.parse_single_example(
            serialized,
            {
                "a": tf.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0]),
                "sp": tf.SparseFeature(["ix", "iy"], "val", tf.float32, [10, 4]),
            },
            name="single",
        ), {serialized: serialize({"ix": [3, 1], "iy": [0, 2], "val": [0.5, 0.25]})}

    assert_parity(program)
    assert_same_graph_def(program)


def test_sparse_tensor_static_shapes():
    """The SparseTensor parts' static shapes are TF's: rank from the input's rank."""
    import tfcompat as tf

    with tf.Graph().as_default():
        parsed = tf.parse_example(
            tf.placeholder(tf.string, [4]),
            {"ids": tf.VarLenFeature(tf.int64), "x": tf.FixedLenFeature([3], tf.float32)},
        )
        assert parsed["ids"].indices.shape.as_list() == [None, 2]
        assert parsed["ids"].dense_shape.shape.as_list() == [2]
        assert parsed["x"].shape.as_list() == [4, 3]
        unknown = tf.parse_example(tf.placeholder(tf.string), {"x": tf.VarLenFeature(tf.float32)})
        assert unknown["x"].indices.shape.as_list() == [None, None]
