"""The op registry: OpDefs declared the way TensorFlow's ``REGISTER_OP`` declares them.

An op is registered once with TensorFlow's spec strings::

    register_op(
        "MatMul",
        inputs=["a: T", "b: T"],
        outputs=["product: T"],
        attrs=["transpose_a: bool = false", "transpose_b: bool = false",
               "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"],
        shape_fn=matmul_shape,
    )

The strings use TF's grammar (``N * T``, ``Ref(T)``, ``list(type) >= 1``, ``{'SAME', 'VALID'}``),
so an op's declaration can be checked line by line against TensorFlow's. Attr values are kept
in one canonical Python form per attr type; ``ATTR_CANONICALIZERS`` is that table.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcompat.framework import dtypes, errors, tensor_shape


class _NoDefault:
    def __repr__(self):
        return "<required>"


NO_DEFAULT = _NoDefault()


@dataclasses.dataclass(frozen=True)
class ArgDef:
    """One input or output: a fixed ``dtype`` or a ``type_attr``; ``number_attr`` makes it a
    list of N tensors of one type and ``type_list_attr`` a list of tensors of listed types."""

    name: str
    dtype: dtypes.DType | None = None
    type_attr: str | None = None
    number_attr: str | None = None
    type_list_attr: str | None = None
    is_ref: bool = False

    @property
    def is_list(self) -> bool:
        return self.number_attr is not None or self.type_list_attr is not None


@dataclasses.dataclass(frozen=True)
class AttrDef:
    """An attr: its TF type name (``int``, ``list(type)``, ...), default, allowed values and
    minimum (a minimum value for ints, a minimum length for lists)."""

    name: str
    type: str
    default: Any = NO_DEFAULT
    allowed_values: tuple | None = None
    minimum: int | None = None

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


@dataclasses.dataclass
class OpDef:
    """What the registry knows about an op type.

    ``host`` marks ops that run in numpy on the host around the jitted device function
    (strings, files, tables). ``shape_fn(op)`` returns one TensorShape per output.
    """

    name: str
    inputs: tuple[ArgDef, ...]
    outputs: tuple[ArgDef, ...]
    attrs: dict[str, AttrDef]
    shape_fn: Callable | None = None
    is_stateful: bool = False
    host: bool = False
    allows_uninitialized_input: bool = False
    is_commutative: bool = False

    def input_arg(self, name: str) -> ArgDef:
        for arg in self.inputs:
            if arg.name == name:
                return arg
        raise KeyError(name)


OPDEFS: dict[str, OpDef] = {}


def ref_input_flags(op_def: OpDef, attrs: dict) -> list[bool]:
    """For each flattened input of an op, whether its OpDef arg is a ``Ref(T)``."""
    flags = []
    for arg in op_def.inputs:
        if arg.number_attr:
            count = attrs[arg.number_attr]
        elif arg.type_list_attr:
            count = len(attrs[arg.type_list_attr])
        else:
            count = 1
        flags.extend([arg.is_ref] * count)
    return flags


def register_op(
    name: str,
    inputs=(),
    outputs=(),
    attrs=(),
    shape_fn=None,
    is_stateful=False,
    host=False,
    allows_uninitialized_input=False,
    is_commutative=False,
) -> OpDef:
    """Declares op type ``name``; registering a name twice raises AlreadyExistsError."""
    if name in OPDEFS:
        raise errors.AlreadyExistsError(None, None, f"Op with name {name} is already registered")
    attr_defs = {}
    for spec in attrs:
        attr = parse_attr_spec(spec)
        attr_defs[attr.name] = attr
    op_def = OpDef(
        name=name,
        inputs=tuple(_parse_arg_spec(s, attr_defs) for s in inputs),
        outputs=tuple(_parse_arg_spec(s, attr_defs) for s in outputs),
        attrs=attr_defs,
        shape_fn=shape_fn,
        is_stateful=is_stateful,
        host=host,
        allows_uninitialized_input=allows_uninitialized_input,
        is_commutative=is_commutative,
    )
    # Number and type-list attrs referenced only by args are implicit in TF's grammar
    # ("N: int >= 1" is still written out, so we only check they exist).
    for arg in op_def.inputs + op_def.outputs:
        for attr_name in (arg.type_attr, arg.number_attr, arg.type_list_attr):
            if attr_name is not None and attr_name not in attr_defs:
                raise ValueError(f"Op {name}: arg '{arg.name}' uses undeclared attr {attr_name}")
    OPDEFS[name] = op_def
    return op_def


def get_op_def(op_type: str) -> OpDef:
    try:
        return OPDEFS[op_type]
    except KeyError:
        raise errors.NotFoundError(
            None, None, f"Op type not registered '{op_type}' in binary running on tfcompat"
        ) from None


# ---------------------------------------------------------------------------------------------
# Spec parsing
# ---------------------------------------------------------------------------------------------
_ARG_RE = re.compile(r"^\s*(\w+)\s*:\s*(?:(\w+)\s*\*\s*)?(Ref\((\w+)\)|\w+)\s*$")


def _parse_arg_spec(spec: str, attrs: dict[str, AttrDef]) -> ArgDef:
    match = _ARG_RE.match(spec)
    if not match:
        raise ValueError(f"Bad arg spec {spec!r}")
    name, number_attr, type_token, ref_inner = match.groups()
    is_ref = ref_inner is not None
    type_name = ref_inner if is_ref else type_token
    attr = attrs.get(type_name)
    if attr is not None and attr.type == "type":
        return ArgDef(name, type_attr=type_name, number_attr=number_attr, is_ref=is_ref)
    if attr is not None and attr.type == "list(type)":
        return ArgDef(name, type_list_attr=type_name, is_ref=is_ref)
    return ArgDef(name, dtype=dtypes.as_dtype(type_name), number_attr=number_attr, is_ref=is_ref)


# TF's named type sets (``T: numbertype``), as spelled in types.h.
TYPE_ALIASES = {
    "realnumbertype": "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64",
    "numbertype": "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
    "qint32, bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64",
    "quantizedtype": "qint8, quint8, qint32, qint16, quint16",
    "floattype": "half, bfloat16, float, double",
}

_ATTR_RE = re.compile(r"^\s*(\w+)\s*:\s*(.+?)\s*(?:(?<![<>])=\s*(.+?))?\s*$")


def parse_attr_spec(spec: str) -> AttrDef:
    """Parses ``"name: type_expr [= default]"`` in TF's attr grammar."""
    match = _ATTR_RE.match(spec)
    if not match:
        raise ValueError(f"Bad attr spec {spec!r}")
    name, type_expr, default_text = match.groups()
    minimum = None
    min_match = re.match(r"^(.*?)\s*>=\s*(-?\d+)$", type_expr)
    if min_match:
        type_expr, minimum = min_match.group(1), int(min_match.group(2))
    allowed = None
    is_list = False
    list_match = re.match(r"^list\((.*)\)$", type_expr)
    if list_match:
        is_list, type_expr = True, list_match.group(1).strip()
    if type_expr in TYPE_ALIASES:
        type_expr = "{" + TYPE_ALIASES[type_expr] + "}"
    if type_expr.startswith("{"):
        items = [i.strip() for i in type_expr.strip("{}").split(",") if i.strip()]
        items = [a.strip() for i in items for a in TYPE_ALIASES.get(i, i).split(",")]
        if items[0][0] in "'\"":
            base_type = "string"
            allowed = tuple(i.strip("'\"").encode() for i in items)
        else:
            base_type = "type"
            allowed = tuple(dtypes.as_dtype(i) for i in items)
    else:
        base_type = type_expr
    if base_type not in _SCALAR_CANONICALIZERS:
        raise ValueError(f"Attr {name}: unknown attr type {base_type!r}")
    attr_type = f"list({base_type})" if is_list else base_type
    default = NO_DEFAULT
    if default_text is not None:
        default = canonicalize_attr(attr_type, _parse_default(default_text, attr_type))
    return AttrDef(name, attr_type, default, allowed, minimum)


