"""Query analysis, hybrid retrieval, fusion and the evidence score behind abstention."""
