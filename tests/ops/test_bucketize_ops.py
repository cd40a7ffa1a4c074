"""``Bucketize`` vs TF 2.21: values on, between and outside boundaries, every input dtype,
NaN/inf, empty boundaries' neighbours, and float32 rounding of the boundaries."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity

VALUES = [-np.inf, -3.0, 0.0, 0.1, 1.0, 1.5, 2.0, 10.0, 1e10, np.inf, np.nan]


def _bucketize(tf, x, boundaries):
    if tf is tfcompat:
        from tfcompat.ops.bucketize_ops import bucketize

        return bucketize(x, boundaries)
    return tf.raw_ops.Bucketize(input=x, boundaries=boundaries)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("boundaries", [[0.0], [0.0, 1.0, 2.0], [-1.0, 0.1, 1.5, 1e9]])
def test_bucketize_values(dtype, boundaries):
    values = np.array(VALUES, np.float64)
    if dtype.startswith("int"):
        values = np.nan_to_num(values, nan=7.0, posinf=2**30, neginf=-(2**30))
    x = values.astype(dtype).reshape(1, -1)

    def program(tf):
        return _bucketize(tf, tf.constant(np.concatenate([x, x[:, ::-1]])), boundaries)

    assert_parity(program)


def test_bucketize_float64_against_float32_boundaries():
    # 0.1 as a float32 boundary is 0.100000001...; a double 0.1 lies below it
    x = np.array([0.1, np.float32(0.1), 0.10000001], np.float64)
    assert_parity(lambda tf: _bucketize(tf, tf.constant(x), [0.1]))


def test_bucketize_fed_unknown_shape():
    x = np.random.default_rng(0).normal(size=(4, 5)).astype(np.float32)

    def program(tf):
        p = tf.placeholder(tf.float32, None)
        return _bucketize(tf, p, [-1.0, 0.0, 0.5]), {p: x}

    assert_parity(program)
