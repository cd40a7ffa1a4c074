"""TF1's queue-based input pipelines (``tf.train.string_input_producer``, ``batch``,
``shuffle_batch`` and their kin), built op for op as TF 2.21's ``tf.compat.v1`` builds
them: an input queue filled by a ``QueueRunner``, epochs counted by ``limit_epochs``'s
``CountUpTo``, a batching queue with its "fraction full" summary, and a dequeue that the
training step reads.

SparseTensors travel through a batch queue as TF's do: stored in a SparseTensorsMap
(``ops/sparse_map_ops.py``), their int64 handles enqueued, the dequeued handles taken back
out as one batched SparseTensor. The ``maybe_*`` batchers enqueue only what ``keep_input``
selects (a ``cond`` around the enqueue, or ``dynamic_partition`` per row).
"""

from __future__ import annotations

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.constant_op import constant
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.sparse_tensor import SparseTensor
from tfcompat.framework.tensor import Tensor
from tfcompat.util.tf_export import tf_export


def _tf():
    import tfcompat

    return tfcompat


@tf_export("train.limit_epochs")
def limit_epochs(tensor, num_epochs=None, name=None):
    """``tensor``, with an OutOfRangeError once it has been evaluated ``num_epochs``
    times (a local ``epochs`` counter)."""
    tf = _tf()
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope(name, "limit_epochs", [tensor]) as name:
        zero64 = constant(0, dtype=dtypes.int64)
        epochs = tf.Variable(
            zero64, name="epochs", trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES]
        )
        counter = epochs.count_up_to(num_epochs)
        with tf.control_dependencies([counter]):
            return tf.identity(tensor, name=name)


@tf_export("train.input_producer")
def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None,
                   capacity=32, shared_name=None, summary_name=None, name=None,
                   cancel_op=None):  # fmt: skip
    """A FIFOQueue filled with the rows of ``input_tensor`` (shuffled each epoch unless
    ``shuffle=False``; ``num_epochs`` times, or forever) by a queue runner."""
    tf = _tf()
    from tfcompat.train import queue_runner

    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(element_shape)
        if not element_shape.is_fully_defined():
            raise ValueError(
                "Either `input_tensor` must have a fully defined shape or `element_shape` "
                "must be specified"
            )
        if shuffle:
            input_tensor = tf.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = tf.FIFOQueue(
            capacity=capacity,
            dtypes=[input_tensor.dtype.base_dtype],
            shapes=[element_shape],
            shared_name=shared_name,
            name=name,
        )
        enq = q.enqueue_many([input_tensor])
        queue_runner.add_queue_runner(queue_runner.QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            tf.summary.scalar(summary_name, tf.cast(q.size(), dtypes.float32) * (1.0 / capacity))
        return q


@tf_export("train.string_input_producer")
def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32,
                          shared_name=None, name=None, cancel_op=None):  # fmt: skip
    """A queue of the strings (typically file names) of ``string_tensor``, for a reader."""
    tf = _tf()
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, Tensor) and not string_tensor:
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as name:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        with tf.control_dependencies(
            [tf.Assert(tf.greater(tf.size(string_tensor), 0), [not_null_err])]
        ):
            string_tensor = tf.identity(string_tensor)
        return input_producer(
            input_tensor=string_tensor,
            element_shape=[],
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
            name=name,
            summary_name=f"fraction_of_{capacity}_full",
            cancel_op=cancel_op,
        )


@tf_export("train.range_input_producer")
def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):  # fmt: skip
    """A queue of the integers ``0 .. limit - 1``."""
    tf = _tf()
    with name_scope(name, "input_producer", [limit]) as name:
        range_tensor = tf.range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity,
                              shared_name, f"fraction_of_{capacity}_full", name)  # fmt: skip


@tf_export("train.slice_input_producer")
def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):  # fmt: skip
    """The rows of each tensor of ``tensor_list``, as lists of matching slices."""
    tf = _tf()
    with name_scope(name, "input_producer", tensor_list):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = tf.shape(tensor_list[0])[0]
        queue = range_input_producer(
            range_size,
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
        )
        index = queue.dequeue()
        return [tf.gather(t, index) for t in tensor_list]


