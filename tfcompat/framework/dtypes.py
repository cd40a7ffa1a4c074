"""TensorFlow's DType objects: names, DataType enum values and numpy equivalents.

The enum values are those of TensorFlow's ``types.proto`` so that a GraphDef written here
names the same types TensorFlow reads. Reference types (``float32_ref``) are the base value
plus 100, as in TensorFlow; they are the dtype of a TF1 ``VariableV2`` output.

Every property (``is_floating``, ``size``, ``min``, ``limits``, ``as_numpy_dtype``...) and
``as_dtype`` follow TF 2.21 observably, quirks included (``as_dtype(int)`` is a TypeError,
``string.size`` is 0, quantized types map to structured numpy dtypes).
"""

from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

from tfcompat.framework.proto import types_pb2

_REF_OFFSET = 100

# Numpy stand-ins for the quantized types: a one-field structured dtype, as TF uses.
_np_qint8 = np.dtype([("qint8", np.int8)])
_np_quint8 = np.dtype([("quint8", np.uint8)])
_np_qint16 = np.dtype([("qint16", np.int16)])
_np_quint16 = np.dtype([("quint16", np.uint16)])
_np_qint32 = np.dtype([("qint32", np.int32)])

# (enum, name, numpy type or None, kind). ``kind`` drives the is_* properties; ``None``
# numpy type means TF has no numpy equivalent (``as_numpy_dtype`` raises KeyError).
_TABLE = [
    (1, "float32", np.float32, "float"),
    (2, "float64", np.float64, "float"),
    (3, "int32", np.int32, "int"),
    (4, "uint8", np.uint8, "uint"),
    (5, "int16", np.int16, "int"),
    (6, "int8", np.int8, "int"),
    (7, "string", object, "string"),
    (8, "complex64", np.complex64, "complex"),
    (9, "int64", np.int64, "int"),
    (10, "bool", np.bool_, "bool"),
    (11, "qint8", _np_qint8, "quantized"),
    (12, "quint8", _np_quint8, "quantized"),
    (13, "qint32", _np_qint32, "quantized"),
    (14, "bfloat16", ml_dtypes.bfloat16, "float"),
    (15, "qint16", _np_qint16, "quantized"),
    (16, "quint16", _np_quint16, "quantized"),
    (17, "uint16", np.uint16, "uint"),
    (18, "complex128", np.complex128, "complex"),
    (19, "float16", np.float16, "float"),
    (20, "resource", None, "handle"),
    (21, "variant", None, "handle"),
    (22, "uint32", np.uint32, "uint"),
    (23, "uint64", np.uint64, "uint"),
    (24, "float8_e5m2", ml_dtypes.float8_e5m2, "narrow_float"),
    (25, "float8_e4m3fn", ml_dtypes.float8_e4m3fn, "narrow_float"),
    (26, "float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, "narrow_float"),
    (27, "float8_e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz, "narrow_float"),
    (28, "float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, "narrow_float"),
    (29, "int4", ml_dtypes.int4, "narrow_int"),
    (30, "uint4", ml_dtypes.uint4, "narrow_uint"),
    (31, "int2", ml_dtypes.int2, "narrow_int"),
    (32, "uint2", ml_dtypes.uint2, "narrow_uint"),
    (33, "float4_e2m1fn", ml_dtypes.float4_e2m1fn, "narrow_float"),
]

_NAMES = {}
_NUMPY = {}
_KIND = {}
for _enum, _name, _np, _kind in _TABLE:
    for _e, _n in ((_enum, _name), (_enum + _REF_OFFSET, _name + "_ref")):
        _NAMES[_e] = _n
        _KIND[_e] = _kind
        if _np is not None:
            _NUMPY[_e] = _np
# TF's one inconsistency: string_ref maps to np.object_ where string maps to ``object``.
_NUMPY[7 + _REF_OFFSET] = np.object_

_FLOAT_KINDS = {"float", "narrow_float"}
_INT_KINDS = {"int", "uint", "narrow_int", "narrow_uint"}
_UNSIGNED_KINDS = {"uint", "narrow_uint"}
# ``is_numeric`` in TF covers the standard number types only (not float8/int4 & co).
_NUMERIC_KINDS = {"float", "int", "uint", "complex", "quantized"}
# Kinds whose ``size`` TF reports as 0 (variable-length or opaque elements).
_SIZELESS_KINDS = {"string", "handle"}

# ``limits`` ranges, keyed by numpy type (TF's image-intensity table: floats are [-1, 1]).
_LIMITS = {
    np.bool_: (False, True),
    np.uint8: (0, 255),
    np.uint16: (0, 65535),
    np.int8: (-128, 127),
    np.int16: (-32768, 32767),
    np.int64: (-(2**63), 2**63 - 1),
    np.uint64: (0, 2**64 - 1),
    np.int32: (-(2**31), 2**31 - 1),
    np.uint32: (0, 2**32 - 1),
    np.float32: (-1, 1),
    np.float64: (-1, 1),
}


class DType:
    """A tensor element type, identified by its TensorFlow ``DataType`` enum value."""

    __slots__ = ("_enum",)

    def __init__(self, type_enum: int):
        type_enum = int(type_enum)
        if type_enum not in _NAMES:
            raise TypeError(f"{type_enum} does not correspond to a valid tensorflow::DataType")
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
        if type(other) is not DType:
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

    _is_ref_dtype = is_ref_dtype

    @property
    def base_dtype(self) -> DType:
        return _BY_ENUM[self._enum - _REF_OFFSET] if self.is_ref_dtype else self

    @property
    def _as_ref(self) -> DType:
        return self if self.is_ref_dtype else _BY_ENUM[self._enum + _REF_OFFSET]

    # -- numpy ----------------------------------------------------------------------------
    @property
    def as_numpy_dtype(self):
        """The numpy type; KeyError for ``resource`` and ``variant``, as in TF."""
        return _NUMPY[self._enum]

    @property
    def real_dtype(self) -> DType:
        """The type of the real part for complex types; ``self`` otherwise (refs kept)."""
        base = self.base_dtype
        return {complex64: float32, complex128: float64}.get(base, self)

    # -- classification -------------------------------------------------------------------
    @property
    def _kind(self) -> str:
        return _KIND[self._enum]

    @property
    def is_floating(self) -> bool:
        return self._kind in _FLOAT_KINDS

    @property
    def is_complex(self) -> bool:
        return self._kind == "complex"

    @property
    def is_integer(self) -> bool:
        return self._kind in _INT_KINDS

    @property
    def is_unsigned(self) -> bool:
        return self._kind in _UNSIGNED_KINDS

    @property
    def is_bool(self) -> bool:
        return self._kind == "bool"

    @property
    def is_quantized(self) -> bool:
        return self._kind == "quantized"

    @property
    def is_numeric(self) -> bool:
        return self._kind in _NUMERIC_KINDS

    @property
    def is_numpy_compatible(self) -> bool:
        return self._kind != "handle"

    @property
    def size(self) -> int:
        """Bytes per element; 0 for strings, resources and variants."""
        if self._kind in _SIZELESS_KINDS:
            return 0
        return np.dtype(self.as_numpy_dtype).itemsize

    @property
    def min(self):
        """The smallest finite value; TypeError for non-ordered or quantized types."""
        return self._extreme("min", "minimum")

    @property
    def max(self):
        """The largest finite value; TypeError for non-ordered or quantized types."""
        return self._extreme("max", "maximum")

    def _extreme(self, attr, word):
        if self.is_quantized or self._kind in ("bool", "string", "complex"):
            kind = "quantized type" if self.is_quantized else "type"
            raise TypeError(f"Cannot find {word} value of {self} with {kind} {self.base_dtype}.")
        if self.is_floating:
            return getattr(ml_dtypes.finfo(self.as_numpy_dtype), attr)
        if self.is_integer:
            return getattr(ml_dtypes.iinfo(self.as_numpy_dtype), attr)
        raise TypeError(f"Cannot find {word} value of {self}.")

    @property
    def limits(self):
        """TF's image intensity range ``(0, max)`` (negative side clipped)."""
        if self.as_numpy_dtype not in _LIMITS:
            raise ValueError(str(self) + " does not have defined limits.")
        _, high = _LIMITS[self.as_numpy_dtype]
        return 0, high

    def is_compatible_with(self, other) -> bool:
        """True when a value of ``other`` may be used where ``self`` is expected (TF1: a
        ref type converts to its base type)."""
        other = as_dtype(other)
        return self._enum in (other.as_datatype_enum, other.base_dtype.as_datatype_enum)


_BY_ENUM = {e: DType(e) for e in _NAMES}

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
float8_e5m2 = _BY_ENUM[24]
float8_e4m3fn = _BY_ENUM[25]
float8_e4m3fnuz = _BY_ENUM[26]
float8_e4m3b11fnuz = _BY_ENUM[27]
float8_e5m2fnuz = _BY_ENUM[28]
int4 = _BY_ENUM[29]
uint4 = _BY_ENUM[30]
int2 = _BY_ENUM[31]
uint2 = _BY_ENUM[32]
float4_e2m1fn = _BY_ENUM[33]
double = float64

# ---------------------------------------------------------------------------------------------
# as_dtype
# ---------------------------------------------------------------------------------------------
# numpy scalar type -> DType (an np.dtype is looked up by its ``.type``).
_NP_TO_DTYPE = {
    np_type: _BY_ENUM[enum]
    for enum, _, np_type, kind in _TABLE
    if np_type is not None and kind != "quantized" and np_type is not object
}
_NP_TO_DTYPE.update(
    {
        np.object_: string,
        np.bytes_: string,
        np.str_: string,
        np.longlong: int64,
        np.ulonglong: uint64,
    }
)
# The structured quantized dtypes are matched as whole np.dtype objects.
_QUANTIZED_NP = {np_type: _BY_ENUM[e] for e, _, np_type, k in _TABLE if k == "quantized"}

# Every hashable value as_dtype accepts directly: enums, names (with TF's aliases), the
# numpy tables and the three Python types TF maps.
_ANY_TO_DTYPE = dict(_BY_ENUM)
_ANY_TO_DTYPE.update({d.name: d for d in _BY_ENUM.values()})
for _alias, _dtype in (("half", float16), ("float", float32), ("double", float64)):
    _ANY_TO_DTYPE[_alias] = _dtype
    _ANY_TO_DTYPE[_alias + "_ref"] = _dtype._as_ref
_ANY_TO_DTYPE.update(_NP_TO_DTYPE)
_ANY_TO_DTYPE.update(_QUANTIZED_NP)
_ANY_TO_DTYPE.update({builtins.float: float32, builtins.bool: bool, builtins.object: string})
if hasattr(np, "dtypes") and hasattr(np.dtypes, "StringDType"):
    _ANY_TO_DTYPE[np.dtypes.StringDType()] = string


def as_dtype(type_value) -> DType:
    """Converts ``type_value`` to a ``DType``: a DType, DataType enum, name (``"float32"``,
    ``"float"``, ``"half_ref"``...), numpy dtype or scalar type, ``float``/``bool``/
    ``object``, or anything with a numpy ``.dtype``. TypeError otherwise (``int`` and
    ``str`` included, as in TF)."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, np.dtype):
        found = _NP_TO_DTYPE.get(type_value.type)
        if found is not None:
            return found
    try:
        return _ANY_TO_DTYPE[type_value]
    except (KeyError, TypeError):  # TypeError: unhashable
        pass
    if hasattr(type_value, "dtype"):
        try:
            return _NP_TO_DTYPE[np.dtype(type_value.dtype).type]
        except (KeyError, TypeError):
            pass
    if hasattr(type_value, "as_datatype_enum"):  # another framework's DType
        return _BY_ENUM[type_value.as_datatype_enum]
    raise TypeError(
        f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType."
    )


# ---------------------------------------------------------------------------------------------
# Proto spellings (DT_FLOAT, DT_INT32_REF): text-format protos and OpDef attr defaults
# ---------------------------------------------------------------------------------------------
def proto_name(dtype: DType) -> str:
    """The ``DT_*`` spelling of ``dtype`` as it appears in text-format protos."""
    return types_pb2.DataType.Name(as_dtype(dtype).as_datatype_enum)


def from_proto_name(name: str) -> DType:
    """The DType spelled ``DT_*`` (``DT_FLOAT`` -> float32); ValueError if unknown."""
    return _BY_ENUM[types_pb2.DataType.Value(name)]


_QUANTIZED = (qint8, quint8, qint16, quint16, qint32)
QUANTIZED_DTYPES = frozenset(_QUANTIZED + tuple(d._as_ref for d in _QUANTIZED))
