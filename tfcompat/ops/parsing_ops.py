"""``tf.train.Example`` and its parts, as protos with TF's field numbers.

Only the proto classes are published here so far (``tf.train.Example``, ``Features``,
``Feature``, ``BytesList``, ``FloatList``, ``Int64List``, ``SequenceExample``,
``FeatureList``, ``FeatureLists``); the parsing ops (``ParseExampleV2``,
``ParseSingleExample``) and their feature specs are not implemented yet.
"""

from __future__ import annotations

from tfcompat.framework.proto import example_pb2, feature_pb2
from tfcompat.util.tf_export import export_constant

for _name, _proto in {
    "Example": example_pb2.Example,
    "SequenceExample": example_pb2.SequenceExample,
    "Features": feature_pb2.Features,
    "Feature": feature_pb2.Feature,
    "BytesList": feature_pb2.BytesList,
    "FloatList": feature_pb2.FloatList,
    "Int64List": feature_pb2.Int64List,
    "FeatureList": feature_pb2.FeatureList,
    "FeatureLists": feature_pb2.FeatureLists,
}.items():
    export_constant(_proto, f"train.{_name}")
