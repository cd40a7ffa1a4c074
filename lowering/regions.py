"""Control-flow regions: each outermost ``tf.cond`` / ``tf.while_loop`` as one plan unit.

TF 1.x control flow is dataflow (``Switch``, ``Merge``, ``Enter``, ``Exit``,
``NextIteration``); its ops carry their context (``tfcompat.ops.control_flow_contexts``).
``contract`` replaces the ops of each outermost context in a pruned op set by one
``RegionOp`` whose inputs are the tensors its ops read from outside and whose outputs are
the tensors read outside (or fetched). The plan orders and segments RegionOps like any op;
their rules (``_CondRegion`` / ``_WhileRegion``) run the member ops with the same rule table,
inside ``lax.cond`` / ``lax.while_loop`` for the JAX lowering (``lowering/control_flow.py``)
or Python ``if`` / ``while`` for the numpy reference (``lowering/reference/control_flow.py``).
Nested regions are contracted again inside their parent's branch or body.

Variables written inside a region (``assign_add`` in a branch or loop body) are threaded as
carried state (``ctx.state``); so are *run locals* (``ctx.run_locals``): per-step values
such as gradient stacks and failed-assertion flags, which ``end_step`` reports back to the
device function (see ``lowering/compile.py``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tfcompat.framework import errors
from tfcompat.ops import control_flow_contexts as cfc

MERGE_TYPES = frozenset({"Merge", "RefMerge"})
SWITCH_TYPES = frozenset({"Switch", "RefSwitch"})
ENTER_TYPES = frozenset({"Enter", "RefEnter"})
EXIT_TYPES = frozenset({"Exit", "RefExit"})
NEXT_TYPES = frozenset({"NextIteration", "RefNextIteration"})
REGION_OP_TYPES = {"cond": "_CondRegion", "while": "_WhileRegion"}
_IDENTITY_TYPES = frozenset({"Identity", "RefIdentity"})
DATAFLOW_TYPES = MERGE_TYPES | SWITCH_TYPES | ENTER_TYPES | EXIT_TYPES | NEXT_TYPES | {"LoopCond"}


# ---------------------------------------------------------------------------------------------
# Contraction
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _RefArg:
    """Region inputs are passed as they are (variables as VarRefs): members read them."""

    is_ref: bool = True
    number_attr: None = None
    type_list_attr: None = None


@dataclasses.dataclass
class _RegionOpDef:
    inputs: tuple
    host: bool
    is_stateful: bool = True


class RegionOp:
    """A contracted cond or while region, shaped like an Operation for the planner."""

    def __init__(self, region, members, inputs, outputs, control_inputs, host):
        self.region = region
        self.members = members  # ops in graph creation order
        self.name = region.name
        self.type = REGION_OP_TYPES[region.kind]
        self.inputs = tuple(inputs)
        self.outputs = list(outputs)
        self.control_inputs = list(control_inputs)
        self.attrs = {}
        self.op_def = _RegionOpDef(tuple(_RefArg() for _ in inputs), host)
        self._id = min(op._id for op in members)
        self.device = ""

    def __repr__(self):
        return f"<RegionOp {self.type} {self.name} ({len(self.members)} ops)>"


def region_below(op, level):
    """The outermost region of ``op`` strictly inside ``level`` (None: top), or None."""
    chain = cfc.regions_of(op)
    if level is not None:
        if level not in chain:
            return None
        chain = chain[: chain.index(level)]
    return chain[-1] if chain else None


def contract(ops, feeds=(), fetches=(), level=None):
    """``ops`` with every region directly inside ``level`` replaced by a RegionOp."""
    groups, rest = {}, []
    for op in sorted(ops, key=lambda o: o._id):
        region = region_below(op, level) if op.type not in ("VariableV2", "Variable") else None
        if region is None:
            if level is None and op.type in DATAFLOW_TYPES:
                _unsupported_dataflow(op)
            rest.append(op)
        else:
            groups.setdefault(region, []).append(op)
    if not groups:
        return list(ops)
    fetched = set(fetches)
    region_ops = []
    for region, members in groups.items():
        own = set(members)
        inputs, seen = [], set()
        controls = []
        if region.kind == "cond":  # the executor reads the predicate even if pred_id is pruned
            pred = region.pred_source
            if pred.op not in own:
                seen.add(pred)
                inputs.append(pred)
        for op in members:
            for t in op.inputs:
                if t.op not in own and t not in seen:
                    seen.add(t)
                    inputs.append(t)
            for c in op.control_inputs:
                if c not in own and c not in controls:
                    controls.append(c)
        used_outside = set(fetched)
        for op in list(ops):
            if op not in own:
                used_outside.update(op.inputs)
        outputs = [t for op in members for t in op.outputs if t in used_outside]
        from lowering import plan as plan_lib

        host = any(plan_lib.is_host_op(op) for op in members)
        if region.kind == "while" and _declares_changing_shapes(members):
            host = True
        region_ops.append(RegionOp(region, members, inputs, outputs, controls, host))
    _ = feeds
    return rest + region_ops


def _declares_changing_shapes(members) -> bool:
    """Whether a while loop's ``shape_invariants`` relax a loop variable's entry shape
    (``[None, 2]`` for a value entering as ``[2, 2]``): the user says its shape changes
    between iterations, which XLA's ``while_loop`` cannot carry, so the loop runs on the
    host (numpy kernels take any shape) instead of failing on the device."""
    for op in members:
        if op.type not in ("Merge", "RefMerge"):
            continue
        entry = next((t for t in op.inputs if t.op.type in ("Enter", "RefEnter")), None)
        if entry is None:
            continue
        before, after = entry.op.inputs[0].shape, op.outputs[0].shape
        if before.rank is not None and (
            after.rank is None
            or any(b is not None and a is None for b, a in zip(before.as_list(), after.as_list()))
        ):
            return True
    return False


def alias_map(ops) -> dict:
    """Member op -> its RegionOp, for the planner's edges into and out of regions."""
    return {m: op for op in ops if isinstance(op, RegionOp) for m in op.members}


