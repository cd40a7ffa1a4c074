"""TF1's basic session run hooks: stop at a step, fail on a NaN loss, log tensors, save
checkpoints, save summaries, count steps per second (``tf.train.StopAtStepHook`` & co),
with TF's triggering rules (``SecondOrStepTimer``) and outputs (checkpoint files
``model.ckpt-<step>``, events with ``SessionLog``s, ``global_step/sec`` summaries)."""

from __future__ import annotations

import logging
import os
import time

import numpy as np

from tfcompat.framework import graph as graph_lib
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.proto import event_pb2, summary_pb2
from tfcompat.train import training_util
from tfcompat.train.session_run_hook import SessionRunArgs, SessionRunHook
from tfcompat.util.tf_export import tf_export

_logger = logging.getLogger("tfcompat")


@tf_export("train.SecondOrStepTimer")
class SecondOrStepTimer:
    """Triggers every ``every_secs`` seconds or every ``every_steps`` steps (one of them),
    and at the first step it is asked about."""

    def __init__(self, every_secs=None, every_steps=None):
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")
        self._every_secs, self._every_steps = every_secs, every_steps
        self.reset()

    def reset(self):
        self._last_step = None
        self._last_time = None

    def should_trigger_for_step(self, step):
        if self._last_step is None:
            return True
        if self._last_step == step:
            return False
        if self._every_secs is not None and time.time() >= self._last_time + self._every_secs:
            return True
        return self._every_steps is not None and step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step):
        """Records a trigger at ``step``: ``(seconds, steps)`` since the last one (Nones the
        first time)."""
        now = time.time()
        if self._last_time is None:
            elapsed = (None, None)
        else:
            elapsed = (now - self._last_time, step - self._last_step)
        self._last_time, self._last_step = now, step
        return elapsed

    def last_triggered_step(self):
        return self._last_step


class _NeverTriggerTimer(SecondOrStepTimer):
    def __init__(self):
        self.reset()

    def should_trigger_for_step(self, step):
        return False


def _global_step_read(hook):
    read = training_util.get_or_create_global_step_read()
    if read is None:
        raise RuntimeError(f"Global step should be created to use {type(hook).__name__}.")
    return read


@tf_export("train.StopAtStepHook")
class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step`` (or ``num_steps`` more
    than at session creation)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self):
        self._step = _global_step_read(self)

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = session.run(self._step) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 >= self._last_step:
            if run_context.session.run(self._step) >= self._last_step:
                run_context.request_stop()


@tf_export("train.NanLossDuringTrainingError")
class NanLossDuringTrainingError(RuntimeError):
    def __str__(self):
        return "NaN loss during training."


@tf_export("train.NanTensorHook")
class NanTensorHook(SessionRunHook):
    """Raises NanLossDuringTrainingError (or requests a stop) when the loss is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss, self._fail = loss_tensor, fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            if self._fail:
                _logger.error("Model diverged with loss = NaN.")
                raise NanLossDuringTrainingError
            _logger.warning("Model diverged with loss = NaN.")
            run_context.request_stop()


@tf_export("train.LoggingTensorHook")
class LoggingTensorHook(SessionRunHook):
    """Logs ``tensors`` (a list of tensors or names, or a dict tag -> tensor) every
    ``every_n_iter`` runs or ``every_n_secs`` seconds, and/or at the end, as
    ``tag = value, ...`` at INFO level."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        only_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError(
                "either at_end and/or exactly one of every_n_iter and every_n_secs must be "
                "provided."
            )
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if isinstance(tensors, dict):
            self._order = sorted(tensors)
        else:
            self._order = list(tensors)
            tensors = {item: item for item in tensors}
        self._tensors = tensors
        self._formatter = formatter
        self._timer = (
            _NeverTriggerTimer()
            if only_at_end
            else SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter)
        )
        self._at_end = at_end

    def begin(self):
        graph = graph_lib.get_default_graph()
        self._timer.reset()
        self._iter = 0
        self._fetches = {
            tag: graph.as_graph_element(t) if isinstance(t, str) else t
            for tag, t in self._tensors.items()
        }

    def before_run(self, run_context):
        self._trigger = self._timer.should_trigger_for_step(self._iter)
        return SessionRunArgs(self._fetches) if self._trigger else None

    def _log(self, values):
        elapsed, _ = self._timer.update_last_triggered_step(self._iter)
        if self._formatter:
            _logger.info(self._formatter(values))
            return
        text = ", ".join(f"{tag} = {values[tag]}" for tag in self._order)
        if elapsed is not None:
            _logger.info("%s (%.3f sec)", text, elapsed)
        else:
            _logger.info("%s", text)

    def after_run(self, run_context, run_values):
        if self._trigger:
            self._log(run_values.results)
        self._iter += 1

    def end(self, session):
        if self._at_end:
            self._log(session.run(self._fetches))


