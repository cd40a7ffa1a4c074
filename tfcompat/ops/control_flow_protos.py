"""Control-flow contexts as TF's ``WhileContextDef`` / ``CondContextDef`` protos: what a
MetaGraphDef's ``while_context`` / ``cond_context`` collections hold, so that TensorFlow
importing a tfcompat graph (``tf.train.import_meta_graph``) gets its loops and conds back as
contexts and can, for one, build gradients through them.

TF records a context's *values* as it builds: every tensor made in it or in a context
nested in it, and the outside tensors it reads, each mapped (``external_values``) to the
tensor that brings it in (a loop's ``Enter``, a branch's ``Switch`` output). On import TF
gives every op named in ``values`` but not among the external keys this context, nested
contexts last. tfcompat knows where each op runs (``op._control_flow_context``, or for the
ops joining a cond, its region), so the values are derived from that: the same assignment
of ops to contexts on import, though TF's own sets also list some tensors no op of the
context produces (a loop's initial values, an enclosing loop's ``Enter`` a branch read).

Gradient loops and conds are not exported, as in TF (only contexts built by ``tf.cond`` and
``tf.while_loop`` are collected); the ops a gradient adds to a forward context (history
pushes, the iteration counter) are among its values. Import does not read these protos:
``import_graph_def`` recovers contexts from the dataflow ops (``control_flow_import``).
"""

from __future__ import annotations

from tfcompat.framework.proto import control_flow_pb2
from tfcompat.ops import control_flow_contexts as cfc


def to_proto(context, export_scope=None):
    """``context`` (a top-level ``WhileContext`` or ``CondContext``) as its proto, with
    its nested contexts; None outside ``export_scope``."""
    index = _ContextIndex(_graph_of(context))
    return index.to_proto(context, export_scope)


def _graph_of(context):
    if isinstance(context, cfc.WhileContext):
        return context.loop_cond.graph
    return context.pivot.graph


def _strip(name, export_scope):
    if export_scope and name.startswith(export_scope + "/"):
        return name[len(export_scope) + 1 :]
    return name


def _chain(context):
    while context is not None:
        yield context
        context = context.outer_context


def _is_exported(context) -> bool:
    """Contexts that ``tf.cond`` / ``tf.while_loop`` built (not a gradient's)."""
    return type(context) in (cfc.WhileContext, cfc.CondContext)


