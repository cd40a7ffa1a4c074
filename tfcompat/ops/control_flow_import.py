"""Control-flow contexts recovered from the v1 dataflow ops of an imported GraphDef.

A GraphDef (written by TF or by tfcompat) holds ``tf.cond`` and ``tf.while_loop`` only as
dataflow: ``Switch``/``Merge`` for conds; ``Enter``/``Merge``/``Switch``/``LoopCond``/
``NextIteration``/``Exit`` for loops. ``recover`` rebuilds from them the contexts that
tfcompat's builders record (``control_flow_contexts``), so the lowering contracts imported
conds and loops into ``lax.cond`` / ``lax.while_loop`` as it does its own.

**Where each op runs.** Following TF's executor, every value has a *where*: a stack of
frames and branches. An ``Enter`` pushes its ``frame_name``; an ``Exit`` pops it; a loop's
``Switch`` (predicate from ``LoopCond``) and ``NextIteration`` keep it. Output ``k`` of a
cond ``Switch`` pushes branch ``(pred, k)``, ``pred`` being the Switch's predicate with
``Identity`` ops stripped (TF's ``pred_id``, and the ``Switch(pred, pred)`` feeding the
``switch_t``/``switch_f`` pivots, name the same predicate); a cond ``Merge`` pops the
branch its inputs differ in. Any other op runs at the deepest where of its inputs, control
inputs included; a control edge out of a Switch carries the Switch's own where (TF does
not kill it; that is why TF's conds have pivots), and a ``ControlTrigger`` is live in its
loop whatever branch its inputs ran in. The loop's back edge
(``NextIteration -> Merge``) is not followed.

**Which cond.** Switches on one predicate at one place, the ops in their branches and the
Merges joining them form one region, unless some of them depend on the result of others
(a gradient cond switching the gradient of a forward cond's output on the same
predicate): *stages* number them so that a region never reads its own result. An op's
stage is the earliest one after every region it depends on has finished, raised until a
Merge and its inputs share one (the zeros TF builds for the untaken branch of a gradient
cond belong with the Merge they feed) and so does a loop nested in a branch; an op only
its own region's later stages read is then moved down to them.

A graph whose dataflow does not nest (values of two branches meeting outside a Merge,
frames entered from different places) is left without contexts: running its dataflow ops
raises the lowering's UnimplementedError, naming the reason recorded on them.
"""

from __future__ import annotations

from tfcompat.framework import tensor_shape
from tfcompat.ops import control_flow_contexts as cfc

_SWITCH = frozenset({"Switch", "RefSwitch"})
_MERGE = frozenset({"Merge", "RefMerge"})
_ENTER = frozenset({"Enter", "RefEnter"})
_EXIT = frozenset({"Exit", "RefExit"})
_NEXT = frozenset({"NextIteration", "RefNextIteration"})
_IDENTITY = frozenset({"Identity", "RefIdentity"})
_DATAFLOW = _SWITCH | _MERGE | _ENTER | _EXIT | _NEXT | {"LoopCond"}

# Where-stack entries: ("frame", name) and ("cond", pred, branch, stage); branch None
# marks a cond's region-level op (its Switch or Merge), stage 0 is "not yet staged".
_FRAME, _COND = "frame", "cond"


class Unrecoverable(Exception):
    """The dataflow does not nest into conds and loops."""


class ImportedCondRegion(cfc.CondRegion):
    """A cond recovered from dataflow: ``pred_id`` is the predicate itself (Identities
    stripped, so that every Switch naming it joins one cond)."""

    pred_read = None  # the predicate tensor as the region's Switches read it

    @property
    def pred_source(self):
        """The predicate as the region's own Switches read it, else the predicate itself:
        the stripped predicate may be computed in a stage of an enclosing cond that does
        not export it (an inner cond's capture Switch of the outer cond), while the
        ``pred_id`` Identity its Switches read is."""
        return self.pred_read if self.pred_read is not None else self.pred_id


def recover(ops):
    """Gives imported ``ops`` (in creation order) the contexts their dataflow defines."""
    if not any(op.type in _DATAFLOW for op in ops):
        return
    try:
        where = _Where(ops)
        paths = where.paths
        _stage_conds(ops, paths)
    except Unrecoverable as e:
        for op in ops:
            if op.type in _DATAFLOW:
                op._cf_import_error = str(e)
        return
    attach = _Attach(where)
    attach.run(ops, paths)
    for ctx in attach.contexts.values():
        if isinstance(ctx, cfc.WhileContext):
            _recover_loop_variables(ctx, ops)


def _consumer(tensor, types, context=None):
    """The first op of ``types`` reading ``tensor`` (in ``context`` if given), or None."""
    for op in tensor.consumers():
        if op.type in types and (context is None or cfc.context_of(op) is context):
            return op
    return None


