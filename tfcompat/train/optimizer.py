"""``tf.train.Optimizer``: the TF1 optimizer base class.

``minimize`` = ``compute_gradients`` (``tf.gradients`` of the loss w.r.t. the variables)
+ ``apply_gradients`` (slots, then one update op per variable under
``<name>/update_<var>``, grouped by ``_finish``, then the global step increment), building
the same ops with the same names as TensorFlow. Subclasses implement ``_create_slots``,
``_prepare``, ``_apply_dense`` and ``_apply_sparse`` as in TF.

Resource variables take TF's ``_resource_apply_dense`` / ``_resource_apply_sparse`` path.
By default those call ``_apply_dense`` / ``_apply_sparse``: the update wrappers
(``training_ops.apply_adam``...) build the ``ResourceApply*`` form for a resource variable,
and slots and non-slot variables of a resource variable are resource variables (as TF's).
"""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.indexed_slices import (
    IndexedSlices,
    convert_to_tensor_or_indexed_slices,
)
from tfcompat.framework.tensor import Tensor
from tfcompat.ops import array_ops, control_flow_ops, gather_ops, segment_ops, state_ops
from tfcompat.train import slot_creator
from tfcompat.util.tf_export import tf_export

_STREAMING_MODEL_PORTS = "streaming_model_ports"  # TF's GraphKeys._STREAMING_MODEL_PORTS


def _deduplicate_indexed_slices(values, indices):
    """Sums the rows of a sparse gradient that share an index: ``(summed, unique)``, with
    TF's ops (``Unique`` + ``UnsortedSegmentSum`` into ``Shape(unique)[0]`` segments), so
    the graph computes the same in TF. The step stays one XLA call: such a ``Unique`` runs
    on the device at static size (``lowering/unique.py``)."""
    unique_indices, new_index_positions = gather_ops.unique(indices)
    summed_values = segment_ops.unsorted_segment_sum(
        values, new_index_positions, array_ops.shape(unique_indices)[0]
    )
    return summed_values, unique_indices


def _var_key(var):
    """Slots are keyed by the variable's graph and op name, as TF keys them."""
    return (var.op.graph, var.op.name)


def _flatten(structure):
    if isinstance(structure, (list, tuple)):
        return [x for item in structure for x in _flatten(item)]
    if isinstance(structure, dict):
        return [x for key in sorted(structure) for x in _flatten(structure[key])]
    return [structure]


# ---------------------------------------------------------------------------------------------
# What can be optimized: ref variables (Tensors are accepted as gradient targets only)
# ---------------------------------------------------------------------------------------------
class _RefVariableProcessor:
    def __init__(self, v):
        self._v = v

    def target(self):
        return self._v._ref()

    def update_op(self, optimizer, g):
        if isinstance(g, Tensor):
            update_op = optimizer._apply_dense(g, self._v)
            if self._v.constraint is None:
                return update_op
            graph = self._v.graph
            with graph.control_dependencies([update_op]):
                return self._v.assign(self._v.constraint(self._v))
        if self._v.constraint is not None:
            raise RuntimeError("Cannot use a constraint function on a sparse variable.")
        return optimizer._apply_sparse_duplicate_indices(g, self._v)


class _ResourceVariableProcessor:
    """TF's processor of resource variables: sparse gradients go to
    ``_resource_apply_sparse_duplicate_indices`` as (values, variable, indices)."""

    def __init__(self, v):
        self._v = v

    def target(self):
        return self._v

    def update_op(self, optimizer, g):
        if isinstance(g, IndexedSlices):
            if self._v.constraint is not None:
                raise RuntimeError("Cannot use a constraint function on a sparse variable.")
            return optimizer._resource_apply_sparse_duplicate_indices(g.values, self._v, g.indices)
        update_op = optimizer._resource_apply_dense(g, self._v)
        if self._v.constraint is None:
            return update_op
        with self._v.graph.control_dependencies([update_op]):
            return self._v.assign(self._v.constraint(self._v))


class _TensorProcessor:
    def __init__(self, v):
        self._v = v

    def target(self):
        return self._v

    def update_op(self, optimizer, g):
        raise NotImplementedError("Trying to update a Tensor ", self._v)


