"""From (fetches, targets, feeds) to an ordered, segmented list of ops: prune, order, split.

* **Prune**: walk backwards from the fetched tensors and target ops through data and
  control inputs; a fed tensor cuts the walk (its producer is not needed for it).
* **Order**: a topological order of the pruned ops in which, among ready ops, the one
  created first runs first. This is the ordering rule for stateful ops that neither data
  nor control edges order: they run in creation order. (TensorFlow leaves that order
  unspecified; ours is deterministic.)
* **Split**: host ops (strings, tables, files, and ops whose output shape depends on
  values, such as ``Where`` and ``Unique``: ``OpDef.host`` or a string input/output) run in
  numpy; all other ops are device ops, jitted together. Segments alternate host / device:
  an op goes into the earliest segment of its kind that comes no earlier than the segments
  of its inputs. A typical training step is one host prelude (possibly empty), ONE device
  segment and an empty epilogue; a value-dependent shape in the middle of a step splits it.
"""

from __future__ import annotations

import contextvars
import dataclasses
import heapq

from lowering import interpreter, regions
from lowering import unique as unique_lowering
from tfcompat.framework import dtypes, errors

VARIABLE_OP_TYPES = frozenset({"VariableV2", "Variable", "VarHandleOp"})


@dataclasses.dataclass
class Segment:
    """A run of ops executed together: on the host in numpy, or as one jitted function."""

    kind: str  # "host" or "device"
    ops: list
    inputs: tuple = ()  # Tensors read from earlier segments or feeds
    outputs: tuple = ()  # Tensors later segments or fetches need
    variables: tuple = ()  # variable names its ops touch
    uses_rng: bool = False


@dataclasses.dataclass
class Plan:
    fetches: tuple  # unique Tensors whose values are returned
    targets: tuple  # Operations run for their effects
    feeds: tuple  # fed Tensors
    segments: list
    variable_ops: tuple = ()  # every VariableV2 op the run touches (fetched ones included)

    @property
    def ops(self):
        return [op for s in self.segments for op in s.ops]

    @property
    def device_segments(self):
        return [s for s in self.segments if s.kind == "device"]


def _is_device_assert(op) -> bool:
    """An Assert whose string inputs are constants, or a string Const only such Asserts
    read: the strings only word the error message, so the check stays in the device step
    (the strings enter it as compile-time constants)."""
    if op.type == "Assert":
        return all(t.op.type == "Const" for t in op.inputs if t.dtype.base_dtype == dtypes.string)
    if op.type == "Const" and op.outputs[0].dtype.base_dtype == dtypes.string:
        users = op.outputs[0].consumers()
        return bool(users) and all(u.type == "Assert" and _is_device_assert(u) for u in users)
    return False


# The ops whose outputs the run being planned fetches (see is_host_op).
_FETCHED: contextvars.ContextVar = contextvars.ContextVar("fetched", default=frozenset())


def is_host_op(op) -> bool:
    if op.op_def.host:
        # TF's optimizers deduplicate sparse gradients with a Unique that the device can
        # run at static size, unless its padded outputs would be seen (lowering/unique.py).
        if op.type != "Unique":
            return True
        pattern = unique_lowering.deduplication_ops(op)
        return pattern is None or not pattern.isdisjoint(_FETCHED.get())
    if _is_device_assert(op):
        return False
    if op.type == "DynamicPartition":
        # Its XLA outputs are padded to the input's length (lowering/gather.py), which
        # only the ops that know it read: where an output is seen (fetched, or read by a
        # host op) it runs on the host instead, with TF's exact shapes.
        return op in _FETCHED.get() or any(is_host_op(c) for t in op.outputs for c in t.consumers())
    for t in op.inputs:
        if t.dtype.base_dtype == dtypes.string:
            return True
    for t in op.outputs:
        if t.dtype.base_dtype == dtypes.string:
            return True
    return False


