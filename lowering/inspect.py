"""What a graph lowers to: the host/device split, the jaxpr, StableHLO, XLA's optimised HLO,
its fusions and XLA's cost estimate.

Everything here is abstract: device segments are traced and compiled with
``jax.ShapeDtypeStruct`` arguments, so inspecting a graph allocates no variable or feed
memory and runs nothing. Shapes come from, in order of preference: what the executable was
last traced with (``DeviceFunction.traced_signature``), shapes the caller gives, then the
graph's static shapes with unknown dimensions taken as 1.

Python API::

    report = inspect(graph_or_session, fetches, feed_dict=None, feed_shapes=None)
    report = inspect_executable(run_metadata.executable)
    report = inspect_graph_def_file("model.pbtxt", fetches=["loss"])
    print(report)          # every section
    report.fusion_count, report.cost["flops"], report.stablehlo, ...
"""

from __future__ import annotations

import collections
import dataclasses
import re

import numpy as np

from lowering import compile as compile_lib
from lowering import plan as plan_lib
from lowering import static as static_lib
from tfcompat.framework import dtypes, graph_io
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.tensor import Operation, Tensor


class InspectError(ValueError):
    """A request that cannot be inspected (unknown fetch, bad feed shape)."""


# ---------------------------------------------------------------------------------------------
# Report structures
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass
class GraphSummary:
    """Node count and op types with their counts, most common first."""

    node_count: int
    op_counts: dict

    def __str__(self):
        width = max((len(t) for t in self.op_counts), default=0)
        lines = [f"{self.node_count} nodes, {len(self.op_counts)} op types"]
        lines += [f"  {t:<{width}}  {n}" for t, n in self.op_counts.items()]
        return "\n".join(lines)


@dataclasses.dataclass
class SegmentSummary:
    """One plan segment: where it runs and which ops (``(name, type)``) it holds."""

    kind: str  # "host" or "device"
    ops: list
    inputs: list  # tensor names read from feeds or earlier segments
    outputs: list  # tensor names later segments or fetches need

    def __str__(self):
        ops = ", ".join(f"{name} ({op_type})" for name, op_type in self.ops)
        return f"{self.kind} segment, {len(self.ops)} ops: {ops}"


@dataclasses.dataclass
class DeviceLowering:
    """One device segment lowered through JAX and compiled by XLA."""

    state: dict  # variable name -> jax.ShapeDtypeStruct
    inputs: list  # (tensor name, jax.ShapeDtypeStruct)
    jaxpr: str
    stablehlo: str
    optimized_hlo: str  # XLA's text, less its source-location tables
    fusion_count: int
    cost: dict  # "flops", "bytes_accessed", "transcendentals" (what XLA reports)


@dataclasses.dataclass
class Report:
    """Everything ``inspect`` found. ``jaxpr``, ``stablehlo``, ``optimized_hlo``,
    ``fusion_count`` and ``cost`` combine all device segments (normally exactly one)."""

    graph_summary: GraphSummary
    segments: list  # SegmentSummary, in execution order
    feeds: dict  # fed tensor name -> jax.ShapeDtypeStruct used for lowering
    lowerings: list  # DeviceLowering per device segment
    notes: list = dataclasses.field(default_factory=list)

    @property
    def host_ops(self) -> list:
        return [op for s in self.segments if s.kind == "host" for op in s.ops]

    @property
    def jaxpr(self) -> str:
        return "\n\n".join(lw.jaxpr for lw in self.lowerings)

    @property
    def stablehlo(self) -> str:
        return "\n\n".join(lw.stablehlo for lw in self.lowerings)

    @property
    def optimized_hlo(self) -> str:
        return "\n\n".join(lw.optimized_hlo for lw in self.lowerings)

    @property
    def fusion_count(self) -> int:
        return sum(lw.fusion_count for lw in self.lowerings)

    @property
    def cost(self) -> dict:
        total = collections.Counter()
        for lw in self.lowerings:
            total.update(lw.cost)
        return dict(total)

    def __str__(self):
        out = [_section("Graph", str(self.graph_summary)), _section("Plan", self._plan_text())]
        for i, lw in enumerate(self.lowerings):
            tag = f" (device segment {i})" if len(self.lowerings) > 1 else ""
            out.append(_section("Jaxpr" + tag, lw.jaxpr))
            out.append(_section("StableHLO" + tag, lw.stablehlo))
            out.append(_section("Optimized HLO" + tag, lw.optimized_hlo))
        out.append(_section("XLA summary", self._xla_text()))
        return "\n\n".join(out) + "\n"

    def _plan_text(self):
        lines = [f"feed {name}: {_spec_text(spec)}" for name, spec in self.feeds.items()]
        lines += [f"segment {i}: {s}" for i, s in enumerate(self.segments)]
        host = self.host_ops
        lines.append("host ops: " + (", ".join(f"{n} ({t})" for n, t in host) if host else "none"))
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def _xla_text(self):
        cost = self.cost
        lines = [f"device segments: {len(self.lowerings)}", f"fusions: {self.fusion_count}"]
        lines += [f"{key.replace('_', ' ')}: {cost[key]:g}" for key in _COST_KEYS if key in cost]
        return "\n".join(lines)


