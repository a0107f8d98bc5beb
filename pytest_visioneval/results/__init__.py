"""Records -> aggregates -> thresholds and baselines -> the run's verdict (plain data, no pytest)."""
