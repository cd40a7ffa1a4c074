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

    def __init__(self, state, backend, rng_key=None, feeds=None):
        self.state = state
        self.backend = backend
        self.rng_key = rng_key
        self.feeds = feeds or {}

    def read_var(self, ref: VarRef, reader=None):
        """The variable's current value; ``reader`` (the op reading it) names the node in
        TF's FailedPreconditionError when the variable is uninitialized."""
        try:
            return self.state[ref.name]
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


def _store(op, result, env):
    outputs = op.outputs
    if len(outputs) == 1:
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
    hashing and id bookkeeping for a shared column.
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
            self._steps.append((op, rule, tuple(op.inputs), reads, single))

    def run(self, env: dict, ctx: Context):
        if self._constants is None:
            # Every constant output is kept: a later segment or a fetch may read it too.
            self._constants = run_ops(self._constant_ops, {}, REFERENCE, ctx)
        env.update(self._constants)
        for op, rule, inputs, reads, single in self._steps:
            if rule is None:
                _forward_ref(op, env)
                continue
            if rule is _ALIAS:
                for out, twin_out in inputs:
                    env[out] = env[twin_out]
                continue
            args = [env[t] for t in inputs]
            for i in reads:
                if isinstance(args[i], VarRef):
                    args[i] = ctx.read_var(args[i], op)
            if single is not None:
                env[single] = _call(op, rule, args, ctx)
            else:
                _store(op, _call(op, rule, args, ctx), env)
        return env


_ALIAS = object()  # a HostProgram step that copies an identical earlier op's outputs


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
    try:
        attrs = tuple(sorted((name, _frozen(value)) for name, value in op.attrs.items()))
    except TypeError:
        return None
    return (op.type, attrs, tuple(inputs))


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