def _section(title, body):
    return f"== {title} ==\n{body.rstrip()}"


def _spec_text(spec):
    return f"{np.dtype(spec.dtype).name}[{','.join(str(d) for d in spec.shape)}]"


# ---------------------------------------------------------------------------------------------
# XLA text helpers
# ---------------------------------------------------------------------------------------------
# A fusion instruction in HLO text: ``%name = <shape> fusion(...), kind=kLoop, calls=...``.
_FUSION_INSTRUCTION = re.compile(r"=.*?\bfusion\(.*\bkind=k\w+")

# XLA cost_analysis() key -> our key.
_COST_KEYS = {
    "flops": "flops",
    "bytes_accessed": "bytes accessed",
    "transcendentals": "transcendentals",
}


# Debug tables XLA prints between the module header and the computations (source files and
# stack frames of every instruction's metadata): long, and not about the program.
_DEBUG_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")


def strip_debug_tables(hlo_text: str) -> str:
    """HLO text without the source-location tables; instructions are unchanged."""
    kept, skipping = [], False
    for line in hlo_text.splitlines():
        if line in _DEBUG_TABLES:
            skipping = True
        elif skipping and not line.strip():
            skipping = False
        elif not skipping and (line.strip() or (kept and kept[-1].strip())):
            kept.append(line)
    return "\n".join(kept) + "\n"


def count_fusions(optimized_hlo: str) -> int:
    """The number of fusion instructions in XLA's optimised HLO text."""
    return sum(1 for line in optimized_hlo.splitlines() if _FUSION_INSTRUCTION.search(line))


def cost_summary(compiled) -> dict:
    """flops, bytes accessed and transcendentals from ``compiled.cost_analysis()``; empty
    where the backend gives no estimate."""
    analysis = compiled.cost_analysis()
    if isinstance(analysis, (list, tuple)):  # older jax: one dict per partition
        analysis = analysis[0] if analysis else None
    if not analysis:
        return {}
    return {ours: float(analysis[xla]) for ours, xla in _COST_KEYS.items() if xla in analysis}


# ---------------------------------------------------------------------------------------------
# Abstract values
# ---------------------------------------------------------------------------------------------
def _jax():
    import jax

    return jax


def _concrete_dims(shape, notes, what):
    """A static TensorShape as a tuple of ints, unknown dimensions taken as 1."""
    if shape.rank is None:
        notes.append(f"{what} has unknown rank; lowered as a scalar")
        return ()
    dims = shape.as_list()
    if any(d is None for d in dims):
        notes.append(f"{what} has unknown dimensions; taken as 1")
    return tuple(1 if d is None else int(d) for d in dims)


def _struct(shape, dtype):
    """A ShapeDtypeStruct, or None for strings (host-only values that never reach XLA)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype == dtypes.string:
        return None
    return _jax().ShapeDtypeStruct(tuple(shape), dtype.as_numpy_dtype)


def _static_struct(tensor, notes):
    return _struct(_concrete_dims(tensor.shape, notes, f"tensor {tensor.name}"), tensor.dtype)


def _variable_structs(ops, notes, known=None):
    """Abstract state for the variables ``ops`` touch: ``known`` (name -> array or struct)
    where given, else the VariableV2 op's shape and dtype attrs."""
    known = known or {}
    state = {}
    for op in ops:
        if op.type not in plan_lib.VARIABLE_OP_TYPES:
            continue
        name = plan_lib.var_name(op)
        if name in known:
            value = known[name]
            state[name] = _jax().ShapeDtypeStruct(np.shape(value), value.dtype)
        else:
            dims = _concrete_dims(op.attrs["shape"], notes, f"variable {name}")
            state[name] = _struct(dims, op.attrs["dtype"])
    return state


