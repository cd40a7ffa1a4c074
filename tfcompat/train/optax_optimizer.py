"""``tf.train.OptaxOptimizer``: any optax ``GradientTransformation`` as a TF1 optimizer.

The transform's state lives in variables, so it persists across ``Session.run`` like any
optimizer's: leaves shaped like a parameter (Adam's ``mu``/``nu``, a momentum trace...)
become slots of that variable (``w/Optax``, ``w/Optax_1``...); the others (step counts)
become non-slot variables ``<name>/<path>`` colocated with the first variable. Their
initial values come from ``transform.init`` applied to the variables' initial values (an
``OptaxInit`` op). ``apply_gradients`` adds one ``OptaxApply`` op that runs
``transform.update`` and ``optax.apply_updates`` on all variables together (so joint
transforms such as global-norm clipping work), traced into the same jitted step.

Sparse gradients (``IndexedSlices``) are densified first: optax transforms are dense.
Transforms whose ``update`` needs extra arguments (``value``, ``value_fn``) are not
supported.
"""

from __future__ import annotations

import jax

from tfcompat.framework import dtypes
from tfcompat.framework.indexed_slices import IndexedSlices
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import training_ops
from tfcompat.train import optimizer
from tfcompat.util.tf_export import tf_export


def _key_name(key) -> str:
    for attr in ("name", "idx", "key"):
        if hasattr(key, attr):
            return str(getattr(key, attr))
    return str(key)


def _path_name(path) -> str:
    return "/".join(_key_name(k) for k in path) or "state"


def _classify(abstract_state, params):
    """Per state leaf: ``(index of the parameter it belongs to or None, path name)``.

    A leaf belongs to parameter ``i`` when it sits at index ``i`` of a list shaped exactly
    like the parameter list (same length, same shapes).
    """
    leaves = jax.tree_util.tree_flatten_with_path(abstract_state)[0]
    by_parent = {}
    for path, leaf in leaves:
        by_parent.setdefault(path[:-1], []).append((path, leaf))
    shapes = [tuple(p.shape) for p in params]
    out = []
    for path, _leaf in leaves:
        siblings = by_parent[path[:-1]]
        per_param = len(siblings) == len(params) and all(
            hasattr(p[-1], "idx") and p[-1].idx == i and tuple(x.shape) == shapes[i]
            for i, (p, x) in enumerate(siblings)
        )
        if per_param:
            out.append((path[-1].idx, _path_name(path[:-1])))
        else:
            out.append((None, _path_name(path)))
    return out


@tf_export("train.OptaxOptimizer")
class OptaxOptimizer(optimizer.Optimizer):
    """Drives ``minimize`` / ``apply_gradients`` with ``transform`` (an
    ``optax.GradientTransformation``)."""

    def __init__(self, transform, use_locking=False, name="Optax"):
        super().__init__(use_locking, name)
        if not (hasattr(transform, "init") and hasattr(transform, "update")):
            raise TypeError(f"Expected an optax GradientTransformation, got {transform!r}")
        self._transform = transform
        self._programs = {}  # graph -> (key, var list, state variables in leaf order)

    def _create_slots(self, var_list):
        graph = var_list[0].graph
        if graph in self._programs:
            return
        for v in var_list:
            if not v.shape.is_fully_defined():
                raise ValueError(
                    f"OptaxOptimizer needs fully defined shapes; {v.name} is {v.shape}"
                )
        specs = [
            jax.ShapeDtypeStruct(tuple(v.shape.as_list()), v.dtype.base_dtype.as_numpy_dtype)
            for v in var_list
        ]
        abstract = jax.eval_shape(self._transform.init, specs)
        leaves, treedef = jax.tree_util.tree_flatten(abstract)
        program = training_ops.OptaxProgram(
            self._transform,
            treedef,
            [(TensorShape(list(x.shape)), dtypes.as_dtype(x.dtype)) for x in leaves],
        )
        key = training_ops.register_optax_program(program)
        first_var = min(var_list, key=lambda x: x.name)
        with graph.colocate_with(first_var.op):
            initial = training_ops.optax_init(
                [v.initial_value for v in var_list], key, name=f"{self._name}Init"
            )
        state_vars = []
        for value, (param_index, path) in zip(initial, _classify(abstract, specs)):
            if param_index is None:
                state_vars.append(
                    self._create_non_slot_variable(value, f"{self._name}/{path}", first_var)
                )
            else:
                var = var_list[param_index]
                state_vars.append(self._get_or_make_slot(var, value, path, self._name))
        self._programs[graph] = (key, list(var_list), state_vars)

    def _update_ops(self, graph, converted):
        key, var_list, state_vars = self._programs[graph]
        grads = {id(v): g for g, v, _ in converted if g is not None}
        if set(grads) != {id(v) for v in var_list}:
            raise ValueError(
                "OptaxOptimizer updates all its variables together: apply_gradients needs a "
                f"gradient for each of {[v.name for v in var_list]}"
            )
        dense = []
        with graph.name_scope("update"):
            for v in var_list:
                g = grads[id(v)]
                if isinstance(g, IndexedSlices):
                    g = convert_to_tensor(g)
                dense.append(g)
            return [training_ops.optax_apply(var_list, state_vars, dense, key, name="OptaxApply")]
