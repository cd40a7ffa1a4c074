"""``tf.cond`` and ``tf.case`` (TF1): the v1 dataflow form TF 2.21's ``tf.compat.v1.cond``
builds with v2 behaviour disabled, with TF's node names.

``cond`` builds ``cond/Switch`` (pred, pred), the pivots ``cond/switch_t`` / ``switch_f``,
``cond/pred_id``; each branch function runs in a ``CondContext`` (outside values enter
through ``<consumer>/Switch``, ops without inputs depend on the branch pivot); each output
pair is joined by ``cond/Merge`` (false input first). The lowering runs the whole construct
as one ``lax.cond`` (``lowering/regions.py``).
"""

from __future__ import annotations

import collections
import functools

from tfcompat.framework import dtypes
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.tensor import Operation, Tensor
from tfcompat.ops import control_flow_contexts as cfc
from tfcompat.ops import control_flow_nest as nest


def _unpack_if_singleton(res):
    if isinstance(res, (list, tuple)) and len(res) == 1:
        return res[0]
    return res


def _check_fns(true_fn, false_fn, fn1, fn2):
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): true_fn and fn1 may not be set simultaneously.")
        true_fn = fn1
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): false_fn and fn2 may not be set simultaneously.")
        false_fn = fn2
    if true_fn is None:
        raise TypeError("true_fn must not be None.")
    if false_fn is None:
        raise TypeError("false_fn must not be None.")
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    return true_fn, false_fn


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """Runs ``true_fn()`` if ``pred`` else ``false_fn()``; returns the taken branch's
    outputs (same nested structure and dtypes from both). Only the taken branch's ops run,
    including its stateful ops."""
    from tfcompat.ops import array_ops
    from tfcompat.ops import control_flow_ops as cf

    true_fn, false_fn = _check_fns(true_fn, false_fn, fn1, fn2)
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool")
    graph = pred.graph if isinstance(pred, Tensor) else graph_lib.get_default_graph()
    with graph.as_default(), graph.name_scope(name or "cond"):
        pred = convert_to_tensor(pred)
        if pred.dtype.base_dtype != dtypes.bool or pred.shape.rank not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {pred.shape.rank} for 'cond'")
        cfc.adopt_pending(graph)
        outer = cfc.current_context(graph)
        region = cfc.CondRegion(pred, outer, name=graph.get_name_scope())
        p_false, p_true = cf.ref_or_tensor_switch(pred, pred)
        pivot_t = array_ops.identity(p_true, name="switch_t")
        pivot_f = array_ops.identity(p_false, name="switch_f")
        pred_id = array_ops.identity(pred, name="pred_id")
        region.pred_id = pred_id
        for t in (p_true, pivot_t, pivot_f, pred_id):
            cfc.mark_region_op(t.op, region)
            graph.prevent_fetching(t.op)
        if outer is not None:
            outer.adopt([p_true.op, pivot_t.op, pivot_f.op, pred_id.op])
        orig_t, res_t = _build_branch(
            graph, cfc.CondContext(region, 1, pivot_t), true_fn, "true_fn"
        )
        orig_f, res_f = _build_branch(
            graph, cfc.CondContext(region, 0, pivot_f), false_fn, "false_fn"
        )
        if not strict:
            orig_t = _unpack_if_singleton(orig_t)
            orig_f = _unpack_if_singleton(orig_f)
        try:
            nest.assert_same_structure(orig_t, orig_f)
        except (TypeError, ValueError) as e:
            raise ValueError(f"Incompatible return values of true_fn and false_fn: {e}") from None
        if not res_t:
            raise ValueError("true_fn and false_fn must return at least one result.")
        flat_t, flat_f = nest.flatten(res_t), nest.flatten(res_f)
        for x, y in zip(flat_t, flat_f):
            if x.dtype.base_dtype != y.dtype.base_dtype:
                raise ValueError(
                    "Outputs of true_fn and false_fn must have the same type: "
                    f"{x.dtype.base_dtype.name}, {y.dtype.base_dtype.name}"
                )
        merges = []
        for f, t in zip(flat_f, flat_t):
            m = cf.merge([f, t])[0]
            cfc.mark_region_op(m.op, region)
            if outer is not None:
                outer.adopt([m.op])
            merges.append(m)
        if outer is None:
            for ctx in region.branches[::-1]:
                graph.add_to_collection(graph_lib.GraphKeys.COND_CONTEXT, ctx)
        merges = nest.pack_sequence_as(orig_t, merges)
        if not strict:
            merges = _unpack_if_singleton(merges)
        return merges


def _build_branch(graph, ctx, fn, label):
    """Runs ``fn`` in branch context ``ctx``: (its result, flat list of branch outputs)."""
    from tfcompat.ops import control_flow_ops as cf

    start = len(graph.get_operations())
    cfc.open_window(graph, ctx, ctx.pivot)
    with cfc.entered(graph, ctx):
        original = fn()
        if original is None:
            raise ValueError(f"{label} must have a return value.")
        ctx.adopt(graph.get_operations()[start:])
        flat = []
        for v in nest.flatten(original):
            if isinstance(v, Operation):
                with graph.control_dependencies([v]):
                    v = _identity_in(ctx, graph, ctx.pivot, "control_dependency")
            else:
                v = convert_to_tensor(v)
                ctx.adopt(graph.get_operations()[start:])
                if ctx.needs_capture(v):
                    v = _switch_output(ctx, graph, v)
            flat.append(v)
        _ = cf
    packs = nest.is_nested(original) or nest.is_composite(original)
    result = nest.pack_sequence_as(original, flat) if packs else [flat[0]]
    return original, result


