"""TensorArrays (TF's ``TensorArrayV3`` family) and ``tf.TensorArray`` in graph mode.

A TensorArray is a resource handle plus a scalar float *flow*: every write returns a new
flow, and reads take the flow they must follow, so dataflow orders the array's accesses
(also across ``tf.while_loop`` iterations, where the flow is a loop variable).
``dynamic_rnn`` reads its inputs from one array and writes its outputs to another.

The gradient of an array is another array (``TensorArrayGradV3``, one per forward array
and ``tf.gradients`` call, named by the call's ``gradients`` prefix), written by the
gradients of reads and read by the gradients of writes, as in TF.

The lowerings (``lowering/tensor_array.py``) keep each array as a buffer of its static size
in the step's run locals; a ``dynamic_size=True`` array (``tf.nn.raw_rnn``, decoders) as a
bucket-sized buffer plus its run-time size.
"""

from __future__ import annotations

import contextlib

from tfcompat.framework import constant_value as constant_value_lib
from tfcompat.framework import dtypes, scopes, tensor_shape
from tfcompat.framework.gradient_registry import NotDifferentiable, RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.tensor import Tensor
from tfcompat.util.tf_export import tf_export

_SCALAR = tensor_shape.TensorShape([])
_HANDLE = tensor_shape.TensorShape([2])


def _gather_shape(op):
    return [tensor_shape.TensorShape([None]).concatenate(op.attrs["element_shape"])]


def _concat_shape(op):
    """``[?] + element_shape_except0`` (unknown rank when that is unknown), and ``[?]``."""
    rest = op.attrs["element_shape_except0"]
    value = tensor_shape.unknown_shape()
    if rest.rank is not None:
        value = tensor_shape.TensorShape([None]).concatenate(rest)
    return [value, tensor_shape.TensorShape([None])]


register_op(
    "TensorArrayV3",
    inputs=["size: int32"],
    outputs=["handle: resource", "flow: float"],
    attrs=[
        "dtype: type",
        "element_shape: shape = { unknown_rank: true }",
        "dynamic_size: bool = false",
        "clear_after_read: bool = true",
        "identical_element_shapes: bool = false",
        "tensor_array_name: string = ''",
    ],
    shape_fn=lambda op: [_HANDLE, _SCALAR],
    is_stateful=True,
)
register_op(
    "TensorArrayGradV3",
    inputs=["handle: resource", "flow_in: float"],
    outputs=["grad_handle: resource", "flow_out: float"],
    attrs=["source: string"],
    shape_fn=lambda op: [_HANDLE, _SCALAR],
    is_stateful=True,
)
register_op(
    "TensorArrayWriteV3",
    inputs=["handle: resource", "index: int32", "value: T", "flow_in: float"],
    outputs=["flow_out: float"],
    attrs=["T: type"],
    shape_fn=lambda op: [_SCALAR],
    is_stateful=True,
)
register_op(
    "TensorArrayReadV3",
    inputs=["handle: resource", "index: int32", "flow_in: float"],
    outputs=["value: dtype"],
    attrs=["dtype: type"],
    shape_fn=lambda op: [tensor_shape.unknown_shape()],
    is_stateful=True,
)
register_op(
    "TensorArrayScatterV3",
    inputs=["handle: resource", "indices: int32", "value: T", "flow_in: float"],
    outputs=["flow_out: float"],
    attrs=["T: type"],
    shape_fn=lambda op: [_SCALAR],
    is_stateful=True,
)
register_op(
    "TensorArrayGatherV3",
    inputs=["handle: resource", "indices: int32", "flow_in: float"],
    outputs=["value: dtype"],
    attrs=["dtype: type", "element_shape: shape = { unknown_rank: true }"],
    shape_fn=_gather_shape,
    is_stateful=True,
)
register_op(
    "TensorArraySizeV3",
    inputs=["handle: resource", "flow_in: float"],
    outputs=["size: int32"],
    shape_fn=lambda op: [_SCALAR],
    is_stateful=True,
)
register_op(
    "TensorArrayConcatV3",
    inputs=["handle: resource", "flow_in: float"],
    outputs=["value: dtype", "lengths: int64"],
    attrs=["dtype: type", "element_shape_except0: shape = { unknown_rank: true }"],
    shape_fn=_concat_shape,
    is_stateful=True,
)
register_op(
    "TensorArraySplitV3",
    inputs=["handle: resource", "value: T", "lengths: int64", "flow_in: float"],
    outputs=["flow_out: float"],
    attrs=["T: type"],
    shape_fn=lambda op: [_SCALAR],
    is_stateful=True,
)
register_op("TensorArrayCloseV3", inputs=["handle: resource"], is_stateful=True)

for _op_type in ("TensorArrayV3", "TensorArrayGradV3", "TensorArraySizeV3", "TensorArrayCloseV3"):
    NotDifferentiable(_op_type)


