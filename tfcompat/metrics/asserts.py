"""The value checks metrics add to their graphs: TF's ``check_ops`` asserts, from
``tfcompat.ops.check_ops`` (kept as this module's names for the metrics code)."""

from tfcompat.ops.check_ops import (  # noqa: F401
    assert_greater_equal,
    assert_less,
    assert_less_equal,
    assert_non_negative,
    assert_rank_in,
    assert_type,
)
