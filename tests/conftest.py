import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import pytest  # noqa: E402

import tfcompat  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_default_graph():
    """Every test starts with an empty global default graph."""
    tfcompat.reset_default_graph()
    yield
