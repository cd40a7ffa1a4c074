"""The op-by-op interpreter shared by the JAX lowering and the numpy reference backend.

Like ``jax.core.eval_jaxpr``: an environment maps Tensors to values, each op's rule reads
its inputs and writes its outputs. Under ``jax.jit`` the values are tracers, so running the
interpreter once *is* the lowering; with numpy rules it is the reference executor.

Variables (TF1 ref tensors, and resource variables' handles) are represented by ``VarRef``
values; an op whose OpDef input is not a ref receives the variable's current value (read at
the moment the op runs, in the plan's order), while ref inputs (``Assign``'s ``ref``) and
resource inputs (``ReadVariableOp``'s handle) receive the ``VarRef`` itself.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from lowering import host_batching, run_twins
from lowering.registry import REFERENCE
from tfcompat.framework import dtypes, errors
from tfcompat.framework import op_def as op_def_lib


@dataclasses.dataclass(frozen=True)
class VarRef:
    """A handle to variable ``name`` in the run's state."""

    name: str
    op: object


class Context:
    """What rules see besides their inputs: the variable state and randomness.

    ``state`` maps variable names to values and is updated in place by writes; ``rng_key``
    is this run's ``compile.RunSeed`` (Session entropy and run counter) or None.
    """

    def __init__(self, state, backend, rng_key=None, feeds=None, state_lock=None):
        self.state = state
        self.backend = backend
        self.rng_key = rng_key
        self.feeds = feeds or {}
        # Host contexts of a Session's XLA runs: the lock its device steps hold while they
        # read, donate and replace variable buffers (see ``read_var``).
        self.state_lock = state_lock
        # DynamicPartition ops lowered in this trace: their outputs are padded to the
        # partitioned input's length (``lowering/gather.py``); ones computed on the host
        # and passed in are exact.
        self.padded_partitions = set()

    def read_var(self, ref: VarRef, reader=None):
        """The variable's current value; ``reader`` (the op reading it) names the node in
        TF's FailedPreconditionError when the variable is uninitialized."""
        try:
            if self.state_lock is None:
                return self.state[ref.name]
            with self.state_lock:
                # A numpy view keeps the buffer alive: a device step of another thread
                # that donates it then copies instead of deleting what this op reads.
                value = self.state[ref.name]
                return np.asarray(value) if hasattr(value, "block_until_ready") else value
        except KeyError:
            # A forwarded read (``w/read``) is the node TF names; else the reading op.
            node_op = ref.op if ref.op.type in REF_FORWARDING else (reader or ref.op)
            node = node_op.name
            raise errors.FailedPreconditionError(
                None,
                node_op,
                f"Attempting to use uninitialized value {ref.name}\n\t [[{{{{node {node}}}}}]]",
            ) from None

    def write_var(self, ref: VarRef, value):
        if self.state_lock is None:
            self.state[ref.name] = value
            return
        with self.state_lock:
            self.state[ref.name] = value

    def is_initialized(self, ref: VarRef) -> bool:
        return ref.name in self.state


REF_FORWARDING = frozenset({"Identity"})


def input_modes(op):
    """Per input: True where the rule receives the VarRef itself (a ``Ref(T)`` arg, or a
    ``resource`` handle of a resource variable), False where it receives the variable's
    current value."""
    flags = op_def_lib.ref_input_flags(op.op_def, op.attrs)
    return [f or t.dtype == dtypes.resource for f, t in zip(flags, op.inputs)]


def _foldable(op, args) -> bool:
    """Whether every input is a numpy value (constants, static shapes): the op then runs by
    its numpy kernel while tracing, so shape arithmetic such as ``tf.shape(x)[0] * 2`` stays
    static for XLA (Const and Shape lower to numpy values)."""
    return (
        bool(args)
        and not op.op_def.is_stateful
        and op.type in REFERENCE
        and all(isinstance(a, (np.ndarray, np.generic)) for a in args)
    )


def _call(op, rule, args, ctx):
    """Runs one rule; Python errors from a kernel become TF's InvalidArgumentError."""
    try:
        return rule(ctx, op, *args)
    except errors.OpError:
        raise
    except (ValueError, TypeError, IndexError, ZeroDivisionError) as e:
        raise errors.InvalidArgumentError(None, op, f"{e}\n\t [[{{{{node {op.name}}}}}]]") from e


def _has_list_output(op_type) -> bool:
    op_def = op_def_lib.OPDEFS.get(op_type)
    return op_def is not None and any(arg.is_list for arg in op_def.outputs)