# ---------------------------------------------------------------------------------------------
# tf.TensorArray (graph mode, v1 control flow)
# ---------------------------------------------------------------------------------------------
@tf_export("TensorArray")
class TensorArray:
    """An array of tensors of one dtype, written and read by index inside a graph.

    Args:
      dtype: the elements' dtype.
      size: int32 scalar, the number of elements (required unless ``handle`` is given).
      dynamic_size: whether writes past the end grow the array (under XLA, a buffer that
        doubles on overflow, the step compiled per distinct ``size()``; see
        ``lowering/tensor_array.py``).
      clear_after_read: TF frees an element once read (recorded in the graph).
      tensor_array_name: the array's resource name.
      handle, flow: an existing array's handle and flow (how gradients rebuild arrays).
      infer_shape: whether writes refine ``element_shape``.
      element_shape: the elements' (partial) shape.
      colocate_with_first_write_call: colocate the array with the value of its first write.
      name: the creating op's name scope.
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):  # fmt: skip
        _check_constructor_args(
            handle, size, tensor_array_name, element_shape, dynamic_size, clear_after_read
        )
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = dynamic_size or False
        self._colocate_with_first_write_call = colocate_with_first_write_call
        self._colocate_with = [] if colocate_with_first_write_call else None
        # A one-element list shared with gradient arrays, so shapes learned by one are seen
        # by the other (TF's behaviour).
        self._element_shape = [tensor_shape.as_shape(element_shape)]
        self._infer_shape = infer_shape
        self._size = size
        with scopes.name_scope(name, "TensorArray", [handle, size, flow]) as scope:
            if handle is not None:
                if flow is None:
                    raise ValueError("flow must not be None if handle is not None.")
                self._handle, self._flow = handle, flow
                return
            op_kwargs = dict(
                size=size,
                dtype=self._dtype,
                element_shape=tensor_shape.as_shape(element_shape),
                identical_element_shapes=infer_shape,
                dynamic_size=self._dynamic_size,
                clear_after_read=True if clear_after_read is None else clear_after_read,
                tensor_array_name=tensor_array_name or "",
                name=scope,
            )
            placement = _unplaced() if colocate_with_first_write_call else contextlib.nullcontext()
            with placement:
                op = apply_op("TensorArrayV3", **op_kwargs)
            self._handle, self._flow = op.outputs

    # -- properties -------------------------------------------------------------------------
    @property
    def flow(self):
        """The scalar float tensor that orders accesses to the array."""
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def handle(self):
        return self._handle

    @property
    def element_shape(self):
        return self._element_shape[0]

    def _check_element_shape(self, shape):
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    @contextlib.contextmanager
    def _maybe_colocate_with(self, value):
        """Colocates with the first written value (once chosen, with it forever)."""
        if not self._colocate_with_first_write_call:
            yield
            return
        if not self._colocate_with:
            self._colocate_with.append(value)
        with scopes.colocate_with(self._colocate_with[0].op):
            yield

    def _with_flow(self, flow):
        """This array with a new flow (the result of a write)."""
        new = TensorArray(
            dtype=self._dtype,
            handle=self._handle,
            flow=flow,
            infer_shape=self._infer_shape,
            colocate_with_first_write_call=self._colocate_with_first_write_call,
        )
        new._dynamic_size = self._dynamic_size
        new._size = self._size
        new._colocate_with = self._colocate_with
        new._element_shape = self._element_shape
        return new

    # -- operations -------------------------------------------------------------------------
    def identity(self):
        """The same array with its flow through an ``Identity`` (control dependencies)."""
        from tfcompat.ops import array_ops

        return self._with_flow(array_ops.identity(self._flow))

    def grad(self, source, flow=None, name=None):
        """The gradient array of this one for the ``tf.gradients`` call named ``source``."""
        from tfcompat.ops import array_ops

        flow = self.flow if flow is None else flow
        with scopes.name_scope(name, "TensorArrayGrad", [self._handle]):
            with scopes.colocate_with(self._handle.op):
                op = apply_op(
                    "TensorArrayGradV3", handle=self._handle, source=source, flow_in=flow, name=name
                )
                with scopes.control_dependencies([op.outputs[0]]):
                    flow = array_ops.identity(flow, name="gradient_flow")
                g = TensorArray(
                    dtype=self._dtype,
                    handle=op.outputs[0],
                    flow=flow,
                    infer_shape=self._infer_shape,
                    colocate_with_first_write_call=False,
                )
                g._element_shape = self._element_shape
                return g

    def read(self, index, name=None):
        """Element ``index``."""
        value = apply_op(
            "TensorArrayReadV3",
            handle=self._handle,
            index=index,
            flow_in=self._flow,
            dtype=self._dtype,
            name=name,
        ).outputs[0]
        if self._element_shape:
            value.set_shape(self._element_shape[0])
        return value

    def write(self, index, value, name=None):
        """A new array (new flow) with element ``index`` set to ``value``."""
        with scopes.name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = _as_value(value, self._dtype)
            self._check_element_shape(value.shape)
            with self._maybe_colocate_with(value):
                flow_out = apply_op(
                    "TensorArrayWriteV3",
                    handle=self._handle,
                    index=index,
                    value=value,
                    flow_in=self._flow,
                    name=name,
                ).outputs[0]
            return self._with_flow(flow_out)

    def stack(self, name=None):
        """All elements stacked along a new first dimension."""
        from tfcompat.ops import reduction_ops

        with scopes.colocate_with(self._handle.op):
            with scopes.name_scope(name, "TensorArrayStack", [self._handle]):
                value = self.gather(reduction_ops.range(0, self.size()), name=name)
                if self.element_shape and not self._dynamic_size and self._size is not None:
                    size = self._size
                    if isinstance(size, Tensor):
                        size = constant_value_lib.constant_value(size)
                    size = None if size is None else int(size)
                    value.set_shape(
                        tensor_shape.TensorShape([size]).concatenate(self.element_shape)
                    )
                return value

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        element_shape = (
            self._element_shape[0] if self._element_shape else tensor_shape.unknown_shape()
        )
        value = apply_op(
            "TensorArrayGatherV3",
            handle=self._handle,
            indices=indices,
            flow_in=self._flow,
            dtype=self._dtype,
            element_shape=element_shape,
            name=name,
        ).outputs[0]
        if self.element_shape:
            value.set_shape(tensor_shape.TensorShape([None]).concatenate(self.element_shape))
        return value

    def unstack(self, value, name=None):
        """A new array holding ``value``'s slices along its first dimension."""
        from tfcompat.ops import array_ops, reduction_ops

        with scopes.name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            num_elements = array_ops.shape(value)[0]
            return self.scatter(
                indices=reduction_ops.range(0, num_elements), value=value, name=name
            )

    def scatter(self, indices, value, name=None):
        """A new array with element ``indices[i]`` set to ``value[i]``."""
        with scopes.name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = _as_value(value, self._dtype)
            self._check_element_shape(value.shape[1:])
            with self._maybe_colocate_with(value):
                flow_out = apply_op(
                    "TensorArrayScatterV3",
                    handle=self._handle,
                    indices=indices,
                    value=value,
                    flow_in=self._flow,
                    name=name,
                ).outputs[0]
            return self._with_flow(flow_out)

    def concat(self, name=None):
        """All elements concatenated along their first dimension (elements of rank >= 1)."""
        value = apply_op(
            "TensorArrayConcatV3",
            handle=self._handle,
            flow_in=self._flow,
            dtype=self._dtype,
            element_shape_except0=self.element_shape[1:],
            name=name,
        ).outputs[0]
        if self.element_shape:
            dim0 = None
            if self._infer_shape:
                size = constant_value_lib.constant_value(self.size())
                if size is not None and self.element_shape[0] is not None:
                    dim0 = int(size) * self.element_shape[0]
            value.set_shape([dim0] + self.element_shape.dims[1:])
        return value

    def split(self, value, lengths, name=None):
        """A new array whose element ``i`` is the next ``lengths[i]`` rows of ``value``."""
        from tfcompat.ops import math_ops

        with scopes.name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            with self._maybe_colocate_with(value):
                lengths_64 = math_ops.cast(lengths, dtypes.int64)
                known = constant_value_lib.constant_value(lengths_64)
                if value.shape.dims is not None and known is not None:
                    if known.shape and known.max() == known.min():
                        self._check_element_shape(
                            tensor_shape.TensorShape([int(known[0])]).concatenate(value.shape[1:])
                        )
                flow_out = apply_op(
                    "TensorArraySplitV3",
                    handle=self._handle,
                    value=value,
                    lengths=lengths_64,
                    flow_in=self._flow,
                    name=name,
                ).outputs[0]
            return self._with_flow(flow_out)

    def size(self, name=None):
        """The number of elements (the constructor's ``size`` when the array is static)."""
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=dtypes.int32)
        return apply_op(
            "TensorArraySizeV3", handle=self._handle, flow_in=self._flow, name=name
        ).outputs[0]

    def close(self, name=None):
        """Releases the array (a no-op when lowered: arrays live for one step)."""
        return apply_op("TensorArrayCloseV3", handle=self._handle, name=name)


