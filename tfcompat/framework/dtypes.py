"""TensorFlow's DType objects: names, DataType enum values and numpy equivalents.

The enum values are those of TensorFlow's ``types.proto`` so that a GraphDef written here
names the same types TensorFlow reads. Reference types (``float32_ref``) are the base value
plus 100, as in TensorFlow; they are the dtype of a TF1 ``VariableV2`` output.
"""

from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

_REF_OFFSET = 100


class DType:
    """A tensor element type, identified by its TensorFlow ``DataType`` enum value."""

    __slots__ = ("_enum",)

    def __init__(self, type_enum: int):
        type_enum = int(type_enum)
        if type_enum not in _NAMES:
            raise TypeError(f"type_enum is not a valid types_pb2.DataType: {type_enum}")
        self._enum = type_enum

    # -- identity -------------------------------------------------------------------------
    @property
    def as_datatype_enum(self) -> int:
        return self._enum

    @property
    def name(self) -> str:
        return _NAMES[self._enum]

    def __repr__(self):
        return f"tf.{self.name}"

    def __str__(self):
        return f"<dtype: {self.name!r}>"

    def __eq__(self, other):
        if other is None:
            return False
        if not isinstance(other, DType):
            try:
                other = as_dtype(other)
            except TypeError:
                return False
        return self._enum == other._enum

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._enum

    def __reduce__(self):
        return as_dtype, (self.name,)

    # -- reference types ------------------------------------------------------------------
    @property
    def is_ref_dtype(self) -> bool:
        return self._enum > _REF_OFFSET

    @property
    def base_dtype(self) -> DType:
        return _BY_ENUM[self._enum - _REF_OFFSET] if self.is_ref_dtype else self

    @property
    def _as_ref(self) -> DType:
        return self if self.is_ref_dtype else _BY_ENUM[self._enum + _REF_OFFSET]

    # -- numpy ----------------------------------------------------------------------------
    @property
    def as_numpy_dtype(self):
        return _NUMPY[self.base_dtype._enum]

    @property
    def real_dtype(self) -> DType:
        base = self.base_dtype
        return {complex64: float32, complex128: float64}.get(base, base)

    # -- classification -------------------------------------------------------------------
    @property
    def is_floating(self) -> bool:
        return self.base_dtype in _FLOATING

    @property
    def is_complex(self) -> bool:
        return self.base_dtype in (complex64, complex128)

    @property
    def is_integer(self) -> bool:
        return self.base_dtype in _INTEGER

    @property
    def is_unsigned(self) -> bool:
        return self.base_dtype in (uint8, uint16, uint32, uint64)

    @property
    def is_bool(self) -> bool:
        return self.base_dtype == bool

    @property
    def is_quantized(self) -> bool:
        return self.base_dtype in (qint8, quint8, qint16, quint16, qint32)

    @property
    def is_numpy_compatible(self) -> bool:
        return self.base_dtype not in (resource, variant)

    @property
    def size(self) -> int:
        if self.base_dtype in (resource, variant, string):
            return 1
        return np.dtype(self.as_numpy_dtype).itemsize

    @property
    def min(self):
        base = self.base_dtype
        if base.is_floating:
            return ml_dtypes.finfo(base.as_numpy_dtype).min
        if base.is_integer:
            return np.iinfo(base.as_numpy_dtype).min
        if base.is_bool:
            return False
        raise TypeError(f"Cannot find minimum value of {self}.")

    @property
    def max(self):
        base = self.base_dtype
        if base.is_floating:
            return ml_dtypes.finfo(base.as_numpy_dtype).max
        if base.is_integer:
            return np.iinfo(base.as_numpy_dtype).max
        if base.is_bool:
            return True
        raise TypeError(f"Cannot find maximum value of {self}.")

    def is_compatible_with(self, other) -> bool:
        """True when a value of ``other`` may be used where ``self`` is expected."""
        other = as_dtype(other)
        return self._enum in (other.as_datatype_enum, other.base_dtype.as_datatype_enum)


# (enum, name, numpy type); numpy type None where numpy has no equivalent.
_TABLE = [
    (1, "float32", np.float32),
    (2, "float64", np.float64),
    (3, "int32", np.int32),
    (4, "uint8", np.uint8),
    (5, "int16", np.int16),
    (6, "int8", np.int8),
    (7, "string", np.object_),
    (8, "complex64", np.complex64),
    (9, "int64", np.int64),
    (10, "bool", np.bool_),
    (11, "qint8", np.int8),
    (12, "quint8", np.uint8),
    (13, "qint32", np.int32),
    (14, "bfloat16", ml_dtypes.bfloat16),
    (15, "qint16", np.int16),
    (16, "quint16", np.uint16),
    (17, "uint16", np.uint16),
    (18, "complex128", np.complex128),
    (19, "float16", np.float16),
    (20, "resource", np.object_),
    (21, "variant", np.object_),
    (22, "uint32", np.uint32),
    (23, "uint64", np.uint64),
]

