"""Kernels of the queue ops (host ops: these kernels are the implementation).

A queue lives in the Session state under ``"queue:" + shared_name`` (or its node name),
made by the first run of its ``*QueueV2`` op. Elements are tuples of numpy arrays. Blocking
operations wait on the queue's condition variable, so that an input thread's
``Session.run(enqueue)`` and the training thread's ``Session.run(train_op)`` (whose dequeue
runs before its XLA step) meet in it as in TF. Closing the Session cancels waiting
operations (CancelledError) rather than leaving their threads blocked.

TF's error classes and texts: a closed queue refuses enqueues (CancelledError) and a dequeue
that cannot be satisfied once closed raises OutOfRangeError (which ends a ``QueueRunner`` or
a training loop). RandomShuffleQueue draws with numpy's generator: the same multiset of
elements as TF, not TF's order.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import threading

import numpy as np

from lowering.registry import reference
from tfcompat.framework import errors

_POLL_S = 0.05  # how often a waiting operation checks for cancellation
_ids = itertools.count()


@dataclasses.dataclass(frozen=True)
class QueueHandle:
    """The value of a queue op's ``handle`` output: its key in the Session state."""

    key: str
    op: object


def _shape_text(shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class Queue:
    """A bounded queue of element tuples with TF's blocking semantics."""

    kind = "FIFOQueue"

    def __init__(self, name, dtypes, shapes, capacity):
        self.name = name
        self.dtypes = [np.dtype(d) for d in dtypes]
        self.shapes = shapes  # per component a list of dims (None unknown), or None
        self.capacity = capacity if capacity >= 0 else None
        self.elements = collections.deque()
        self.closed = False
        self.cancelled = False  # pending enqueues cancelled, or the Session closed
        self.condition = threading.Condition()

    # -- checks --------------------------------------------------------------------------------
    def check_element(self, op, values, many=False):
        if len(values) != len(self.dtypes):
            raise errors.InvalidArgumentError(
                None, op, f"Expected {len(self.dtypes)} components, got {len(values)}"
            )
        if many and any(v.ndim == 0 for v in values):
            raise errors.InvalidArgumentError(
                None, op, "EnqueueMany requires each component to have at least one dimension"
            )
        batch = [values[0].shape[0]] if many else []
        shapes = self.shapes or [list(v.shape[1:] if many else v.shape) for v in values]
        for i, (value, shape) in enumerate(zip(values, shapes)):
            expected = batch + list(shape)
            if value.ndim != len(expected) or any(
                d is not None and d != g for d, g in zip(expected, value.shape)
            ):
                raise errors.InvalidArgumentError(
                    None,
                    op,
                    f"Shape mismatch in tuple component {i}. Expected "
                    f"{_shape_text(expected)}, got {_shape_text(value.shape)}",
                )

    # -- waiting -------------------------------------------------------------------------------
    def _wait(self, op, ready, on_closed):
        """Waits (holding the condition) until ``ready()``; ``on_closed()`` decides, once
        the queue is closed, whether waiting is over (it may raise)."""
        while not ready():
            if self.closed and on_closed():
                return
            if self.cancelled:
                raise errors.CancelledError(
                    None, op, f"{self.kind} '{self.name}' was cancelled: its Session closed."
                )
            self.condition.wait(_POLL_S)

    def _full(self):
        return self.capacity is not None and len(self.elements) >= self.capacity

    def _closed_error(self, op):
        return errors.CancelledError(None, op, f"{self.kind} '{self.name}' is closed.")

    # -- operations ----------------------------------------------------------------------------
    def enqueue(self, op, elements):
        with self.condition:
            for element in elements:
                if self.closed:
                    raise self._closed_error(op)

                def closed_refuses():
                    raise self._closed_error(op)

                self._wait(op, lambda: not self._full(), closed_refuses)
                self.elements.append(element)
                self.condition.notify_all()

    def available(self):
        """How many elements a dequeue may take now."""
        return len(self.elements)

    def take(self, count):
        return [self.elements.popleft() for _ in range(count)]

    def restore(self, elements):
        """Puts taken elements back at the front, in their order."""
        self.elements.extendleft(reversed(elements))

    def dequeue(self, op, n, up_to=False):
        """``n`` elements, taken as they arrive (so ``n`` may exceed the capacity). Once
        the queue is closed with fewer than needed, what was taken goes back; then
        ``up_to`` takes all that is left, else OutOfRangeError (TF's attempt logic)."""
        with self.condition:
            taken = []
            while len(taken) < n:
                remaining = n - len(taken)
                if self.closed and len(self.elements) < remaining:
                    self.restore(taken)
                    if up_to and self.elements:
                        taken = self.take(len(self.elements))
                        break
                    raise errors.OutOfRangeError(
                        None,
                        op,
                        f"{self.kind} '{self.name}' is closed and has insufficient elements "
                        f"(requested {remaining}, current size {len(self.elements)})",
                    )
                count = min(self.available(), remaining)
                if count > 0:
                    taken.extend(self.take(count))
                    self.condition.notify_all()
                    continue
                if self.cancelled:
                    self.restore(taken)
                    raise errors.CancelledError(
                        None, op, f"{self.kind} '{self.name}' was cancelled: its Session closed."
                    )
                self.condition.wait(_POLL_S)
            self.condition.notify_all()
            return taken

    def close(self, cancel_pending_enqueues):
        with self.condition:
            self.closed = True
            if cancel_pending_enqueues:
                self.cancelled = True
            self.condition.notify_all()

    def cancel(self):
        """The Session is closing: wake and fail every waiting operation."""
        with self.condition:
            self.cancelled = True
            self.condition.notify_all()

    # -- batching ------------------------------------------------------------------------------
    def stack(self, op, elements):
        if self.shapes is None and elements:
            raise errors.InvalidArgumentError(
                None,
                op,
                f"{self.kind}'s DequeueMany and DequeueUpTo require the components to have "
                "specified shapes.",
            )
        return [
            np.stack([e[i] for e in elements]) if elements
            else np.zeros([0, *self.shapes[i]], self.dtypes[i])
            for i in range(len(self.dtypes))
        ]  # fmt: skip


class PaddingQueue(Queue):
    """Batches are padded per component to the largest element's shape."""

    kind = "PaddingFIFOQueue"

    def stack(self, op, elements):
        out = []
        for i, dtype in enumerate(self.dtypes):
            parts = [e[i] for e in elements]
            if not parts:
                dims = [0 if d is None else d for d in self.shapes[i]]
                out.append(np.zeros([0, *dims], dtype))
                continue
            if not parts[0].ndim:
                out.append(np.stack(parts))
                continue
            shape = np.max([p.shape for p in parts], axis=0)
            fill = b"" if dtype.kind == "O" else 0
            batch = np.full((len(parts), *shape), fill, dtype=dtype)
            for i, part in enumerate(parts):
                batch[(i, *(slice(0, d) for d in part.shape))] = part
            out.append(batch)
        return out


class ShuffleQueue(Queue):
    """Dequeues uniformly at random, leaving ``min_after_dequeue`` elements until closed."""

    kind = "RandomShuffleQueue"

    def __init__(self, name, dtypes, shapes, capacity, min_after_dequeue, seed, seed2):
        super().__init__(name, dtypes, shapes, capacity)
        self.elements = []
        self.min_after_dequeue = min_after_dequeue
        self.rng = np.random.default_rng((seed, seed2) if seed or seed2 else None)

    def available(self):
        return len(self.elements) - (0 if self.closed else self.min_after_dequeue)

    def restore(self, elements):
        self.elements.extend(elements)

    def take(self, count):
        taken = []
        for _ in range(count):
            i = int(self.rng.integers(len(self.elements)))
            self.elements[i], self.elements[-1] = self.elements[-1], self.elements[i]
            taken.append(self.elements.pop())
        return taken


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------
def _make_queue(ctx, op, factory):
    shared = op.attrs["shared_name"]
    shared = shared.decode() if isinstance(shared, bytes) else shared
    key = "queue:" + (shared or op.name)
    if key not in ctx.state:
        shapes = op.attrs["shapes"]
        shapes = [list(s.as_list()) for s in shapes] if shapes else None
        dtypes = [d.as_numpy_dtype for d in op.attrs["component_types"]]
        # TF's resource name: the shared name, or a fresh number and the node's name.
        name = shared or f"_{next(_ids)}_{op.name}"
        ctx.state[key] = factory(name, dtypes, shapes, op.attrs["capacity"])
    return QueueHandle(key, op)


@reference("FIFOQueueV2")
def _fifo_queue(ctx, op):
    return _make_queue(ctx, op, Queue)


@reference("PaddingFIFOQueueV2")
def _padding_fifo_queue(ctx, op):
    return _make_queue(ctx, op, PaddingQueue)


@reference("RandomShuffleQueueV2")
def _random_shuffle_queue(ctx, op):
    attrs = op.attrs
    return _make_queue(
        ctx,
        op,
        lambda name, dtypes, shapes, capacity: ShuffleQueue(
            name,
            dtypes,
            shapes,
            capacity,
            attrs["min_after_dequeue"],
            attrs["seed"],
            attrs["seed2"],
        ),  # fmt: skip
    )


def _queue(ctx, op, handle) -> Queue:
    queue = ctx.state.get(handle.key) if isinstance(handle, QueueHandle) else None
    if queue is None:
        raise errors.NotFoundError(
            None,
            op,
            f"Resource {handle!r} of a queue does not exist.\n\t [[{{{{node {op.name}}}}}]]",
        )
    return queue


def _component_arrays(queue, values):
    return tuple(np.array(v, dtype=d) for v, d in zip(values, queue.dtypes))


@reference("QueueEnqueueV2")
def _enqueue(ctx, op, handle, *components):
    queue = _queue(ctx, op, handle)
    element = _component_arrays(queue, components)
    queue.check_element(op, element)
    queue.enqueue(op, [element])


@reference("QueueEnqueueManyV2")
def _enqueue_many(ctx, op, handle, *components):
    queue = _queue(ctx, op, handle)
    batch = _component_arrays(queue, components)
    queue.check_element(op, batch, many=True)
    queue.enqueue(op, [tuple(c[i, ...] for c in batch) for i in range(batch[0].shape[0])])


def _results(values):
    """An op with one output takes its value itself, several a list (``interpreter``)."""
    values = [np.asarray(v) for v in values]
    return values[0] if len(values) == 1 else values


@reference("QueueDequeueV2")
def _dequeue(ctx, op, handle):
    (element,) = _queue(ctx, op, handle).dequeue(op, 1)
    return _results(element)


def _dequeue_n(ctx, op, handle, n, up_to):
    queue = _queue(ctx, op, handle)
    n = int(n)
    if n < 0:
        kind = "DequeueUpToOp" if up_to else "DequeueManyOp"
        raise errors.InvalidArgumentError(None, op, f"{kind} requested {n} < 0 elements")
    return _results(queue.stack(op, queue.dequeue(op, n, up_to) if n else []))


@reference("QueueDequeueManyV2")
def _dequeue_many(ctx, op, handle, n):
    return _dequeue_n(ctx, op, handle, n, up_to=False)


@reference("QueueDequeueUpToV2")
def _dequeue_up_to(ctx, op, handle, n):
    return _dequeue_n(ctx, op, handle, n, up_to=True)


@reference("QueueCloseV2")
def _close(ctx, op, handle):
    _queue(ctx, op, handle).close(op.attrs["cancel_pending_enqueues"])


@reference("QueueSizeV2")
def _size(ctx, op, handle):
    return np.int32(len(_queue(ctx, op, handle).elements))


@reference("QueueIsClosedV2")
def _is_closed(ctx, op, handle):
    return np.bool_(_queue(ctx, op, handle).closed)
