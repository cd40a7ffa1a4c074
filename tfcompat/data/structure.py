"""Element structures of ``tf.data``: a nest (tuples, dicts, namedtuples) of component specs.

A dense component crosses dataset ops as itself; a SparseTensor component as one variant
tensor (``SerializeSparse``: its indices, values and dense shape), rebuilt on the other side
by ``DeserializeSparse``, as TF does. The dataset ops' ``output_types`` / ``output_shapes``
attrs are the flat components' types and shapes (unknown for a sparse component's variant).
"""

from __future__ import annotations

import contextlib
import dataclasses

from tfcompat.data import nest
from tfcompat.framework import constant_op, dtypes, op_helper, tensor_shape
from tfcompat.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcompat.framework.tensor import Tensor


@dataclasses.dataclass(frozen=True)
class _ComponentSpec:
    """One component: the dtype of its values and its static (dense) shape."""

    dtype: dtypes.DType
    shape: tensor_shape.TensorShape

    def batched(self, size):
        return type(self)(self.dtype, tensor_shape.TensorShape([size]).concatenate(self.shape))

    def unbatched(self):
        rest = self.shape[1:] if self.shape.rank else tensor_shape.unknown_shape()
        return type(self)(self.dtype, rest)


class TensorSpec(_ComponentSpec):
    """A dense component: it crosses dataset ops as itself."""

    value_class = Tensor

    def __repr__(self):
        return f"TensorSpec(shape={_shape_repr(self.shape)}, dtype=tf.{self.dtype.name}, name=None)"

    @property
    def flat_type(self):
        return self.dtype

    @property
    def flat_shape(self):
        return self.shape


class SparseTensorSpec(_ComponentSpec):
    """A SparseTensor component: it crosses dataset ops as one variant of unknown shape."""

    value_class = SparseTensor

    def __repr__(self):
        dims = None if self.shape.rank is None else self.shape.as_list()
        return f"SparseTensorSpec(TensorShape({dims}), tf.{self.dtype.name})"

    @property
    def flat_type(self):
        return dtypes.variant

    @property
    def flat_shape(self):
        return tensor_shape.unknown_shape()


@dataclasses.dataclass(frozen=True)
class DatasetSpec:
    """A dataset component (``group_by_window``'s windows): one variant scalar standing
    for a dataset of ``element`` structures."""

    element: object

    @property
    def dtype(self):
        return dtypes.variant

    @property
    def shape(self):
        return tensor_shape.scalar()

    @property
    def value_class(self):
        from tfcompat.data.dataset_ops import Dataset

        return Dataset

    flat_type = dtypes.variant

    @property
    def flat_shape(self):
        return tensor_shape.scalar()


def public_spec(structure):
    """The element structure as ``element_spec`` shows it: ``tf.TensorSpec`` /
    ``tf.SparseTensorSpec`` leaves (equal to the specs a user builds), dataset leaves as
    they are."""
    from tfcompat.framework import type_spec

    def public(leaf):
        if isinstance(leaf, TensorSpec):
            return type_spec.TensorSpec(leaf.shape, leaf.dtype)
        if isinstance(leaf, SparseTensorSpec):
            return type_spec.SparseTensorSpec(leaf.shape, leaf.dtype)
        return leaf

    return nest.map_structure(public, structure)


class LegacyStructure:
    """TF1's ``output_types`` / ``output_shapes`` / ``output_classes`` (and ``element_spec``)
    of an object whose ``_structure`` is an element structure (datasets and iterators)."""

    @property
    def element_spec(self):
        """The nest of ``tf.TensorSpec`` / ``tf.SparseTensorSpec`` of one element."""
        return public_spec(self._structure)

    @property
    def output_types(self):
        return legacy(self._structure, "types")

    @property
    def output_shapes(self):
        return legacy(self._structure, "shapes")

    @property
    def output_classes(self):
        return legacy(self._structure, "classes")


def _shape_repr(shape) -> str:
    """A shape as TF's specs print it: ``(None, 3)``, ``()`` or ``<unknown>``."""
    if shape.rank is None:
        return "<unknown>"
    dims = shape.as_list()
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def _is_leaf(value) -> bool:
    return isinstance(value, (_ComponentSpec, DatasetSpec))


def flatten(structure) -> list:
    """The specs (or values) of a structure, in TF's order (dict keys sorted)."""
    return nest.flatten(structure)


def flat_types(structure) -> list:
    return [spec.flat_type for spec in flatten(structure)]


def flat_shapes(structure) -> list:
    return [spec.flat_shape for spec in flatten(structure)]


def legacy(structure, field):
    """``output_types`` / ``output_shapes`` / ``output_classes`` of TF1's datasets."""
    getters = {
        "types": lambda s: s.dtype,
        "shapes": lambda s: s.shape,
        "classes": lambda s: s.value_class,
    }
    return nest.map_structure(getters[field], structure)


