"""``tf.layers`` pooling: ``MaxPooling1D/2D/3D``, ``AveragePooling1D/2D/3D`` and their
functional forms, building the ops TF 2.21's legacy layers build (``max_pooling2d/MaxPool``;
1-D pooling as ``ExpandDims`` + 2-D pool + ``Squeeze``; channels-first 1-D and 3-D inputs
transposed channels-last around the op, as Keras does on a CPU)."""

from __future__ import annotations

from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.layers import utils
from tfcompat.layers.base import InputSpec, Layer
from tfcompat.util.tf_export import tf_export


class _Pooling(Layer):
    """Pooling over ``rank`` spatial dimensions with windows ``pool_size`` moved by
    ``strides`` (default: ``pool_size``)."""

    rank = 2
    mode = "max"

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):  # fmt: skip
        super().__init__(name=name, **kwargs)
        if data_format is None:
            data_format = "channels_last"
        if strides is None:
            raise ValueError("Argument `strides` must not be None.")
        self.pool_size = utils.normalize_tuple(pool_size, self.rank, "pool_size")
        self.strides = utils.normalize_tuple(strides, self.rank, "strides", allow_zero=True)
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        first = self.data_format == "channels_first"
        spatial = dims[2:] if first else dims[1:-1]
        out = [
            utils.conv_output_length(length, self.pool_size[i], self.padding, self.strides[i])
            for i, length in enumerate(spatial)
        ]
        if first:
            return TensorShape(dims[:2] + out)
        return TensorShape([dims[0]] + out + [dims[-1]])


def _pool2d(x, mode, pool_size, strides, padding, data_format):
    """``tf.compat.v1.nn.max_pool`` / ``avg_pool`` channels-last (Keras's
    ``backend.pool2d`` on a CPU)."""
    from tfcompat.ops import array_ops, pooling_ops

    if data_format == "channels_first":
        x = array_ops.transpose(x, (0, 2, 3, 1))
    pool = pooling_ops.max_pool if mode == "max" else pooling_ops.avg_pool
    x = pool(x, (1,) + pool_size + (1,), (1,) + strides + (1,), padding=padding.upper(),
             data_format="NHWC")  # fmt: skip
    if data_format == "channels_first":
        x = array_ops.transpose(x, (0, 3, 1, 2))
    return x


class _Pooling1D(_Pooling):
    rank = 1

    def call(self, inputs):
        from tfcompat.ops import array_ops

        pad_axis = 2 if self.data_format == "channels_last" else 3
        inputs = array_ops.expand_dims(inputs, pad_axis)
        outputs = _pool2d(
            inputs, self.mode, self.pool_size + (1,), self.strides + (1,), self.padding,
            self.data_format,
        )  # fmt: skip
        return array_ops.squeeze(outputs, [pad_axis])


class _Pooling2D(_Pooling):
    rank = 2

    def call(self, inputs):
        from tfcompat.ops import pooling_ops

        if self.data_format == "channels_last":
            ksize, strides = (1,) + self.pool_size + (1,), (1,) + self.strides + (1,)
        else:
            ksize, strides = (1, 1) + self.pool_size, (1, 1) + self.strides
        pool = pooling_ops.max_pool if self.mode == "max" else pooling_ops.avg_pool
        return pool(
            inputs, ksize=ksize, strides=strides, padding=self.padding.upper(),
            data_format=utils.convert_data_format(self.data_format, 4),
        )  # fmt: skip


class _Pooling3D(_Pooling):
    rank = 3

    def call(self, inputs):
        from tfcompat.ops import array_ops, pooling_ops

        first = self.data_format == "channels_first"
        if first:
            inputs = array_ops.transpose(inputs, (0, 2, 3, 4, 1))
        pool = pooling_ops.max_pool3d if self.mode == "max" else pooling_ops.avg_pool3d
        outputs = pool(
            inputs, ksize=(1,) + self.pool_size + (1,), strides=(1,) + self.strides + (1,),
            padding=self.padding.upper(),
        )  # fmt: skip
        if first:
            outputs = array_ops.transpose(outputs, (0, 4, 1, 2, 3))
        return outputs


def _pooling_class(base, mode, export, doc):
    name = export.split(".")[-1]
    cls = type(name, (base,), {"mode": mode, "__doc__": doc, "__module__": __name__})
    return tf_export(export)(cls)


MaxPooling1D = _pooling_class(_Pooling1D, "max", "layers.MaxPooling1D", "1-D max pooling.")
MaxPooling2D = _pooling_class(_Pooling2D, "max", "layers.MaxPooling2D", "2-D max pooling.")
MaxPooling3D = _pooling_class(_Pooling3D, "max", "layers.MaxPooling3D", "3-D max pooling.")
AveragePooling1D = _pooling_class(
    _Pooling1D, "avg", "layers.AveragePooling1D", "1-D average pooling."
)
AveragePooling2D = _pooling_class(
    _Pooling2D, "avg", "layers.AveragePooling2D", "2-D average pooling."
)
AveragePooling3D = _pooling_class(
    _Pooling3D, "avg", "layers.AveragePooling3D", "3-D average pooling."
)
# TF's short aliases.
_ALIASES = {
    "MaxPool1D": MaxPooling1D,
    "MaxPool2D": MaxPooling2D,
    "MaxPool3D": MaxPooling3D,
    "AveragePool1D": AveragePooling1D,
    "AveragePool2D": AveragePooling2D,
    "AveragePool3D": AveragePooling3D,
}
for _alias, _cls in _ALIASES.items():
    tf_export(f"layers.{_alias}")(_cls)


def _functional(cls, export):
    def pooling(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                name=None):  # fmt: skip
        layer = cls(pool_size=pool_size, strides=strides, padding=padding,
                    data_format=data_format, name=name)  # fmt: skip
        return layer(inputs)

    pooling.__name__ = export.split(".")[-1]
    pooling.__doc__ = f"Functional ``{cls.__name__}``."
    return tf_export(export)(pooling)


max_pooling1d = _functional(MaxPooling1D, "layers.max_pooling1d")
max_pooling2d = _functional(MaxPooling2D, "layers.max_pooling2d")
max_pooling3d = _functional(MaxPooling3D, "layers.max_pooling3d")
average_pooling1d = _functional(AveragePooling1D, "layers.average_pooling1d")
average_pooling2d = _functional(AveragePooling2D, "layers.average_pooling2d")
average_pooling3d = _functional(AveragePooling3D, "layers.average_pooling3d")
