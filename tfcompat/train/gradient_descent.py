"""``tf.train.GradientDescentOptimizer``: ``var -= learning_rate * grad``."""

from __future__ import annotations

from tfcompat.framework.indexed_slices import IndexedSlices
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import math_ops, resource_variable_ops, training_ops
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
        update = training_ops.apply_gradient_descent(
            var, self._lr(var), grad, use_locking=self._use_locking
        )
        return training_ops.update_op(update)

    def _apply_sparse_duplicate_indices(self, grad, var):
        # A scatter subtraction adds up duplicate rows by itself: no deduplication.
        delta = IndexedSlices(grad.values * self._lr(var), grad.indices, grad.dense_shape)
        return var.scatter_sub(delta, use_locking=self._use_locking)

    def _resource_apply_sparse_duplicate_indices(self, grad, var, indices):
        # TF adds the negated scaled rows (ResourceScatterAdd) to a resource variable.
        return resource_variable_ops.resource_scatter_add(
            var.handle, indices, -grad * self._lr(var)
        )