def ordered(ops, feeds, level, needed=()):
    """``ops`` contracted below ``level`` and topologically ordered; ``needed`` are the
    tensors read after them (inner regions must export those they produce)."""
    from lowering import plan as plan_lib

    contracted = contract(ops, feeds, needed, level)
    return plan_lib.order(contracted, set(feeds), alias_map(contracted))


# ---------------------------------------------------------------------------------------------
# Run locals (per-step values threaded through regions)
# ---------------------------------------------------------------------------------------------
REPORT_KEY = "__tfcompat_control_flow_report__"


def run_locals(ctx) -> dict:
    """The step's locals: ``{key: value pytree}``; created on first use."""
    if not hasattr(ctx, "run_locals"):
        ctx.run_locals = {}
    return ctx.run_locals


def child_context(ctx, state, local_values):
    """A Context for a branch or loop body: same backend and rng, its own state copy."""
    from lowering import interpreter

    child = interpreter.Context(dict(state), ctx.backend, ctx.rng_key, ctx.feeds)
    child.run_locals = dict(local_values)
    child.in_region = True  # traced whether or not it runs (an untaken branch, a 0-trip loop)
    child.padded_partitions = ctx.padded_partitions  # one trace: partitions cross regions
    static_pushes(ctx)  # one record per trace, whichever context pushes first
    for name in ("stack_bucket", "report_ops", "stack_static_pushes", "array_sizes"):
        if hasattr(ctx, name):
            setattr(child, name, getattr(ctx, name))
    return child


def static_pushes(ctx) -> dict:
    """Per stack key, the compile-time value all its pushes of this trace pushed (see
    ``lowering/stack.py``); shared by a trace's branch and body contexts."""
    if not hasattr(ctx, "stack_static_pushes"):
        ctx.stack_static_pushes = {}
    return ctx.stack_static_pushes


