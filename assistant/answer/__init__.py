"""Writing answers: extractive (default, no LLM) and the shared abstention text."""
