"""TF1 recurrent networks: ``tf.nn.dynamic_rnn`` (a ``tf.while_loop`` over time reading
inputs from and writing outputs to TensorArrays), ``tf.nn.static_rnn`` (unrolled in
Python) and ``tf.nn.bidirectional_dynamic_rnn``, built as TF 2.21's ``tf.compat.v1`` builds
them (same ops and node names).

With ``sequence_length``, a batch entry's output is zero and its state is carried through
unchanged from the step at its length on (``_rnn_step``).
"""

from __future__ import annotations

from tfcompat.framework import dtypes, scopes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import control_flow_contexts as cfc
from tfcompat.ops import control_flow_nest as nest
from tfcompat.ops.rnn_cell_impl import assert_like_rnncell, concat_shapes
from tfcompat.util.tf_export import tf_export


def _tf():
    import tfcompat

    return tfcompat


def _transpose_batch_time(x):
    """Swaps the first two dimensions (batch-major <-> time-major)."""
    tf = _tf()
    static = x.shape
    if static.rank is not None and static.rank < 2:
        return x
    x_t = tf.transpose(x, tf.concat(([1, 0], tf.range(2, tf.rank(x))), axis=0))
    x_t.set_shape(
        tensor_shape.TensorShape([static.dims[1].value, static.dims[0].value]).concatenate(
            static[2:]
        )
    )
    return x_t


def _best_effort_input_batch_size(flat_input):
    """The static batch size (dimension 1 of time-major inputs), else a tensor."""
    for input_ in flat_input:
        shape = input_.shape
        if shape.rank is None:
            continue
        if shape.rank < 2:
            raise ValueError(
                f"Input tensor should have rank >= 2. Received input={input_} of rank {shape.rank}"
            )
        batch_size = shape.dims[1].value
        if batch_size is not None:
            return batch_size
    return _tf().shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype, state):
    if explicit_dtype is not None:
        return explicit_dtype
    if nest.is_nested(state):
        found = [element.dtype for element in nest.flatten(state)]
        if not found:
            raise ValueError(f"Unable to infer dtype from argument state={state}.")
        if not all(d == found[0] for d in found):
            raise ValueError(
                f"Argument state={state} has tensors of different inferred dtypes. Unable to "
                f"infer a single representative dtype. Dtypes received: {found}"
            )
        return found[0]
    return state.dtype


def _should_cache():
    """Variables read in the loop are cached (TF sets a caching device) unless already
    inside a while loop."""
    ctx = cfc.current_context(graph_lib.get_default_graph())
    while ctx is not None:
        if ctx.region.kind == "while":
            return False
        ctx = ctx.region.outer_context
    return True


def _initial_state(cell, initial_state, batch_size, dtype):
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


# ---------------------------------------------------------------------------------------------
# One step with sequence_length: copy state through, zero outputs, past each length
# ---------------------------------------------------------------------------------------------
def _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length, zero_output,
              state, call_cell, state_size, skip_conditionals=False):  # fmt: skip
    """The cell's step where ``time < sequence_length``; past it, zero output and the old
    state. Without ``skip_conditionals`` (static_rnn), conds skip the work when all or
    none of the batch is done."""
    tf = _tf()
    flat_state = nest.flatten(state)
    flat_zero_output = nest.flatten(zero_output)
    copy_cond = time >= sequence_length

    def copy_one_through(output, new_output):
        if output.shape.rank == 0:
            return new_output
        with scopes.colocate_with(new_output.op):
            return tf.where(copy_cond, output, new_output)

    def copy_some_through(flat_new_output, flat_new_state):
        outputs = [copy_one_through(z, o) for z, o in zip(flat_zero_output, flat_new_output)]
        states = [copy_one_through(s, n) for s, n in zip(flat_state, flat_new_state)]
        return outputs + states

    def new_output_and_state():
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output)
        nest.assert_same_structure(state, new_state)
        return nest.flatten(new_output), nest.flatten(new_state)

    def maybe_copy_some_through():
        flat_new_output, flat_new_state = new_output_and_state()
        return tf.cond(
            time < min_sequence_length,
            lambda: flat_new_output + flat_new_state,
            lambda: copy_some_through(flat_new_output, flat_new_state),
        )

    if skip_conditionals:
        final = copy_some_through(*new_output_and_state())
    else:
        final = tf.cond(
            time >= max_sequence_length,
            lambda: flat_zero_output + flat_state,
            maybe_copy_some_through,
        )
    final_output = final[: len(flat_zero_output)]
    final_state = final[len(flat_zero_output) :]
    for output, zero in zip(final_output, flat_zero_output):
        output.set_shape(zero.shape)
    for substate, old in zip(final_state, flat_state):
        substate.set_shape(old.shape)
    return (
        nest.pack_sequence_as(zero_output, final_output),
        nest.pack_sequence_as(state, final_state),
    )


