"""``tf.summary`` (TF1): summary ops (``tfcompat/ops/summary_ops.py``) and ``FileWriter``,
which writes them to an events file TensorBoard reads."""

from tfcompat.summary.writer import FileWriter, FileWriterCache, summary_iterator  # noqa: F401
