"""``tf.Module``: a named container of variables and other modules, as TF 2.21 builds it in
TF1 graph mode.

A module's name (the snake-cased class name unless given) opens a unique name scope when the
module is created (``mlp``, then ``mlp_1``...); ``with module.name_scope:`` and methods
decorated with ``@tf.Module.with_name_scope`` re-enter that scope, so variables created there
are named under it. ``variables`` / ``trainable_variables`` / ``non_trainable_variables`` /
``submodules`` find what the module's attributes hold (nested lists, tuples and dicts
included) by reflection: the module's own attributes in sorted order, then its submodules'
breadth first, each object once.
"""

from __future__ import annotations

import functools
import re

from tfcompat.util import nest
from tfcompat.util.tf_export import tf_export

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value: str) -> str:
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


@tf_export("Module")
class Module:
    """Base class of named containers of variables and submodules."""

    _TF_MODULE_IGNORED_PROPERTIES = frozenset()

    def __init__(self, name=None):
        from tfcompat.framework import graph as graph_lib

        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python "
                "identifiers (e.g. a valid class name)."
            )
        self._name = name
        with graph_lib.get_default_graph().name_scope(name) as scope_name:
            self._scope_name = scope_name

    @property
    def name(self):
        """The module's name (without the unique suffix its name scope may have)."""
        return self._name

    @property
    def name_scope(self):
        """The module's name scope (a context manager re-entering it)."""
        from tfcompat.framework import graph as graph_lib

        return graph_lib.get_default_graph().name_scope(self._scope_name)

    @property
    def variables(self):
        """Variables of this module (attributes in sorted order), then of its submodules."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self):
        """Every module reachable from this one's attributes, breadth first."""
        return tuple(self._flatten(predicate=lambda m: isinstance(m, Module)))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None,
                 with_path=False, expand_composites=False):  # fmt: skip
        """The leaves of this module's attributes (and its submodules') that satisfy
        ``predicate``; with ``with_path``, ``(path, leaf)`` pairs (then repeats are kept)."""
        return _flatten_module(
            self,
            recursive=recursive,
            predicate=predicate or (lambda _: True),
            attribute_traversal_key=attribute_traversal_key,
            with_path=with_path,
            expand_composites=expand_composites,
            module_path=(),
            seen={id(self)},
            recursion_stack=[],
        )

    @classmethod
    def with_name_scope(cls, method):
        """Decorates a method to run in the module's name scope."""

        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope


def _is_variable(value) -> bool:
    from tfcompat.variables import Variable

    return isinstance(value, Variable)


def _leaves_with_paths(structure, path=()):
    """``(path, leaf)`` of a nested list / tuple / dict (dicts by sorted key), as
    ``nest.flatten`` orders them."""
    if not nest.is_nested(structure):
        yield path, structure
        return
    if isinstance(structure, dict):
        items = [(key, structure[key]) for key in sorted(structure)]
    else:
        items = list(enumerate(structure))
    for key, child in items:
        yield from _leaves_with_paths(child, path + (key,))


def _flatten_module(module, recursive, predicate, attribute_traversal_key, with_path,
                    expand_composites, module_path, seen, recursion_stack):  # fmt: skip
    del expand_composites  # SparseTensors hold no variables
    if id(module) in recursion_stack:
        recursive = False
    submodules = []
    attributes = vars(module)
    for key in sorted(attributes, key=attribute_traversal_key):
        if key in module._TF_MODULE_IGNORED_PROPERTIES:
            continue
        for leaf_path, leaf in _leaves_with_paths(attributes[key], (key,)):
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((module_path + leaf_path, leaf))
    recursion_stack.append(id(module))
    for path, submodule in submodules:
        yield from _flatten_module(
            submodule, recursive, predicate, attribute_traversal_key, with_path,
            False, path, seen, recursion_stack,
        )  # fmt: skip
    recursion_stack.pop()