# ---------------------------------------------------------------------------------------------
# Lowering one device segment
# ---------------------------------------------------------------------------------------------
def lower_device_segment(segment, state: dict, inputs: list, static_key=()) -> DeviceLowering:
    """Traces, lowers and compiles ``segment`` for abstract ``state`` and ``inputs``
    (``static_key``: the compile-time inputs an executable's step was specialised on,
    ``DeviceFunction.traced_static_key``).

    Uses a fresh ``jax.jit`` of the segment's pure function (with the Session's donation), so
    an executable's own jit cache and compile counter are left alone.
    """
    jax = _jax()
    fn = compile_lib.DeviceFunction(segment).pure_function()
    fn.__name__ = "device_segment"
    seed = jax.ShapeDtypeStruct((), np.uint32)
    args = (state, inputs, seed, seed, static_key)
    jaxpr = jax.make_jaxpr(fn, static_argnums=(4,))(*args)
    options = compile_lib.compiler_options(segment)
    lowered = jax.jit(fn, donate_argnums=(0,), static_argnums=(4,), compiler_options=options).lower(
        *args
    )
    compiled = lowered.compile()
    optimized = strip_debug_tables(compiled.as_text())
    return DeviceLowering(
        state=dict(state),
        inputs=[(t.name, s) for t, s in zip(segment.inputs, inputs)],
        jaxpr=str(jaxpr),
        stablehlo=lowered.as_text(),
        optimized_hlo=optimized,
        fusion_count=count_fusions(optimized),
        cost=cost_summary(compiled),
    )


def _segment_outputs(segment, state, inputs, static_key=()):
    """Abstract values of a device segment's outputs (by tracing, without compiling)."""
    jax = _jax()
    fn = compile_lib.DeviceFunction(segment).pure_function()
    seed = jax.ShapeDtypeStruct((), np.uint32)
    outputs, _ = jax.eval_shape(
        lambda s, i, c, e: fn(s, i, c, e, static_key), state, inputs, seed, seed
    )
    return dict(zip(segment.outputs, outputs))


def _lower_plan(plan, feeds: dict, notes, known_state=None, signatures=None, values=None):
    """Lowers every device segment of ``plan``. ``feeds`` maps fed Tensors to structs;
    ``signatures`` (segment id -> (state, inputs, static key)) overrides shapes with
    recorded ones; ``values`` (fed Tensor -> array) are what a segment that needs fed
    values at compile time is specialised on, as a Session's step is."""
    signatures = signatures or {}
    env = dict(feeds)
    lowerings = []
    for segment in plan.segments:
        if segment.kind == "host":
            env.update((t, _static_struct(t, notes)) for t in segment.outputs)
            continue
        static_key = ()
        if id(segment) in signatures:
            state, inputs, static_key = signatures[id(segment)]
        else:
            state = _variable_structs(segment.ops, notes, known_state)
            inputs = [env[t] if t in env else _static_struct(t, notes) for t in segment.inputs]
        try:
            lowering = lower_device_segment(segment, state, inputs, static_key)
        except Exception as error:
            specialised = _specialised(segment, inputs, values or {}, error)
            if specialised is None:
                raise
            inputs, static_key = specialised
            notes.append(
                "specialised on fed values: "
                + ", ".join(segment.inputs[i].name for i in static_key[0])
            )
            lowering = lower_device_segment(segment, state, inputs, static_key)
        lowerings.append(lowering)
        env.update(_segment_outputs(segment, state, inputs, static_key))
    return lowerings


def _specialised(segment, inputs, values, error):
    """``(inputs, static key)`` with the segment's fed small integer and boolean inputs as
    compile-time values, when tracing failed for want of one and some are fed; else None."""
    if not compile_lib.needs_static_value(error):
        return None
    fed = [values.get(t) for t in segment.inputs]
    positions = tuple(
        i
        for i in static_lib.static_feed_positions([np.zeros(0) if v is None else v for v in fed])
        if fed[i] is not None
    )
    if not positions:
        return None
    inputs = list(inputs)
    for i in positions:
        inputs[i] = None
    return inputs, (positions, static_lib.freeze([fed[i] for i in positions]))


def _segment_summaries(plan):
    return [
        SegmentSummary(
            kind=s.kind,
            ops=[(op.name, op.type) for op in s.ops],
            inputs=[t.name for t in s.inputs],
            outputs=[t.name for t in s.outputs],
        )
        for s in plan.segments
    ]


# ---------------------------------------------------------------------------------------------
# Graphs
# ---------------------------------------------------------------------------------------------
def summarize_graph(graph_or_graph_def) -> GraphSummary:
    """Node count and op-type counts of a Graph, a GraphDef or a list of Operations."""
    if hasattr(graph_or_graph_def, "node"):
        types = [node.op for node in graph_or_graph_def.node]
    elif isinstance(graph_or_graph_def, graph_lib.Graph):
        types = [op.type for op in graph_or_graph_def.get_operations()]
    else:
        types = [op.type for op in graph_or_graph_def]
    counts = collections.Counter(types)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return GraphSummary(node_count=len(types), op_counts=dict(ordered))


