"""``tf.train.MonitoredTrainingSession`` and ``MonitoredSession`` (TF1): a Session that
initialises or restores the model (``Scaffold``, ``ChiefSessionCreator``), runs hooks around
every ``run`` (``session_run_hook``), stops when a hook asks, and closes them in order.

``MonitoredTrainingSession`` adds TF's default hooks for a chief: step counting and
summaries into ``summary_dir`` (default ``checkpoint_dir``), checkpoints every
``save_checkpoint_secs`` (600) or ``save_checkpoint_steps``, and restores the latest
checkpoint of ``checkpoint_dir`` when there is one. The graph is finalized while the session
is open. There is one process here: no workers, masters or preemption recovery
(``is_chief=False`` is rejected). The graph's queue runners start with the session, under
its Coordinator.
"""

from __future__ import annotations

import logging

from tfcompat.client.config import RunMetadata, RunOptions
from tfcompat.framework import errors
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.graph import GraphKeys
from tfcompat.train import basic_session_run_hooks as hooks_lib
from tfcompat.train.coordinator import Coordinator
from tfcompat.train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues
from tfcompat.util.tf_export import tf_export

_logger = logging.getLogger("tfcompat")
_USE_DEFAULT = object()


@tf_export("train.Scaffold")
class Scaffold:
    """The ops a monitored session needs (init, local init, ready checks, summary op,
    saver): given, or found in their graph collections, or TF's defaults, when
    ``finalize`` runs (which also finalizes the graph)."""

    def __init__(
        self,
        init_op=None,
        init_feed_dict=None,
        init_fn=None,
        ready_op=None,
        ready_for_local_init_op=None,
        local_init_op=None,
        summary_op=None,
        saver=None,
        copy_from_scaffold=None,
        local_init_feed_dict=None,
    ):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            other = copy_from_scaffold

            def pick(mine, theirs):
                return mine if mine is not None else theirs

            init_op = pick(init_op, other.init_op)
            init_feed_dict = pick(init_feed_dict, other.init_feed_dict)
            init_fn = pick(init_fn, other._user_init_fn)
            ready_op = pick(ready_op, other.ready_op)
            ready_for_local_init_op = pick(ready_for_local_init_op, other.ready_for_local_init_op)
            local_init_op = pick(local_init_op, other.local_init_op)
            local_init_feed_dict = pick(local_init_feed_dict, other.local_init_feed_dict)
            summary_op = pick(summary_op, other.summary_op)
            saver = pick(saver, other.saver)
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op, self._init_feed_dict = init_op, init_feed_dict
        self._ready_op, self._ready_for_local_init_op = ready_op, ready_for_local_init_op
        self._local_init_op, self._local_init_feed_dict = local_init_op, local_init_feed_dict
        self._summary_op, self._saver = summary_op, saver

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The one item of ``collection_key``, else ``default_constructor()`` (added to it)."""
        graph = graph_lib.get_default_graph()
        items = graph.get_collection(collection_key)
        if items:
            if len(items) > 1:
                raise RuntimeError(
                    f'More than one item in the collection "{collection_key}". Please indicate '
                    "which one to use by passing it to the tf.Scaffold constructor as:  "
                    f"tf.Scaffold({arg_name}=item to use)"
                )
            return items[0]
        op = default_constructor()
        if op is not None:
            graph.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        import tfcompat

        return tfcompat.group(tfcompat.local_variables_initializer(), tfcompat.tables_initializer())

    def finalize(self):
        """Creates the missing ops and finalizes the graph."""
        import tfcompat

        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op",
                GraphKeys.INIT_OP,
                lambda: tfcompat.group(tfcompat.global_variables_initializer()),
            )
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op", GraphKeys.READY_OP, tfcompat.report_uninitialized_variables
            )
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op",
                GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: tfcompat.report_uninitialized_variables(tfcompat.global_variables()),
            )
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op
            )
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default(
                "summary_op", GraphKeys.SUMMARY_OP, tfcompat.summary.merge_all
            )
        if self._saver is None:
            self._saver = Scaffold.get_or_default(
                "saver",
                GraphKeys.SAVERS,
                lambda: tfcompat.train.Saver(sharded=True, allow_empty=True),
            )
        graph_lib.get_default_graph().finalize()
        return self

    init_fn = property(lambda self: self._init_fn)
    init_op = property(lambda self: self._init_op)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    local_init_op = property(lambda self: self._local_init_op)
    local_init_feed_dict = property(lambda self: self._local_init_feed_dict)
    summary_op = property(lambda self: self._summary_op)
    saver = property(lambda self: self._saver)
    init_feed_dict = property(lambda self: self._init_feed_dict)


@tf_export("train.SessionCreator")
class SessionCreator:
    """Makes the Session a MonitoredSession runs."""

    def create_session(self):
        raise NotImplementedError("create_session is not implemented for " + type(self).__name__)


@tf_export("train.WorkerSessionCreator")
class WorkerSessionCreator(SessionCreator):
    """A non-chief's Session: it waits (``max_wait_secs``) until the model is ready, as
    the chief initialises or restores it, then runs the local init op. Variables live in
    each Session here (there is no parameter server): a worker's model is ready only once
    its own Session's variables are initialised, as with TF's in-process runtime."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        from tfcompat.train import session_manager

        scaffold = self._scaffold.finalize()
        manager = session_manager.SessionManager(
            local_init_op=scaffold.local_init_op,
            local_init_feed_dict=scaffold.local_init_feed_dict,
            ready_op=scaffold.ready_op,
            ready_for_local_init_op=scaffold.ready_for_local_init_op,
        )
        return manager.wait_for_session(
            self._master, config=self._config, max_wait_secs=self._max_wait_secs
        )