def report_ops(ctx) -> dict:
    """Static info (op per local key) recorded while tracing, for error messages."""
    if not hasattr(ctx, "report_ops"):
        ctx.report_ops = {}
    return ctx.report_ops


# ---------------------------------------------------------------------------------------------
# Region execution, parameterized by the backend's primitives
# ---------------------------------------------------------------------------------------------
def branch_of(op, region):
    """0 or 1 for an op inside a branch of cond ``region``; None for region-level ops."""
    if getattr(op, "_cf_region", None) is region:
        return None
    for ctx in cfc.contexts_of(op):
        if ctx.region is region:
            return ctx.branch
    raise errors.InternalError(None, op, f"{op.name} is not inside {region}")


def _merge_input_for(merge, branch, region):
    """The input of ``merge`` that is live when ``branch`` runs."""
    for t in merge.inputs:
        producer = t.op
        if getattr(producer, "_cf_region", None) is region and producer.type in SWITCH_TYPES:
            if t.value_index == branch:
                return t
            continue
        if branch_of(producer, region) == branch:
            return t
    raise errors.UnimplementedError(
        None,
        merge,
        f"Merge {merge.name}: no input is produced by branch {branch} of the cond it joins",
    )


class BranchShapesDiffer(errors.UnimplementedError):
    """The two branches of a cond whose predicate is traced return different shapes."""


def run_cond(ctx, rop, args, rules, prims):
    """Runs cond region ``rop``: level ops, then one branch via ``prims.cond``."""
    from lowering import interpreter

    region = rop.region
    env = dict(zip(rop.inputs, args))
    table = rules
    level = [op for op in rop.members if getattr(op, "_cf_region", None) is region]
    pre = [op for op in level if op.type not in MERGE_TYPES]
    merges = [op for op in level if op.type in MERGE_TYPES]
    interpreter.run_ops(ordered(pre, list(env), region), env, table, ctx)
    inner = [op for op in rop.members if op not in set(level)]
    by_branch = {0: [], 1: []}
    for op in inner:
        by_branch[branch_of(op, region)].append(op)
    exports = [t for t in rop.outputs if t.op in set(inner)]

    def make_branch(b):
        merge_inputs = [_merge_input_for(m, b, region) for m in merges]
        ops_b = ordered(by_branch[b], list(env), region, merge_inputs + exports)
        own = {t for op in by_branch[b] for t in op.outputs}

        def branch(state, local_values):
            child = child_context(ctx, state, local_values)
            local_env = dict(env)
            interpreter.run_ops(ops_b, local_env, table, child)
            merged = [_value(child, local_env[t]) for t in merge_inputs]
            own_exports = {
                i: _value(child, local_env[t]) for i, t in enumerate(exports) if t in own
            }
            return merged, own_exports, child.state, child.run_locals

        return branch

    pred_tensor = region.pred_id if region.pred_id in env else region.pred_source
    pred = _value(ctx, env[pred_tensor])
    branches = [make_branch(0), make_branch(1)]
    try:
        merged, exported, state, local_values = prims.cond(
            pred, branches, ctx.state, run_locals(ctx), len(exports), rop
        )
    except BranchShapesDiffer as e:
        # Branches of different shapes (rot90 of a non-square image by a fed k) need the
        # predicate at compile time: from fed small integers, the step is specialised on
        # them (lowering/static.py) and only the taken branch is traced.
        from lowering import static

        pred = static.required_value(pred_tensor, rop, e.message)
        merged, exported, state, local_values = prims.cond(
            pred, branches, ctx.state, run_locals(ctx), len(exports), rop
        )
    _replace_state(ctx, state)
    ctx.run_locals = dict(local_values)
    index = prims.branch_index(pred)
    for m, value in zip(merges, merged):
        env[m.outputs[0]] = value
        env[m.outputs[1]] = index
    for t, value in zip(exports, exported):
        env[t] = _static_export(t, value)
    return _outputs(rop, env)


