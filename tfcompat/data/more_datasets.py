"""More ``tf.data`` transformations and ``tf.data.experimental`` functions, recording TF 2.21's
graph-mode ops:

- ``Dataset.shard`` (``ShardDataset``), ``reduce`` (``ReduceDataset``), ``window``
  (``WindowDataset``: a dataset of datasets), ``scan`` (``ScanDataset``), ``unique``
  (``UniqueDataset``), ``from_sparse_tensor_slices`` (``SparseTensorSliceDataset``),
  ``counter`` (a ``scan`` over a repeated tensor, as TF builds it), ``random``
  (``RandomDataset``: TF's Philox numbers), ``sparse_batch`` (``DenseToSparseBatchDataset``),
  ``rejection_resample``, and the methods TF2 added over experimental transformations
  tfcompat already has (``take_while``, ``ignore_errors``, ``get_single_element``,
  ``cardinality``, ``element_spec``);
- ``choose_from_datasets`` / ``sample_from_datasets`` (``DirectedInterleaveDataset`` over a
  selector dataset, as TF builds it), ``group_by_reducer`` / ``Reducer``
  (``ExperimentalGroupByReducerDataset``), ``copy_to_device`` / ``prefetch_to_device`` (the
  dataset unchanged: tfcompat's pipelines run on the host);
- ``Optional`` / ``get_next_as_optional`` (TF's optional ops); the file datasets (CSV,
  Example parsing, ``TFRecordWriter``) are in ``file_datasets.py``.

Dataset's class lives in ``dataset_ops.py``; the methods are attached here (as ``extras.py``
does) so that file stays as it is. Kernels: ``lowering/reference/datasets_more.py``.
"""

from __future__ import annotations

import numpy as np

from tfcompat.data import experimental, extras, nest
from tfcompat.data import structure as structure_lib
from tfcompat.data.dataset_ops import (
    Dataset,
    _call_attr,
    _int64,
    _seeds,
    _trace,
    _types_of,
)
from tfcompat.framework import dtypes, func_graph, op_helper, tensor_shape
from tfcompat.framework.gradient_registry import RegisterGradient, no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.ops.dataset_ops import _ELEMENT, _METADATA, _dataset
from tfcompat.util.tf_export import tf_export

_dataset(
    "ShardDataset",
    ["input_dataset: variant", "num_shards: int64", "index: int64"],
    ["require_non_empty: bool = false", *_ELEMENT, *_METADATA],
)
_dataset(
    "WindowDataset",
    [
        "input_dataset: variant",
        "size: int64",
        "shift: int64",
        "stride: int64",
        "drop_remainder: bool",
    ],
    [*_ELEMENT, *_METADATA],
)
_dataset(
    "ScanDataset",
    ["input_dataset: variant", "initial_state: Tstate", "other_arguments: Targuments"],
    [
        "f: func",
        "Tstate: list(type) >= 1",
        "Targuments: list(type) >= 0",
        *_ELEMENT,
        "preserve_cardinality: bool = false",
        "use_default_device: bool = true",
        *_METADATA,
    ],
)
_dataset("UniqueDataset", ["input_dataset: variant"], [*_ELEMENT, *_METADATA])
_dataset(
    "SparseTensorSliceDataset",
    ["indices: int64", "values: Tvalues", "dense_shape: int64"],
    ["Tvalues: type"],
    is_stateful=True,
)
_dataset("RandomDataset", ["seed: int64", "seed2: int64"], [*_ELEMENT, *_METADATA], True)
_dataset(
    "DirectedInterleaveDataset",
    ["selector_input_dataset: variant", "data_input_datasets: N * variant"],
    [*_ELEMENT, "N: int >= 1", "stop_on_empty_dataset: bool = false"],
)
_dataset("RewriteDataset", ["input_dataset: variant", "rewrite_name: string"], _ELEMENT)
register_op(
    "ReduceDataset",
    inputs=["input_dataset: variant", "initial_state: Tstate", "other_arguments: Targuments"],
    outputs=["components: output_types"],
    attrs=[
        "f: func",
        "Tstate: list(type) >= 1",
        "Targuments: list(type) >= 0",
        *_ELEMENT,
        "use_inter_op_parallelism: bool = true",
        *_METADATA,
    ],
    shape_fn=lambda op: list(op.attrs["output_shapes"]),
    is_stateful=True,
    host=True,
)
no_gradient("ReduceDataset")


