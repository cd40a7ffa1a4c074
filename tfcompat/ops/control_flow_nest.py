"""Nested structures (lists, tuples, namedtuples, dicts) for cond / while_loop values, with
TF's ``nest`` ordering: dicts by sorted key. A SparseTensor is a composite: it flattens to
its ``indices``, ``values`` and ``dense_shape`` (TF's ``expand_composites=True``)."""

from __future__ import annotations

from tfcompat.framework.sparse_tensor import SparseTensor


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def is_nested(x) -> bool:
    return isinstance(x, (list, tuple, dict))


def is_composite(x) -> bool:
    return isinstance(x, SparseTensor)


def flatten(structure) -> list:
    if is_composite(structure):
        return [structure.indices, structure.values, structure.dense_shape]
    if isinstance(structure, dict):
        return [leaf for k in sorted(structure) for leaf in flatten(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [leaf for s in structure for leaf in flatten(s)]
    return [structure]


def pack_sequence_as(structure, flat):
    """``flat`` leaves arranged like ``structure``."""
    flat = list(flat)
    packed, rest = _pack(structure, flat)
    if rest:
        raise ValueError(f"Structure had {len(flat) - len(rest)} leaves, got {len(flat)}")
    return packed


def _pack(structure, flat):
    if is_composite(structure):
        return SparseTensor(*flat[:3]), flat[3:]
    if isinstance(structure, dict):
        out = {}
        for k in sorted(structure):
            out[k], flat = _pack(structure[k], flat)
        return type(structure)((k, out[k]) for k in structure), flat
    if isinstance(structure, (list, tuple)):
        items = []
        for s in structure:
            item, flat = _pack(s, flat)
            items.append(item)
        if _is_namedtuple(structure):
            return type(structure)(*items), flat
        return type(structure)(items), flat
    return flat[0], flat[1:]


def map_structure(fn, structure):
    return pack_sequence_as(structure, [fn(x) for x in flatten(structure)])


def assert_same_structure(a, b):
    """ValueError/TypeError when ``a`` and ``b`` nest differently (TF's message shape)."""
    if is_composite(a) or is_composite(b):
        if type(a) is not type(b):
            raise TypeError(
                "The two structures don't have the same sequence type. Input structure has "
                f"type {type(a)}, while shallow structure has type {type(b)}."
            )
        return
    if is_nested(a) != is_nested(b):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {a!r}\n\nSecond structure: {b!r}"
        )
    if not is_nested(a):
        return
    if type(a) is not type(b) and not (
        isinstance(a, (list, tuple))
        and isinstance(b, (list, tuple))
        and not _is_namedtuple(a)
        and not _is_namedtuple(b)
    ):
        raise TypeError(
            "The two structures don't have the same sequence type. Input structure has type "
            f"{type(a)}, while shallow structure has type {type(b)}."
        )
    if isinstance(a, dict):
        if sorted(a) != sorted(b):
            raise ValueError(
                "The two structures don't have the same keys. First structure has keys "
                f"{sorted(a)}, while second structure has keys {sorted(b)}."
            )
        for k in a:
            assert_same_structure(a[k], b[k])
        return
    if len(a) != len(b):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {a!r}\n\nSecond structure: {b!r}\n\nMore specifically: "
            f'Substructure "{type(a).__name__}" has length {len(a)}, while "{type(b).__name__}" '
            f"has length {len(b)}"
        )
    for x, y in zip(a, b):
        assert_same_structure(x, y)