# ---------------------------------------------------------------------------------------------
# dynamic_rnn
# ---------------------------------------------------------------------------------------------
@tf_export("nn.dynamic_rnn")
def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False,
                scope=None):  # fmt: skip
    """Runs ``cell`` over the time dimension of ``inputs`` in a ``tf.while_loop``.

    Args:
      cell: an RNNCell.
      inputs: ``[batch, time, ...]`` (``[time, batch, ...]`` when ``time_major``), or a
        nested structure of such tensors.
      sequence_length: int32/int64 ``[batch]``: past an entry's length its outputs are zero
        and its state is copied through.
      initial_state: the cell's initial state (default: ``cell.zero_state``, then ``dtype``
        is required).
      dtype, parallel_iterations, swap_memory, time_major, scope: as in TF.

    Returns:
      ``(outputs, final_state)``: outputs shaped like ``inputs`` with the cell's output size
      as last dimension.
    """
    from tfcompat.ops.variable_scope import variable_scope

    tf = _tf()
    assert_like_rnncell("cell", cell)
    with variable_scope(scope or "rnn") as varscope:
        if _should_cache() and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        flat_input = nest.flatten(inputs)
        if not time_major:
            flat_input = [convert_to_tensor(x) for x in flat_input]
            flat_input = tuple(_transpose_batch_time(x) for x in flat_input)
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = tf.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.rank not in (None, 1):
                raise ValueError(
                    "Argument sequence_length must be a vector of length batch_size. Received "
                    f"sequence_length={sequence_length} of shape: {sequence_length.shape}"
                )
            sequence_length = tf.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            with tf.control_dependencies([_assert_has_shape(sequence_length, [batch_size])]):
                sequence_length = tf.identity(sequence_length, name="CheckSeqLen")
        inputs = nest.pack_sequence_as(inputs, flat_input)
        outputs, final_state = _dynamic_rnn_loop(
            cell,
            inputs,
            state,
            parallel_iterations=parallel_iterations,
            swap_memory=swap_memory,
            sequence_length=sequence_length,
            dtype=dtype,
        )
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _assert_has_shape(x, shape):
    tf = _tf()
    x_shape = tf.shape(x)
    packed_shape = tf.stack(shape)
    return tf.Assert(
        tf.reduce_all(tf.equal(x_shape, packed_shape)),
        [f"Expected shape for Tensor {x.name} is ", packed_shape, " but saw shape: ", x_shape],
    )


def _check_input_shapes(flat_input):
    """Static shapes of time-major inputs: rank >= 3, known depth, same time and batch."""
    shapes = tuple(x.shape.with_rank_at_least(3) for x in flat_input)
    const_time_steps, const_batch_size = shapes[0].as_list()[:2]
    for i, shape in enumerate(shapes):
        if not shape[2:].is_fully_defined():
            raise ValueError(
                "Input size (depth of inputs) must be accessible via shape inference, but saw "
                f"value None for input={flat_input[i]}."
            )
        if const_time_steps != shape.dims[0].value:
            raise ValueError(
                "Time steps is not the same for all the elements in the input in a batch. "
                f"Received time steps={shape.dims[0].value} for input={flat_input[i]}."
            )
        if const_batch_size != shape.dims[1].value:
            raise ValueError(
                "Batch_size is not the same for all the elements in the input. Received batch "
                f"size={shape.dims[1].value} for input={flat_input[i]}."
            )
    return shapes, const_time_steps, const_batch_size


