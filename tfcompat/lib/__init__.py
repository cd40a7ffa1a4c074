"""Library code without graph ops (TF's ``python/lib``)."""