def _check_constructor_args(handle, size, name, element_shape, dynamic_size, clear_after_read):
    """TF's argument checks, in TF's order."""
    if handle is not None and name:
        raise ValueError(
            "Cannot provide both `handle` and `tensor_array_name` arguments at the same time."
        )
    if handle is not None and not isinstance(handle, Tensor):
        raise TypeError(
            f"Expected `handle` to be a Tensor, but got `{handle}` of type `{type(handle)}` "
            "instead."
        )
    if handle is None and size is None:
        raise ValueError("Argument `size` must be provided if handle is not provided.")
    given = {
        "size": size,
        "element_shape": element_shape,
        "dynamic_size": dynamic_size,
        "clear_after_read": clear_after_read,
    }
    for arg, value in given.items():
        if handle is not None and value is not None:
            raise ValueError(
                f"Cannot provide both a `handle` and `{arg}` arguments at the same time."
                if arg == "size"
                else f"Cannot provide both `handle` and `{arg}` arguments at the same time."
            )


@contextlib.contextmanager
def _unplaced():
    """No device and no colocation: the array is placed with its first write instead."""
    with scopes.device(None), scopes.colocate_with(None, ignore_existing=True):
        yield


def _as_value(value, dtype):
    value = convert_to_tensor(value, preferred_dtype=dtype, name="value")
    if value.dtype.base_dtype != dtype:
        raise ValueError(
            f"TensorArray dtype is {dtype.name} but Op is trying to write dtype "
            f"{value.dtype.base_dtype.name} "
        )
    return value


