"""``tf.train.QueueRunner``: threads that run a queue's enqueue ops until the input ends,
then close the queue, as TF1 input pipelines fill their queues.

Each enqueue op gets a thread calling ``Session.run`` on it in a loop; an OutOfRangeError
(the input's epochs are exhausted) ends that thread, and the last one to end runs the close
op, so that readers of the queue drain it and then see OutOfRangeError themselves. With a
Coordinator, other errors request a stop, and one more thread cancels the queue (waking
blocked enqueues) once a stop is requested.
"""

from __future__ import annotations

import logging
import threading
import weakref

from tfcompat.framework import errors
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.graph import GraphKeys
from tfcompat.util.tf_export import tf_export

_logger = logging.getLogger("tfcompat")


@tf_export("train.QueueRunner", "train.queue_runner.QueueRunner")
class QueueRunner:
    """Holds a queue and its enqueue ops; ``create_threads`` starts the filling."""

    def __init__(
        self,
        queue=None,
        enqueue_ops=None,
        close_op=None,
        cancel_op=None,
        queue_closed_exception_types=None,
        queue_runner_def=None,
        import_scope=None,
    ):
        if queue_runner_def is not None:
            raise errors.UnimplementedError(
                None, None, "QueueRunner from a QueueRunnerDef is not supported by tfcompat"
            )
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = (
            cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        )
        if queue_closed_exception_types is None:
            queue_closed_exception_types = (errors.OutOfRangeError,)
        elif not isinstance(queue_closed_exception_types, tuple) or not all(
            isinstance(t, type) and issubclass(t, errors.OpError)
            for t in queue_closed_exception_types
        ):
            raise TypeError(
                "queue_closed_exception_types, when provided, must be a tuple of "
                f"tf.error types, but saw: {queue_closed_exception_types}"
            )
        self._queue_closed_exception_types = queue_closed_exception_types
        self._lock = threading.Lock()
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised = []

    @property
    def queue(self):
        return self._queue

    @property
    def enqueue_ops(self):
        return self._enqueue_ops

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def queue_closed_exception_types(self):
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self):
        """Exceptions the threads raised (without a Coordinator to report them to)."""
        return self._exceptions_raised

    @property
    def name(self):
        return self._queue.name

    def _run(self, sess, enqueue_op, coord=None):
        decremented = False
        try:
            enqueue = sess.make_callable(enqueue_op)
            while True:
                if coord and coord.should_stop():
                    break
                try:
                    enqueue()
                except self._queue_closed_exception_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001 - as TF: ignored
                                _logger.debug("Ignored exception: %s", e)
                        return
        except Exception as e:  # noqa: BLE001 - reported to the coordinator, as TF does
            if coord:
                coord.request_stop(e)
            else:
                _logger.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord):
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - as TF: ignored
            _logger.debug("Ignored exception: %s", e)

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """One thread per enqueue op (and, with ``coord``, one that cancels the queue on a
        stop request); none if this runner already runs in ``sess``."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [
            threading.Thread(target=self._run, args=(sess, op, coord)) for op in self._enqueue_ops
        ]
        if coord:
            threads.append(
                threading.Thread(
                    target=self._close_on_stop,
                    args=(sess, self._cancel_op, coord),
                    name=f"QueueRunnerThread-{self.name}",
                )
            )
        for t in threads:
            if coord:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads


@tf_export("train.add_queue_runner", "train.queue_runner.add_queue_runner")
def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    """Adds ``qr`` to the graph's ``collection`` (started by ``start_queue_runners``)."""
    graph_lib.get_default_graph().add_to_collection(collection, qr)
