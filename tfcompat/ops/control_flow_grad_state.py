"""What one ``tf.gradients`` call knows about v1 control flow (TF's ``ControlFlowState``).

**Conds.** The gradient of a ``tf.cond`` is a *mirror* cond (``GradCondRegion``) on the same
predicate: ``Merge``'s gradient switches the incoming gradient on the predicate, the
gradient ops of branch ``b``'s ops live in mirror branch ``b``, and the gradient of a
capture ``Switch`` merges both branches' contributions (zeros from the branch not taken).
The mirror contexts only tell the lowering which ops run under which branch (it contracts
them into one ``lax.cond``). As in TF's graphs, a mirror branch reads outside values
directly (their gradient input, switched on the predicate, is what makes them dead in the
untaken branch under TF's executor), except where TF switches too: a stack popped for a
value of a forward branch is read through a ``Switch`` on the predicate, and so are the
zeros standing in for the untaken branch's gradient in a loop. Ops without inputs, or
reading only loop invariants, depend on the (gradient) loop's pivot, so TF runs them once
per iteration in the loop's frame. Thus our GraphDef runs in TF, and re-imported here its
branches are recovered from the dataflow.

**Loops.** Per forward ``tf.while_loop`` reached through its ``Exit`` ops, a
``LoopGradState`` adds a counter loop variable to the forward loop and builds the gradient
loop (``GradWhileContext``): a counter running the forward trip count down to zero, one
gradient loop variable per forward loop variable, an accumulator per loop invariant. A
forward value a gradient op needs (``real_value``) is pushed on a stack (``StackV2``) in
the forward body each iteration and popped in the gradient body, so the backward loop sees
the iterations in reverse; loop invariants and constants need no stack. The lowering keeps
each stack as a bucketed buffer whose overflow reruns the step with a doubled bucket
(``lowering/stack.py``). Node names inside gradient loops differ from TF's.

**Nested loops.** A loop nested in another loop's body gets its state after the outer
one's (``outer_state``); its gradient loop is built inside the outer gradient loop, so it
runs once per outer backward iteration. Its stacks are pushed once per inner iteration of
every outer iteration: one LIFO history the outer and inner gradient loops pop in exact
reverse. Its trip count differs per outer iteration, so the count leaving the inner loop
is itself saved on a stack of the outer loop (``real_value``) and popped to start the
inner gradient loop's counter. Values of the outer body the inner gradient loop reads
come from the outer loop's history by the same capture chain.

For TF's executor, which may overlap iterations, pushes of one run of a nested loop come
before the next outer iteration's (its counter's start depends on the outer counter), and
the pops of one run of a nested gradient loop before the outer gradient loop moves on (its
final count feeds the outer ``b_sync``), as in TF.

Gradient ops are assigned their context when the gradient function returns
(``building``), like forward ops are by ``adopt``; ops placed elsewhere on purpose (a
stack, an accumulator's zeros) are placed explicitly. Second-order gradients through a
loop raise TF's TypeError, as TF 2.21's v1 loops do.
"""

from __future__ import annotations

import contextlib

from tfcompat.framework import dtypes, errors
from tfcompat.ops import control_flow_contexts as cfc

_STATE_KEY = "gradient_control_flow_state"
ENTER_TYPES = ("Enter", "RefEnter")
EXIT_TYPES = ("Exit", "RefExit")
SWITCH_TYPES = ("Switch", "RefSwitch")


def current(graph):
    """The ``GradientState`` of the ``tf.gradients`` call being built (None outside)."""
    stack = graph._extensions.get(_STATE_KEY)
    return stack[-1] if stack else None


def _chain(ctx):
    """``ctx`` and the contexts enclosing it, innermost first."""
    while ctx is not None:
        yield ctx
        ctx = ctx.region.outer_context


@contextlib.contextmanager
def building(graph, ctx):
    """Ops created in the block belong to ``ctx`` (None: outside all control flow); their
    inputs from outside ``ctx`` are captured as for forward ops."""
    start = len(graph.get_operations())
    with contextlib.ExitStack() as stack:
        if ctx is not None:
            stack.enter_context(cfc.entered(graph, ctx))
        yield
    new_ops = graph.get_operations()[start:]
    if ctx is None:
        for op in new_ops:
            if cfc.context_of(op) is None and getattr(op, "_cf_region", None) is None:
                op._cf_outside = True
    else:
        ctx.adopt(new_ops)


