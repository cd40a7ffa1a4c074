"""Grouping and ordering ops: ``NoOp``, ``tf.group``, ``tf.tuple``, ``tf.no_op``."""

from __future__ import annotations

from tfcompat.framework import gradient_registry
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.framework.tensor import Operation, Tensor
from tfcompat.util.tf_export import tf_export

register_op("NoOp")


@tf_export("no_op")
def no_op(name=None):
    """An op that does nothing; useful as a control-dependency anchor."""
    return apply_op("NoOp", name=name)


def _as_op(x):
    if getattr(x, "_should_act_as_resource_variable", False):
        return x.op  # a resource variable, or a write's result: its op, not a read (TF)
    if hasattr(x, "_as_graph_element") and not isinstance(x, (Tensor, Operation)):
        x = x._as_graph_element()
    if hasattr(x, "op") and not isinstance(x, Operation):
        return x.op
    return x


@tf_export("group")
def group(*inputs, **kwargs):
    """An op that runs all of ``inputs`` (Tensors or Operations); TF's ``tf.group``."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("Unknown keyword arguments: " + ", ".join(kwargs))
    flat, devices = [], []

    def walk(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            for k in sorted(x):
                walk(x[k])
        elif x is not None:
            flat.append(_as_op(x))
            # Grouped by the input's device: a resource variable's write counts as on the
            # variable's device (TF groups by ``inp.device``), wherever its op was placed.
            resource = getattr(x, "_should_act_as_resource_variable", False)
            devices.append(x.device if resource else flat[-1].device)

    walk(inputs)
    graph = flat[0].graph if flat else graph_lib.get_default_graph()
    with graph.as_default(), graph.name_scope(name or "group_deps") as scope:
        if not flat:
            return no_op(name=scope)
        by_device = {}
        for op, device in zip(flat, devices):
            by_device.setdefault(device, []).append(op)
        if len(by_device) == 1:
            return _group_on_device(graph, devices[0], flat, scope)
        # One NoOp per device, then a root NoOp depending on them (TF's two-level tree).
        per_device = [_group_on_device(graph, d, by_device[d], None) for d in sorted(by_device)]
        with graph.control_dependencies(per_device):
            return no_op(name=scope)


def _group_on_device(graph, device, deps, name):
    # Under the deps' own device, as TF's ``_GroupControlDeps``: the NoOp grouping a ps
    # task's updates sits on that task, whatever device scope ``group`` was called in.
    with graph.control_dependencies(deps), graph.device(device):
        return no_op(name=name)


@tf_export("tuple")
def tuple_(tensors, name=None, control_inputs=None):
    """Tensors equal to ``tensors``, each available only after all have been computed (and
    ``control_inputs`` have run). As TF builds it: one ``group`` gate over the producing
    ops (in creation order), then per tensor ``with_dependencies`` (an Identity named
    ``control_dependency``, colocated with the tensor; an IndexedSlices keeps its indices
    and gates its values), per Operation a gated ``group``, None stays None."""
    from tfcompat.framework import scopes
    from tfcompat.framework.indexed_slices import IndexedSlices
    from tfcompat.framework.op_helper import convert_to_tensor

    with scopes.name_scope(name, "tuple", [t for t in tensors if t is not None]):
        tensors = [
            t if t is None or isinstance(t, (Operation, Tensor, IndexedSlices)) else
            convert_to_tensor(t)
            for t in tensors
        ]  # fmt: skip
        gating_ops = [t if isinstance(t, Operation) else t.op for t in tensors if t is not None]
        for c in control_inputs or ():
            if isinstance(c, Tensor):
                c = c.op
            elif not isinstance(c, Operation):
                raise TypeError(
                    f"'control_inputs' must only contain Operation or Tensor. Received: {type(c)}"
                )
            gating_ops.append(c)
        gating_ops = sorted(set(gating_ops), key=lambda op: op._id)
        if not gating_ops:
            raise ValueError(f"'tensors' must have at least one Tensor. Received: {tensors}.")
        gate = group(*gating_ops)
        out = []
        for t in tensors:
            if isinstance(t, (Tensor, IndexedSlices)):
                out.append(with_dependencies([gate], t))
            elif isinstance(t, Operation):
                with scopes.control_dependencies([gate]):
                    out.append(group(t))
            else:
                out.append(None)
        return out


def with_dependencies(dependencies, output_tensor, name=None):
    """``output_tensor`` through an Identity that runs after ``dependencies`` (TF's
    ``control_flow_ops.with_dependencies``: named ``control_dependency``, colocated with
    the tensor; an IndexedSlices gates its values)."""
    from tfcompat.framework import scopes
    from tfcompat.framework.indexed_slices import IndexedSlices
    from tfcompat.ops import array_ops

    with scopes.name_scope(
        name, "control_dependency", list(dependencies) + [output_tensor]
    ) as scope:
        with scopes.colocate_with(output_tensor.op):
            with scopes.control_dependencies(dependencies):
                if isinstance(output_tensor, IndexedSlices):
                    values = array_ops.identity(output_tensor.values, name=scope)
                    return IndexedSlices(values, output_tensor.indices, output_tensor.dense_shape)
                return array_ops.identity(output_tensor, name=scope)


# ---------------------------------------------------------------------------------------------
# v1 dataflow control-flow ops (TF's OpDefs). They only run inside the regions that
# ``tf.cond`` / ``tf.while_loop`` build (see ``control_flow_contexts``).
# ---------------------------------------------------------------------------------------------
def _switch_shape(op):
    return [op.inputs[0].shape, op.inputs[0].shape]


def _merge_shape(op):
    from tfcompat.framework import tensor_shape

    shapes = [t.shape for t in op.inputs]
    out = shapes[0]
    for s in shapes[1:]:
        if out.rank is None or s.rank is None or out.rank != s.rank:
            out = tensor_shape.unknown_shape()
            break
        out = tensor_shape.TensorShape(
            [a if a == b else None for a, b in zip(out.as_list(), s.as_list())]
        )
    return [out, tensor_shape.TensorShape([])]


for _prefix, _t in (("", "T"), ("Ref", "Ref(T)")):
    register_op(
        _prefix + "Switch",
        inputs=[f"data: {_t}", "pred: bool"],
        outputs=[f"output_false: {_t}", f"output_true: {_t}"],
        attrs=["T: type"],
        shape_fn=_switch_shape,
        allows_uninitialized_input=bool(_prefix),
    )
    register_op(
        _prefix + "Merge",
        inputs=[f"inputs: N * {_t}"],
        outputs=[f"output: {_t}", "value_index: int32"],
        attrs=["T: type", "N: int >= 1"],
        shape_fn=_merge_shape,
    )
    register_op(
        _prefix + "Enter",
        inputs=[f"data: {_t}"],
        outputs=[f"output: {_t}"],
        attrs=[
            "T: type",
            "frame_name: string",
            "is_constant: bool = false",
            "parallel_iterations: int = 10",
        ],
        shape_fn=lambda op: [op.inputs[0].shape],
    )
    for _op in ("Exit", "NextIteration"):
        register_op(
            _prefix + _op,
            inputs=[f"data: {_t}"],
            outputs=[f"output: {_t}"],
            attrs=["T: type"],
            shape_fn=lambda op: [op.inputs[0].shape],
        )

register_op(
    "LoopCond",
    inputs=["input: bool"],
    outputs=["output: bool"],
    shape_fn=lambda op: [op.inputs[0].shape],
)
register_op("ControlTrigger")


def _is_ref(tensor):
    return tensor.dtype.is_ref_dtype


def ref_or_tensor_switch(data, pred, name="Switch"):
    """``Switch`` (or ``RefSwitch`` for a ref): ``(output_false, output_true)``."""
    op_type = "RefSwitch" if _is_ref(data) else "Switch"
    return tuple(apply_op(op_type, data=data, pred=pred, name=name).outputs)


def switch(data, pred, name=None):
    """TF's ``control_flow_ops.switch``: forwards ``data`` to output ``pred``."""
    return ref_or_tensor_switch(data, pred, name=name or "Switch")


