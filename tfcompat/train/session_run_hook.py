"""``tf.train.SessionRunHook`` and the values it exchanges with a ``MonitoredSession``
(TF1): a hook may add fetches and feeds to every ``run`` (``before_run`` returns
``SessionRunArgs``), sees their values after it (``SessionRunValues``), and may ask the
loop to stop (``SessionRunContext.request_stop``)."""

from __future__ import annotations

import collections

from tfcompat.util.tf_export import tf_export


@tf_export("train.SessionRunHook")
class SessionRunHook:
    """Hooks into a MonitoredSession: ``begin`` (graph still open), ``after_create_session``,
    ``before_run`` / ``after_run`` around each run, ``end`` when the session closes."""

    def begin(self):
        pass

    def after_create_session(self, session, coord):
        pass

    def before_run(self, run_context):
        return None

    def after_run(self, run_context, run_values):
        pass

    def end(self, session):
        pass


@tf_export("train.SessionRunArgs")
class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a run: fetches (any structure), feeds and RunOptions."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


@tf_export("train.SessionRunValues")
class SessionRunValues(
    collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])
):
    """The values of a hook's fetches, and the run's options and metadata."""


@tf_export("train.SessionRunContext")
class SessionRunContext:
    """The run a hook takes part in: the caller's arguments, the session, a stop request."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        return self._original_args

    @property
    def session(self):
        return self._session

    @property
    def stop_requested(self):
        return self._stop_requested

    def request_stop(self):
        """Asks the monitored loop to stop (``should_stop`` turns True after this run)."""
        self._stop_requested = True
