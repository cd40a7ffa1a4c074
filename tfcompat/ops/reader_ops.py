"""TF1's file readers: ``tf.TFRecordReader``, ``tf.TextLineReader`` and
``tf.WholeFileReader`` (TF's ``*ReaderV2`` ops and ``ReaderReadV2`` / ``ReaderReadUpToV2``):
``reader.read(filename_queue)`` takes file names from a queue (typically
``tf.train.string_input_producer``'s) and returns one record (key, value) per run.

Readers live in the Session state like queues and run on the host
(``lowering/reference/readers.py``); keys are TF's: ``file:offset`` for TFRecords,
``file:line`` for text lines, the file name for whole files.
"""

from __future__ import annotations

from tfcompat.framework import tensor_shape
from tfcompat.framework.gradient_registry import no_gradient
from tfcompat.framework.op_def import register_op as _register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.util.tf_export import tf_export

_SCALAR = tensor_shape.scalar()
_SHARING = ["container: string = ''", "shared_name: string = ''"]


def _register(name, **kwargs):
    _register_op(name, host=True, is_stateful=True, **kwargs)
    no_gradient(name)


_register(
    "TFRecordReaderV2",
    outputs=["reader_handle: resource"],
    attrs=[*_SHARING, "compression_type: string = ''"],
    shape_fn=lambda op: [_SCALAR],
)
_register(
    "TextLineReaderV2",
    outputs=["reader_handle: resource"],
    attrs=["skip_header_lines: int = 0", *_SHARING],
    shape_fn=lambda op: [_SCALAR],
)
_register(
    "WholeFileReaderV2",
    outputs=["reader_handle: resource"],
    attrs=_SHARING,
    shape_fn=lambda op: [_SCALAR],
)
_register(
    "ReaderReadV2",
    inputs=["reader_handle: resource", "queue_handle: resource"],
    outputs=["key: string", "value: string"],
    shape_fn=lambda op: [_SCALAR, _SCALAR],
)
_register(
    "ReaderReadUpToV2",
    inputs=["reader_handle: resource", "queue_handle: resource", "num_records: int64"],
    outputs=["keys: string", "values: string"],
    shape_fn=lambda op: [tensor_shape.TensorShape([None])] * 2,
)
for _op_type in ("ReaderNumRecordsProducedV2", "ReaderNumWorkUnitsCompletedV2"):
    _register(
        _op_type,
        inputs=["reader_handle: resource"],
        outputs=["records_produced: int64" if "Records" in _op_type else "units_completed: int64"],
        shape_fn=lambda op: [_SCALAR],
    )
_register("ReaderResetV2", inputs=["reader_handle: resource"], shape_fn=lambda op: [])


class ReaderBase:
    """A reader of records from the files named in a queue."""

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self):
        return self._reader_ref

    @property
    def supports_serialize(self):
        return self._supports_serialize

    @staticmethod
    def _queue_ref(queue):
        return queue if hasattr(queue, "op") else queue.queue_ref

    def read(self, queue, name=None):
        """The next record as ``(key, value)`` strings; opens the next file of ``queue``
        when the current one is done."""
        op = apply_op(
            "ReaderReadV2",
            name=name,
            reader_handle=self._reader_ref,
            queue_handle=self._queue_ref(queue),
        )
        return op.outputs[0], op.outputs[1]

    def read_up_to(self, queue, num_records, name=None):
        """Up to ``num_records`` records (fewer at the end of the input) as two vectors."""
        op = apply_op(
            "ReaderReadUpToV2",
            name=name,
            reader_handle=self._reader_ref,
            queue_handle=self._queue_ref(queue),
            num_records=num_records,
        )
        return op.outputs[0], op.outputs[1]

    def num_records_produced(self, name=None):
        return apply_op(
            "ReaderNumRecordsProducedV2", name=name, reader_handle=self._reader_ref
        ).outputs[0]

    def num_work_units_completed(self, name=None):
        return apply_op(
            "ReaderNumWorkUnitsCompletedV2", name=name, reader_handle=self._reader_ref
        ).outputs[0]

    def reset(self, name=None):
        return apply_op("ReaderResetV2", name=name, reader_handle=self._reader_ref)


tf_export("ReaderBase")(ReaderBase)


@tf_export("TFRecordReader")
class TFRecordReader(ReaderBase):
    """Reads the records of TFRecord files (``options``: their compression)."""

    def __init__(self, name=None, options=None):
        from tfcompat.lib.io.tf_record import TFRecordOptions

        compression_type = TFRecordOptions.get_compression_type_string(options)
        ref = apply_op("TFRecordReaderV2", name=name, compression_type=compression_type)
        super().__init__(ref.outputs[0])


@tf_export("TextLineReader")
class TextLineReader(ReaderBase):
    """Reads the lines of text files (without their line ends), after
    ``skip_header_lines`` lines of each file."""

    def __init__(self, skip_header_lines=None, name=None):
        ref = apply_op("TextLineReaderV2", name=name, skip_header_lines=skip_header_lines or 0)
        super().__init__(ref.outputs[0])


@tf_export("WholeFileReader")
class WholeFileReader(ReaderBase):
    """Reads each file whole: key the file name, value its contents."""

    def __init__(self, name=None):
        super().__init__(apply_op("WholeFileReaderV2", name=name).outputs[0], True)
