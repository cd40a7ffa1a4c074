"""``SparseMatMul`` vs TF 2.21: ``tf.sparse_matmul`` and ``tf.matmul`` with sparsity hints
(which emit it, as TF's does), bfloat16 operands, and TF's gradient graph (SparseMatMul
where an operand is marked sparse or the incoming gradient is a ReluGrad)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import assert_parity, assert_same_graph_def

RNG = np.random.default_rng(3)
A = np.where(RNG.random((4, 5)) < 0.6, 0.0, RNG.standard_normal((4, 5))).astype(np.float32)
B = RNG.standard_normal((5, 3)).astype(np.float32)


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_values_gradients_and_graph_match_tf(transpose_a, transpose_b):
    def program(tf):
        a = tf.constant(A.T if transpose_a else A, name="a")
        b = tf.constant(B.T if transpose_b else B, name="b")
        hinted = tf.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, a_is_sparse=True)
        direct = tf.sparse_matmul(
            a, b, transpose_a=transpose_a, transpose_b=transpose_b, b_is_sparse=True
        )
        relu = tf.nn.relu(hinted)
        loss = tf.reduce_sum(tf.matmul(relu, tf.ones([3, 2]), a_is_sparse=True)) + tf.reduce_sum(
            direct * direct
        )
        return [hinted, direct] + tf.gradients(loss, [a, b])

    assert_parity(program, rtol=1e-5, atol=1e-5)
    assert_same_graph_def(program)


def test_bfloat16_operands_give_tfs_dtypes():
    def program(tf):
        a = tf.constant(A, dtype=tf.bfloat16)
        b = tf.constant(B, dtype=tf.bfloat16)
        both = tf.matmul(a, b, a_is_sparse=True)  # float32 product cast back to bfloat16
        mixed = tf.matmul(a, tf.constant(B), b_is_sparse=True)  # float32 product
        return [tf.cast(both, tf.float32), mixed]

    assert_parity(program, rtol=2e-2, atol=2e-2)
    assert_same_graph_def(program)
