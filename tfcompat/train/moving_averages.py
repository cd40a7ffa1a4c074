"""``tf.train.ExponentialMovingAverage``: shadow copies of variables (or tensors) that follow
them by ``shadow -= (1 - decay) * (shadow - value)`` each time ``apply``'s op runs, as TF
builds it (node names ``ExponentialMovingAverage/AssignMovingAvg...``, shadow variables
``<var>/ExponentialMovingAverage`` colocated with their variable).

A variable's shadow starts at the variable's value (a ``tf.cond`` on
``IsVariableInitialized`` reads it, else its initial value); a tensor's starts at zero and,
with ``zero_debias``, is debiased by a ``biased`` accumulator and a ``local_step`` counter
(TF's ``_zero_debias``).
"""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import control_flow_ops, math_ops, state_ops
from tfcompat.train import slot_creator
from tfcompat.util.tf_export import tf_export

_FLOAT_TYPES = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64)


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """``variable -= (variable - value) * (1 - decay)``; with ``zero_debias`` the result
    is divided by ``1 - decay ** steps`` through a biased shadow (a zero-initialised
    variable's average is biased towards zero early on). Returns the update."""
    graph = graph_lib.get_default_graph()
    with graph.name_scope(name or "AssignMovingAvg") as scope:
        decay = convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = math_ops.cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def _zero_debias(unbiased_var, value, decay):
    """TF's debiasing: ``biased`` and ``local_step`` variables next to ``unbiased_var``;
    ``unbiased = biased / (1 - (1 - decay) ** local_step)``."""
    from tfcompat import initializers
    from tfcompat.ops import variable_scope

    graph = graph_lib.get_default_graph()
    with variable_scope.variable_scope(unbiased_var.name[: -len(":0")]):
        scope = variable_scope.get_variable_scope()
        existing = {v.op.name for v in scope.global_variables()}

        def unique(name):
            if scope.reuse:
                return name
            full = f"{scope.name}/{name}"
            if full not in existing:
                return name
            index = 1
            while f"{full}_{index}" in existing:
                index += 1
            return f"{name}_{index}"

        with graph.colocate_with(unbiased_var.op):
            biased_var = variable_scope.get_variable(
                unique("biased"),
                initializer=initializers.zeros_initializer(),
                shape=unbiased_var.get_shape(),
                dtype=unbiased_var.dtype.base_dtype,
                trainable=False,
            )
            local_step = variable_scope.get_variable(
                unique("local_step"),
                shape=[],
                dtype=unbiased_var.dtype.base_dtype,
                initializer=initializers.zeros_initializer(),
                trainable=False,
            )
    update_biased = state_ops.assign_sub(biased_var, (biased_var - value) * decay)
    update_local_step = local_step.assign_add(1)
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_local_step)
    return state_ops.assign(
        unbiased_var, update_biased / bias_factor, name=graph.get_name_scope() + "/"
    )


@tf_export("train.ExponentialMovingAverage")
class ExponentialMovingAverage:
    """Maintains moving averages of variables (or tensors) with exponential decay; with
    ``num_updates`` the decay is ``min(decay, (1 + num_updates) / (10 + num_updates))``."""

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}  # variable or tensor -> its shadow variable

    @property
    def name(self):
        return self._name

    def apply(self, var_list=None):
        """Creates the shadows of ``var_list`` (default: the trainable variables) that do
        not have one yet; returns the op updating all of them."""
        from tfcompat.variables import Variable, trainable_variables

        if var_list is None:
            var_list = trainable_variables()
        graph = graph_lib.get_default_graph()
        zero_debias = set()
        for var in var_list:
            if var.dtype.base_dtype not in _FLOAT_TYPES:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if var in self._averages:
                continue
            with graph.control_dependencies(None):
                if isinstance(var, Variable):
                    initialized = control_flow_ops.cond(
                        state_ops.is_variable_initialized(var),
                        var.read_value,
                        lambda var=var: var.initial_value,
                    )
                    avg = slot_creator.create_slot(var, initialized, self.name)
                    graph.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    avg = slot_creator.create_zeros_slot(
                        var,
                        self.name,
                        colocate_with_primary=var.op.type
                        in ("Variable", "VariableV2", "VarHandleOp"),
                    )
                    if self._zero_debias:
                        zero_debias.add(avg)
            self._averages[var] = avg
        with graph.name_scope(self.name) as scope:
            decay = convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                num_updates = math_ops.cast(self._num_updates, dtypes.float32, name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = [
                assign_moving_average(
                    self._averages[var], var, decay, zero_debias=self._averages[var] in zero_debias
                )
                for var in var_list
            ]
            return control_flow_ops.group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of ``var`` (None if ``apply`` has not made one)."""
        return self._averages.get(var)

    def average_name(self, var):
        """The name ``var``'s shadow has (or would have): ``<var>/<name>``."""
        if var in self._averages:
            return self._averages[var].op.name
        return f"{var.op.name}/{self.name}"

    def variables_to_restore(self, moving_avg_variables=None):
        """``{name in checkpoint: variable}`` that restores the averages into the
        variables (for evaluation with averaged weights), and every other global
        variable under its own name."""
        from tfcompat import variables as variables_lib

        if moving_avg_variables is None:
            moving_avg_variables = list(variables_lib.trainable_variables())
            moving_avg_variables += variables_lib.moving_average_variables()
        moving_avg_variables = list(dict.fromkeys(moving_avg_variables))
        name_map = {self.average_name(v): v for v in moving_avg_variables}
        averaged = {v.name for v in moving_avg_variables}
        for v in dict.fromkeys(variables_lib.global_variables()):
            if v.name not in averaged and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
