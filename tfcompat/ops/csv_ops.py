"""``tf.decode_csv`` / ``tf.io.decode_csv``: TF's ``DecodeCSV``, a host op (kernel in
``lowering/reference/csv.py``). Each string of ``records`` is one CSV line; output ``i`` has
``records``' shape and the type of ``record_defaults[i]``, whose one value (if any) fills
empty fields; a default with no value makes the column required."""

from __future__ import annotations

from tfcompat.framework.gradient_registry import no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.util.tf_export import tf_export


def _decode_csv_shape(op):
    for index, default in enumerate(op.inputs[1:]):
        shape = default.shape
        if shape.rank is not None and shape.rank > 1:
            raise ValueError(
                f"Shape must be at most rank 1 but is rank {shape.rank} for "
                f"'{{{{node {op.name}}}}} = DecodeCSV[...]' (input {index + 1})"
            )
        if shape.rank == 1 and shape.dims[0].value is not None and shape.dims[0].value > 1:
            raise ValueError(
                "Shape of a default must be a length-0 or length-1 vector, or a scalar."
            )
    return [op.inputs[0].shape] * (len(op.inputs) - 1)


register_op(
    "DecodeCSV",
    inputs=["records: string", "record_defaults: OUT_TYPE"],
    outputs=["output: OUT_TYPE"],
    attrs=[
        "OUT_TYPE: list({float, double, int32, int64, string}) >= 1",
        "field_delim: string = ','",
        "use_quote_delim: bool = true",
        "na_value: string = ''",
        "select_cols: list(int) = []",
    ],
    shape_fn=_decode_csv_shape,
    host=True,
)
no_gradient("DecodeCSV")


@tf_export("decode_csv", "io.decode_csv")
def decode_csv(
    records,
    record_defaults,
    field_delim=",",
    use_quote_delim=True,
    name=None,
    na_value="",
    select_cols=None,
):
    """Converts CSV records to one tensor per column (TF1's signature).

    ``record_defaults``: one tensor per column (a scalar or a vector of at most one value,
    of the column's type: float32, float64, int32, int64 or string); an empty default
    makes the column required. ``select_cols``: strictly increasing column indices to keep
    (one default per selected column). Quoted fields (``use_quote_delim``) may hold the
    delimiter, with ``""`` for a quote; fields equal to ``na_value`` take the default.
    """
    if select_cols is not None and any(
        select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)
    ):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols is not None and select_cols[0] < 0:
        raise ValueError("select_cols contains negative values.")
    if select_cols is not None and len(select_cols) != len(record_defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    op = apply_op(
        "DecodeCSV",
        name=name,
        records=records,
        record_defaults=list(record_defaults),
        field_delim=field_delim,
        use_quote_delim=use_quote_delim,
        na_value=na_value,
        select_cols=list(select_cols or []),
    )
    return list(op.outputs)