# ---------------------------------------------------------------------------------------------
# shard / unique / window
# ---------------------------------------------------------------------------------------------
def _shard(self, num_shards, index, name=None):
    """Every ``num_shards``-th element, starting with element ``index`` (0 <= index <
    num_shards, checked when the dataset starts)."""
    return self._chain(
        "ShardDataset",
        num_shards=_int64(num_shards, "num_shards"),
        index=_int64(index, "index"),
    )


def _unique(self, name=None):
    """The elements without repeats (first occurrences, in order); int32, int64 or string
    scalars or vectors only, as in TF."""
    for spec in structure_lib.flatten(self._structure):
        if spec.dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
            raise TypeError(
                f"`tf.data.Dataset.unique` does not support type {spec.dtype!r} -- only "
                "`tf.int32`, `tf.int64`, and `tf.string` are supported."
            )
    return self._chain("UniqueDataset")


def _window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
    """A dataset of windows: each a nest of datasets (one per component) of ``size``
    elements, every ``stride``-th from the window's start; windows start ``shift`` (default
    ``size``) elements apart; the shorter last ones are dropped if ``drop_remainder``."""
    if shift is None:
        shift = size
    structure = nest.pack_sequence_as(
        self._structure,
        [structure_lib.DatasetSpec(spec) for spec in structure_lib.flatten(self._structure)],
    )
    return self._chain(
        "WindowDataset",
        structure,
        size=_int64(size, "size"),
        shift=_int64(shift, "shift"),
        stride=_int64(stride, "stride"),
        drop_remainder=op_helper.convert_to_tensor(
            drop_remainder, dtypes.bool, name="drop_remainder"
        ),
    )


# ---------------------------------------------------------------------------------------------
# reduce / scan: a state threaded through the elements
# ---------------------------------------------------------------------------------------------
def _relaxed_state(func, state_structure, element_structure, transformation, state_of):
    """``func`` traced on (state, element) until the state's shapes settle, as TF does: a
    new state whose shape differs from the initial one widens the state's shape and the
    function is traced again. Returns (function, state structure)."""
    while True:
        function = _trace(func, (state_structure, element_structure), transformation)
        new_state = state_of(function.element_structure)
        old_specs = structure_lib.flatten(state_structure)
        try:
            nest.assert_same_structure(state_structure, new_state)
            new_specs = structure_lib.flatten(new_state)
        except (ValueError, TypeError):
            new_specs = None
        old_types = structure_lib.legacy(state_structure, "types")
        if new_specs is None or any(
            type(o) is not type(n) or o.dtype != n.dtype for o, n in zip(old_specs, new_specs)
        ):
            got = structure_lib.legacy(new_state, "types") if new_specs is not None else new_state
            if transformation == "scan":
                raise TypeError(
                    "Invalid `scan_func`. The element types for the new state must match the "
                    f"initial state. Expected {old_types}, got {got}."
                )
            raise TypeError(
                "The element types for the new state must match the initial state. Expected "
                f"{old_types} but got {got}."
            )
        widened = [
            o.shape.most_specific_compatible_shape(n.shape) for o, n in zip(old_specs, new_specs)
        ]
        if all(
            o.shape.rank is None or (w.rank is not None and o.shape.as_list() == w.as_list())
            for o, w in zip(old_specs, widened)
        ):
            return function, state_structure
        state_structure = nest.pack_sequence_as(
            state_structure, [type(o)(o.dtype, w) for o, w in zip(old_specs, widened)]
        )
        # TF keeps only the final trace in the library: drop this one.
        func_graph.root_graph(function.outer_graph)._functions.pop(function.name, None)


def _reduce(self, initial_state, reduce_func, name=None):
    """The final state of ``reduce_func(state, element)`` applied to every element in turn,
    from ``initial_state`` (tensors, not a dataset: running them runs the whole dataset)."""
    from tfcompat.framework.scopes import name_scope

    with name_scope("initial_state"):
        state_structure, state_tensors = structure_lib.normalize(initial_state)
    function, state_structure = _relaxed_state(
        reduce_func, state_structure, self._structure, "reduce", lambda result: result
    )
    components = apply_op(
        "ReduceDataset",
        input_dataset=self._variant_tensor,
        initial_state=state_tensors,
        other_arguments=function.captured_inputs,
        f=_call_attr(function),
        Targuments=_types_of(function.captured_inputs),
        **self._element_attrs(state_structure),
    ).outputs
    return structure_lib.from_components(state_structure, list(components))


def _scan_pair(result):
    if not (isinstance(result, tuple) and len(result) == 2):
        raise TypeError(
            "Invalid `scan_func`. `scan_func` should return a pair consisting of new state and "
            f"the output value but its return type is {result}."
        )
    return result[0]