def _recover_loop_variables(loop, ops):
    """Fills in what ``tf.gradients`` reads of a loop that its builder records: per loop
    variable (``Enter(is_constant=False)`` of its frame, in graph order) its ``Merge``,
    ``Switch`` on the ``LoopCond``, body ``Identity``, ``NextIteration`` and ``Exit``, and
    the pivots. A variable without a body ``Identity`` is one a gradient added (TF's
    iteration counter, read by its ``Add`` directly): not a variable of the loop's own. A
    loop whose variables are not all complete (a pruned ``Exit``) keeps none and records
    why: a gradient through it then raises rather than being wrong."""
    enters = [
        op
        for op in ops
        if op.type in _ENTER
        and cfc.context_of(op) is loop
        and not op.attrs.get("is_constant")
        and _frame_name(op) == loop.name
    ]
    parts, extra = [], []
    for enter in enters:
        merge = _consumer(enter.outputs[0], _MERGE, loop)
        switch = merge and next(
            (
                op
                for op in merge.outputs[0].consumers()
                if op.type in _SWITCH and op.inputs[1] is loop.loop_cond
            ),
            None,
        )
        identity = switch and _consumer(switch.outputs[1], _IDENTITY, loop)
        exit_ = switch and _consumer(switch.outputs[0], _EXIT)
        if switch is not None and identity is None and exit_ is not None:
            extra.append((enter.outputs[0], exit_.outputs[0]))
            continue
        if identity is None or exit_ is None or merge.inputs[1].op.type not in _NEXT:
            loop.import_error = (
                f"loop variable {enter.outputs[0].name} of the imported while loop "
                f"{loop.name} has no {'Exit' if identity is not None else 'Switch on its LoopCond'}"
            )
            return
        parts.append(
            (
                enter.outputs[0],
                merge.outputs[0],
                tuple(switch.outputs),
                identity.outputs[0],
                merge.inputs[1],
                exit_.outputs[0],
            )
        )
    if not parts:
        return
    loop.loops = parts
    loop.cond_pivot, loop.pivot = parts[0][1], parts[0][3]
    loop.loop_enters = [p[0] for p in parts] + [e for e, _ in extra]
    loop.loop_exits = [p[5] for p in parts] + [x for _, x in extra]


def imported_shapes(op):
    """TF's shape function for a node a GraphDef brings: a loop variable's ``Enter`` has
    an unknown shape (TF's Python builders set the loop variable's shape themselves; a
    GraphDef does not record it, so TF's import leaves loop values unshaped too)."""
    if op.type in _ENTER and not op.attrs.get("is_constant"):
        op.outputs[0]._shape = tensor_shape.unknown_shape()


def is_back_edge(op, tensor) -> bool:
    """Whether ``tensor`` reaches loop Merge ``op`` from its NextIteration."""
    return op.type in _MERGE and tensor.op.type in _NEXT


def _canonical_pred(tensor):
    while tensor.op.type in _IDENTITY:
        tensor = tensor.op.inputs[0]
    return tensor


def _is_loop_switch(op) -> bool:
    return _canonical_pred(op.inputs[1]).op.type == "LoopCond"


def _frame_name(op) -> str:
    frame = op.attrs.get("frame_name", b"")
    return frame.decode() if isinstance(frame, bytes) else frame


