"""``tf.train.GradientDescentOptimizer``: ``var -= learning_rate * grad``."""

from __future__ import annotations

from tfcompat.framework.indexed_slices import IndexedSlices
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import math_ops, training_ops
from tfcompat.train import optimizer
from tfcompat.util.tf_export import tf_export


@tf_export("train.GradientDescentOptimizer")
class GradientDescentOptimizer(optimizer.Optimizer):
    """Plain gradient descent (``ApplyGradientDescent``; sparse: ``ScatterSub``)."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(lr, name="learning_rate")

    def _lr(self, var):
        return math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype)

    def _apply_dense(self, grad, var):
        return training_ops.apply_gradient_descent(
            var, self._lr(var), grad, use_locking=self._use_locking
        ).op

    def _apply_sparse_duplicate_indices(self, grad, var):
        # A scatter subtraction adds up duplicate rows by itself: no deduplication.
        delta = IndexedSlices(grad.values * self._lr(var), grad.indices, grad.dense_shape)
        return var.scatter_sub(delta, use_locking=self._use_locking)