def _scan(self, initial_state, scan_func, name=None):
    """The outputs of ``scan_func(state, element) -> (new_state, output)`` applied to the
    elements in turn, from ``initial_state``."""
    state_structure, state_tensors = structure_lib.normalize(initial_state)
    function, state_structure = _relaxed_state(
        scan_func, state_structure, self._structure, "scan", _scan_pair
    )
    return self._chain(
        "ScanDataset",
        function.element_structure[1],
        initial_state=state_tensors,
        other_arguments=function.captured_inputs,
        f=_call_attr(function),
        Targuments=_types_of(function.captured_inputs),
        preserve_cardinality=True,
    )


@tf_export("data.experimental.scan")
def scan(initial_state, scan_func):
    """``Dataset.scan`` as a transformation for ``Dataset.apply``."""
    return lambda dataset: _scan(dataset, initial_state, scan_func)


@tf_export("data.experimental.unique")
def unique():
    """``Dataset.unique`` as a transformation for ``Dataset.apply``."""
    return lambda dataset: _unique(dataset)


# ---------------------------------------------------------------------------------------------
# Sources: from_sparse_tensor_slices, counter, random
# ---------------------------------------------------------------------------------------------
def _from_sparse_tensor_slices(sparse_tensor):
    """The rows of a SparseTensor, each as TF's deprecated form gives it: a tuple of the
    row's (indices, values, dense_shape) without the first dimension."""
    from tfcompat.framework.sparse_tensor import SparseTensor, SparseTensorValue

    if isinstance(sparse_tensor, SparseTensorValue):
        sparse_tensor = SparseTensor.from_value(sparse_tensor)
    if not isinstance(sparse_tensor, SparseTensor):
        raise TypeError(
            f"`sparse_tensor` must be a `tf.sparse.SparseTensor` object, got {sparse_tensor!r}."
        )
    indices, values, dense_shape = (
        sparse_tensor.indices,
        sparse_tensor.values,
        sparse_tensor.dense_shape,
    )
    rank = (indices.shape.with_rank(2)[1] - 1).merge_with(dense_shape.shape.with_rank(1)[0] - 1)
    structure = (
        structure_lib.TensorSpec(dtypes.int64, tensor_shape.TensorShape([None, rank])),
        structure_lib.TensorSpec(values.dtype.base_dtype, tensor_shape.TensorShape([None])),
        structure_lib.TensorSpec(dtypes.int64, tensor_shape.TensorShape([rank])),
    )
    op = apply_op(
        "SparseTensorSliceDataset", indices=indices, values=values, dense_shape=dense_shape
    )
    return Dataset(op.outputs[0], structure)


@tf_export("data.experimental.Counter")
def Counter(start=0, step=1, dtype=dtypes.int64, name=None):
    """``start``, ``start + step``, ... forever (a ``scan`` over a repeated tensor, as TF
    builds it)."""
    from tfcompat.framework.scopes import name_scope

    with name_scope("counter"):
        start = op_helper.convert_to_tensor(start, dtype, name="start")
        step = op_helper.convert_to_tensor(step, dtype, name="step")
        return _scan(
            Dataset.from_tensors(0).repeat(None), start, lambda state, _: (state + step, state)
        )


def _counter(start=0, step=1, dtype=dtypes.int64, name=None):
    """``start``, ``start + step``, ... forever."""
    return Counter(start, step, dtype, name)


def _random(seed=None, rerandomize_each_iteration=None, name=None):
    """Pseudorandom int64 scalars in [0, 2**32), forever (values follow a seeded generator
    of tfcompat's own: the same for the same seeds, not TF's numbers)."""
    if rerandomize_each_iteration:
        raise NotImplementedError(
            "Dataset.random(rerandomize_each_iteration=True) (TF's RandomDatasetV2 with a "
            "seed generator resource) is not supported."
        )
    seed_tensor, seed2_tensor = _seeds(seed)
    spec = structure_lib.TensorSpec(dtypes.int64, tensor_shape.scalar())
    op = apply_op(
        "RandomDataset",
        seed=seed_tensor,
        seed2=seed2_tensor,
        output_types=[dtypes.int64],
        output_shapes=[tensor_shape.scalar()],
    )
    return Dataset(op.outputs[0], spec)


@tf_export("data.experimental.RandomDataset")
class RandomDataset(Dataset):
    """``Dataset.random``: pseudorandom int64 scalars, forever."""

    def __init__(self, seed=None, name=None):
        dataset = _random(seed)
        super().__init__(dataset._variant_tensor, dataset._structure)


