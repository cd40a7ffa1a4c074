"""Build the executable for one Session.run signature: host segments in numpy around jitted
device segments (normally exactly one).

A device segment is a pure function ``(state, inputs, run_counter) -> (outputs, state')``,
jitted once with ``state`` donated, so variable updates happen in place and a training
step's forward pass, gradients and optimizer updates are one XLA executable. ``jax.jit``
keys its compiled versions by input shapes and dtypes, which is what makes the executable
cache per feed signature. Host segments run the numpy reference kernels of host ops.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from lowering import buckets, interpreter, regions, step_trace, transfer
from lowering import plan as plan_lib
from lowering import static as static_lib
from lowering.registry import LOOPING_LOWERINGS, LOWERINGS, REFERENCE, STEP_PREPARERS

# Op types whose rules draw randomness (filled by lowering/random.py).
RANDOM_OP_TYPES: set = set()


class RunSeed(NamedTuple):
    """``ctx.rng_key`` of every run: what random ops derive their keys from (see
    ``lowering/random.py``). ``entropy`` is drawn once per Session, so unseeded ops differ
    between Sessions; ``counter`` is the Session's run counter, so each run draws new
    values. Traced uint32 scalars under jit (no recompilation per Session), ints in the
    reference backend."""

    entropy: object
    counter: object


# XLA:CPU options of every device step. jaxlib 0.10.2 hands convolutions to YNNPACK, which
# runs each one on a single core; without INDIVIDUAL_CONVOLUTION in this list they go to
# XLA's Eigen convolution, which uses the intra-op thread pool (the LeNet bench's second
# layer on 2 cores: forward 9.3 -> 4.8 ms, input gradient 9.4 -> 5.5 ms, filter gradient
# 9.4 -> 7.4 ms; ``bench/conv_lowering.py``). Dots and reductions stay with YNNPACK, as by
# default (without REDUCE the MLP inference bench at batch 1024 lost 15%: 152 -> 129 steps/s).
CPU_COMPILER_OPTIONS = {
    "xla_cpu_experimental_ynn_fusion_type": (
        "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE"
    ),
}

# Added for device steps without loops. Region-based copy insertion lets an optimizer
# update write a donated variable's buffer in place after the backward pass has read the old
# value; without it XLA:CPU copies every such weight each step (MLP + Adam: 3.1 -> 2.8 ms a
# step). It gives wrong values for nested while loops (jaxlib 0.10.2; the nested-loop tests
# in tests/control_flow catch it; so does jax.scipy.linalg.sqrtm's loop nest), so steps
# holding a loop, a graph's or one inside an op's lowering, keep XLA's default analysis.
LOOP_FREE_COMPILER_OPTIONS = {
    **CPU_COMPILER_OPTIONS,
    "xla_cpu_copy_insertion_use_region_analysis": True,
}


def compiler_options(segment: plan_lib.Segment):
    """The XLA options a device segment is compiled with (also by ``lowering.inspect``):
    on the CPU backend, ``CPU_COMPILER_OPTIONS``, and ``LOOP_FREE_COMPILER_OPTIONS`` for a
    step without loops; XLA's defaults on other backends."""
    if _jax().default_backend() != "cpu":
        return None
    has_loop = any(
        op.type == regions.REGION_OP_TYPES["while"] or op.type in LOOPING_LOWERINGS
        for op in segment.ops
    )
    return CPU_COMPILER_OPTIONS if has_loop else LOOP_FREE_COMPILER_OPTIONS


# Called with each new Executable; lets tools (``tfcompat run``) see what a program lowered
# without a registry of Sessions.
EXECUTABLE_OBSERVERS: list = []


def _jax():
    import jax

    return jax


def needs_static_value(error) -> bool:
    """Whether tracing failed because a run-time value was needed at compile time."""
    jax = _jax()
    concrete = (
        jax.errors.ConcretizationTypeError,
        jax.errors.TracerIntegerConversionError,
        jax.errors.TracerArrayConversionError,
        jax.errors.TracerBoolConversionError,
    )
    while error is not None:
        if isinstance(error, (static_lib.StaticValueRequired, *concrete)):
            return True
        error = error.__cause__
    return False


def _prints(ops) -> bool:
    """Whether ``ops`` (or the members of a cond or loop among them) hold a ``Print``."""
    return any(op.type == "Print" or _prints(getattr(op, "members", ())) for op in ops)