# ---------------------------------------------------------------------------------------------
# Mirror conds
# ---------------------------------------------------------------------------------------------
class GradCondRegion:
    """The gradient of cond ``forward``: branches on ``pred_id`` (the forward predicate,
    or its value popped from a stack inside a gradient loop)."""

    kind = "cond"

    def __init__(self, forward, pred, outer_context, name):
        self.forward = forward
        self.pred_id = pred
        self.outer_context = outer_context
        self.name = name
        self.branches = [GradCondContext(self, 0), GradCondContext(self, 1)]

    @property
    def pred_source(self):
        return self.pred_id

    def __repr__(self):
        return f"<GradCondRegion {self.name}>"


class GradCondContext:
    """Branch ``branch`` of a mirror cond."""

    pivot = None

    def __init__(self, region, branch):
        self.region = region
        self.branch = branch

    @property
    def outer_context(self):
        return self.region.outer_context

    def needs_capture(self, tensor) -> bool:
        """Only a value a gradient loop must bring in (a stack pop, an Enter) is captured;
        other outside values are read directly."""
        op = tensor.op
        if getattr(op, "_cf_region", None) is self.region or cfc.is_inside(op, self):
            return False
        outer = self.outer_context
        return outer is not None and outer.needs_capture(tensor)

    def capture(self, tensor, consumer, scope=None, colocate=True):
        return self.outer_context.capture(tensor, consumer, scope, colocate)

    @property
    def loop(self):
        """The innermost loop enclosing this mirror cond (None outside loops)."""
        return next((c for c in _chain(self.outer_context) if c.region.kind == "while"), None)

    @property
    def control_pivot(self):
        """TF builds a gradient cond's ops in the enclosing (gradient) loop itself: ops
        without inputs or reading only loop invariants depend on that loop's pivot."""
        loop = self.loop
        return loop.control_pivot if loop is not None else None

    def adopt(self, ops, pivot=None):
        pivot = self.control_pivot
        cfc._adopt(self, ops, pivot=pivot, loop_pivot=pivot, owner=self.loop)


# ---------------------------------------------------------------------------------------------
# Gradient loops
# ---------------------------------------------------------------------------------------------
class GradWhileContext(cfc.WhileContext):
    """The backward loop of one forward loop; ``loop_cond`` is its ``LoopCond`` output."""

    def __init__(self, state, forward, outer_context, name):
        super().__init__(
            name,
            outer_context,
            forward.parallel_iterations,
            forward.back_prop,
            forward.swap_memory,
            forward.maximum_iterations,
        )
        self.state = state

    def capture(self, tensor, consumer, scope=None, colocate=True):
        """A forward-loop value comes from its history (``real_value``); anything else
        enters as a loop invariant. TF builds the history while creating ``consumer``,
        inside its name scope, so the stack and its pushes and pops are named after it
        (``gradients/while/mul_grad/Mul_1/f_acc``)."""
        if self.state.in_forward(tensor):
            with tensor.graph.name_scope(consumer.name + "/"):
                return self.state.real_value(tensor, consumer)
        return super().capture(tensor, consumer, scope, colocate)

    def add_backprop_counter(self, count):
        """The loop counter: starts at the forward trip count, stops at zero. Returns the
        counter's ``NextIteration`` (what pops are ordered before)."""
        from tfcompat.framework import constant_op
        from tfcompat.ops import control_flow_ops as cf
        from tfcompat.ops import math_ops

        graph = count.graph
        with graph.control_dependencies(None):
            with building(graph, self.outer_context):
                one = constant_op.constant(1, name="b_count")
            with building(graph, self):
                enter = cf.enter(
                    count, self.name, parallel_iterations=self.parallel_iterations, name="b_count"
                )
                merge = cf.merge([enter, enter])[0]
                self.cond_pivot = merge
                self.loop_cond = cf.loop_cond(math_ops.greater_equal(merge, one), name="b_count")
                false_out, true_out = cf.switch(merge, self.loop_cond)
                self.pivot = math_ops.subtract(true_out, one)  # TF's pivot_for_body
                next_count = cf.next_iteration(self.pivot)
                merge.op._update_input(1, next_count)
                self.count_exit = cf.exit_(false_out, name="b_count")
        return next_count

    def add_backprop_accumulator(self, enter_op, grad):
        """The gradient of loop invariant ``enter_op``: the sum of ``grad`` over all
        iterations, as a loop variable of this loop (zeros when the loop never ran)."""
        from tfcompat.framework import constant_op
        from tfcompat.ops import array_ops, math_ops
        from tfcompat.ops import control_flow_ops as cf

        graph = grad.graph
        with graph.control_dependencies(None):
            with building(graph, self.outer_context):
                if grad.shape.is_fully_defined():
                    acc = constant_op.constant(
                        0, grad.dtype.base_dtype, shape=grad.shape.as_list(), name="b_acc"
                    )
                else:
                    zeros_shape = array_ops.shape_internal(enter_op.inputs[0], optimize=False)
                    acc = array_ops.zeros(zeros_shape, grad.dtype.base_dtype)
            with building(graph, self):
                enter = cf.enter(
                    acc, self.name, parallel_iterations=self.parallel_iterations, name="b_acc"
                )
                merge = cf.merge([enter, enter], name="b_acc")[0]
                false_out, true_out = cf.switch(merge, self.loop_cond)
                next_acc = cf.next_iteration(math_ops.add(true_out, grad))
                merge.op._update_input(1, next_acc)
                result = cf.exit_(false_out, name="b_acc")
        return result


