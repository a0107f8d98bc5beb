"""Reports of a run: the terminal summary and the results JSON."""
