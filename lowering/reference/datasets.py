"""Kernels of ``tf.data`` (host ops: these kernels are the implementation).

A dataset op's output (TF's ``variant``) is a ``DatasetValue``: an immutable recipe whose
``elements()`` starts a new pass over the elements, each a tuple of numpy arrays (one per
flat component; a SparseTensor component is an object array of its three parts). Nothing
is read or computed until an iterator pulls, one element at a time, as in TF.

Iterators live in the Session state under ``"iterator:" + (shared_name or node name)``;
``MakeIterator`` (or a one-shot iterator's first run) starts a pass and ``IteratorGetNext``
takes the next element, raising OutOfRangeError at the end, as TF does.

Functions (map, filter, flat_map, interleave, the one-shot dataset factory) are the
FuncGraphs of the graph's library, run by their numpy kernels (a ``HostProgram`` built once
per function) with the run's state, so a function may look up a table the Session
initialized.
"""

from __future__ import annotations

import dataclasses
import gzip
import itertools
import os
import threading
import zlib

import numpy as np

from lowering import compile as compile_lib
from lowering import interpreter
from lowering import plan as plan_lib
from lowering.reference import dataset_vectorize
from lowering.registry import reference
from tfcompat.framework import dtypes, errors
from tfcompat.framework import func_graph as func_graph_lib
from tfcompat.lib.io import tf_record


class DatasetValue:
    """The value of a dataset op: ``elements()`` yields its elements from the start."""

    def __init__(self, op, elements):
        self.op = op
        self._elements = elements

    def elements(self):
        return self._elements()

    def __repr__(self):
        return f"<dataset {self.op.name}>"


def _invalid(op, message):
    return errors.InvalidArgumentError(None, op, message)


def _element_types(op):
    return op.attrs.get("output_types") or op.attrs.get("Toutput_types")


def _as_component(value, dtype):
    """A kernel or function result as the component's numpy value."""
    if dtype == dtypes.variant or isinstance(value, DatasetValue):
        return value
    if dtype == dtypes.string:
        return np.asarray(value, dtype=object)
    return np.asarray(value, dtype=dtype.as_numpy_dtype)


def _copy(value):
    return value.copy() if isinstance(value, np.ndarray) else value


# ---------------------------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------------------------
class _Function:
    """One library function, callable on an element's components (plus captured values)."""

    def __init__(self, ctx, op, attr_name, captured=()):
        attr = op.attrs[attr_name]
        name = attr.name if hasattr(attr, "name") else attr
        graph = func_graph_lib.get_function(op.graph, name)
        if graph is None:
            raise errors.NotFoundError(
                None, op, f"Function {name} is not defined in the graph's function library"
            )
        self.graph = graph
        self.captured = list(captured)
        self.state = ctx.state
        self.entropy = ctx.rng_key.entropy if ctx.rng_key is not None else 0
        self.program = _program(graph)

    def __call__(self, components) -> tuple:
        arguments = list(components) + self.captured
        if len(arguments) != len(self.graph.inputs):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Function {self.graph.name} expects {len(self.graph.inputs)} arguments, "
                f"got {len(arguments)}",
            )
        env = dict(zip(self.graph.inputs, arguments))
        seed = compile_lib.RunSeed(self.entropy, next(self.graph._call_counter))
        self.program.run(env, interpreter.Context(self.state, "reference", seed))
        return tuple(_as_component(env[t], t.dtype.base_dtype) for t in self.graph.outputs)


_PROGRAM_LOCK = threading.Lock()


def _program(graph):
    """The function body as a HostProgram of numpy kernels (built once per function: its
    kernels looked up and its constants computed once, not per element)."""
    with _PROGRAM_LOCK:
        program = getattr(graph, "_host_program", None)
        if program is None:
            plan = plan_lib.build_plan(
                list(graph.outputs),
                [],
                list(graph.inputs),
                frozenset(compile_lib.RANDOM_OP_TYPES),
            )
            ops = [op for segment in plan.segments for op in segment.ops]
            program = interpreter.HostProgram(ops, backend="reference")
            graph._host_program = program
            graph._call_counter = itertools.count(1)
    return program


def _dataset_of(op, value) -> DatasetValue:
    if isinstance(value, np.ndarray) and value.dtype == object and value.shape == ():
        value = value[()]  # a kernel such as Identity may hand it on as a 0-d object array
    if not isinstance(value, DatasetValue):
        raise _invalid(op, f"Expected a dataset (variant) input, got {type(value).__name__}")
    return value


