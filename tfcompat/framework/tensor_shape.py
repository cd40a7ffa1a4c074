"""Partially known static shapes: ``Dimension`` and ``TensorShape`` with TF1 semantics.

A dimension is an int or unknown (``None``); a shape is a list of dimensions or of unknown
rank. Indexing a ``TensorShape`` yields ``Dimension`` objects as TF1 does, so legacy code like
``x.get_shape()[1].value`` keeps working; ``as_list()`` yields ints and ``None``.
"""

from __future__ import annotations


class Dimension:
    """One dimension of a shape; ``value`` is an int >= 0 or ``None`` when unknown."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is None:
            self._value = None
            return
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            try:
                as_int = int(value)
            except (TypeError, ValueError):
                raise TypeError(
                    f"Dimension value must be integer or None or have an __index__ method, "
                    f"got value '{value!r}' with type '{type(value)}'"
                ) from None
            if as_int != value:
                raise ValueError(f"Ambiguous dimension: {value}")
            value = as_int
        self._value = int(value.__index__())
        if self._value < 0:
            raise ValueError(f"Dimension {self._value} must be >= 0")

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __bool__(self):
        return bool(self._value)

    def __hash__(self):
        return hash(self._value)

    def __eq__(self, other):
        other = _as_dim_or_none(other)
        if other is NotImplemented:
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is None or eq is NotImplemented else not eq

    def _compare(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return None
        return fn(self._value, other.value)

    def __lt__(self, other):
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._compare(other, lambda a, b: a >= b)

    def is_compatible_with(self, other) -> bool:
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other) -> Dimension:
        """The more specific of two compatible dimensions; ValueError if they differ."""
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other.value)

    def _arith(self, other, fn):
        other = _as_dim_or_none(other)
        if other is NotImplemented:
            return NotImplemented
        if self._value is None or other.value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other.value))

    def __add__(self, other):
        return self._arith(other, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, other):
        return self._arith(other, lambda a, b: a - b)

    def __rsub__(self, other):
        return as_dimension(other) - self

    def __mul__(self, other):
        return self._arith(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return self._arith(other, lambda a, b: a // b)

    def __rfloordiv__(self, other):
        return as_dimension(other) // self

    def __mod__(self, other):
        return self._arith(other, lambda a, b: a % b)

    def __reduce__(self):
        return Dimension, (self._value,)


def _as_dim_or_none(value):
    try:
        return as_dimension(value)
    except (TypeError, ValueError):
        return NotImplemented


def as_dimension(value) -> Dimension:
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    """The int (or None) held by ``dimension``, whether a Dimension or already an int."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


class TensorShape:
    """A possibly partial static shape: ``None`` dims are unknown; ``dims is None`` means
    the rank itself is unknown."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif dims is None:
            self._dims = None
        elif hasattr(dims, "dim") and hasattr(dims, "unknown_rank"):  # TensorShapeProto
            if dims.unknown_rank:
                self._dims = None
            else:
                self._dims = tuple(None if d.size == -1 else int(d.size) for d in dims.dim)
        else:
            try:
                items = list(dims)
            except TypeError:
                items = [dims]  # a scalar int means a rank-1 shape, as in TF
            self._dims = tuple(Dimension(d).value for d in items)

    # -- introspection ----------------------------------------------------------------------
    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self):
        return self.rank

    @property
    def dims(self):
        if self._dims is None:
            return None
        return [Dimension(d) for d in self._dims]

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self):
        """The dims as a tuple of ints and None; None when the rank is unknown."""
        return self._dims

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)!r})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return "(%s,)" % ("None" if self._dims[0] is None else self._dims[0])
        return "(%s)" % ", ".join("None" if d is None else str(d) for d in self._dims)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(Dimension(d) for d in self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                start, stop = key.start, key.stop
                if key.step is None and start is not None and stop is not None:
                    if start >= 0 and stop >= 0:
                        return unknown_shape(rank=stop - start)
                return unknown_shape()
            return Dimension(None)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return Dimension(self._dims[key])

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    # -- combination ------------------------------------------------------------------------
    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other) -> TensorShape:
        """The most specific shape compatible with both; ValueError if incompatible."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims) or not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def most_specific_compatible_shape(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return unknown_shape()
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape(self._dims + other._dims)

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def with_rank(self, rank) -> TensorShape:
        try:
            return self.merge_with(unknown_shape(rank=rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank) -> TensorShape:
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank) -> TensorShape:
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __reduce__(self):
        return TensorShape, (None if self._dims is None else list(self._dims),)

    def as_proto(self):
        from tfcompat.framework.proto import tensor_shape_pb2

        proto = tensor_shape_pb2.TensorShapeProto()
        if self._dims is None:
            proto.unknown_rank = True
        else:
            for d in self._dims:
                proto.dim.add(size=-1 if d is None else d)
        return proto


def as_shape(shape) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None) -> TensorShape:
    if rank is None:
        return TensorShape(None)
    return TensorShape([None] * rank)


def scalar() -> TensorShape:
    return TensorShape([])
