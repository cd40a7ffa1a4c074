"""``tf.train.AdamOptimizer`` (Kingma & Ba), TF1's ref-variable form.

Slots ``m`` and ``v`` (``w/Adam``, ``w/Adam_1``); non-slot ``beta1_power`` and
``beta2_power``, colocated with the first variable by name and multiplied by the betas in
``_finish`` after every update. Sparse gradients take TF's (non-lazy) path: decay all of
``m`` and ``v``, ``ScatterAdd`` the deduplicated rows, update the whole variable (for a
resource variable: ``ResourceScatterAdd`` and a read of the slot after it).
"""

from __future__ import annotations

from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import control_flow_ops, math_ops, resource_variable_ops, state_ops, training_ops
from tfcompat.train import optimizer
from tfcompat.util.tf_export import tf_export


@tf_export("train.AdamOptimizer")
class AdamOptimizer(optimizer.Optimizer):
    """Adam with bias correction folded into the step size."""

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        use_locking=False,
        name="Adam",
    ):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lr_t = self._beta1_t = self._beta2_t = self._epsilon_t = None

    def _get_beta_accumulators(self, graph):
        return (
            self._get_non_slot_variable("beta1_power", graph=graph),
            self._get_non_slot_variable("beta2_power", graph=graph),
        )

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="learning_rate")
        self._beta1_t = convert_to_tensor(self._call_if_callable(self._beta1), name="beta1")
        self._beta2_t = convert_to_tensor(self._call_if_callable(self._beta2), name="beta2")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators(var.graph)
        update = training_ops.apply_adam(
            var,
            self.get_slot(var, "m"),
            self.get_slot(var, "v"),
            math_ops.cast(beta1_power, dtype),
            math_ops.cast(beta2_power, dtype),
            math_ops.cast(self._lr_t, dtype),
            math_ops.cast(self._beta1_t, dtype),
            math_ops.cast(self._beta2_t, dtype),
            math_ops.cast(self._epsilon_t, dtype),
            grad,
            use_locking=self._use_locking,
        )
        return training_ops.update_op(update)

    def _apply_sparse(self, grad, var):
        def scatter_add(slot, indices, rows):
            return state_ops.scatter_add(slot, indices, rows, use_locking=self._use_locking)

        return self._apply_sparse_shared(grad.values, grad.indices, var, scatter_add)

    def _resource_apply_sparse(self, grad, var, indices):
        return self._apply_sparse_shared(grad, indices, var, self._resource_scatter_add)

    @staticmethod
    def _resource_scatter_add(slot, indices, rows):
        """``ResourceScatterAdd``, then a read of the slot after it."""
        added = resource_variable_ops.resource_scatter_add(slot.handle, indices, rows)
        with slot.graph.control_dependencies([added]):
            return slot.value()

    def _apply_sparse_shared(self, values, indices, var, scatter_add):
        graph = var.graph
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators(graph)
        beta1_power = math_ops.cast(beta1_power, dtype)
        beta2_power = math_ops.cast(beta2_power, dtype)
        lr_t = math_ops.cast(self._lr_t, dtype)
        beta1_t = math_ops.cast(self._beta1_t, dtype)
        beta2_t = math_ops.cast(self._beta2_t, dtype)
        epsilon_t = math_ops.cast(self._epsilon_t, dtype)
        lr = lr_t * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power)

        def decay_then_add(slot, decay, scaled_rows):
            decayed = state_ops.assign(slot, slot * decay, use_locking=self._use_locking)
            with graph.control_dependencies([decayed]):
                return scatter_add(slot, indices, scaled_rows)

        m_t = decay_then_add(self.get_slot(var, "m"), beta1_t, values * (1 - beta1_t))
        v_t = decay_then_add(self.get_slot(var, "v"), beta2_t, (values * values) * (1 - beta2_t))
        var_update = state_ops.assign_sub(
            var, lr * m_t / (math_ops.sqrt(v_t) + epsilon_t), use_locking=self._use_locking
        )
        return control_flow_ops.group(*[var_update, m_t, v_t])

    def _finish(self, update_ops, name_scope):
        graph = update_ops[0].graph
        with graph.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators(graph)
            with graph.colocate_with(beta1_power.op):
                update_beta1 = beta1_power.assign(
                    beta1_power * self._beta1_t, use_locking=self._use_locking
                )
                update_beta2 = beta2_power.assign(
                    beta2_power * self._beta2_t, use_locking=self._use_locking
                )
        return control_flow_ops.group(*update_ops + [update_beta1, update_beta2], name=name_scope)