def _identity_in(ctx, graph, tensor, name):
    from tfcompat.ops import array_ops

    with graph.colocate_with(tensor.op):
        out = array_ops.identity(tensor, name=name)
    ctx.adopt([out.op])
    return out


def _switch_output(ctx, graph, tensor):
    """A branch returning a value from outside: passes it through ``cond/Switch_N``."""
    from tfcompat.ops import control_flow_ops as cf

    found = ctx._captured.get(tensor)
    if found is not None:
        return found
    outer = ctx.region.outer_context
    source = (
        outer.capture(tensor, tensor.op)
        if outer is not None and outer.needs_capture(tensor)
        else tensor
    )
    with graph.colocate_with(source.op):
        switch = cf.ref_or_tensor_switch(source, ctx.pred, name="Switch")
    cfc.mark_region_op(switch[0].op, ctx.region)
    switch[0].op._cf_branch = ctx.branch
    switch[0].op._cf_branch_result = True  # TF counts both outputs among the branch's values
    ctx._captured[tensor] = switch[ctx.branch]
    return switch[ctx.branch]


# ---------------------------------------------------------------------------------------------
# tf.case
# ---------------------------------------------------------------------------------------------
def _case_canonicalize(pred_fn_pairs, exclusive):
    if isinstance(pred_fn_pairs, collections.OrderedDict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    elif not isinstance(pred_fn_pairs, (list, tuple)):
        raise TypeError(f"pred_fn_pairs must be a list, tuple, or dict. Received: {pred_fn_pairs}")
    predicates, actions = [], []
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if isinstance(pred, Tensor):
            if pred.dtype.base_dtype != dtypes.bool:
                raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        else:
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
        predicates.append(pred)
        actions.append(fn)
    _ = exclusive
    return predicates, actions


def _assert_at_most_n_true(predicates, n, msg):
    from tfcompat.framework import constant_op
    from tfcompat.ops import array_ops, math_ops

    preds_c = array_ops.stack(predicates, name="preds_c")
    # reduce_sum / less_equal as TF builds them (axis Const, then Sum; LessEqual).
    graph = preds_c.graph
    as_int = math_ops.cast(preds_c, dtypes.int32)
    axis = constant_op.constant([0], name="Const")
    num_true = apply_op("Sum", input=as_int, reduction_indices=axis, name="num_true_conds")
    num_true = num_true.outputs[0]
    limit = constant_op.constant(n, name="n_true_conds")
    condition = apply_op("LessEqual", x=num_true, y=limit).outputs[0]
    _ = graph
    names = ", ".join(getattr(p, "name", "?") for p in predicates)
    error_msg = [f"{msg}: more than {n} conditions ({names}) evaluated as True:", preds_c]
    from tfcompat.ops import checks

    return checks.Assert(condition, data=error_msg, summarize=len(predicates))


def _case_default_action(predicates, actions):
    from tfcompat.ops import array_ops, checks

    k = len(predicates) - 1
    predicate, action = predicates[k], actions[k]
    other_predicates, other_actions = predicates[:k], actions[:k]

    def default_action():
        graph = graph_lib.get_default_graph()
        others_msg = (
            f"Implementation error: selected default action #{k} was called, but some of "
            "other predicates are True: "
        )
        default_msg = (
            "Input error: None of conditions evaluated as True:",
            array_ops.stack(predicates, name="preds_c"),
        )
        with graph.control_dependencies(
            [
                _assert_at_most_n_true(other_predicates, n=0, msg=others_msg),
                checks.Assert(predicate, data=default_msg),
            ]
        ):
            return action()

    return default_action, other_predicates, other_actions


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """Runs the fn of the first true predicate (``default`` if none); with ``exclusive``,
    asserts at run time that at most one predicate is true. Built as nested ``cond``s."""
    if not pred_fn_pairs and default is None:
        raise ValueError("pred_fn_pairs must not be empty if no default is given")
    predicates, actions = _case_canonicalize(pred_fn_pairs, exclusive)
    graph = predicates[0].graph if predicates else graph_lib.get_default_graph()
    with graph.as_default(), graph.name_scope(name or "case"):
        if default is None:
            default, predicates, actions = _case_default_action(predicates, actions)
        fn = default
        for predicate, action in reversed(list(zip(predicates, actions))):
            fn = functools.partial(cond, predicate, true_fn=action, false_fn=fn, strict=strict)
        if exclusive:
            with graph.control_dependencies(
                [_assert_at_most_n_true(predicates, n=1, msg="Input error: exclusive=True")]
            ):
                return fn()
        return fn()
