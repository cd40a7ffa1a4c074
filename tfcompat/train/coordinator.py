"""``tf.train.Coordinator`` and ``tf.train.start_queue_runners`` (TF1): the thread
bookkeeping of TF1 input loops.

A Coordinator is a stop flag that threads poll (``should_stop``), set by the first thread to
``request_stop`` (an exception passed then, unless of a clean-stop type such as
``OutOfRangeError``, is re-raised by ``join``). ``start_queue_runners`` starts the threads of
the graph's ``QueueRunner``s (``tfcompat/train/queue_runner.py``).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time

from tfcompat.framework import errors
from tfcompat.framework.graph import GraphKeys
from tfcompat.util.tf_export import tf_export

_logger = logging.getLogger("tfcompat")


@tf_export("train.Coordinator")
class Coordinator:
    """Coordinates the termination of a set of threads."""

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._exc_info = None  # (type, value, traceback) that join re-raises
        self._joined = False
        self._threads = set()

    def _reported(self, ex):
        """``ex`` (an exception or exc_info tuple) unless it is a clean stop."""
        instance = ex[1] if isinstance(ex, tuple) else ex
        return None if isinstance(instance, self._clean_types) else ex

    def request_stop(self, ex=None):
        """Asks the threads to stop; the first non-clean exception reported is kept for
        ``join``. After ``join``, a reported exception is raised right away."""
        with self._lock:
            ex = self._reported(ex)
            if self._joined and ex is not None:
                raise ex[1] if isinstance(ex, tuple) else sys.exc_info()[1]
            if self._stop.is_set():
                return
            if ex is not None and self._exc_info is None:
                exc_info = ex if isinstance(ex, tuple) else sys.exc_info()
                _logger.info("Error reported to Coordinator: %s", exc_info[1])
                if len(exc_info) != 3 or not exc_info[0] or not exc_info[1]:
                    try:
                        raise ValueError(
                            "ex must be a tuple or sys.exc_info must return the current "
                            f"exception: {exc_info}"
                        )
                    except ValueError:
                        exc_info = sys.exc_info()
                self._exc_info = exc_info
            self._stop.set()

    def clear_stop(self):
        """Forgets the stop request and any exception (the Coordinator can be reused)."""
        with self._lock:
            self._joined = False
            self._exc_info = None
            self._stop.clear()

    def should_stop(self):
        """Whether a stop was requested."""
        return self._stop.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """Requests a stop, reporting the exception, if the block raises."""
        try:
            yield
        except BaseException:  # noqa: BLE001 - every exception is reported, as TF does
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Waits until a stop is requested (at most ``timeout`` seconds)."""
        return self._stop.wait(timeout)

    def register_thread(self, thread):
        """Adds ``thread`` to those ``join`` waits for."""
        with self._lock:
            self._threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for the registered threads and ``threads`` to end: until a stop is
        requested, then ``stop_grace_period_secs`` more. Re-raises a reported exception;
        threads still alive raise RuntimeError (or are logged, ``ignore_live_threads``)."""
        with self._lock:
            threads = list(self._threads | set(threads or ()))
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        pause = 0.001
        while any(t.is_alive() for t in threads) and time.monotonic() <= deadline:
            time.sleep(pause)
            pause = min(2 * pause, max(deadline - time.monotonic(), 0.001))
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._threads = set()
            if self._exc_info:
                raise self._exc_info[1]
            if stragglers:
                text = "Coordinator stopped with threads still running: " + " ".join(stragglers)
                if not ignore_live_threads:
                    raise RuntimeError(text)
                _logger.info(text)

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        """Raises the reported exception, if any."""
        with self._lock:
            if self._exc_info:
                raise self._exc_info[1]


@tf_export("train.start_queue_runners", "train.queue_runner.start_queue_runners")
def start_queue_runners(
    sess=None, coord=None, daemon=True, start=True, collection=GraphKeys.QUEUE_RUNNERS
):
    """Starts the threads of the queue runners in the graph's ``collection``; returns
    them (join them through ``coord``)."""
    from tfcompat.client.session import Session, get_default_session

    if sess is None:
        sess = get_default_session()
        if not sess:
            raise ValueError(
                "Cannot start queue runners: No default session is registered. Use `with "
                "sess.as_default()` or pass an explicit session to "
                "tf.start_queue_runners(sess=sess)"
            )
    if not isinstance(sess, Session):
        if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []  # it started its queue runners when it made its session
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {type(sess)}")
    threads = []
    with sess.graph.as_default():
        for runner in sess.graph.get_collection(collection):
            threads.extend(runner.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
