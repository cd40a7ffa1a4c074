"""``tf.data.Dataset`` (TF1's DatasetV1): input pipelines recorded as graph ops.

Each transformation adds one dataset op (TF's op type, attrs and constant-input names) whose
output is a variant scalar; functions given to ``map`` / ``filter`` / ``flat_map`` /
``interleave`` are traced once into FuncGraphs of the graph's function library. Nothing
runs until an iterator (``iterator_ops.py``) pulls elements in ``Session.run``; the kernels
are in ``lowering/reference/datasets.py``.
"""

from __future__ import annotations

import itertools
import re

import numpy as np

from tfcompat.data import nest
from tfcompat.data import structure as structure_lib
from tfcompat.framework import dtypes, func_graph, op_helper, random_seed, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.op_helper import apply_op
from tfcompat.framework.proto import attr_value_pb2
from tfcompat.framework.tensor import Tensor
from tfcompat.ops import dataset_ops as _dataset_opdefs  # noqa: F401 - registers the OpDefs
from tfcompat.util.tf_export import export_constant, tf_export

AUTOTUNE = -1
export_constant(AUTOTUNE, "data.AUTOTUNE", "data.experimental.AUTOTUNE")

_INFINITE = -1
_DEFAULT_READ_BUFFER = 256 * 1024  # TF's default buffer of file-reading datasets
_FUNCTION_IDS = itertools.count(1)


def _int64(value, name):
    return op_helper.convert_to_tensor(value, dtypes.int64, name=name)