# ---------------------------------------------------------------------------------------------
# Batching
# ---------------------------------------------------------------------------------------------
def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def _as_original_type(original_tensors, tensor_list):
    if isinstance(original_tensors, dict):
        if len(original_tensors) == 1:
            tensor_list = [tensor_list]
        return {k: tensor_list[i] for i, k in enumerate(sorted(original_tensors, key=str))}
    return tensor_list


def _validate(tensor_list):
    tensor_list = [t if isinstance(t, SparseTensor) else convert_to_tensor(t) for t in tensor_list]
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def _validate_keep_input(keep_input, enqueue_many):
    keep_input = convert_to_tensor(keep_input)
    if keep_input.shape.ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep_input.shape.ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep_input.shape.ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


class _SparseMetaData:
    """Whether a batched component was a SparseTensor, the map op storing it and the rank
    of one element."""

    def __init__(self, sparse, map_op, rank):
        self.sparse, self.map_op, self.rank = sparse, map_op, rank

    def __eq__(self, other):
        if self.sparse != other.sparse:
            return False
        if not self.sparse:
            return True
        return self.map_op.name == other.map_op.name and (
            self.rank is None or other.rank is None or self.rank == other.rank
        )

    def merge_with(self, other):
        if self.sparse and self.rank is None:
            self.rank = other.rank
        return self

    def __repr__(self):
        return f"_SparseMetaData(sparse={self.sparse}, rank={self.rank})"


_SPARSE_MAP_OPS = ("AddSparseToTensorsMap", "AddManySparseToTensorsMap")


def _store_sparse(t, enqueue_many, keep_input, map_op_name):
    """``t``'s handle(s) in a SparseTensorsMap, stored only where ``keep_input`` holds
    (TF's ``_maybe_store``: -1 for a dropped element)."""
    from tfcompat.layers.utils import smart_cond
    from tfcompat.ops import array_ops, sparse_map_ops, sparse_ops

    if keep_input.shape.ndims == 1:
        # Per-row keep_input: keep the values of the kept rows, store every row.
        t = sparse_ops.sparse_retain(t, array_ops.gather(keep_input, t.indices[:, 0]))
        return sparse_map_ops.add_many_sparse_to_tensors_map(t, shared_name=map_op_name)
    if enqueue_many:
        handles = smart_cond(
            keep_input,
            lambda: sparse_map_ops.add_many_sparse_to_tensors_map(t, shared_name=map_op_name),
            lambda: -1 * array_ops.ones(array_ops.shape(t)[0:1], dtypes.int64),
        )
        handles.set_shape([None])
        return handles
    return smart_cond(
        keep_input,
        lambda: sparse_map_ops.add_sparse_to_tensors_map(t, shared_name=map_op_name),
        lambda: constant(-1, dtypes.int64),
    )


def _map_op_of(stored):
    """The ``Add*SparseToTensorsMap`` op behind ``stored`` (also through a cond's Merge)."""
    for t in stored.op.inputs:
        if t.op.type in _SPARSE_MAP_OPS:
            return t.op
    return stored.op


def _store_sparse_tensors(tensor_list, enqueue_many, keep_input, shared_map_ops=None):
    """Each SparseTensor of ``tensor_list`` replaced by its handle (a [1] vector per element,
    as TF enqueues it); with ``shared_map_ops`` (a join's first list's), stored in those
    maps."""
    from tfcompat.ops import array_ops

    shared_map_ops = shared_map_ops or [None] * len(tensor_list)
    stored = [
        _store_sparse(t, enqueue_many, keep_input, map_op.name if map_op is not None else None)
        if isinstance(t, SparseTensor)
        else t
        for t, map_op in zip(tensor_list, shared_map_ops)
    ]
    info = []
    for t, handle, map_op in zip(tensor_list, stored, shared_map_ops):
        if not isinstance(t, SparseTensor):
            info.append(_SparseMetaData(False, None, None))
            continue
        rank = t.dense_shape.shape.with_rank(1).dims[0].value
        if enqueue_many and rank is not None:
            rank -= 1
        info.append(_SparseMetaData(True, map_op or _map_op_of(handle), rank))
    stored = [array_ops.expand_dims(s, [-1]) if i.sparse else s for s, i in zip(stored, info)]
    return stored, info