class LoopGradState:
    """One forward loop's gradient bookkeeping in one ``tf.gradients`` call."""

    def __init__(self, owner, forward, outer_state=None):
        self.owner = owner
        self.forward = forward
        self.outer_state = outer_state  # the enclosing forward loop's state (nested loops)
        self.history = {}  # forward tensor -> its value in the gradient loop
        self.switch_map = {}  # forward loop Switch -> the gradient loop's Merge for it
        self.unused_exits = []
        self.deferred_exits = []
        self.forward_exits = [loop[5] for loop in forward.loops]
        self.forward_enters = [loop[0] for loop in forward.loops]
        self.pending_exits_count = len(self.forward_exits)
        self._forward_sync = None
        self._grad_sync = None
        graph = forward.loop_cond.graph
        count, self.forward_index = self._add_forward_counter(graph)
        self.grad = GradWhileContext(
            self,
            forward,
            owner.mirror(forward.outer_context),
            graph.unique_name(forward.name, mark_as_used=True),
        )
        if outer_state is not None:
            # Each outer iteration has its own trip count: saved on a stack of the outer
            # loop, so the outer gradient loop hands each one to this gradient loop.
            count = outer_state.real_value(count)
        self.grad_index = self.grad.add_backprop_counter(count)
        if outer_state is not None:
            # TF's executor may run several outer iterations at once: the pops of one run
            # of this gradient loop finish before the outer gradient loop moves on.
            outer_state.grad_sync()._add_control_input(self.grad.count_exit.op)

    def _add_forward_counter(self, graph):
        """A loop variable counting the forward iterations: (its Exit, its NextIteration)."""
        from tfcompat.framework import constant_op
        from tfcompat.ops import control_flow_ops as cf
        from tfcompat.ops import math_ops

        loop = self.forward
        with graph.control_dependencies(None):
            with building(graph, loop.outer_context):
                zero = constant_op.constant(0, name="f_count")
            if self.outer_state is not None:
                # The pushes of one run of this loop come before those of the next outer
                # iteration's run (TF's executor may overlap outer iterations).
                zero.op._add_control_input(self.outer_state.forward_index.op.inputs[0].op)
            with building(graph, loop):
                enter = cf.enter(
                    zero, loop.name, parallel_iterations=loop.parallel_iterations, name="f_count"
                )
                merge = cf.merge([enter, enter])[0]
                false_out, true_out = cf.switch(merge, loop.loop_cond)
                next_count = cf.next_iteration(math_ops.add(true_out, 1))
                merge.op._update_input(1, next_count)
                total = cf.exit_(false_out, name="f_count")
        self.forward_enters.append(enter)
        loop.loop_enters.append(enter)
        loop.loop_exits.append(total)
        loop.named_values.append(zero)
        return total, next_count

    def in_forward(self, tensor) -> bool:
        return self.forward in _chain(cfc.output_context(tensor.op))

    def _sync(self, attr, ctx, name, anchor):
        """A ``ControlTrigger`` in ``ctx`` ordered before ``anchor`` (made once)."""
        from tfcompat.framework.op_helper import apply_op

        sync = getattr(self, attr)
        if sync is None:
            graph = anchor.graph
            with graph.control_dependencies(None):
                sync = apply_op("ControlTrigger", name=name)
            sync._control_flow_context = ctx
            anchor.op._add_control_input(sync)
            setattr(self, attr, sync)
        return sync

    def real_value(self, value, consumer=None):
        """``value`` (a tensor of the forward loop) as the gradient loop sees it in the
        iteration it is running: a loop invariant's outside value, a cloned constant, or
        the forward iteration's value popped from a stack. ``consumer``, the gradient op
        reading it, names the Enter of a loop invariant (else the forward Enter does)."""
        from tfcompat.framework import constant_op, constant_value

        found = self.history.get(value)
        if found is not None:
            return found
        graph = value.graph
        enter = _loop_constant_enter(value, self.forward)
        if enter is not None:
            found = cfc.WhileContext.capture(self.grad, enter.inputs[0], consumer or enter)
        elif value.op.type == "Const":
            with graph.control_dependencies(None), building(graph, self._mirror_of(value)):
                found = constant_op.constant(
                    constant_value.constant_value(value), dtype=value.dtype.base_dtype
                )
        else:
            found = self._pop(self._push(value), value)
        self.history[value] = found
        return found

    def _mirror_of(self, value):
        return self.owner.mirror(cfc.output_context(value.op))

    def _push(self, value):
        """A stack made outside all loops, pushed ``value`` each forward iteration."""
        from tfcompat.framework import constant_op
        from tfcompat.ops import stack_ops

        graph = value.graph
        loop = self.forward
        where = cfc.output_context(value.op)
        with graph.control_dependencies(None):
            with building(graph, None), graph.colocate_with(value.op):
                max_size = constant_op.constant(-1, dtypes.int32)
                acc = stack_ops.stack(max_size, value.dtype.base_dtype, name="f_acc")
            # TF enters the stack after leaving ``value``'s colocation scope.
            handle = loop.capture(acc, acc.op, scope=_current_scope(graph), colocate=False)
            with building(graph, where):
                push = stack_ops.stack_push(handle, value, swap_memory=loop.swap_memory)
        # Pushes run each iteration, before the counter moves on.
        if where is loop:
            self.forward_index.op._add_control_input(push.op)
        else:
            self._sync("_forward_sync", loop, "f_sync", self.forward_index)._add_control_input(
                push.op
            )
        push.op._add_control_input(self.forward_index.op.inputs[0].op)
        return acc

    def _pop(self, acc, value):
        from tfcompat.ops import stack_ops

        graph = value.graph
        acc = self._guard(acc, value)
        with graph.control_dependencies(None), building(graph, self._mirror_of(value)):
            pop = stack_ops.stack_pop(acc, value.dtype.base_dtype)
        pop.set_shape(value.shape)
        if self.grad.parallel_iterations > 1:
            self.grad_sync()._add_control_input(pop.op)
        return pop

    def grad_sync(self):
        """The gradient loop's ``ControlTrigger`` that pops come before (TF's
        ``grad_sync``)."""
        return self._sync("_grad_sync", self.grad, "b_sync", self.grad_index)

    def _guard(self, acc, value):
        """The stack ``acc`` as the pop of ``value`` reads it: a value pushed in a branch
        of a cond in the loop is popped only when the gradient cond takes that branch,
        through a ``Switch`` of the stack on its predicate (TF's dataflow: the pop is dead
        otherwise, and an imported GraphDef tells its branch from the Switch)."""
        from tfcompat.ops import control_flow_ops as cf

        cond = self._cond_of(value)
        if cond is None:
            return acc
        mirror = self.owner.mirror_region(cond.region)
        graph = acc.graph
        with graph.control_dependencies(None), building(graph, mirror.outer_context):
            with graph.colocate_with(acc.op, ignore_existing=True):
                guarded = cf.ref_or_tensor_switch(acc, mirror.pred_id)[cond.branch]
            cfc.mark_region_op(guarded.op, mirror)
            guarded.op._cf_branch = cond.branch
        return guarded

    def _cond_of(self, value):
        """The innermost cond branch of this loop's body that ``value`` is computed in."""
        for ctx in _chain(cfc.output_context(value.op)):
            if ctx is self.forward or ctx.region.kind == "while":
                return None
            return ctx
        return None

    def post_process(self):
        """A gradient loop variable whose forward value did not feed the next iteration
        still needs a back edge: zeros."""
        from tfcompat.framework import constant_op
        from tfcompat.ops import array_ops
        from tfcompat.ops import control_flow_ops as cf

        for merge in self.switch_map.values():
            first, second = merge.op.inputs
            if first is not second:
                continue
            graph = merge.graph
            with graph.control_dependencies(None):
                if first.shape.is_fully_defined():
                    with building(graph, self.grad):
                        zeros = constant_op.constant(
                            0, first.dtype.base_dtype, shape=first.shape.as_list()
                        )
                        back = cf.next_iteration(zeros)
                else:
                    with building(graph, self.grad.outer_context):
                        outer_grad = first.op.inputs[0]
                        zeros = array_ops.zeros(
                            array_ops.shape_internal(outer_grad, optimize=False),
                            outer_grad.dtype.base_dtype,
                        )
                    with building(graph, self.grad):
                        back = cf.next_iteration(zeros)
            merge.op._update_input(1, back)