def _store(op, result, env):
    outputs = op.outputs
    if len(outputs) == 1:
        # A list output of one tensor (Unpack with num=1, Split with num_split=1): its rule
        # returns a sequence of one value, like for any other length.
        if isinstance(result, (tuple, list)) and len(result) == 1 and _has_list_output(op.type):
            result = result[0]
        env[outputs[0]] = result
    elif outputs:
        if len(result) != len(outputs):
            raise errors.InternalError(
                None,
                op,
                f"rule for {op.type} returned {len(result)} values, expected {len(outputs)}",
            )
        for tensor, value in zip(outputs, result):
            env[tensor] = value


def _forwards_ref(op) -> bool:
    return op.type in REF_FORWARDING and op.inputs[0].dtype.is_ref_dtype


def _forward_ref(op, env):
    # TF's Identity of a ref forwards the variable's buffer: consumers see the value the
    # variable holds when *they* run (so a read placed after an assign by control
    # dependencies sees the assigned value, as in TF).
    source = env[op.inputs[0]]
    env[op.outputs[0]] = VarRef(source.name, op) if isinstance(source, VarRef) else source


def _missing_rule(op, backend):
    return errors.UnimplementedError(
        None, op, f"No {backend} kernel for op type '{op.type}' (node {op.name})"
    )


def run_ops(ops, env: dict, rules: dict, ctx: Context):
    """Runs ``ops`` in order, reading inputs from and writing outputs to ``env``."""
    for op in ops:
        rule = rules.get(op.type)
        if rule is None:
            raise _missing_rule(op, ctx.backend)
        if _forwards_ref(op):
            _forward_ref(op, env)
            continue
        args = []
        for tensor, keep_ref in zip(op.inputs, input_modes(op)):
            value = env[tensor]
            if isinstance(value, VarRef) and not keep_ref:
                value = ctx.read_var(value, op)
            args.append(value)
        if ctx.backend == "xla" and _foldable(op, args):
            rule = REFERENCE[op.type]
        _store(op, _call(op, rule, args, ctx), env)
    return env


class HostProgram:
    """A host segment prepared once and run every step by the numpy kernels.

    A feature-column step runs thousands of small host ops (ids, masks, shape arithmetic
    around the embedding lookups), so what ``run_ops`` redoes per op and per run is done
    here once: the kernel and the ref-ness of each input are looked up when the program
    is built, and the ops computed from constants only (Consts and arithmetic on them,
    about half of such a segment) run on the first step and keep their values. Like TF's
    common-subgraph elimination, a stateless op identical to an earlier one (type, attrs,
    inputs) reuses its outputs: ``linear_model`` and ``input_layer`` each build the same
    hashing and id bookkeeping for a shared column. Ops that are twins only at run time
    (the same values: ``lowering/run_twins.py``) reuse outputs too.
    """

    def __init__(self, ops, rules=REFERENCE, backend="host"):
        self.ops = list(ops)
        constant = _constant_ops(self.ops, rules)
        self._constant_ops = [op for op in self.ops if op in constant]
        self._constants = None  # their outputs, from the first run
        # Tensors whose value is never a VarRef: outputs of stateless kernels that received
        # values only. Other inputs (from outside the program, variables, forwarded refs)
        # are checked on every run.
        plain = {t for op in self._constant_ops for t in op.outputs}
        # Per op: (op, rule or None for a forwarded ref, inputs, positions of inputs that
        # may hold a VarRef to read, the single output or None for several/none).
        self._steps = []
        own = set(self.ops)
        seen, alias = {}, {}  # identical-op key -> first op; tensor -> its first twin
        signatures = {}  # (op type, attrs) -> a small int, for run-time twins' keys
        # Constant outputs stand for their value's recipe, so twins reading equal
        # constants (each chain builds its own Const ``[0]``) are found.
        for op in self._constant_ops:
            key = _identity_key(op, alias, plain, own)
            for i, t in enumerate(op.outputs):
                alias[t] = ("constant", key, i) if key is not None else t
        for op in self.ops:
            if op in constant:
                continue
            rule = rules.get(op.type)
            if rule is None:
                raise _missing_rule(op, backend)
            if _forwards_ref(op):
                self._steps.append((op, None, (), (), None))
                continue
            key = _identity_key(op, alias, plain, own)
            if key is not None and op.type == "Identity":
                # Its output is its input's value: ops reading either are twins.
                alias[op.outputs[0]] = alias.get(op.inputs[0], op.inputs[0])
                key = None
            if key is not None:
                twin = seen.setdefault(key, op)
                if twin is not op:
                    pairs = tuple(zip(op.outputs, twin.outputs))
                    alias.update((out, alias.get(t, t)) for out, t in pairs)
                    plain.update(op.outputs)
                    self._steps.append((op, _ALIAS, pairs, (), None))
                    continue
            modes = input_modes(op)
            reads = tuple(
                i
                for i, (t, keep) in enumerate(zip(op.inputs, modes))
                if not keep and t not in plain
            )
            outputs = op.outputs
            if not (op.op_def.is_stateful or op.type.startswith("_") or any(modes)):
                plain.update(outputs)
            single = outputs[0] if len(outputs) == 1 else None
            step = (op, rule, tuple(op.inputs), reads, single)
            if key is not None and not reads and RUN_TWINS and op.type not in BATCHABLE:
                kind_id = signatures.setdefault(key[:2], len(signatures))
                step = (op, _TWIN, run_twins.RunTwin(step, kind_id, _run_step), (), None)
            self._steps.append(step)
        self._steps = _memoize_shape_islands(self._steps)
        self._steps = host_batching.batch_elementwise(
            self._steps, signature, _BATCH, _step_args, _run_step
        )
        self._canonical = lambda t: alias.get(t, t)
        self._learning_runs = run_twins.LEARNING_RUNS

    def run(self, env: dict, ctx: Context):
        if self._constants is None:
            # Every constant output is kept: a later segment or a fetch may read it too.
            self._constants = run_ops(self._constant_ops, {}, REFERENCE, ctx)
        env.update(self._constants)
        _run_steps(self._steps, env, ctx, run_twins.RunTable())
        if self._learning_runs:
            self._learning_runs -= 1
            if not self._learning_runs:
                self._steps = run_twins.settle(self._steps, self._canonical, _TWIN)
        return env


