"""``tf.while_loop`` (TF1): the v1 dataflow loop TF 2.21's ``tf.compat.v1.while_loop`` builds
with v2 behaviour disabled, with TF's node names.

Per loop variable: ``while/Enter`` -> ``while/Merge`` (with the back edge from
``while/NextIteration``) -> ``while/Switch`` on ``while/LoopCond`` -> ``while/Identity``
(what the body sees) and ``while/Exit``. Tensors from outside enter the body through
``<consumer>/Enter`` ops with ``is_constant=True``. The lowering runs the loop as one
``lax.while_loop`` (``lowering/regions.py``).
"""

from __future__ import annotations

from tfcompat.framework import graph as graph_lib
from tfcompat.framework import tensor_shape
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.tensor import Tensor
from tfcompat.ops import control_flow_contexts as cfc
from tfcompat.ops import control_flow_nest as nest


def _check_args(cond, body, loop_vars, parallel_iterations):
    if not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")


def _graph_of(loop_vars):
    for v in nest.flatten(loop_vars):
        if isinstance(v, Tensor):
            return v.graph
    return graph_lib.get_default_graph()


def while_loop(
    cond,
    body,
    loop_vars,
    shape_invariants=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
    maximum_iterations=None,
    return_same_structure=False,
):
    """Repeats ``body`` while ``cond`` is true; see ``tf.compat.v1.while_loop``. Loop vars
    may be nested structures; stateful ops in ``body`` run once per iteration."""
    from tfcompat.framework import constant_op
    from tfcompat.ops import math_ops

    _check_args(cond, body, loop_vars, parallel_iterations)
    graph = _graph_of(loop_vars)
    with graph.as_default(), graph.name_scope(name or "while"):
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if maximum_iterations.shape.rank != 0:
                raise ValueError(
                    "'maximum_iterations' must be a scalar. Received shape: "
                    f"{maximum_iterations.shape}"
                )
            counter = constant_op.constant(
                0, dtype=maximum_iterations.dtype, name="iteration_counter"
            )
            orig_cond, orig_body, limit = cond, body, maximum_iterations
            if len(loop_vars) == 1 and not return_same_structure:  # TF's try_to_pack
                loop_vars = (counter, loop_vars[0])

                def cond(i, lv):
                    return math_ops.logical_and(i < limit, orig_cond(lv))

                def body(i, lv):
                    return (i + 1, orig_body(lv))
            else:
                loop_vars = (counter, loop_vars)

                def cond(i, lv):
                    return math_ops.logical_and(i < limit, orig_cond(*lv))

                def body(i, lv):
                    return (i + 1, orig_body(*lv))

            if shape_invariants is not None:
                shape_invariants = (tensor_shape.TensorShape([]), shape_invariants)
        if shape_invariants is not None:
            nest.assert_same_structure(loop_vars, shape_invariants)
        cfc.adopt_pending(graph)
        outer = cfc.current_context(graph)
        loop = cfc.WhileContext(
            graph.unique_name("while_context", mark_as_used=True),
            outer,
            parallel_iterations,
            back_prop,
            swap_memory,
            maximum_iterations,
        )
        if outer is None:
            graph.add_to_collection(graph_lib.GraphKeys.WHILE_CONTEXT, loop)
        result = _build_loop(
            graph, loop, cond, body, loop_vars, shape_invariants, return_same_structure
        )
        if maximum_iterations is not None:
            return result[1]
        return result


def _shape_le(a, b):
    """Whether shape ``a`` is at least as specific as invariant ``b``."""
    if b.rank is None:
        return True
    if a.rank != b.rank:
        return False
    return all(y is None or x == y for x, y in zip(a.as_list(), b.as_list()))


