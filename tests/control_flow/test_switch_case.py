"""``tf.switch_case`` vs TF 2.21: the selected branch's values and gradients (indices out of
range run the default, or the last branch), and TF's argument errors. TF emits a
functional ``Case`` op; tfcompat chains TF1 conds, so only values are compared."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, tf1


@pytest.mark.parametrize("index", [-1, 0, 1, 2, 5])
def test_values_and_gradients_match_tf(index):
    def program(tf):
        i = tf.placeholder(tf.int32, [], name="i")
        x = tf.constant(np.float32(2.0))
        out = tf.switch_case(i, [lambda: x * 1.0, lambda: x * x, lambda: tf.sin(x)])
        keyed = tf.switch_case(
            i,
            {1: lambda: tf.constant(20.0), 0: lambda: tf.constant(10.0)},
            default=lambda: tf.constant(-1.0),
        )
        return [out, keyed, tf.gradients(out, x)[0]], {i: index}

    assert_parity(program)


@pytest.mark.parametrize(
    "branch_fns",
    [[], [(1, lambda: 1.0)], "x", [(0, 1.0)], [(0.0, lambda: 1.0)]],
    ids=["empty", "keys_not_from_0", "not_a_list", "not_callable", "float_key"],
)
def test_argument_errors_match_tf(branch_fns):
    def error(tf):
        with tf.Graph().as_default():
            i = tf.placeholder(tf.int32, [])
            with pytest.raises((TypeError, ValueError)) as info:
                tf.switch_case(i, branch_fns)
            return type(info.value), str(info.value)

    assert error(tfcompat) == error(tf1())
