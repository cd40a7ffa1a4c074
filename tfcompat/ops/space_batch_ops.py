"""Ops that move blocks of space into the batch (or depth) dimension and back (TF's
``array_ops``): ``SpaceToBatchND``/``BatchToSpaceND``, the legacy 4-D ``SpaceToBatch``/
``BatchToSpace``, ``SpaceToDepth``/``DepthToSpace``; their gradients (each is the other's
inverse) and TF's wrappers, including ``required_space_to_batch_paddings``.

``with_space_to_batch`` is how TF builds dilated ("atrous") windows: the input is split into
``rate`` interleaved sub-grids (``SpaceToBatchND``), an undilated op runs on them with VALID
padding, and the results are interleaved back (``BatchToSpaceND``). ``dilated_convolution``
applies it to ``tf.nn.convolution`` and the layers, as TF 2.21's ``Convolution`` class does.
"""

from __future__ import annotations

import numpy as np

from tfcompat.framework import dtypes
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.tensor_shape import TensorShape, unknown_shape
from tfcompat.util.tf_export import tf_export


# ---------------------------------------------------------------------------------------------
# Shape functions, worded as TF's C++ shape inference words its errors
# ---------------------------------------------------------------------------------------------
def _int_list(tensor):
    value = constant_value(tensor)
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def _divide(size, block):
    if size is None:
        return None
    if size % block:
        raise ValueError(f"Dimension size must be evenly divisible by {block} but is {size}")
    return size // block


def _block_dims(block_shape_tensor):
    shape = block_shape_tensor.shape
    if shape.rank != 1:
        raise ValueError("block_shape must have rank 1.")
    if shape[0].value is None:
        raise ValueError("block_shape must have known size.")
    return shape[0].value


def _space_batch_shape(input_shape, num_blocks, block, pads_or_crops, to_batch):
    """Output shape of SpaceToBatch (``to_batch``) or BatchToSpace: ``block`` and
    ``pads_or_crops`` ([[start, end]] per block dim) are lists or None when unknown."""
    if input_shape.rank is not None and input_shape.rank < num_blocks + 1:
        raise ValueError(
            f"Shape must be at least rank {num_blocks + 1} but is rank {input_shape.rank}"
        )
    if input_shape.rank is None:
        return unknown_shape()
    dims = input_shape.as_list()
    batch = dims[0]
    if block is not None:
        for b in block:
            if b < 1:
                raise ValueError("block_shape must be positive")
            if batch is not None:
                batch = batch * b if to_batch else _divide(batch, b)
    elif num_blocks > 0:
        batch = None
    spatial = [None] * num_blocks
    if pads_or_crops is not None:
        word = "paddings" if to_batch else "crops"
        for i, (start, end) in enumerate(pads_or_crops):
            if start < 0 or end < 0:
                raise ValueError(f"{word} cannot be negative")
            size = dims[i + 1]
            if block is None or size is None:
                continue
            spatial[i] = _divide(size + start + end, block[i]) if to_batch else (
                size * block[i] - start - end
            )  # fmt: skip
    return TensorShape([batch, *spatial, *dims[num_blocks + 1 :]])


def _pairs(tensor, num_blocks, word):
    shape = tensor.shape
    if shape.rank is not None:
        if shape.rank != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {shape.rank}")
        for got, want in zip(shape.as_list(), (num_blocks, 2)):
            if got is not None and got != want:
                raise ValueError(f"Dimensions must be equal, but are {got} and {want}")
    values = _int_list(tensor)
    return None if values is None else np.reshape(values, (num_blocks, 2)).tolist()


def _nd_shape(to_batch):
    def shape_fn(op):
        num_blocks = _block_dims(op.inputs[1])
        pairs = _pairs(op.inputs[2], num_blocks, "paddings" if to_batch else "crops")
        block = _int_list(op.inputs[1])
        return [_space_batch_shape(op.inputs[0].shape, num_blocks, block, pairs, to_batch)]

    return shape_fn


