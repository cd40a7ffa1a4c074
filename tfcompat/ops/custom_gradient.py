"""``tf.custom_gradient`` in graph mode, built as TF builds it.

The wrapped function runs once on its (converted) arguments and returns ``(result,
grad_fn)``. Its results, arguments and the trainable variables read between them then pass
through one ``IdentityN`` whose ``_gradient_op_type`` names a gradient registered for this
call alone (``CustomGradient-<n>``): backprop reaches the results' consumers, takes
``grad_fn`` instead of differentiating the function's own ops, and hands its values to the
arguments and variables. As in TF, an unused ``Identity`` of each result is left in the
graph (TF makes them while searching for the variables), new variables made by the function
must be resource variables, and a function that reads variables needs a ``grad_fn`` that
takes ``variables=`` and returns ``(input_grads, variable_grads)``.
"""

from __future__ import annotations

import functools
import inspect
import itertools

from tfcompat.framework import graph as graph_lib
from tfcompat.framework.gradient_registry import GRADIENTS, RegisterGradient
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import control_flow_nest as nest
from tfcompat.util.tf_export import tf_export

_ids = itertools.count(1)
_VARIABLE_OP_TYPES = ("VariableV2", "VarHandleOp")


@tf_export("custom_gradient")
def custom_gradient(f=None):
    """Decorates ``f(*args) -> (result, grad_fn)`` so that ``tf.gradients`` of its result
    uses ``grad_fn(*result_grads)`` (``grad_fn(*result_grads, variables=...)`` returning
    ``(input_grads, variable_grads)`` when ``f`` reads variables)."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError(
                "The custom_gradient decorator currently supports keywords arguments only "
                "when eager execution is enabled."
            )
        return _graph_mode_call(f, args)

    return decorated


def _graph_mode_call(f, args):
    graph = graph_lib.get_default_graph()
    args = nest.map_structure(convert_to_tensor, args)
    from tfcompat.ops import variable_scope as vs

    scope = vs.get_variable_scope()
    before = {id(v) for v in scope.global_variables() + scope.local_variables()}
    result, grad_fn = f(*args)
    flat_args, flat_result = nest.flatten(args), nest.flatten(result)
    from tfcompat.resource_variables import is_resource_variable

    for v in scope.global_variables() + scope.local_variables():
        if id(v) not in before and not is_resource_variable(v):
            raise TypeError(
                "All variables used by a function wrapped with @custom_gradient must be "
                "`ResourceVariable`s. Ensure that no `variable_scope` is created with "
                "`use_resource=False`."
            )
    results_graph = {t.graph for t in flat_result if hasattr(t, "graph")}
    if len(results_graph) > 1:
        raise ValueError("All custom_gradient outputs should be from the same graph")
    variables = sorted(_dependent_variables(graph, flat_args, flat_result), key=lambda v: v.name)
    spec = inspect.getfullargspec(grad_fn)
    takes_variables = "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw
    if variables and not takes_variables:
        raise TypeError(
            "@tf.custom_gradient grad_fn must accept keyword argument 'variables', since "
            f"function uses variables: {variables}"
        )
    outputs = graph_mode_custom_gradient(flat_result, flat_args, grad_fn, variables)
    return nest.pack_sequence_as(result, outputs)


def graph_mode_custom_gradient(results, inputs, grad_fn, variables=()):
    """The ``IdentityN`` of ``results + inputs + variables`` whose gradient is ``grad_fn``;
    returns its outputs standing for ``results``. (The Identity ops TF leaves while finding
    the variables must exist before this is called; ``custom_gradient`` makes them.)"""
    from tfcompat.ops import array_ops

    results, inputs, variables = list(results), list(inputs), list(variables)
    name = f"CustomGradient-{next(_ids)}"

    @RegisterGradient(name)
    def _grad(op, *result_grads):
        result_grads = list(result_grads[: len(results)])
        if variables:
            input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError(
                    "Must return gradient for each variable from @custom_gradient grad_fn."
                )
        else:
            input_grads, variable_grads = grad_fn(*result_grads), []
        return [None] * len(results) + nest.flatten(input_grads) + list(variable_grads)

    graph = graph_lib.get_default_graph()
    with graph.gradient_override_map({"IdentityN": name}):
        outputs = array_ops.identity_n(results + inputs + variables)
    return outputs[: len(results)]


def _dependent_variables(graph, inputs, results):
    """The trainable variables whose ops are reached from ``results`` back to (not through)
    ``inputs`` by way of differentiable ops (a registered, not-None gradient), as TF's
    ``_get_dependent_variables`` finds them (from an ``Identity`` of each result, which TF
    leaves in the graph)."""
    from tfcompat.ops import array_ops

    seeds = [array_ops.identity(r).op for r in results]
    stop = set(inputs)
    seen, stack, variable_ops = set(), list(seeds), []
    while stack:
        op = stack.pop()
        if GRADIENTS.get(op.type) is None:
            continue  # not differentiable: its inputs are not walked
        for t in op.inputs:
            if t in stop or t.op in seen:
                continue
            seen.add(t.op)
            stack.append(t.op)
            if t.op.type in _VARIABLE_OP_TYPES:
                variable_ops.append(t.op)
    found = []
    for op in variable_ops:
        candidates = [
            v
            for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES)
            if getattr(getattr(v, "op", None), "name", None) == op.name
        ]
        if not candidates:
            raise ValueError(f"Unsuccessful at finding variable {op.name}.")
        trainable = [v for v in candidates if getattr(v, "trainable", False)]
        if len(trainable) > 1:
            raise ValueError(
                f"Unsuccessful at finding trainable variable {op.name}. Number of candidates: "
                f"{len(trainable)}. Candidates: {trainable}"
            )
        found.extend(v for v in trainable if all(v is not f for f in found))
    return found
