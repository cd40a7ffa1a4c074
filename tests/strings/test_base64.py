"""tf.io.encode_base64 / decode_base64 (web-safe, optional padding) against TF 2.21:
round trips of arbitrary bytes, and TF's errors for malformed input."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, tf1

DATA = np.array([b"", b"a", b"ab", b"abc", b"\xff\xfe\xfd?>", bytes(range(40))], dtype=object)
ENCODED_OK = np.array([b"YQ", b"YQ==", b"YWI=", b"_-8", b"", b"YWJj"], dtype=object)


def test_encode_and_decode_match_tf():
    def program(tf):
        x = tf.constant(DATA)
        return [
            tf.io.encode_base64(x),
            tf.encode_base64(x, pad=True),
            tf.io.decode_base64(tf.io.encode_base64(x)),
            tf.decode_base64(tf.constant(ENCODED_OK)),
        ]

    assert_parity(program)


@pytest.mark.parametrize("bad", [b"YW+i", b"Y", b"YW=i", b"YWJj====", b"Y Q", b"YQ=", b"YWJjY"])
def test_decode_errors_match_tf(bad):
    outcomes = []
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.string, [None])
            decoded = tf.io.decode_base64(x)
            with tf.Session() as sess:
                with pytest.raises(tf.errors.OpError) as raised:
                    sess.run(decoded, {x: [bad]})
        outcomes.append((type(raised.value).__name__, raised.value.message))
    (ours, our_message), (theirs, their_message) = outcomes
    assert ours == theirs == "InvalidArgumentError"
    assert our_message.split("\\n")[0] in their_message