def sink_operations(graph) -> list:
    """Operations whose outputs no op reads and that no op depends on: a graph's results."""
    ops = graph.get_operations()
    used = {t.op for op in ops for t in op.inputs}
    used.update(c for op in ops for c in op.control_inputs)
    return [op for op in ops if op not in used]


def graph_from_graph_def(graph_def) -> graph_lib.Graph:
    """A new Graph holding ``graph_def``'s nodes under their own names."""
    graph = graph_lib.Graph()
    with graph.as_default():
        graph_io.import_graph_def(graph_def, name="")
    return graph


def _resolve_fetches(graph, fetches):
    """(Tensors, target Operations). An op name or Operation with outputs means its outputs
    (inspecting an op's value, not just running it); ops without outputs are targets."""
    if fetches is None:
        fetches = sink_operations(graph)
    elif isinstance(fetches, (str, Tensor, Operation)):
        fetches = [fetches]
    tensors, targets = [], []
    for fetch in fetches:
        try:
            element = graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
        except (KeyError, ValueError, TypeError) as e:
            detail = e.args[0] if e.args else e
            raise InspectError(f"Fetch {_name_of(fetch)!r} is not in the graph: {detail}") from None
        if isinstance(element, Operation):
            if element.outputs:
                tensors.extend(t for t in element.outputs if t not in tensors)
            elif element not in targets:
                targets.append(element)
        elif element not in tensors:
            tensors.append(element)
    return tuple(tensors), tuple(targets)


def _name_of(fetch):
    return fetch if isinstance(fetch, str) else getattr(fetch, "name", repr(fetch))


def _parse_feed_key(graph, key):
    """A feed key (Tensor, ``"x"`` or ``"x:0"``) as a Tensor."""
    try:
        element = graph.as_graph_element(key, allow_tensor=True, allow_operation=True)
    except (KeyError, ValueError, TypeError) as e:
        detail = e.args[0] if e.args else e
        raise InspectError(f"Feed {_name_of(key)!r} is not in the graph: {detail}") from None
    if isinstance(element, Operation):
        if not element.outputs:
            raise InspectError(f"Feed {element.name!r} is an operation without outputs")
        element = element.outputs[0]
    return element


def _feed_items(feed_dict):
    """``feed_dict``'s (key, value) pairs with composite keys (a SparseTensor fed a
    SparseTensorValue) split into their component tensors, as ``Session.run`` splits them."""
    from tfcompat.client.session import _FEED_HANDLERS

    for key, value in (feed_dict or {}).items():
        handler = next((h for t, h in _FEED_HANDLERS.items() if isinstance(key, t)), None)
        if handler is None:
            yield key, value
        else:
            yield from handler(key, value)


def _abstract_feeds(graph, fetches, targets, feed_dict, feed_shapes, notes):
    """Fed Tensor -> struct: the shapes of ``feed_dict`` values (the dtype is the tensor's:
    Session.run converts feeds to it) and ``feed_shapes`` (shape tuples), then every other
    Placeholder the fetches need, at its static shape."""
    feeds = {}
    shapes = [(key, np.shape(value)) for key, value in _feed_items(feed_dict)]
    shapes += list((feed_shapes or {}).items())
    for key, shape in shapes:
        tensor = _parse_feed_key(graph, key)
        if not tensor.shape.is_compatible_with(shape):
            raise InspectError(
                f"Feed shape {list(shape)} for {tensor.name} is not compatible with its "
                f"static shape {tensor.shape}"
            )
        feeds[tensor] = _struct(shape, tensor.dtype)
    for op in plan_lib.prune(fetches, targets, set(feeds)):
        if op.type == "Placeholder" and op.outputs[0] not in feeds:
            tensor = op.outputs[0]
            dims = _concrete_dims(op.attrs["shape"], notes, f"placeholder {op.name}")
            feeds[tensor] = _struct(dims, tensor.dtype)
    return feeds


