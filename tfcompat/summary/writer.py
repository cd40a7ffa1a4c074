"""``tf.summary.FileWriter``: ``tf.Event`` records in an events file, as TF writes them.

The file is ``<logdir>/events.out.tfevents.<10-digit seconds>.<hostname><suffix>``, TFRecord
framed (``tfcompat/lib/io/tf_record.py``); its first record names the format
(``brain.Event:2``). ``add_summary`` takes a serialized ``tf.Summary`` (what a summary op
fetches) or the proto, ``add_graph`` the GraphDef (with shapes) and, as TF, the graph's
MetaGraphDef. TF queues events to a background thread that flushes every ``flush_secs``;
here events are buffered in the file object and flushed every ``max_queue`` events, after
``flush_secs`` or on ``flush``/``close``.
"""

from __future__ import annotations

import os
import socket
import time

from tfcompat.framework.proto import event_pb2, summary_pb2
from tfcompat.lib.io.tf_record import TFRecordWriter, tf_record_iterator
from tfcompat.util.tf_export import tf_export

_FILE_VERSION = "brain.Event:2"


@tf_export("summary.FileWriter")
class FileWriter:
    """Writes ``tf.Event`` protos (summaries, graphs, session logs) to an events file in
    ``logdir`` (created if missing)."""

    def __init__(
        self,
        logdir,
        graph=None,
        max_queue=10,
        flush_secs=120,
        graph_def=None,
        filename_suffix=None,
        session=None,
    ):
        if session is not None:
            raise NotImplementedError("FileWriter(session=...) writes through TF2 summary ops")
        self._logdir = str(logdir)
        self._max_queue, self._flush_secs = max_queue, flush_secs
        self._suffix = filename_suffix or ""
        self._seen_summary_tags = set()
        self._run_metadata_tags = set()
        self._writer = None
        self._closed = False
        self._open()
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)
            if graph is not None:
                from tfcompat.framework import meta_graph

                self.add_meta_graph(meta_graph.create_meta_graph_def(graph=graph))

    def _open(self):
        os.makedirs(self._logdir, exist_ok=True)
        now = time.time()
        name = f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}{self._suffix}"
        self._path = os.path.join(self._logdir, name)
        self._writer = TFRecordWriter(self._path)
        self._pending, self._last_flush = 0, now
        self._write(event_pb2.Event(wall_time=now, file_version=_FILE_VERSION))
        self._closed = False

    def get_logdir(self):
        """The directory the events file is in."""
        return self._logdir

    def add_event(self, event):
        """Writes ``event`` (a ``tf.Event``) as given."""
        if not self._closed:
            self._write(event)

    def _write(self, event):
        self._writer.write(event.SerializeToString())
        self._pending += 1
        if self._pending >= self._max_queue or time.time() - self._last_flush >= self._flush_secs:
            self.flush()

    def _add_event(self, event, step):
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.add_event(event)

    def add_summary(self, summary, global_step=None):
        """Writes a ``tf.Summary`` (or its serialization, a summary op's value) at
        ``global_step``. A value's metadata is kept only the first time its tag is seen."""
        if isinstance(summary, bytes):
            summary = summary_pb2.Summary.FromString(summary)
        elif not isinstance(summary, summary_pb2.Summary):
            summary = summary_pb2.Summary.FromString(summary.SerializeToString())
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
                continue
            self._seen_summary_tags.add(value.tag)
        self._add_event(event_pb2.Event(summary=summary), global_step)

    def add_session_log(self, session_log, global_step=None):
        """Writes a ``tf.SessionLog`` (START, STOP, CHECKPOINT) at ``global_step``."""
        log = event_pb2.SessionLog.FromString(session_log.SerializeToString())
        self._add_event(event_pb2.Event(session_log=log), global_step)

    def add_graph(self, graph=None, global_step=None, graph_def=None):
        """Writes ``graph``'s GraphDef (with ``_output_shapes``), or ``graph_def``."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if graph is not None:
            graph_def = graph.as_graph_def(add_shapes=True)
        if graph_def is None:
            raise TypeError("graph must be of type tf.Graph.")
        event = event_pb2.Event(graph_def=graph_def.SerializeToString())
        self._add_event(event, global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Writes a traced run's ``tf.RunMetadata`` under ``tag`` (once per tag, as TF)."""
        if tag in self._run_metadata_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._run_metadata_tags.add(tag)
        tagged = event_pb2.TaggedRunMetadata(tag=tag, run_metadata=run_metadata.SerializeToString())
        self._add_event(event_pb2.Event(tagged_run_metadata=tagged), global_step)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Writes a MetaGraphDef (TensorBoard's graph view reads its collections too)."""
        event = event_pb2.Event(meta_graph_def=meta_graph_def.SerializeToString())
        self._add_event(event, global_step)

    def flush(self):
        """Writes the buffered events to disk."""
        if self._writer is not None and not self._closed:
            self._writer.flush()
            self._pending, self._last_flush = 0, time.time()

    def close(self):
        """Flushes and closes the file; ``reopen`` starts a new one."""
        if not self._closed:
            self._writer.close()
            self._closed = True

    def reopen(self):
        """Opens a new events file after ``close``."""
        if self._closed:
            self._open()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@tf_export("train.summary_iterator")
def summary_iterator(path):
    """The ``tf.Event`` protos of the events file ``path``, in order."""
    for record in tf_record_iterator(path):
        yield event_pb2.Event.FromString(record)


tf_export("Summary", "summary.Summary")(summary_pb2.Summary)
tf_export("HistogramProto")(summary_pb2.HistogramProto)
tf_export("SummaryMetadata", "summary.SummaryMetadata")(summary_pb2.SummaryMetadata)
tf_export("Event", "summary.Event")(event_pb2.Event)
tf_export("SessionLog", "summary.SessionLog")(event_pb2.SessionLog)


@tf_export("summary.FileWriterCache")
class FileWriterCache:
    """One FileWriter per log directory (made with the default graph), shared by hooks."""

    _cache: dict = {}

    @staticmethod
    def get(logdir):
        from tfcompat.framework import graph as graph_lib

        writer = FileWriterCache._cache.get(logdir)
        if writer is None:
            writer = FileWriter(logdir, graph=graph_lib.get_default_graph())
            FileWriterCache._cache[logdir] = writer
        return writer

    @staticmethod
    def clear():
        """Closes and forgets every cached writer."""
        for writer in FileWriterCache._cache.values():
            writer.close()
        FileWriterCache._cache.clear()