# ---------------------------------------------------------------------------------------------
# choose_from_datasets / sample_from_datasets
# ---------------------------------------------------------------------------------------------
def _check_datasets(datasets):
    """The element structure of a mix of ``datasets``: the same nesting and types (shapes
    may differ: the mix has the most specific shapes compatible with all)."""
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    first = datasets[0]._structure
    for i, dataset in enumerate(datasets[1:], 1):
        if not _same_types(first, dataset._structure):
            raise TypeError(
                "Invalid `datasets`. `datasets` must have compatible element specs.\n "
                f"dataset[0].element_spec={first}.\ndataset[{i}].element_spec="
                f"{dataset._structure}."
            )
    structure = first
    for dataset in datasets[1:]:
        structure = structure_lib.most_specific_compatible(structure, dataset._structure)
    return structure


def _same_types(a, b):
    try:
        nest.assert_same_structure(a, b)
    except (ValueError, TypeError):
        return False
    return all(
        type(x) is type(y) and x.dtype == y.dtype
        for x, y in zip(structure_lib.flatten(a), structure_lib.flatten(b))
    )


def _directed_interleave(selector, datasets, stop_on_empty_dataset):
    structure = _check_datasets(datasets)
    op = apply_op(
        "DirectedInterleaveDataset",
        selector_input_dataset=selector._variant_tensor,
        data_input_datasets=[d._variant_tensor for d in datasets],
        stop_on_empty_dataset=stop_on_empty_dataset,
        output_types=structure_lib.flat_types(structure),
        output_shapes=structure_lib.flat_shapes(structure),
    )
    return Dataset(op.outputs[0], structure)


def _choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """The elements of ``datasets[i]`` for each ``i`` of ``choice_dataset`` (int64
    scalars), in turn; an exhausted dataset's choices are skipped (or, with
    ``stop_on_empty_dataset``, end the dataset)."""
    datasets = list(datasets)
    _check_datasets(datasets)
    if not isinstance(choice_dataset, Dataset):
        raise TypeError(
            f"Invalid `choice_dataset`. `choice_dataset` should be a `tf.data.Dataset` but is "
            f"{choice_dataset!r}."
        )
    spec = choice_dataset._structure
    if not (
        isinstance(spec, structure_lib.TensorSpec)
        and spec.dtype == dtypes.int64
        and spec.shape.is_compatible_with([])
    ):
        raise TypeError(
            "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar of "
            f"`tf.int64` dtype, but got {spec}."
        )
    # TF wraps the choices in a no-op RewriteDataset ("replicate_on_split").
    rewritten = choice_dataset._chain(
        "RewriteDataset",
        rewrite_name=op_helper.convert_to_tensor(
            "replicate_on_split", dtypes.string, name="RewriteDataset/rewrite_name"
        ),
    )
    return _directed_interleave(rewritten, datasets, stop_on_empty_dataset)


@tf_export("data.experimental.choose_from_datasets")
def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """``Dataset.choose_from_datasets`` with TF's experimental default
    ``stop_on_empty_dataset=False``."""
    return _choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def _multinomial(logits, seeds):
    """One draw per row of ``logits``: the raw op, as TF's selectors record it."""
    return apply_op(
        "StatelessMultinomial",
        logits=logits,
        num_samples=np.int32(1),
        seed=seeds,
        output_dtype=dtypes.int64,
    ).outputs[0]


def _selector(inputs, select):
    """``inputs.map(select)`` as TF's selectors record it (no inter-op parallelism)."""
    function = _trace(select, inputs._structure, "map")
    return inputs._chain(
        "MapDataset",
        function.element_structure,
        other_arguments=function.captured_inputs,
        f=_call_attr(function),
        Targuments=_types_of(function.captured_inputs),
        use_inter_op_parallelism=False,
        preserve_cardinality=True,
    )


