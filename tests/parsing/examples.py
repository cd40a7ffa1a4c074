"""Serialized tf.train.Example records for the parsing tests, made by TF's or our protos.

A record is given as ``{key: values}``: a list of floats, ints or bytes makes a FloatList,
Int64List or BytesList; ``None`` makes a Feature with no list set.
"""

import numpy as np

import tfcompat
from tests.oracle import tf1

MAKERS = ("tf", "ours")


def _feature(train, values):
    if values is None:
        return train.Feature()
    values = list(values)
    if values and isinstance(values[0], bytes):
        return train.Feature(bytes_list=train.BytesList(value=values))
    if values and isinstance(values[0], (float, np.floating)):
        return train.Feature(float_list=train.FloatList(value=values))
    if values:
        return train.Feature(int64_list=train.Int64List(value=values))
    return train.Feature(float_list=train.FloatList(value=[]))


def serialize(record, maker="tf"):
    """One record (``{key: values}``) serialized with TF's (``"tf"``) or our protos."""
    train = tf1().train if maker == "tf" else tfcompat.train
    features = {k: _feature(train, v) for k, v in record.items()}
    return train.Example(features=train.Features(feature=features)).SerializeToString()


def batch(records, maker="tf"):
    return [serialize(r, maker) for r in records]
