"""String ops vs TF 2.21: hash buckets (ASCII, empty, non-ASCII, binary), as_string formats,
splits, substr, join, regex replacement, decode_raw, length, strip and case; errors."""

import re

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, run, tf1

RNG = np.random.default_rng(0)
STRINGS = np.array(
    [b"", b"a", b"hello world", "h\u00e9llo w\u00f6rld \u2603".encode(), b"x" * 100, b"\0\0"]
    + [bytes(RNG.integers(0, 256, RNG.integers(0, 40)).astype(np.uint8)) for _ in range(60)],
    dtype=object,
)
WORDS = np.array(
    [b"hello world", b"  a  b ", b"", b"a,b,,c", "\u00e9t\u00e9 x".encode(), b" q ", b"x y"],
    object,
)


def _unary(build):
    """A program applying ``build(tf, x)`` to a fed string vector."""

    def program(tf):
        x = tf.placeholder(tf.string, [None], name="x")
        return build(tf, x), {x: WORDS}

    return program


@pytest.mark.parametrize("num_buckets", [1, 7, 1000, 2**62])
@pytest.mark.parametrize(
    "build",
    [
        lambda tf, x, n: tf.string_to_hash_bucket_fast(x, n),
        lambda tf, x, n: tf.strings.to_hash_bucket_strong(x, n, [1, 2]),
        lambda tf, x, n: tf.strings.to_hash_bucket_strong(x, n, [2**63 - 5, 123456789]),
        lambda tf, x, n: tf.string_to_hash_bucket(x, n),
    ],
    ids=["fast", "strong12", "strong_big", "legacy"],
)
def test_hash_buckets_identical_to_tf(build, num_buckets):
    def program(tf):
        x = tf.placeholder(tf.string, [None, 2], name="x")
        return build(tf, x, num_buckets), {x: STRINGS.reshape(-1, 2)}

    assert_parity(program)


def test_hash_bucket_strong_needs_two_key_ints():
    with tfcompat.Graph().as_default():
        h = tfcompat.strings.to_hash_bucket_strong(["a"], 10, [1, 2, 3])
        with tfcompat.Session() as sess, pytest.raises(tfcompat.errors.InvalidArgumentError):
            sess.run(h)


def test_num_buckets_minimum_at_construction():
    with tfcompat.Graph().as_default(), pytest.raises(ValueError, match="num_buckets"):
        tfcompat.string_to_hash_bucket_fast(["a"], 0)


FLOATS = np.array([0.0, -1.5, 3.14159, 1e20, -2.5e-7, np.nan, -np.nan, np.inf, -np.inf])


@pytest.mark.parametrize(
    "dtype,kwargs",
    [
        (np.float32, {}),
        (np.float64, {"precision": 3}),
        (np.float64, {"scientific": True}),
        (np.float64, {"shortest": True}),
        (np.float32, {"width": 12, "fill": "0"}),
        (np.float64, {"width": 12, "fill": "-", "precision": 2}),
        (np.float64, {"width": 10, "fill": "+"}),
        (np.float64, {"width": 10, "fill": " "}),
        (np.float64, {"width": 8}),
        (np.float16, {}),
        (np.int32, {}),
        (np.int64, {"width": 5, "fill": "0"}),
        (np.int8, {"width": 4, "fill": "-"}),
        (np.uint8, {"width": 5}),
        (np.uint64, {}),
        (np.bool_, {}),
        (np.complex64, {"precision": 2}),
        (np.complex128, {}),
    ],
)
def test_as_string_formats(dtype, kwargs):
    def program(tf):
        if dtype == np.bool_:
            values = np.array([True, False])
        elif np.issubdtype(dtype, np.complexfloating):
            values = (FLOATS[:5] + 1j * FLOATS[1:6]).astype(dtype)
        elif dtype == np.float16:
            values = FLOATS[np.abs(FLOATS) != 1e20].astype(dtype)
        elif np.issubdtype(dtype, np.floating):
            values = FLOATS.astype(dtype)
        else:
            info = np.iinfo(dtype)
            values = np.array([0, 1, info.max, info.min, 42], dtype=dtype)
        return tf.as_string(tf.constant(values), **kwargs)

    assert_parity(program)


