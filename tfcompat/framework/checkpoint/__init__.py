"""TensorFlow V2 checkpoints: SSTable index files (``sstable``), tensor bundles
(``bundle``) and tensor slices (``slices``)."""