def _store_sparse_tensors_join(tensor_list_list, enqueue_many, keep_input):
    stored_first, info = _store_sparse_tensors(tensor_list_list[0], enqueue_many, keep_input)
    stored_list_list = [stored_first]
    for tensor_list in tensor_list_list[1:]:
        stored, candidate = _store_sparse_tensors(
            tensor_list, enqueue_many, keep_input, [i.map_op for i in info]
        )
        if info != candidate:
            raise ValueError(
                f"Inconsistent SparseTensors list: {tensor_list_list[0]} vs. {tensor_list}"
            )
        info = [a.merge_with(b) for a, b in zip(info, candidate)]
        stored_list_list.append(stored)
    return stored_list_list, info


def _restore_sparse_tensors(stored_list, sparse_info_list):
    """The dequeued components with SparseTensors taken back out of their maps; then every
    component (each part of a SparseTensor too) passes through ``with_dependencies`` on
    all of them, as in TF."""
    from tfcompat.ops import array_ops, control_flow_ops, sparse_map_ops

    sequence = isinstance(stored_list, (list, tuple))
    stored_list = list(stored_list) if sequence else [stored_list]
    tensors = [
        sparse_map_ops.take_many_sparse_from_tensors_map(
            info.map_op,
            array_ops.squeeze(s, [1]),
            rank=None if info.rank is None else info.rank + 1,
        )
        if info.sparse
        else s
        for s, info in zip(stored_list, sparse_info_list)
    ]
    if any(isinstance(t, SparseTensor) for t in tensors):
        values = [t.values if isinstance(t, SparseTensor) else t for t in tensors]

        def guarded(t):
            return control_flow_ops.with_dependencies(values, t)

        tensors = [
            SparseTensor(guarded(t.indices), guarded(t.values), guarded(t.dense_shape))
            if isinstance(t, SparseTensor)
            else guarded(t)
            for t in tensors
        ]
    return tensors if sequence else tensors[0]


def _merge_shapes(shape_list, enqueue_many):
    """The first shape, once all are checked compatible (as TF, which keeps the first)."""
    shape_list = [tensor_shape.as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [s.with_rank_at_least(1)[1:] for s in shape_list]
    for shape in shape_list[1:]:
        shape_list[0].merge_with(shape)
    return shape_list[0].as_list()


def _shapes(tensor_list_list, shapes, enqueue_many):
    """Per component, the queue's element shape, from every input list (``_join``s have
    several)."""
    if shapes is None:
        for tensor_list in tensor_list_list:
            for t in tensor_list:
                if t.shape.ndims is None:
                    raise ValueError(f"Cannot infer Tensor's rank: {t}")
        shapes = [
            _merge_shapes([tl[i].shape.as_list() for tl in tensor_list_list], enqueue_many)
            for i in range(len(tensor_list_list[0]))
        ]
    return shapes


def _dtypes(tensor_list_list):
    types = [t.dtype for t in tensor_list_list[0]]
    for tensor_list in tensor_list_list[1:]:
        other = [t.dtype for t in tensor_list]
        if other != types:
            raise TypeError(
                "Expected types to be consistent: "
                f"{', '.join(t.name for t in types)} vs. {', '.join(t.name for t in other)}."
            )
    return types


def _enqueue_op(queue, tensor_list, enqueue_many, keep_input):
    """An enqueue of ``tensor_list`` that keeps only what ``keep_input`` selects: the
    elements where a vector is True (``dynamic_partition``), or all of them when a scalar
    is True (a ``cond``; a plain enqueue when the scalar is a constant)."""
    from tfcompat.layers.utils import smart_cond
    from tfcompat.ops import control_flow_ops
    from tfcompat.ops.embedding_ops import dynamic_partition
    from tfcompat.ops.math_ops import cast

    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input.shape.ndims == 1:
        select = cast(keep_input, dtypes.int32)
        kept = [dynamic_partition(t, select, num_partitions=2)[1] for t in tensor_list]
        return enqueue_fn(kept)
    return smart_cond(keep_input, lambda: enqueue_fn(tensor_list), control_flow_ops.no_op)


def _enqueue(queue, tensor_list, threads, enqueue_many, keep_input):
    """One enqueue op, run by ``threads`` threads of one QueueRunner."""
    from tfcompat.train import queue_runner

    enqueue_ops = [_enqueue_op(queue, tensor_list, enqueue_many, keep_input)] * threads
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, enqueue_ops))