def test_as_string_of_strings_pads():
    assert_parity(lambda tf: tf.as_string(tf.constant([b"ab", b"c"]), width=4))


@pytest.mark.parametrize(
    "dtype,kwargs,message",
    [
        (np.int32, {"precision": 2}, "precision not supported"),
        (np.int32, {"shortest": True}, "scientific and shortest format not supported"),
        (np.float32, {"scientific": True, "shortest": True}, "both scientific and shortest"),
        (np.float32, {"fill": "ab", "width": 3}, "one or fewer characters"),
        (np.float32, {"fill": "x", "width": 3}, "Fill argument not supported"),
    ],
)
def test_as_string_errors(dtype, kwargs, message):
    def program(tf):
        return tf.as_string(tf.constant(np.array([1], dtype)), **kwargs)

    with pytest.raises(tf1().errors.InvalidArgumentError, match=message):
        run(tf1(), program)
    with pytest.raises(tfcompat.errors.InvalidArgumentError, match=message):
        run(tfcompat, program)


@pytest.mark.parametrize(
    "build",
    [
        lambda tf, x: tf.string_split(x),
        lambda tf, x: tf.string_split(x, sep=","),
        lambda tf, x: tf.string_split(x, sep=", ", skip_empty=False),
        lambda tf, x: tf.string_split(x, sep=""),
        lambda tf, x: tf.string_split(x, delimiter=" ", skip_empty=False),
        lambda tf, x: tf.strings.split(x),
        lambda tf, x: tf.strings.split(x, sep=","),
        lambda tf, x: tf.strings.split(x, sep=" ", maxsplit=1),
        lambda tf, x: tf.strings.split(x, maxsplit=1),
        lambda tf, x: tf.strings.split(x, maxsplit=0),
        lambda tf, x: tf.strings.split(x, maxsplit=2),
        lambda tf, x: tf.strings.split(x, sep=",", maxsplit=0),
        lambda tf, x: tf.strings.split(tf.constant(" a b ")),
    ],
)
def test_splits(build):
    assert_parity(_unary(build))


def test_split_graph_defs():
    assert_same_graph_def(lambda tf: tf.string_split(tf.constant(["a b"]), name="s"))
    assert_same_graph_def(lambda tf: tf.strings.split(tf.constant(["a b"]), sep="b"))


def test_split_needs_a_vector():
    with tfcompat.Graph().as_default(), pytest.raises(ValueError):
        tfcompat.string_split(tfcompat.constant([["a"]]))


@pytest.mark.parametrize("unit", ["BYTE", "UTF8_CHAR"])
@pytest.mark.parametrize(
    "pos,length",
    [(0, 3), (1, 100), (-3, 2), (2, 0), ([0, 1, 2, 0, -1], [1, 2, 3, 0, 5])],
)
def test_substr(unit, pos, length):
    def program(tf):
        x = tf.constant(["hello", "\u00e9t\u00e9 \u2603x", "abc", "world!", "xyz"])
        return tf.strings.substr(x, pos, length, unit=unit)

    assert_parity(program)


def test_substr_broadcasts_scalar_string():
    assert_parity(lambda tf: tf.substr("hello", [[0, 1], [2, 3]], [[1, 2], [3, 1]]))


@pytest.mark.parametrize(
    "unit,message",
    [
        ("BYTE", "pos 10 out of range for string b'hello' at index 0"),
        ("UTF8_CHAR", "pos 10 out of range for string at index 0"),
    ],
)
def test_substr_out_of_range(unit, message):
    def program(tf):
        return tf.strings.substr(tf.constant(["hello"]), [10], [2], unit=unit)

    for tf in (tf1(), tfcompat):
        with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(message)):
            run(tf, program)


@pytest.mark.parametrize("separator", ["", "-", ", "])
def test_string_join(separator):
    def program(tf):
        a = tf.constant([["a", "b"], ["c", "\u00e9"]])
        return [
            tf.strings.join([a, "x", a], separator=separator),
            tf.string_join(["p", "q"], separator=separator, name="j"),
        ]

    assert_parity(program)
    assert_same_graph_def(program)


