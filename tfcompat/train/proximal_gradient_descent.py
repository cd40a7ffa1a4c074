"""``tf.train.ProximalGradientDescentOptimizer``: gradient descent followed by the
proximal step of L1/L2 regularization (FOBOS)."""

from __future__ import annotations

from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import training_ops
from tfcompat.train import optimizer
from tfcompat.util.tf_export import tf_export


@tf_export("train.ProximalGradientDescentOptimizer")
class ProximalGradientDescentOptimizer(optimizer.Optimizer):
    """No slots; hyperparameters are used in their given dtype, as in TF."""

    def __init__(
        self,
        learning_rate,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="ProximalGradientDescent",
    ):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_tensor = convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength"
        )
        self._l2_tensor = convert_to_tensor(
            self._l2_regularization_strength, name="l2_regularization_strength"
        )

    def _hyper(self):
        return [self._learning_rate_tensor, self._l1_tensor, self._l2_tensor]

    def _apply_dense(self, grad, var):
        return training_ops.update_op(
            training_ops.apply_proximal_gradient_descent(
                var, *self._hyper(), grad, use_locking=self._use_locking
            )
        )

    def _apply_sparse(self, grad, var):
        return training_ops.update_op(
            training_ops.sparse_apply_proximal_gradient_descent(
                var, *self._hyper(), grad.values, grad.indices, use_locking=self._use_locking
            )
        )