_NAMES = {0: "invalid"}
_NUMPY = {}
for _enum, _name, _np in _TABLE:
    _NAMES[_enum] = _name
    _NAMES[_enum + _REF_OFFSET] = _name + "_ref"
    _NUMPY[_enum] = _np

_BY_ENUM = {e: DType(e) for e in _NAMES if e != 0}
invalid = DType.__new__(DType)
invalid._enum = 0

float32 = _BY_ENUM[1]
float64 = _BY_ENUM[2]
int32 = _BY_ENUM[3]
uint8 = _BY_ENUM[4]
int16 = _BY_ENUM[5]
int8 = _BY_ENUM[6]
string = _BY_ENUM[7]
complex64 = _BY_ENUM[8]
int64 = _BY_ENUM[9]
bool = _BY_ENUM[10]  # noqa: A001 - TensorFlow's public name
qint8 = _BY_ENUM[11]
quint8 = _BY_ENUM[12]
qint32 = _BY_ENUM[13]
bfloat16 = _BY_ENUM[14]
qint16 = _BY_ENUM[15]
quint16 = _BY_ENUM[16]
uint16 = _BY_ENUM[17]
complex128 = _BY_ENUM[18]
float16 = _BY_ENUM[19]
half = float16
resource = _BY_ENUM[20]
variant = _BY_ENUM[21]
uint32 = _BY_ENUM[22]
uint64 = _BY_ENUM[23]
double = float64

_FLOATING = (float16, bfloat16, float32, float64)
_INTEGER = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)

# Names TensorFlow also accepts: the DataType spellings of OpDef specs ("float", "DT_FLOAT").
_STRING_TO_DTYPE = {d.name: d for d in _BY_ENUM.values()}
_STRING_TO_DTYPE.update(
    {
        "float": float32,
        "double": float64,
        "half": float16,
        "complex": complex64,
    }
)
_PROTO_NAMES = {
    1: "FLOAT",
    2: "DOUBLE",
    3: "INT32",
    4: "UINT8",
    5: "INT16",
    6: "INT8",
    7: "STRING",
    8: "COMPLEX64",
    9: "INT64",
    10: "BOOL",
    11: "QINT8",
    12: "QUINT8",
    13: "QINT32",
    14: "BFLOAT16",
    15: "QINT16",
    16: "QUINT16",
    17: "UINT16",
    18: "COMPLEX128",
    19: "HALF",
    20: "RESOURCE",
    21: "VARIANT",
    22: "UINT32",
    23: "UINT64",
}
for _enum, _pname in _PROTO_NAMES.items():
    _STRING_TO_DTYPE["DT_" + _pname] = _BY_ENUM[_enum]
    _STRING_TO_DTYPE["DT_" + _pname + "_REF"] = _BY_ENUM[_enum + _REF_OFFSET]


def proto_name(dtype: DType) -> str:
    """The ``DT_*`` spelling of ``dtype`` as it appears in text-format protos."""
    base = _PROTO_NAMES[dtype.base_dtype.as_datatype_enum]
    return "DT_" + base + ("_REF" if dtype.is_ref_dtype else "")


_NUMPY_TO_DTYPE = {
    np.dtype(np.float32): float32,
    np.dtype(np.float64): float64,
    np.dtype(np.int32): int32,
    np.dtype(np.int64): int64,
    np.dtype(np.uint8): uint8,
    np.dtype(np.uint16): uint16,
    np.dtype(np.uint32): uint32,
    np.dtype(np.uint64): uint64,
    np.dtype(np.int16): int16,
    np.dtype(np.int8): int8,
    np.dtype(np.complex64): complex64,
    np.dtype(np.complex128): complex128,
    np.dtype(np.float16): float16,
    np.dtype(ml_dtypes.bfloat16): bfloat16,
    np.dtype(np.bool_): bool,
    np.dtype(np.object_): string,
}

# TensorFlow maps these Python types; `int` goes through numpy (int64).
_PYTHON_TO_DTYPE = {builtins.float: float32, builtins.bool: bool, builtins.object: string}


def as_dtype(type_value) -> DType:
    """Converts ``type_value`` (DType, enum, name, numpy or Python type) to a ``DType``."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, builtins.int) and not isinstance(type_value, builtins.bool):
        if type_value in _BY_ENUM:
            return _BY_ENUM[type_value]
    elif isinstance(type_value, str):
        if type_value in _STRING_TO_DTYPE:
            return _STRING_TO_DTYPE[type_value]
    elif isinstance(type_value, type) and type_value in _PYTHON_TO_DTYPE:
        return _PYTHON_TO_DTYPE[type_value]
    elif type_value in (bytes, str):
        return string
    else:
        if hasattr(type_value, "as_numpy_dtype"):  # another framework's DType
            return as_dtype(type_value.name)
        try:
            np_dtype = np.dtype(type_value)
        except TypeError:
            np_dtype = None
        if np_dtype is not None:
            if np_dtype.kind in "SU":
                return string
            if np_dtype in _NUMPY_TO_DTYPE:
                return _NUMPY_TO_DTYPE[np_dtype]
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")


QUANTIZED_DTYPES = frozenset([qint8, quint8, qint16, quint16, qint32])
