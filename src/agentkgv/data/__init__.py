"""Readers for every input format and the benchmark/corpus builders that derive from them."""