# ---------------------------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------------------------
@reference("TensorDataset")
def _tensor_dataset(ctx, op, *components):
    element = tuple(components)
    return DatasetValue(op, lambda: iter([tuple(_copy(c) for c in element)]))


@reference("TensorSliceDataset")
def _tensor_slice_dataset(ctx, op, *components):
    components = [
        np.asarray(c, dtype=object) if _is_object(c) else np.asarray(c) for c in components
    ]
    for i, c in enumerate(components):
        if c.ndim == 0:
            raise _invalid(op, f"Component {i} must have at least one dimension to be sliced.")
    count = components[0].shape[0]
    for c in components[1:]:
        if c.shape[0] != count:
            raise _invalid(op, "All components must have the same size in the 0th dimension")

    def elements():
        for row in range(count):
            yield tuple(
                _copy(c[row]) if c.ndim > 1 else c[row : row + 1].reshape(()) for c in components
            )

    return DatasetValue(op, elements)


def _is_object(value) -> bool:
    return isinstance(value, np.ndarray) and value.dtype == object


@reference("RangeDataset")
def _range_dataset(ctx, op, start, stop, step):
    start, stop, step = int(start), int(stop), int(step)
    if step == 0:
        raise _invalid(op, "step must be a non-zero integer.")
    dtype = op.attrs["output_types"][0].as_numpy_dtype
    return DatasetValue(op, lambda: ((np.asarray(i, dtype),) for i in range(start, stop, step)))


def _file_names(op, filenames) -> list[str]:
    names = np.asarray(filenames, dtype=object).reshape(-1)
    return [n.decode() if isinstance(n, bytes) else str(n) for n in names]


def _compression(op, value) -> str:
    value = np.asarray(value, dtype=object).reshape(())[()]
    value = value.decode() if isinstance(value, bytes) else str(value)
    if value not in ("", "ZLIB", "GZIP"):
        raise _invalid(op, f"Unsupported compression_type: {value}.")
    return value


def _read(op, name, compression) -> bytes:
    try:
        with open(name, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, op, f"{name}; No such file or directory") from None
    except OSError as e:
        raise errors.UnknownError(None, op, f"{name}; {e.strerror}") from None
    try:
        if compression == "GZIP":
            return gzip.decompress(data)
        if compression == "ZLIB":
            return zlib.decompress(data)
    except (OSError, zlib.error, EOFError) as e:
        raise errors.DataLossError(None, op, f"{name}: {e}") from None
    return data


@reference("TFRecordDatasetV2")
def _tf_record_dataset(ctx, op, filenames, compression_type, buffer_size, byte_offsets):
    names, compression = _file_names(op, filenames), _compression(op, compression_type)

    def elements():
        for name in names:
            data = _read(op, name, compression)
            try:
                for record in tf_record.iter_records(data, name):
                    yield (np.asarray(record, dtype=object),)
            except errors.DataLossError as e:
                raise errors.DataLossError(None, op, e.message) from None

    return DatasetValue(op, elements)


@reference("TextLineDataset")
def _text_line_dataset(ctx, op, filenames, compression_type, buffer_size):
    names, compression = _file_names(op, filenames), _compression(op, compression_type)

    def elements():
        for name in names:
            lines = _read(op, name, compression).split(b"\n")
            if lines and lines[-1] == b"":
                lines.pop()  # the final line end ends the last line
            for line in lines:
                yield (np.asarray(line[:-1] if line.endswith(b"\r") else line, dtype=object),)

    return DatasetValue(op, elements)


@reference("GeneratorDataset")
def _generator_dataset(ctx, op, *inputs):
    # init_func makes a state (the Python generator's id for from_generator); next_func is
    # called on it until it raises OutOfRangeError; finalize_func releases it.
    init_count = len(op.attrs["Tinit_func_args"])
    next_count = len(op.attrs["Tnext_func_args"])
    init_args = list(inputs[:init_count])
    next_args = list(inputs[init_count : init_count + next_count])
    finalize_args = list(inputs[init_count + next_count :])
    init = _Function(ctx, op, "init_func")
    step = _Function(ctx, op, "next_func", next_args)
    finalize = _Function(ctx, op, "finalize_func", finalize_args)

    def elements():
        state = init(init_args)
        try:
            while True:
                try:
                    element = step(state)
                except errors.OutOfRangeError:
                    return
                yield element
        finally:
            finalize(state)

    return DatasetValue(op, elements)