def _summary_writer(logdir):
    from tfcompat.summary.writer import FileWriterCache

    return FileWriterCache.get(logdir)


@tf_export("train.ProfilerHook")
class ProfilerHook(SessionRunHook):
    """Every ``save_steps`` steps (or ``save_secs``), traces one run and writes
    ``timeline-<step>.json`` (Chrome trace format) to ``output_dir``, and adds the run's
    metadata to that directory's events file, as TF's hook does. A step's trace here has
    one entry per segment of the step (``lowering/step_trace.py``)."""

    def __init__(
        self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True, show_memory=False
    ):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = _summary_writer(output_dir)
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._global_step_tensor = _global_step_read(self)

    def before_run(self, run_context):
        from tfcompat.client.config import RunOptions

        self._request_summary = self._next_step is not None and self._timer.should_trigger_for_step(
            self._next_step
        )
        options = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._request_summary else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=options)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results["global_step"]
        if self._next_step is None:
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
            self._timer.update_last_triggered_step(global_step)
            self._save(global_step, run_values.run_metadata.step_stats)
            self._file_writer.add_run_metadata(run_values.run_metadata, f"step_{global_step}")
        self._next_step = global_step + 1

    def _save(self, step, step_stats):
        from lowering import step_trace

        path = self._output_file.format(step)
        _logger.info("Saving timeline for %d into '%s'.", step, path)
        with open(path, "w") as f:
            f.write(step_trace.chrome_trace(step_stats, self._show_dataflow, self._show_memory))


@tf_export("train.CheckpointSaverListener")
class CheckpointSaverListener:
    """Called around each save of a ``CheckpointSaverHook`` (``listeners=``):
    ``begin``, ``before_save``, ``after_save`` (returning True stops training), ``end``."""

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