def _build_loop(graph, loop, cond, body, loop_vars, shape_invariants, return_same_structure):
    from tfcompat.ops import array_ops
    from tfcompat.ops import control_flow_ops as cf

    flat = [convert_to_tensor(_to_flow(v)) for v in nest.flatten(loop_vars)]
    # Loop vars made just now (a constant initial value) belong to the enclosing body.
    cfc.adopt_pending(graph)
    invariants = nest.flatten(shape_invariants) if shape_invariants is not None else None
    outer = loop.outer_context
    # An initial value from outside an enclosing cond or loop is brought in within the
    # loop's name scope (TF's ``cond/while/Switch``), as TF captures it while building.
    scope = graph.get_name_scope() + "/"
    real = [
        outer.capture(v, v.op, scope) if outer is not None and outer.needs_capture(v) else v
        for v in flat
    ]
    start = len(graph.get_operations())
    with cfc.entered(graph, loop), graph.control_dependencies(None):
        enters = [
            cf.enter(v, loop.name, parallel_iterations=loop.parallel_iterations) for v in real
        ]
    for i, e in enumerate(enters):
        graph.prevent_feeding(e)
        if invariants is not None:
            shape = tensor_shape.as_shape(invariants[i])
            if not real[i].shape.is_compatible_with(shape):
                raise ValueError(
                    f"The shape invariant specified for {real[i].name} is not compatible with "
                    "the initial shape of the loop variable. It enters the loop with shape "
                    f"{real[i].shape}, but the specified shape invariant is {shape}."
                )
            e._shape = shape
    with cfc.entered(graph, loop):
        merges = [cf.merge([e, e])[0] for e in enters]
        for m, e in zip(merges, enters):
            m._shape = e.shape
        _own(loop, graph.get_operations()[start:])
        loop.cond_pivot = merges[0]
        start = len(graph.get_operations())
        cfc.open_window(graph, loop, merges[0])
        packed = _with_arrays(loop_vars, merges)
        c = convert_to_tensor(cond(*_as_args(loop_vars, packed)))
        loop.adopt(graph.get_operations()[start:], pivot=merges[0])
        start = len(graph.get_operations())
        loop.loop_cond = cf.loop_cond(c, name="LoopCond")
        switches = []
        for m in merges:
            with graph.colocate_with(m.op):
                switches.append(cf.ref_or_tensor_switch(m, loop.loop_cond))
        identities = [array_ops.identity(s[1]) for s in switches]
        _own(loop, graph.get_operations()[start:])
        loop.pivot = identities[0]
        start = len(graph.get_operations())
        cfc.open_window(graph, loop, identities[0])
        body_result = body(*_as_args(loop_vars, _with_arrays(loop_vars, identities)))
        if not nest.is_nested(body_result):
            body_result = [body_result]
        result = [convert_to_tensor(_to_flow(v)) for v in nest.flatten(body_result)]
        loop.adopt(graph.get_operations()[start:], pivot=identities[0])
        loop.window = None
        if len(merges) != len(result):
            raise ValueError(
                "Number of inputs and outputs of 'body' must match 'loop_vars'. Got "
                f"{len(result)} for the number of inputs/outputs, and {len(merges)} for "
                "'loop_vars'."
            )
        start = len(graph.get_operations())
        result = [loop.capture(v, v.op) if loop.needs_capture(v) else v for v in result]
        nexts = []
        for m, v, e in zip(merges, result, enters):
            n = cf.next_iteration(v)
            if not _shape_le(n.shape, m.shape):
                raise ValueError(
                    f"Input tensor '{e.op.inputs[0].name}' enters the loop with shape "
                    f"{m.shape}, but has shape {n.shape} after one iteration. To allow the "
                    "shape to vary across iterations, use the `shape_invariants` argument of "
                    "tf.while_loop to specify a less-specific shape."
                )
            m.op._update_input(1, n)
            nexts.append(n)
        exits = [cf.exit_(s[0]) for s in switches]
        for x, m in zip(exits, merges):
            x._shape = m.shape
        _own(loop, graph.get_operations()[start:])
    loop.loops = list(zip(enters, merges, switches, identities, nexts, exits))
    loop.loop_enters, loop.loop_exits = list(enters), list(exits)
    loop.body_fn = body
    structure = body_result if nest.is_nested(body_result) else [body_result]
    packed_exits = _with_arrays(structure, exits)
    if return_same_structure:
        return packed_exits
    return packed_exits[0] if len(exits) == 1 else packed_exits


def _to_flow(value):
    """A TensorArray loop variable is carried as its flow, as TF does."""
    from tfcompat.ops.tensor_array_ops import TensorArray

    return value.flow if isinstance(value, TensorArray) else value


def _with_arrays(structure, tensors):
    """``tensors`` arranged like ``structure``, TensorArray places rebuilt around them."""
    from tfcompat.ops.tensor_array_ops import TensorArray, build_ta_with_new_flow

    leaves = [
        build_ta_with_new_flow(s, t) if isinstance(s, TensorArray) else t
        for s, t in zip(nest.flatten(structure), tensors)
    ]
    return nest.pack_sequence_as(structure, leaves)


def _as_args(loop_vars, packed):
    """How cond/body are called: ``fn(*loop_vars)`` for a list/tuple, else ``fn(loop_vars)``."""
    if isinstance(loop_vars, (list, tuple)) and not hasattr(loop_vars, "_fields"):
        return list(packed)
    return [packed]


def _own(loop, ops):
    for op in ops:
        if cfc.context_of(op) is None and getattr(op, "_cf_region", None) is None:
            op._control_flow_context = loop