@tf_export("data.Dataset")
class Dataset(structure_lib.LegacyStructure):
    """A sequence of elements, each a nest of Tensors (and SparseTensors)."""

    def __init__(self, variant_tensor, element_structure):
        self._variant_tensor = variant_tensor
        self._structure = element_structure

    def _element_attrs(self, structure=None):
        structure = self._structure if structure is None else structure
        return {
            "output_types": structure_lib.flat_types(structure),
            "output_shapes": structure_lib.flat_shapes(structure),
        }

    def _chain(self, op_type, structure=None, **inputs):
        """A dataset op reading this dataset; its elements have ``structure``."""
        structure = self._structure if structure is None else structure
        op = apply_op(
            op_type,
            input_dataset=self._variant_tensor,
            **inputs,
            **self._element_attrs(structure),
        )
        return Dataset(op.outputs[0], structure)

    @property
    def graph(self):
        return self._variant_tensor.graph

    # -- sources --------------------------------------------------------------------------
    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element, ``tensors``."""
        structure, components = structure_lib.normalize(tensors)
        op = apply_op(
            "TensorDataset",
            components=components,
            output_shapes=structure_lib.flat_shapes(structure),
        )
        return Dataset(op.outputs[0], structure)

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """A dataset of the slices of ``tensors`` along their first dimension."""
        # A SparseTensor is sliced as TF does: serialized row by row (SerializeManySparse),
        # each element deserialized (a SparseTensor of one rank less).
        structure, components = structure_lib.normalize(tensors, batched=True)
        # TF's static check: every component has a first dimension, the same one.
        count = tensor_shape.Dimension(None)
        for tensor in components:
            count = count.merge_with(tensor.shape.with_rank_at_least(1)[0])
        sliced = nest.map_structure(lambda s: s.unbatched(), structure)
        op = apply_op(
            "TensorSliceDataset",
            components=components,
            output_shapes=structure_lib.flat_shapes(sliced),
        )
        return Dataset(op.outputs[0], sliced)

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None):
        """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)``."""
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to Dataset.range: {args}")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        output_type = dtypes.as_dtype(output_type)
        op = apply_op(
            "RangeDataset",
            start=_int64(start, "start"),
            stop=_int64(stop, "stop"),
            step=_int64(step, "step"),
            output_types=[output_type],
            output_shapes=[tensor_shape.scalar()],
        )
        return Dataset(op.outputs[0], structure_lib.TensorSpec(output_type, tensor_shape.scalar()))

    @staticmethod
    def zip(datasets, name=None):
        """Elements that pair up the elements of a nest of datasets."""
        flat = nest.flatten(datasets)
        if not flat or not all(isinstance(d, Dataset) for d in flat):
            raise TypeError(
                "The argument to `Dataset.zip()` must be a (nested) structure of Dataset objects."
            )
        structure = nest.pack_sequence_as(datasets, [d._structure for d in flat])
        op = apply_op(
            "ZipDataset",
            input_datasets=[d._variant_tensor for d in flat],
            output_types=structure_lib.flat_types(structure),
            output_shapes=structure_lib.flat_shapes(structure),
        )
        return Dataset(op.outputs[0], structure)

    @staticmethod
    def from_generator(
        generator,
        output_types=None,
        output_shapes=None,
        args=None,
        output_signature=None,
        name=None,
    ):
        """The elements a Python generator yields (``generator(*args)``, called anew for
        each pass), checked against ``output_types`` / ``output_shapes``. As in TF, the
        generator runs in this process through ``tf.numpy_function`` (a GeneratorDataset
        inside a flat_map), so the graph runs only where the function is registered."""
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError(
                    "The `output_types` and `output_shapes` arguments can not be used "
                    "together with the `output_signature` argument."
                )
            output_types = nest.map_structure(lambda spec: spec.dtype, output_signature)
            output_shapes = nest.map_structure(lambda spec: spec.shape, output_signature)
        if output_types is None:
            raise TypeError(
                "To specify the output signature you need to provide either the "
                "`output_signature` argument or the `output_types` argument."
            )
        structure = structure_lib.from_legacy(output_types, output_shapes)
        arguments = [
            op_helper.convert_to_tensor(a, name=f"args_{i}") for i, a in enumerate(args or ())
        ]
        return _generator_dataset(generator, arguments, structure)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The files matching ``file_pattern`` (a pattern or a list of them), shuffled
        unless ``shuffle=False``; running it with no match fails with TF's assertion."""
        from tfcompat.framework.scopes import control_dependencies, name_scope
        from tfcompat.ops import array_ops, checks, file_ops, math_ops, string_ops

        with name_scope("list_files"):
            pattern = op_helper.convert_to_tensor(file_pattern, dtypes.string, name="file_pattern")
            matching = file_ops.matching_files(pattern)
            found = math_ops.greater(array_ops.shape(matching)[0], 0, name="match_not_empty")
            message = math_ops.add(
                "No files matched pattern: ",
                string_ops.reduce_join(pattern, separator=", "),
                name="message",
            )
            check = checks.Assert(found, [message], summarize=1, name="assert_not_empty")
            with control_dependencies([check]):
                matching = array_ops.identity(matching)
            dataset = Dataset.from_tensor_slices(matching)
            if shuffle is None or shuffle:
                size = math_ops.maximum(
                    array_ops.shape(matching, out_type=dtypes.int64)[0], np.int64(1)
                )
                dataset = dataset.shuffle(size, seed=seed)
        return dataset

    # -- combinations ---------------------------------------------------------------------
    def concatenate(self, dataset, name=None):
        """This dataset's elements, then ``dataset``'s (same types and nesting)."""
        try:
            nest.assert_same_structure(self._structure, dataset._structure)
        except (ValueError, TypeError) as e:
            raise TypeError(f"Incompatible dataset elements:\n  {e}") from None
        mine, theirs = (
            structure_lib.flatten(self._structure),
            structure_lib.flatten(dataset._structure),
        )
        if any(type(a) is not type(b) or a.dtype != b.dtype for a, b in zip(mine, theirs)):
            raise TypeError(
                f"Incompatible dataset elements:\n  {self.output_types} vs. {dataset.output_types}"
            )
        structure = structure_lib.most_specific_compatible(self._structure, dataset._structure)
        return self._chain("ConcatenateDataset", structure, another_dataset=dataset._variant_tensor)

    # -- functions of elements ------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Each element transformed by ``map_func`` (traced once into a graph function)."""
        function = _trace(map_func, self._structure, "map")
        inputs = {"other_arguments": function.captured_inputs}
        attrs = {"f": _call_attr(function), "Targuments": _types_of(function.captured_inputs)}
        if num_parallel_calls is None:
            return self._chain("MapDataset", function.element_structure, **inputs, **attrs)
        attrs["deterministic"] = _deterministic(deterministic)
        return self._chain(
            "ParallelMapDatasetV2",
            function.element_structure,
            **inputs,
            num_parallel_calls=_int64(num_parallel_calls, "num_parallel_calls"),
            **attrs,
        )

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` returns True (a scalar bool tensor)."""
        function = _trace(predicate, self._structure, "filter")
        result = structure_lib.flatten(function.element_structure)
        if (
            len(result) != 1
            or result[0].dtype != dtypes.bool
            or not result[0].shape.is_compatible_with([])
        ):
            raise ValueError(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but "
                f"its return type is {function.element_structure}."
            )
        return self._chain(
            "FilterDataset",
            other_arguments=function.captured_inputs,
            predicate=_call_attr(function),
            Targuments=_types_of(function.captured_inputs),
        )

    def flat_map(self, map_func, name=None):
        """The elements of the datasets ``map_func`` returns for each element, in order."""
        function = _trace(map_func, self._structure, "flat_map", returns_dataset=True)
        return self._chain(
            "FlatMapDataset",
            function.element_structure,
            other_arguments=function.captured_inputs,
            f=_call_attr(function),
            Targuments=_types_of(function.captured_inputs),
        )

    def interleave(
        self,
        map_func,
        cycle_length=None,
        block_length=None,
        num_parallel_calls=None,
        deterministic=None,
        name=None,
    ):
        """``flat_map``, but taking ``block_length`` elements from each of ``cycle_length``
        inner datasets in turn (TF's deterministic interleave order)."""
        function = _trace(map_func, self._structure, "interleave", returns_dataset=True)
        cycle = _int64(AUTOTUNE if cycle_length is None else cycle_length, "cycle_length")
        block = _int64(1 if block_length is None else block_length, "block_length")
        attrs = {
            "other_arguments": function.captured_inputs,
            "f": _call_attr(function),
            "Targuments": _types_of(function.captured_inputs),
        }
        if num_parallel_calls is None:
            return self._chain(
                "InterleaveDataset",
                function.element_structure,
                cycle_length=cycle,
                block_length=block,
                **attrs,
            )
        return self._chain(
            "ParallelInterleaveDatasetV4",
            function.element_structure,
            cycle_length=cycle,
            block_length=block,
            buffer_output_elements=_int64(AUTOTUNE, "buffer_output_elements"),
            prefetch_input_elements=_int64(AUTOTUNE, "prefetch_input_elements"),
            num_parallel_calls=_int64(num_parallel_calls, "num_parallel_calls"),
            deterministic=_deterministic(deterministic),
            **attrs,
        )

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None):
        """``tf.data.experimental.group_by_window`` as a method (TF's GroupByWindowDataset)."""
        if window_size is not None:
            from tfcompat.data import experimental

            return experimental.group_by_window(key_func, reduce_func, window_size)(self)
        key = _trace(key_func, self._structure, "group_by_window")
        result = structure_lib.flatten(key.element_structure)
        if (
            len(result) != 1
            or result[0].dtype != dtypes.int64
            or result[0].shape.rank not in (None, 0)
        ):
            raise ValueError(
                "Invalid `key_func`. `key_func` must return a single `tf.int64` scalar tensor "
                f"but its return type is {key.element_structure}."
            )
        key_spec = structure_lib.TensorSpec(dtypes.int64, tensor_shape.scalar())
        window_spec = (key_spec, structure_lib.DatasetSpec(self._structure))
        reduce = _trace(reduce_func, window_spec, "group_by_window", returns_dataset=True)
        size = _trace(window_size_func, key_spec, "group_by_window")
        return self._chain(
            "GroupByWindowDataset",
            reduce.element_structure,
            key_func_other_arguments=key.captured_inputs,
            reduce_func_other_arguments=reduce.captured_inputs,
            window_size_func_other_arguments=size.captured_inputs,
            key_func=_call_attr(key),
            reduce_func=_call_attr(reduce),
            window_size_func=_call_attr(size),
            Tkey_func_other_arguments=_types_of(key.captured_inputs),
            Treduce_func_other_arguments=_types_of(reduce.captured_inputs),
            Twindow_size_func_other_arguments=_types_of(size.captured_inputs),
        )

    def bucket_by_sequence_length(
        self, element_length_func, bucket_boundaries, bucket_batch_sizes, **kwargs
    ):
        """``tf.data.experimental.bucket_by_sequence_length`` as a method."""
        from tfcompat.data import experimental

        return experimental.bucket_by_sequence_length(
            element_length_func, bucket_boundaries, bucket_batch_sizes, **kwargs
        )(self)

    def apply(self, transformation_func):
        """``transformation_func(self)``, which must return a Dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, Dataset):
            raise TypeError("`transformation_func` must return a Dataset.")
        return dataset

    def enumerate(self, start=0, name=None):
        """``(index, element)`` pairs, the index counting from ``start``."""
        return Dataset.zip((Dataset.range(start, np.iinfo(np.int64).max), self))

    # -- batching -------------------------------------------------------------------------
    def batch(
        self,
        batch_size,
        drop_remainder=False,
        num_parallel_calls=None,
        deterministic=None,
        name=None,
    ):
        """Consecutive elements stacked into batches of ``batch_size`` (the last one smaller
        unless ``drop_remainder``)."""
        size = _int64(batch_size, "batch_size")
        drop = op_helper.convert_to_tensor(drop_remainder, dtypes.bool, name="drop_remainder")
        structure = nest.map_structure(lambda s: s.batched(_batch_dim(size, drop)), self._structure)
        return self._chain("BatchDatasetV2", structure, batch_size=size, drop_remainder=drop)

    def padded_batch(
        self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None
    ):
        """``batch``, each component padded to ``padded_shapes`` (-1 or None: the longest
        in the batch) with ``padding_values`` (0 or b"" by default)."""
        flat = structure_lib.flatten(self._structure)
        for spec in flat:
            if isinstance(spec, structure_lib.SparseTensorSpec):  # TF refuses them too
                raise TypeError(
                    "`padded_batch` is only supported for datasets that produce tensor "
                    "elements but type spec of elements in the input dataset is not a "
                    f"subclass of TensorSpec: `{spec!r}`."
                )
        if padded_shapes is None:
            padded_shapes = nest.map_structure(lambda s: s.shape, self._structure)
        flat_padded = _flatten_shapes(self._structure, padded_shapes)
        size = _int64(batch_size, "batch_size")
        shapes, out_shapes = [], []
        for spec, padded in zip(flat, flat_padded):
            if isinstance(padded, Tensor):
                shape_tensor = padded
                static = tensor_shape.unknown_shape(spec.shape.rank)
            else:
                static = tensor_shape.as_shape(padded)
                if static.rank is None:
                    raise ValueError("padded_shapes must have a known rank")
                if spec.shape.rank is not None and spec.shape.rank != static.rank:
                    raise ValueError(
                        f"The padded shape {static} is not compatible with the shape "
                        f"{spec.shape} of the corresponding input component."
                    )
                shape_tensor = op_helper.convert_to_tensor(
                    np.array([-1 if d is None else d for d in static.as_list()], np.int64)
                )
            shapes.append(shape_tensor)
            out_shapes.append(static)
        if padding_values is None:
            values = [_default_padding(spec.dtype) for spec in flat]
        else:
            values = nest.flatten(padding_values)
        padding = [
            op_helper.convert_to_tensor(v, spec.dtype, name="padding_value")
            for v, spec in zip(values, flat)
        ]
        drop = op_helper.convert_to_tensor(drop_remainder, dtypes.bool, name="drop_remainder")
        dim = _batch_dim(size, drop)
        structure = nest.pack_sequence_as(
            self._structure,
            [
                structure_lib.TensorSpec(spec.dtype, tensor_shape.TensorShape([dim]).concatenate(s))
                for spec, s in zip(flat, out_shapes)
            ],
        )
        op = apply_op(
            "PaddedBatchDatasetV2",
            input_dataset=self._variant_tensor,
            batch_size=size,
            padded_shapes=shapes,
            padding_values=padding,
            drop_remainder=drop,
            output_shapes=structure_lib.flat_shapes(structure),
        )
        return Dataset(op.outputs[0], structure)

    def unbatch(self, name=None):
        """The rows of each element (components split along their first dimension)."""
        structure = nest.map_structure(lambda s: s.unbatched(), self._structure)
        return self._chain("UnbatchDataset", structure)

    # -- order and count ------------------------------------------------------------------
    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        """Elements in random order, drawn from a buffer of ``buffer_size`` elements."""
        seed_tensor, seed2_tensor = _seeds(seed)
        return self._chain(
            "ShuffleDataset",
            buffer_size=_int64(buffer_size, "buffer_size"),
            seed=seed_tensor,
            seed2=seed2_tensor,
            reshuffle_each_iteration=True
            if reshuffle_each_iteration is None
            else bool(reshuffle_each_iteration),
        )

    def repeat(self, count=None, name=None):
        """The elements ``count`` times over (forever when None or -1)."""
        return self._chain(
            "RepeatDataset", count=_int64(_INFINITE if count is None else count, "count")
        )

    def take(self, count, name=None):
        """The first ``count`` elements (all when -1)."""
        return self._chain("TakeDataset", count=_int64(count, "count"))

    def skip(self, count, name=None):
        """All but the first ``count`` elements (none when -1)."""
        return self._chain("SkipDataset", count=_int64(count, "count"))

    def prefetch(self, buffer_size, name=None):
        """The same elements; TF prepares ``buffer_size`` of them ahead."""
        return self._chain("PrefetchDataset", buffer_size=_int64(buffer_size, "buffer_size"))

    def cache(self, filename="", name=None):
        """The same elements; the first complete pass is kept in memory and replayed."""
        return self._chain(
            "CacheDataset",
            filename=op_helper.convert_to_tensor(filename, dtypes.string, name="filename"),
        )

    # -- iterators ------------------------------------------------------------------------
    def make_one_shot_iterator(self):
        """An iterator that needs no initialization (the dataset may not read placeholders)."""
        from tfcompat.data import iterator_ops

        return iterator_ops.one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator started (and restarted) by running its ``initializer``."""
        from tfcompat.data import iterator_ops

        return iterator_ops.initializable_iterator(self, shared_name)

    def __iter__(self):
        raise RuntimeError(
            "`tf.data.Dataset` only supports Python-style iteration in eager mode or within "
            "tf.function."
        )

    def __repr__(self):
        return f"<Dataset shapes: {self.output_shapes}, types: {self.output_types}>"


DatasetV1 = Dataset  # TF1's name for the same class (tf.compat.v1.data.DatasetV1)


class _GeneratorState:
    """The running Python generators of one ``from_generator`` dataset, by id."""

    def __init__(self, generator):
        self.generator = generator
        self.iterators = {}
        self.ids = itertools.count()

    def start(self, *args):
        key = next(self.ids)
        self.iterators[key] = iter(self.generator(*(_python_value(a) for a in args)))
        return np.int64(key)

    def finish(self, key):
        self.iterators.pop(int(key), None)
        return np.int64(0)


def _flatten_up_to(structure, values):
    """``values`` flattened as deep as ``structure`` goes (a leaf takes a whole value, such
    as a list for a vector component); None when the nesting differs."""
    if isinstance(structure, (structure_lib.TensorSpec, structure_lib.SparseTensorSpec)):
        return [values]
    if isinstance(structure, dict):
        if not isinstance(values, dict) or sorted(values) != sorted(structure):
            return None
        parts = [_flatten_up_to(structure[k], values[k]) for k in sorted(structure)]
    else:
        if not isinstance(values, (tuple, list)) or len(values) != len(structure):
            return None
        parts = [_flatten_up_to(s, v) for s, v in zip(structure, values)]
    if any(p is None for p in parts):
        return None
    return [leaf for part in parts for leaf in part]


def _python_value(value):
    """A generator argument as TF passes it: bytes for a string scalar, else numpy."""
    value = np.asarray(value)
    return value[()] if value.dtype == object and value.ndim == 0 else value


def _generator_dataset(generator, arguments, structure):
    from tfcompat.ops import script_ops

    state = _GeneratorState(generator)
    specs = structure_lib.flatten(structure)
    if any(isinstance(s, structure_lib.SparseTensorSpec) for s in specs):
        raise TypeError("from_generator does not support SparseTensor components here.")
    types = [s.dtype for s in specs]

    def next_values(key):
        values = next(state.iterators[int(key)])  # StopIteration ends the dataset
        flat = _flatten_up_to(structure, values)
        if flat is None or len(flat) != len(specs):
            raise TypeError(
                "`generator` yielded an element that did not match the expected structure. "
                f"The expected structure was {structure_lib.legacy(structure, 'types')}, but "
                f"the yielded element was {values}."
            )
        out = []
        for value, spec in zip(flat, specs):
            dtype = object if spec.dtype == dtypes.string else spec.dtype.as_numpy_dtype
            try:
                array = np.asarray(value, dtype=dtype)
            except (TypeError, ValueError):
                raise TypeError(
                    f"`generator` yielded an element that could not be converted to the "
                    f"expected type. The expected type was {spec.dtype.name}, but the yielded "
                    f"element was {value}."
                ) from None
            if not spec.shape.is_compatible_with(array.shape):
                wanted = None if spec.shape.rank is None else tuple(spec.shape.as_list())
                raise ValueError(
                    f"`generator` yielded an element of shape {array.shape} where an element "
                    f"of shape {wanted} was expected."
                )
            out.append(array)
        return out

    def get_iterator_id_fn(unused_dummy):
        return script_ops.numpy_function(state.start, arguments, dtypes.int64)

    def generator_next_fn(iterator_id):
        values = script_ops.numpy_function(next_values, [iterator_id], types)
        values = values if isinstance(values, (list, tuple)) else [values]
        for value, spec in zip(values, specs):
            value.set_shape(spec.shape)
        return nest.pack_sequence_as(structure_lib.legacy(structure, "types"), list(values))

    def finalize_fn(iterator_id):
        return script_ops.numpy_function(state.finish, [iterator_id], dtypes.int64)

    def flat_map_fn(dummy):
        key_structure = structure_lib.TensorSpec(dtypes.int64, tensor_shape.scalar())
        dummy_structure = structure_lib.TensorSpec(dummy.dtype, dummy.shape)
        init = _trace(get_iterator_id_fn, dummy_structure, "from_generator")
        step = _trace(generator_next_fn, key_structure, "from_generator")
        finalize = _trace(finalize_fn, key_structure, "from_generator")
        op = apply_op(
            "GeneratorDataset",
            init_func_other_args=[dummy, *init.captured_inputs],
            next_func_other_args=step.captured_inputs,
            finalize_func_other_args=finalize.captured_inputs,
            init_func=_call_attr(init),
            next_func=_call_attr(step),
            finalize_func=_call_attr(finalize),
            Tinit_func_args=[dummy.dtype, *_types_of(init.captured_inputs)],
            Tnext_func_args=_types_of(step.captured_inputs),
            Tfinalize_func_args=_types_of(finalize.captured_inputs),
            output_types=structure_lib.flat_types(structure),
            output_shapes=structure_lib.flat_shapes(structure),
        )
        return Dataset(op.outputs[0], structure)

    return Dataset.from_tensors(0).flat_map(flat_map_fn)


def _flatten_shapes(structure, shapes):
    """``padded_shapes`` flattened as far as ``structure`` (each leaf a whole shape)."""
    if isinstance(structure, (structure_lib.TensorSpec, structure_lib.SparseTensorSpec)):
        return [shapes]
    if isinstance(structure, dict):
        return [
            s for key in sorted(structure) for s in _flatten_shapes(structure[key], shapes[key])
        ]
    return [s for sub, shape in zip(structure, shapes) for s in _flatten_shapes(sub, shape)]


def _default_padding(dtype):
    return (
        np.array(b"", dtype=object)
        if dtype == dtypes.string
        else np.zeros((), dtype.as_numpy_dtype)
    )


def _batch_dim(size_tensor, drop_tensor):
    """The static batch dimension: the batch size when every batch is full, else unknown."""
    from tfcompat.framework import constant_value

    size = constant_value.constant_value(size_tensor)
    drop = constant_value.constant_value(drop_tensor)
    return int(size) if size is not None and drop is not None and bool(drop) else None


def _seeds(seed):
    """TF's dataset seeds: ``(seed, seed2)`` int64 tensors from the graph and op seeds, a
    (0, 0) pair made (0, 2**31 - 1) at run time so that it still means "seeded"."""
    from tfcompat.framework.scopes import name_scope
    from tfcompat.ops import math_ops

    seed, seed2 = random_seed.get_seed(seed)
    seed_tensor = _int64(0 if seed is None else seed, "seed")
    if seed2 is None:
        return seed_tensor, _int64(0, "seed2")
    with name_scope("seed2") as scope:
        seed2_tensor = _int64(seed2, None)
        unseeded = math_ops.logical_and(
            math_ops.equal(seed_tensor, 0), math_ops.equal(seed2_tensor, 0)
        )
        return seed_tensor, math_ops.where_v2(
            unseeded, _int64(2**31 - 1, None), seed2_tensor, name=scope
        )


def _deterministic(value) -> str:
    return "default" if value is None else ("true" if value else "false")


def _types_of(tensors):
    return [t.dtype.base_dtype for t in tensors]


def _call_attr(function):
    """The func attr calling a tf.data function (TF marks the call ``_tf_data_function``)."""
    attr = attr_value_pb2.NameAttrList(name=function.name)
    attr.attr["_tf_data_function"].b = True
    return attr


_NAME_CHARS = re.compile(r"[^A-Za-z0-9_]")


def _function_name(func, transformation: str) -> str:
    base = getattr(func, "__name__", type(func).__name__)
    base = _NAME_CHARS.sub("", base.replace("<lambda>", "lambda")) or "fn"
    return f"__inference_Dataset_{transformation}_{base}_{next(_FUNCTION_IDS)}"


def _trace(func, element_structure, transformation, returns_dataset=False):
    """``func`` traced on placeholders of one element into a FuncGraph of the library; its
    ``element_structure`` is that of the results (or of the dataset it returns)."""
    outer = graph_lib.get_default_graph()
    body = func_graph.FuncGraph(_function_name(func, transformation), outer)
    body.function_attrs["_tf_data_function"] = attr_value_pb2.AttrValue(b=True)
    with body.as_default():
        from tfcompat.ops import array_ops

        flat_specs = structure_lib.flatten(element_structure)
        arguments = [
            array_ops.placeholder(spec.flat_type, spec.flat_shape, name=f"args_{i}")
            for i, spec in enumerate(flat_specs)
        ]
        body.inputs = list(arguments)
        element = structure_lib.from_components(element_structure, arguments)
        result = func(*element) if type(element) is tuple else func(element)
        if returns_dataset:
            if not isinstance(result, Dataset):
                raise TypeError(
                    f"The `map_func` argument must return a `Dataset` object. Got {type(result)}."
                )
            structure, tensors = result._structure, [result._variant_tensor]
        else:
            if isinstance(result, list):
                result = tuple(result)
            structure, tensors = structure_lib.normalize(result, name_scope=False)
        body.outputs = [array_ops.identity(t, name="Identity") for t in tensors]
    # Captures made while tracing became inputs after the arguments.
    body.inputs = list(arguments) + [t for t in body.inputs if t not in arguments]
    body.element_structure = structure
    func_graph.add_function(outer, body)
    return body


class _FileDataset(Dataset):
    """The records of files (one file's dataset made by ``_read_file``), in turn or
    interleaved with ``num_parallel_reads``."""

    def __init__(
        self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None
    ):
        dataset = _file_dataset(
            filenames,
            num_parallel_reads,
            lambda filename: self._read_file(filename, compression_type, buffer_size),
        )
        super().__init__(dataset._variant_tensor, dataset._structure)


@tf_export("data.TFRecordDataset")
class TFRecordDataset(_FileDataset):
    """The records of TFRecord files (``compression_type``: "", "ZLIB" or "GZIP")."""

    @staticmethod
    def _read_file(filename, compression_type, buffer_size):
        return _TFRecordFile(filename, compression_type, buffer_size)


@tf_export("data.TextLineDataset")
class TextLineDataset(_FileDataset):
    """The lines of text files, without their line ends."""

    @staticmethod
    def _read_file(filename, compression_type, buffer_size):
        return _TextLineFile(filename, compression_type, buffer_size)


_RECORD = structure_lib.TensorSpec(dtypes.string, tensor_shape.scalar())


def _read_inputs(filename, compression_type, buffer_size):
    return {
        "filenames": filename,
        "compression_type": op_helper.convert_to_tensor(
            compression_type or "", dtypes.string, name="compression_type"
        ),
        "buffer_size": _int64(
            _DEFAULT_READ_BUFFER if buffer_size is None else buffer_size, "buffer_size"
        ),
    }


def _TFRecordFile(filename, compression_type, buffer_size):
    inputs = _read_inputs(filename, compression_type, buffer_size)
    inputs["byte_offsets"] = op_helper.convert_to_tensor(
        np.zeros(0, np.int64), dtypes.int64, name="byte_offsets"
    )
    return Dataset(apply_op("TFRecordDatasetV2", **inputs).outputs[0], _RECORD)


def _TextLineFile(filename, compression_type, buffer_size):
    inputs = _read_inputs(filename, compression_type, buffer_size)
    return Dataset(apply_op("TextLineDataset", **inputs).outputs[0], _RECORD)


def _file_dataset(filenames, num_parallel_reads, make_file_dataset):
    """TF's file datasets: a dataset of the file names, each file's dataset read in turn
    (``flat_map``) or, with ``num_parallel_reads``, interleaved one record at a time."""
    from tfcompat.ops import array_ops

    filenames = op_helper.convert_to_tensor(filenames, dtypes.string)
    if not filenames.shape.is_compatible_with([None]) and filenames.shape.rank not in (None, 0):
        raise TypeError("`filenames` must be a `tf.Tensor` of dtype `tf.string` and rank <= 1.")
    flat = array_ops.reshape(filenames, [-1], name="flat_filenames")
    names = apply_op(
        "TensorSliceDataset",
        components=[flat],
        output_shapes=[tensor_shape.scalar()],
        is_files=True,
    )
    files = Dataset(
        names.outputs[0], structure_lib.TensorSpec(dtypes.string, tensor_shape.scalar())
    )

    def read_one_file(filename):
        return make_file_dataset(filename)

    if num_parallel_reads is None:
        return files.flat_map(read_one_file)
    return files.interleave(
        read_one_file,
        cycle_length=num_parallel_reads,
        block_length=1,
        num_parallel_calls=num_parallel_reads,
    )