@tf_export("train.ChiefSessionCreator")
class ChiefSessionCreator(SessionCreator):
    """A Session with the model restored from the latest checkpoint of ``checkpoint_dir``
    (or ``checkpoint_filename_with_path``), else initialised by the scaffold's init op and
    ``init_fn``; then the local init op; the ready op must then report nothing."""

    def __init__(
        self,
        scaffold=None,
        master="",
        config=None,
        checkpoint_dir=None,
        checkpoint_filename_with_path=None,
    ):
        self._scaffold = scaffold or Scaffold()
        self._config = config
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_path = checkpoint_filename_with_path

    def create_session(self):
        import tfcompat

        scaffold = self._scaffold.finalize()
        sess = tfcompat.Session(config=self._config)
        path = self._checkpoint_path
        if path is None and self._checkpoint_dir:
            path = tfcompat.train.latest_checkpoint(self._checkpoint_dir)
        if path:
            scaffold.saver.restore(sess, path)
        else:
            if scaffold.init_op is not None:
                sess.run(scaffold.init_op, feed_dict=scaffold.init_feed_dict)
            if scaffold.init_fn:
                scaffold.init_fn(sess)
        if scaffold.local_init_op is not None:
            sess.run(scaffold.local_init_op, feed_dict=scaffold.local_init_feed_dict)
        if scaffold.ready_op is not None:
            missing = sess.run(scaffold.ready_op)
            if missing.size:
                names = [m.decode() if isinstance(m, bytes) else str(m) for m in missing]
                raise RuntimeError(
                    f"Init operations did not make model ready.  Init op: "
                    f"{getattr(scaffold.init_op, 'name', None)}, init fn: {scaffold.init_fn}, "
                    f"error: Variables not initialized: {', '.join(names)}"
                )
        return sess


class _HookedRunner:
    """Runs the session with every hook's fetches and feeds added, then gives each hook
    its values; remembers a hook's stop request."""

    def __init__(self, sess, hooks):
        self.sess, self.hooks = sess, hooks
        self.stop_requested = False

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self.stop_requested:
            raise RuntimeError("Run called even after should_stop requested.")
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict), self.sess)
        all_fetches = {"caller": fetches}
        hook_feeds = {}
        # As TF's: hooks' RunOptions merge into the caller's (the larger trace level, ...)
        # and every run has a RunMetadata for hooks to read (ProfilerHook's traces).
        run_options = RunOptions()
        if options is not None:
            run_options.CopyFrom(options)
        for hook in self.hooks:
            request = hook.before_run(context)
            if request is None:
                continue
            if request.options is not None:
                _merge_run_options(run_options, request.options)
            if request.fetches is not None:
                all_fetches[hook] = request.fetches
            if request.feed_dict:
                _check_disjoint(hook_feeds, request.feed_dict, "Same tensor is fed by two hooks.")
                hook_feeds.update(request.feed_dict)
        if hook_feeds and feed_dict:
            _check_disjoint(
                feed_dict, hook_feeds, "Same tensor is fed by a SessionRunHook and user."
            )
        feeds = {**hook_feeds, **(feed_dict or {})} if hook_feeds else feed_dict
        if run_metadata is None:
            run_metadata = RunMetadata()
        outputs = self.sess.run(
            all_fetches, feed_dict=feeds, options=run_options, run_metadata=run_metadata
        )
        for hook in self.hooks:
            values = SessionRunValues(outputs.get(hook), run_options, run_metadata)
            hook.after_run(context, values)
        self.stop_requested = self.stop_requested or context.stop_requested
        return outputs["caller"]


def _merge_run_options(options, incoming):
    """TF's rule: each setting takes the larger of the two requests."""
    for field in (
        "trace_level",
        "timeout_in_ms",
        "inter_op_thread_pool",
        "output_partition_graphs",
        "report_tensor_allocations_upon_oom",
    ):
        setattr(options, field, max(getattr(options, field), getattr(incoming, field)))


def _check_disjoint(a, b, message):
    both = set(a) & set(b)
    if both:
        raise RuntimeError(f"{message} Conflict(s): {list(both)}")