def _sample_from_datasets(
    datasets, weights=None, seed=None, stop_on_empty_dataset=False, rerandomize_each_iteration=None
):
    """Elements drawn from ``datasets``, each time from dataset ``i`` with probability
    ``weights[i]`` (uniform by default; as in TF, the draws are a ``StatelessMultinomial``
    of the ``RandomDataset``'s numbers)."""
    from tfcompat.ops import array_ops, math_ops

    datasets = list(datasets)
    _check_datasets(datasets)
    if isinstance(weights, Dataset):
        # One weights vector per draw: the logits of each, zipped with the seeds.
        logits = weights.map(lambda *p: math_ops.log(p, name="logits"))

        def select_dataset_varying_logits(logits, seeds):
            return array_ops.squeeze(_multinomial(logits, seeds), axis=[0, 1])

        inputs = Dataset.zip((logits, _random(seed).batch(2)))
        return _directed_interleave(
            _selector(inputs, select_dataset_varying_logits), datasets, stop_on_empty_dataset
        )
    if weights is None:
        logits = np.ones((1, len(datasets)), np.float32)  # uniform, as TF's [[1.0] * n]
    else:
        from tfcompat.framework.tensor import Tensor

        if isinstance(weights, Tensor):
            if not weights.shape.is_compatible_with([len(datasets)]):
                raise ValueError(
                    "Invalid `weights`. The shape of `weights` should be compatible with "
                    f"`[len(datasets)]` but is {weights.shape}."
                )
        else:
            if len(datasets) != len(weights):
                raise ValueError(
                    "Invalid `weights`. `weights` should have the same length as `datasets` "
                    f"but got `len(weights)={len(weights)}` vs. "
                    f"`len(datasets)={len(datasets)}`."
                )
            # TF leaves out the datasets of a zero Python weight.
            kept = [(d, w) for d, w in zip(datasets, weights) if w != 0]
            datasets, weights = [d for d, _ in kept], [w for _, w in kept]
        weights = op_helper.convert_to_tensor(weights, name="weights")
        if weights.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(
                "Invalid `weights`. `weights` type must be either `tf.float32` or `tf.float64` "
                f"but is {weights.dtype}."
            )
        logits = array_ops.expand_dims(math_ops.log(weights, name="logits"), 0)
    if len(datasets) == 1:
        return datasets[0]

    def select_dataset_constant_logits(seeds):
        return array_ops.squeeze(_multinomial(logits, seeds), axis=[0, 1])

    selector = _selector(_random(seed).batch(2), select_dataset_constant_logits)
    return _directed_interleave(selector, datasets, stop_on_empty_dataset)


@tf_export("data.experimental.sample_from_datasets")
def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """``Dataset.sample_from_datasets`` as ``tf.data.experimental`` has it."""
    return _sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


# ---------------------------------------------------------------------------------------------
# Dataset methods
# ---------------------------------------------------------------------------------------------
def _take_while(self, predicate, name=None):
    """The elements up to the first for which ``predicate`` is False."""
    return experimental.take_while(predicate)(self)


def _ignore_errors(self, log_warning=False, name=None):
    """The elements without those whose computation fails."""
    return experimental.ignore_errors(log_warning)(self)


def _get_single_element(self, name=None):
    """The dataset's one element as tensors (InvalidArgumentError when it has none or more
    than one)."""
    return experimental.get_single_element(self)


def _cardinality(self):
    """An int64 scalar: the number of elements, -1 (infinite) or -2 (unknown)."""
    return extras.cardinality(self)


Dataset.shard = _shard
Dataset.unique = _unique
Dataset.window = _window
Dataset.reduce = _reduce
Dataset.scan = _scan
Dataset.take_while = _take_while
Dataset.ignore_errors = _ignore_errors
Dataset.get_single_element = _get_single_element
Dataset.cardinality = _cardinality
Dataset.from_sparse_tensor_slices = staticmethod(_from_sparse_tensor_slices)
Dataset.counter = staticmethod(_counter)
Dataset.random = staticmethod(_random)
Dataset.choose_from_datasets = staticmethod(_choose_from_datasets)
Dataset.sample_from_datasets = staticmethod(_sample_from_datasets)


# ---------------------------------------------------------------------------------------------
# group_by_reducer / Reducer
# ---------------------------------------------------------------------------------------------
_dataset(
    "ExperimentalGroupByReducerDataset",
    [
        "input_dataset: variant",
        "key_func_other_arguments: Tkey_func_other_arguments",
        "init_func_other_arguments: Tinit_func_other_arguments",
        "reduce_func_other_arguments: Treduce_func_other_arguments",
        "finalize_func_other_arguments: Tfinalize_func_other_arguments",
    ],
    [
        "key_func: func",
        "init_func: func",
        "reduce_func: func",
        "finalize_func: func",
        "Tkey_func_other_arguments: list(type) >= 0",
        "Tinit_func_other_arguments: list(type) >= 0",
        "Treduce_func_other_arguments: list(type) >= 0",
        "Tfinalize_func_other_arguments: list(type) >= 0",
        *_ELEMENT,
    ],
    is_stateful=True,
)