def prune(fetches, targets, feeds):
    """The ops needed to compute ``fetches`` and run ``targets`` given ``feeds``."""
    needed = set()
    stack = [t.op for t in fetches if t not in feeds] + list(targets)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        for t in op.inputs:
            if t not in feeds and t.op not in needed:
                stack.append(t.op)
        for c in op.control_inputs:
            # A control input whose outputs are all fed is satisfied by the feed (as in
            # TF): running it would e.g. evaluate a fed Placeholder.
            if c not in needed and not (c.outputs and all(t in feeds for t in c.outputs)):
                stack.append(c)
    return needed


def order(ops, feeds, alias=None, loose=frozenset()):
    """Topological order, earliest-created first among ready ops; errors on cycles.
    ``alias`` maps ops contracted into a control-flow region to their RegionOp; the control
    inputs of ``loose`` ops are not followed (see ``_loop_ordering_edges``)."""
    alias = alias or {}
    deps = {}
    users = {op: [] for op in ops}
    for op in ops:
        preds = {alias.get(t.op, t.op) for t in op.inputs if t not in feeds}
        if op not in loose:
            preds.update(alias.get(c, c) for c in op.control_inputs)
        preds = {p for p in preds if p in users and p is not op}
        deps[op] = len(preds)
        for p in preds:
            users[p].append(op)
    heap = [(op._id, op.name, op) for op, n in deps.items() if n == 0]
    heapq.heapify(heap)
    out = []
    while heap:
        _, _, op = heapq.heappop(heap)
        out.append(op)
        for user in users[op]:
            deps[user] -= 1
            if deps[user] == 0:
                heapq.heappush(heap, (user._id, user.name, user))
    if len(out) != len(ops):
        stuck = sorted(op.name for op, n in deps.items() if n > 0)
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Graph is invalid, contains a cycle with {len(stuck)} nodes, including: "
            + ", ".join(stuck[:5]),
        )
    return out


def _shape_text(shape):
    if shape.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _check_feeds_present(ops, feeds):
    for op in ops:
        if op.type == "Placeholder" and op.outputs[0] not in feeds:
            dtype = dtypes.proto_name(op.attrs["dtype"])[3:].lower()
            raise errors.InvalidArgumentError(
                None,
                op,
                f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                f"{dtype} and shape {_shape_text(op.attrs['shape'])}\n\t "
                f"[[{{{{node {op.name}}}}}]]",
            )


def _index_like(op) -> bool:
    return all(
        t.dtype.base_dtype.is_integer or t.dtype.base_dtype == dtypes.bool for t in op.outputs
    )


# Ops whose value a device step knows at trace time (jit specialises on shapes).
_SHAPE_OPS = frozenset({"Shape", "ShapeN", "Size", "Rank"})


