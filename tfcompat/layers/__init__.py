"""``tf.layers``: TF1's layers (``Dense``, ``Conv2D``, ``BatchNormalization``...) and their
functional forms, with TF's variable scopes, variable names and op names."""

from tfcompat.layers.base import InputSpec, Layer  # noqa: F401
from tfcompat.layers.convolutional import (  # noqa: F401
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    SeparableConv2D,
    conv1d,
    conv2d,
    conv2d_transpose,
    conv3d,
    separable_conv2d,
)
from tfcompat.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten  # noqa: F401
from tfcompat.layers.normalization import BatchNormalization, batch_normalization  # noqa: F401
from tfcompat.layers.pooling import (  # noqa: F401
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
    average_pooling1d,
    average_pooling2d,
    average_pooling3d,
    max_pooling1d,
    max_pooling2d,
    max_pooling3d,
)