@tf_export("train.CheckpointSaverHook")
class CheckpointSaverHook(SessionRunHook):
    """Saves ``<checkpoint_dir>/model.ckpt-<step>`` at session creation, every
    ``save_steps`` steps or ``save_secs`` seconds, and at the end; writes ``graph.pbtxt``
    and records each save as a ``SessionLog.CHECKPOINT`` event."""

    def __init__(
        self,
        checkpoint_dir,
        save_secs=None,
        save_steps=None,
        saver=None,
        checkpoint_basename="model.ckpt",
        scaffold=None,
        listeners=None,
        save_graph_def=True,
    ):
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver, self._scaffold = saver, scaffold
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._save_graph_def = save_graph_def

    def begin(self):
        self._writer = _summary_writer(self._checkpoint_dir)
        self._step = _global_step_read(self)
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        from tfcompat.framework import graph_io, meta_graph

        step = session.run(self._step)
        graph = graph_lib.get_default_graph()
        if self._save_graph_def:
            graph_io.write_graph(
                graph.as_graph_def(add_shapes=True), self._checkpoint_dir, "graph.pbtxt"
            )
        saver = self._get_saver()
        self._writer.add_graph(graph)
        self._writer.add_meta_graph(
            meta_graph.create_meta_graph_def(
                graph_def=graph.as_graph_def(add_shapes=True),
                saver_def=saver.saver_def if saver else None,
            )
        )
        self._save(session, step)
        self._timer.update_last_triggered_step(step)

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        if self._timer.should_trigger_for_step(run_values.results + 1):
            step = run_context.session.run(self._step)
            if self._timer.should_trigger_for_step(step):
                self._timer.update_last_triggered_step(step)
                if self._save(run_context.session, step):
                    run_context.request_stop()

    def end(self, session):
        step = session.run(self._step)
        if step != self._timer.last_triggered_step():
            self._save(session, step)
        for listener in self._listeners:
            listener.end(session, step)

    def _save(self, session, step):
        _logger.info("Saving checkpoints for %d into %s.", step, self._save_path)
        for listener in self._listeners:
            listener.before_save(session, step)
        self._get_saver().save(
            session, self._save_path, global_step=step, write_meta_graph=self._save_graph_def
        )
        log = event_pb2.SessionLog(
            status=event_pb2.SessionLog.CHECKPOINT, checkpoint_path=self._save_path
        )
        self._writer.add_session_log(log, step)
        return any([bool(listener.after_save(session, step)) for listener in self._listeners])

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = graph_lib.get_default_graph().get_collection(GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(
                f"No items in collection {GraphKeys.SAVERS}. Please add a saver to the "
                "collection or provide a saver or scaffold."
            )
        if len(savers) > 1:
            raise RuntimeError(
                f"More than one item in collection {GraphKeys.SAVERS}. Please indicate which "
                "one to use by passing it to the constructor."
            )
        self._saver = savers[0]
        return self._saver


@tf_export("train.SummarySaverHook")
class SummarySaverHook(SessionRunHook):
    """Fetches the summary op (``summary_op``, or the scaffold's) every ``save_steps``
    steps or ``save_secs`` seconds and writes it at the global step; a ``SessionLog.START``
    first."""

    def __init__(
        self,
        save_steps=None,
        save_secs=None,
        output_dir=None,
        summary_writer=None,
        scaffold=None,
        summary_op=None,
    ):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op, self._scaffold = summary_op, scaffold
        self._writer, self._output_dir = summary_writer, output_dir
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        if self._writer is None and self._output_dir:
            self._writer = _summary_writer(self._output_dir)
        self._next_step = None
        self._step = _global_step_read(self)

    def _summaries(self):
        op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if op is None:
            return None
        return op if isinstance(op, list) else [op]

    def before_run(self, run_context):
        self._request = self._next_step is None or self._timer.should_trigger_for_step(
            self._next_step
        )
        requests = {"global_step": self._step}
        if self._request and self._summaries() is not None:
            requests["summary"] = self._summaries()
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        if not self._writer:
            return
        step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request:
            step = run_context.session.run(self._step)
        if self._next_step is None:
            self._writer.add_session_log(
                event_pb2.SessionLog(status=event_pb2.SessionLog.START), step
            )
        if self._request:
            self._timer.update_last_triggered_step(step)
            for summary in run_values.results.get("summary", ()):
                self._writer.add_summary(summary, step)
        self._next_step = step + 1

    def end(self, session=None):
        if self._writer:
            self._writer.flush()


@tf_export("train.StepCounterHook")
class StepCounterHook(SessionRunHook):
    """Writes ``global_step/sec`` summaries every ``every_n_steps`` steps (or
    ``every_n_secs`` seconds)."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._writer, self._output_dir = summary_writer, output_dir

    def begin(self):
        if self._writer is None and self._output_dir:
            self._writer = _summary_writer(self._output_dir)
        self._step = _global_step_read(self)
        self._tag = training_util.get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        if self._timer.should_trigger_for_step(run_values.results + 1):
            step = run_context.session.run(self._step)
            if self._timer.should_trigger_for_step(step):
                elapsed, steps = self._timer.update_last_triggered_step(step)
                if elapsed is not None and self._writer is not None:
                    value = summary_pb2.Summary.Value(tag=self._tag, simple_value=steps / elapsed)
                    self._writer.add_summary(summary_pb2.Summary(value=[value]), step)
