"""Scoring: the benchmark's metrics and the runners that produce predictions to score."""