def _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input):
    """One enqueue op per input list, each run by its own thread of one QueueRunner."""
    from tfcompat.train import queue_runner

    enqueue_ops = [_enqueue_op(queue, tl, enqueue_many, keep_input) for tl in tensor_list_list]
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, enqueue_ops))


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected_keys = set(tensors_list[0].keys())
        for tensors in tensors_list[1:]:
            if set(tensors.keys()) != expected_keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(tensors) for tensors in tensors_list]
    return tensors_list


def _validate_join(tensor_list_list):
    tensor_list_list = [_validate(tl) for tl in tensor_list_list]
    if not tensor_list_list:
        raise ValueError("Expected at least one input in batch_join().")
    return tensor_list_list


def _dequeue_batch(queue, batch_size, allow_smaller_final_batch, name, sparse_info, like):
    """A batch off ``queue``, its SparseTensors restored, in the structure of ``like`` (the
    caller's tensors: a list, a dict, a single tensor)."""
    if allow_smaller_final_batch:
        dequeued = queue.dequeue_up_to(batch_size, name=name)
    else:
        dequeued = queue.dequeue_many(batch_size, name=name)
    return _as_original_type(like, _restore_sparse_tensors(dequeued, sparse_info))


def _fifo_summary(queue, capacity):
    tf = _tf()
    tf.summary.scalar(
        f"fraction_of_{capacity}_full",
        tf.cast(queue.size(), dtypes.float32) * (1.0 / capacity),
    )


def _shuffle_summary(queue, capacity, min_after_dequeue):
    tf = _tf()
    full = tf.cast(tf.maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
        1.0 / (capacity - min_after_dequeue)
    )
    tf.summary.scalar(
        f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full", full
    )


def _check_shuffle_capacity(capacity, min_after_dequeue):
    if capacity <= min_after_dequeue:
        raise ValueError(
            f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}."
        )


# ---------------------------------------------------------------------------------------------
# The four batchers, as TF builds them
# ---------------------------------------------------------------------------------------------
def _batch(tensors, batch_size, keep_input, num_threads=1, capacity=32, enqueue_many=False,
           shapes=None, dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
           name=None):  # fmt: skip
    tf = _tf()
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "batch", list(tensor_list) + [keep_input]) as name:
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = _store_sparse_tensors(tensor_list, enqueue_many, keep_input)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue_class = tf.PaddingFIFOQueue if dynamic_pad else tf.FIFOQueue
        queue = queue_class(capacity=capacity, dtypes=types, shapes=shapes,
                            shared_name=shared_name)  # fmt: skip
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _fifo_summary(queue, capacity)
        return _dequeue_batch(
            queue, batch_size, allow_smaller_final_batch, name, sparse_info, tensors
        )


def _batch_join(tensors_list, batch_size, keep_input, capacity=32, enqueue_many=False,
                shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                shared_name=None, name=None):  # fmt: skip
    tf = _tf()
    tensor_list_list = _as_tensor_list_list(tensors_list)
    scope_values = [t for tl in tensor_list_list for t in tl] + [keep_input]
    with name_scope(name, "batch_join", scope_values) as name:
        tensor_list_list = _validate_join(tensor_list_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = _store_sparse_tensors_join(
            tensor_list_list, enqueue_many, keep_input
        )
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue_class = tf.PaddingFIFOQueue if dynamic_pad else tf.FIFOQueue
        queue = queue_class(capacity=capacity, dtypes=types, shapes=shapes,
                            shared_name=shared_name)  # fmt: skip
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _fifo_summary(queue, capacity)
        return _dequeue_batch(
            queue, batch_size, allow_smaller_final_batch, name, sparse_info, tensors_list[0]
        )


def _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                   num_threads=1, seed=None, enqueue_many=False, shapes=None,
                   allow_smaller_final_batch=False, shared_name=None, name=None):  # fmt: skip
    tf = _tf()
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "shuffle_batch", list(tensor_list) + [keep_input]) as name:
        _check_shuffle_capacity(capacity, min_after_dequeue)
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = _store_sparse_tensors(tensor_list, enqueue_many, keep_input)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = tf.RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                                      seed=seed, dtypes=types, shapes=shapes,
                                      shared_name=shared_name)  # fmt: skip
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _shuffle_summary(queue, capacity, min_after_dequeue)
        return _dequeue_batch(
            queue, batch_size, allow_smaller_final_batch, name, sparse_info, tensors
        )