# ---------------------------------------------------------------------------------------------
# Combinations
# ---------------------------------------------------------------------------------------------
@reference("ZipDataset")
def _zip_dataset(ctx, op, *datasets):
    datasets = [_dataset_of(op, d) for d in datasets]

    def elements():
        for parts in zip(*(d.elements() for d in datasets)):
            yield tuple(itertools.chain.from_iterable(parts))

    return DatasetValue(op, elements)


@reference("ConcatenateDataset")
def _concatenate_dataset(ctx, op, first, second):
    first, second = _dataset_of(op, first), _dataset_of(op, second)
    return DatasetValue(op, lambda: itertools.chain(first.elements(), second.elements()))


# ---------------------------------------------------------------------------------------------
# Functions of elements
# ---------------------------------------------------------------------------------------------
def _function_inputs(op, inputs, trailing):
    """(input dataset, captured values) of a function-calling dataset op whose last
    ``trailing`` inputs are scalars of its own."""
    end = len(inputs) - trailing
    return _dataset_of(op, inputs[0]), list(inputs[1:end]), inputs[end:]


class _Mapped:
    """``function`` of each element. An iterator object rather than a generator: after an
    element's function fails, the next call goes on with the next element (which
    ``ignore_errors`` relies on; a generator would be finished)."""

    def __init__(self, function, source):
        self.function, self.source = function, source

    def __iter__(self):
        return self

    def __next__(self):
        return self.function(next(self.source))


@reference("MapDataset", "ParallelMapDatasetV2")
def _map_dataset(ctx, op, *inputs):
    trailing = 1 if op.type == "ParallelMapDatasetV2" else 0
    dataset, captured, _ = _function_inputs(op, inputs, trailing)
    function = _Function(ctx, op, "f", captured)
    mapped = DatasetValue(op, lambda: _Mapped(function, dataset.elements()))
    mapped.map_of = (dataset, function)  # for a batch kernel that calls it once per batch
    return mapped


@reference("FilterDataset")
def _filter_dataset(ctx, op, *inputs):
    dataset, captured, _ = _function_inputs(op, inputs, 0)
    keep = _scalar_bool(op, _Function(ctx, op, "predicate", captured), "Filter predicate")
    return DatasetValue(op, lambda: (e for e in dataset.elements() if keep(e)))


def _scalar_bool(op, predicate, what):
    """``element -> bool`` from a predicate function, which must return a scalar bool."""

    def keep(element) -> bool:
        (result,) = predicate(element)
        result = np.asarray(result)
        if result.dtype != np.bool_ or result.shape != ():
            raise _invalid(op, f"{what} `predicate` must return a scalar bool.")
        return bool(result)

    return keep


@reference("FlatMapDataset")
def _flat_map_dataset(ctx, op, *inputs):
    dataset, captured, _ = _function_inputs(op, inputs, 0)
    function = _Function(ctx, op, "f", captured)

    def elements():
        for element in dataset.elements():
            (inner,) = function(element)
            yield from _dataset_of(op, inner).elements()

    return DatasetValue(op, elements)


_INTERLEAVE_SCALARS = {
    "InterleaveDataset": 2,
    "ParallelInterleaveDatasetV4": 5,
    "LegacyParallelInterleaveDatasetV2": 4,
}


@reference(*_INTERLEAVE_SCALARS)
def _interleave_dataset(ctx, op, *inputs):
    # The parallel forms give the same order as the deterministic one (their elements are
    # produced when pulled here, so nothing is ever "not ready" to skip).
    trailing = _INTERLEAVE_SCALARS[op.type]
    dataset, captured, scalars = _function_inputs(op, inputs, trailing)
    cycle_length, block_length = int(scalars[0]), int(scalars[1])
    if cycle_length == -1:  # AUTOTUNE: TF uses the machine's parallelism
        cycle_length = os.cpu_count() or 1
    if cycle_length <= 0:
        raise _invalid(op, "cycle_length must be greater than zero.")
    if block_length <= 0:
        raise _invalid(op, "block_length must be greater than zero.")
    function = _Function(ctx, op, "f", captured)

    def elements():
        # TF's deterministic interleave: up to cycle_length open inner datasets, block_length
        # elements from each in turn; an exhausted one is replaced by the next input's.
        source = dataset.elements()
        slots = [None] * cycle_length
        open_count, index, taken, input_done = 0, 0, 0, False
        while True:
            if slots[index] is not None:
                element = next(slots[index], None)
                if element is not None:
                    yield element
                    taken += 1
                    if taken == block_length:
                        index, taken = (index + 1) % cycle_length, 0
                    continue
                slots[index], open_count = None, open_count - 1
                index, taken = (index + 1) % cycle_length, 0
            elif not input_done:
                element = next(source, None)
                if element is None:
                    input_done = True
                else:
                    (inner,) = function(element)
                    slots[index], open_count = _dataset_of(op, inner).elements(), open_count + 1
                    continue
            else:
                index, taken = (index + 1) % cycle_length, 0
            if input_done and open_count == 0:
                return

    return DatasetValue(op, elements)


