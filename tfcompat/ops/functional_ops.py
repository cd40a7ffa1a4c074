"""``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr`` (TF1): ``tf.while_loop`` over
TensorArrays, built as TF 2.21 builds them in graph mode, with TF's node names.

Each unstacks its ``elems`` into TensorArrays (``map/TensorArray``, ``.../TensorArrayUnstack``),
runs a loop whose body reads element ``i`` and, for ``map_fn`` and ``scan``, writes each
result into an output TensorArray stacked after the loop; ``maximum_iterations`` is the
element count, as in TF. The lowering turns the loop into one ``lax.while_loop`` inside the
step and gradients flow through it as through any v1 loop.

Elements are dense Tensors (nested structures of them); TF's ragged and sparse element
specs (``fn_output_signature`` of a ``RaggedTensorSpec``...) are not supported. TF sets a
caching device on the variable scope while ``fn`` runs (reads of variables ``fn`` creates
happen once per device); placement is XLA's here, so it is not set.
"""

from __future__ import annotations

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.constant_op import constant
from tfcompat.framework.graph import get_default_graph
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.ops import array_ops, tensor_array_ops
from tfcompat.ops import control_flow_nest as nest
from tfcompat.ops import while_loop as while_lib
from tfcompat.util.tf_export import tf_export


def _check_callable(fn, what="The provided function"):
    if not callable(fn):
        raise TypeError(f"{what} {getattr(fn, '__name__', fn)} is not callable.")


def _length(first):
    """The static length of ``first``'s leading dimension, else its ``Shape()[0]``."""
    n = tensor_shape.dimension_value(first.shape[0]) if first.shape.rank else None
    return n if n is not None else array_ops.shape(first)[0]


def _dtype_spec(dtype):
    """``(dtype, element shape)`` of an output from a ``dtype`` / ``fn_output_signature``
    entry (a DType or a TensorSpec-like object with ``dtype`` and ``shape``)."""
    if hasattr(dtype, "dtype") and hasattr(dtype, "shape"):
        return dtypes.as_dtype(dtype.dtype), tensor_shape.as_shape(dtype.shape)
    return dtypes.as_dtype(dtype), tensor_shape.unknown_shape()