# ---------------------------------------------------------------------------------------------
# Where each op runs
# ---------------------------------------------------------------------------------------------
class _Where:
    """The where-stack of every op (``paths``): frames and branches, outermost first; for
    a cond's Switch or Merge, the place it joins plus a ``(cond, pred, None)`` marker."""

    def __init__(self, ops):
        self.own = set(ops)
        self.tensor_at = {}  # Tensor -> where-stack of its value
        self.control_at = {}  # op -> where-stack a control edge from it carries
        self.frames = {}  # frame name -> where-stack of its Enter ops
        self.paths = {}
        for op in ops:
            self._visit(op)

    def _at(self, tensor):
        return self.tensor_at.get(tensor, ())

    def _join(self, op, stacks):
        """The deepest of ``stacks``; the others must enclose it."""
        deepest = max(stacks, key=len, default=())
        for s in stacks:
            if deepest[: len(s)] != s:
                raise Unrecoverable(
                    f"{op.type} node {op.name} reads values from different branches or loops"
                )
        return deepest

    def _inputs(self, op):
        stacks = [self._at(t) for t in op.inputs if not is_back_edge(op, t)]
        stacks.extend(self.control_at.get(c, ()) for c in op.control_inputs)
        return stacks

    def _set(self, op, path, out=None, control=None):
        out = path if out is None else out
        self.paths[op] = path
        for t in op.outputs:
            self.tensor_at[t] = out
        self.control_at[op] = out if control is None else control

    def _visit(self, op):
        kind = op.type
        if kind in _ENTER:
            self._enter(op)
        elif kind in _EXIT:
            inner = self._join(op, self._inputs(op))
            if not inner or inner[-1][0] != _FRAME:
                raise Unrecoverable(f"Exit node {op.name} is not inside a while loop")
            self._set(op, inner, out=inner[:-1])
        elif kind in _MERGE and any(is_back_edge(op, t) for t in op.inputs):
            self._set(op, self._join(op, self._inputs(op)))
        elif kind in _MERGE:
            self._cond_merge(op)
        elif kind in _SWITCH and not _is_loop_switch(op):
            self._cond_switch(op)
        elif kind == "ControlTrigger":
            self._set(op, self._join(op, [_live(s) for s in self._inputs(op)]))
        else:
            self._set(op, self._join(op, self._inputs(op)))

    def _enter(self, op):
        outer = self._join(op, self._inputs(op))
        name = _frame_name(op)
        known = self.frames.setdefault(name, outer)
        if known[: len(outer)] != outer:
            raise Unrecoverable(f"while loop frame {name!r} is entered from different places")
        self._set(op, known + ((_FRAME, name),))

    def _cond_switch(self, op):
        outer = self._join(op, self._inputs(op))
        pred = _canonical_pred(op.inputs[1])
        self._set(op, outer + ((_COND, pred, None, 0),), control=outer)
        for k, t in enumerate(op.outputs):
            self.tensor_at[t] = outer + ((_COND, pred, k, 0),)

    def _cond_merge(self, op):
        stacks = self._inputs(op)
        tops = [s[-1] if s else None for s in stacks[: len(op.inputs)]]
        if any(t is None or t[0] != _COND for t in tops):
            raise Unrecoverable(f"Merge node {op.name} joins values that are not cond branches")
        pred = tops[0][1]
        outer = stacks[0][:-1]
        if any(t[1] is not pred or s[:-1] != outer for t, s in zip(tops, stacks)):
            raise Unrecoverable(f"Merge node {op.name} joins branches of different conds")
        if len({t[2] for t in tops}) < 2:
            raise Unrecoverable(f"Merge node {op.name} joins values of one branch only")
        outer = self._join(op, [outer] + stacks[len(op.inputs) :])
        self._set(op, outer + ((_COND, pred, None, 0),), out=outer)


def _live(stack):
    """``stack`` without its innermost branches: a ``ControlTrigger`` is live even when its
    inputs are dead, so it joins the branches its inputs ran in as a Merge does (TF's
    gradient loops order a loop's stack pushes, made in both branches of a cond in the
    body, before its ``f_sync`` trigger)."""
    while stack and stack[-1][0] == _COND:
        stack = stack[:-1]
    return stack


# ---------------------------------------------------------------------------------------------
# Stages: which conds on one predicate are one region
# ---------------------------------------------------------------------------------------------
def _is_cond_level(path) -> bool:
    """Whether ``path`` is that of a cond's Switch or Merge."""
    return bool(path) and path[-1][0] == _COND and path[-1][2] is None


def _predecessors(op):
    preds = [t.op for t in op.inputs if not is_back_edge(op, t)]
    return preds + list(op.control_inputs)


def _stage_conds(ops, paths):
    """Numbers the conds at every depth (fills the stage of each cond entry)."""
    users = {op: [] for op in ops}
    for op in ops:
        for p in _predecessors(op):
            if p in users:
                users[p].append(op)
    depth = 0
    while True:
        groups = {}
        for op in ops:
            path = paths[op]
            if len(path) > depth and path[depth][0] == _COND:
                groups.setdefault((path[:depth], path[depth][1]), []).append(op)
        if not any(len(paths[op]) > depth for op in ops):
            return
        for members in groups.values():
            stages = _Stager(ops, paths, users, members, depth).stages
            for op in members:
                entry = paths[op][depth]
                paths[op] = (
                    paths[op][:depth]
                    + ((_COND, entry[1], entry[2], stages[op]),)
                    + paths[op][depth + 1 :]
                )
        depth += 1