def _get_processor(v):
    from tfcompat.resource_variables import is_resource_variable
    from tfcompat.variables import Variable

    if is_resource_variable(v):
        return _ResourceVariableProcessor(v)
    if isinstance(v, Variable):
        return _RefVariableProcessor(v)
    if isinstance(v, Tensor):
        return _TensorProcessor(v)
    raise NotImplementedError("Trying to optimize unsupported type ", v)


def _init_scope(graph):
    """TF's ``init_scope`` in graph mode: keep the name scope, drop control dependencies."""
    return graph.control_dependencies(None)


@tf_export("train.Optimizer")
class Optimizer:
    """Base class of the TF1 optimizers."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}  # slot name -> {var key: slot variable}
        self._non_slot_dict = {}  # (name, graph) -> variable

    def get_name(self):
        return self._name

    # -- the public API -----------------------------------------------------------------------
    def minimize(
        self,
        loss,
        global_step=None,
        var_list=None,
        gate_gradients=GATE_OP,
        aggregation_method=None,
        colocate_gradients_with_ops=False,
        name=None,
        grad_loss=None,
    ):
        """Adds ops updating ``var_list`` to minimize ``loss``; increments ``global_step``."""
        grads_and_vars = self.compute_gradients(
            loss,
            var_list=var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss,
        )
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do "
                f"not support gradients, between variables {[str(v) for _, v in grads_and_vars]}"
                f" and loss {loss}."
            )
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(
        self,
        loss,
        var_list=None,
        gate_gradients=GATE_OP,
        aggregation_method=None,
        colocate_gradients_with_ops=False,
        grad_loss=None,
    ):
        """``[(gradient or None, variable)]`` for ``var_list`` (default: the trainable
        variables)."""
        from tfcompat import variables
        from tfcompat.gradients_impl import gradients

        if callable(loss):
            loss = loss()
        if gate_gradients not in (self.GATE_NONE, self.GATE_OP, self.GATE_GRAPH):
            raise ValueError(
                "gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                f"Optimizer.GATE_GRAPH.  Not {gate_gradients}"
            )
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([grad_loss])
        graph = loss.graph
        if var_list is None:
            with graph.as_default():
                var_list = variables.trainable_variables() + graph.get_collection(
                    GraphKeys.TRAINABLE_RESOURCE_VARIABLES
                )
        else:
            var_list = _flatten(var_list)
        var_list = var_list + graph.get_collection(_STREAMING_MODEL_PORTS)
        processors = [_get_processor(v) for v in var_list]
        if not var_list:
            raise ValueError("No variables to optimize.")
        var_refs = [p.target() for p in processors]
        with graph.as_default():
            grads = gradients(
                loss,
                var_refs,
                grad_ys=grad_loss,
                gate_gradients=(gate_gradients == self.GATE_OP),
                aggregation_method=aggregation_method,
                colocate_gradients_with_ops=colocate_gradients_with_ops,
            )
            if gate_gradients == self.GATE_GRAPH:
                grads = control_flow_ops.tuple_(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes(
            [v for g, v in grads_and_vars if g is not None and v.dtype != dtypes.resource]
        )
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Adds the update ops for ``(gradient, variable)`` pairs; returns the op that runs
        them all (and increments ``global_step`` after them when given)."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for g, v in grads_and_vars:
            if g is not None:
                try:
                    g = convert_to_tensor_or_indexed_slices(g)
                except TypeError:
                    raise TypeError(
                        f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {g}"
                    ) from None
                if not isinstance(g, (Tensor, IndexedSlices)):
                    raise TypeError(f"Gradient must be a Tensor, IndexedSlices, or None: {g}")
            converted.append((g, v, _get_processor(v)))
        var_list = [v for g, v, _ in converted if g is not None]
        if not var_list:
            raise ValueError(
                f"No gradients provided for any variable: {[str(v) for _, v, _ in converted]}."
            )
        graph = var_list[0].graph
        with graph.as_default():
            with _init_scope(graph):
                self._create_slots(var_list)
            return self._build_updates(graph, converted, global_step, name)

    def _build_updates(self, graph, converted, global_step, name):
        with graph.name_scope(name or self._name) as scope:
            self._prepare()
            update_ops = self._update_ops(graph, converted)
            if global_step is None:
                apply_updates = self._finish(update_ops, scope)
            else:
                with graph.control_dependencies([self._finish(update_ops, "update")]):
                    with graph.colocate_with(global_step.op):
                        apply_updates = state_ops.assign_add(global_step, 1, name=scope)
        if isinstance(apply_updates, Tensor):
            apply_updates = apply_updates.op
        train_ops = graph.get_collection_ref(GraphKeys.TRAIN_OP)
        if apply_updates not in train_ops:
            train_ops.append(apply_updates)
        return apply_updates

    def _update_ops(self, graph, converted):
        """One update per variable with a gradient, under ``update_<var>``."""
        update_ops = []
        for grad, var, processor in converted:
            if grad is None:
                continue
            with graph.name_scope("update_" + var.op.name), graph.colocate_with(var.op):
                update_ops.append(processor.update_op(self, grad))
        return update_ops

    def get_slot(self, var, name):
        """The slot ``name`` of ``var`` (e.g. ``"m"``), or None."""
        named_slots = self._slots.get(name)
        if not named_slots:
            return None
        return named_slots.get(_var_key(var))

    def get_slot_names(self):
        """The names of the slots this optimizer creates, sorted."""
        return sorted(self._slots)

    def variables(self):
        """The optimizer's variables in the default graph (non-slot and slots), by name."""
        graph = graph_lib.get_default_graph()
        found = [v for v in self._non_slot_dict.values() if v.graph is graph]
        for slots in self._slots.values():
            found.extend(v for v in slots.values() if v.graph is graph)
        return sorted(found, key=lambda v: v.name)

    # -- hooks for subclasses -----------------------------------------------------------------
    def _valid_dtypes(self):
        return {dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64}

    def _assert_valid_dtypes(self, tensors):
        valid = self._valid_dtypes()
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in valid:
                raise ValueError(f"Invalid type {dtype!r} for {t.name}, expected: {list(valid)}.")

    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError()

    def _apply_sparse(self, grad, var):
        raise NotImplementedError()

    def _apply_sparse_duplicate_indices(self, grad, var):
        """Calls ``_apply_sparse`` after summing the rows with equal indices, as TF does
        (TF's ``SparseApply*`` kernels apply duplicate rows one after the other)."""
        summed, unique = _deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(summed, unique, grad.dense_shape), var)

    def _resource_apply_dense(self, grad, var):
        return self._apply_dense(grad, var)

    def _resource_apply_sparse(self, grad, var, indices):
        return self._apply_sparse(IndexedSlices(grad, indices), var)

    def _resource_apply_sparse_duplicate_indices(self, grad, var, indices):
        """Calls ``_resource_apply_sparse`` after summing the rows with equal indices, as
        TF does."""
        summed, unique = _deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed, var, unique)

    def _finish(self, update_ops, name_scope):
        return control_flow_ops.group(*update_ops, name=name_scope)

    def _call_if_callable(self, param):
        return param() if callable(param) else param

    # -- slots and non-slot variables ---------------------------------------------------------
    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot(self, var, val, slot_name, op_name):
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_slot(var, val, op_name)
        return named_slots[_var_key(var)]

    def _get_or_make_slot_with_initializer(
        self, var, initializer, shape, dtype, slot_name, op_name
    ):
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_slot_with_initializer(
                var, initializer, shape, dtype, op_name
            )
        return named_slots[_var_key(var)]

    def _zeros_slot(self, var, slot_name, op_name):
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_zeros_slot(var, op_name)
        return named_slots[_var_key(var)]

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        """A variable shared by all updates (Adam's ``beta1_power``), created once per
        graph in the current name scope, colocated with ``colocate_with``."""
        from tfcompat.resource_variables import is_resource_variable
        from tfcompat.variables import Variable

        graph = colocate_with.graph
        key = (name, graph)
        v = self._non_slot_dict.get(key)
        if v is None:
            with graph.as_default(), graph.colocate_with(colocate_with.op):
                v = Variable(
                    initial_value,
                    name=name,
                    trainable=False,
                    use_resource=is_resource_variable(colocate_with),
                )
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get((name, graph))

    def _non_slot_variables(self):
        return self._non_slot_dict.values()
