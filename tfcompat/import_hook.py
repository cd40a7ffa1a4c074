"""An import hook that makes ``import tensorflow`` give tfcompat, so legacy scripts run as is.

``install()`` puts an ``AliasFinder`` first on ``sys.meta_path``. It answers for
``tensorflow`` and its public sub-namespaces by aliasing them to the tfcompat modules that
already exist, so every legacy spelling resolves to the same objects:

* ``import tensorflow as tf``                  -> ``tfcompat``
* ``import tensorflow.compat.v1 as tf``        -> ``tfcompat.compat.v1``
* ``from tensorflow.compat import v1 as tf``   -> ``tfcompat.compat.v1``
* ``import tensorflow.nn`` / ``tensorflow.compat.v1.nn`` -> ``tfcompat.nn`` (where it exists)

Only tf.* namespaces are aliased, never tfcompat's implementation packages
(``tfcompat.framework``, ``tfcompat.ops``, ...): ``import tensorflow.framework`` raises
ModuleNotFoundError, as for any API tfcompat does not have.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

ALIASED_PACKAGE = "tensorflow"
TARGET_PACKAGE = "tfcompat"


def _public_namespaces(root: types.ModuleType) -> set[int]:
    """ids of the modules that are tf.* namespaces: those ``@tf_export`` populated (and
    modules exported as values, such as ``tf.errors``), plus ``compat`` and ``compat.v1``."""
    from tfcompat.util import tf_export

    public = {id(root), id(root.compat), id(root.compat.v1), id(root.dtypes)}
    for dotted, value in tf_export.EXPORTS.items():
        if isinstance(value, types.ModuleType):
            public.add(id(value))
        parts = dotted.split(".")
        for i in range(1, len(parts)):
            module = sys.modules.get(".".join([TARGET_PACKAGE] + parts[:i]))
            if module is not None:
                public.add(id(module))
    return public


def resolve(fullname: str) -> types.ModuleType | None:
    """The tfcompat module that ``fullname`` (``tensorflow`` or ``tensorflow.x.y``) aliases,
    or None if tfcompat has no such namespace."""
    head, _, rest = fullname.partition(".")
    if head != ALIASED_PACKAGE:
        return None
    module = importlib.import_module(TARGET_PACKAGE)
    if not rest:
        return module
    public = _public_namespaces(module)
    for part in rest.split("."):
        module = getattr(module, part, None)
        if not isinstance(module, types.ModuleType) or id(module) not in public:
            return None
    return module


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system an existing module instead of creating one.

    The import system stamps the alias spec, loader and package onto the module it receives;
    ``exec_module`` restores them so tfcompat's modules keep describing themselves. Modules
    without ``__path__`` (``compat.v1``, namespaces such as ``tfcompat.math``) keep the empty
    ``__path__`` it gives them: that is what lets ``tensorflow.compat.v1.nn`` be imported.
    """

    _RESTORED = ("__spec__", "__loader__", "__package__")

    def __init__(self, target: types.ModuleType):
        self._target = target
        self._saved = {}

    def create_module(self, spec):
        self._saved = {k: getattr(self._target, k, None) for k in self._RESTORED}
        return self._target

    def exec_module(self, module):
        for key, value in self._saved.items():
            setattr(module, key, value)


class AliasFinder(importlib.abc.MetaPathFinder):
    """A ``sys.meta_path`` finder answering for ``tensorflow`` and its namespaces."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIASED_PACKAGE and not fullname.startswith(ALIASED_PACKAGE + "."):
            return None
        module = resolve(fullname)
        if module is None:
            # Answer here rather than pass: the path finders would search tfcompat's own
            # directory (the alias's __path__) and load its internals a second time.
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: tfcompat has no tf.{fullname.partition('.')[2]}"
                " namespace",
                name=fullname,
            )
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module), is_package=True)


def _is_aliased(name: str) -> bool:
    return name == ALIASED_PACKAGE or name.startswith(ALIASED_PACKAGE + ".")


def installed() -> bool:
    return any(isinstance(f, AliasFinder) for f in sys.meta_path)


def install() -> None:
    """Makes later ``import tensorflow ...`` statements resolve to tfcompat.

    Raises RuntimeError if TensorFlow itself is already imported in this process: its modules
    would shadow the aliases and the program would mix two libraries.
    """
    if installed():
        return
    loaded = sorted(
        name
        for name, module in sys.modules.items()
        if _is_aliased(name) and module is not None and not _is_tfcompat(module)
    )
    if loaded:
        raise RuntimeError(
            "Cannot alias tensorflow to tfcompat: TensorFlow is already imported in this "
            f"process ({loaded[0]})."
        )
    sys.meta_path.insert(0, AliasFinder())


def uninstall() -> None:
    """Removes the hook and forgets the ``tensorflow*`` aliases it created."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, AliasFinder)]
    for name in [n for n, m in sys.modules.items() if _is_aliased(n) and _is_tfcompat(m)]:
        del sys.modules[name]


def _is_tfcompat(module) -> bool:
    name = getattr(module, "__name__", "")
    return name == TARGET_PACKAGE or name.startswith(TARGET_PACKAGE + ".")
