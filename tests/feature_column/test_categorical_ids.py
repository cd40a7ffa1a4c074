"""Categorical columns produce TF 2.21's ids: hashed strings (ASCII, empty, non-ASCII) and
integers, vocabulary lists and files with OOV buckets and defaults, identity ids with and
without defaults, bucketized ids, weights; and the constructors' argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.feature_column.helpers import assert_parity, ids_of
from tests.oracle import tf1

STRINGS = np.array(
    [["apple", ""], ["", "ünïcödé"], ["日本語", "a b"], ["x" * 300, "\x00bin"]], dtype=object
)


def _sparse_strings(tf):
    values = ["apple", "", "ünïcödé", "日本語", "a b"]
    return tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 2]], values, [4, 3])


@pytest.mark.parametrize("buckets", [1, 10, 1_000_003])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_hash_bucket_string_ids(buckets, sparse):
    def program(tf):
        col = tf.feature_column.categorical_column_with_hash_bucket("s", buckets)
        feature = _sparse_strings(tf) if sparse else tf.constant(STRINGS)
        return ids_of(tf, col, {"s": feature})

    assert_parity(program)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_hash_bucket_integer_ids(dtype):
    values = np.array([[0, -1], [12345678901 % 2**31, 7], [-5, 3]], dtype=dtype)

    def program(tf):
        col = tf.feature_column.categorical_column_with_hash_bucket(
            "i", 100, dtype=tf.as_dtype(dtype)
        )
        return ids_of(tf, col, {"i": tf.constant(values)})  # -1 cells are dropped

    assert_parity(program)


def test_rank1_dense_feature_is_expanded():
    def program(tf):
        col = tf.feature_column.categorical_column_with_hash_bucket("s", 50)
        return ids_of(tf, col, {"s": tf.constant(["a", "", "c"])})

    assert_parity(program)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"num_oov_buckets": 3},
        {"default_value": 7},
    ],
    ids=["default-1", "oov3", "default7"],
)
def test_vocabulary_list_string_ids(kwargs):
    def program(tf):
        col = tf.feature_column.categorical_column_with_vocabulary_list(
            "s", ["apple", "ünïcödé", "pear"], **kwargs
        )
        return ids_of(tf, col, {"s": tf.constant(STRINGS)})

    assert_parity(program)


@pytest.mark.parametrize("input_dtype", ["int32", "int64"])
@pytest.mark.parametrize("kwargs", [{}, {"num_oov_buckets": 2}], ids=["default", "oov2"])
def test_vocabulary_list_integer_ids(input_dtype, kwargs):
    values = np.array([[10, 20], [30, -1], [99, 10]], dtype=input_dtype)

    def program(tf):
        col = tf.feature_column.categorical_column_with_vocabulary_list(
            "i", [10, 20, 30], dtype=tf.int64, **kwargs
        )
        return ids_of(tf, col, {"i": tf.constant(values)})

    assert_parity(program)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"num_oov_buckets": 4}, {"default_value": 0}, {"vocabulary_size": 2}],
    ids=["inferred", "oov4", "default0", "size2"],
)
def test_vocabulary_file_ids(tmp_path, kwargs):
    path = tmp_path / "vocab.txt"
    path.write_text("apple\nünïcödé\npear\n", encoding="utf-8")

    def program(tf):
        col = tf.feature_column.categorical_column_with_vocabulary_file("s", str(path), **kwargs)
        return ids_of(tf, col, {"s": tf.constant(STRINGS)})

    assert_parity(program)


@pytest.mark.parametrize("default_value", [None, 0, 4])
def test_identity_ids(default_value):
    values = np.array([[0, 3], [4, -1], [2, 1]], np.int32)
    if default_value is not None:
        values[1, 0] = 9  # out of range: replaced by the default

    def program(tf):
        col = tf.feature_column.categorical_column_with_identity("i", 5, default_value)
        return ids_of(tf, col, {"i": tf.constant(values)})

    assert_parity(program)


def test_bucketized_ids_and_dense_one_hot():
    ages = np.array([[1.0, 40.0], [18.0, 65.0], [30.0, -3.0]], np.float32)

    def program(tf):
        age = tf.feature_column.numeric_column("age", shape=[2])
        col = tf.feature_column.bucketized_column(age, [18, 30, 50])
        return ids_of(tf, col, {"age": tf.constant(ages)})

    assert_parity(program)


def test_weighted_categorical_ids_and_weights():
    def program(tf):
        col = tf.feature_column.weighted_categorical_column(
            tf.feature_column.categorical_column_with_identity("i", 5), "w"
        )
        features = {
            "i": tf.constant([[1, 2], [3, -1]], tf.int64),
            "w": tf.constant([[0.5, 2.0], [1.5, 0.0]]),
        }
        return ids_of(tf, col, features)

    assert_parity(program)


def test_one_column_transformed_once_per_builder():
    from tfcompat.feature_column.state import _LazyBuilder

    with tfcompat.Graph().as_default() as graph:
        col = tfcompat.feature_column.categorical_column_with_hash_bucket("s", 10)
        builder = _LazyBuilder({"s": tfcompat.constant([["a"]])})
        first = builder.get(col)
        count = len(graph.get_operations())
        assert builder.get(col) is first
        assert len(graph.get_operations()) == count


# ---------------------------------------------------------------------------------------------
# Constructor errors: the same exception class as TF
# ---------------------------------------------------------------------------------------------
ERROR_CASES = {
    "hash-size-0": lambda fc, tf: fc.categorical_column_with_hash_bucket("a", 0),
    "hash-float": lambda fc, tf: fc.categorical_column_with_hash_bucket("a", 3, dtype=tf.float32),
    "key-not-string": lambda fc, tf: fc.categorical_column_with_hash_bucket(3, 3),
    "vocab-empty": lambda fc, tf: fc.categorical_column_with_vocabulary_list("a", []),
    "vocab-dup": lambda fc, tf: fc.categorical_column_with_vocabulary_list("a", ["x", "x"]),
    "vocab-oov-and-default": lambda fc, tf: fc.categorical_column_with_vocabulary_list(
        "a", ["x"], default_value=2, num_oov_buckets=1
    ),
    "vocab-dtype": lambda fc, tf: fc.categorical_column_with_vocabulary_list(
        "a", ["x"], dtype=tf.int64
    ),
    "vocab-file-missing": lambda fc, tf: fc.categorical_column_with_vocabulary_file(
        "a", "/nonexistent/vocab.txt"
    ),
    "identity-0": lambda fc, tf: fc.categorical_column_with_identity("a", 0),
    "identity-default": lambda fc, tf: fc.categorical_column_with_identity("a", 3, 3),
    "numeric-shape": lambda fc, tf: fc.numeric_column("a", shape=[0]),
    "numeric-shape-type": lambda fc, tf: fc.numeric_column("a", shape=[1.5]),
    "numeric-dtype": lambda fc, tf: fc.numeric_column("a", dtype=tf.string),
    "numeric-default": lambda fc, tf: fc.numeric_column("a", shape=[2], default_value=[1.0]),
    "numeric-normalizer": lambda fc, tf: fc.numeric_column("a", normalizer_fn=3),
    "bucket-unsorted": lambda fc, tf: fc.bucketized_column(fc.numeric_column("a"), [2, 1]),
    "bucket-empty": lambda fc, tf: fc.bucketized_column(fc.numeric_column("a"), []),
    "bucket-source": lambda fc, tf: fc.bucketized_column("a", [1]),
    "bucket-2d": lambda fc, tf: fc.bucketized_column(fc.numeric_column("a", [2, 2]), [1]),
    "cross-one-key": lambda fc, tf: fc.crossed_column(["a"], 10),
    "cross-hashed": lambda fc, tf: fc.crossed_column(
        ["a", fc.categorical_column_with_hash_bucket("b", 3)], 10
    ),
    "cross-size": lambda fc, tf: fc.crossed_column(["a", "b"], 0),
    "embedding-dim": lambda fc, tf: fc.embedding_column(
        fc.categorical_column_with_identity("a", 3), 0
    ),
    "embedding-ckpt-half": lambda fc, tf: fc.embedding_column(
        fc.categorical_column_with_identity("a", 3), 2, ckpt_to_load_from="x"
    ),
    "embedding-init": lambda fc, tf: fc.embedding_column(
        fc.categorical_column_with_identity("a", 3), 2, initializer=3
    ),
    "indicator-dense": lambda fc, tf: fc.indicator_column(fc.numeric_column("a")),
    "weighted-dtype": lambda fc, tf: fc.weighted_categorical_column(
        fc.categorical_column_with_identity("a", 3), "w", dtype=tf.string
    ),
    "shared-buckets": lambda fc, tf: fc.shared_embedding_columns(
        [fc.categorical_column_with_identity("a", 3), fc.categorical_column_with_identity("b", 4)],
        2,
    ),
    "shared-kinds": lambda fc, tf: fc.shared_embedding_columns(
        [
            fc.categorical_column_with_identity("a", 3),
            fc.categorical_column_with_hash_bucket("b", 3),
        ],
        2,
    ),
}


def _raised(make, tf):
    try:
        make(tf.feature_column, tf)
    except (ValueError, TypeError) as e:
        return type(e), str(e)
    return None, None


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_constructor_errors_match_tf(case):
    their_type, their_message = _raised(ERROR_CASES[case], tf1())
    our_type, our_message = _raised(ERROR_CASES[case], tfcompat)
    assert their_type is not None
    assert our_type is their_type, (our_message, their_message)
    # messages name the same things (TF prints its own class names, so compare a prefix)
    assert (
        our_message.split(".")[0].split(" Given")[0]
        == their_message.split(".")[0].split(" Given")[0]
    )


def test_embedding_checkpoint_arguments_are_not_implemented():
    fc = tfcompat.feature_column
    with pytest.raises(NotImplementedError, match="checkpoint"):
        fc.embedding_column(
            fc.categorical_column_with_identity("a", 3),
            2,
            ckpt_to_load_from="/tmp/ckpt",
            tensor_name_in_ckpt="table",
        )