class _MonitoredSession:
    """A session wrapped with hooks and a Coordinator (see the module docstring)."""

    def __init__(self, session_creator, hooks, stop_grace_period_secs=120):
        self._graph = graph_lib.get_default_graph()
        self._graph_was_finalized = self._graph.finalized
        self._hooks = list(hooks or [])
        self._grace = stop_grace_period_secs
        for hook in self._hooks:
            hook.begin()
        self._sess = (session_creator or ChiefSessionCreator()).create_session()
        self._coord = Coordinator(clean_stop_exception_types=[])
        if self._graph.get_collection(GraphKeys.QUEUE_RUNNERS):
            from tfcompat.train.coordinator import start_queue_runners

            start_queue_runners(sess=self._sess, coord=self._coord)
        for hook in self._hooks:
            hook.after_create_session(self._sess, self._coord)
        self._runner = _HookedRunner(self._sess, self._hooks)

    @property
    def graph(self):
        return None if self._sess is None else self._sess.graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs ``fetches`` with the hooks' fetches and feeds; returns the caller's values."""
        if self._sess is None:
            raise RuntimeError("Session is already closed.")
        try:
            return self._runner.run(fetches, feed_dict, options, run_metadata)
        except Exception:
            self._coord.raise_requested_exception()
            raise

    def should_stop(self):
        """Whether a hook (or the Coordinator) asked to stop, or the session is closed."""
        if self._sess is None:
            return True
        self._coord.raise_requested_exception()
        return self._runner.stop_requested or self._coord.should_stop()

    def close(self):
        self._close()

    def _close(self, exception_type=None):
        try:
            if not exception_type:
                for hook in self._hooks:
                    hook.end(self._sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._coord.request_stop()
                self._coord.join(stop_grace_period_secs=self._grace, ignore_live_threads=True)
                self._sess.close()
            finally:
                self._sess = None
                if not self._graph_was_finalized:
                    self._graph._unsafe_unfinalize()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close(exception_type)
        return exception_type is None


@tf_export("train.MonitoredSession")
class MonitoredSession(_MonitoredSession):
    """A Session with hooks: ``with MonitoredSession(creator, hooks) as s: while not
    s.should_stop(): s.run(...)``. OutOfRangeError or StopIteration in the block ends it
    cleanly."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, stop_grace_period_secs)


@tf_export("train.SingularMonitoredSession")
class SingularMonitoredSession(_MonitoredSession):
    """A MonitoredSession over a ChiefSessionCreator, with the raw session at hand."""

    def __init__(
        self,
        hooks=None,
        scaffold=None,
        master="",
        config=None,
        checkpoint_dir=None,
        stop_grace_period_secs=120,
        checkpoint_filename_with_path=None,
    ):
        creator = ChiefSessionCreator(
            scaffold=scaffold,
            master=master,
            config=config,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
        )
        super().__init__(creator, hooks, stop_grace_period_secs)

    def raw_session(self):
        return self._sess


@tf_export("train.MonitoredTrainingSession")
def MonitoredTrainingSession(  # noqa: N802 - TF's name
    master="",
    is_chief=True,
    checkpoint_dir=None,
    scaffold=None,
    hooks=None,
    chief_only_hooks=None,
    save_checkpoint_secs=_USE_DEFAULT,
    save_summaries_steps=_USE_DEFAULT,
    save_summaries_secs=_USE_DEFAULT,
    config=None,
    stop_grace_period_secs=120,
    log_step_count_steps=100,
    max_wait_secs=7200,
    save_checkpoint_steps=_USE_DEFAULT,
    summary_dir=None,
    save_graph_def=True,
):
    """A MonitoredSession for training with TF's default hooks (see the module docstring);
    ``hooks`` run after them."""
    if not is_chief:
        raise errors.UnimplementedError(
            None, None, "MonitoredTrainingSession(is_chief=False): tfcompat runs one process"
        )
    if save_summaries_steps is _USE_DEFAULT and save_summaries_secs is _USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is _USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is _USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is _USE_DEFAULT and save_checkpoint_secs is _USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is _USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is _USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    all_hooks = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(
                hooks_lib.StepCounterHook(
                    output_dir=summary_dir, every_n_steps=log_step_count_steps
                )
            )
        if (save_summaries_steps and save_summaries_steps > 0) or (
            save_summaries_secs and save_summaries_secs > 0
        ):
            all_hooks.append(
                hooks_lib.SummarySaverHook(
                    scaffold=scaffold,
                    save_steps=save_summaries_steps,
                    save_secs=save_summaries_secs,
                    output_dir=summary_dir,
                )
            )
    if checkpoint_dir and (
        (save_checkpoint_secs and save_checkpoint_secs > 0)
        or (save_checkpoint_steps and save_checkpoint_steps > 0)
    ):
        all_hooks.append(
            hooks_lib.CheckpointSaverHook(
                checkpoint_dir,
                save_steps=save_checkpoint_steps,
                save_secs=save_checkpoint_secs,
                scaffold=scaffold,
                save_graph_def=save_graph_def,
            )
        )
    all_hooks.extend(hooks or [])
    return MonitoredSession(creator, all_hooks, stop_grace_period_secs)
