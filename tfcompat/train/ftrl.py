"""``tf.train.FtrlOptimizer``: FTRL-Proximal (McMahan et al. 2013), with TF's optional
L2 shrinkage (``ApplyFtrlV2``) and ``beta`` folded into the L2 strength."""

from __future__ import annotations

from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import array_ops, math_ops, training_ops
from tfcompat.train import optimizer
from tfcompat.util.tf_export import tf_export


def _check_non_negative(value, what, word="positive or zero"):
    if value < 0.0:
        raise ValueError(f"{what} {value:f} needs to be {word}")


@tf_export("train.FtrlOptimizer")
class FtrlOptimizer(optimizer.Optimizer):
    """Slots ``accum`` (``initial_accumulator_value``) and ``linear`` (zeros)."""

    def __init__(
        self,
        learning_rate,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="Ftrl",
        accum_name=None,
        linear_name=None,
        l2_shrinkage_regularization_strength=0.0,
        beta=None,
    ):
        super().__init__(use_locking, name)
        _check_non_negative(initial_accumulator_value, "initial_accumulator_value")
        if learning_rate_power > 0.0:
            raise ValueError(
                f"learning_rate_power {learning_rate_power:f} needs to be negative or zero"
            )
        _check_non_negative(l1_regularization_strength, "l1_regularization_strength")
        _check_non_negative(l2_regularization_strength, "l2_regularization_strength")
        _check_non_negative(
            l2_shrinkage_regularization_strength,
            "l2_shrinkage_regularization_strength",
            "positive or zero",
        )
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list):
        def accum_initializer(shape, dtype):
            return array_ops.ones(shape, dtype=dtype) * self._initial_accumulator_value

        for v in var_list:
            self._get_or_make_slot_with_initializer(
                v, accum_initializer, v.shape, v.dtype, "accum", self._accum_name or self._name
            )
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_tensor = convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength"
        )
        # beta / (2 lr) joins the L2 strength; TF builds it in the graph (Maximum, ...).
        adjusted_l2 = self._l2_regularization_strength + self._beta / (
            2.0 * math_ops.maximum(self._learning_rate, 1e-36)
        )
        self._adjusted_l2_tensor = convert_to_tensor(
            adjusted_l2, name="adjusted_l2_regularization_strength"
        )
        self._beta_tensor = convert_to_tensor(self._beta, name="beta")
        self._l2_shrinkage_tensor = convert_to_tensor(
            self._l2_shrinkage_regularization_strength,
            name="l2_shrinkage_regularization_strength",
        )
        self._learning_rate_power_tensor = convert_to_tensor(
            self._learning_rate_power, name="learning_rate_power"
        )

    def _apply(self, grad_args, var, dense):
        dtype = var.dtype.base_dtype
        slots = [self.get_slot(var, "accum"), self.get_slot(var, "linear")]
        hyper = [
            math_ops.cast(self._learning_rate_tensor, dtype),
            math_ops.cast(self._l1_tensor, dtype),
            math_ops.cast(self._adjusted_l2_tensor, dtype),
        ]
        shrinkage = self._l2_shrinkage_regularization_strength > 0.0
        if shrinkage:
            hyper.append(math_ops.cast(self._l2_shrinkage_tensor, dtype))
            apply = training_ops.apply_ftrl_v2 if dense else training_ops.sparse_apply_ftrl_v2
        else:
            apply = training_ops.apply_ftrl if dense else training_ops.sparse_apply_ftrl
        hyper.append(math_ops.cast(self._learning_rate_power_tensor, dtype))
        return apply(var, *slots, *grad_args, *hyper, use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        return self._apply([grad], var, dense=True)

    def _apply_sparse(self, grad, var):
        return self._apply([grad.values, grad.indices], var, dense=False)
