"""tf.train.Coordinator and tf.train.start_queue_runners: the same thread scenarios run with
TF 2.21's Coordinator and ours end the same way (stop flags, the re-raised exception, clean
stops, stragglers), and the TF1 queue-runner boilerplate runs."""

import threading
import time

import pytest

import tfcompat
from tests.oracle import tf1


def _outcome(scenario, tf):
    try:
        return ("ok", scenario(tf))
    except Exception as e:  # noqa: BLE001 - the outcome is compared
        return (type(e).__name__, str(e))


def _worker_raises(tf):
    coord = tf.train.Coordinator()
    seen = []

    def work(i):
        with coord.stop_on_exception():
            while not coord.should_stop():
                if i == 1:
                    raise ValueError("worker 1 failed")
                seen.append(i)
                time.sleep(0.001)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    coord.join(threads)


def _clean_stop(tf):
    coord = tf.train.Coordinator()

    def work():
        with coord.stop_on_exception():
            raise tf.errors.OutOfRangeError(None, None, "end of input")

    t = threading.Thread(target=work)
    t.start()
    coord.join([t])
    return coord.should_stop(), coord.joined


def _straggler(tf):
    coord = tf.train.Coordinator()
    release = threading.Event()
    t = threading.Thread(target=release.wait, name="slow")
    t.start()
    coord.request_stop()
    try:
        coord.join([t], stop_grace_period_secs=0.01)
    finally:
        release.set()
        t.join()


def _ignored_straggler(tf):
    coord = tf.train.Coordinator()
    release = threading.Event()
    t = threading.Thread(target=release.wait, name="slow")
    t.start()
    coord.request_stop()
    coord.join([t], stop_grace_period_secs=0.01, ignore_live_threads=True)
    release.set()
    t.join()
    return coord.joined


def _reuse(tf):
    coord = tf.train.Coordinator()
    coord.request_stop()
    stopped = coord.should_stop()
    coord.clear_stop()
    try:
        raise KeyError("k")
    except KeyError:
        coord.request_stop(ex=__import__("sys").exc_info())
    try:
        coord.raise_requested_exception()
    except KeyError as e:
        return stopped, coord.should_stop(), coord.wait_for_stop(0.01), repr(e)


@pytest.mark.parametrize(
    "scenario", [_worker_raises, _clean_stop, _straggler, _ignored_straggler, _reuse]
)
def test_scenarios_end_as_in_tf(scenario):
    assert _outcome(scenario, tfcompat) == _outcome(scenario, tf1())


def test_queue_runner_boilerplate_runs():
    graph = tfcompat.Graph()
    with graph.as_default():
        x = tfcompat.constant(2.0) * 3.0
        with tfcompat.Session() as sess:
            coord = tfcompat.train.Coordinator()
            threads = tfcompat.train.start_queue_runners(sess=sess, coord=coord)
            assert threads == []
            assert sess.run(x) == 6.0
            coord.request_stop()
            coord.join(threads)
        with pytest.raises(ValueError, match="No default session is registered"):
            tfcompat.train.start_queue_runners()
        with pytest.raises(TypeError, match="sess must be a `tf.Session` object"):
            tfcompat.train.start_queue_runners(sess=object())