@pytest.mark.parametrize(
    "pattern,rewrite,replace_global",
    [
        ("o", "0", True),
        ("o", "0", False),
        ("a*", "-", True),
        (r"(\w+) (\w+)", r"\2 \1", True),
        (r"^\s+|\s+$", "", True),
        (r"[aeiou]", r"<\0>", True),
        (",+", ";", True),
        (r"\\", r"\\\\", True),
    ],
)
@pytest.mark.parametrize("static", [True, False])
def test_regex_replace(pattern, rewrite, replace_global, static):
    def build(tf, x):
        p, r = (pattern, rewrite) if static else (tf.constant(pattern), tf.constant(rewrite))
        return tf.strings.regex_replace(x, p, r, replace_global=replace_global)

    assert_parity(_unary(build))


def test_regex_replace_graph_defs():
    def program(tf):
        x = tf.constant(["ab"])
        return [tf.regex_replace(x, "a", "b"), tf.regex_replace(x, tf.constant("a"), "b")]

    assert_same_graph_def(program)


@pytest.mark.parametrize(
    "dtype",
    [
        np.uint8,
        np.int8,
        np.int16,
        np.uint16,
        np.int32,
        np.int64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
        np.bool_,
    ],
)
@pytest.mark.parametrize("little_endian", [True, False])
def test_decode_raw(dtype, little_endian):
    raw = RNG.integers(0, 256, (3, 2, 16)).astype(np.uint8)
    if dtype == np.bool_:
        raw = raw % 2
    data = np.array([[r.tobytes() for r in row] for row in raw], dtype=object)

    def program(tf):
        return tf.decode_raw(tf.constant(data), dtype, little_endian=little_endian)

    assert_parity(program)


@pytest.mark.parametrize(
    "data,message",
    [
        ([b"abcd", b"ab"], "same size"),
        ([b"abc", b"abc"], "not a multiple of 2"),
    ],
)
def test_decode_raw_errors(data, message):
    def program(tf):
        return tf.io.decode_raw(tf.constant(data), tf.int16)

    with pytest.raises(tf1().errors.InvalidArgumentError, match=message):
        run(tf1(), program)
    with pytest.raises(tfcompat.errors.InvalidArgumentError, match=message):
        run(tfcompat, program)


@pytest.mark.parametrize(
    "build",
    [
        lambda tf, x: tf.strings.length(x),
        lambda tf, x: tf.strings.length(x, unit="UTF8_CHAR"),
        lambda tf, x: tf.strings.strip(x),
        lambda tf, x: tf.strings.lower(tf.strings.upper(x)),
        lambda tf, x: tf.strings.upper(x),
        lambda tf, x: tf.strings.upper(x, encoding="utf-8"),
        lambda tf, x: tf.strings.lower(x, encoding="utf-8"),
    ],
)
def test_unary_string_ops(build):
    assert_parity(_unary(build))


def test_string_op_graph_defs():
    def program(tf):
        x = tf.constant(["Ab "], name="x")
        return [
            tf.string_to_hash_bucket_fast(x, 10),
            tf.string_to_hash_bucket_strong(x, 10, [3, 4], name="strong"),
            tf.string_to_hash_bucket(x, 5),
            tf.as_string(tf.constant([1.0]), precision=2, width=5),
            tf.strings.length(x, unit="UTF8_CHAR"),
            tf.strings.strip(x),
            tf.decode_raw(x, tf.uint8),
            tf.substr(x, 0, 1),
        ]

    assert_same_graph_def(program)


def test_string_ops_in_a_device_step():
    """Hash buckets feed an embedding lookup: host prelude, one jitted device segment."""

    def program(tf):
        x = tf.placeholder(tf.string, [None], name="x")
        ids = tf.string_to_hash_bucket_fast(x, 5)
        table = tf.constant(np.arange(10, dtype=np.float32).reshape(5, 2))
        return tf.reduce_sum(tf.gather(table, ids) * 2.0, axis=1), {x: WORDS}

    assert_parity(program)
