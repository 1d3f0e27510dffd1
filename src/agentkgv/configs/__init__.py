"""Committed configuration files shipped with the package."""