# ---------------------------------------------------------------------------------------------
# Batching
# ---------------------------------------------------------------------------------------------
def _batch_size(op, value) -> int:
    size = int(value)
    if size <= 0:
        raise _invalid(op, "Batch size must be greater than zero.")
    return size


def _batches(dataset, size, drop_remainder):
    batch = []
    for element in dataset.elements():
        batch.append(element)
        if len(batch) == size:
            yield batch
            batch = []
    if batch and not drop_remainder:
        yield batch


def _stack(op, batch, component):
    values = [element[component] for element in batch]
    first = np.shape(values[0])
    for value in values[1:]:
        if np.shape(value) != first:
            raise _invalid(
                op,
                "Cannot add tensor to the batch: number of elements does not match. Shapes "
                f"are: [tensor]: {_shape_text(np.shape(value))}, [batch]: {_shape_text(first)}",
            )
    if isinstance(values[0], np.ndarray) and values[0].dtype == object:
        out = np.empty((len(values), *first), dtype=object)
        for i, value in enumerate(values):
            out[i, ...] = value  # ``out[i] = value`` would store a 0-d array as one object
        return out
    return np.stack(values)


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


@reference("BatchDatasetV2")
def _batch_dataset(ctx, op, dataset, batch_size, drop_remainder):
    dataset, size = _dataset_of(op, dataset), _batch_size(op, batch_size)
    drop = bool(drop_remainder)
    source, function = getattr(dataset, "map_of", (None, None))
    batched = None
    if function is not None and not function.captured:
        batched = dataset_vectorize.vectorized(function.graph)

    def elements():
        if batched is not None:
            yield from _batched_map(ctx, op, source, function, batched, size, drop)
            return
        for batch in _batches(dataset, size, drop):
            yield tuple(_stack(op, batch, c) for c in range(len(batch[0])))

    return DatasetValue(op, elements)


def _batched_map(ctx, op, source, function, batched, size, drop):
    """``map(function).batch(size)`` with one call of the function's batched form per batch
    (``dataset_vectorize``); a batch it declines is mapped element by element."""
    for batch in _batches(source, size, drop):
        records = np.empty(len(batch), dtype=object)
        records[:] = [np.asarray(element[0], dtype=object).reshape(())[()] for element in batch]
        out = batched(ctx, records)
        if out is None:
            mapped = [function(element) for element in batch]
            out = tuple(_stack(op, mapped, c) for c in range(len(mapped[0])))
        yield out


@reference("PaddedBatchDatasetV2")
def _padded_batch_dataset(ctx, op, dataset, batch_size, *rest):
    count = op.attrs["N"]
    padded_shapes = [np.asarray(s, np.int64).reshape(-1) for s in rest[:count]]
    padding_values = list(rest[count : 2 * count])
    drop = bool(rest[2 * count])
    dataset, size = _dataset_of(op, dataset), _batch_size(op, batch_size)
    types = op.attrs["Toutput_types"]

    def pad(batch, component):
        values = [np.asarray(element[component]) for element in batch]
        wanted = padded_shapes[component]
        rank = len(wanted)
        for value in values:
            if value.ndim != rank:
                raise _invalid(
                    op,
                    f"All elements in a batch must have the same rank as the padded shape "
                    f"for component{component}: expected rank {rank} but got element with "
                    f"rank {value.ndim}",
                )
        shape = [
            int(d) if d >= 0 else max((v.shape[axis] for v in values), default=0)
            for axis, d in enumerate(wanted)
        ]
        dtype = object if types[component] == dtypes.string else types[component].as_numpy_dtype
        out = np.full(
            (len(values), *shape),
            np.asarray(padding_values[component]).reshape(())[()],
            dtype=dtype,
        )
        for i, value in enumerate(values):
            if any(v > s for v, s in zip(value.shape, shape)):
                # TF's error class for this one.
                raise errors.DataLossError(
                    None, op, "Attempted to pad to a smaller size than the input element."
                )
            out[(i, *(slice(0, d) for d in value.shape))] = value
        return out

    def elements():
        for batch in _batches(dataset, size, drop):
            yield tuple(pad(batch, c) for c in range(len(batch[0])))

    return DatasetValue(op, elements)