def inspect(graph_or_session, fetches=None, feed_dict=None, feed_shapes=None) -> Report:
    """Lowers what running ``fetches`` would run and reports on every stage.

    ``graph_or_session``: a Graph, a GraphDef or a Session (whose initialised variables give
    the state shapes). ``fetches``: names, Tensors or Operations; default: the graph's sink
    ops. ``feed_dict``: Tensor or name -> value (its shape; and its value where the step
    needs a fed small integer or boolean at compile time, such as the predicate of a cond
    whose branches differ in shape: the step is specialised on it as a Session's is);
    ``feed_shapes``: name -> shape tuple. Placeholders not fed take their static shape with
    unknown dimensions as 1. Variables take their declared shapes (zero memory: abstract).
    """
    known_state, session = None, None
    if hasattr(graph_or_session, "node"):  # a GraphDef
        graph = graph_from_graph_def(graph_or_session)
    elif isinstance(graph_or_session, graph_lib.Graph):
        graph = graph_or_session
    else:
        session = graph_or_session
        graph = session.graph
        known_state = getattr(session, "_state", None)
    notes = []
    tensors, targets = _resolve_fetches(graph, fetches)
    if not tensors and not targets:
        raise InspectError("Nothing to inspect: the graph has no operations")
    feeds = _abstract_feeds(graph, tensors, targets, feed_dict, feed_shapes, notes)
    executable = _session_executable(session, tensors, targets, feeds)
    if executable is not None:
        # The step as the Session compiled it last: its shapes and its compile-time
        # values (some, such as a sparse lookup's row count, exist only once it ran).
        report = inspect_executable(executable)
        report.notes.insert(0, "lowered as the Session's last run of these fetches ran it")
        return report
    plan = plan_lib.build_plan(
        tensors, targets, tuple(feeds), frozenset(compile_lib.RANDOM_OP_TYPES)
    )
    values = {}  # fed Tensor -> its value, as Session.run converts it
    for key, value in _feed_items(feed_dict):
        tensor = _parse_feed_key(graph, key)
        values[tensor] = np.asarray(value, tensor.dtype.as_numpy_dtype)
    try:
        lowerings = _lower_plan(plan, feeds, notes, known_state, values=values)
    except Exception as e:
        if not compile_lib.needs_static_value(e):
            raise
        raise InspectError(
            f"{str(e).splitlines()[0]}: the step needs values that exist only when it runs. "
            "Run it once in a Session and inspect that Session (or its "
            "RunMetadata.executable)."
        ) from e
    return Report(
        graph_summary=summarize_graph(graph),
        segments=_segment_summaries(plan),
        feeds={t.name: s for t, s in feeds.items() if s is not None},
        lowerings=lowerings,
        notes=_unique(notes),
    )


def _session_executable(session, tensors, targets, feeds):
    """The executable ``session`` built for exactly these fetches, targets and feeds, once
    it has run (its device segments traced); else None."""
    if session is None:
        return None
    for executable in getattr(session, "_executables", {}).values():
        plan = executable.plan
        if (
            set(plan.fetches) == set(tensors)
            and set(plan.targets) == set(targets)
            and set(plan.feeds) == set(feeds)
            and all(
                (f := executable.device_functions.get(id(s))) is not None
                and f.traced_signature is not None
                for s in plan.device_segments
            )
        ):
            return executable
    return None


def inspect_executable(executable, feed_shapes=None) -> Report:
    """Reports on an executable a Session built (``RunMetadata.executable``).

    Device segments are lowered with the shapes they were last traced with; a segment never
    run is lowered with ``feed_shapes`` (Tensor name -> shape) or static shapes.
    """
    plan = executable.plan
    notes = []
    signatures = {}
    for segment in plan.device_segments:
        function = executable.device_functions.get(id(segment))
        if function is not None and function.traced_signature is not None:
            signatures[id(segment)] = (*function.traced_signature, function.traced_static_key)
    feeds = {}
    for tensor in plan.feeds:
        shape = _shape_for(feed_shapes or {}, tensor)
        feeds[tensor] = (
            _static_struct(tensor, notes) if shape is None else _struct(shape, tensor.dtype)
        )
    lowerings = _lower_plan(plan, feeds, notes, signatures=signatures)
    return Report(
        graph_summary=summarize_graph(plan.ops),
        segments=_segment_summaries(plan),
        feeds={t.name: s for t, s in feeds.items() if s is not None},
        lowerings=lowerings,
        notes=_unique(notes),
    )


def _shape_for(feed_shapes, tensor):
    """``feed_shapes[tensor name]``, or by op name for an op's first output."""
    if tensor.name in feed_shapes:
        return feed_shapes[tensor.name]
    if tensor.value_index == 0:
        return feed_shapes.get(tensor.op.name)
    return None


def inspect_graph_def_file(path, fetches=None, feed_shapes=None) -> Report:
    """``inspect`` of a GraphDef file (binary ``.pb`` or text ``.pbtxt``)."""
    return inspect(graph_io.read_graph_def(path), fetches, feed_shapes=feed_shapes)


def _unique(items):
    return list(dict.fromkeys(items))