class DeviceFunction:
    """One device segment as a jitted function; counts its compilations."""

    def __init__(self, segment: plan_lib.Segment):
        self.segment = segment
        self.compile_count = 0
        # (state, inputs) shapes/dtypes of the latest trace, and its compile-time inputs
        # (the static key): what ``lowering.inspect`` lowers an executable's step with.
        self.traced_signature = None
        self.traced_static_key = ()
        # Control flow (lowering/regions.py): the size of gradient stacks, the ops behind
        # the check flags a step reports, and the compile-time sizes of dynamic
        # TensorArrays (per Size op; None once seen to vary within a step).
        self.stack_bucket = regions.INITIAL_STACK_BUCKET
        self.report_ops = {}
        self.array_sizes = {}
        # Inputs specialised on as compile-time constants (see lowering/static.py).
        self.static_positions = ()
        # Sparse inputs padded to size buckets, host-computed sizes (lowering/buckets.py).
        self.buckets = buckets.SegmentBuckets(segment)
        # Whether a trace has looked for all compile-time values at once (see
        # _explore_static_needs); later ones are found one retrace each.
        self.explored = False
        # Whether the step prints (tf.Print: lowering/logging.py).
        self.prints = _prints(segment.ops)
        self.rejit()

    def rejit(self):
        """A fresh jit of the step (also after a setting that changes tracing, such as a
        larger gradient-stack bucket): state donated, the static-input key and the layout
        of the packed host inputs static."""
        self.jitted = _jax().jit(
            self._traced,
            donate_argnums=(0,),
            static_argnums=(2, 4),
            compiler_options=compiler_options(self.segment),
        )

    def pure_function(self):
        """``(state, inputs, counter) -> (outputs, state')``, unjitted."""
        segment = self.segment

        def fn(state, inputs, counter, entropy=0, static_key=()):
            if static_key:
                positions, frozen = static_key
                inputs = list(inputs)
                for pos, value in zip(positions, static_lib.thaw(frozen)):
                    inputs[pos] = value
            ctx = interpreter.Context(dict(state), "xla", RunSeed(entropy, counter))
            inputs = self.buckets.unpack(ctx, inputs)
            ctx.stack_bucket, ctx.report_ops = self.stack_bucket, self.report_ops
            ctx.array_sizes = self.array_sizes
            env = dict(zip(segment.inputs, inputs))
            for prepare in STEP_PREPARERS:
                prepare(segment.ops, ctx)
            interpreter.run_ops(segment.ops, env, LOWERINGS, ctx)
            outputs = []
            for t in segment.outputs:
                value = env[t]
                if isinstance(value, interpreter.VarRef):
                    value = ctx.read_var(value)
                outputs.append(value)
            return outputs, regions.end_step(ctx, state)

        return fn

    def _traced(self, state, args, static_key, buffer, layout):
        """``args``: (inputs, counter, entropy), as ``transfer.pack`` left them."""
        self.compile_count += 1  # Python runs this only while jax traces
        if layout is not None:
            args = transfer.unpack(_jax(), args, buffer, layout)
        inputs, counter, entropy = args
        self.traced_static_key = static_key
        self.traced_signature = _jax().tree.map(
            lambda x: _jax().ShapeDtypeStruct(x.shape, x.dtype), (state, inputs)
        )
        return self.pure_function()(state, inputs, counter, entropy, static_key)

    def _sources(self, tensor, inputs) -> set:
        """The small integer inputs ``tensor`` is computed from (all of them for None)."""
        candidates = set(static_lib.static_feed_positions(inputs))
        if tensor is not None:
            candidates &= static_lib.source_positions(self.segment, tensor)
        return candidates

    def _static_positions_after(self, error, inputs) -> tuple:
        """The static input positions to retrace with after ``error``, or () to raise it:
        those already static plus the small integer inputs the needed value is computed
        from (all of them when the error does not name the value)."""
        if not needs_static_value(error):
            return ()
        candidates = self._sources(static_lib.required_tensor(error), inputs)
        if candidates <= set(self.static_positions):
            return ()
        return tuple(sorted(candidates | set(self.static_positions)))

    def _explore_static_needs(
        self, touched, call_inputs, counter, entropy, static_key, exact, state
    ):
        """Every tensor the step needs at compile time, from one trace (``jax.eval_shape``,
        nothing compiled) in which those values come from the host: numpy kernels on this
        call's exact inputs (``static.collecting``). A feature-column step has one such
        value per column (each ``Reshape`` of a column's ids by its ``dense_shape``):
        retracing once for all of them instead of once each took the wide & deep step's
        first run from ~5 s to ~2 s. Stops early, with what it found, at anything the host
        cannot compute."""
        jax = _jax()
        host = buckets.host_values(self.segment, exact, state)
        with static_lib.collecting(host.get) as found:
            try:
                jax.eval_shape(
                    self.pure_function(),
                    touched,
                    call_inputs,
                    np.uint32(counter),
                    np.uint32(entropy),
                    static_key,
                )
            except Exception:
                pass
        return found

    def __call__(self, state: dict, env: dict, counter: int, entropy: int = 0):
        segment = self.segment
        touched = {name: state[name] for name in segment.variables if name in state}
        exact = [env[t] for t in segment.inputs]
        inputs = self.buckets.pack(exact, state)
        # String inputs (the constant messages of device-side asserts) are always static.
        strings = tuple(
            i for i, v in enumerate(inputs) if isinstance(v, np.ndarray) and v.dtype == object
        )
        while True:
            static_key, call_inputs = (), inputs
            positions = tuple(sorted(set(self.static_positions) | set(strings)))
            if positions:
                frozen = static_lib.freeze([inputs[i] for i in positions])
                static_key = (positions, frozen)
                call_inputs = list(inputs)
                for i in positions:
                    call_inputs[i] = None
            # The small host inputs and the run seed cross in one transfer.
            args = (call_inputs, np.array(counter, np.uint32), np.array(entropy, np.uint32))
            leaves, buffer, layout = transfer.pack(_jax(), args)
            try:
                outputs, new_state = self.jitted(touched, leaves, static_key, buffer, layout)
            except Exception as e:
                # A fed value XLA needs at compile time: retrace with the small integer
                # inputs it comes from as constants (then per distinct value, by jit's
                # cache); stop when no new input can be made static.
                positions = self._static_positions_after(e, inputs)
                if not positions:
                    raise
                if not self.explored:
                    self.explored = True
                    needed = self._explore_static_needs(
                        touched, call_inputs, counter, entropy, static_key, exact, state
                    )
                    for tensor in needed:
                        positions = tuple(sorted(set(positions) | self._sources(tensor, inputs)))
                self.static_positions = positions
                continue
            report = new_state.pop(regions.REPORT_KEY, None)
            state.update(new_state)
            # A failed check raises here; a full gradient stack reruns the step (its state
            # writes were discarded) with a larger stack.
            if report is None or not regions.check_report(self, report):
                break
            touched = new_state
        if self.prints:
            # Print's host callbacks may still run when the step's outputs are ready; as in
            # TF, its text is out before Session.run returns.
            _jax().effects_barrier()
        env.update(zip(segment.outputs, self.buckets.trim(outputs)))


