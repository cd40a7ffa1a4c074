"""tf.strings.to_number / tf.string_to_number against TF 2.21: every output type over
TF's accepted syntax (whitespace, signs, inf / nan, hexadecimal floats, leading zeros,
overflow to inf) and TF's error, string by string, for what its parsers reject."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1
from tfcompat.framework import errors

FLOATS = [b"1.5", b" 2 ", b"inf", b"-NaN", b"1e3", b"0x10", b"+4", b"1e400", b"infinity",
          b"-Inf", b"\t7\n", b".5", b"5.", b"0x1p3", b"00012", b"1e-50", b"nan(123)",
          b"3.4028236e38", b"-0.0"]  # fmt: skip
INTEGERS = [b"12", b" -3 ", b"+4", b"\t7\n", b"00012", b"0", b"-2147483648"]
REJECTED = [b"1_0", b"", b"1.5f", b"  ", b"1,5", b"3e", b"-", b"0x", b"abc", b"1 2"]
REJECTED_INTEGERS = [b"1.5", b"inf", b"1e3", b"0x10", b"99999999999", b".5", b"5."]


@pytest.mark.parametrize("out_type", ["float32", "float64"])
def test_floats_match_tf(out_type):
    def program(tf):
        s = tf.placeholder(tf.string, [None], name="s")
        return tf.strings.to_number(s, getattr(tf, out_type)), {s: np.array(FLOATS, object)}

    assert_parity(program, rtol=0, atol=0)


@pytest.mark.parametrize("out_type", ["int32", "int64"])
def test_integers_match_tf(out_type):
    def program(tf):
        s = tf.placeholder(tf.string, [None], name="s")
        return tf.string_to_number(s, getattr(tf, out_type)), {s: np.array(INTEGERS, object)}

    assert_parity(program)


def test_graph_def_and_values_downstream_match_tf():
    def program(tf):
        s = tf.placeholder(tf.string, [2, 2], name="s")
        x = tf.string_to_number(s, name="parse") * 2.0
        return [x, tf.strings.to_number(s, tf.int64) + 1], {s: [[b"1", b"2"], [b"3", b"-4"]]}

    assert_same_graph_def(program)
    assert_parity(program)


@pytest.mark.parametrize(
    "out_type, text",
    [("float32", t) for t in REJECTED] + [("int32", t) for t in REJECTED + REJECTED_INTEGERS]
    + [("int64", b"9223372036854775808")],
)  # fmt: skip
def test_rejected_strings_raise_tf_error(out_type, text):
    messages = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            s = tf.placeholder(tf.string, [None])
            y = tf.strings.to_number(s, getattr(tf, out_type))
            error = (
                errors.InvalidArgumentError if tf is tfcompat else tf.errors.InvalidArgumentError
            )
            with tf.Session() as sess, pytest.raises(error) as info:
                sess.run(y, {s: [b"1", text]})
            messages.append(str(info.value))
    expected = f"StringToNumberOp could not correctly convert string: {text.decode()}"
    assert all(expected in m for m in messages), messages