# ---------------------------------------------------------------------------------------------
# Gradients (TF's tensor_array_grad)
# ---------------------------------------------------------------------------------------------
def grad_source(tensor_or_op):
    """The name prefix of the ``tf.gradients`` call that built ``tensor_or_op`` (up to its
    last ``gradients*`` component): each call gets its own gradient arrays."""
    tokens = tensor_or_op.name.split("/")
    positions = [i for i, t in enumerate(tokens) if t.startswith("gradients")]
    if not positions:
        raise ValueError(
            "Expected op/tensor name to start with gradients (excluding scope), got: "
            f"{tensor_or_op.name}. This means that a tf.gradients op with this op in its "
            "dependency path has a custom name that does not start with 'gradients'. Please "
            "make sure all calls to tf.gradients that have non-empty `name` arguments use "
            "names that start with 'gradients'."
        )
    return "/".join(tokens[: positions[-1] + 1])


def _grad_array(op, dtype, flow, source):
    """The gradient array of ``op``'s forward array (``op.inputs[0]``)."""
    forward = TensorArray(
        dtype=dtype, handle=op.inputs[0], flow=flow, colocate_with_first_write_call=False
    )
    return forward.grad(source=source, flow=flow)


def _write_barrier(op, flow):
    """``flow`` ordered after ``op`` (a write) has run: TF's guard against creating the
    gradient array before the last forward write."""
    from tfcompat.ops import array_ops

    flow_out = array_ops.identity(op.outputs[0], "flow_out")
    with scopes.control_dependencies([flow_out]):
        return array_ops.identity(flow, "write_barrier")


@RegisterGradient("TensorArrayReadV3")
def _read_grad(op, grad):
    flow = op.inputs[2]
    g = _grad_array(op, op.attrs["dtype"], flow, grad_source(grad))
    return [None, None, g.write(op.inputs[1], grad).flow]


@RegisterGradient("TensorArrayWriteV3")
def _write_grad(op, flow):
    source = grad_source(flow)
    flow = _write_barrier(op, flow)
    g = _grad_array(op, op.attrs["T"], flow, source)
    return [None, None, g.read(op.inputs[1]), flow]


@RegisterGradient("TensorArrayGatherV3")
def _gather_grad(op, grad):
    flow = op.inputs[2]
    g = _grad_array(op, op.attrs["dtype"], flow, grad_source(grad))
    return [None, None, g.scatter(op.inputs[1], grad).flow]


@RegisterGradient("TensorArrayScatterV3")
def _scatter_grad(op, flow):
    source = grad_source(flow)
    flow = _write_barrier(op, flow)
    g = _grad_array(op, op.attrs["T"], flow, source)
    return [None, None, g.gather(op.inputs[1]), flow]


@RegisterGradient("TensorArrayConcatV3")
def _concat_grad(op, grad, unused_lengths_grad):
    flow = op.inputs[1]
    g = _grad_array(op, op.attrs["dtype"], flow, grad_source(grad))
    return [None, g.split(grad, lengths=op.outputs[1]).flow]


@RegisterGradient("TensorArraySplitV3")
def _split_grad(op, flow):
    source = grad_source(flow)
    flow = _write_barrier(op, flow)
    g = _grad_array(op, op.attrs["T"], flow, source)
    return [None, g.concat(), None, flow]


def build_ta_with_new_flow(old_ta, flow):
    """``old_ta`` continuing from ``flow`` (a while-loop body rebuilds its arrays so)."""
    return old_ta._with_flow(flow)