def _legacy_shape(to_batch):
    def shape_fn(op):
        shape = op.inputs[0].shape
        if shape.rank is not None and shape.rank != 4:
            raise ValueError(f"Shape must be rank 4 but is rank {shape.rank}")
        shape = TensorShape([None] * 4) if shape.rank is None else shape
        pairs = _pairs(op.inputs[1], 2, "paddings" if to_batch else "crops")
        block = [op.attrs["block_size"]] * 2
        return [_space_batch_shape(shape, 2, block, pairs, to_batch)]

    return shape_fn


_SPACE_INDEX = {b"NHWC": (1, 2, 3), b"NCHW": (2, 3, 1), b"NCHW_VECT_C": (2, 3, 1)}


def _depth_shape(to_depth):
    def shape_fn(op):
        fmt = op.attrs["data_format"]
        rank = 5 if fmt == b"NCHW_VECT_C" else 4
        shape = op.inputs[0].shape
        if shape.rank is None:
            return [unknown_shape(rank=rank)]
        if shape.rank != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {shape.rank}")
        dims = shape.as_list()
        block = op.attrs["block_size"]
        h, w, c = _SPACE_INDEX[fmt]
        if to_depth:
            dims[h], dims[w] = _divide(dims[h], block), _divide(dims[w], block)
            dims[c] = None if dims[c] is None else dims[c] * block * block
        else:
            dims[c] = _divide(dims[c], block * block)
            dims[h] = None if dims[h] is None else dims[h] * block
            dims[w] = None if dims[w] is None else dims[w] * block
        return [TensorShape(dims)]

    return shape_fn