class Executable:
    """Runs one Plan. ``backend`` is ``"xla"`` (device segments jitted) or ``"reference"``
    (every op by its numpy kernel, eagerly)."""

    def __init__(self, plan: plan_lib.Plan, backend: str, entropy: int = 0):
        self.plan = plan
        self.backend = backend
        self.entropy = entropy  # the Session's, for unseeded random ops
        self.device_functions = {}
        self.host_programs = {}
        if backend == "xla":
            for segment in plan.segments:
                if segment.kind == "device":
                    self.device_functions[id(segment)] = DeviceFunction(segment)
                else:
                    self.host_programs[id(segment)] = interpreter.HostProgram(segment.ops)
        self._var_refs = {
            op.outputs[0]: interpreter.VarRef(plan_lib.var_name(op), op) for op in plan.variable_ops
        }
        self.run_count = 0
        for observer in EXECUTABLE_OBSERVERS:
            observer(self)

    @property
    def compile_count(self) -> int:
        return sum(f.compile_count for f in self.device_functions.values())

    def run(
        self, state: dict, feed_values: dict, counter: int, state_lock=None, step_stats=None
    ) -> dict:
        """Runs the plan; ``state`` (variable name -> value) is updated in place. Returns
        the environment, which maps each fetched Tensor to its value (or VarRef).

        ``state_lock`` (the Session's) makes runs from several threads safe: each device
        step reads, donates and replaces its variables' buffers while holding it, and host
        ops read variables under it; host ops that block (a queue's dequeue) do not hold it.
        ``step_stats`` (a traced run's ``RunMetadata.step_stats``) gets one entry per
        segment run, timed to its completion.
        """
        self.run_count += 1
        env = dict(self._var_refs)
        env.update(feed_values)
        tracer = None if step_stats is None else step_trace.StepTracer(step_stats, self.backend)
        if self.backend == "reference":
            ctx = interpreter.Context(state, "reference", RunSeed(self.entropy, counter))
            for segment in self.plan.segments:
                if tracer:
                    tracer.start()
                interpreter.run_ops(segment.ops, env, REFERENCE, ctx)
                if tracer:
                    tracer.done(segment, env)
            return env
        # Host ops may draw random numbers too (LearnedUnigramCandidateSampler).
        host_ctx = interpreter.Context(
            state, "host", RunSeed(self.entropy, counter), state_lock=state_lock
        )
        for segment in self.plan.segments:
            if tracer:
                tracer.start()
            if segment.kind == "host":
                self.host_programs[id(segment)].run(env, host_ctx)
            elif state_lock is None:
                self.device_functions[id(segment)](state, env, counter, self.entropy)
            else:
                with state_lock:
                    self.device_functions[id(segment)](state, env, counter, self.entropy)
            if tracer:
                tracer.done(segment, env)
        return env
