"""``tf.nest``: nested structures of lists, tuples, namedtuples and mappings, with TF's
conventions: mappings flatten in sorted key order (and pack back in their own order),
``None`` and strings are leaves, a SparseTensor is a leaf unless ``expand_composites``
(then its ``indices``, ``values`` and ``dense_shape``). Errors are TF's classes and texts.
"""

from __future__ import annotations

import collections.abc

from tfcompat.framework.sparse_tensor import SparseTensor
from tfcompat.util.tf_export import tf_export


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _is_sequence(x, expand_composites=False) -> bool:
    if expand_composites and isinstance(x, SparseTensor):
        return True
    if isinstance(x, (str, bytes)):
        return False
    return isinstance(x, (list, tuple, collections.abc.Mapping, collections.abc.MappingView))


@tf_export("nest.is_nested")
def is_nested(seq) -> bool:
    """Whether ``seq`` is a list, tuple, namedtuple or mapping (not a string)."""
    return _is_sequence(seq)


def _children(structure, expand_composites):
    """The direct substructures in TF's flattening order."""
    if expand_composites and isinstance(structure, SparseTensor):
        return [structure.indices, structure.values, structure.dense_shape]
    if isinstance(structure, collections.abc.Mapping):
        return [structure[k] for k in sorted(structure)]
    if isinstance(structure, collections.abc.MappingView):
        return list(structure)
    return list(structure)


@tf_export("nest.flatten")
def flatten(structure, expand_composites=False) -> list:
    """The leaves of ``structure``, depth first, mappings by sorted key."""
    if not _is_sequence(structure, expand_composites):
        return [structure]
    out = []
    for child in _children(structure, expand_composites):
        out.extend(flatten(child, expand_composites))
    return out


def _rebuild(instance, items):
    """A structure of ``instance``'s type holding ``items`` (in flattening order)."""
    if isinstance(instance, SparseTensor):
        return SparseTensor(*items)
    if isinstance(instance, collections.abc.Mapping):
        by_key = dict(zip(sorted(instance), items))
        result = type(instance)((key, by_key[key]) for key in instance)
        return result
    if _is_namedtuple(instance):
        return type(instance)(*items)
    return type(instance)(items)


def _pack(structure, flat, index, expand_composites):
    if not _is_sequence(structure, expand_composites):
        return flat[index], index + 1
    items = []
    for child in _children(structure, expand_composites):
        item, index = _pack(child, flat, index, expand_composites)
        items.append(item)
    return _rebuild(structure, items), index


@tf_export("nest.pack_sequence_as")
def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``flat_sequence``'s items arranged like ``structure``."""
    if not _is_sequence(flat_sequence):
        raise TypeError(
            f"Attempted to pack value:\n  {flat_sequence}\ninto a structure, but found "
            f"incompatible type `{type(flat_sequence)}` instead."
        )
    flat_sequence = list(flat_sequence)
    if not _is_sequence(structure, expand_composites):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"The target structure is of type `{type(structure)}`\n  {structure}\nHowever "
                f"the input is a sequence ({type(flat_sequence)}) of length "
                f"{len(flat_sequence)}.\n  {flat_sequence}\nnest cannot guarantee that it is "
                "safe to map one to the other."
            )
        return flat_sequence[0]
    leaves = len(flatten(structure, expand_composites))
    if leaves != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence. Structure had {leaves} atoms, but flat_sequence had "
            f"{len(flat_sequence)} items.  Structure: {structure}, flat_sequence: "
            f"{flat_sequence}."
        )
    return _pack(structure, flat_sequence, 0, expand_composites)[0]


def _describe(x):
    return f"type={type(x).__name__} str={x}"


class _Dot:
    def __repr__(self):
        return "."


def _outline(structure, expand_composites):
    """``structure`` with every leaf shown as ``.`` (TF's "Entire ... structure")."""
    dot = _Dot()
    return pack_sequence_as(
        structure, [dot] * len(flatten(structure, expand_composites)), expand_composites
    )


def _mismatch(a, b, check_types, expand_composites):
    """(error class, "More specifically" text) for the first difference, or None."""
    a_seq, b_seq = _is_sequence(a, expand_composites), _is_sequence(b, expand_composites)
    if a_seq != b_seq:
        seq, other = (a, b) if a_seq else (b, a)
        return ValueError, (
            f'Substructure "{_describe(seq)}" is a sequence, while substructure '
            f'"{_describe(other)}" is not'
        )
    if not a_seq:
        return None
    if check_types and type(a) is not type(b):
        return TypeError, (
            "The two namedtuples don't have the same sequence type. First structure "
            f"{_describe(a)} has type {type(a).__name__}, while second structure "
            f"{_describe(b)} has type {type(b).__name__}"
        )
    if isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping):
        if set(a) != set(b):
            return ValueError, (
                "The two dictionaries don't have the same set of keys. First structure has "
                f"keys {_describe(sorted(a))}, while second structure has keys "
                f"{_describe(sorted(b))}"
            )
    a_children = _children(a, expand_composites)
    b_children = _children(b, expand_composites)
    if len(a_children) != len(b_children):
        return ValueError, (
            "The two structures don't have the same number of elements. First structure: "
            f"{_describe(a)}. Second structure: {_describe(b)}"
        )
    for x, y in zip(a_children, b_children):
        found = _mismatch(x, y, check_types, expand_composites)
        if found:
            return found
    return None


@tf_export("nest.assert_same_structure")
def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError (or TypeError for different sequence types, with ``check_types``)
    unless ``nest1`` and ``nest2`` nest alike."""
    found = _mismatch(nest1, nest2, check_types, expand_composites)
    if found is None:
        return
    error_class, detail = found
    raise error_class(
        "The two structures don't have the same nested structure.\n\n"
        f"First structure: {_describe(nest1)}\n\nSecond structure: {_describe(nest2)}\n\n"
        f"More specifically: {detail}\n"
        f"Entire first structure:\n{_outline(nest1, expand_composites)}\n"
        f"Entire second structure:\n{_outline(nest2, expand_composites)}"
    )


@tf_export("nest.map_structure")
def map_structure(func, *structure, **kwargs):
    """``func`` applied leaf-wise across ``structure`` (all nested alike), in the first
    structure's shape. Keyword arguments: ``check_types`` (default True) and
    ``expand_composites`` (default False)."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(
            "Only valid keyword arguments are `check_types` and `expand_composites`, not: "
            f"`{'`, `'.join(kwargs)}`"
        )
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types, expand_composites)
    flat = [flatten(s, expand_composites) for s in structure]
    results = [func(*leaves) for leaves in zip(*flat)]
    return pack_sequence_as(structure[0], results, expand_composites)