def _parse_default(text: str, attr_type: str):
    text = text.strip()
    if attr_type == "shape" and text.replace(" ", "") == "{unknown_rank:true}":
        return tensor_shape.unknown_shape()
    if text.startswith("["):
        inner = text[1:-1].strip()
        if not inner:
            return []
        return [_parse_default(t, attr_type[5:-1]) for t in inner.split(",")]
    if text in ("true", "false"):
        return text == "true"
    if text[0] in "'\"":
        return text[1:-1]
    if attr_type in ("type", "list(type)"):
        if text.startswith("DT_"):  # REGISTER_OP writes type defaults as DT_FLOAT
            return dtypes.from_proto_name(text)
        return dtypes.as_dtype(text)
    if attr_type in ("float", "list(float)"):
        return float(text)
    if attr_type in ("int", "list(int)"):
        return int(text)
    return text


# ---------------------------------------------------------------------------------------------
# Canonical attr values: one converter per attr type
# ---------------------------------------------------------------------------------------------
def _to_bool(value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"Expected bool, got {value!r} of type '{type(value).__name__}'")
    return bool(value)


def _to_int(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"Expected int, got {value!r} of type '{type(value).__name__}'")
    return int(value)


def _to_float(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"Expected float, got {value!r} of type '{type(value).__name__}'")
    return float(value)