@reference("UnbatchDataset")
def _unbatch_dataset(ctx, op, dataset):
    dataset = _dataset_of(op, dataset)

    def elements():
        for element in dataset.elements():
            sizes = {np.shape(c)[0] if np.ndim(c) else None for c in element}
            if None in sizes:
                raise _invalid(op, "Input element must have a non-scalar value in each component.")
            if len(sizes) != 1:
                raise _invalid(op, "Input element must have the same batch size in each component.")
            for row in range(sizes.pop()):
                yield tuple(_copy(c[row]) for c in element)

    return DatasetValue(op, elements)


# ---------------------------------------------------------------------------------------------
# Order and count
# ---------------------------------------------------------------------------------------------
def _shuffle_seeds(op, buffer_size, seed, seed2):
    size = int(buffer_size)
    if size <= 0:
        raise _invalid(op, "buffer_size must be greater than zero.")
    seed, seed2 = int(seed), int(seed2)
    # Both seeds 0: a new order every time (TF draws random seeds); otherwise each pass is
    # determined by the seeds and, with reshuffle_each_iteration, by which pass it is.
    return size, None if seed == 0 and seed2 == 0 else (seed % 2**64, seed2 % 2**64)


def _shuffled(source, size, entropy, epoch):
    """TF's shuffle buffer: fill ``size`` elements, then hand out a random one and put the
    next input element in its place."""
    rng = np.random.default_rng(None if entropy is None else [*entropy, epoch])
    buffer = list(itertools.islice(source, size))
    while buffer:
        index = int(rng.integers(len(buffer)))
        yield buffer[index]
        replacement = next(source, None)
        if replacement is None:
            buffer[index] = buffer[-1]
            buffer.pop()
        else:
            buffer[index] = replacement


@reference("ShuffleDataset")
def _shuffle_dataset(ctx, op, dataset, buffer_size, seed, seed2):
    dataset = _dataset_of(op, dataset)
    size, entropy = _shuffle_seeds(op, buffer_size, seed, seed2)
    reshuffle = op.attrs["reshuffle_each_iteration"]
    passes = itertools.count()

    def elements():
        epoch = next(passes) if reshuffle else 0
        return _shuffled(dataset.elements(), size, entropy, epoch)

    return DatasetValue(op, elements)


@reference("ShuffleAndRepeatDataset")
def _shuffle_and_repeat_dataset(ctx, op, dataset, buffer_size, seed, seed2, count):
    dataset, count = _dataset_of(op, dataset), int(count)
    size, entropy = _shuffle_seeds(op, buffer_size, seed, seed2)
    reshuffle = op.attrs["reshuffle_each_iteration"]

    def elements():
        epoch = 0
        while count < 0 or epoch < count:
            produced = False
            for element in _shuffled(dataset.elements(), size, entropy, epoch if reshuffle else 0):
                produced = True
                yield element
            if not produced:
                return
            epoch += 1

    return DatasetValue(op, elements)


@reference("RepeatDataset")
def _repeat_dataset(ctx, op, dataset, count):
    dataset, count = _dataset_of(op, dataset), int(count)

    def elements():
        done = 0
        while count < 0 or done < count:
            produced = False
            for element in dataset.elements():
                produced = True
                yield element
            if not produced:
                return  # repeating an empty dataset ends, as in TF
            done += 1

    return DatasetValue(op, elements)


@reference("TakeDataset")
def _take_dataset(ctx, op, dataset, count):
    dataset, count = _dataset_of(op, dataset), int(count)
    return DatasetValue(
        op, lambda: dataset.elements() if count < 0 else itertools.islice(dataset.elements(), count)
    )


@reference("SkipDataset")
def _skip_dataset(ctx, op, dataset, count):
    dataset, count = _dataset_of(op, dataset), int(count)
    return DatasetValue(
        op,
        lambda: iter(()) if count < 0 else itertools.islice(dataset.elements(), count, None),
    )


