"""TF1's queues: ``tf.FIFOQueue``, ``tf.PaddingFIFOQueue`` and ``tf.RandomShuffleQueue``
(TF's ``*QueueV2`` ops and their ``QueueEnqueueV2`` / ``QueueDequeueManyV2`` / ... ops), the
buffers between the input threads of a TF1 pipeline and its training step.

Every queue op runs on the host (``lowering/reference/data_flow.py``): the queue itself
lives in the Session's state, like a lookup table, and blocking operations wait on it while
other threads (a ``QueueRunner``'s, through ``Session.run``) fill or drain it. A dequeue in
a training step runs before the step's XLA function, which receives the dequeued arrays.
"""

from __future__ import annotations

import hashlib

from tfcompat.framework import dtypes as dtypes_lib
from tfcompat.framework import graph as graph_lib
from tfcompat.framework import random_seed, tensor_shape
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.gradient_registry import no_gradient
from tfcompat.framework.op_def import register_op as _register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.util.tf_export import tf_export


def _register(name, **kwargs):
    """Queue ops touch Session state and may block: stateful host ops."""
    return _register_op(name, host=True, is_stateful=True, **kwargs)


_HANDLE = tensor_shape.scalar()
_QUEUE_ATTRS = [
    "component_types: list(type) >= 1",
    "shapes: list(shape) >= 0 = []",
    "capacity: int = -1",
    "container: string = ''",
    "shared_name: string = ''",
]
for _op_type in ("FIFOQueueV2", "PaddingFIFOQueueV2"):
    _register(_op_type, outputs=["handle: resource"], attrs=_QUEUE_ATTRS,
              shape_fn=lambda op: [_HANDLE])  # fmt: skip
_register(
    "RandomShuffleQueueV2",
    outputs=["handle: resource"],
    attrs=[
        "component_types: list(type) >= 1",
        "shapes: list(shape) >= 0 = []",
        "capacity: int = -1",
        "min_after_dequeue: int = 0",
        "seed: int = 0",
        "seed2: int = 0",
        "container: string = ''",
        "shared_name: string = ''",
    ],
    shape_fn=lambda op: [_HANDLE],
)
for _op_type in ("QueueEnqueueV2", "QueueEnqueueManyV2"):
    _register(_op_type, inputs=["handle: resource", "components: Tcomponents"],
              attrs=["Tcomponents: list(type) >= 1", "timeout_ms: int = -1"],
              shape_fn=lambda op: [])  # fmt: skip
_register(
    "QueueDequeueV2",
    inputs=["handle: resource"],
    outputs=["components: component_types"],
    attrs=["component_types: list(type) >= 1", "timeout_ms: int = -1"],
    shape_fn=lambda op: [tensor_shape.unknown_shape() for _ in op.outputs],
)


def _dequeue_n_shape(op):
    n = constant_value(op.inputs[1])
    if n is not None and int(n) < 0:
        raise ValueError(f"Input 'n' must be >= 0, but is {int(n)} for '{{{{node {op.name}}}}}'")
    return [tensor_shape.unknown_shape() for _ in op.outputs]


for _op_type in ("QueueDequeueManyV2", "QueueDequeueUpToV2"):
    _register(_op_type, inputs=["handle: resource", "n: int32"],
              outputs=["components: component_types"],
              attrs=["component_types: list(type) >= 1", "timeout_ms: int = -1"],
              shape_fn=_dequeue_n_shape)  # fmt: skip
_register(
    "QueueCloseV2",
    inputs=["handle: resource"],
    attrs=["cancel_pending_enqueues: bool = false"],
    shape_fn=lambda op: [],
)
_register("QueueSizeV2", inputs=["handle: resource"], outputs=["size: int32"],
          shape_fn=lambda op: [tensor_shape.scalar()])  # fmt: skip
_register("QueueIsClosedV2", inputs=["handle: resource"], outputs=["is_closed: bool"],
          shape_fn=lambda op: [tensor_shape.scalar()])  # fmt: skip


def _as_type_list(dtypes):
    if not isinstance(dtypes, (list, tuple)):
        return [dtypes_lib.as_dtype(dtypes)]
    return [dtypes_lib.as_dtype(d) for d in dtypes]