def _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input,
                        seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None,
                        name=None):  # fmt: skip
    tf = _tf()
    tensor_list_list = _as_tensor_list_list(tensors_list)
    scope_values = [t for tl in tensor_list_list for t in tl] + [keep_input]
    with name_scope(name, "shuffle_batch_join", scope_values) as name:
        _check_shuffle_capacity(capacity, min_after_dequeue)
        tensor_list_list = _validate_join(tensor_list_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = _store_sparse_tensors_join(
            tensor_list_list, enqueue_many, keep_input
        )
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = tf.RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                                      seed=seed, dtypes=types, shapes=shapes,
                                      shared_name=shared_name)  # fmt: skip
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _shuffle_summary(queue, capacity, min_after_dequeue)
        return _dequeue_batch(
            queue, batch_size, allow_smaller_final_batch, name, sparse_info, tensors_list[0]
        )


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------
@tf_export("train.batch")
def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
          name=None):  # fmt: skip
    """Batches of ``batch_size`` of ``tensors`` (a list or dict; SparseTensors included),
    through a FIFOQueue (a PaddingFIFOQueue with ``dynamic_pad``) that ``num_threads``
    queue-runner threads fill."""
    return _batch(tensors, batch_size, True, num_threads, capacity, enqueue_many, shapes,
                  dynamic_pad, allow_smaller_final_batch, shared_name, name)  # fmt: skip


@tf_export("train.maybe_batch")
def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32,
                enqueue_many=False, shapes=None, dynamic_pad=False,
                allow_smaller_final_batch=False, shared_name=None, name=None):  # fmt: skip
    """``batch`` of the elements ``keep_input`` selects (a bool scalar, or with
    ``enqueue_many`` a bool vector, one per row)."""
    return _batch(tensors, batch_size, keep_input, num_threads, capacity, enqueue_many,
                  shapes, dynamic_pad, allow_smaller_final_batch, shared_name,
                  name)  # fmt: skip


@tf_export("train.batch_join")
def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
               name=None):  # fmt: skip
    """Batches from several lists (or dicts) of tensors of the same structure, one
    enqueuing thread per list, into one FIFOQueue (PaddingFIFOQueue with ``dynamic_pad``):
    TF1's recipe for reading several files in parallel."""
    return _batch_join(tensors_list, batch_size, True, capacity, enqueue_many, shapes,
                       dynamic_pad, allow_smaller_final_batch, shared_name,
                       name)  # fmt: skip


@tf_export("train.maybe_batch_join")
def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False,
                     shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                     shared_name=None, name=None):  # fmt: skip
    """``batch_join`` of the elements ``keep_input`` selects."""
    return _batch_join(tensors_list, batch_size, keep_input, capacity, enqueue_many, shapes,
                       dynamic_pad, allow_smaller_final_batch, shared_name,
                       name)  # fmt: skip


@tf_export("train.shuffle_batch")
def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):  # fmt: skip
    """Batches drawn at random from a RandomShuffleQueue holding at least
    ``min_after_dequeue`` elements."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, True,
                          num_threads, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name)  # fmt: skip


@tf_export("train.maybe_shuffle_batch")
def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None,
                        name=None):  # fmt: skip
    """``shuffle_batch`` of the elements ``keep_input`` selects."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                          num_threads, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name)  # fmt: skip


@tf_export("train.shuffle_batch_join")
def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):  # fmt: skip
    """``batch_join`` through a RandomShuffleQueue holding at least ``min_after_dequeue``
    elements."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, True,
                               seed, enqueue_many, shapes, allow_smaller_final_batch,
                               shared_name, name)  # fmt: skip


@tf_export("train.maybe_shuffle_batch_join")
def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
                             keep_input, seed=None, enqueue_many=False, shapes=None,
                             allow_smaller_final_batch=False, shared_name=None,
                             name=None):  # fmt: skip
    """``shuffle_batch_join`` of the elements ``keep_input`` selects."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
                               keep_input, seed, enqueue_many, shapes,
                               allow_smaller_final_batch, shared_name, name)  # fmt: skip
