"""The application matrix (benchmarks/matrix/matrix.py) as a package: config, run, stats, report."""