@tf_export("map_fn")
def map_fn(
    fn,
    elems,
    dtype=None,
    parallel_iterations=None,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    name=None,
    fn_output_signature=None,
):
    """Applies ``fn`` to each element of ``elems`` (unpacked along dimension 0) and stacks
    the results. ``fn_output_signature`` (or the deprecated ``dtype``) gives the result
    structure when it differs from ``elems``'s."""
    if fn_output_signature is None:
        fn_output_signature = dtype
    if not callable(fn):
        raise TypeError(
            f"The provided function {getattr(fn, '__name__', fn)} is not callable.fn must "
            "be callable."
        )
    parallel_iterations = parallel_iterations or 10
    elems_flat = nest.flatten(elems)
    if not elems_flat:
        raise ValueError(
            "elems must be a Tensor or (possibly nested) sequence of Tensors. Got "
            f"{elems}, which does not contain any Tensors."
        )
    graph = get_default_graph()
    with graph.name_scope(name or "map"):
        elems_flat = [convert_to_tensor(t, name="elem") for t in elems_flat]
        first = elems_flat[0]
        if first.shape.rank is not None and first.shape.rank < 1:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        n_static = tensor_shape.Dimension(
            tensor_shape.dimension_value(first.shape.with_rank_at_least(1)[0])
        )
        for t in elems_flat[1:]:
            n_static.assert_is_compatible_with(
                tensor_shape.Dimension(
                    tensor_shape.dimension_value(t.shape.with_rank_at_least(1)[0])
                )
            )
        n = n_static.value if n_static.value is not None else array_ops.shape(first)[0]
        elems_ta = [
            tensor_array_ops.TensorArray(
                dtype=t.dtype, size=n, dynamic_size=False, infer_shape=True
            )
            for t in elems_flat
        ]
        elems_ta = [ta.unstack(t) for ta, t in zip(elems_ta, elems_flat)]
        i = constant(0)
        if fn_output_signature is None:
            # TF's most general spec of each element: its dtype, any shape.
            specs = [(t.dtype, tensor_shape.unknown_shape()) for t in elems_flat]
            result_structure = elems
        else:
            specs = [_dtype_spec(d) for d in nest.flatten(fn_output_signature)]
            result_structure = fn_output_signature
        accs_ta = [
            tensor_array_ops.TensorArray(
                dtype=dtype_,
                size=n,
                dynamic_size=False,
                infer_shape=infer_shape,
                element_shape=shape,
            )
            for dtype_, shape in specs
        ]

        def compute(i, tas):
            values = nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_ta])
            result = fn(values)
            nest.assert_same_structure(result_structure, result)
            flat = [convert_to_tensor(v) for v in nest.flatten(result)]
            return (i + 1, [ta.write(i, v) for ta, v in zip(tas, flat)])

        _, r_a = while_lib.while_loop(
            lambda i, _: i < n,
            compute,
            (i, accs_ta),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        results = [r.stack() for r in r_a]
        for r in results:
            r.set_shape(tensor_shape.TensorShape([n_static]).concatenate(r.shape[1:]))
        return nest.pack_sequence_as(result_structure, results)


@tf_export("scan")
def scan(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    reverse=False,
    name=None,
):
    """The successive values of ``a = fn(a, x)`` over the elements ``x`` of ``elems``
    (from the last one if ``reverse``), starting from ``initializer`` or from the first
    element."""
    _check_callable(fn)
    input_is_sequence = nest.is_nested(elems)

    def input_flatten(x):
        return nest.flatten(x) if input_is_sequence else [x]

    def input_pack(x):
        return nest.pack_sequence_as(elems, x) if input_is_sequence else x[0]

    if initializer is None:
        output_is_sequence, output_flatten, output_pack = (
            input_is_sequence,
            input_flatten,
            input_pack,
        )
    else:
        output_is_sequence = nest.is_nested(initializer)

        def output_flatten(x):
            return nest.flatten(x) if output_is_sequence else [x]

        def output_pack(x):
            return nest.pack_sequence_as(initializer, x) if output_is_sequence else x[0]

    graph = get_default_graph()
    with graph.name_scope(name or "scan"):
        elems_flat = [convert_to_tensor(e, name="elem") for e in input_flatten(elems)]
        n = _length(elems_flat[0])
        elems_ta = [
            tensor_array_ops.TensorArray(
                dtype=e.dtype,
                size=n,
                dynamic_size=False,
                element_shape=e.shape[1:],
                infer_shape=True,
            )
            for e in elems_flat
        ]
        elems_ta = [ta.unstack(e) for ta, e in zip(elems_ta, elems_flat)]
        if initializer is None:
            a_flat = [ta.read(n - 1 if reverse else 0) for ta in elems_ta]
            i = 1
        else:
            a_flat = [convert_to_tensor(init) for init in output_flatten(initializer)]
            i = 0
        accs_ta = [
            tensor_array_ops.TensorArray(
                dtype=init.dtype,
                size=n,
                element_shape=init.shape if infer_shape else None,
                dynamic_size=False,
                infer_shape=infer_shape,
            )
            for init in a_flat
        ]
        if initializer is None:
            accs_ta = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs_ta, a_flat)]

        def compute(i, a_flat, tas):
            packed_elems = input_pack([ta.read(i) for ta in elems_ta])
            a_out = fn(output_pack(a_flat), packed_elems)
            nest.assert_same_structure(elems if initializer is None else initializer, a_out)
            flat_a_out = output_flatten(a_out)
            tas = [ta.write(i, value) for ta, value in zip(tas, flat_a_out)]
            return (i - 1 if reverse else i + 1, flat_a_out, tas)

        if reverse:
            initial_i = n - 1 - i

            def condition(i, _1, _2):
                return i >= 0

        else:
            initial_i = i

            def condition(i, _1, _2):
                return i < n

        _, _, r_a = while_lib.while_loop(
            condition,
            compute,
            (initial_i, a_flat, accs_ta),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        results = [r.stack() for r in r_a]
        n_static = tensor_shape.Dimension(
            tensor_shape.dimension_value(elems_flat[0].shape.with_rank_at_least(1)[0])
        )
        for e in elems_flat[1:]:
            n_static.assert_is_compatible_with(
                tensor_shape.Dimension(
                    tensor_shape.dimension_value(e.shape.with_rank_at_least(1)[0])
                )
            )
        for r in results:
            r.set_shape(tensor_shape.TensorShape([n_static]).concatenate(r.shape[1:]))
        return output_pack(results)


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, reverse):
    _check_callable(fn)
    graph = get_default_graph()
    with graph.name_scope(name or ("foldr" if reverse else "foldl")):
        elems_flat = [convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
        n = _length(elems_flat[0])

        def create_ta(elem):
            return tensor_array_ops.TensorArray(
                dtype=elem.dtype, size=n, dynamic_size=False, infer_shape=True
            ).unstack(elem)

        elems_ta = nest.pack_sequence_as(elems, [create_ta(e) for e in elems_flat])
        if reverse:
            if initializer is None:
                i = n - 1
                a = nest.map_structure(lambda ta: ta.read(i), elems_ta)
            else:
                i, a = n, initializer

            def compute(i, a):
                i -= 1
                return [i, fn(a, nest.map_structure(lambda ta: ta.read(i), elems_ta))]

            condition = lambda i, a: i > 0  # noqa: E731 - TF's lambda (node names follow it)
        else:
            if initializer is None:
                a = nest.map_structure(lambda ta: ta.read(0), elems_ta)
                i = constant(1)
            else:
                a, i = initializer, constant(0)

            def compute(i, a):
                a_out = fn(a, nest.map_structure(lambda ta: ta.read(i), elems_ta))
                return [i + 1, a_out]  # fn's ops first, as TF orders (and names) them

            condition = lambda i, a: i < n  # noqa: E731
        _, r_a = while_lib.while_loop(
            condition,
            compute,
            [i, a],
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        return r_a


@tf_export("foldl")
def foldl(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
):
    """``a = fn(a, x)`` over the elements of ``elems`` from the first; returns the last
    ``a`` (starting from ``initializer``, else from the first element)."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, False)


@tf_export("foldr")
def foldr(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
):
    """``a = fn(a, x)`` over the elements of ``elems`` from the last; returns the last
    ``a`` (starting from ``initializer``, else from the last element)."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, True)