class _Stager:
    """Stages of one candidate set: the ops running in, or joining, branches of conds on
    one predicate at one place (``members``, entry ``depth`` of their paths)."""

    def __init__(self, ops, paths, users, members, depth):
        self.paths = paths
        self.depth = depth
        self.members = set(members)
        self.merges = {m for m in members if m.type in _MERGE and self._level(m)}
        self.stages = {}
        self.loops = self._nested_loops(members)
        self._earliest(ops)
        for _ in range(2 * len(members) + 2):
            if not self._raise_joined():
                break
            self._earliest(ops)
        else:
            raise Unrecoverable("conds on one predicate depend on each other's results")
        self._sink(members, users)
        self._check_merges()

    def _level(self, op):
        return len(self.paths[op]) == self.depth + 1 and _is_cond_level(self.paths[op])

    def _earliest(self, ops):
        """Each member's earliest stage (no earlier than it is now): after every Merge of
        this set it depends on, and no earlier than the members it reads."""
        done = {}  # op -> the last stage whose Merges it depends on
        start = min(op._id for op in self.members)
        for op in ops:
            if op._id < start:
                continue
            preds = _predecessors(op)
            after = max((done.get(p, 0) for p in preds), default=0)
            if op in self.merges:
                joined = [self.stages[p] for p in preds if p in self.stages]
                if not joined:
                    raise Unrecoverable(f"Merge node {op.name} joins no branch")
                self.stages[op] = done[op] = max([self.stages.get(op, 0)] + joined)
            elif op in self.members:
                same = [self.stages[p] for p in preds if p in self.stages and p not in self.merges]
                self.stages[op] = max([self.stages.get(op, 0), after + 1] + same)
                done[op] = after
            else:
                outside = [
                    self.stages[p] for p in preds if p in self.stages and p not in self.merges
                ]
                done[op] = max([after] + outside)

    def _sink(self, members, users):
        """An op read only by this set's later stages runs with them."""
        for op in reversed(members):
            if op in self.merges:
                continue
            readers = users.get(op, [])
            if readers and all(r in self.members for r in readers):
                self.stages[op] = min(self.stages[r] for r in readers)

    def _nested_loops(self, members):
        """The members of each loop nested directly in a branch, by frame."""
        loops = {}
        for op in members:
            path = self.paths[op]
            if len(path) > self.depth + 1 and path[self.depth + 1][0] == _FRAME:
                loops.setdefault(path[self.depth + 1], []).append(op)
        return list(loops.values())

    def _raise_joined(self) -> bool:
        """Raises what must share a stage to the latest of them: a cond Merge's inputs,
        here or in a nested cond (TF's gradient conds switch zeros for the untaken branch
        from forward values), and the ops of a nested loop. Whether anything changed."""
        changed = False
        joins = [m for m in self.members if m.type in _MERGE and _is_cond_level(self.paths[m])]
        groups = [[m] + [t.op for t in m.inputs] for m in joins] + self.loops
        for group in groups:
            group = [op for op in group if op in self.stages]
            last = max(self.stages[op] for op in group)
            for op in group:
                if self.stages[op] < last:
                    self.stages[op] = last
                    changed = True
        return changed

    def _check_merges(self):
        for m in self.merges:
            for t in m.inputs:
                if self.stages.get(t.op) != self.stages[m]:
                    raise Unrecoverable(
                        f"Merge node {m.name} joins values computed at different times"
                    )


# ---------------------------------------------------------------------------------------------
# Contexts
# ---------------------------------------------------------------------------------------------
class _Attach:
    """Creates the contexts and regions the paths name and marks the ops."""

    def __init__(self, where):
        self.where = where
        self.contexts = {(): None}
        self.regions = {}

    def run(self, ops, paths):
        for op in ops:
            path = paths[op]
            if not path:
                continue
            last = path[-1]
            if last[0] == _COND and last[2] is None:
                region = self._region(path[:-1], last, op)
                cfc.mark_region_op(op, region)
                if op.type in _SWITCH and region.pred_read is None:
                    region.pred_read = op.inputs[1]
                branch = _only_branch_read(op)
                if branch is not None:
                    op._cf_branch = branch
            else:
                op._control_flow_context = self._context(path, op)
            if op.type == "LoopCond":
                op._control_flow_context.loop_cond = op.outputs[0]

    def _context(self, path, op):
        found = self.contexts.get(path)
        if found is not None or not path:
            return found
        outer = self._context(path[:-1], op)
        last = path[-1]
        if last[0] == _FRAME:
            parallel = op.attrs.get("parallel_iterations", 10) if op.type in _ENTER else 10
            ctx = cfc.WhileContext(last[1], outer, parallel_iterations=parallel)
        else:
            ctx = self._region(path[:-1], last, op).branches[last[2]]
        self.contexts[path] = ctx
        return ctx

    def _region(self, outer_path, entry, op):
        key = (outer_path, entry[1], entry[3])
        region = self.regions.get(key)
        if region is None:
            outer = self._context(outer_path, op)
            name = op.name.rpartition("/")[0] or op.name
            region = ImportedCondRegion(entry[1], outer, name=name)
            region.pred_id = entry[1]
            for branch in (0, 1):
                cfc.CondContext(region, branch, None)
            self.regions[key] = region
        return region


def _only_branch_read(op):
    """The branch reading a cond Switch, when only one of its outputs is read."""
    if op.type not in _SWITCH:
        return None
    read = [t.value_index for t in op.outputs if t.consumers()]
    return read[0] if len(read) == 1 else None
