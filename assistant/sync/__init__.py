"""Sync: bring declared knowledge sources (corpus/sources.yaml) into the index, incrementally.

Sources are curated-entry folders, Q&A-page folders, vLLM docs at a git ref, GitHub issues of a
repository and vLLM releases. Every run writes into a staging generation of the index and makes it
live in one step, so answers never see a half-applied sync.
"""
