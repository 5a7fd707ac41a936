"""The scored eval: labelled sets, the systems compared (full pipeline and two baselines), the metrics."""