# ---------------------------------------------------------------------------------------------
# OpDefs (tensorflow/core/ops/array_ops.cc)
# ---------------------------------------------------------------------------------------------
_INDEX = "{int32, int64} = DT_INT32"
register_op(
    "SpaceToBatchND",
    inputs=["input: T", "block_shape: Tblock_shape", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=["T: type", f"Tblock_shape: {_INDEX}", f"Tpaddings: {_INDEX}"],
    shape_fn=_nd_shape(to_batch=True),
)
register_op(
    "BatchToSpaceND",
    inputs=["input: T", "block_shape: Tblock_shape", "crops: Tcrops"],
    outputs=["output: T"],
    attrs=["T: type", f"Tblock_shape: {_INDEX}", f"Tcrops: {_INDEX}"],
    shape_fn=_nd_shape(to_batch=False),
)
register_op(
    "SpaceToBatch",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=["T: type", f"Tpaddings: {_INDEX}", "block_size: int >= 2"],
    shape_fn=_legacy_shape(to_batch=True),
)
register_op(
    "BatchToSpace",
    inputs=["input: T", "crops: Tidx"],
    outputs=["output: T"],
    attrs=["T: type", "block_size: int >= 2", f"Tidx: {_INDEX}"],
    shape_fn=_legacy_shape(to_batch=False),
)
_DEPTH_ATTRS = [
    "T: type",
    "block_size: int >= 2",
    "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'",
]
register_op(
    "SpaceToDepth",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=_DEPTH_ATTRS,
    shape_fn=_depth_shape(to_depth=True),
)
register_op(
    "DepthToSpace",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=_DEPTH_ATTRS,
    shape_fn=_depth_shape(to_depth=False),
)


# ---------------------------------------------------------------------------------------------
# Wrappers
# ---------------------------------------------------------------------------------------------
@tf_export("space_to_batch_nd", "manip.space_to_batch_nd")
def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """Zero-pads the spatial dims ``1..M`` of ``input`` and moves ``block_shape`` blocks of
    them into the batch dimension."""
    return apply_op(
        "SpaceToBatchND", name=name, input=input, block_shape=block_shape, paddings=paddings
    ).outputs[0]


@tf_export("batch_to_space_nd", "manip.batch_to_space_nd")
def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002
    """Inverse of ``space_to_batch_nd``: interleaves batch blocks back into the spatial dims
    and crops them."""
    return apply_op(
        "BatchToSpaceND", name=name, input=input, block_shape=block_shape, crops=crops
    ).outputs[0]


def _legacy_block(block_size, block_shape, old_name):
    from tfcompat.ops.conv_ops import deprecated_argument_lookup

    size = deprecated_argument_lookup("block_shape", block_shape, old_name, block_size)
    return np.array([size, size], dtype=np.int64)


@tf_export("space_to_batch", "nn.space_to_batch")
def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa: A002
    """TF1's 4-D ``space_to_batch``: ``SpaceToBatchND`` with an int64 ``[block_size] * 2``
    block shape."""
    block = _legacy_block(block_size, block_shape, "block_size")
    result = space_to_batch_nd(input, paddings=paddings, block_shape=block, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


@tf_export("batch_to_space")
def batch_to_space(input, crops, block_size, name=None, block_shape=None):  # noqa: A002
    """TF1's 4-D ``batch_to_space``: ``BatchToSpaceND`` with an int64 ``[block_size] * 2``
    block shape."""
    block = _legacy_block(block_size, block_shape, "block_size")
    result = batch_to_space_nd(input, crops=crops, block_shape=block, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


def space_to_batch_legacy(input, paddings, block_size, name=None):  # noqa: A002
    """The legacy ``SpaceToBatch`` op (``tf.raw_ops.SpaceToBatch``)."""
    return apply_op(
        "SpaceToBatch", name=name, input=input, paddings=paddings, block_size=block_size
    ).outputs[0]


def batch_to_space_legacy(input, crops, block_size, name=None):  # noqa: A002
    """The legacy ``BatchToSpace`` op (``tf.raw_ops.BatchToSpace``)."""
    return apply_op(
        "BatchToSpace", name=name, input=input, crops=crops, block_size=block_size
    ).outputs[0]


@tf_export("space_to_depth", "nn.space_to_depth")
def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Moves ``block_size x block_size`` spatial blocks into the depth dimension."""
    return apply_op(
        "SpaceToDepth", name=name, input=input, block_size=block_size, data_format=data_format
    ).outputs[0]


@tf_export("depth_to_space", "nn.depth_to_space")
def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Inverse of ``space_to_depth``: spreads depth into ``block_size`` spatial blocks."""
    return apply_op(
        "DepthToSpace", name=name, input=input, block_size=block_size, data_format=data_format
    ).outputs[0]


@tf_export("required_space_to_batch_paddings")
def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """``(paddings, crops)`` that make ``block_shape`` divide ``input_shape`` padded by at
    least ``base_paddings``: the extra end padding is what ``crops`` removes afterwards.
    Computed in numpy (constants) when all three are known at graph-build time."""
    from tfcompat.ops import array_ops

    with name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        input_shape = convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        if not block_shape.shape.is_fully_defined() or block_shape.shape.rank != 1:
            raise ValueError(f"Shape {block_shape.shape} must have rank 1 and be fully defined")
        n = block_shape.shape[0].value
        if n == 0:
            zeros = array_ops.zeros([0, 2], dtypes.int32)
            return zeros, array_ops.zeros([0, 2], dtypes.int32)
        input_shape.shape.assert_is_compatible_with([n])
        if base_paddings is not None:
            base_paddings = convert_to_tensor(
                base_paddings, dtype=dtypes.int32, name="base_paddings"
            )
            base_paddings.shape.assert_is_compatible_with([n, 2])
        else:
            base_paddings = array_ops.zeros([n, 2], dtypes.int32)
        known = [constant_value(t) for t in (block_shape, input_shape, base_paddings)]
        if all(v is not None for v in known):
            block_shape, input_shape, base_paddings = known
        # Python operators: numpy arithmetic on constants, graph ops (TF's names) otherwise.
        pad_start = base_paddings[:, 0]
        orig_pad_end = base_paddings[:, 1]
        full_input_shape = input_shape + pad_start + orig_pad_end
        pad_end_extra = (block_shape - full_input_shape % block_shape) % block_shape
        pad_end = orig_pad_end + pad_end_extra
        paddings = array_ops.stack([[pad_start[i], pad_end[i]] for i in range(n)], name="paddings")
        crops = array_ops.stack([[0, pad_end_extra[i]] for i in range(n)], name="crops")
        return paddings, crops


# ---------------------------------------------------------------------------------------------
# Gradients: each op's gradient is its inverse
# ---------------------------------------------------------------------------------------------
@RegisterGradient("SpaceToBatchND")
def _space_to_batch_nd_grad(op, grad):
    return [batch_to_space_nd(grad, op.inputs[1], op.inputs[2]), None, None]


@RegisterGradient("BatchToSpaceND")
def _batch_to_space_nd_grad(op, grad):
    return [space_to_batch_nd(grad, op.inputs[1], op.inputs[2]), None, None]


@RegisterGradient("SpaceToBatch")
def _space_to_batch_grad(op, grad):
    return [batch_to_space(grad, op.inputs[1], block_size=op.attrs["block_size"]), None]


@RegisterGradient("BatchToSpace")
def _batch_to_space_grad(op, grad):
    return [space_to_batch(grad, op.inputs[1], block_size=op.attrs["block_size"]), None]


def _depth_grad(inverse, op_type):
    def grad_fn(op, grad):
        fmt = op.attrs["data_format"]
        if fmt == b"NCHW_VECT_C":
            raise ValueError(
                f"Cannot compute {op_type} gradient with NCHW_VECT_C. NCHW_VECT_C requires "
                "qint8 data type."
            )
        return inverse(grad, op.attrs["block_size"], data_format=fmt.decode())

    return grad_fn


RegisterGradient("SpaceToDepth")(_depth_grad(depth_to_space, "SpaceToDepth"))
RegisterGradient("DepthToSpace")(_depth_grad(space_to_depth, "DepthToSpace"))


# ---------------------------------------------------------------------------------------------
# Dilated windows through SpaceToBatchND (TF's with_space_to_batch)
# ---------------------------------------------------------------------------------------------
def _base_paddings(filter_shape, num_spatial_dims, rate):
    """SAME padding of the dilated window, split as TF splits it (extra at the end)."""
    from tfcompat.ops import array_ops

    pad_extra = (filter_shape[:num_spatial_dims] - 1) * rate
    start = pad_extra // 2
    end = pad_extra - start
    return array_ops.stack([[start[i], end[i]] for i in range(num_spatial_dims)])


def _adjust(orig, fill_value, spatial_dims):
    """``orig`` (one row per spatial dim) spread to rows ``0 .. max(spatial_dims) - 1`` of
    the input's non-batch dims, ``fill_value`` rows elsewhere: SpaceToBatchND blocks the
    leading dims, so a channels-first input needs a unit block for its channel dim."""
    from tfcompat.ops import array_ops

    known = constant_value(orig) if not isinstance(orig, np.ndarray) else orig
    source = known if known is not None else orig
    fill_dims = list(np.shape(known)[1:]) if known is not None else orig.shape.as_list()[1:]
    dtype = (known if known is not None else np.zeros(0, orig.dtype.as_numpy_dtype)).dtype
    parts, previous, i = [], 0, 0
    while i < len(spatial_dims):
        start_i, first = i, spatial_dims[i]
        if first > 1:
            parts.append(np.full([first - 1 - previous] + fill_dims, fill_value, dtype=dtype))
        while i + 1 < len(spatial_dims) and spatial_dims[i + 1] == spatial_dims[i] + 1:
            i += 1
        parts.append(source[start_i : i + 1])
        previous = spatial_dims[i]
        i += 1
    if known is not None:
        return np.concatenate(parts)
    return array_ops.concat(parts, 0)


class SpaceToBatchWindow:
    """TF's ``_WithSpaceToBatch``: prepares ``dilation_rate`` (a Const named
    ``dilation_rate``) and the base paddings at construction, as TF does, so constants are
    created in TF's order; calling it on ``(input, filter)`` builds the SpaceToBatchND /
    op / BatchToSpaceND sandwich (or just the op when every rate is 1).

    ``build_op(num_spatial_dims, padding)`` returns ``fn(input, filter) -> output``.
    """

    def __init__(self, input_shape, dilation_rate, padding, build_op, filter_shape=None,
                 spatial_dims=None, data_format=None, num_batch_dims=1):  # fmt: skip
        from tfcompat.ops.conv_ops import convert_padding

        rate = convert_to_tensor(dilation_rate, dtypes.int32, name="dilation_rate")
        if rate.shape.rank not in (None, 1):
            raise ValueError(
                "`dilation_rate.shape.rank` must be 1. Received: "
                f"dilation_rate={rate} of rank {rate.shape.rank}"
            )
        if not rate.shape.is_fully_defined():
            raise ValueError(
                "`dilation_rate.shape` must be fully defined. Received: "
                f"dilation_rate={rate} with shape {rate.shape}"
            )
        n = rate.shape[0].value
        channels_first = data_format is not None and data_format.startswith("NC")
        first_spatial = num_batch_dims + (1 if channels_first else 0)
        if spatial_dims is None:
            spatial_dims = range(first_spatial, n + first_spatial)
        given = list(spatial_dims)
        spatial_dims = sorted({int(d) for d in given})
        if spatial_dims != given or any(d < 1 for d in spatial_dims):
            raise ValueError(
                "`spatial_dims` must be a monotonically increasing sequence of positive "
                f"integers. Received: spatial_dims={given}"
            )
        expected_rank = spatial_dims[-1] + (0 if channels_first else 1)
        if input_shape.rank is not None and input_shape.rank < expected_rank:
            raise ValueError(
                f"`input.shape.rank` must be at least {expected_rank}. Received: "
                f"input.shape={input_shape} with rank {input_shape.rank}"
            )
        const_rate = constant_value(rate)
        rate_value = rate
        if const_rate is not None:
            rate_value = const_rate
            if np.any(const_rate < 1):
                raise ValueError(
                    f"`dilation_rate` must be positive. Received: dilation_rate={const_rate}"
                )
            if np.all(const_rate == 1):
                self.call = build_op(n, padding)
                return
        padding, explicit_paddings = convert_padding(padding)
        self.base_paddings = None
        if padding == "SAME":
            if filter_shape is None:
                raise ValueError(
                    "`filter_shape` must be specified for `padding='SAME'`. Received: "
                    f"filter_shape={filter_shape} and padding={padding}"
                )
            filter_shape = convert_to_tensor(filter_shape, name="filter_shape")
            const_filter = constant_value(filter_shape)
            if const_filter is not None:
                self.base_paddings = _base_paddings(const_filter, n, rate_value)
            else:
                self.num_spatial_dims, self.rate_value = n, rate_value
        elif padding == "VALID":
            self.base_paddings = np.zeros([n, 2], np.int32)
        elif padding == "EXPLICIT":
            full = np.array(explicit_paddings).reshape([n + 2, 2])
            self.base_paddings = full[2:] if channels_first else full[1:-1]
        else:
            raise ValueError(
                f"`padding` must be one of 'SAME' or 'VALID'. Received: padding={padding}"
            )
        self.input_shape = input_shape
        self.spatial_dims = spatial_dims
        self.dilation_rate = rate
        self.channels_first = channels_first
        self.op = build_op(n, "VALID")
        self.call = self._call

    def _call(self, inp, filter):  # noqa: A002
        from tfcompat.ops import array_ops

        spatial = None
        if self.input_shape.rank is not None:
            dims = self.input_shape.as_list()
            spatial = [dims[i] for i in self.spatial_dims]
        if spatial is None or None in spatial:
            shape = array_ops.shape(inp)
            spatial = array_ops.stack([shape[i] for i in self.spatial_dims])
        base = self.base_paddings
        if base is None:
            base = _base_paddings(array_ops.shape(filter), self.num_spatial_dims, self.rate_value)
        paddings, crops = required_space_to_batch_paddings(
            input_shape=spatial, base_paddings=base, block_shape=self.dilation_rate
        )
        rate = _adjust(self.dilation_rate, 1, self.spatial_dims)
        paddings = _adjust(paddings, 0, self.spatial_dims)
        crops = _adjust(crops, 0, self.spatial_dims)
        converted = space_to_batch_nd(input=inp, block_shape=rate, paddings=paddings)
        result = self.op(converted, filter)
        result = batch_to_space_nd(input=result, block_shape=rate, crops=crops)
        if self.channels_first and result.shape.rank and result.shape[1].value is None:
            if filter is not None:
                dims = result.shape.as_list()
                dims[1] = filter.shape[-1].value
                result.set_shape(dims)
        return result

    def __call__(self, inp, filter):  # noqa: A002
        return self.call(inp, filter)


@tf_export("nn.with_space_to_batch")
def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None,  # noqa: A002
                        spatial_dims=None, data_format=None):  # fmt: skip
    """Runs ``op(converted, num_spatial_dims, padding)`` on the space-to-batch form of
    ``input``, which turns a window op into its dilated ("atrous") version."""
    input = convert_to_tensor(input, name="input")  # noqa: A001

    def build_op(num_spatial_dims, pad):
        return lambda inp, _: op(inp, num_spatial_dims, pad)

    window = SpaceToBatchWindow(
        input.shape, dilation_rate, padding, build_op, filter_shape=filter_shape,
        spatial_dims=spatial_dims, data_format=data_format,
    )  # fmt: skip
    return window(input, None)


def _strides_and_rate(n, strides, dilation_rate):
    """TF's checks of ``strides`` and ``dilation_rate`` for convolution and pool."""
    rate = np.array([1] * n if dilation_rate is None else dilation_rate, dtype=np.int32)
    if rate.shape != (n,):
        raise ValueError(
            f"`len(dilation_rate)` should be {n}. Received: dilation_rate={dilation_rate} of "
            f"length {len(dilation_rate)}"
        )
    if np.any(rate < 1):
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: {rate}")
    strides = np.array([1] * n if strides is None else strides, dtype=np.int32)
    if strides.shape != (n,):
        raise ValueError(
            f"`len(strides)` should be {n}. Received: strides={list(strides)} of length "
            f"{len(strides)}"
        )
    if np.any(strides < 1):
        raise ValueError(f"all values of `strides` must be positive. Received: {strides}")
    if np.any(strides > 1) and np.any(rate > 1):
        raise ValueError(
            "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
            f"Received: strides={strides} and dilation_rate={rate}"
        )
    return strides, rate


def _undilated_conv(n, strides, data_format, scope):
    """The conv op TF's ``_NonAtrousConvolution`` builds for ``n`` spatial dims."""
    from tfcompat.ops import conv_ops

    channels_first = data_format is not None and data_format.startswith("NC")
    full = [1, 1, *strides] if channels_first else [1, *strides, 1]

    def conv(inp, filt, padding):
        if n == 1:
            fmt = data_format or "NWC"
            return conv_ops.conv1d(inp, filt, int(strides[0]), padding, data_format=fmt,
                                   name=scope)  # fmt: skip
        if n == 2:
            return conv_ops.conv2d(inp, filt, full, padding, data_format=data_format or "NHWC",
                                   name=scope)  # fmt: skip
        return conv_ops.conv3d(inp, filt, full, padding, data_format=data_format or "NDHWC",
                               name=scope)  # fmt: skip

    return conv


def dilated_convolution(input, filter, padding, strides, dilation_rate, data_format, scope):  # noqa: A002
    """TF 2.21's ``Convolution`` class in scope ``scope``: the convolution (named by the
    scope) between SpaceToBatchND and BatchToSpaceND. ``strides``/``dilation_rate`` are the
    spatial values."""
    n = filter.shape.rank - 2 if filter.shape.rank is not None else input.shape.rank - 2
    channels_first = data_format is not None and data_format.startswith("NC")
    num_batch_dims = 1 if input.shape.rank is None else input.shape.rank - n - 1
    first = num_batch_dims + (1 if channels_first else 0)
    strides, rate = _strides_and_rate(n, strides, dilation_rate)
    conv = _undilated_conv(n, strides, data_format, scope)
    window = SpaceToBatchWindow(
        input.shape, rate, padding,
        lambda _, pad: (lambda inp, filt: conv(inp, filt, pad)),
        filter_shape=filter.shape, spatial_dims=range(first, first + n),
        data_format=data_format, num_batch_dims=num_batch_dims,
    )  # fmt: skip
    return window(input, filter)