def merge(inputs, name=None):
    """``(output, value_index)`` of a ``Merge`` (``RefMerge`` if all inputs are refs)."""
    op_type = "RefMerge" if all(_is_ref(t) for t in inputs) else "Merge"
    return tuple(apply_op(op_type, inputs=list(inputs), name=name or "Merge").outputs)


def enter(data, frame_name, is_constant=False, parallel_iterations=10, name=None):
    op_type = "RefEnter" if _is_ref(data) else "Enter"
    return apply_op(
        op_type,
        data=data,
        frame_name=frame_name,
        is_constant=is_constant,
        parallel_iterations=parallel_iterations,
        name=name or "Enter",
    ).outputs[0]


def exit_(data, name=None):
    return apply_op("RefExit" if _is_ref(data) else "Exit", data=data, name=name or "Exit").outputs[
        0
    ]


def next_iteration(data, name=None):
    op_type = "RefNextIteration" if _is_ref(data) else "NextIteration"
    return apply_op(op_type, data=data, name=name or "NextIteration").outputs[0]


def loop_cond(pred, name=None):
    return apply_op("LoopCond", input=pred, name=name or "LoopCond").outputs[0]


@tf_export("cond")
def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``tf.cond`` (TF1): see ``tfcompat.ops.cond``."""
    from tfcompat.ops import cond as cond_lib

    return cond_lib.cond(pred, true_fn, false_fn, strict, name, fn1, fn2)


@tf_export("switch_case")
def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Runs ``branch_fns[branch_index]`` (a list of callables, or ``(int, callable)``
    pairs or a dict covering ``0..n-1``); an index out of range runs ``default``, or the
    last branch without one.

    TF 2.21 emits a functional ``Case`` op; here it is a chain of TF1 ``cond``s (one per
    branch but the last, testing ``branch_index == i``), which computes the same values
    and gradients with the TF1 control flow this package lowers."""
    from tfcompat.framework import scopes
    from tfcompat.framework.tensor import Tensor
    from tfcompat.ops import cond as cond_lib
    from tfcompat.ops import math_ops

    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [key for key, _ in pairs]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(
            f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but "
            f"found {{{','.join(map(str, sorted(keys)))}}}"
        )
    actions = [fn for _, fn in sorted(pairs, key=lambda p: p[0])]
    if default is not None:
        actions.append(default)
    with scopes.name_scope(name, "case", [branch_index]):
        if len(actions) == 1:
            return actions[0]()
        pairs = [(math_ops.equal(branch_index, i), fn) for i, fn in enumerate(actions[:-1])]
        return cond_lib.case(pairs, default=actions[-1], name=None)


@tf_export("case")
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """``tf.case`` (TF1): see ``tfcompat.ops.cond``."""
    from tfcompat.ops import cond as cond_lib

    return cond_lib.case(pred_fn_pairs, default, exclusive, strict, name)


@tf_export("while_loop")
def while_loop(
    cond,
    body,
    loop_vars,
    shape_invariants=None,
    parallel_iterations=10,  # noqa: A002
    back_prop=True,
    swap_memory=False,
    name=None,
    maximum_iterations=None,
    return_same_structure=False,
):
    """``tf.while_loop`` (TF1): see ``tfcompat.ops.while_loop``."""
    from tfcompat.ops import while_loop as while_lib

    return while_lib.while_loop(
        cond,
        body,
        loop_vars,
        shape_invariants,
        parallel_iterations,
        back_prop,
        swap_memory,
        name,
        maximum_iterations,
        return_same_structure,
    )


# Registers Assert / CheckNumerics, the dataflow ops' gradients and the StackV2 family.
from tfcompat.ops import checks, control_flow_grad, stack_ops  # noqa: E402,F401

for _op_type in ("LoopCond", "ControlTrigger", "Assert"):
    if _op_type not in gradient_registry.GRADIENTS:
        gradient_registry.no_gradient(_op_type)