@reference("PrefetchDataset")
def _prefetch_dataset(ctx, op, dataset, buffer_size):
    # Elements are produced when pulled. A producer thread filling a buffer was measured
    # slower: its Python work contends for the GIL with the Session's host segments (wide &
    # deep from a TFRecordDataset: 55.6 -> 50.0 steps/s fetching the loss, 80 -> 68 fetching
    # the train op), so prefetching changes nothing here, neither values nor timing.
    if int(buffer_size) < -1:
        raise _invalid(op, "buffer_size must be >= -1")
    return _dataset_of(op, dataset)


@reference("CacheDataset")
def _cache_dataset(ctx, op, dataset, filename):
    dataset = _dataset_of(op, dataset)
    name = np.asarray(filename, dtype=object).reshape(())[()]
    name = name.decode() if isinstance(name, bytes) else str(name)
    if name:
        return _file_cache(op, dataset, name)
    cached = []  # the elements of the first complete pass

    def elements():
        if cached:
            yield from cached
            return
        seen = []
        for element in dataset.elements():
            seen.append(element)
            yield element
        cached[:] = seen

    return DatasetValue(op, elements)


def _file_cache(op, dataset, prefix):
    """``cache(filename)``: TF's file cache, a tensor bundle at ``prefix`` holding element
    ``i``'s component ``c`` under TF's key (``i`` and ``c`` right-aligned in 7 and in as
    many characters as the last component index has, joined by ``_``). An iterator created
    when ``prefix.index`` exists reads it (TF's caches too); otherwise it passes the input
    through and writes the bundle once the input is exhausted, so a pass left unfinished
    caches nothing (TF writes a shard and discards it then)."""
    from tfcompat.framework.checkpoint import bundle

    types = [dtypes.as_dtype(t) for t in op.attrs["output_types"]]
    width = len(str(len(types) - 1))

    def key(item, component):
        return f"{item:>7d}_{component:>{width}d}"

    def elements():
        if os.path.exists(bundle.index_filename(prefix)):
            reader = bundle.BundleReader(prefix)
            item = 0
            while reader.has_tensor(key(item, 0)):
                yield tuple(reader.lookup(key(item, c)) for c in range(len(types)))
                item += 1
            return
        shard = f"{prefix}_0"
        if os.path.exists(bundle.index_filename(shard)):
            raise errors.AlreadyExistsError(
                None,
                op,
                f"Existing cache files found: \n{bundle.index_filename(shard)}\n"
                f"{bundle.data_filename(shard, 0, 1)}\nTo continue delete the above files.",
            )
        seen = []
        for element in dataset.elements():
            seen.append(element)
            yield element
        writer = bundle.BundleWriter(prefix)
        for item, element in enumerate(seen):
            for c, (value, dtype) in enumerate(zip(element, types)):
                writer.add(key(item, c), np.asarray(value, dtype.as_numpy_dtype), dtype)
        writer.finish()

    return DatasetValue(op, elements)


# ---------------------------------------------------------------------------------------------
# tf.data.experimental
# ---------------------------------------------------------------------------------------------
@reference("MapAndBatchDataset")
def _map_and_batch_dataset(ctx, op, *inputs):
    dataset, captured, (batch_size, _, drop_remainder) = _function_inputs(op, inputs, 3)
    function = _Function(ctx, op, "f", captured)
    size, drop = _batch_size(op, batch_size), bool(drop_remainder)
    mapped = DatasetValue(op, lambda: _Mapped(function, dataset.elements()))

    def elements():
        for batch in _batches(mapped, size, drop):
            yield tuple(_stack(op, batch, c) for c in range(len(batch[0])))

    return DatasetValue(op, elements)


@reference("GroupByWindowDataset")
def _group_by_window_dataset(ctx, op, dataset, *inputs):
    dataset = _dataset_of(op, dataset)
    counts = [len(op.attrs[f"T{name}_other_arguments"]) for name in ("key_func", "reduce_func")]
    key_args, rest = list(inputs[: counts[0]]), inputs[counts[0] :]
    reduce_args, size_args = list(rest[: counts[1]]), list(rest[counts[1] :])
    key_of = _Function(ctx, op, "key_func", key_args)
    reduce = _Function(ctx, op, "reduce_func", reduce_args)
    size_of = _Function(ctx, op, "window_size_func", size_args)

    def reduced(key, window):
        group = DatasetValue(op, lambda: iter(window))
        (result,) = reduce((np.int64(key), group))
        return _dataset_of(op, result).elements()

    def elements():
        groups, sizes = {}, {}
        for element in dataset.elements():
            (key,) = key_of(element)
            key = int(key)
            if key not in sizes:
                (size,) = size_of((np.int64(key),))
                if int(size) <= 0:
                    raise _invalid(
                        op, f"Window size must be greater than zero, but got {int(size)}."
                    )
                sizes[key] = int(size)
            group = groups.setdefault(key, [])
            group.append(element)
            if len(group) == sizes[key]:
                del groups[key]
                yield from reduced(key, group)
        for key in sorted(groups):  # the partial windows at the end, by key (TF's map order)
            yield from reduced(key, groups[key])

    return DatasetValue(op, elements)


