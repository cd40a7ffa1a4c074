"""``tf.feature_column`` (TF1): columns that turn raw features into model inputs, and the
``input_layer`` / ``linear_model`` that consume them.

Modules by concept: ``feature_column`` (base classes, helpers, parse specs), ``state``
(transformation cache and StateManager), ``numeric``, ``categorical``, ``crossed``,
``embedding`` (embedding / shared embedding / indicator), ``sequence``, ``inputs`` (input_layer),
``linear`` (linear_model). Each publishes its names with ``@tf_export("feature_column.*")``.
"""

from tfcompat.feature_column import categorical as _categorical  # noqa: F401
from tfcompat.feature_column import crossed as _crossed  # noqa: F401
from tfcompat.feature_column import embedding as _embedding  # noqa: F401
from tfcompat.feature_column import feature_column as _base  # noqa: F401
from tfcompat.feature_column import inputs as _inputs  # noqa: F401
from tfcompat.feature_column import linear as _linear  # noqa: F401
from tfcompat.feature_column import numeric as _numeric  # noqa: F401
from tfcompat.feature_column import sequence as _sequence  # noqa: F401
from tfcompat.feature_column import state as _state  # noqa: F401
