"""Pure text analysis: language, tokens, signals. No I/O beyond jieba's dictionary."""