def _dynamic_rnn_loop(cell, inputs, initial_state, parallel_iterations, swap_memory,
                      sequence_length=None, dtype=None):  # fmt: skip
    """The loop of ``dynamic_rnn`` over time-major ``inputs``: (outputs, final_state)."""
    from tfcompat.ops.tensor_array_ops import TensorArray

    tf = _tf()
    state = initial_state
    state_size = cell.state_size
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    time_steps = tf.shape(flat_input[0])[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    inputs_got_shape, const_time_steps, const_batch_size = _check_input_shapes(flat_input)
    state_dtype = _infer_state_dtype(dtype, state)

    flat_zero_output = tuple(
        tf.zeros(concat_shapes(batch_size, size), state_dtype) for size in flat_output_size
    )
    zero_output = nest.pack_sequence_as(cell.output_size, flat_zero_output)
    if sequence_length is not None:
        min_sequence_length = tf.reduce_min(sequence_length)
        max_sequence_length = tf.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = tf.constant(0, dtype=dtypes.int32, name="time")
    with scopes.name_scope("dynamic_rnn") as base_name:
        pass

    def create_ta(name, element_shape, ta_dtype):
        return TensorArray(
            dtype=ta_dtype,
            size=time_steps,
            element_shape=element_shape,
            tensor_array_name=base_name + name,
        )

    output_ta = tuple(
        create_ta(
            f"output_{i}",
            tensor_shape.TensorShape([const_batch_size]).concatenate(_static_size(size)),
            state_dtype,
        )
        for i, size in enumerate(flat_output_size)
    )
    input_ta = tuple(
        create_ta(f"input_{i}", x.shape[1:], x.dtype) for i, x in enumerate(flat_input)
    )
    input_ta = tuple(ta.unstack(x) for ta, x in zip(input_ta, flat_input))

    def time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for input_, shape in zip(input_t, inputs_got_shape):
            input_.set_shape(shape[1:])
        input_t = nest.pack_sequence_as(inputs, input_t)

        def call_cell():
            return cell(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(
                time=time,
                sequence_length=sequence_length,
                min_sequence_length=min_sequence_length,
                max_sequence_length=max_sequence_length,
                zero_output=zero_output,
                state=state,
                call_cell=call_cell,
                state_size=state_size,
                skip_conditionals=True,
            )
        else:
            output, new_state = call_cell()
        output = nest.flatten(output)
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, output))
        return time + 1, output_ta_t, new_state

    loop_bound = tf.minimum(time_steps, tf.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = tf.while_loop(
        cond=lambda time, *_: time < loop_bound,
        body=time_step,
        loop_vars=(time, output_ta, state),
        parallel_iterations=parallel_iterations,
        maximum_iterations=time_steps,
        swap_memory=swap_memory,
    )
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, size in zip(final_outputs, flat_output_size):
        output.set_shape(concat_shapes([const_time_steps, const_batch_size], size, static=True))
    return nest.pack_sequence_as(cell.output_size, final_outputs), final_state


def _static_size(size):
    """A cell size as a TensorShape (a Tensor size by its constant value)."""
    from tfcompat.framework import constant_value
    from tfcompat.framework.tensor import Tensor

    if isinstance(size, Tensor):
        return tensor_shape.as_shape(constant_value.constant_value(size))
    return tensor_shape.as_shape(size)


# ---------------------------------------------------------------------------------------------
# static_rnn / bidirectional_dynamic_rnn
# ---------------------------------------------------------------------------------------------
@tf_export("nn.static_rnn", "nn.rnn")
def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Runs ``cell`` over the list ``inputs`` (one ``[batch, ...]`` tensor per step),
    unrolled in the graph. Returns ``(outputs, final_state)`` with one output per step."""
    from tfcompat.ops.variable_scope import variable_scope

    tf = _tf()
    assert_like_rnncell("cell", cell)
    if not nest.is_nested(inputs):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    outputs = []
    with variable_scope(scope or "rnn") as varscope:
        if _should_cache() and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        first_input = inputs
        while nest.is_nested(first_input):
            first_input = first_input[0]
        fixed_batch_size = _fixed_batch_size(first_input, inputs)
        if tensor_shape.dimension_value(fixed_batch_size):
            batch_size = tensor_shape.dimension_value(fixed_batch_size)
        else:
            batch_size = tf.shape(first_input)[0]
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.rank not in (None, 1):
                raise ValueError(
                    f"Argument `sequence_length` must be a vector of length {batch_size}. "
                    f"Received sequence_length={sequence_length}."
                )
            flat_zero_output = tuple(
                _zero_output(size, batch_size, fixed_batch_size, _infer_state_dtype(dtype, state))
                for size in nest.flatten(cell.output_size)
            )
            zero_output = nest.pack_sequence_as(cell.output_size, flat_zero_output)
            sequence_length = tf.cast(sequence_length, dtypes.int32)
            min_sequence_length = tf.reduce_min(sequence_length)
            max_sequence_length = tf.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_=input_, state=state):
                return cell(input_, state)

            if sequence_length is not None:
                output, state = _rnn_step(
                    time=time,
                    sequence_length=sequence_length,
                    min_sequence_length=min_sequence_length,
                    max_sequence_length=max_sequence_length,
                    zero_output=zero_output,
                    state=state,
                    call_cell=call_cell,
                    state_size=cell.state_size,
                )
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def _fixed_batch_size(first_input, inputs):
    """The static batch dimension; every input's depth must be known."""
    if first_input.shape.rank == 1:
        return first_input.shape.with_rank_at_least(1)[0]
    fixed = first_input.shape.with_rank_at_least(2)[0]
    for flat_input in nest.flatten(inputs):
        shape = flat_input.shape.with_rank_at_least(2)
        fixed.assert_is_compatible_with(shape[0])
        for i, size in enumerate(shape[1:].dims):
            if tensor_shape.dimension_value(size) is None:
                raise ValueError(
                    f"Input size (dimension {i} of input {flat_input}) must be accessible via "
                    "shape inference, but saw value None."
                )
    return fixed


def _zero_output(output_size, batch_size, fixed_batch_size, dtype):
    tf = _tf()
    output = tf.zeros(concat_shapes(batch_size, output_size), dtype)
    output.set_shape(
        tensor_shape.TensorShape(
            concat_shapes(tensor_shape.dimension_value(fixed_batch_size), output_size, static=True)
        )
    )
    return output


@tf_export("nn.bidirectional_dynamic_rnn")
def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None):  # fmt: skip
    """A forward and a backward ``dynamic_rnn`` over ``inputs`` (the backward one over the
    time-reversed sequence, reversed per ``sequence_length``). Returns
    ``((output_fw, output_bw), (state_fw, state_bw))``."""
    from tfcompat.ops.variable_scope import variable_scope

    tf = _tf()
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell=cell_fw,
                inputs=inputs,
                sequence_length=sequence_length,
                initial_state=initial_state_fw,
                dtype=dtype,
                parallel_iterations=parallel_iterations,
                swap_memory=swap_memory,
                time_major=time_major,
                scope=fw_scope,
            )
        time_axis, batch_axis = (0, 1) if time_major else (1, 0)

        def reverse(input_, seq_axis, batch_axis):
            if sequence_length is not None:
                return tf.reverse_sequence(
                    input=input_,
                    seq_lengths=sequence_length,
                    seq_axis=seq_axis,
                    batch_axis=batch_axis,
                )
            return tf.reverse(input_, axis=[seq_axis])

        with variable_scope("bw") as bw_scope:

            def reverse_all(structure):
                flat = nest.flatten(structure)
                return nest.pack_sequence_as(
                    structure, [reverse(x, time_axis, batch_axis) for x in flat]
                )

            inputs_reverse = reverse_all(inputs)
            tmp, output_state_bw = dynamic_rnn(
                cell=cell_bw,
                inputs=inputs_reverse,
                sequence_length=sequence_length,
                initial_state=initial_state_bw,
                dtype=dtype,
                parallel_iterations=parallel_iterations,
                swap_memory=swap_memory,
                time_major=time_major,
                scope=bw_scope,
            )
    output_bw = reverse(tmp, time_axis, batch_axis)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)
