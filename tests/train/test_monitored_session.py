"""tf.train.MonitoredTrainingSession and its hooks against TF 2.21: the same training loop
(stop at a step, NaN check, logging, checkpoints every 3 steps, summaries every 2) gives the
same losses, the same checkpoint files, resumes from the latest checkpoint the same way, and
writes the same sequence of events (graphs, summaries, session logs) in both."""

import os

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1


def _train(tf, checkpoint_dir, last_step, x_value=(1.0, 2.0, 3.0)):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        w = tf.Variable(np.array([1.0, -2.0, 0.5], np.float32), name="w")
        loss = tf.reduce_sum(tf.square(x * w))
        tf.summary.scalar("loss", loss)
        step = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=step)
        hooks = [
            tf.train.StopAtStepHook(last_step=last_step),
            tf.train.NanTensorHook(loss),
            tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=2),
        ]
        losses = []
        with tf.train.MonitoredTrainingSession(
            checkpoint_dir=checkpoint_dir,
            hooks=hooks,
            save_checkpoint_steps=3,
            save_summaries_steps=2,
            log_step_count_steps=None,
        ) as sess:
            while not sess.should_stop():
                losses.append(sess.run([train, loss], {x: list(x_value)})[1])
        assert not graph.finalized  # unfinalized again on close
    return losses


def _events(directory):
    tf = tf1()
    out = []
    for name in sorted(os.listdir(directory)):
        if name.startswith("events.out.tfevents."):
            for event in tf.train.summary_iterator(os.path.join(directory, name)):
                kind = event.WhichOneof("what")
                detail = None
                if kind == "summary":
                    detail = [v.tag for v in event.summary.value]
                elif kind == "session_log":
                    detail = event.session_log.status
                out.append((event.step, kind, detail))
    return out


@pytest.fixture
def fresh_writers():
    yield
    tfcompat.summary.FileWriterCache.clear()
    tf1().summary.FileWriterCache.clear()


def test_training_loop_matches_tf(tmp_path, fresh_writers):
    results = {}
    for name, tf in (("tfcompat", tfcompat), ("tf", tf1())):
        directory = tmp_path / name
        first = _train(tf, str(directory), last_step=7)
        resumed = _train(tf, str(directory), last_step=10)
        files = sorted(f for f in os.listdir(directory) if not f.startswith("events"))
        results[name] = (first, resumed, files, _events(directory))
    ours, theirs = results["tfcompat"], results["tf"]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    assert len(ours[0]) == 7 and len(ours[1]) == 3
    assert ours[2] == theirs[2]  # model.ckpt-{0,3,6,7,10}, checkpoint, graph.pbtxt
    assert ours[3] == theirs[3]


def test_nan_loss_fails_the_loop(fresh_writers):
    graph = tfcompat.Graph()
    with graph.as_default():
        x = tfcompat.placeholder(tfcompat.float32, [], name="x")
        w = tfcompat.Variable(1.0, name="w")
        loss = tfcompat.sqrt(x * w)
        step = tfcompat.train.get_or_create_global_step()
        train = tfcompat.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        hooks = [tfcompat.train.NanTensorHook(loss)]
        with pytest.raises(tfcompat.train.NanLossDuringTrainingError):
            with tfcompat.train.MonitoredTrainingSession(hooks=hooks) as sess:
                sess.run(train, {x: -1.0})


def test_singular_monitored_session_and_stop_after_num_steps(fresh_writers):
    graph = tfcompat.Graph()
    with graph.as_default():
        step = tfcompat.train.get_or_create_global_step()
        increment = tfcompat.assign_add(step, 1)
        hooks = [tfcompat.train.StopAtStepHook(num_steps=4)]
        with tfcompat.train.SingularMonitoredSession(hooks=hooks) as sess:
            runs = 0
            while not sess.should_stop():
                sess.run(increment)
                runs += 1
            assert runs == 4 and sess.raw_session().run(step) == 4
        assert sess.should_stop()


def _listened(tf, checkpoint_dir):
    """A CheckpointSaverHook's listener calls, in order, with their global steps."""
    calls = []

    class Listener(tf.train.CheckpointSaverListener):
        def begin(self):
            calls.append(("begin",))

        def before_save(self, session, global_step_value):
            calls.append(("before_save", int(global_step_value)))

        def after_save(self, session, global_step_value):
            calls.append(("after_save", int(global_step_value)))

        def end(self, session, global_step_value):
            calls.append(("end", int(global_step_value)))

    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        tick = tf.assign_add(step, 1)
        hook = tf.train.CheckpointSaverHook(checkpoint_dir, save_steps=2, listeners=[Listener()])
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run(tick)
    return calls


