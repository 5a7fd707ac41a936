"""The index: embeddings, the Chroma store and the in-memory lexical side."""