class _HostValues:
    """Which ops of a run the host can compute, and which of those are static.

    *Candidates* are the device-capable ops computed from feeds, constants and host-op
    outputs only (the ids a string hash produced, the indices and dense shape of a parsed
    SparseTensor): the host can run them without waiting for the device. *Static* ones
    among them (constants, shapes, and ops computed from those only) are also what a
    device step knows while tracing, so XLA sees them as constants.
    """

    def __init__(self, ordered, feeds):
        from lowering.registry import REFERENCE

        self.static, self.candidates = set(), set()
        self.from_host_op = set()  # candidates reading a host op's output, directly or not
        for op in ordered:
            if op.type == "Const":
                self.static.add(op)
                self.candidates.add(op)
                continue
            if (
                op.type not in REFERENCE
                or op.type.startswith("_")  # the planner's region pseudo-ops
                or op.type in VARIABLE_OP_TYPES
                or op.type == "Placeholder"
                or op.op_def.is_stateful
                or is_host_op(op)
                or not op.inputs  # a NoOp only orders
                or not op.outputs
            ):
                continue
            if all(t in feeds or t.op in self.candidates or is_host_op(t.op) for t in op.inputs):
                self.candidates.add(op)
                if any(t not in feeds and (is_host_op(t.op) or t.op in self.from_host_op)
                       for t in op.inputs):  # fmt: skip
                    self.from_host_op.add(op)
                if op.type in _SHAPE_OPS or all(
                    t not in feeds and t.op in self.static for t in op.inputs
                ):
                    self.static.add(op)

    def replicable(self, op, feeds) -> bool:
        """Whether every segment using ``op`` runs it for itself, instead of receiving its
        value from the segment it would otherwise sit in: static values (folded while a
        device step traces; cheap on the host, where constants are computed once) and the
        ref-forwarding ``Identity`` of a variable (``w/read``: the op reading it reads the
        variable when it runs, wherever the Identity sits). Left in one segment, each
        would be an output of that segment and an input of the others: a table read out
        of one step and passed into the next, hundreds of small arguments per call in a
        feature-column model, and a shape computed on the device that a host op waits
        for."""
        if op.control_inputs or any(t in feeds for t in op.outputs):
            return False
        if op in self.static:
            return True
        return (
            op.type in interpreter.REF_FORWARDING
            and op.inputs[0].dtype.is_ref_dtype
            and op.inputs[0] not in feeds
            and (
                op.inputs[0].op.type in VARIABLE_OP_TYPES or self.replicable(op.inputs[0].op, feeds)
            )
        )

    def host_bound(self, ordered):
        """The candidates (not static: those are replicated) that run on the host.
        Integer and boolean ones (indices, masks, shape arithmetic on run-time values) do
        when they derive from a host op's output or a host op reads them: in numpy they
        cost microseconds, a host op reading one computed on the device would wait for a
        blocking copy and split the step, and a device op needing one as a compile-time
        value (a ``Reshape`` to ``[batch] + dense_shape[1:-1]`` of a parsed SparseTensor)
        is specialised on exactly that value instead of the inputs it came from (a whole
        ``dense_shape`` whose width varies per batch). Others run on the host when every
        consumer does: on the device they would put the host op after a device segment
        and split the step in two. Fed ids on their way to a device gather stay there."""
        consumers = {op: [] for op in self.candidates}
        for op in ordered:
            for t in op.inputs:
                if t.op in consumers:
                    consumers[t.op].append(op)
        bound = set()
        for op in reversed(ordered):
            users = consumers.get(op)
            if users is None or op in self.static:
                continue
            on_host = [u for u in users if u in bound or is_host_op(u)]
            if (on_host and len(on_host) == len(users)) or (
                _index_like(op) and (on_host or op in self.from_host_op)
            ):
                bound.add(op)
        return bound


def _assign_segments(ordered, feeds, alias=None, replicas=frozenset(), host_bound=frozenset()):
    """Segment index per op: even indices are host segments, odd ones device segments.
    ``replicas`` run in every segment that uses them, so they constrain no level;
    ``host_bound`` ops are device-capable ops that run on the host (see _HostValues)."""
    alias = alias or {}
    level = {}
    tensor_level = {t: 0 for t in feeds}
    for op in ordered:
        if op in replicas:
            # Copied into each segment that uses it: its value is available from the
            # level of its inputs on (a shape of a device value only after that value).
            available = max((tensor_level.get(t, 0) for t in op.inputs), default=0)
            for t in op.outputs:
                tensor_level[t] = available
            continue
        lowest = 0
        for t in op.inputs:
            lowest = max(lowest, tensor_level.get(t, 0))
        for c in op.control_inputs:
            c = alias.get(c, c)
            if c in level:
                lowest = max(lowest, level[c])
        want_parity = 0 if is_host_op(op) or op in host_bound else 1
        if lowest % 2 != want_parity:
            lowest += 1
        level[op] = lowest
        for t in op.outputs:
            tensor_level[t] = lowest
    return level


