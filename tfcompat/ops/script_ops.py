"""``tf.py_func`` (TF1): a Python function called on numpy arrays as a graph op (``PyFunc``
/ ``PyFuncStateless`` with TF's ``token`` attr, ``pyfunc_<n>``).

The function is the user's own code, kept by token in this process (as TF's
``FuncRegistry``); a GraphDef holds only the token, so an imported ``PyFunc`` runs only
where its token is registered. Outputs of unknown shape make it a host op: it runs in numpy
between device segments (``lowering/reference/script_ops.py``), with TF's checks of the
returned values' count and dtypes and TF's error classes for a raised exception.
"""

from __future__ import annotations

import functools
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
    # A Python wrapper (as TF's is) can be weakly referenced where ``func`` may not be
    # (a numpy ufunc, a builtin); the graph's list keeps it alive.
    func = _weakly_referable(func)
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


def _weakly_referable(func):
    @functools.wraps(func)
    def call(*args):
        return func(*args)

    return call


@tf_export("numpy_function")
def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):  # noqa: N803
    """``tf.py_func`` under its TF 2 name (the same ``PyFunc`` op); without ``func``, a
    decorator (``@tf.numpy_function(Tout=...)``). TF's argument checks and messages."""
    if Tout is None:
        raise TypeError(
            "Missing required argument: 'Tout'\n  If using tf.numpy_function as a decorator, "
            "set `Tout`\n  **by name** above the function:\n  `@tf.numpy_function(Tout=tout)`"
        )
    if func is None:
        if inp is not None:
            raise TypeError(
                "Don't set the `inp` argument when using tf.numpy_function as a decorator "
                "(`func=None`)."
            )

        def decorator(function):
            @functools.wraps(function)
            def wrapper(*args):
                return py_func(function, list(args), Tout, stateful=stateful, name=name)

            return wrapper

        return decorator
    if inp is None:
        raise TypeError(
            "Missing argument `inp`:\n  You must set the `inp` argument (the list of arguments "
            "to the\n  function), unless you use `tf.numpy_function` as a decorator(`func=None`)."
        )
    return py_func(func, inp, Tout, stateful=stateful, name=name)
