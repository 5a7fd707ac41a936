"""vLLM troubleshooting assistant: from a pasted error to a cited fix."""

__version__ = "0.1.0"
