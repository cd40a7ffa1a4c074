"""``tf.SparseTensor``: a tensor given by the coordinates and values of its non-default entries.

Three dense tensors make one SparseTensor: ``indices`` (int64 ``[N, rank]``), ``values``
(``[N]``) and ``dense_shape`` (int64 ``[rank]``). Fetching one returns a
``SparseTensorValue``; a SparseTensor used as a ``feed_dict`` key takes a
``SparseTensorValue`` (or an ``(indices, values, dense_shape)`` tuple), as in TF.
"""

from __future__ import annotations

import collections

from tfcompat.framework import dtypes, op_helper
from tfcompat.util.tf_export import tf_export


@tf_export("SparseTensorValue")
class SparseTensorValue(
    collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])
):
    """The fetched value of a SparseTensor: numpy ``indices``, ``values``, ``dense_shape``."""


@tf_export("SparseTensor", "sparse.SparseTensor")
class SparseTensor:
    """Entries ``values[i]`` at coordinates ``indices[i]`` of a tensor of ``dense_shape``."""

    def __init__(self, indices, values, dense_shape):
        from tfcompat.framework.scopes import name_scope

        # TF converts the parts under a "SparseTensor" scope, opened (and so numbered) even
        # when all three are already tensors.
        with name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            self._indices = op_helper.convert_to_tensor(indices, dtypes.int64, name="indices")
            self._values = op_helper.convert_to_tensor(values, name="values")
            self._dense_shape = op_helper.convert_to_tensor(
                dense_shape, dtypes.int64, name="dense_shape"
            )
        rank = self._dense_shape.shape.with_rank(1)[0]
        self._indices.shape.with_rank(2)
        self._values.shape.with_rank(1)
        self._indices.shape[1].merge_with(rank)
        self._indices.shape[0].merge_with(self._values.shape[0])
        # The static dense shape: what the graph tells of ``dense_shape``, refined by
        # ``set_shape`` (TF's ``_dense_shape_default``).
        from tfcompat.framework import constant_value

        self._dense_shape_default = constant_value.constant_value_as_shape(self._dense_shape)

    @classmethod
    def from_value(cls, value):
        """``value`` (a SparseTensor or SparseTensorValue) as a SparseTensor."""
        if isinstance(value, SparseTensor):
            return value
        return cls(value.indices, value.values, value.dense_shape)

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def op(self):
        return self._values.op

    @property
    def graph(self):
        return self._values.graph

    @property
    def shape(self):
        """The static dense shape, as far as ``dense_shape`` is known at graph build time."""
        return self._dense_shape_default

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        """Refines the static dense shape; ValueError when ``shape`` is incompatible."""
        from tfcompat.framework import tensor_shape

        shape = tensor_shape.as_shape(shape)
        if not self._dense_shape_default.is_compatible_with(shape):
            raise ValueError(
                f"Tensor's shape {self._dense_shape_default} is not compatible with supplied "
                f"shape {shape}."
            )
        self._dense_shape_default = self._dense_shape_default.merge_with(shape)

    def eval(self, feed_dict=None, session=None):
        from tfcompat.client import session as session_lib

        session = session or session_lib.get_default_session()
        if session is None:
            raise ValueError(
                "Cannot evaluate tensor using `eval()`: No default session is registered. "
                "Use `with sess.as_default()` or pass an explicit session to "
                "`eval(session=sess)`"
            )
        return session.run(self, feed_dict)

    def consumers(self):
        return self._values.consumers()

    def __repr__(self):
        return (
            f"SparseTensor(indices={self._indices}, values={self._values}, "
            f"dense_shape={self._dense_shape})"
        )


def is_sparse(x) -> bool:
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """SparseTensor(Value)s as SparseTensors, anything else as a Tensor."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise RuntimeError(
                f"Sparse dtype mismatch. Requested: {dtypes.as_dtype(dtype).name}, "
                f" Actual: {value.dtype.name}"
            )
        return value
    return op_helper.convert_to_tensor(value, dtype=dtype, name=name)


def _fetch(sparse):
    parts = [sparse.indices, sparse.values, sparse.dense_shape]
    return parts, lambda values: SparseTensorValue(*values)


def _feed(sparse, value):
    if not isinstance(value, SparseTensorValue):
        value = SparseTensorValue(*value)
    return [
        (sparse.indices, value.indices),
        (sparse.values, value.values),
        (sparse.dense_shape, value.dense_shape),
    ]


def _register():
    from tfcompat.client import session as session_lib

    session_lib.register_session_run_conversion_functions(SparseTensor, _fetch, _feed)


_register()