def _current_scope(graph):
    """The name scope ops are created in now, as a ``name_scope`` argument."""
    scope = graph.get_name_scope()
    return scope + "/" if scope else ""


@contextlib.contextmanager
def _routing_gated_grads(graph, scope):
    """``scope``, in which the ops gating a cond ``Merge``'s gradient (``tf.tuple`` of
    the ``cond_grad`` Switch's outputs, with ``gate_gradients``) are placed in the gradient
    cond: the ``NoOp`` at its level, the ``Identity`` of output ``b`` in branch ``b`` (as
    TF's executor runs them; outside the cond they would both read and feed it)."""
    start = len(graph.get_operations())
    with scope:
        yield
        for op in graph.get_operations()[start:]:
            if cfc.context_of(op) is not None or getattr(op, "_cf_region", None) is not None:
                continue
            if op.type == "NoOp" and not op.inputs:
                mirror = next(filter(None, map(_gradient_cond_of, op.control_inputs)), None)
                if mirror is not None:
                    cfc.mark_region_op(op, mirror)
            elif op.type == "Identity":
                mirror = _gradient_cond_of(op.inputs[0].op)
                if mirror is not None:
                    op._control_flow_context = mirror.branches[op.inputs[0].value_index]


def _gradient_cond_of(op):
    """The gradient cond whose ``cond_grad`` Switch (feeding both branches) ``op`` is."""
    region = getattr(op, "_cf_region", None)
    if (
        op.type in SWITCH_TYPES
        and isinstance(region, GradCondRegion)
        and getattr(op, "_cf_branch", None) is None
    ):
        return region
    return None


