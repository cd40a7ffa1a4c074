"""``tf.train.AdagradDAOptimizer``: Adagrad dual averaging (Duchi et al.), for sparse
linear models; the update reads the global step."""

from __future__ import annotations

from tfcompat.framework.constant_op import constant
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import array_ops, math_ops, training_ops
from tfcompat.train import optimizer
from tfcompat.util.tf_export import tf_export


@tf_export("train.AdagradDAOptimizer")
class AdagradDAOptimizer(optimizer.Optimizer):
    """Slots ``gradient_accumulator`` and ``gradient_squared_accumulator``."""

    def __init__(
        self,
        learning_rate,
        global_step,
        initial_gradient_squared_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="AdagradDA",
    ):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError(
                "initial_gradient_squared_accumulator_value must be positive: "
                f"{initial_gradient_squared_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = (
            initial_gradient_squared_accumulator_value
        )
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._global_step = global_step
        self._global_step_on_worker = None

    def _create_slots(self, var_list):
        for v in var_list:
            graph = v.graph
            with graph.colocate_with(v.op):
                dtype = v.dtype.base_dtype
                g_val = constant(0.0, shape=v.get_shape(), dtype=dtype)
                gg_val = constant(
                    self._initial_gradient_squared_accumulator_value,
                    shape=v.get_shape(),
                    dtype=dtype,
                )
            self._get_or_make_slot(v, g_val, "gradient_accumulator", self._name)
            self._get_or_make_slot(v, gg_val, "gradient_squared_accumulator", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        graph = self._learning_rate_tensor.graph
        with graph.colocate_with(self._learning_rate_tensor.op):
            self._global_step_on_worker = array_ops.identity(self._global_step) + 1

    def _apply(self, grad_args, var):
        """``ApplyAdagradDA`` (``grad_args`` = [grad]) or ``SparseApplyAdagradDA``
        ([values, indices]) with the hyperparameters cast to the variable's dtype."""
        with var.graph.device(var.device):
            global_step = array_ops.identity(self._global_step_on_worker)
        dtype = var.dtype.base_dtype
        hyper = [
            math_ops.cast(self._learning_rate_tensor, dtype),
            math_ops.cast(self._l1_regularization_strength, dtype),
            math_ops.cast(self._l2_regularization_strength, dtype),
        ]
        slots = (
            self.get_slot(var, "gradient_accumulator"),
            self.get_slot(var, "gradient_squared_accumulator"),
        )
        dense = len(grad_args) == 1
        apply = training_ops.apply_adagrad_da if dense else training_ops.sparse_apply_adagrad_da
        return apply(var, *slots, *grad_args, *hyper, global_step, use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        return self._apply([grad], var)

    def _apply_sparse(self, grad, var):
        return self._apply([grad.values, grad.indices], var)