def _replace_state(ctx, state):
    """The run's variable state becomes the region's result ``state`` (in place: the
    Session holds that dict). A loop that ran no iteration, or a branch that wrote
    nothing, may return the very same dict: clearing it first would lose every variable."""
    if state is ctx.state:
        return
    state = dict(state)
    ctx.state.clear()
    ctx.state.update(state)


def _static_export(tensor, value):
    """A value leaving a branch is a traced lax.cond output; one known when the graph is
    built (a constant a gradient op reads, e.g. reduction indices) stays a numpy value so
    that shape-computing consumers stay static."""
    from tfcompat.framework import constant_value

    known = constant_value.constant_value(tensor)
    return value if known is None else np.asarray(known)


def _value(ctx, value):
    from lowering import interpreter

    if isinstance(value, interpreter.VarRef):
        return ctx.read_var(value)
    return value


def _outputs(rop, env):
    values = [env[t] for t in rop.outputs]
    if len(values) == 1:
        return values[0]
    return tuple(values) if values else None


def _loop_parts(rop):
    """(enters, merges, body ops, exits, loop_cond) among a while region's members."""
    members = rop.members
    # The loop's own dataflow ops; those of loops nested in its body are body ops.
    own = [op for op in members if cfc.context_of(op) is rop.region]
    enters = [op for op in own if op.type in ENTER_TYPES]
    merges = [op for op in own if op.type in MERGE_TYPES]
    exits = [op for op in own if op.type in EXIT_TYPES]
    loop_conds = [op for op in own if op.type == "LoopCond"]
    skip = set(enters) | set(merges) | set(exits)
    body = [op for op in members if op not in skip]
    return enters, merges, body, exits, loop_conds[0] if loop_conds else None


def _needed(ops, roots):
    """The ops of ``ops`` that ``roots`` (tensors) depend on, through data and control. A
    nested region op stands for the ops it replaced: its outputs are their tensors (a
    ``tf.cond`` computing a loop's predicate)."""
    own = set(ops)
    producer = {t: op for op in ops for t in op.outputs}
    needed, stack = set(), [producer[t] for t in roots if t in producer]
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        stack.extend(producer[t] for t in op.inputs if t in producer)
        stack.extend(c for c in op.control_inputs if c in own)
    return [op for op in ops if op in needed]


def run_while(ctx, rop, args, rules, prims):
    """Runs while region ``rop`` via ``prims.while_loop`` over (loop vars, state, locals)."""
    from lowering import interpreter

    loop = rop.region
    env = dict(zip(rop.inputs, args))
    table = rules
    enters, merges, body, exits, loop_cond = _loop_parts(rop)
    if loop_cond is None:
        raise errors.UnimplementedError(None, None, f"while loop {loop.name} has no LoopCond")
    interpreter.run_ops(enters, env, table, ctx)
    carried = [m.outputs[0] for m in merges]
    feeds = list(env) + carried
    next_values = [m.inputs[1] for m in merges]
    body_ops = ordered(
        body,
        feeds,
        loop,
        next_values + [loop_cond.inputs[0]] + [e.inputs[0] for e in exits] + list(rop.outputs),
    )
    cond_ops = _needed(body_ops, [loop_cond.inputs[0]])
    init = [_value(ctx, env[m.inputs[0]]) for m in merges]

    def cond_fn(values, state, local_values):
        child = child_context(ctx, state, local_values)
        local_env = dict(env)
        local_env.update(zip(carried, values))
        interpreter.run_ops(cond_ops, local_env, table, child)
        return _value(child, local_env[loop_cond.inputs[0]])

    def body_fn(values, state, local_values):
        child = child_context(ctx, state, local_values)
        local_env = dict(env)
        local_env.update(zip(carried, values))
        interpreter.run_ops(body_ops, local_env, table, child)
        return [_value(child, local_env[t]) for t in next_values], child.state, child.run_locals

    final, state, local_values = prims.while_loop(
        cond_fn, body_fn, init, ctx.state, run_locals(ctx), rop
    )
    _replace_state(ctx, state)
    ctx.run_locals = dict(local_values)
    index = {m.outputs[0]: k for k, m in enumerate(merges)}
    for exit_op in exits:
        env[exit_op.outputs[0]] = final[_loop_var_index(exit_op, index)]
    return _outputs(rop, env)