@tf_export("data.experimental.Reducer")
class Reducer:
    """What ``group_by_reducer`` does with each group: ``init_func(key)`` makes the state,
    ``reduce_func(state, element)`` folds each element in, ``finalize_func(state)`` makes
    the group's output element."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self):
        return self._init_func

    @property
    def reduce_func(self):
        return self._reduce_func

    @property
    def finalize_func(self):
        return self._finalize_func


_KEY_SPEC = structure_lib.TensorSpec(dtypes.int64, tensor_shape.scalar())


@tf_export("data.experimental.group_by_reducer")
def group_by_reducer(key_func, reducer):
    """Elements grouped by ``key_func`` (an int64 scalar each) and each group folded by
    ``reducer``; after the whole input, one element per group (in order of first
    appearance), ``reducer.finalize_func(state)``."""

    def apply(dataset):
        key = _trace(key_func, dataset._structure, "group_by_reducer")
        result = structure_lib.flatten(key.element_structure)
        if not (
            len(result) == 1
            and isinstance(result[0], structure_lib.TensorSpec)
            and result[0].dtype == dtypes.int64
            and result[0].shape.is_compatible_with([])
        ):
            raise ValueError(
                "Invalid `key_func`. Expected `key_func` to return a scalar tf.int64 tensor, "
                f"but instead `key_func` has output types={key.element_structure.dtype!r} and "
                f"shapes={key.element_structure.shape}."
                if len(result) == 1
                else f"Invalid `key_func`. It returned {key.element_structure}."
            )
        init = _trace(reducer.init_func, _KEY_SPEC, "group_by_reducer")
        reduce, state = _relaxed_state(
            reducer.reduce_func,
            init.element_structure,
            dataset._structure,
            "group_by_reducer",
            lambda result: result,
        )
        finalize = _trace(reducer.finalize_func, state, "group_by_reducer")
        functions = {"key": key, "init": init, "reduce": reduce, "finalize": finalize}
        inputs = {f"{n}_func_other_arguments": f.captured_inputs for n, f in functions.items()}
        attrs = {f"{n}_func": _call_attr(f) for n, f in functions.items()}
        types = {
            f"T{n}_func_other_arguments": _types_of(f.captured_inputs) for n, f in functions.items()
        }
        op = apply_op(
            "ExperimentalGroupByReducerDataset",
            input_dataset=dataset._variant_tensor,
            **inputs,
            **attrs,
            **types,
            **dataset._element_attrs(finalize.element_structure),
        )
        return Dataset(op.outputs[0], finalize.element_structure)

    return apply


# ---------------------------------------------------------------------------------------------
# dense_to_sparse_batch / Dataset.sparse_batch
# ---------------------------------------------------------------------------------------------
_dataset(
    "DenseToSparseBatchDataset",
    ["input_dataset: variant", "batch_size: int64", "row_shape: int64"],
    _ELEMENT,
)


def _sparse_batch(self, batch_size, row_shape, name=None):
    """Batches of ``batch_size`` elements as SparseTensors of dense shape
    ``[batch, *row_shape]`` (a -1 / None dimension: the batch's largest), every entry of
    each element present."""
    spec = self._structure
    if not isinstance(spec, structure_lib.TensorSpec):
        raise TypeError(
            "`dense_to_sparse_batch` requires an input dataset whose elements have a single "
            "component, but the given dataset has the following component types: "
            f"{structure_lib.legacy(spec, 'types')}."
        )
    row_shape = tensor_shape.as_shape(row_shape)
    structure = structure_lib.SparseTensorSpec(
        spec.dtype, tensor_shape.TensorShape([None]).concatenate(row_shape)
    )
    shape_tensor = op_helper.convert_to_tensor(
        np.array([-1 if d is None else d for d in row_shape.as_list()], np.int64)
    )
    return self._chain(
        "DenseToSparseBatchDataset",
        structure,
        batch_size=np.int64(batch_size) if isinstance(batch_size, int) else batch_size,
        row_shape=shape_tensor,
    )


@tf_export("data.experimental.dense_to_sparse_batch")
def dense_to_sparse_batch(batch_size, row_shape):
    """``Dataset.sparse_batch`` as a transformation for ``Dataset.apply``."""
    return lambda dataset: _sparse_batch(dataset, batch_size, row_shape)


# ---------------------------------------------------------------------------------------------
# prefetch_to_device / copy_to_device
# ---------------------------------------------------------------------------------------------
@tf_export("data.experimental.copy_to_device")
def copy_to_device(target_device, source_device="/cpu:0"):
    """The dataset unchanged: tfcompat's pipelines run on the host and the Session moves
    what a step fetches onto the accelerator, so there is nothing to copy (TF records a
    GeneratorDataset of remote calls here; tfcompat records nothing)."""
    return lambda dataset: dataset


@tf_export("data.experimental.prefetch_to_device")
def prefetch_to_device(device, buffer_size=None):
    """The dataset unchanged (see ``copy_to_device``): the same elements in the same order,
    which is all TF's device prefetching changes nothing of."""
    return lambda dataset: dataset


# ---------------------------------------------------------------------------------------------
# rejection_resample
# ---------------------------------------------------------------------------------------------
def _acceptance_probs_with_mixing(initial, target):
    """(per-class acceptance probabilities, probability of drawing from the original data):
    TF's solution that rejects the least data, ``a_i = (t_i/p_i - m) / (max - m)`` with
    ``m = min_i t_i/p_i``."""
    from tfcompat.ops import reduction_ops

    denominator = initial + np.finfo(initial.dtype.as_numpy_dtype).tiny
    ratio = target / denominator
    highest, lowest = reduction_ops.reduce_max(ratio), reduction_ops.reduce_min(ratio)
    return (ratio - lowest) / (highest - lowest), lowest


def _estimated_initial_dist(target, class_values, batch_size=32, smoothing=10):
    """A dataset of the running estimate of the class distribution (TF's: counts smoothed
    by ``smoothing``, updated a batch of ``batch_size`` class values at a time)."""
    from tfcompat.ops import array_ops, gather_ops, math_ops, pad_ops, reduction_ops

    classes = target.shape[0] or array_ops.shape(target)[0]
    seen = array_ops.fill([classes], np.int64(smoothing))

    def update_estimate_and_tile(counts, c):
        counts = math_ops.add(
            counts,
            reduction_ops.reduce_sum(gather_ops.one_hot(c, counts.shape[0], dtype=dtypes.int64), 0),
        )
        dist = math_ops.cast(
            math_ops.truediv(counts, reduction_ops.reduce_sum(counts)), dtypes.float32
        )
        return counts, pad_ops.tile(array_ops.expand_dims(dist, 0), [batch_size, 1])

    return _scan(class_values.batch(batch_size), seen, update_estimate_and_tile).unbatch()


def _rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None, name=None):
    """Elements resampled towards the class distribution ``target_dist`` (``class_func``:
    an element's int32 class), as ``(class, element)`` pairs: mixed from the data as it is
    and a rejection-sampled copy, in TF's proportions (random: statistics only)."""
    from tfcompat.ops import gather_ops, math_ops, random_ops

    target = math_ops.cast(op_helper.convert_to_tensor(target_dist, name="target_dist"), "float32")
    if initial_dist is not None:
        initial = math_ops.cast(
            op_helper.convert_to_tensor(initial_dist, name="initial_dist"), dtypes.float32
        )
        acceptance, prob_of_original = _acceptance_probs_with_mixing(initial, target)
        initial_ds = Dataset.from_tensors(initial).repeat()
        acceptance_ds = Dataset.from_tensors(acceptance).repeat()
        prob_of_original_ds = Dataset.from_tensors(prob_of_original).repeat()
    else:
        initial_ds = _estimated_initial_dist(target, self.map(class_func))
        both = initial_ds.map(lambda initial: _acceptance_probs_with_mixing(initial, target))
        acceptance_ds = both.map(lambda accept, _: accept)
        prob_of_original_ds = both.map(lambda _, original: original)

    def gather_and_copy(acceptance_prob, data):
        class_value = class_func(*data) if isinstance(data, tuple) else class_func(data)
        return class_value, gather_ops.gather(acceptance_prob, class_value), data

    def reject(unused_class, p, unused_data):
        return random_ops.random_uniform([], seed=seed, dtype=p.dtype) < p

    filtered = (
        Dataset.zip((acceptance_ds, self))
        .map(gather_and_copy)
        .filter(reject)
        .map(lambda class_value, _, data: (class_value, data))
        .prefetch(3)
    )

    static_original = None
    if initial_dist is not None:
        from tfcompat.framework import constant_value

        initial_value = constant_value.constant_value(initial)
        target_value = constant_value.constant_value(target)
        if initial_value is not None and target_value is not None:
            static_original = np.min(target_value / initial_value)

    def add_class_value(*x):
        return (class_func(*x), x[0]) if len(x) == 1 else (class_func(*x), x)

    if static_original == 1:
        return self.map(add_class_value)
    if static_original == 0:
        return filtered
    return _sample_from_datasets(
        [self.map(add_class_value), filtered],
        weights=prob_of_original_ds.map(lambda prob: [(prob, 1.0 - prob)]),
        seed=seed,
        stop_on_empty_dataset=True,
    )


