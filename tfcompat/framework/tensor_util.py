"""Python values, numpy arrays and ``TensorProto``: conversions with TF's rules.

``to_numpy`` infers dtypes as TensorFlow does for constants (Python ints become int32 when
they fit, Python floats float32, numpy arrays keep their dtype) and refuses lossy conversions
with TF's TypeError. Strings are numpy object arrays of ``bytes``.
"""

from __future__ import annotations

import numbers

import numpy as np

from tfcompat.framework import dtypes, tensor_shape

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _flatten(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flatten(v)
    else:
        yield value


def infer_dtype(value) -> dtypes.DType:
    """The dtype TensorFlow gives a constant made from ``value`` when none is requested."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        if value.dtype.kind in "SUO":
            return dtypes.string
        return dtypes.as_dtype(value.dtype)
    leaves = list(_flatten(value))
    if not leaves:
        return dtypes.float32
    kinds = set()
    for leaf in leaves:
        if isinstance(leaf, (bool, np.bool_)):
            kinds.add("bool")
        elif isinstance(leaf, (str, bytes)):
            kinds.add("string")
        elif isinstance(leaf, np.generic):
            # Inside a list TF builds ``np.array(values)`` and then narrows numpy's 64-bit
            # defaults as for Python numbers: float64 -> float32 always, int64 -> int32 when
            # the values fit (``[np.int64(0)]`` is int32; a numpy array keeps its dtype).
            name = dtypes.as_dtype(leaf.dtype).name
            if name == "float64":
                name = "float32"
            elif name == "int64" and _INT32_MIN <= int(leaf) <= _INT32_MAX:
                name = "int32"
            kinds.add(name)
        elif isinstance(leaf, numbers.Integral):
            kinds.add("int64" if not _INT32_MIN <= leaf <= _INT32_MAX else "int32")
        elif isinstance(leaf, numbers.Real):
            kinds.add("float32")
        elif isinstance(leaf, numbers.Complex):
            kinds.add("complex128")
        elif hasattr(leaf, "dtype") and hasattr(leaf, "op"):
            raise TypeError(
                f"List of Tensors when single Tensor expected: cannot make a constant from {leaf!r}"
            )
        else:
            raise TypeError(
                f"Failed to convert elements of {value!r} to Tensor. Consider casting "
                "elements to a supported type."
            )
    if len(kinds) == 1:
        return dtypes.as_dtype(kinds.pop())
    if "string" in kinds or "bool" in kinds:
        raise TypeError(f"Can't convert {value!r}: mixed element types {sorted(kinds)}")
    for name in ("complex128", "float64", "float32", "int64", "int32"):
        if name in kinds:
            return dtypes.as_dtype(name)
    return dtypes.as_dtype(sorted(kinds)[0])


def _string_array(value):
    """``value`` as an object array of ``bytes`` (str encoded as UTF-8). A batch of
    serialized records is fed every step, so the common inputs take vectorised paths: an
    object array holding bytes only is copied as it is, numpy byte and unicode arrays are
    converted whole; anything else is checked element by element."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "S":
        return value.astype(object)
    if isinstance(value, np.ndarray) and value.dtype.kind == "U":
        return np.char.encode(value, "utf-8").astype(object)
    arr = np.asarray(value, dtype=object)
    flat = arr.ravel().tolist()
    if set(map(type, flat)) <= {bytes}:
        return arr.copy()

    def enc(v):
        if isinstance(v, str):
            return v.encode("utf-8")
        if isinstance(v, (bytes, np.bytes_)):
            return bytes(v)
        raise TypeError(f"Expected string, got {v!r} of type '{type(v).__name__}' instead.")

    out = np.empty(len(flat), dtype=object)
    out[:] = [enc(v) for v in flat]
    return out.reshape(arr.shape)


def to_numpy(value, dtype=None) -> np.ndarray:
    """``value`` as a numpy array of ``dtype`` (or TF's inferred dtype); TypeError, as TF's,
    for Python values of the wrong kind (1.0 or 1.5 to int32, 1 to bool), and for Python
    ints outside the type's range (300 to uint8)."""
    requested = dtype is not None
    dtype = infer_dtype(value) if dtype is None else dtypes.as_dtype(dtype).base_dtype
    if dtype == dtypes.string:
        return _string_array(value)
    np_dtype = dtype.as_numpy_dtype
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind in "SUO" and dtype != dtypes.string:
            raise TypeError(f"Expected {dtype.name}, got a string array instead.")
        return np.asarray(value).astype(np_dtype, copy=False)
    if requested:  # an inferred dtype fits its values by construction
        for leaf in _flatten(value):
            _check_python_leaf(leaf, dtype)
    try:
        return np.asarray(value, dtype=np_dtype)
    except (ValueError, OverflowError) as e:
        raise TypeError(f"Expected {dtype.name}, got {value!r}: {e}") from None


# The Python and numpy types TF's ``make_tensor_proto`` accepts for each kind of requested
# dtype (its ``_AssertCompatible``): a float is never an integer (``constant(1.0, int32)``
# fails, so ``convert_to_tensor([1.0], preferred_dtype=int32)`` falls back to float32), a
# Python bool is an integer and a real number, and a numpy bool in a list fits no dtype.
_INTEGRAL_TYPES = (numbers.Integral, np.integer, tensor_shape.Dimension)
_REAL_TYPES = (numbers.Real, np.integer, np.floating)
_COMPLEX_TYPES = (numbers.Complex, np.number)


def _expected_types(dtype):
    if dtype.is_bool:
        return (bool,)
    if dtype.is_integer:
        return _INTEGRAL_TYPES
    if dtype.is_floating:
        return _REAL_TYPES
    if dtype.is_complex:
        return _COMPLEX_TYPES
    return None  # quantized and other types: numpy decides


def _check_python_leaf(leaf, dtype):
    def fail():
        raise TypeError(f"Expected {dtype.name}, but got {leaf} of type '{type(leaf).__name__}'.")

    expected = _expected_types(dtype)
    if expected is None:
        return
    if isinstance(leaf, np.ndarray):  # an array inside a list is checked by its dtype
        if not issubclass(leaf.dtype.type, expected):
            fail()
        return
    if not isinstance(leaf, expected):
        fail()
    # Unlike TF (whose numpy wraps or raises by version), a Python int outside the
    # type's range is an error rather than a silently different value.
    if dtype.is_integer and isinstance(leaf, int) and not dtype.min <= leaf <= dtype.max:
        fail()


def broadcast_to_shape(array: np.ndarray, shape, verify_shape=False) -> np.ndarray:
    """TF1's graph-mode ``constant(value, shape=...)``: a scalar fills, a matching size
    reshapes, fewer values are followed by copies of the last one (``[1, 2]`` as shape
    ``[4]`` is ``[1, 2, 2, 2]``) and more than the shape holds is a ValueError."""
    shape = [int(d) for d in shape]
    if list(array.shape) == shape:
        return array
    if verify_shape:
        raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {array.shape}.")
    if array.size == 1:
        # A read-only view with zero strides: it still says "one value filling a shape",
        # which make_tensor_proto writes once, as TF does.
        return np.broadcast_to(array.reshape(()), shape)
    size = int(np.prod(shape, dtype=np.int64))
    if array.size == size:
        return array.reshape(shape)
    if array.size > size:
        raise ValueError(f"Too many elements provided. Takes at most {size}, but got {array.size}.")
    flat = array.reshape(-1)
    if not flat.size:
        return (
            np.zeros(shape, array.dtype) if array.dtype != object else np.full(shape, b"", object)
        )
    # TF writes the given values and a reader repeats the last one; the array holds the
    # result (the GraphDef stores all values, where TF's stores the given ones).
    return np.concatenate([flat, np.repeat(flat[-1:], size - flat.size)]).reshape(shape)


# ---------------------------------------------------------------------------------------------
# TensorProto
# ---------------------------------------------------------------------------------------------
# Which repeated field of TensorProto holds which dtype when not using tensor_content.
_VALUE_FIELD = {
    dtypes.float32: "float_val",
    dtypes.float64: "double_val",
    dtypes.int32: "int_val",
    dtypes.uint8: "int_val",
    dtypes.int16: "int_val",
    dtypes.int8: "int_val",
    dtypes.uint16: "int_val",
    dtypes.int64: "int64_val",
    dtypes.uint32: "uint32_val",
    dtypes.uint64: "uint64_val",
    dtypes.bool: "bool_val",
    dtypes.string: "string_val",
    dtypes.float16: "half_val",
    dtypes.bfloat16: "half_val",
    dtypes.complex64: "scomplex_val",
    dtypes.complex128: "dcomplex_val",
    dtypes.qint8: "int_val",
    dtypes.quint8: "int_val",
    dtypes.qint16: "int_val",
    dtypes.quint16: "int_val",
    dtypes.qint32: "int_val",
}


# One-byte float types: TF packs their values into the ``float8_val`` bytes field.
_FLOAT8_TYPES = (
    dtypes.float8_e5m2,
    dtypes.float8_e4m3fn,
    dtypes.float8_e4m3fnuz,
    dtypes.float8_e4m3b11fnuz,
    dtypes.float8_e5m2fnuz,
    dtypes.float4_e2m1fn,
)
for _narrow in (dtypes.int4, dtypes.uint4, dtypes.int2, dtypes.uint2):
    _VALUE_FIELD[_narrow] = "int_val"
for _narrow in _FLOAT8_TYPES:
    _VALUE_FIELD[_narrow] = "float8_val"

# The types TF writes as ``tensor_content`` bytes when a tensor has more than one value (its
# ``_TENSOR_CONTENT_TYPES``); the others (bool, uint16, complex, int4 & co) go element by
# element into their ``*_val`` field whatever their size.
_TENSOR_CONTENT_TYPES = frozenset(
    [
        dtypes.float16,
        dtypes.float32,
        dtypes.float64,
        dtypes.int32,
        dtypes.uint8,
        dtypes.int16,
        dtypes.int8,
        dtypes.int64,
        dtypes.qint8,
        dtypes.quint8,
        dtypes.qint16,
        dtypes.quint16,
        dtypes.qint32,
        dtypes.uint32,
        dtypes.uint64,
        *_FLOAT8_TYPES,
        dtypes.bfloat16,
    ]
)


def make_tensor_proto(values, dtype=None, shape=None):
    """A ``TensorProto`` holding ``values`` as TF writes it: numeric data of more than one
    value as little-endian ``tensor_content`` for the types TF stores so, anything else in
    the type's ``*_val`` field (a single value filling a shape is stored once)."""
    from tfcompat.framework.proto import tensor_pb2

    if isinstance(values, np.ndarray) and values.size > 1 and not any(values.strides):
        # A zero-stride view (constant(0, shape=...)) is one value filling a shape.
        shape, values = values.shape, values[(0,) * values.ndim]
    array = to_numpy(values, dtype)
    full_shape = array.shape if shape is None else tuple(int(d) for d in shape)
    if shape is not None and array.size != 1:
        array = broadcast_to_shape(array, shape)
    tf_dtype = dtypes.string if array.dtype == object else dtypes.as_dtype(array.dtype)
    if dtype is not None:
        tf_dtype = dtypes.as_dtype(dtype).base_dtype
    proto = tensor_pb2.TensorProto(dtype=tf_dtype.as_datatype_enum)
    proto.tensor_shape.CopyFrom(tensor_shape.TensorShape(full_shape).as_proto())
    if tf_dtype == dtypes.string:
        proto.string_val.extend(array.reshape(-1).tolist())
    elif array.size > 1 and tf_dtype in _TENSOR_CONTENT_TYPES:
        proto.tensor_content = (
            np.asarray(array, order="C").astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        )
    else:
        _set_values(proto, tf_dtype, array.reshape(-1))
    return proto


def _set_values(proto, tf_dtype, flat):
    field = getattr(proto, _VALUE_FIELD[tf_dtype])
    if tf_dtype in (dtypes.float16, dtypes.bfloat16):
        field.extend(flat.view(np.uint16).tolist())
    elif _VALUE_FIELD[tf_dtype] == "float8_val":  # one byte a value, as bytes
        proto.float8_val = flat.tobytes()
    elif tf_dtype.is_complex:
        field.extend(np.stack([flat.real, flat.imag], axis=-1).reshape(-1).astype(float).tolist())
    else:
        field.extend(flat.tolist())


def make_ndarray(proto) -> np.ndarray:
    """The numpy array a ``TensorProto`` holds (TF's ``MakeNdarray``)."""
    tf_dtype = dtypes.as_dtype(proto.dtype)
    shape = [d.size for d in proto.tensor_shape.dim]
    count = int(np.prod(shape, dtype=np.int64))
    np_dtype = tf_dtype.as_numpy_dtype
    if tf_dtype == dtypes.string:
        values = list(proto.string_val)
        out = np.empty(count, dtype=object)
        if values:
            out[: len(values)] = values
            out[len(values) :] = values[-1]
        else:
            out[:] = b""
        return out.reshape(shape)
    if proto.tensor_content:
        data = np.frombuffer(proto.tensor_content, dtype=np.dtype(np_dtype).newbyteorder("<"))
        return data.astype(np_dtype).reshape(shape)
    field_name = _VALUE_FIELD.get(tf_dtype)
    if field_name is None:
        raise TypeError(f"Unsupported tensor type {tf_dtype.name} in TensorProto")
    values = list(getattr(proto, field_name))
    if field_name == "float8_val":
        data = np.frombuffer(getattr(proto, field_name), dtype=np_dtype)
    elif tf_dtype in (dtypes.float16, dtypes.bfloat16):
        data = np.asarray(values, dtype=np.uint16).view(np_dtype)
    elif tf_dtype.is_complex:
        pairs = np.asarray(values, dtype=np.float64).reshape(-1, 2)
        data = (pairs[:, 0] + 1j * pairs[:, 1]).astype(np_dtype)
    else:
        data = np.asarray(values, dtype=np_dtype)
    if data.size == count:
        return data.reshape(shape)
    out = np.empty(count, dtype=np_dtype)
    if data.size:
        out[: data.size] = data
        out[data.size :] = data[-1]  # TF repeats the last value to fill
    else:
        out[:] = 0
    return out.reshape(shape)
