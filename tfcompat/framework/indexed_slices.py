"""``tf.IndexedSlices``: a sparse set of rows of a dense tensor (the gradient of a gather).

Gradients of ``Gather`` / ``embedding_lookup`` are IndexedSlices so optimizers can update
only the rows a batch touched; they become dense (``UnsortedSegmentSum``) only where a
consumer needs a Tensor, as in TensorFlow.
"""

from __future__ import annotations

from tfcompat.framework import op_helper
from tfcompat.util.tf_export import tf_export


@tf_export("IndexedSlices")
class IndexedSlices:
    """Rows ``values[i]`` of a tensor of shape ``dense_shape`` at positions ``indices[i]``."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def shape(self):
        from tfcompat.framework import constant_value, tensor_shape

        if self._dense_shape is None:
            return tensor_shape.unknown_shape()
        return constant_value.constant_value_as_shape(self._dense_shape)

    @property
    def name(self):
        return self._values.name

    @property
    def device(self):
        return self._values.device

    @property
    def op(self):
        return self._values.op

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def graph(self):
        return self._values.graph

    def __neg__(self):
        from tfcompat.ops import math_ops

        return IndexedSlices(math_ops.negative(self._values), self._indices, self._dense_shape)

    def __repr__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape}"
        return f"IndexedSlices(indices={self._indices}, values={self._values}{shape})"


@tf_export("IndexedSlicesValue")
class IndexedSlicesValue:
    """The fetched value of an IndexedSlices: numpy ``values``, ``indices``, ``dense_shape``."""

    def __init__(self, values, indices, dense_shape):
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape

    def __iter__(self):
        return iter((self.values, self.indices, self.dense_shape))

    def __repr__(self):
        return (
            f"IndexedSlicesValue(values={self.values!r}, indices={self.indices!r}, "
            f"dense_shape={self.dense_shape!r})"
        )


def _to_tensor(value, dtype=None, name=None, as_ref=False):
    """Densifies with ``UnsortedSegmentSum`` (duplicate indices add up), as TF does."""
    from tfcompat.ops import segment_ops

    if dtype is not None and not dtype.is_compatible_with(value.dtype):
        raise ValueError(
            f"Incompatible tensor conversion requested to `dtype` {dtype.name} for "
            f"IndexedSlices ({value}) with dtype {value.dtype.name}"
        )
    if value.dense_shape is None:
        raise ValueError(
            "Tensor conversion requested for IndexedSlices for argument `value` without "
            f"dense_shape: {value!s}"
        )
    return segment_ops.unsorted_segment_sum(
        value.values, value.indices, value.dense_shape[0], name=name
    )


op_helper.register_tensor_conversion_function(IndexedSlices, _to_tensor)


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None, as_ref=False):
    if isinstance(value, IndexedSlices):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError(
                f"Incompatible tensor conversion requested to `dtype` {dtype.name} for "
                f"IndexedSlices with dtype {value.dtype.name}"
            )
        return value
    return op_helper.convert_to_tensor(value, dtype=dtype, name=name, as_ref=as_ref)


def convert_n_to_tensor_or_indexed_slices(values, dtype=None, name=None, as_ref=False):
    """Each value as a Tensor or IndexedSlices (``None`` stays None); new constants are
    named ``name_i``."""
    out = []
    for i, value in enumerate(values):
        if value is None:
            out.append(None)
        else:
            n = None if name is None else f"{name}_{i}"
            out.append(convert_to_tensor_or_indexed_slices(value, dtype, n, as_ref))
    return out


def _fetch(value):
    parts = [value.values, value.indices] + (
        [value.dense_shape] if value.dense_shape is not None else []
    )

    def rebuild(fetched):
        return (
            IndexedSlicesValue(*fetched)
            if len(fetched) == 3
            else IndexedSlicesValue(fetched[0], fetched[1], None)
        )

    return parts, rebuild


def _feed(key, value):
    values, indices, *rest = value
    feeds = [(key.values, values), (key.indices, indices)]
    if key.dense_shape is not None and rest:
        feeds.append((key.dense_shape, rest[0]))
    return feeds


def _register_session_hooks():
    from tfcompat.client import session

    session.register_session_run_conversion_functions(IndexedSlices, _fetch, _feed)


_register_session_hooks()
