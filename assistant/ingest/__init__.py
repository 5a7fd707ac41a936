"""Loaders (source files → chunks) and the incremental ingest pipeline."""
