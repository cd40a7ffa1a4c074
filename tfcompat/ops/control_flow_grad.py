"""Gradient functions of the v1 dataflow ops (TF's rules), for ``tf.gradients`` through
``tf.cond`` / ``tf.case`` / ``tf.while_loop``. They run inside the context
``control_flow_grad_state.GradientState.grad_scope`` chose: a mirror cond branch or a
gradient loop (``cfc.current_context``)."""

from __future__ import annotations

from tfcompat.framework import dtypes, errors
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.indexed_slices import IndexedSlices
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import control_flow_contexts as cfc
from tfcompat.ops import control_flow_grad_state as grad_state
from tfcompat.ops import control_flow_ops as cf


def _grad_loop(graph):
    """The gradient loop being built (None when ``tf.gradients`` is not inside one)."""
    ctx = cfc.current_context(graph)
    return ctx if isinstance(ctx, grad_state.GradWhileContext) else None


def _dense(grad):
    return convert_to_tensor(grad) if isinstance(grad, IndexedSlices) else grad


def _switch_grad(op, *grads):
    """A loop Switch is visited twice: from its Exit (make the gradient loop's Merge) and
    from the body (close the Merge's back edge). A cond's capture Switch merges the
    gradient from its branch with zeros from the other."""
    graph = op.graph
    region = getattr(op, "_cf_region", None)
    if region is None and isinstance(cfc.context_of(op), cfc.WhileContext):
        loop = _grad_loop(graph)
        merge = loop.state.switch_map.get(op)
        if merge is not None:
            if grads[1] is not None:
                merge.op._update_input(1, cf.next_iteration(_dense(grads[1])))
            return None, None
        if grads[0] is not None:
            first = _dense(grads[0])
            merge = cf.merge([first, first], name="b_switch")[0]
            loop.state.switch_map[op] = merge
            return merge, None
        return None, None
    if region is None:
        raise errors.UnimplementedError(
            None, op, f"tf.gradients through {op.type} {op.name} outside tf.cond/while_loop"
        )
    mirror = grad_state.current(graph).mirror_region(region)
    branch = getattr(op, "_cf_branch", None)
    if branch is not None:
        if grads[1 - branch] is None:
            if op.inputs[0].dtype.base_dtype == dtypes.resource:
                merged = cf.merge([grads[branch]] * 2, name="cond_resource_grad")[0]
                cfc.mark_region_op(merged.op, mirror)
                return merged, None
            return None, None
        merged = cf.merge(list(grads), name="cond_grad")[0]
        cfc.mark_region_op(merged.op, mirror)
        return merged, None
    # A gradient cond's own Switch (second-order gradients): route each branch's gradient.
    false_grad = cf.switch(grads[0], op.inputs[1])[0]
    true_grad = cf.switch(grads[1], op.inputs[1])[1]
    merged = cf.merge([false_grad, true_grad])[0]
    for t in (false_grad, true_grad, merged):
        cfc.mark_region_op(t.op, mirror)
    return merged, None


def _colocated_switch(data, pred, name="Switch"):
    """TF's switch for gradients: colocated with the data it routes."""
    with data.graph.colocate_with(data.op, ignore_existing=True):
        return cf.ref_or_tensor_switch(data, pred, name=name)


def _merge_grad(op, grad, _):
    """A loop Merge: the gradient leaves the gradient loop (to the Enter) on its last
    iteration, else goes round (to the NextIteration). A cond Merge: the gradient goes to
    the branch the forward cond took."""
    graph = op.graph
    region = getattr(op, "_cf_region", None)
    if region is None:
        return _colocated_switch(grad, _grad_loop(graph).loop_cond)
    mirror = grad_state.current(graph).mirror_region(region)
    out = _colocated_switch(grad, mirror.pred_id, name="cond_grad")
    cfc.mark_region_op(out[0].op, mirror)
    return out


def _exit_grad(op, grad):
    """A loop output's gradient enters the gradient loop as a loop variable."""
    if isinstance(cfc.context_of(op), grad_state.GradWhileContext):
        raise TypeError("Second-order gradient for while loops not supported.")
    loop = _grad_loop(op.graph)
    if not loop.back_prop:
        return None
    return cf.enter(
        _dense(grad),
        loop.name,
        is_constant=False,
        parallel_iterations=loop.parallel_iterations,
        name="b_exit",
    )


def _next_iteration_grad(op, grad):
    return grad


def _enter_grad(op, grad):
    """A loop variable's gradient leaves the gradient loop; a loop invariant's gradient is
    summed over the iterations."""
    loop = _grad_loop(op.graph)
    if loop is None or not loop.back_prop:
        return grad
    if op.attrs.get("is_constant"):
        # An IndexedSlices gradient (a gather of a variable in the body) is summed densely:
        # TF concatenates its slices per iteration, a shape XLA's loops cannot carry. The
        # conversion belongs to the loop body before the accumulator reads it (else the
        # accumulator would capture it as a loop invariant).
        with grad_state.building(op.graph, loop):
            dense = _dense(grad)
        return loop.add_backprop_accumulator(op, dense)
    return cf.exit_(grad)


for _prefix in ("", "Ref"):
    RegisterGradient(_prefix + "Switch")(_switch_grad)
    RegisterGradient(_prefix + "Merge")(_merge_grad)
    RegisterGradient(_prefix + "Exit")(_exit_grad)
    RegisterGradient(_prefix + "NextIteration")(_next_iteration_grad)
    RegisterGradient(_prefix + "Enter")(_enter_grad)


@RegisterGradient("LoopCond")
def _loop_cond_grad(op, *grads):
    """The loop predicate stops backprop (a registered function returning None, as TF's,
    rather than a not-differentiable mark)."""
    return [None]
