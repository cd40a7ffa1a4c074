"""Parse errors vs TF 2.21: run-time InvalidArgumentErrors (missing required feature, wrong
list type, wrong value count, non-multiple of the block size, undecodable record) name the
feature and the example as TF does, in the batch and the single-example wording; feature
spec errors raise TF's ValueError/TypeError at graph construction."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1
from tests.parsing.examples import batch, serialize


def _fails_like_tf(program):
    """Runs ``program`` under TF and tfcompat (both backends); both must raise
    InvalidArgumentError, and our message must be TF's kernel message."""
    tf = tf1()
    messages = {}
    for name, module, kwargs in [
        ("tf", tf, {}),
        ("xla", tfcompat, {"backend": "xla"}),
        ("reference", tfcompat, {"backend": "reference"}),
    ]:
        with module.Graph().as_default() as graph:
            fetches, feeds = program(module)
            with module.Session(graph=graph, **kwargs) as sess:
                with pytest.raises(module.errors.InvalidArgumentError) as info:
                    sess.run(fetches, feeds)
        messages[name] = info.value.message
    # TF's message: "Graph execution error: ... Node: 'x'\n<kernel message>\n\t [[{{node x}}]]"
    theirs = messages["tf"].split("\n\t [[")[0].rsplit("\n", 1)[-1]
    for backend in ("xla", "reference"):
        assert messages[backend].split("\n")[0] == theirs, (backend, messages[backend], theirs)
    return theirs


BATCH_ERRORS = {
    "missing_required": (
        lambda tf: {"a": tf.FixedLenFeature([1], tf.float32)},
        [{"a": [1.0]}, {"b": [1]}],
        "Name: <unknown>, Feature: a (data type: float) is required",
    ),
    "empty_feature_is_missing": (
        lambda tf: {"a": tf.FixedLenFeature([], tf.int64)},
        [{"a": None}],
        "Feature: a (data type: int64) is required",
    ),
    "dense_wrong_type": (
        lambda tf: {"a": tf.FixedLenFeature([1], tf.float32)},
        [{"a": [1.0]}, {"a": [1.0]}, {"a": [7]}],
        "Index: 2.  Data types don't match. Data type: int64 but expected type: float",
    ),
    "dense_wrong_count_float": (
        lambda tf: {"a": tf.FixedLenFeature([2], tf.float32)},
        [{"a": [1.0, 2.0, 3.0]}],
        "Values size: 3 but output shape: [2]",
    ),
    "dense_wrong_count_int64_matrix": (
        lambda tf: {"a": tf.FixedLenFeature([2, 2], tf.int64, default_value=[[0, 0], [0, 0]])},
        [{}, {"a": [1, 2]}],
        "Number of int64 values != expected.  Values size: 2 but output shape: [2,2]",
    ),
    "dense_wrong_count_string": (
        lambda tf: {"a": tf.FixedLenFeature([1], tf.string)},
        [{"a": [b"x"]}, {"a": [b"x", b"y"]}],
        "Index: 1.  Can't parse serialized Example.",
    ),
    "sequence_not_multiple": (
        lambda tf: {"a": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)},
        [{"a": [1.0, 2.0, 3.0]}],
        "not a multiple of stride length. Saw 3 values but output shape is: [?,2]",
    ),
    "sequence_wrong_type": (
        lambda tf: {"a": tf.FixedLenSequenceFeature([], tf.string, allow_missing=True)},
        [{"a": [1.0]}],
        "Data type: float but expected type: string",
    ),
    "varlen_wrong_type": (
        lambda tf: {"a": tf.VarLenFeature(tf.float32)},
        [{"a": [1.0]}, {"a": [1]}],
        "Index: 1.  Data types don't match. Expected type: float, Actual type: int64",
    ),
    "varlen_empty_list_of_wrong_type": (
        lambda tf: {"a": tf.VarLenFeature(tf.int64)},
        [{"a": []}],
        "Expected type: int64, Actual type: float",
    ),
    # Several features, read together: the failing one among well-formed ones.
    "dense_wrong_count_among_others": (
        lambda tf: {
            "a": tf.VarLenFeature(tf.float32),
            "b": tf.FixedLenFeature([1], tf.float32, default_value=[-1.0]),
            "c": tf.FixedLenFeature([2], tf.int64),
            "d": tf.FixedLenFeature([], tf.string),
        },
        [
            {"a": [1.0], "b": [2.0], "c": [1, 2], "d": [b"x"]},
            {"a": [], "c": [3], "d": [b"y"]},
        ],
        "Name: <unknown>, Key: c, Index: 1.  Number of int64 values != expected.",
    ),
    "varlen_wrong_type_among_others": (
        lambda tf: {
            "a": tf.VarLenFeature(tf.float32),
            "b": tf.VarLenFeature(tf.int64),
            "c": tf.FixedLenFeature([1], tf.float32),
        },
        [{"a": [1.0], "b": [1, 2], "c": [0.5]}, {"a": [2.0], "b": [3.0], "c": [0.5]}],
        "Key: b, Index: 1.  Data types don't match. Expected type: int64, Actual type: float",
    ),
    "sparse_feature_wrong_index_type": (
        lambda tf: {"s": tf.SparseFeature("ix", "v", tf.float32, 4)},
        [{"ix": [1.0], "v": [1.0]}],
        "Key: ix, Index: 0.",
    ),
}


