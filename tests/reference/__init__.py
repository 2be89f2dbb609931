"""Slow, obviously-correct NumPy references that the compiled kernels must match."""