@tf_export("data.experimental.rejection_resample")
def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """``Dataset.rejection_resample`` as a transformation for ``Dataset.apply``."""
    return lambda dataset: _rejection_resample(dataset, class_func, target_dist, initial_dist, seed)


Dataset.rejection_resample = _rejection_resample
Dataset.sparse_batch = _sparse_batch


# ---------------------------------------------------------------------------------------------
# tf.data.experimental.Optional / get_next_as_optional
# ---------------------------------------------------------------------------------------------
def _variant_shape(op):
    return [tensor_shape.scalar()]


register_op(
    "OptionalFromValue",
    inputs=["components: Toutput_types"],
    outputs=["optional: variant"],
    attrs=["Toutput_types: list(type) >= 1"],
    shape_fn=_variant_shape,
    host=True,
)
register_op("OptionalNone", outputs=["optional: variant"], shape_fn=_variant_shape, host=True)
register_op(
    "OptionalHasValue",
    inputs=["optional: variant"],
    outputs=["has_value: bool"],
    shape_fn=_variant_shape,
    host=True,
)
register_op(
    "OptionalGetValue",
    inputs=["optional: variant"],
    outputs=["components: output_types"],
    attrs=_ELEMENT,
    shape_fn=lambda op: list(op.attrs["output_shapes"]),
    host=True,
)
register_op(
    "IteratorGetNextAsOptional",
    inputs=["iterator: resource"],
    outputs=["optional: variant"],
    attrs=_ELEMENT,
    shape_fn=_variant_shape,
    is_stateful=True,
    host=True,
)
for _name in ("OptionalNone", "OptionalHasValue", "IteratorGetNextAsOptional"):
    no_gradient(_name)