def normalize(element, name_scope=True, batched=False):
    """``(structure, flat tensors)`` of a user's element: each leaf converted to a tensor
    (``component_<i>`` under ``normalize_element``, as TF names them) and SparseTensors
    serialized (``batched``: one serialized SparseTensor per row of the first dimension,
    ``[rows, 3]``, for ``from_tensor_slices``)."""
    from tfcompat.framework.scopes import name_scope as scope

    leaves = nest.flatten(element)
    specs, tensors = [], []
    with scope("normalize_element") if name_scope else contextlib.nullcontext():
        for i, leaf in enumerate(leaves):
            if isinstance(leaf, SparseTensorValue):
                leaf = SparseTensor.from_value(leaf)
            if isinstance(leaf, SparseTensor):
                specs.append(SparseTensorSpec(leaf.dtype, leaf.shape))
                tensors.append(leaf)
                continue
            tensor = op_helper.convert_to_tensor(leaf, name=f"component_{i}")
            specs.append(TensorSpec(tensor.dtype.base_dtype, tensor.shape))
            tensors.append(tensor)
    # Serialized after the scope, in order, as TF's ``to_tensor_list`` does.
    tensors = [
        serialize_sparse(t, many=batched) if isinstance(t, SparseTensor) else t for t in tensors
    ]
    return nest.pack_sequence_as(element, specs), tensors


def serialize_sparse(sparse, many=False):
    from tfcompat.framework.op_helper import apply_op

    return apply_op(
        "SerializeManySparse" if many else "SerializeSparse",
        sparse_indices=sparse.indices,
        sparse_values=sparse.values,
        sparse_shape=sparse.dense_shape,
        out_type=dtypes.variant,
    ).outputs[0]


def from_components(structure, tensors):
    """The user-facing element (Tensors and SparseTensors) of flat component tensors."""

    values = []
    for spec, tensor in zip(flatten(structure), tensors):
        if isinstance(spec, DatasetSpec):
            from tfcompat.data.dataset_ops import Dataset

            values.append(Dataset(tensor, spec.element))
        elif isinstance(spec, SparseTensorSpec):
            values.append(_deserialized(spec, tensor))
        else:
            tensor.set_shape(spec.shape)
            values.append(tensor)
    return nest.pack_sequence_as(structure, values)


def _deserialized(spec, tensor):
    """TF's ``SparseTensorSpec._from_compatible_tensor_list``: ``DeserializeSparse``, its
    dense shape rebuilt from the spec's known dimensions (a ``shape`` constant when all are
    known, else an unstack/stack with constants for the known ones)."""
    from tfcompat.framework.op_helper import apply_op
    from tfcompat.ops import array_ops

    indices, values, dense_shape = apply_op(
        "DeserializeSparse", serialized_sparse=tensor, dtype=spec.dtype
    ).outputs
    rank = spec.shape.rank
    indices.set_shape([None, rank])
    if spec.shape.is_fully_defined():
        dense_shape = op_helper.convert_to_tensor(spec.shape.as_list(), dtypes.int64, name="shape")
    elif rank is not None and any(d is not None for d in spec.shape.as_list()):
        pieces = array_ops.unstack(dense_shape, num=rank)
        for i, dim in enumerate(spec.shape.as_list()):
            if dim is not None:
                pieces[i] = constant_op.constant(dim, dtypes.int64)
        dense_shape = array_ops.stack(pieces)
    else:
        dense_shape.set_shape([rank])
    sparse = SparseTensor(indices, values, dense_shape)
    if rank is not None:
        sparse._dense_shape_default = spec.shape
    return sparse


def from_legacy(output_types, output_shapes=None, output_classes=None):
    """A structure from TF1's ``(output_types, output_shapes, output_classes)`` nests."""
    if output_shapes is None:
        output_shapes = nest.map_structure(lambda _: tensor_shape.unknown_shape(), output_types)
    if output_classes is None:
        output_classes = nest.map_structure(lambda _: Tensor, output_types)
    flat_classes = nest.flatten(output_classes)
    flat_types = nest.flatten(output_types)
    flat_shapes = nest.flatten(
        nest.map_structure(tensor_shape.as_shape, output_shapes)
        if nest.is_nested(output_types)
        else tensor_shape.as_shape(output_shapes)
    )
    if not (len(flat_types) == len(flat_shapes) == len(flat_classes)):
        raise ValueError(
            "output_types, output_shapes and output_classes must have the same structure"
        )
    specs = [
        (SparseTensorSpec if cls is SparseTensor else TensorSpec)(dtypes.as_dtype(t), s)
        for t, s, cls in zip(flat_types, flat_shapes, flat_classes)
    ]
    return nest.pack_sequence_as(output_types, specs)


def is_compatible(a, b) -> bool:
    """Whether elements of structure ``b`` can flow where ``a`` is expected."""
    try:
        nest.assert_same_structure(a, b)
    except (ValueError, TypeError):
        return False
    return all(
        type(x) is type(y) and x.dtype == y.dtype and x.shape.is_compatible_with(y.shape)
        for x, y in zip(flatten(a), flatten(b))
    )


def most_specific_compatible(a, b):
    """The structure of elements that may come from either (concatenate)."""
    return nest.map_structure(
        lambda x, y: type(x)(x.dtype, x.shape.most_specific_compatible_shape(y.shape)), a, b
    )


def is_leaf_value(value) -> bool:
    return isinstance(value, (Tensor, SparseTensor, SparseTensorValue)) or _is_leaf(value)