class _ContextIndex:
    """Where each op of the graph runs, and each context's nested contexts in the order
    they were built."""

    def __init__(self, graph):
        self.members = {}  # context -> [(op, output indices)] of ops inside it (nested too)
        self.nested = {}  # context -> its nested exported contexts, in build order
        for op in graph.get_operations():
            home, outputs = _home(op)
            for context in _seen_by(op, home):
                self.members.setdefault(context, []).append((op, outputs))
            for context in _chain(home):
                self._record(context)
            region = getattr(op, "_cf_region", None)
            if isinstance(region, cfc.CondRegion):
                for branch in region.branches[::-1]:  # TF builds the true branch first
                    if branch is not None:
                        self._record(branch)

    def _record(self, context):
        outer = context.outer_context
        if outer is None or not _is_exported(context):
            return
        siblings = self.nested.setdefault(outer, [])
        if context not in siblings:
            siblings.append(context)

    def to_proto(self, context, export_scope=None):
        name = _context_name(context)
        if export_scope and not name.startswith(export_scope):
            return None
        if isinstance(context, cfc.WhileContext):
            proto = self._while_def(context, export_scope)
        else:
            proto = self._cond_def(context, export_scope)
        self._values_def(context, proto.values_def, export_scope)
        for nested in self.nested.get(context, ()):
            entry = proto.nested_contexts.add()
            field = entry.while_ctxt if isinstance(nested, cfc.WhileContext) else entry.cond_ctxt
            field.CopyFrom(self.to_proto(nested, export_scope))
        return proto

    def _while_def(self, loop, export_scope):
        proto = control_flow_pb2.WhileContextDef(
            context_name=_strip(loop.name, export_scope),
            parallel_iterations=loop.parallel_iterations,
            back_prop=loop.back_prop,
            swap_memory=loop.swap_memory,
            pivot_name=_strip(loop.loop_cond.name, export_scope),
            pivot_for_pred_name=_strip(loop.loops[0][1].name, export_scope),
            pivot_for_body_name=_strip(loop.loops[0][3].name, export_scope),
        )
        if loop.maximum_iterations is not None and hasattr(loop.maximum_iterations, "name"):
            proto.maximum_iterations_name = _strip(loop.maximum_iterations.name, export_scope)
        proto.loop_exit_names.extend(_strip(t.name, export_scope) for t in loop.loop_exits)
        proto.loop_enter_names.extend(_strip(t.name, export_scope) for t in loop.loop_enters)
        return proto

    def _cond_def(self, branch, export_scope):
        return control_flow_pb2.CondContextDef(
            context_name=_strip(_context_name(branch), export_scope),
            pred_name=_strip(branch.pred.name, export_scope),
            pivot_name=_strip(branch.pivot.name, export_scope),
            branch=branch.branch,
        )

    def _values_def(self, context, values_def, export_scope):
        external = {outer.name: inner.name for outer, inner in context._captured.items()}
        values = set(external)
        if isinstance(context, cfc.CondContext):
            # TF maps the predicate to itself, and so a value an enclosing loop brought in
            # for this branch (the Enter its capture Switch reads).
            brought = [context.pred] + [
                inner.op.inputs[0]
                for outer, inner in context._captured.items()
                if inner.op.inputs[0] is not outer
            ]
            for tensor in brought:
                external[tensor.name] = tensor.name
                values.add(tensor.name)
        else:
            values.update(t.name for t in context.named_values)
        for op, outputs in self.members.get(context, ()):
            values.update(op.outputs[i].name for i in outputs)
        values_def.values.extend(_strip(v, export_scope) for v in sorted(values))
        for outer, inner in external.items():
            values_def.external_values[_strip(outer, export_scope)] = _strip(inner, export_scope)


def _seen_by(op, home):
    """The contexts whose values list ``op``'s outputs, as TF records them while building:
    its own; every enclosing one for an op in a cond branch (a branch marks its outputs
    seen up the whole chain); the enclosing one for a loop's ``Exit`` (TF's
    ``ExitResult``); a loop keeps its other values to itself."""
    if home is None:
        return []
    if isinstance(home, cfc.CondContext):
        return list(_chain(home))
    if op.type in ("Exit", "RefExit") and home.outer_context is not None:
        return [home, home.outer_context]
    return [home]


def _home(op):
    """``(context op runs in, indices of its outputs that belong there)``. The ops joining
    a cond carry its region instead of a context: a branch's pivot and its capture
    ``Switch`` (the output that branch reads) run in the branch, the predicate ``Switch``,
    ``pred_id`` and ``Merge`` in the context enclosing the cond."""
    every = range(len(op.outputs))
    context = cfc.context_of(op)
    if context is not None:
        return context, every
    region = getattr(op, "_cf_region", None)
    if not isinstance(region, cfc.CondRegion):
        return None, every
    branch = getattr(op, "_cf_branch", None)
    if branch is not None and region.branches[branch] is not None:
        # A capture Switch lists the output its branch reads; one passing an outside
        # value out as a branch result (``lambda: x``) lists both, as TF does.
        outputs = every if getattr(op, "_cf_branch_result", False) else (branch,)
        return region.branches[branch], outputs
    for candidate in region.branches:
        if candidate is not None and candidate.pivot.op is op:
            return candidate, every
    return region.outer_context, every


def _context_name(context):
    """TF's names: a loop's frame name; a cond's branches ``<cond scope>/cond_text`` (the
    true branch, built first) and ``cond_text_1``."""
    if isinstance(context, cfc.WhileContext):
        return context.name
    scope = context.region.name
    suffix = "cond_text" if context.branch == 1 else "cond_text_1"
    return f"{scope}/{suffix}" if scope else suffix