def _step_args(step, env: dict, ctx: Context) -> list:
    """A plain step's input values (variables read now)."""
    op, _, inputs, reads, _ = step
    args = [env[t] for t in inputs]
    for i in reads:
        if isinstance(args[i], VarRef):
            args[i] = ctx.read_var(args[i], op)
    return args


def _run_step(step, env: dict, ctx: Context):
    """Runs one plain step (an op by its kernel)."""
    op, rule, _, _, single = step
    args = _step_args(step, env, ctx)
    if single is not None:
        env[single] = _call(op, rule, args, ctx)
    else:
        _store(op, _call(op, rule, args, ctx), env)


def _run_steps(steps, env: dict, ctx: Context, table=None):
    for op, rule, inputs, reads, single in steps:
        if rule is None:
            _forward_ref(op, env)
            continue
        if rule is _ALIAS:
            for out, twin_out in inputs:
                env[out] = env[twin_out]
            continue
        if rule is _ISLAND:
            inputs.run(env, ctx)
            continue
        if rule is _TWIN:
            inputs.run(env, ctx, table)
            continue
        if rule is _BATCH:
            inputs.run(env, ctx)
            continue
        # _run_step, inlined: this loop runs hundreds of ops a step.
        args = [env[t] for t in inputs]
        for i in reads:
            if isinstance(args[i], VarRef):
                args[i] = ctx.read_var(args[i], op)
        if single is not None:
            env[single] = _call(op, rule, args, ctx)
        else:
            _store(op, _call(op, rule, args, ctx), env)


_ALIAS = object()  # a HostProgram step that copies an identical earlier op's outputs
_ISLAND = object()  # a HostProgram step that runs a _ShapeIsland
_TWIN = object()  # a HostProgram step that runs a run_twins.RunTwin or ImpliedTwin
_BATCH = object()  # a HostProgram step that runs a host_batching.BatchedStep
BATCHABLE = host_batching.ELEMENTWISE_TYPES
# Whether HostPrograms look for run-time twins (lowering/run_twins.py; a switch for
# measuring them).
RUN_TWINS = True


# ---------------------------------------------------------------------------------------------
# Shape islands: the small integer arithmetic around sparse tensors, memoised per value
# ---------------------------------------------------------------------------------------------
# An op whose inputs and outputs are all integer or bool tensors of at most this many
# elements (by their static shapes) is shape arithmetic: a dense_shape sliced, multiplied,
# packed and cast on its way to a SparseReshape.
_ISLAND_MAX_ELEMENTS = 16
# Distinct input values remembered per island (a training loop sees a few batch shapes).
_ISLAND_CACHE_SIZE = 64


def _is_small_int(tensor) -> bool:
    shape = tensor.shape
    if shape.rank is None or not shape.is_fully_defined():
        return False
    dtype = tensor.dtype.base_dtype
    return (dtype.is_integer or dtype.name == "bool") and (
        int(np.prod(shape.as_list(), dtype=np.int64)) <= _ISLAND_MAX_ELEMENTS
    )


