"""Partially known static shapes: ``Dimension`` and ``TensorShape`` with TF1 semantics.

A dimension is an int or unknown (``None``); a shape is a list of dimensions or of unknown
rank. Indexing a ``TensorShape`` yields ``Dimension`` objects as TF1 does, so legacy code like
``x.get_shape()[1].value`` keeps working; ``as_list()`` yields ints and ``None``.
"""

from __future__ import annotations

from tfcompat.util.tf_export import tf_export


class Dimension:
    """One dimension of a shape; ``value`` is an int >= 0 or ``None`` when unknown.

    Comparisons with an unknown dimension return ``None`` and arithmetic propagates the
    unknown, as in TF1. Like TF's, Dimensions are unhashable (``__eq__`` is not a total
    equality).
    """

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is None:
            self._value = None
            return
        if not hasattr(value, "__index__") or isinstance(value, (str, bytes)):
            raise TypeError(
                "Dimension value must be integer or None or have an __index__ method, "
                f"got value '{value!r}' with type '{type(value)}'"
            )
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

    __hash__ = None  # unhashable, as TF's Dimension

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

    def _arith(self, other, fn, reflected=False):
        other = _as_dim_or_none(other)
        if other is NotImplemented:
            return NotImplemented
        if self._value is None or other.value is None:
            return Dimension(None)
        a, b = (other.value, self._value) if reflected else (self._value, other.value)
        return Dimension(fn(a, b))

    def __add__(self, other):
        return self._arith(other, lambda a, b: a + b)

    def __radd__(self, other):
        return self._arith(other, lambda a, b: a + b, reflected=True)

    def __sub__(self, other):
        return self._arith(other, lambda a, b: a - b)

    def __rsub__(self, other):
        return self._arith(other, lambda a, b: a - b, reflected=True)

    def __mul__(self, other):
        return self._arith(other, lambda a, b: a * b)

    def __rmul__(self, other):
        return self._arith(other, lambda a, b: a * b, reflected=True)

    def __floordiv__(self, other):
        return self._arith(other, lambda a, b: a // b)

    def __rfloordiv__(self, other):
        return self._arith(other, lambda a, b: a // b, reflected=True)

    def __mod__(self, other):
        return self._arith(other, lambda a, b: a % b)

    def __rmod__(self, other):
        return self._arith(other, lambda a, b: a % b, reflected=True)

    def __truediv__(self, other):
        raise TypeError(
            f"unsupported operand type(s) for /: 'Dimension' and '{type(other).__name__}', "
            "please use // instead"
        )

    def __rtruediv__(self, other):
        raise TypeError(
            f"unsupported operand type(s) for /: '{type(other).__name__}' and 'Dimension', "
            "please use // instead"
        )

    def __reduce__(self):
        return Dimension, (self._value,)


def _as_dim_or_none(value):
    try:
        return as_dimension(value)
    except (TypeError, ValueError):
        return NotImplemented


def as_dimension(value) -> Dimension:
    return value if isinstance(value, Dimension) else Dimension(value)


@tf_export("dimension_value", "compat.dimension_value")
def dimension_value(dimension):
    """The int (or None) held by ``dimension``, whether a Dimension or already an int."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


@tf_export("dimension_at_index", "compat.dimension_at_index")
def dimension_at_index(shape, index) -> Dimension:
    """``shape[index]`` as a Dimension; unknown when the rank of ``shape`` is unknown."""
    shape = as_shape(shape)
    if shape.rank is None:
        return Dimension(None)
    return shape[index]


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
        elif isinstance(dims, str):
            raise TypeError(
                f"Failed to convert '{dims!r}' to a shape: '{dims[:1]!r}'could not be "
                "converted to a dimension. A shape should either be single dimension (e.g. "
                "10), or an iterable of dimensions (e.g. [1, 10, None])."
            )
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
        # TF1 spelling: dims shown as Dimension objects.
        if self._dims is None:
            return "TensorShape(None)"
        dims = ", ".join(f"Dimension({d!r})" for d in self._dims)
        return f"TensorShape([{dims}])"

    def __str__(self):
        # TF1 spelling: unknown dims print as "?".
        if self._dims is None:
            return "<unknown>"
        dims = ["?" if d is None else str(d) for d in self._dims]
        if len(dims) == 1:
            return f"({dims[0]},)"
        return "(" + ", ".join(dims) + ")"

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
        """TF1 indexing: a ``Dimension`` for an int key, a ``TensorShape`` for a slice."""
        if self._dims is None:
            return self._unknown_rank_item(key)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        try:
            return Dimension(self._dims[key])
        except IndexError:
            raise IndexError("list index out of range") from None

    @staticmethod
    def _unknown_rank_item(key):
        if not isinstance(key, slice):
            return Dimension(None)
        if key.step is not None:
            raise ValueError("Steps are not yet handled")
        start = 0 if key.start is None else key.start
        # A slice of unknown rank has a known length only for non-negative bounds.
        if key.stop is None or start < 0 or key.stop < 0:
            return unknown_shape()
        return unknown_shape(rank=key.stop - start)

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

    def is_subtype_of(self, other) -> bool:
        """True when every shape matching ``self`` also matches ``other``."""
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def most_specific_common_supertype(self, others):
        """The most specific shape that ``self`` and all of ``others`` are subtypes of."""
        result = self
        for other in others:
            result = result.most_specific_compatible_shape(other)
        return result

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

    def assert_has_rank(self, rank):
        """Raises ValueError unless the rank is unknown or ``rank``."""
        if self.rank is not None and self.rank != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

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
