"""Kernels of the file readers (host ops: these kernels are the implementation).

A reader lives in the Session state under ``"reader:" + shared_name`` (or its node name).
It takes a file name from its queue (a dequeue: it blocks, and raises the queue's
OutOfRangeError once the queue is closed and empty) when it has no current file, reads the
file's records when it opens it, and hands them out one by one with TF's keys.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import threading

import numpy as np

from lowering.reference.data_flow import QueueHandle, _queue
from lowering.registry import reference
from tfcompat.framework import errors
from tfcompat.lib.io import tf_record


@dataclasses.dataclass(frozen=True)
class ReaderHandle:
    key: str
    op: object


class Reader:
    """The current file's records (key, value pairs) and TF's counters.

    TF's ReaderBase state machine: a reader notices that its file is exhausted only when it
    tries to read past the last record; it then counts the work unit completed, and a
    ``read_up_to`` that has records already returns them instead of opening the next file.
    """

    def __init__(self, records_of):
        self.records_of = records_of  # (op, file name) -> list of (key, value)
        self.lock = threading.Lock()  # queue runners may share one reader across threads
        self.reset()

    def reset(self):
        self.records, self.position = None, 0
        self.produced, self.completed = 0, 0

    def read_up_to(self, op, queue, num_records):
        out = []
        with self.lock:
            while len(out) < num_records:
                if self.records is None:
                    (element,) = queue.dequeue(op, 1)  # OutOfRangeError at the input's end
                    name = element[0][()]
                    name = name.decode() if isinstance(name, bytes) else str(name)
                    self.records, self.position = self.records_of(op, name), 0
                if self.position < len(self.records):
                    out.append(self.records[self.position])
                    self.position += 1
                    self.produced += 1
                else:
                    self.records = None
                    self.completed += 1
                    if out:
                        break
        return out


def _os_error(op, name, error: OSError):
    """TF's error class for a failed file operation; its message as TF's POSIX file
    system words it (``<path>; <strerror>``)."""
    if isinstance(error, PermissionError):
        cls = errors.PermissionDeniedError
    elif isinstance(error, (FileNotFoundError, NotADirectoryError)):
        cls = errors.NotFoundError
    elif isinstance(error, IsADirectoryError):
        cls = errors.FailedPreconditionError
    else:
        cls = errors.UnknownError
    return cls(None, op, f"{name}; {error.strerror}")


def _open(op, name):
    try:
        with open(name, "rb") as f:
            return f.read()
    except OSError as e:
        raise _os_error(op, name, e) from None


def _tf_records(compression):
    options = tf_record.TFRecordOptions(compression)

    def records_of(op, name):
        try:
            data = tf_record.read_file(name, options)
            return [
                (f"{name}:{offset}".encode(), record)
                for offset, record in tf_record.iter_records_with_offsets(data, name)
            ]
        except errors.OpError as e:
            raise type(e)(None, op, e.message) from None

    return records_of


def _text_lines(skip):
    def records_of(op, name):
        lines = _open(op, name).split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()  # the final line end ends the last line
        return [
            (f"{name}:{number}".encode(), line[:-1] if line.endswith(b"\r") else line)
            for number, line in enumerate(lines, 1)
            if number > skip
        ]

    return records_of


def _whole_file(op, name):
    return [(name.encode(), _open(op, name))]


def _make_reader(ctx, op, records_of):
    shared = op.attrs["shared_name"]
    shared = shared.decode() if isinstance(shared, bytes) else shared
    key = "reader:" + (shared or op.name)
    if key not in ctx.state:
        ctx.state[key] = Reader(records_of)
    return ReaderHandle(key, op)


@reference("TFRecordReaderV2")
def _tf_record_reader(ctx, op):
    compression = op.attrs["compression_type"]
    compression = compression.decode() if isinstance(compression, bytes) else compression
    return _make_reader(ctx, op, _tf_records(compression))


@reference("TextLineReaderV2")
def _text_line_reader(ctx, op):
    return _make_reader(ctx, op, _text_lines(op.attrs["skip_header_lines"]))


@reference("WholeFileReaderV2")
def _whole_file_reader(ctx, op):
    return _make_reader(ctx, op, _whole_file)


def _reader(ctx, op, handle) -> Reader:
    reader = ctx.state.get(handle.key) if isinstance(handle, ReaderHandle) else None
    if reader is None:
        raise errors.NotFoundError(None, op, f"Reader {handle!r} does not exist.")
    return reader


def _queue_of(ctx, op, queue_handle):
    if not isinstance(queue_handle, QueueHandle):
        raise errors.InvalidArgumentError(None, op, f"{queue_handle!r} is not a queue handle.")
    return _queue(ctx, op, queue_handle)


@reference("ReaderReadV2")
def _read(ctx, op, reader_handle, queue_handle):
    reader, queue = _reader(ctx, op, reader_handle), _queue_of(ctx, op, queue_handle)
    ((key, value),) = reader.read_up_to(op, queue, 1)
    return np.array(key, dtype=object), np.array(value, dtype=object)


@reference("ReaderReadUpToV2")
def _read_up_to(ctx, op, reader_handle, queue_handle, num_records):
    reader, queue = _reader(ctx, op, reader_handle), _queue_of(ctx, op, queue_handle)
    num_records = int(num_records)
    if num_records <= 0:
        raise errors.InvalidArgumentError(
            None, op, f"num_records must be positive, got {num_records}"
        )
    records = reader.read_up_to(op, queue, num_records)
    keys, values = np.empty(len(records), object), np.empty(len(records), object)
    keys[:] = [key for key, _ in records]
    values[:] = [value for _, value in records]
    return keys, values


@reference("ReaderNumRecordsProducedV2")
def _num_records(ctx, op, handle):
    return np.int64(_reader(ctx, op, handle).produced)


@reference("ReaderNumWorkUnitsCompletedV2")
def _num_work_units(ctx, op, handle):
    return np.int64(_reader(ctx, op, handle).completed)


@reference("ReaderResetV2")
def _reset(ctx, op, handle):
    _reader(ctx, op, handle).reset()


# ---------------------------------------------------------------------------------------------
# Whole files: ReadFile, WriteFile, MatchingFiles
# ---------------------------------------------------------------------------------------------
def _file_name(value) -> str:
    value = np.asarray(value).reshape(()).item() if np.ndim(value) == 0 else value
    return value.decode() if isinstance(value, bytes) else str(value)


@reference("ReadFile")
def _read_file(ctx, op, filename):
    return np.array(_open(op, _file_name(filename)), dtype=object)


@reference("WriteFile")
def _write_file(ctx, op, filename, contents):
    name = _file_name(filename)
    data = np.asarray(contents).reshape(()).item()
    data = data if isinstance(data, bytes) else str(data).encode()
    try:
        directory = os.path.dirname(name)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with open(name, "wb") as f:
            f.write(data)
    except OSError as e:
        raise _os_error(op, name, e) from None


@reference("MatchingFiles")
def _matching_files(ctx, op, pattern):
    names = set()
    for item in np.asarray(pattern, dtype=object).reshape(-1):
        # TF's glob matches names starting with '.' too.
        names.update(glob.glob(_file_name(item), include_hidden=True))
    out = np.empty(len(names), dtype=object)
    out[:] = [n.encode() for n in sorted(names)]
    return out
