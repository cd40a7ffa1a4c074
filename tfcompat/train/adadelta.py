"""``tf.train.AdadeltaOptimizer`` (Zeiler 2012): steps scaled by the ratio of running RMS
of updates and of gradients."""

from __future__ import annotations

from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import math_ops, training_ops
from tfcompat.train import optimizer
from tfcompat.util.tf_export import tf_export


@tf_export("train.AdadeltaOptimizer")
class AdadeltaOptimizer(optimizer.Optimizer):
    """Slots ``accum`` and ``accum_update`` (``w/Adadelta``, ``w/Adadelta_1``)."""

    def __init__(
        self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"
    ):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="lr")
        self._rho_t = convert_to_tensor(self._call_if_callable(self._rho), name="rho")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _args(self, var):
        dtype = var.dtype.base_dtype
        return [
            var,
            self.get_slot(var, "accum"),
            self.get_slot(var, "accum_update"),
            math_ops.cast(self._lr_t, dtype),
            math_ops.cast(self._rho_t, dtype),
            math_ops.cast(self._epsilon_t, dtype),
        ]

    def _apply_dense(self, grad, var):
        return training_ops.apply_adadelta(*self._args(var), grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_adadelta(
            *self._args(var), grad.values, grad.indices, use_locking=self._use_locking
        )
