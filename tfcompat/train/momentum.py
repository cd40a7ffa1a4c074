"""``tf.train.MomentumOptimizer``: ``accum = accum * momentum + grad; var -= lr * accum``
(or the Nesterov form)."""

from __future__ import annotations

from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import math_ops, training_ops
from tfcompat.train import optimizer
from tfcompat.util.tf_export import tf_export


@tf_export("train.MomentumOptimizer")
class MomentumOptimizer(optimizer.Optimizer):
    """Momentum SGD; slot ``momentum`` (``w/Momentum``)."""

    def __init__(
        self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False
    ):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(lr, name="learning_rate")
        momentum = self._call_if_callable(self._momentum)
        self._momentum_tensor = convert_to_tensor(momentum, name="momentum")

    def _hyper(self, var):
        dtype = var.dtype.base_dtype
        return (
            math_ops.cast(self._learning_rate_tensor, dtype),
            math_ops.cast(self._momentum_tensor, dtype),
        )

    def _apply_dense(self, grad, var):
        lr, momentum = self._hyper(var)
        return training_ops.update_op(
            training_ops.apply_momentum(
                var,
                self.get_slot(var, "momentum"),
                lr,
                grad,
                momentum,
                use_locking=self._use_locking,
                use_nesterov=self._use_nesterov,
            )
        )

    def _apply_sparse(self, grad, var):
        lr, momentum = self._hyper(var)
        return training_ops.update_op(
            training_ops.sparse_apply_momentum(
                var,
                self.get_slot(var, "momentum"),
                lr,
                grad.values,
                grad.indices,
                momentum,
                use_locking=self._use_locking,
                use_nesterov=self._use_nesterov,
            )
        )