def build_plan(fetches, targets, feeds, random_op_types=frozenset(), move_to_host=True) -> Plan:
    """The plan of one run. ``move_to_host=False`` keeps every device-capable op on the
    device (``lowering.gradcheck`` differentiates the device step with respect to feeds)."""
    token = _FETCHED.set(frozenset(t.op for t in fetches))
    try:
        return _build_plan(fetches, targets, feeds, random_op_types, move_to_host)
    finally:
        _FETCHED.reset(token)


def _build_plan(fetches, targets, feeds, random_op_types, move_to_host) -> Plan:
    feeds_set = set(feeds)
    # Control-flow regions (tf.cond / tf.while_loop) become one unit each: lowering/regions.
    needed = prune(fetches, targets, feeds_set)
    pruned = regions.contract(needed, feeds_set, fetches)
    alias = regions.alias_map(pruned)
    try:
        ordered = order(pruned, feeds_set, alias)
    except errors.InvalidArgumentError:
        # Contracting a loop into one unit can close a cycle TF's executor does not have
        # (see _loop_ordering_edges): retried without those ordering edges, else TF's error.
        loose, strip = _loop_ordering_edges(needed)
        if not loose and not strip:
            raise
        pruned = regions.contract(needed - strip, feeds_set, fetches)
        alias = regions.alias_map(pruned)
        ordered = order(pruned, feeds_set, alias, loose)
    _check_feeds_present(ordered, feeds_set)
    # Variable ops are handles without inputs and constants need none: each segment that
    # uses one runs its own copy (see _replicable), so neither refs nor constants cross a
    # segment boundary. A fetched replicable op also runs where it falls, to be fetched.
    var_ops = [op for op in ordered if op.type in VARIABLE_OP_TYPES]
    values = _HostValues(ordered, feeds_set)
    replicas = {
        op
        for op in ordered
        if op.type not in VARIABLE_OP_TYPES and values.replicable(op, feeds_set)
    }
    kept = {t.op for t in fetches} | set(targets)
    rest = [
        op
        for op in ordered
        if op.type not in VARIABLE_OP_TYPES and (op not in replicas or op in kept)
    ]
    host_bound = values.host_bound(ordered) if move_to_host else set()
    host_bound |= _host_containers(ordered)
    level = _assign_segments(
        [op for op in ordered if op.type not in VARIABLE_OP_TYPES],
        feeds_set,
        alias,
        replicas - kept,
        host_bound,
    )
    count = max(level.values(), default=-1) + 1
    bare = 1
    if not rest and var_ops:
        # Fetching bare variables: one device segment (a host one if any holds strings).
        bare = 0 if any(is_host_op(op) for op in var_ops) else 1
        count = bare + 1
    buckets = [[] for _ in range(count)]
    for op in rest:
        buckets[level[op]].append(op)
    position = {op: i for i, op in enumerate(ordered)}
    for i, bucket in enumerate(buckets):
        if not rest and i == bare:
            bucket[:0] = var_ops
            continue
        # In the run's order: a copy may read a fetched replicable op the bucket holds.
        bucket[:] = sorted(
            set(bucket) | _copies_needed(bucket, replicas, feeds_set), key=position.__getitem__
        )
    segments = [
        Segment("host" if i % 2 == 0 else "device", ops) for i, ops in enumerate(buckets) if ops
    ]
    _wire(segments, fetches, feeds_set, random_op_types)
    return Plan(tuple(fetches), tuple(targets), tuple(feeds), segments, tuple(var_ops))