@reference("IgnoreErrorsDataset")
def _ignore_errors_dataset(ctx, op, dataset):
    dataset = _dataset_of(op, dataset)

    def elements():
        source = dataset.elements()
        while True:
            try:
                yield next(source)
            except StopIteration:
                return
            except errors.OpError:
                continue  # TF drops the element; an input that cannot go on ends here

    return DatasetValue(op, elements)


@reference("TakeWhileDataset")
def _take_while_dataset(ctx, op, *inputs):
    dataset, captured, _ = _function_inputs(op, inputs, 0)
    predicate = _Function(ctx, op, "predicate", captured)
    keep = _scalar_bool(op, predicate, "Take while predicate")
    return DatasetValue(op, lambda: itertools.takewhile(keep, dataset.elements()))


@reference("DatasetToSingleElement")
def _single_element(ctx, op, dataset):
    source = _dataset_of(op, dataset).elements()
    element = next(source, None)
    if element is None:
        raise _invalid(op, "Dataset was empty.")
    if next(source, None) is not None:
        raise _invalid(op, "Dataset had more than one element.")
    values = tuple(_as_component(v, t) for v, t in zip(element, op.attrs["output_types"]))
    return values if len(values) > 1 else values[0]


# ---------------------------------------------------------------------------------------------
# Iterators
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class IteratorHandle:
    key: str
    op: object


class IteratorResource:
    """An iterator in the Session state: the pass in progress over its dataset."""

    def __init__(self, types, shapes):
        self.types, self.shapes = list(types), list(shapes)
        self.elements = None
        self.lock = threading.Lock()

    def start(self, op, dataset: DatasetValue):
        types = list(_element_types(dataset.op))
        if types != self.types:
            raise _invalid(
                op,
                f"The iterator's component types {[t.name for t in self.types]} do not match "
                f"the dataset's {[t.name for t in types]}",
            )
        with self.lock:
            self.elements = dataset.elements()

    def next(self, op):
        with self.lock:
            if self.elements is None:
                raise errors.FailedPreconditionError(
                    None,
                    op,
                    "GetNext() failed because the iterator has not been initialized. Ensure "
                    "that you have run the initializer operation for this iterator before "
                    "getting the next element.",
                )
            try:
                return next(self.elements)
            except StopIteration:
                raise errors.OutOfRangeError(None, op, "End of sequence") from None


def _iterator_key(op) -> str:
    shared = op.attrs.get("shared_name") or b""
    shared = shared.decode() if isinstance(shared, bytes) else shared
    return "iterator:" + (shared or op.name)


@reference("IteratorV2")
def _iterator(ctx, op):
    key = _iterator_key(op)
    if key not in ctx.state:
        ctx.state[key] = IteratorResource(op.attrs["output_types"], op.attrs["output_shapes"])
    return IteratorHandle(key, op)


@reference("OneShotIterator")
def _one_shot_iterator(ctx, op):
    key = _iterator_key(op)
    if key not in ctx.state:
        resource = IteratorResource(op.attrs["output_types"], op.attrs["output_shapes"])
        (dataset,) = _Function(ctx, op, "dataset_factory")(())
        resource.start(op, _dataset_of(op, dataset))
        ctx.state[key] = resource
    return IteratorHandle(key, op)


def _resource(ctx, op, handle) -> IteratorResource:
    resource = ctx.state.get(handle.key) if isinstance(handle, IteratorHandle) else None
    if resource is None:
        raise errors.NotFoundError(None, op, f"Resource {handle!r} does not exist.")
    return resource


@reference("MakeIterator")
def _make_iterator(ctx, op, dataset, handle):
    _resource(ctx, op, handle).start(op, _dataset_of(op, dataset))