def _loop_var_index(exit_op, index):
    """The loop variable (``index``: Merge output -> position) ``exit_op`` returns: it reads
    the loop's ``Switch`` on that Merge, possibly through ``Identity`` ops (a gradient
    loop's gated ``tuple``)."""
    tensor = exit_op.inputs[0]
    while tensor not in index:
        if tensor.op.type not in SWITCH_TYPES | _IDENTITY_TYPES:
            raise errors.InternalError(
                None, exit_op, f"Exit {exit_op.name} does not read a loop variable"
            )
        tensor = tensor.op.inputs[0]
    return index[tensor]


def dataflow_rule(ctx, op, *xs):
    """``Switch``/``Enter``/``LoopCond``/``NextIteration``/``Exit`` inside a region forward
    their input: the region executor does the routing they stand for."""
    if op.type in SWITCH_TYPES:
        return xs[0], xs[0]
    if op.type in MERGE_TYPES:
        _unsupported_dataflow(op)
    return xs[0]


def _unsupported_dataflow(op):
    """v1 dataflow ops outside any region: an imported GraphDef's cond/while whose
    structure ``control_flow_import`` could not recover (its reason is on the op)."""
    reason = getattr(op, "_cf_import_error", None)
    why = f" ({reason})" if reason else ""
    raise errors.UnimplementedError(
        None,
        op,
        f"{op.type} node {op.name} is not inside a tf.cond / tf.while_loop tfcompat could "
        f"recover from the graph's dataflow{why}\n\t [[{{{{node {op.name}}}}}]]",
    )


# ---------------------------------------------------------------------------------------------
# End of a jitted step: check flags and stack overflow
# ---------------------------------------------------------------------------------------------
INITIAL_STACK_BUCKET = 32
# Run-locals key of the flag a push past its stack's bucket sets (lowering/stack.py).
STACK_OVERFLOW_KEY = ("stack_overflow",)
_CHECK_KINDS = ("assert", "numerics", "kernel")


# Run-locals kind of what a dynamic TensorArray's ``Size`` saw (lowering/tensor_array.py).
ARRAY_SIZE_KIND = "array_size"


def _array_sizes(ctx) -> dict:
    """Per ``Size`` op name, the compile-time size it returns (None: a run-time value):
    the device function's ``array_sizes``, kept across traces."""
    if not hasattr(ctx, "array_sizes"):
        ctx.array_sizes = {}
    return ctx.array_sizes


def array_size_guess(ctx, op, initial):
    """The compile-time size ``TensorArraySizeV3`` ``op`` returns in this trace: the size
    it had when the step last ran, ``initial`` before that; None once it was seen to vary
    within one step."""
    return _array_sizes(ctx).setdefault(op.name, initial)


def record_array_size(ctx, op, size):
    """Records the run-time ``size`` Size op ``op`` saw: its first value in the step and
    whether a later one differed (a Size inside a loop growing the array)."""
    import jax.numpy as jnp

    key = (ARRAY_SIZE_KIND, op.name)
    report_ops(ctx)[key] = op
    local_values = run_locals(ctx)
    size = jnp.asarray(size, jnp.int32)
    seen, first, varies = local_values.get(key, (False, size, False))
    local_values[key] = (
        jnp.asarray(True),
        jnp.where(seen, first, size),
        jnp.asarray(varies) | (jnp.asarray(seen) & (first != size)),
    )


