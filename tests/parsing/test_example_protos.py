"""tf.train.Example protos: bytes written by TF's classes parse here and back unchanged."""

import tfcompat
from tests.oracle import tf1


def _example(train):
    return train.Example(
        features=train.Features(
            feature={
                "ids": train.Feature(int64_list=train.Int64List(value=[1, -2, 2**40])),
                "x": train.Feature(float_list=train.FloatList(value=[0.5, -1.25])),
                "name": train.Feature(bytes_list=train.BytesList(value=[b"a", b"\xff"])),
            }
        )
    )


def test_example_round_trips_with_tf():
    theirs = _example(tf1().train).SerializeToString(deterministic=True)
    ours = _example(tfcompat.train).SerializeToString(deterministic=True)
    assert ours == theirs
    parsed = tfcompat.train.Example.FromString(theirs)
    assert list(parsed.features.feature["ids"].int64_list.value) == [1, -2, 2**40]


def test_sequence_example_round_trips_with_tf():
    def build(train):
        return train.SequenceExample(
            feature_lists=train.FeatureLists(
                feature_list={
                    "f": train.FeatureList(
                        feature=[train.Feature(int64_list=train.Int64List(value=[3]))]
                    )
                }
            )
        ).SerializeToString(deterministic=True)

    assert build(tfcompat.train) == build(tf1().train)