@reference("IteratorGetNext")
def _get_next(ctx, op, handle):
    resource = _resource(ctx, op, handle)
    element = resource.next(op)
    types, shapes = op.attrs["output_types"], op.attrs["output_shapes"]
    out = []
    for i, (value, dtype, shape) in enumerate(zip(element, types, shapes)):
        value = _as_component(value, dtype)
        if dtype != dtypes.variant and not shape.is_compatible_with(np.shape(value)):
            raise _invalid(
                op,
                f"An element of component {i} has shape {_shape_text(np.shape(value))}, "
                f"incompatible with the iterator's {shape}",
            )
        out.append(value)
    return tuple(out) if len(out) > 1 else out[0]


@reference("IteratorToStringHandle")
def _to_string_handle(ctx, op, handle):
    _resource(ctx, op, handle)
    return np.asarray(handle.key.encode(), dtype=object)


@reference("IteratorFromStringHandleV2")
def _from_string_handle(ctx, op, string_handle):
    key = np.asarray(string_handle, dtype=object).reshape(())[()]
    key = key.decode() if isinstance(key, bytes) else str(key)
    resource = ctx.state.get(key)
    if not isinstance(resource, IteratorResource):
        raise errors.InvalidArgumentError(
            None, op, f"Could not find an iterator for the string handle '{key}'"
        )
    wanted = op.attrs["output_types"]
    if wanted and list(wanted) != resource.types:
        raise _invalid(
            op,
            f"Expected types {[t.name for t in wanted]} but the iterator of the handle has "
            f"{[t.name for t in resource.types]}",
        )
    return IteratorHandle(key, op)


# ---------------------------------------------------------------------------------------------
# SparseTensor components
# ---------------------------------------------------------------------------------------------
@reference("SerializeSparse")
def _serialize_sparse(ctx, op, indices, values, shape):
    """The variant form (a dataset's sparse components) keeps the three arrays; the string
    form is TF's bytes (``lowering/reference/sparse_serialize.py``)."""
    if op.attrs["out_type"] != dtypes.variant:
        from lowering.reference import sparse_serialize

        return sparse_serialize.serialize_sparse_strings(op, indices, values, shape)
    out = np.empty(3, dtype=object)
    out[:] = [np.asarray(indices, np.int64), np.asarray(values), np.asarray(shape, np.int64)]
    return out


def _sparse_parts(op, serialized, dtype):
    """(indices, values, shape) of one variant-serialized SparseTensor (a row of three)."""
    indices, values, shape = list(serialized)
    want = object if dtype == dtypes.string else dtype.as_numpy_dtype
    if np.asarray(values).dtype != want and want is not object:
        raise _invalid(
            op, f"Requested SparseTensor of type {dtype.name} but the serialized values differ"
        )
    return np.asarray(indices, np.int64), np.asarray(values, want), np.asarray(shape, np.int64)


@reference("DeserializeSparse")
def _deserialize_sparse(ctx, op, serialized):
    dtype = op.attrs["dtype"]
    if op.attrs["Tserialized"] != dtypes.variant:
        from lowering.reference import sparse_serialize

        return sparse_serialize.deserialize_sparse_strings(op, serialized, dtype)
    serialized = np.asarray(serialized, dtype=object)
    if serialized.shape == (3,):
        return _sparse_parts(op, serialized, dtype)
    if serialized.ndim < 1 or serialized.shape[-1] != 3:
        raise _invalid(
            op, f"Serialized sparse should have 3 as the last dimension, got {serialized.shape}"
        )
    outer = serialized.shape[:-1]
    rows = serialized.reshape(-1, 3)
    parts = [_sparse_parts(op, row, dtype) for row in rows]
    ranks = {len(shape) for _, _, shape in parts}
    if len(ranks) > 1:
        raise _invalid(op, "Inconsistent rank across SparseTensors")
    rank = ranks.pop() if ranks else 0
    inner = np.max([shape for _, _, shape in parts], axis=0) if parts else np.zeros(rank, np.int64)
    prefixes = np.array(list(np.ndindex(*outer)), np.int64).reshape(len(parts), len(outer))
    indices = [
        np.concatenate([np.repeat(prefix[None], len(ind), 0), ind.reshape(len(ind), rank)], 1)
        for prefix, (ind, _, _) in zip(prefixes, parts)
    ]
    want = object if dtype == dtypes.string else dtype.as_numpy_dtype
    out_indices = (
        np.concatenate(indices, 0) if indices else np.zeros((0, len(outer) + rank), np.int64)
    )
    out_values = (np.concatenate([v for _, v, _ in parts]) if parts else np.zeros(0, want)).astype(
        want
    )
    return out_indices, out_values, np.asarray([*outer, *inner], np.int64)