def _to_string(value):
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytes):
        return value
    raise TypeError(f"Expected string, got {value!r} of type '{type(value).__name__}'")


def _to_type(value):
    return dtypes.as_dtype(value)


def _to_shape(value):
    return tensor_shape.as_shape(value)


def _to_tensor(value):
    # Tensor-valued attrs are kept as numpy arrays (strings as object arrays of bytes);
    # graph_def converts them to and from TensorProto.
    if hasattr(value, "tensor_shape") and hasattr(value, "dtype"):  # a TensorProto
        from tfcompat.framework import tensor_util

        return tensor_util.make_ndarray(value)
    return np.asarray(value)


def _to_func(value):
    if isinstance(value, (str, bytes)):
        return value.decode() if isinstance(value, bytes) else value
    return value


_SCALAR_CANONICALIZERS = {
    "bool": _to_bool,
    "int": _to_int,
    "float": _to_float,
    "string": _to_string,
    "type": _to_type,
    "shape": _to_shape,
    "tensor": _to_tensor,
    "func": _to_func,
}


def canonicalize_attr(attr_type: str, value):
    """Converts a user-supplied attr value to the canonical form for ``attr_type``."""
    if attr_type.startswith("list("):
        convert = _SCALAR_CANONICALIZERS[attr_type[5:-1]]
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(f"Expected list for attr, got {value!r}")
        return [convert(v) for v in value]
    return _SCALAR_CANONICALIZERS[attr_type](value)


def validate_attr(op_type: str, attr: AttrDef, value):
    """Checks allowed values and minimums; raises TF's ValueError/TypeError naming the op."""
    values = value if attr.type.startswith("list(") else [value]
    if attr.allowed_values is not None:
        for v in values:
            if v not in attr.allowed_values:
                if attr.type.endswith("type") or attr.type.endswith("type)"):
                    allowed = ", ".join(d.name for d in attr.allowed_values)
                    raise TypeError(
                        f"Value passed to parameter '{attr.name}' has DataType {v.name} "
                        f"not in list of allowed values: {allowed} (op {op_type})"
                    )
                allowed = ", ".join(repr(a.decode()) for a in attr.allowed_values)
                shown = v.decode() if isinstance(v, bytes) else v
                raise ValueError(
                    f"Attr '{attr.name}' of '{op_type}' Op passed string '{shown}' "
                    f"not in: {allowed}."
                )
    if attr.minimum is not None:
        if attr.type.startswith("list("):
            if len(value) < attr.minimum:
                raise ValueError(
                    f"Attr '{attr.name}' of '{op_type}' Op passed list of length "
                    f"{len(value)} less than minimum {attr.minimum}."
                )
        elif value < attr.minimum:
            raise ValueError(
                f"Attr '{attr.name}' of '{op_type}' Op passed {value} less than minimum "
                f"{attr.minimum}."
            )
