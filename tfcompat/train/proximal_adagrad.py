"""``tf.train.ProximalAdagradOptimizer``: Adagrad step sizes with the FOBOS proximal
step of L1/L2 regularization."""

from __future__ import annotations

from tfcompat.framework.constant_op import constant
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import training_ops
from tfcompat.train import optimizer
from tfcompat.util.tf_export import tf_export


@tf_export("train.ProximalAdagradOptimizer")
class ProximalAdagradOptimizer(optimizer.Optimizer):
    """Slot ``accumulator`` (``w/ProximalAdagrad``) from a ``Const`` initial value."""

    def __init__(
        self,
        learning_rate,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="ProximalAdagrad",
    ):
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    def _create_slots(self, var_list):
        for v in var_list:
            with v.graph.colocate_with(v.op):
                val = constant(
                    self._initial_accumulator_value,
                    shape=v.get_shape(),
                    dtype=v.dtype.base_dtype,
                )
            self._get_or_make_slot(v, val, "accumulator", self._name)

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
        return training_ops.apply_proximal_adagrad(
            var,
            self.get_slot(var, "accumulator"),
            *self._hyper(),
            grad,
            use_locking=self._use_locking,
        )

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_proximal_adagrad(
            var,
            self.get_slot(var, "accumulator"),
            *self._hyper(),
            grad.values,
            grad.indices,
            use_locking=self._use_locking,
        )
