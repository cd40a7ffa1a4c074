"""TFRecord files: ``tf.io.TFRecordWriter``, ``tf.io.tf_record_iterator`` and their options
(``tf.python_io`` too).

A file is a sequence of records, each framed as TensorFlow frames it:

    uint64 length (little-endian) | uint32 masked crc32c(length) | data | uint32 masked crc32c(data)

with TF's mask ``((crc >> 15) | (crc << 17)) + 0xa282ead8``. GZIP and ZLIB files are the same
byte stream compressed as a whole. A record whose checksum fails raises
``tf.errors.DataLossError`` ("corrupted record at OFFSET"), as does a record cut short
("truncated record at OFFSET"); both name the file. As in TF, fewer bytes than a header at
the end of a file are read as its end.
"""

from __future__ import annotations

import gzip
import struct
import zlib

import google_crc32c

from tfcompat.framework import errors
from tfcompat.util.tf_export import tf_export

_MASK_DELTA = 0xA282EAD8
_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")


def masked_crc32c(data: bytes) -> int:
    """crc32c of ``data``, rotated right by 15 bits plus TF's constant (mod 2**32)."""
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def encode_record(data: bytes) -> bytes:
    """One record framed for a TFRecord file."""
    length = struct.pack("<Q", len(data))
    return b"".join(
        (length, struct.pack("<I", masked_crc32c(length)), data, _FOOTER.pack(masked_crc32c(data)))
    )


@tf_export("io.TFRecordCompressionType", "python_io.TFRecordCompressionType")
class TFRecordCompressionType:
    """How a TFRecord file is compressed."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_COMPRESSION_NAMES = {
    TFRecordCompressionType.NONE: "",
    TFRecordCompressionType.ZLIB: "ZLIB",
    TFRecordCompressionType.GZIP: "GZIP",
}


@tf_export("io.TFRecordOptions", "python_io.TFRecordOptions")
class TFRecordOptions:
    """Options of TFRecord readers and writers: ``compression_type`` ("", "ZLIB", "GZIP" or a
    ``TFRecordCompressionType``) and zlib's ``compression_level`` / ``window_bits`` /
    ``mem_level`` / ``compression_strategy`` (buffer and flush settings are accepted)."""

    compression_type_map = {name: value for value, name in _COMPRESSION_NAMES.items()}

    def __init__(
        self,
        compression_type=None,
        flush_mode=None,
        input_buffer_size=None,
        output_buffer_size=None,
        window_bits=None,
        compression_level=None,
        compression_method=None,
        mem_level=None,
        compression_strategy=None,
    ):
        if compression_type is None:
            compression_type = ""
        if isinstance(compression_type, int):
            if compression_type not in _COMPRESSION_NAMES:
                raise ValueError(f'Not a valid compression_type: "{compression_type}"')
            compression_type = _COMPRESSION_NAMES[compression_type]
        if compression_type not in self.compression_type_map:
            raise ValueError(f'Not a valid compression_type: "{compression_type}"')
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """``options``' compression as "", "ZLIB" or "GZIP" (None: "")."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return TFRecordOptions(options).compression_type


def _options(options) -> TFRecordOptions:
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(options)


def _compressor(options: TFRecordOptions):
    """A zlib compressobj writing the file's format (zlib or gzip wrapper), or None."""
    if not options.compression_type:
        return None
    level = zlib.Z_DEFAULT_COMPRESSION
    if options.compression_level is not None and options.compression_level != -1:
        level = options.compression_level
    bits = options.window_bits or zlib.MAX_WBITS
    wbits = bits + 16 if options.compression_type == "GZIP" else bits
    return zlib.compressobj(
        level,
        zlib.DEFLATED,
        wbits,
        options.mem_level or 8,
        options.compression_strategy or zlib.Z_DEFAULT_STRATEGY,
    )


@tf_export("io.TFRecordWriter", "python_io.TFRecordWriter")
class TFRecordWriter:
    """Writes records to a TFRecord file (a context manager)."""

    def __init__(self, path, options=None):
        self._path = path
        self._options = _options(options)
        self._compressor = _compressor(self._options)
        try:
            self._file = open(path, "wb")
        except OSError as e:
            raise errors.NotFoundError(None, None, f"{path}; {e.strerror}") from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _put(self, data: bytes):
        if self._compressor is not None:
            data = self._compressor.compress(data)
        self._file.write(data)

    def write(self, record):
        """Appends one record (bytes, or str as UTF-8)."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "File is closed")
        if isinstance(record, str):
            record = record.encode("utf-8")
        self._put(encode_record(bytes(record)))

    def flush(self):
        """Writes buffered data to the file (a full flush of the compressed stream)."""
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_FULL_FLUSH))
        self._file.flush()

    def close(self):
        if self._file is None:
            return
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_FINISH))
        self._file.close()
        self._file = None


def read_file(path, options: TFRecordOptions) -> bytes:
    """The file's bytes, decompressed as ``options`` say."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise errors.NotFoundError(None, None, f"{path}; {e.strerror}") from None
    try:
        if options.compression_type == "GZIP":
            return gzip.decompress(data)
        if options.compression_type == "ZLIB":
            return zlib.decompress(data)
    except (OSError, zlib.error, EOFError) as e:
        raise errors.DataLossError(None, None, f"{path}: {e}") from None
    return data


def iter_records(data: bytes, path: str = "<memory>"):
    """Yields the records of an uncompressed TFRecord byte stream, checking checksums."""
    for _, record in iter_records_with_offsets(data, path):
        yield record


def iter_records_with_offsets(data: bytes, path: str = "<memory>"):
    """Yields ``(offset, record)``: each record with the byte offset of its header (the
    position TF's TFRecordReader names in its keys)."""
    offset, end = 0, len(data)
    while offset < end:
        if end - offset < _HEADER.size:
            return  # TF reads a partial header at the end as the end of the file
        length, length_crc = _HEADER.unpack_from(data, offset)
        if masked_crc32c(data[offset : offset + 8]) != length_crc:
            hint = " (Is this even a TFRecord file?)" if offset == 0 else ""
            raise _loss(f"corrupted record at {offset}{hint}", path)
        start = offset + _HEADER.size
        stop = start + length
        if stop + _FOOTER.size > end:
            raise _loss(f"truncated record at {offset}", path)
        record = data[start:stop]
        if masked_crc32c(record) != _FOOTER.unpack_from(data, stop)[0]:
            raise _loss(f"corrupted record at {start}", path)
        yield offset, record
        offset = stop + _FOOTER.size


def _loss(message, path):
    return errors.DataLossError(None, None, f"{message} in file {path}")


@tf_export("io.tf_record_iterator", "python_io.tf_record_iterator")
def tf_record_iterator(path, options=None):
    """Yields the records of the TFRecord file ``path`` as bytes."""
    options = _options(options)
    yield from iter_records(read_file(path, options), path)
