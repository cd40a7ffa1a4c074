"""``tf.make_template``: a function that creates its variables on the first call and reuses
them on every later one, as TF1 research code shares a network between a training and an
evaluation tower.

The first call opens ``variable_scope(unique_name_, default_name=name_)`` (so the scope is
``name``, ``name_1``... where it is first called, unless ``create_scope_now_``), later calls
re-enter that scope object with ``reuse=True``: variables keep the first call's names while
each call's ops get a fresh name scope (``name_1/...``), as in TF. A later call that creates
a *trainable* variable (``tf.Variable`` where ``tf.get_variable`` was meant) raises TF's
ValueError; any error raised inside the function says where the template was defined.
"""

from __future__ import annotations

import functools
import traceback

from tfcompat.framework import scopes
from tfcompat.framework.graph import GraphKeys
from tfcompat.ops import variable_scope as vs
from tfcompat.platform import tf_logging as logging
from tfcompat.util.tf_export import tf_export


@tf_export("make_template")
def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None,
                  **kwargs):  # fmt: skip
    """Wraps ``func_`` so that it shares variables between calls (``kwargs`` are bound
    to it). ``name_`` names the variable scope (made unique); ``unique_name_`` overrides
    it and is used as is; ``create_scope_now_`` creates the scope here rather than at the
    first call; ``custom_getter_`` is the scope's custom getter."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_,
                    custom_getter=custom_getter_)  # fmt: skip


def _skip_common_stack_elements(stacktrace, base_case):
    """The frames of ``stacktrace`` after those it shares with ``base_case``."""
    for i, (trace, base) in enumerate(zip(stacktrace, base_case)):
        if trace != base:
            return stacktrace[i:]
    return stacktrace[-1:]


@tf_export("Template")
class Template:
    """A function wrapped by ``make_template``: call it like the function."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None, custom_getter=None,
                 create_graph_function=False):  # fmt: skip
        if name is None:
            raise ValueError("name cannot be None.")
        if create_graph_function:
            raise ValueError("create_graph_function is an eager-mode option (not in graph mode)")
        self._func = func
        self._stacktrace = traceback.format_stack()[:-2]
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._variable_scope = None
        if create_scope_now:
            scope_name = unique_name or vs._get_unique_variable_scope(name)
            with vs._PureVariableScope(scope_name, custom_getter=custom_getter) as scope:
                self._variable_scope = scope
        self._variables_created = False
        self._first_call = True

    def _call_func(self, args, kwargs):
        try:
            if not self._variables_created:
                result = self._func(*args, **kwargs)
                self._variables_created = True
            else:
                graph = scopes._graph_from([])
                variables_at_start = len(graph.get_collection(GraphKeys.GLOBAL_VARIABLES))
                trainable_at_start = len(graph.get_collection(GraphKeys.TRAINABLE_VARIABLES))
                result = self._func(*args, **kwargs)
                trainable = graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
                if len(trainable) != trainable_at_start:
                    raise ValueError(
                        "Trainable variable created when calling a template after the first "
                        "time, perhaps you used tf.Variable when you meant tf.get_variable: "
                        f"{trainable[trainable_at_start:]}"
                    )
                variables = graph.get_collection(GraphKeys.GLOBAL_VARIABLES)
                if len(variables) != variables_at_start:
                    logging.info(
                        "New variables created when calling a template after the first "
                        "time, perhaps you used tf.Variable when you meant "
                        "tf.get_variable: %s",
                        variables[variables_at_start:],
                    )
            self._first_call = False
            return result
        except Exception as exc:
            # TF's behaviour: the error also says where the template was made.
            trace = "".join(_skip_common_stack_elements(self._stacktrace, traceback.format_stack()))
            first = exc.args[0] if exc.args else ""
            exc.args = (f"{first}\n\noriginally defined at:\n{trace}", *exc.args[1:])
            raise

    def __call__(self, *args, **kwargs):
        if self._variable_scope is not None:
            # Variables are reused from the second call on.
            with vs.variable_scope(self._variable_scope, reuse=not self._first_call):
                return self._call_func(args, kwargs)
        with vs.variable_scope(
            self._unique_name, self._name, custom_getter=self._custom_getter
        ) as scope:
            self._variable_scope = scope
            return self._call_func(args, kwargs)

    @property
    def name(self):
        """The name given to this template."""
        return self._name

    @property
    def func(self):
        """The wrapped function (with the bound keyword arguments)."""
        return self._func

    @property
    def variable_scope(self):
        """The template's VariableScope (None before the first call unless created now)."""
        return self._variable_scope

    @property
    def variable_scope_name(self):
        """The scope's name with a trailing ``/`` (so it never matches a longer name)."""
        if self._variable_scope is not None:
            name = self._variable_scope.name
            return name if name.endswith("/") else name + "/"
        return None

    def _collection(self, key):
        if not self._variables_created:
            return []
        return scopes.get_collection(key, self.variable_scope_name)

    @property
    def variables(self):
        """The global and local variables the template created."""
        return self.global_variables + self.local_variables

    @property
    def trainable_variables(self):
        return self._collection(GraphKeys.TRAINABLE_VARIABLES)

    @property
    def non_trainable_variables(self):
        trainable = set(map(id, self.trainable_variables))
        return [v for v in self.global_variables if id(v) not in trainable]

    @property
    def global_variables(self):
        return self._collection(GraphKeys.GLOBAL_VARIABLES)

    @property
    def local_variables(self):
        return self._collection(GraphKeys.LOCAL_VARIABLES)

    @property
    def weights(self):
        return self.variables

    @property
    def trainable_weights(self):
        return self.trainable_variables

    @property
    def non_trainable_weights(self):
        return self.non_trainable_variables

    @property
    def var_scope(self):
        """Deprecated spelling of ``variable_scope``."""
        return self._variable_scope