class _ShapeIsland:
    """Connected stateless ops on small integer tensors, run as one step: their outputs
    are remembered per value of the island's inputs (a few bytes each), so a step whose
    batch shape repeats skips them. Feature-column graphs hold hundreds of such ops (TF's
    ``safe_embedding_lookup_sparse`` reshapes every column's ids by arithmetic on its
    ``dense_shape``), each costing more in kernel dispatch than in arithmetic."""

    def __init__(self, steps, inputs):
        self.steps = steps
        self.inputs = inputs
        self.outputs = tuple(t for step in steps for t in step[0].outputs)
        self.cache = {}

    def run(self, env, ctx):
        key = []
        for t in self.inputs:
            value = env[t]
            if not isinstance(value, (np.ndarray, np.generic)):
                _run_steps(self.steps, env, ctx)  # e.g. a Python scalar: not memoised
                return
            key.append((value.dtype.str, value.shape, value.tobytes()))
        key = tuple(key)
        values = self.cache.get(key)
        if values is None:
            _run_steps(self.steps, env, ctx)
            values = tuple(env[t] for t in self.outputs)
            for value in values:
                # Shared by later steps, so never to be changed in place; only arrays made
                # here (a kernel may return its input, e.g. a feed the caller owns).
                if isinstance(value, np.ndarray) and value.base is None:
                    if not any(value is env[t] for t in self.inputs):
                        value.flags.writeable = False
            if len(self.cache) >= _ISLAND_CACHE_SIZE:
                self.cache.clear()
            self.cache[key] = values
        env.update(zip(self.outputs, values))


def _memoize_shape_islands(steps):
    """``steps`` with each island of shape arithmetic (see ``_ShapeIsland``) replaced by
    one step at its first op's place. An island whose inputs are not all computed by then
    (one of its ops waits on a later data op) is left as it is."""
    island_of = {}  # step index -> island root index (union-find)

    def root(i):
        while island_of[i] != i:
            island_of[i] = island_of[island_of[i]]
            i = island_of[i]
        return i

    producer = {}
    for i, (op, rule, *_rest) in enumerate(steps):
        for t in op.outputs:
            producer[t] = i
        if rule in (None, _ALIAS):
            continue
        if op.op_def.is_stateful or op.type.startswith("_") or any(input_modes(op)):
            continue
        if not op.inputs or not all(map(_is_small_int, (*op.inputs, *op.outputs))):
            continue
        island_of[i] = i
        for t in op.inputs:
            j = producer.get(t)
            if j is not None and j in island_of:
                island_of[root(j)] = root(i)
    members = {}
    for i in island_of:
        members.setdefault(root(i), []).append(i)
    replaced, first_step = {}, {}
    for indices in members.values():
        indices.sort()
        inside = {t for i in indices for t in steps[i][0].outputs}
        inputs = []
        for i in indices:
            for t in steps[i][0].inputs:
                if t not in inside and t not in inputs:
                    inputs.append(t)
        # Every input must exist when the island runs, at its first op's place. An island
        # of Identity ops only would cost more to look up than to run.
        if any(producer.get(t, -1) > indices[0] for t in inputs) or all(
            steps[i][0].type == "Identity" for i in indices
        ):
            continue
        # Its ops run plainly inside: the island's memo already covers repeated values.
        island = _ShapeIsland([run_twins.plain(steps[i], _TWIN) for i in indices], tuple(inputs))
        first_step[indices[0]] = (None, _ISLAND, island, (), None)
        replaced.update(dict.fromkeys(indices))
    return [
        first_step.get(i, step)
        for i, step in enumerate(steps)
        if i not in replaced or i in first_step
    ]


def _identity_key(op, alias, plain, own):
    """What makes ``op``'s outputs equal to another op's in the same run, or None when
    that cannot be told: stateless, and every input a value (not a variable's ref read
    at run time) coming from the same tensor (its first twin's)."""
    if op.op_def.is_stateful or op.type.startswith("_") or not op.outputs:
        return None
    if not op.inputs and op.type != "Const":
        return None
    if any(input_modes(op)):
        return None
    inputs = []
    for t in op.inputs:
        if t not in plain and (t.op in own or t.dtype.is_ref_dtype):
            return None  # may hold a VarRef: a variable read when its reader runs
        inputs.append(alias.get(t, t))
    kind = signature(op)
    return None if kind is None else kind + (tuple(inputs),)


def signature(op):
    """``(op type, attrs)`` as a hashable key, or None when an attr is not hashable."""
    try:
        attrs = tuple(sorted((name, _frozen(value)) for name, value in op.attrs.items()))
    except TypeError:
        return None
    return (op.type, attrs)


def _frozen(value):
    """A hashable stand-in for an attr value."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    hash(value)
    return (type(value).__name__, value)


def _constant_ops(ops, rules):
    """Ops whose outputs are the same every run: Consts, and stateless ops with numpy
    kernels computed from those only."""
    constant = set()
    for op in ops:
        if op.type == "Const" or (
            op.inputs
            and op.outputs
            and not op.type.startswith("_")  # the planner's region pseudo-ops
            and not op.op_def.is_stateful
            and op.type in REFERENCE
            and rules.get(op.type) is REFERENCE.get(op.type)
            and not _forwards_ref(op)
            and all(t.op in constant for t in op.inputs)
        ):
            constant.add(op)
    return constant
