"""steadyfs: real-time flash file system tools (device models, benchmarks, analysis)."""

__version__ = "0.1.0"
