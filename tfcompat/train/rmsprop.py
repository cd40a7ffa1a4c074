"""``tf.train.RMSPropOptimizer``: scale steps by a moving average of squared gradients
(optionally centered: minus the squared moving average of gradients), with momentum."""

from __future__ import annotations

from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import math_ops, training_ops
from tfcompat.train import optimizer, slot_creator
from tfcompat.util.tf_export import tf_export


@tf_export("train.RMSPropOptimizer")
class RMSPropOptimizer(optimizer.Optimizer):
    """Slots ``rms`` (ones, ``w/RMSProp``), ``mg`` when centered, and ``momentum``."""

    def __init__(
        self,
        learning_rate,
        decay=0.9,
        momentum=0.0,
        epsilon=1e-10,
        use_locking=False,
        centered=False,
        name="RMSProp",
    ):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot_with_initializer(
                v,
                slot_creator.ones_initializer,
                v.get_shape(),
                v.dtype.base_dtype,
                "rms",
                self._name,
            )
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        for attr, value, name in (
            ("_learning_rate_tensor", self._learning_rate, "learning_rate"),
            ("_decay_tensor", self._decay, "decay"),
            ("_momentum_tensor", self._momentum, "momentum"),
            ("_epsilon_tensor", self._epsilon, "epsilon"),
        ):
            setattr(self, attr, convert_to_tensor(self._call_if_callable(value), name=name))

    def _args(self, var):
        """The ref slots and the cast hyperparameters, in the OpDef's order."""
        dtype = var.dtype.base_dtype
        slots = [self.get_slot(var, "rms"), self.get_slot(var, "momentum")]
        if self._centered:
            slots.insert(0, self.get_slot(var, "mg"))
        hyper = [
            math_ops.cast(t, dtype)
            for t in (
                self._learning_rate_tensor,
                self._decay_tensor,
                self._momentum_tensor,
                self._epsilon_tensor,
            )
        ]
        return [var] + slots + hyper

    def _apply_dense(self, grad, var):
        apply = (
            training_ops.apply_centered_rms_prop if self._centered else training_ops.apply_rms_prop
        )
        return training_ops.update_op(apply(*self._args(var), grad, use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        apply = (
            training_ops.sparse_apply_centered_rms_prop
            if self._centered
            else training_ops.sparse_apply_rms_prop
        )
        return apply(*self._args(var), grad.values, grad.indices, use_locking=self._use_locking)
