"""``tf.layers``: TF1's layers (``Dense``, ``Conv2D``, ``BatchNormalization``...) and their
functional forms, with TF's variable scopes, variable names and op names."""

from tfcompat.layers.base import InputSpec, Layer  # noqa: F401
from tfcompat.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten  # noqa: F401