def test_checkpoint_saver_listeners_are_called_as_in_tf(tmp_path, fresh_writers):
    ours = _listened(tfcompat, str(tmp_path / "ours"))
    theirs = _listened(tf1(), str(tmp_path / "theirs"))
    assert ours == theirs and ours[0] == ("begin",) and ours[-1][0] == "end"


def test_worker_session_creator_waits_for_a_ready_model():
    with tfcompat.Graph().as_default():
        tfcompat.Variable(1.0, name="v")
        scaffold = tfcompat.train.Scaffold()
        # a worker's Session only becomes ready when the chief has initialised the model;
        # here nothing does, so it gives up after max_wait_secs as TF's does
        creator = tfcompat.train.WorkerSessionCreator(scaffold=scaffold, max_wait_secs=0)
        with pytest.raises(tfcompat.errors.DeadlineExceededError, match="not ready"):
            creator.create_session()
    with tfcompat.Graph().as_default():
        tfcompat.constant(1.0)  # no variables: ready at once
        creator = tfcompat.train.WorkerSessionCreator(max_wait_secs=0)
        with tfcompat.train.MonitoredSession(session_creator=creator) as sess:
            assert sess.run("Const:0") == 1.0


def _profiled(tf, output_dir):
    import glob
    import json

    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        w = tf.Variable(1.0)
        train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(step, 1))
        hook = tf.train.ProfilerHook(save_steps=2, output_dir=output_dir)
        with tf.train.MonitoredTrainingSession(
            hooks=[hook],
            save_summaries_steps=None,
            save_checkpoint_secs=None,
            log_step_count_steps=None,
        ) as sess:
            for _ in range(5):
                sess.run(train)
        tf.summary.FileWriterCache.get(output_dir).flush()
    files = sorted(os.path.basename(f) for f in glob.glob(os.path.join(output_dir, "timeline-*")))
    with open(os.path.join(output_dir, files[0])) as f:
        trace = json.load(f)["traceEvents"]
    tags = [
        e.tagged_run_metadata.tag
        for name in glob.glob(os.path.join(output_dir, "events*"))
        for e in tf1().train.summary_iterator(name)
        if e.HasField("tagged_run_metadata")
    ]
    return files, trace, tags


def test_profiler_hook_writes_tf_timelines_and_run_metadata(tmp_path, fresh_writers):
    files, trace, tags = _profiled(tfcompat, str(tmp_path / "ours"))
    their_files, their_trace, their_tags = _profiled(tf1(), str(tmp_path / "theirs"))
    assert files == their_files == ["timeline-2.json", "timeline-4.json"]
    assert tags == their_tags == ["step_2", "step_4"]
    # Chrome trace events as TF's timeline writes them: a named process per device and a
    # complete event per traced unit (a segment here, a node in TF)
    for events in (trace, their_trace):
        assert any(e["ph"] == "M" and e["name"] == "process_name" for e in events)
        complete = [e for e in events if e["ph"] == "X"]
        assert complete and all({"ts", "dur", "pid", "args"} <= set(e) for e in complete)
    assert {e["name"] for e in trace if e["ph"] == "X"} == {"DeviceSegment"}


def test_hook_run_options_merge_into_the_callers():
    seen = []

    class Tracing(tfcompat.train.SessionRunHook):
        def before_run(self, run_context):
            return tfcompat.train.SessionRunArgs(
                None, options=tfcompat.RunOptions(trace_level=1, timeout_in_ms=5)
            )

        def after_run(self, run_context, run_values):
            seen.append((run_values.options.trace_level, run_values.options.timeout_in_ms))
            seen.append(len(run_values.run_metadata.step_stats.dev_stats))

    with tfcompat.Graph().as_default():
        x = tfcompat.constant(1.0) * 2.0
        with tfcompat.train.MonitoredSession(hooks=[Tracing()]) as sess:
            sess.run(x, options=tfcompat.RunOptions(trace_level=3, timeout_in_ms=1))
    assert seen == [(3, 5), 1]