def _enclosing_loop(ctx):
    """The innermost while loop enclosing context ``ctx`` (None at top level)."""
    return next((c for c in _chain(ctx.outer_context) if c.region.kind == "while"), None)


def _loop_constant_enter(value, loop):
    """The loop-invariant ``Enter`` of ``loop`` that ``value`` is (through Identity ops,
    and the Switch ops of conds in the body, as TF's ``GetLoopConstantEnter``)."""
    op = value.op
    while op.type in ("Identity", "RefIdentity", "Switch", "RefSwitch"):
        op = op.inputs[0].op
    if op.type in ENTER_TYPES and op.attrs.get("is_constant") and cfc.cfc_frame(op) == loop.name:
        return op
    return None


# ---------------------------------------------------------------------------------------------
# The state of one tf.gradients call
# ---------------------------------------------------------------------------------------------
class GradientState:
    """Mirror conds and loop states of one ``tf.gradients`` call; ``gradients`` calls its
    hooks (``grad_scope``, ``zeros_like``, ``unused_exits``, ``post_process``)."""

    def __init__(self, graph, between_list, between):
        self.graph = graph
        self._mirrors = {}
        self.loops = {}
        with self.active():
            for op in list(between_list):
                if op.type in EXIT_TYPES and isinstance(cfc.context_of(op), cfc.WhileContext):
                    self._add_loop(cfc.context_of(op), between_list, between)

    @contextlib.contextmanager
    def active(self):
        stack = self.graph._extensions.setdefault(_STATE_KEY, [])
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    @property
    def has_loops(self) -> bool:
        return bool(self.loops)

    def _add_loop(self, loop, between_list, between):
        if loop in self.loops:
            return
        if isinstance(loop, GradWhileContext):
            # TF 2.21's v1 loops reject this too (in the gradient of the gradient loop's
            # Exit); where the first gradient reaches xs only through stacks, no gradient
            # loop takes part and the answer is None, as in TF.
            raise TypeError("Second-order gradient for while loops not supported.")
        if not loop.loops:
            # An imported loop whose loop variables could not be recovered from its
            # dataflow (control_flow_import): no gradient rather than a wrong one.
            reason = getattr(loop, "import_error", "its loop variables are unknown")
            raise errors.UnimplementedError(
                None, None, f"tf.gradients through while loop {loop.name}: {reason}"
            )
        outer = _enclosing_loop(loop)
        if isinstance(outer, GradWhileContext):
            raise errors.UnimplementedError(
                None,
                None,
                f"tf.gradients through while loop {loop.name} built inside a gradient loop "
                "is not supported",
            )
        if outer is not None and any(parts[5].op in between for parts in outer.loops):
            # The enclosing loop takes part too: its gradient loop must exist first, as
            # this loop's gradient loop runs inside it.
            self._add_loop(outer, between_list, between)
        outer_state = self.loops.get(outer) if outer is not None else None
        self.loops[loop] = LoopGradState(self, loop, outer_state)
        for exit_tensor in self.loops[loop].forward_exits:
            if exit_tensor.op not in between:
                between.add(exit_tensor.op)
                between_list.append(exit_tensor.op)

    # --- contexts -----------------------------------------------------------------------------
    def mirror(self, ctx):
        """Where gradient ops of ops in forward context ``ctx`` go."""
        if ctx is None:
            return None
        if ctx.region.kind == "while":
            state = self.loops.get(ctx)
            return state.grad if state is not None else ctx
        return self.mirror_region(ctx.region).branches[ctx.branch]

    def mirror_region(self, region):
        """The mirror cond of cond ``region`` (made on first use)."""
        found = self._mirrors.get(region)
        if found is None:
            outer = self.mirror(region.outer_context)
            pred = region.pred_id
            loop = next((c for c in _chain(outer) if isinstance(c, GradWhileContext)), None)
            if loop is not None and loop.state.in_forward(pred):
                pred = loop.state.real_value(pred)
            found = GradCondRegion(region, pred, outer, self.graph.get_name_scope())
            self._mirrors[region] = found
        return found

    def grad_scope(self, op, before):
        """The context gradient ops of ``op`` are built in: ``before`` (summing the
        gradients of its outputs) where its outputs are used, else where ``op`` runs."""
        if before:
            forward = cfc.output_context(op)
        else:
            region = getattr(op, "_cf_region", None)
            forward = region.outer_context if region is not None else cfc.context_of(op)
        ctx = self.mirror(forward)
        if ctx is None:
            return _routing_gated_grads(self.graph, contextlib.nullcontext())
        return _routing_gated_grads(self.graph, building(self.graph, ctx))

    # --- zeros ---------------------------------------------------------------------------------
    def is_loop_switch(self, op) -> bool:
        return (
            op.type in SWITCH_TYPES
            and getattr(op, "_cf_region", None) is None
            and isinstance(cfc.context_of(op), cfc.WhileContext)
        )

    def zeros_like(self, op, index, default):
        """The gradient standing in for unused output ``index`` of ``op`` (None: leave
        it unset); ``default(tensor)`` outside control flow."""
        if self.is_loop_switch(op):
            return None if self.has_loops else default(op.outputs[index])
        state = self._loop_state_of(op)
        if state is not None:
            return self._zeros_in_loop(state, op, index)
        if op.type in SWITCH_TYPES and hasattr(op, "_cf_branch"):
            return self._zeros_for_untaken_branch(op)
        return default(op.outputs[index])

    def _loop_state_of(self, op):
        region = getattr(op, "_cf_region", None)
        ctx = region.outer_context if region is not None else cfc.context_of(op)
        for c in _chain(ctx):
            if c.region.kind == "while":
                return self.loops.get(c)
        return None

    def _zeros_for_untaken_branch(self, op):
        """Zeros shaped like a capture Switch's input, computed only in the other branch."""
        from tfcompat.ops import array_ops
        from tfcompat.ops import control_flow_ops as cf

        branch = 1 - op._cf_branch
        mirror = self.mirror_region(op._cf_region)
        switch_out = cf.switch(op.inputs[0], mirror.pred_id)[branch]
        cfc.mark_region_op(switch_out.op, mirror)
        switch_out.op._cf_branch = branch
        with building(self.graph, mirror.branches[branch]):
            pivot = array_ops.identity(switch_out)
            zeros_shape = array_ops.shape_internal(switch_out, optimize=False)
            with self.graph.control_dependencies([pivot]):
                return array_ops.zeros(zeros_shape, dtype=op.outputs[branch].dtype.base_dtype)

    def _zeros_in_loop(self, state, op, index):
        from tfcompat.framework import constant_op
        from tfcompat.ops import array_ops
        from tfcompat.ops import control_flow_ops as cf

        value = op.outputs[index]
        dtype = value.dtype.base_dtype
        dead_branch = op.type in SWITCH_TYPES and hasattr(op, "_cf_branch")
        if dead_branch:
            branch = 1 - op._cf_branch
            mirror = self.mirror_region(op._cf_region)
            if value.shape.is_fully_defined():
                zeros = constant_op.constant(0, dtype, shape=value.shape.as_list())
            else:
                # Made each iteration from the forward value, then switched as a constant
                # is: live only in the branch whose gradient they stand for (TF's Merge
                # joining the two branches' gradients must see one live input).
                with building(self.graph, mirror.outer_context):
                    zeros = array_ops.zeros_like(op.inputs[0], optimize=False)
            with self.graph.colocate_with(zeros.op, ignore_existing=True):
                out = cf.ref_or_tensor_switch(zeros, mirror.pred_id)[branch]
            cfc.mark_region_op(out.op, mirror)
            out.op._cf_branch = branch
            return out
        if value.shape.is_fully_defined():
            return constant_op.constant(0, dtype, shape=value.shape.as_list())
        return array_ops.zeros_like(value, optimize=False)

    def zeros_for_exit(self, exit_tensor):
        """The gradient of a loop output ys do not use, when another output's is real.
        The output of a loop nested in another loop gets its zeros in the outer gradient
        loop (its shape, when not static, from the outer loop's history)."""
        from tfcompat.ops import array_ops

        dtype = exit_tensor.dtype.base_dtype
        forward = cfc.output_context(exit_tensor.op)
        if forward is None:
            if exit_tensor.shape.is_fully_defined():
                return array_ops.zeros(exit_tensor.shape.as_list(), dtype)
            return array_ops.zeros_like(exit_tensor, optimize=False)
        grad_ctx = self.mirror(forward)
        if exit_tensor.shape.is_fully_defined():
            with building(self.graph, grad_ctx):
                return array_ops.zeros(exit_tensor.shape.as_list(), dtype)
        with building(self.graph, forward):
            shape = array_ops.shape_internal(exit_tensor, optimize=False)
        with building(self.graph, grad_ctx):
            return array_ops.zeros(shape, dtype)

    # --- exits ---------------------------------------------------------------------------------
    def loop_state_of_exit(self, op):
        ctx = cfc.context_of(op)
        if op.type in EXIT_TYPES and isinstance(ctx, cfc.WhileContext):
            return self.loops.get(ctx)
        return None

    def unused_exits(self, pending, to_ops):
        """Exits no ys depend on whose loops take part: they get zero gradients (or none)
        once the loop's other exits are known (TF's rule)."""
        ready = []
        for state in self.loops.values():
            for y in state.forward_exits:
                if pending[y.op] == 0:
                    state.pending_exits_count -= 1
                    if y.op not in to_ops:
                        state.unused_exits.append(y)
                    if state.pending_exits_count == 0:
                        ready.extend(state.unused_exits)
            for enter in state.forward_enters:
                if pending[enter.op] == 0:
                    pending[enter.op] = 1  # so the gradient loop gets its exits
        return ready

    def post_process(self):
        for state in self.loops.values():
            state.post_process()
