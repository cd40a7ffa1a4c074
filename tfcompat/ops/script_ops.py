"""``tf.py_func`` (TF1): a Python function called on numpy arrays as a graph op (``PyFunc``
/ ``PyFuncStateless`` with TF's ``token`` attr, ``pyfunc_<n>``).

The function is the user's own code, kept by token in this process (as TF's
``FuncRegistry``); a GraphDef holds only the token, so an imported ``PyFunc`` runs only
where its token is registered. Outputs of unknown shape make it a host op: it runs in numpy
between device segments (``lowering/reference/script_ops.py``), with TF's checks of the
returned values' count and dtypes and TF's error classes for a raised exception.
"""

from __future__ import annotations

import itertools
import weakref

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.gradient_registry import no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.util.tf_export import tf_export

for _op_type in ("PyFunc", "PyFuncStateless"):
    register_op(
        _op_type,
        inputs=["input: Tin"],
        outputs=["output: Tout"],
        attrs=["token: string", "Tin: list(type) >= 0", "Tout: list(type) >=0"],
        shape_fn=lambda op: [tensor_shape.unknown_shape() for _ in op.outputs],
        is_stateful=_op_type == "PyFunc",
        host=True,
    )
    no_gradient(_op_type)

# token -> function; the graphs using a function keep it alive (as TF's registry does).
_FUNCTIONS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_TOKENS = itertools.count()


def registered_function(token: str):
    """The function registered under ``token`` (None if none is)."""
    return _FUNCTIONS.get(token)


@tf_export("py_func")
def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's argument name
    """Wraps ``func`` (numpy arrays in, numpy arrays or Python values out) as an op: its
    outputs have dtypes ``Tout`` (a list, or one dtype for a single output) and unknown
    shapes. ``stateful=False`` lets identical calls be merged (``PyFuncStateless``)."""
    is_list = isinstance(Tout, (list, tuple))
    tout = [dtypes.as_dtype(t) for t in (Tout if is_list else [Tout])]
    token = f"pyfunc_{next(_TOKENS)}"
    _FUNCTIONS[token] = func
    graph = graph_lib.get_default_graph()
    # Stored on the graph so that the function lives as long as the graph does.
    graph._extensions.setdefault("py_funcs_used_in_graph", []).append(func)
    op = apply_op(
        "PyFunc" if stateful else "PyFuncStateless",
        name=name,
        input=list(inp),
        token=token,
        Tout=tout,
    )
    return op.outputs if is_list else op.outputs[0]