@pytest.mark.parametrize("case", sorted(BATCH_ERRORS))
def test_batch_errors_match_tf(case):
    features, records, expected = BATCH_ERRORS[case]

    def program(tf):
        serialized = tf.placeholder(tf.string, [None])
        return tf.parse_example(serialized, features(tf)), {serialized: batch(records)}

    assert expected in _fails_like_tf(program)


def test_error_names_the_example_by_its_name():
    def program(tf):
        serialized = tf.placeholder(tf.string, [None])
        parsed = tf.parse_example(
            serialized, {"a": tf.FixedLenFeature([], tf.int64)}, example_names=["first", "second"]
        )
        return parsed, {serialized: batch([{"a": [1]}, {}])}

    assert _fails_like_tf(program).startswith("Name: second, Feature: a")


@pytest.mark.parametrize("single", [False, True])
def test_undecodable_record_matches_tf(single):
    def program(tf):
        serialized = tf.placeholder(tf.string, [] if single else [None])
        parsed = tf.parse_single_example if single else tf.parse_example
        record = b"not a proto"
        return parsed(serialized, {"a": tf.VarLenFeature(tf.int64)}), {
            serialized: record if single else [record]
        }

    assert _fails_like_tf(program) == "Could not parse example input, value: 'not a proto'"


SINGLE_ERRORS = {
    "missing_required": (
        lambda tf: {"a": tf.FixedLenFeature([1], tf.float32)},
        {"b": [1]},
    ),
    "dense_wrong_type": (lambda tf: {"a": tf.FixedLenFeature([1], tf.float32)}, {"a": [1]}),
    "dense_wrong_count_float": (
        lambda tf: {"a": tf.FixedLenFeature([1], tf.float32)},
        {"a": [1.0, 2.0]},
    ),
    "dense_wrong_count_int64": (
        lambda tf: {"a": tf.FixedLenFeature([3], tf.int64)},
        {"a": [1, 2]},
    ),
    "dense_wrong_count_string": (
        lambda tf: {"a": tf.FixedLenFeature([1], tf.string)},
        {"a": [b"x", b"y"]},
    ),
    "sequence_not_multiple": (
        lambda tf: {"a": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)},
        {"a": [1, 2, 3]},
    ),
    "varlen_wrong_type": (lambda tf: {"a": tf.VarLenFeature(tf.string)}, {"a": [1.0]}),
}


@pytest.mark.parametrize("case", sorted(SINGLE_ERRORS))
def test_single_example_errors_match_tf(case):
    features, record = SINGLE_ERRORS[case]

    def program(tf):
        serialized = tf.placeholder(tf.string, [])
        return tf.parse_single_example(serialized, features(tf)), {serialized: serialize(record)}

    message = _fails_like_tf(program)
    assert "Key: a" in message or "Feature: a" in message or "key a" in message


def test_single_example_of_a_vector_fails_its_assert():
    def program(tf):
        serialized = tf.placeholder(tf.string)
        parsed = tf.parse_single_example(serialized, {"a": tf.VarLenFeature(tf.int64)})
        return parsed, {serialized: np.array([serialize({"a": [1]})], dtype=object)}

    assert "Input serialized must be a scalar" in _fails_like_tf(program)


# ---------------------------------------------------------------------------------------------
# Construction-time errors
# ---------------------------------------------------------------------------------------------
SPEC_ERRORS = {
    "no_features": (lambda tf: {}, [None]),
    "unknown_first_dim": (lambda tf: {"a": tf.FixedLenFeature([None, 2], tf.float32)}, [None]),
    "partial_shape": (lambda tf: {"a": tf.FixedLenFeature([2, None], tf.float32)}, [None]),
    "sequence_without_allow_missing": (
        lambda tf: {"a": tf.FixedLenSequenceFeature([], tf.float32)},
        [None],
    ),
    "dense_and_sparse_same_key": (
        lambda tf: {
            "a": tf.FixedLenFeature([], tf.int64),
            "s": tf.SparseFeature("a", "v", tf.float32, 3),
        },
        [None],
    ),
    "conflicting_sparse_types": (
        lambda tf: {
            "ix": tf.VarLenFeature(tf.float32),
            "s": tf.SparseFeature("ix", "v", tf.float32, 3),
        },
        [None],
    ),
    "unsupported_spec": (lambda tf: {"a": (3, "x")}, [None]),
    "default_of_wrong_size": (
        lambda tf: {"a": tf.FixedLenFeature([2, 2], tf.int64, default_value=5)},
        [None],
    ),
    "vector_input_to_single": (
        lambda tf: {"a": tf.FixedLenFeature([], tf.int64)},
        [3],
    ),
    "matrix_input": (lambda tf: {"a": tf.FixedLenFeature([], tf.int64)}, [2, 2]),
}


def _build_error(module, case):
    features, shape = SPEC_ERRORS[case]
    with module.Graph().as_default():
        serialized = module.placeholder(module.string, shape)
        parse = module.parse_single_example if case.endswith("_single") else module.parse_example
        try:
            parse(serialized, features(module))
        except (ValueError, TypeError) as e:
            return type(e), str(e)
    return None, None


@pytest.mark.parametrize("case", sorted(SPEC_ERRORS))
def test_feature_spec_errors_match_tf(case):
    theirs = _build_error(tf1(), case)
    ours = _build_error(tfcompat, case)
    assert theirs[0] is not None
    assert ours[0] is theirs[0]
    # Messages of our own validation are TF's; shape-function messages only share the cause.
    if "{{node" not in theirs[1]:
        assert ours[1] == theirs[1]
    else:
        assert ours[1].split(" for '")[0] in theirs[1]
