"""``@tf_export``: declares where a symbol appears in the ``tf.*`` namespace.

As in TensorFlow, the definition says its public names (``"add"``, ``"math.add"``), and the
package ``__init__`` builds the namespace from this table, so adding an op touches only its
own module.
"""

from __future__ import annotations

import importlib
import sys
import types

EXPORTS: dict[str, object] = {}


def tf_export(*names):
    """Decorator: publishes the object as each of ``names`` (dotted for sub-namespaces)."""

    def decorate(obj):
        for name in names:
            EXPORTS[name] = obj
        return obj

    return decorate


def export_constant(value, *names):
    for name in names:
        EXPORTS[name] = value


def populate(package_name: str):
    """Sets every exported name on ``package_name`` and its sub-namespaces."""
    package = sys.modules[package_name]
    for dotted, obj in sorted(EXPORTS.items()):
        parts = dotted.split(".")
        target = package
        for i, part in enumerate(parts[:-1]):
            child = getattr(target, part, None)
            if child is None:
                full = ".".join([package_name] + parts[: i + 1])
                try:
                    child = importlib.import_module(full)
                except ImportError:
                    child = types.ModuleType(full, f"The tf.{'.'.join(parts[: i + 1])} namespace.")
                    sys.modules[full] = child
                setattr(target, part, child)
            target = child
        setattr(target, parts[-1], obj)
