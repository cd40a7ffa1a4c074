"""``tf.compat``: ``v1`` (this same TF1 API) and the bytes/str helpers."""

from __future__ import annotations


def as_bytes(bytes_or_text, encoding="utf-8"):
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8"):
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text
as_str_any = lambda value: value.decode() if isinstance(value, bytes) else str(value)  # noqa: E731


def __getattr__(name):
    if name == "v1":
        # import_module, not ``from tfcompat.compat import v1``: the from-import asks this
        # module for ``v1`` first, which would call back into this __getattr__ forever.
        import importlib

        return importlib.import_module("tfcompat.compat.v1")
    raise AttributeError(name)