@RegisterGradient("OptionalFromValue")
def _optional_from_value_grad(op, grad):
    return apply_op(
        "OptionalGetValue",
        optional=grad,
        output_types=[t.dtype.base_dtype for t in op.inputs],
        output_shapes=[t.shape for t in op.inputs],
    ).outputs


@RegisterGradient("OptionalGetValue")
def _optional_get_value_grad(unused_op, *grads):
    return apply_op("OptionalFromValue", components=list(grads)).outputs[0]


@tf_export("data.experimental.Optional")
class Optional:
    """A value that may be missing: an element (a nest of tensors) or none.
    ``get_value()`` of an empty one fails at run time with InvalidArgumentError."""

    def __init__(self, variant_tensor, element_spec):
        self._variant_tensor = variant_tensor
        self._element_spec = element_spec

    @staticmethod
    def from_value(value):
        """An Optional holding ``value``."""
        from tfcompat.framework.scopes import name_scope

        with name_scope("optional") as scope:
            with name_scope("value"):
                structure, components = structure_lib.normalize(value, name_scope=False)
            op = apply_op("OptionalFromValue", name=scope, components=components)
        return Optional(op.outputs[0], structure)

    @staticmethod
    def empty(element_spec):
        """An Optional with no value, for elements of ``element_spec``."""
        return Optional(apply_op("OptionalNone").outputs[0], element_spec)

    def has_value(self, name=None):
        """A bool scalar: whether there is a value."""
        return apply_op("OptionalHasValue", name=name, optional=self._variant_tensor).outputs[0]

    def get_value(self, name=None):
        """The value (InvalidArgumentError at run time when there is none)."""
        from tfcompat.framework.scopes import name_scope

        with name_scope(name, "OptionalGetValue", [self._variant_tensor]) as scope:
            components = apply_op(
                "OptionalGetValue",
                name=scope,
                optional=self._variant_tensor,
                output_types=structure_lib.flat_types(self._element_spec),
                output_shapes=structure_lib.flat_shapes(self._element_spec),
            ).outputs
        return structure_lib.from_components(self._element_spec, list(components))

    @property
    def element_spec(self):
        """The nest of ``tf.TensorSpec`` / ``tf.SparseTensorSpec`` of the value."""
        return structure_lib.public_spec(self._element_spec)


@tf_export("data.experimental.get_next_as_optional")
def get_next_as_optional(iterator):
    """The iterator's next element as an Optional, empty at the end of the dataset (where
    ``get_next()`` would raise OutOfRangeError)."""
    structure = iterator._structure
    op = apply_op(
        "IteratorGetNextAsOptional",
        iterator=iterator._iterator_resource,
        output_types=structure_lib.flat_types(structure),
        output_shapes=structure_lib.flat_shapes(structure),
    )
    return Optional(op.outputs[0], structure)