def _size_mismatch(value, guess):
    """Traced: a dynamic array's Size op returned a size other than the one it saw."""
    seen, first, varies = value
    return seen & (varies | (first != guess))


def _failure_flags(local_values, sizes):
    """Traced booleans: a check failed / a stack overflowed / an array size was wrong."""
    flags = []
    for key, value in local_values.items():
        if key[0] in _CHECK_KINDS:
            flags.append(value[0])
        elif key == STACK_OVERFLOW_KEY:
            flags.append(value)
        elif key[0] == ARRAY_SIZE_KIND:
            flags.append(_size_mismatch(value, sizes[key[1]]))
    return flags


def end_step(ctx, state_in):
    """The step's new state; when it ran checks or stacks, also a report under
    ``REPORT_KEY``. If a check failed or a stack overflowed, the step's variable writes are
    discarded (TF would have stopped the step), so the state returned is ``state_in``."""
    import jax.numpy as jnp

    local_values = getattr(ctx, "run_locals", None)
    if not local_values:
        return ctx.state
    flags = _failure_flags(local_values, _array_sizes(ctx))
    bad = jnp.any(jnp.stack([jnp.asarray(f) for f in flags])) if flags else jnp.asarray(False)
    state = {
        name: jnp.where(bad, state_in[name], value) if name in state_in else value
        for name, value in ctx.state.items()
    }
    report = {}
    for key, value in local_values.items():
        if key[0] in _CHECK_KINDS:
            report[key] = value
        elif key == STACK_OVERFLOW_KEY or key[0] == ARRAY_SIZE_KIND:
            report[key] = value
    state[REPORT_KEY] = report
    return state


def _rerun_settings(device_function, report) -> bool:
    """Adjusts what the step is compiled with after a stack or dynamic TensorArray
    overflowed (a doubled bucket) or a dynamic array's Size returned a wrong compile-time
    size (the size seen, or a run-time value if it varied); True if the step must rerun."""
    rerun = False
    if bool(np.asarray(report.get(STACK_OVERFLOW_KEY, False))):
        device_function.stack_bucket *= 2
        rerun = True
    sizes = device_function.array_sizes
    for key, value in report.items():
        if key[0] != ARRAY_SIZE_KIND or not bool(np.asarray(value[0])):
            continue
        _, first, varies = value
        if bool(np.asarray(varies)):
            sizes[key[1]] = None
            rerun = True
        elif int(first) != sizes.get(key[1]):
            sizes[key[1]] = int(first)
            rerun = True
    if rerun:
        device_function.rejit()
    return rerun


def check_report(device_function, report) -> bool:
    """True if the step must rerun (see ``_rerun_settings``): its values may be wrong, so
    its checks are not looked at; else raises the first failed check's
    InvalidArgumentError."""
    from lowering.reference import control_flow as checks

    if _rerun_settings(device_function, report):
        return True
    failed = []
    for key, value in report.items():
        if key[0] in _CHECK_KINDS and bool(np.asarray(value[0])):
            failed.append(device_function.report_ops[key])
    if failed:
        op = min(failed, key=lambda o: o._id)
        value = report[
            next(k for k, o in device_function.report_ops.items() if o is op and k in report)
        ]
        if op.type == "Assert":
            strings = device_function.report_ops.get(("assert_strings", op.name), {})
            data = [strings.get(i, d) for i, d in enumerate(value[1])]
            message = checks.assertion_message(op, [np.asarray(d) for d in data])
        elif op.type == "CheckNumerics":
            message = checks.numerics_message(op, bool(value[1][0]), bool(value[1][1]))
        else:  # a kernel's own check (control_flow.kernel_check)
            message_of, error = device_function.report_ops[("kernel_message", op.name)]
            raise error(None, op, message_of(*[np.asarray(d) for d in value[1]]))
        raise errors.InvalidArgumentError(None, op, message)
    return False
