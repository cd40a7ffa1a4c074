"""``tf.train.AdagradOptimizer``: ``accum += grad**2; var -= lr * grad / sqrt(accum)``."""

from __future__ import annotations

from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import array_ops, math_ops, training_ops
from tfcompat.train import optimizer, slot_creator
from tfcompat.util.tf_export import tf_export


@tf_export("train.AdagradOptimizer")
class AdagradOptimizer(optimizer.Optimizer):
    """Adagrad; slot ``accumulator`` (``w/Adagrad``) starts at
    ``initial_accumulator_value``."""

    def __init__(
        self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"
    ):
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._learning_rate_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            if v.get_shape().is_fully_defined():
                init = slot_creator.constant_initializer(self._initial_accumulator_value)
            else:
                init = self._fill_like(v)
            self._get_or_make_slot_with_initializer(
                v, init, v.get_shape(), dtype, "accumulator", self._name
            )

    def _fill_like(self, v):
        def init(shape, dtype):
            filled = array_ops.fill(array_ops.shape(v), self._initial_accumulator_value)
            return math_ops.cast(filled, dtype)

        return init

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(lr, name="learning_rate")

    def _apply_dense(self, grad, var):
        lr = math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype)
        return training_ops.apply_adagrad(
            var, self.get_slot(var, "accumulator"), lr, grad, use_locking=self._use_locking
        )

    def _apply_sparse(self, grad, var):
        lr = math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype)
        return training_ops.sparse_apply_adagrad(
            var,
            self.get_slot(var, "accumulator"),
            lr,
            grad.values,
            grad.indices,
            use_locking=self._use_locking,
        )
