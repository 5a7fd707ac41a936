"""The "vLLM release" knowledge source: facts read from a release's own Python source, per version."""