def _loop_ordering_edges(ops):
    """Edges of a run's pruned ``ops`` that only order work inside a while loop after ops
    that read the loop's own result: ``(constants whose control inputs to drop, ops to
    leave out)``.

    TF's gradient of a loop adds bookkeeping to the forward loop (its iteration counter
    ``gradients/f_count``, stack pushes of forward values) while the user's
    ``control_dependencies`` are open: ``minimize`` under
    ``control_dependencies(UPDATE_OPS)`` makes that bookkeeping wait for the batch-norm
    updates, which read the loop's output. The counter is a constant with those control
    inputs; inside the loop TF turns them into ``Identity`` ops of an ``Enter`` of each
    update, read only as control inputs of the pushes. TF's executor runs the loop's other
    values first and the bookkeeping when the updates are done; a loop run as one unit
    cannot wait for its own result, so the planner drops those edges (a constant has no
    effect to order, and an Identity nothing reads has no effect)."""
    loose, strip = set(), set()
    for op in ops:
        if op.type == "Const" and op.control_inputs:
            users = op.outputs[0].consumers()
            if users and all(u.type in ("Enter", "RefEnter") for u in users):
                loose.add(op)
        elif (
            op.type == "Identity"
            and op.inputs[0].op.type in ("Enter", "RefEnter")
            and not op.outputs[0].consumers()
            and op._control_outputs
        ):
            strip.add(op)
    for op in ops:
        if op.type in ("Enter", "RefEnter"):
            users = [u for u in op.outputs[0].consumers() if u in ops]
            if users and all(u in strip for u in users):
                strip.add(op)
    return loose, strip


def _host_containers(ordered):
    """The ops of every TensorArray or stack a host op uses (``map_fn`` over strings writes
    its int32 results from a host loop; a loop that changes shapes runs on the host and
    pushes its gradient stacks there): a handle and what it holds belong to one segment's
    run, so all the ops (or loops) using such a handle run on the host with it."""
    consumers = {}
    for op in ordered:
        for t in op.inputs:
            consumers.setdefault(t, []).append(op)
    on_host = set()
    for op in ordered:
        if op.type not in ("TensorArrayV3", "StackV2"):
            continue
        group, handles = {op}, [op.outputs[0]]
        while handles:
            for user in consumers.get(handles.pop(), ()):
                if user not in group:
                    group.add(user)
                    if user.type == "TensorArrayGradV3":
                        handles.append(user.outputs[0])
        if any(is_host_op(member) for member in group):
            on_host |= group
    return on_host


def _copies_needed(ops, replicas, feeds):
    """The variable ops and replicable ops that ``ops`` read, directly or through each
    other, and do not hold themselves."""
    own = set(ops)
    copies = set()
    stack = [t for op in ops for t in op.inputs]
    while stack:
        t = stack.pop()
        op = t.op
        if t in feeds or op in own or op in copies:
            continue
        if op.type in VARIABLE_OP_TYPES or op in replicas:
            copies.add(op)
            stack.extend(op.inputs)
    return copies


def _wire(segments, fetches, feeds_set, random_op_types):
    """Fills each segment's inputs, outputs, variables and rng use."""
    needed_later = set(fetches)
    for segment in reversed(segments):
        own = set(segment.ops)
        own.update(m for op in segment.ops for m in getattr(op, "members", ()))
        inputs, seen = [], set()
        for op in segment.ops:
            for t in op.inputs:
                if (t in feeds_set or t.op not in own) and t not in seen:
                    seen.add(t)
                    inputs.append(t)
        segment.inputs = tuple(inputs)
        segment.outputs = tuple(
            t for op in segment.ops for t in op.outputs if t in needed_later and t not in feeds_set
        )
        # A fetched replicable op may sit in several segments: the last one returns it.
        needed_later.difference_update(segment.outputs)
        needed_later.update(inputs)
        segment.variables = tuple(
            sorted({var_name(op) for op in segment.ops if op.type in VARIABLE_OP_TYPES})
        )
        segment.uses_rng = any(op.type in random_op_types for op in segment.ops)


def var_name(op) -> str:
    """The state key of a VariableV2 or VarHandleOp op: its ``shared_name``, else its node
    name."""
    shared = op.attrs.get("shared_name", b"")
    return shared.decode() if shared else op.name
