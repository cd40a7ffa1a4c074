"""``tf.raw_ops``: every registered op type as a function of keyword arguments.

TF generates one such wrapper per op: its inputs and attrs are passed by their OpDef names
(``tf.raw_ops.MatMul(a=x, b=w, transpose_b=True)``), type and length attrs are inferred
from the inputs, ``name`` names the node, and positional arguments are refused. The
result is what TF's generated wrappers return (``op_helper.op_outputs``): the Operation
of an op without outputs, the Tensor of a one-output op, else a namedtuple named after
the op type. Op types private to the runtime (a leading ``_``) are not exported, as in TF.
"""

from __future__ import annotations

import functools
import keyword

from tfcompat.framework import op_def as op_def_lib
from tfcompat.framework import op_helper


def __getattr__(op_type: str):
    if op_type.startswith("_") or op_type not in op_def_lib.OPDEFS:
        raise AttributeError(f"module 'tf.raw_ops' has no attribute '{op_type}'")
    return _wrapper(op_type)


def __dir__():
    return sorted(name for name in op_def_lib.OPDEFS if not name.startswith("_"))


# TF's api_defs give a few OpDef args other Python names; raw_ops use those.
_RENAMES = {
    **dict.fromkeys(
        ("All", "Any", "EuclideanNorm", "Max", "Mean", "Min", "Prod", "Sum"),
        {"reduction_indices": "axis"},
    ),
    "ExpandDims": {"dim": "axis"},
    "Select": {"t": "x", "e": "y"},
    "Split": {"split_dim": "axis"},
    "SplitV": {"split_dim": "axis"},
    "Squeeze": {"squeeze_dims": "axis"},
    "Where": {"input": "condition"},
}


def python_args(op_def) -> list:
    """``(python name, OpDef name)`` of each argument of the op's wrapper, in TF's order:
    the inputs, then the attrs not inferred from them (those without a default first)."""
    inferred = {
        attr
        for arg in op_def.inputs
        for attr in (arg.type_attr, arg.number_attr, arg.type_list_attr)
        if attr
    }
    attrs = [(n, a) for n, a in op_def.attrs.items() if n not in inferred]
    names = [a.name for a in op_def.inputs]
    names += [n for n, a in attrs if not a.has_default] + [n for n, a in attrs if a.has_default]
    renames = _RENAMES.get(op_def.name, {})
    return [(_python_name(renames.get(n, n)), n) for n in names]


def _python_name(arg_name: str) -> str:
    """TF's keyword for an OpDef name that is a Python keyword (``lambda`` -> ``lambda_``)."""
    return arg_name + "_" if keyword.iskeyword(arg_name) else arg_name


@functools.cache
def _wrapper(op_type: str):
    op_def = op_def_lib.OPDEFS[op_type]
    args = python_args(op_def)
    renamed = dict(args)
    keys = [python for python, _ in args]

    def raw_op(*positional, **kwargs):
        if positional:
            raise TypeError(
                f"{op_type} only takes keyword args (possible keys: {keys + ['name']}). "
                "Please pass these args as kwargs instead."
            )
        name = kwargs.pop("name", None)
        unknown = sorted(k for k in kwargs if k not in renamed)
        if unknown:
            raise TypeError(f"{op_type}() got an unexpected keyword argument '{unknown[0]}'")
        op = op_helper.apply_op(op_type, name=name, **{renamed[k]: v for k, v in kwargs.items()})
        return op_helper.op_outputs(op)

    raw_op.__name__ = raw_op.__qualname__ = op_type
    raw_op.__doc__ = f"The ``{op_type}`` op; keyword arguments: {', '.join(keys)}, name."
    return raw_op