def _as_shape_list(shapes, unknown_dim_allowed=False):
    if unknown_dim_allowed:
        if (
            not isinstance(shapes, (list, tuple))
            or not shapes
            or any(shape is None or isinstance(shape, int) for shape in shapes)
        ):
            raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, tensor_shape.TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError(
            "Shapes must be a TensorShape or a list or tuple of TensorShapes, got "
            f"{type(shapes)} instead."
        )
    if all(shape is None or isinstance(shape, int) for shape in shapes):
        shapes = [shapes]
    shapes = [tensor_shape.as_shape(shape) for shape in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if any(s.dims is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError(
            "List of names must have the same length as the list of dtypes, received "
            f"len(names)={len(names)},len(dtypes)={len(dtypes)}"
        )
    return list(names)


def _queue_handle(op_type, name, **attrs):
    """The queue's op, made outside any control-flow context or control dependencies (TF's
    ``init_scope``), on the CPU."""
    graph = graph_lib.get_default_graph()
    with graph.control_dependencies(None), graph.device("/device:CPU:*"):
        return apply_op(op_type, name=name, **attrs).outputs[0]


@tf_export("queue.QueueBase", "QueueBase")
class QueueBase:
    """A queue of tuples of tensors (``dtypes`` per component, optionally ``shapes`` and
    ``names``), held by a Session; see ``FIFOQueue``."""

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError(
                    "Queue shapes must have the same length as dtypes, received "
                    f"len(shapes)={len(shapes)}, len(dtypes)={len(dtypes)}"
                )
            self._shapes = [tensor_shape.TensorShape(s) for s in shapes]
        else:
            self._shapes = [tensor_shape.unknown_shape() for _ in dtypes]
        if names is not None and len(names) != len(dtypes):
            raise ValueError(
                "Queue names must have the same length as dtypes,received "
                f"len(names)={len(names)},len {len(dtypes)}"
            )
        self._names = names
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @property
    def queue_ref(self):
        """The queue's resource handle."""
        return self._queue_ref

    @property
    def name(self):
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        return self._dtypes

    @property
    def shapes(self):
        return self._shapes

    @property
    def names(self):
        return self._names

    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(
                    "Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                    f"{sorted(vals.keys())},Queue: {sorted(self._names)}"
                )
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        return [
            convert_to_tensor(val, dtype=dtype, name=f"component_{i}")
            for i, (val, dtype) in enumerate(zip(vals, self._dtypes))
        ]

    @staticmethod
    def _scope_vals(vals):
        if isinstance(vals, (list, tuple)):
            return list(vals)
        if isinstance(vals, dict):
            return list(vals.values())
        return [vals]

    def enqueue(self, vals, name=None):
        """An op adding one element (a tuple of tensors, or a dict by ``names``); it
        blocks while the queue is full."""
        with name_scope(name, f"{self._name}_enqueue", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                val.shape.assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueV2", name=scope, handle=self._queue_ref, components=vals)

    def enqueue_many(self, vals, name=None):
        """An op adding the slices along dimension 0 of each component as elements."""
        with name_scope(name, f"{self._name}_EnqueueMany", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = tensor_shape.Dimension(vals[0].shape.with_rank_at_least(1)[0])
            for val, shape in zip(vals, self._shapes):
                batch_dim = batch_dim.merge_with(val.shape.with_rank_at_least(1)[0])
                val.shape[1:].assert_is_compatible_with(shape)
            return apply_op(
                "QueueEnqueueManyV2", name=scope, handle=self._queue_ref, components=vals
            )

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def dequeue(self, name=None):
        """One element; blocks until there is one (OutOfRangeError once closed and empty)."""
        op = apply_op(
            "QueueDequeueV2",
            name=name or f"{self._name}_Dequeue",
            handle=self._queue_ref,
            component_types=self._dtypes,
        )
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(shape)
        return self._dequeue_return_value(list(op.outputs))

    def dequeue_many(self, n, name=None):
        """``n`` elements stacked along a new dimension 0; blocks until there are ``n``."""
        op = apply_op(
            "QueueDequeueManyV2",
            name=name or f"{self._name}_DequeueMany",
            handle=self._queue_ref,
            n=n,
            component_types=self._dtypes,
        )
        batch = constant_value(op.inputs[1])
        batch_dim = tensor_shape.Dimension(None if batch is None else int(batch))
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(tensor_shape.TensorShape([batch_dim]).concatenate(shape))
        return self._dequeue_return_value(list(op.outputs))

    def dequeue_up_to(self, n, name=None):
        """Like ``dequeue_many``, but once the queue is closed, the fewer elements left."""
        op = apply_op(
            "QueueDequeueUpToV2",
            name=name or f"{self._name}_DequeueUpTo",
            handle=self._queue_ref,
            n=n,
            component_types=self._dtypes,
        )
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(tensor_shape.TensorShape([None]).concatenate(shape))
        return self._dequeue_return_value(list(op.outputs))

    def close(self, cancel_pending_enqueues=False, name=None):
        """An op closing the queue: later enqueues fail, dequeues drain what is left."""
        return apply_op(
            "QueueCloseV2",
            name=name or f"{self._name}_Close",
            handle=self._queue_ref,
            cancel_pending_enqueues=cancel_pending_enqueues,
        )

    def size(self, name=None):
        """The number of elements in the queue (int32)."""
        return apply_op(
            "QueueSizeV2", name=name or f"{self._name}_Size", handle=self._queue_ref
        ).outputs[0]

    def is_closed(self, name=None):
        return apply_op(
            "QueueIsClosedV2", name=name or f"{self._name}_Is_Closed", handle=self._queue_ref
        ).outputs[0]


@tf_export("queue.FIFOQueue", "FIFOQueue")
class FIFOQueue(QueueBase):
    """A first-in first-out queue of at most ``capacity`` elements of fixed shapes."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):  # fmt: skip
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        queue_ref = _queue_handle(
            "FIFOQueueV2",
            name,
            component_types=dtypes,
            shapes=shapes or [],
            capacity=capacity,
            shared_name=shared_name or "",
        )
        super().__init__(dtypes, shapes, names, queue_ref)


@tf_export("queue.PaddingFIFOQueue", "PaddingFIFOQueue")
class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose shapes may have unknown dimensions: ``dequeue_many`` pads each
    batch to its largest element (zeros, or empty strings)."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):  # fmt: skip
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError(
                "Shapes must be provided for all components, but received "
                f"{len(dtypes)} dtypes and {len(shapes)} shapes."
            )
        queue_ref = _queue_handle(
            "PaddingFIFOQueueV2",
            name,
            component_types=dtypes,
            shapes=shapes,
            capacity=capacity,
            shared_name=shared_name or "",
        )
        super().__init__(dtypes, shapes, names, queue_ref)


@tf_export("queue.RandomShuffleQueue", "RandomShuffleQueue")
class RandomShuffleQueue(QueueBase):
    """A queue dequeuing elements in random order, keeping at least ``min_after_dequeue``
    elements (until closed) so that the order mixes."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,
                 shared_name=None, name="random_shuffle_queue"):  # fmt: skip
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = random_seed.get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            text = (str(seed1) + shared_name).encode("utf-8")
            seed2 = int(hashlib.md5(text).hexdigest()[:8], 16) & 0x7FFFFFFF
        queue_ref = apply_op(
            "RandomShuffleQueueV2",
            name=name,
            component_types=dtypes,
            shapes=shapes or [],
            capacity=capacity,
            min_after_dequeue=min_after_dequeue,
            seed=seed1,
            seed2=seed2,
            shared_name=shared_name or "",
        ).outputs[0]
        super().__init__(dtypes, shapes, names, queue_ref)


# As TF's data_flow_ops: queues carry no gradients.
for _op_type in (
    "FIFOQueueV2",
    "PaddingFIFOQueueV2",
    "RandomShuffleQueueV2",
    "QueueEnqueueV2",
    "QueueEnqueueManyV2",
    "QueueDequeueV2",
    "QueueDequeueManyV2",
    "QueueDequeueUpToV2",
    "QueueCloseV2",
    "QueueSizeV2",
    "QueueIsClosedV2",
):
    no_gradient(_op_type)
