"""Kernel of ``DecodeCSV`` (a host op: this kernel is the implementation), with TF's field
syntax, its number parsers (those of ``StringToNumber``) and its errors, which name the
field and the record (the flat index into ``records``).

Records without a quote or a line end (the common case) are split with ``bytes.split``;
the others go through TF's field scanner, character by character.
"""

from __future__ import annotations

import numpy as np

from lowering.reference.strings import parse_float, parse_integer
from lowering.registry import reference
from tfcompat.framework import errors

_QUOTE, _LF, _CR = ord('"'), ord("\n"), ord("\r")
_SPACE = b" \t\n\r\f\v"
_TYPE_NAMES = {
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.int32): "int32",
    np.dtype(np.int64): "int64",
}


def _error(op, message):
    return errors.InvalidArgumentError(None, op, f"{message}\n\t [[{{{{node {op.name}}}}}]]")


def _scan(op, record: bytes, delim: int, use_quote: bool, select) -> list:
    """TF's field scanner: the fields of ``record`` (those in ``select``, if given)."""
    fields, pos, parsed, chosen, size = [], 0, 0, 0, len(record)
    if not size:
        return fields
    delim_byte = bytes([delim])
    while pos < size:
        char = record[pos]
        if char in (_LF, _CR):  # line ends between fields are skipped
            pos += 1
            continue
        include = select is None or select[chosen] == parsed
        if use_quote and char == _QUOTE:
            pos += 1
            body = bytearray()
            while pos < size - 1 and not (record[pos] == _QUOTE and record[pos + 1] == delim):
                if record[pos] != _QUOTE:
                    body.append(record[pos])
                    pos += 1
                elif record[pos + 1] == _QUOTE:
                    body.append(_QUOTE)
                    pos += 2
                else:
                    raise _error(op, "Quote inside a string has to be escaped by another quote")
            if not (
                pos < size
                and record[pos] == _QUOTE
                and (pos == size - 1 or record[pos + 1] == delim)
            ):
                raise _error(op, "Quoted field has to end with quote followed by delim or end")
            field, pos = bytes(body), pos + 2
        else:
            end = record.find(delim_byte, pos)
            end = size if end < 0 else end
            field = record[pos:end]
            if (use_quote and b'"' in field) or b"\n" in field or b"\r" in field:
                raise _error(op, "Unquoted fields cannot have quotes/CRLFs inside")
            pos = end + 1
        parsed += 1
        if include:
            fields.append(field)
            chosen += 1
            if select is not None and chosen == len(select):
                return fields
    if (select is None or (chosen < len(select) and select[chosen] == parsed)) and record[
        -1
    ] == delim:
        fields.append(b"")  # a final delimiter ends an empty last field
    return fields


def _fields(op, record: bytes, delim: int, use_quote: bool, select) -> list:
    if select is None and b'"' not in record and b"\n" not in record and b"\r" not in record:
        return record.split(bytes([delim])) if record else []
    return _scan(op, record, delim, use_quote, select)


def _convert(op, dtype, text: bytes, column: int, record: int):
    if dtype.kind == "O":
        return text
    value = (
        parse_float(text.strip(_SPACE))
        if dtype.kind == "f"
        else parse_integer(text.strip(_SPACE), dtype)
    )
    if value is None:
        raise _error(
            op,
            f"Field {column} in record {record} is not a valid {_TYPE_NAMES[dtype]}: "
            f"{text.decode('utf-8', 'replace')}",
        )
    return value


@reference("DecodeCSV")
def _decode_csv(ctx, op, records, *defaults):
    delim = op.attrs["field_delim"]
    delim = delim.encode() if isinstance(delim, str) else delim
    if len(delim) != 1:
        raise _error(op, "field_delim should be only 1 char")
    na_value = op.attrs["na_value"]
    na_value = na_value.encode() if isinstance(na_value, str) else na_value
    select = list(op.attrs["select_cols"]) or None
    use_quote = bool(op.attrs["use_quote_delim"])
    dtypes = [np.dtype(t.as_numpy_dtype) for t in op.attrs["OUT_TYPE"]]
    if select is not None and len(select) != len(dtypes):
        raise _error(
            op,
            "select_cols should match record_defaults. Got select_cols of length "
            f"{len(select)}, but record_defaults of length {len(dtypes)}.",
        )
    fill = []
    for column, default in enumerate(defaults):
        default = np.asarray(default)
        if default.ndim > 1:
            raise _error(op, "Each record default should be at most rank 1")
        if default.size > 1:
            raise _error(
                op,
                f"There should only be 1 default per field but field {column} has {default.size}",
            )
        fill.append(default.reshape(-1)[0] if default.size else None)
    records = np.asarray(records)
    flat = records.reshape(-1)
    columns = [[] for _ in dtypes]
    for index, record in enumerate(flat):
        record = record if isinstance(record, bytes) else str(record).encode()
        fields = _fields(op, record, delim[0], use_quote, select)
        if len(fields) != len(dtypes):
            raise _error(
                op, f"Expect {len(dtypes)} fields but have {len(fields)} in record {index}"
            )
        for column, (dtype, text) in enumerate(zip(dtypes, fields)):
            if not text or text == na_value:
                if fill[column] is None:
                    raise _error(op, f"Field {column} is required but missing in record {index}!")
                columns[column].append(fill[column])
            else:
                columns[column].append(_convert(op, dtype, text, column, index))
    out = []
    for dtype, values in zip(dtypes, columns):
        if dtype.kind == "O":
            array = np.empty(len(values), dtype=object)
            array[:] = values
        else:
            array = np.array(values, dtype=dtype).reshape(-1)
        out.append(array.reshape(records.shape))
    return tuple(out)
