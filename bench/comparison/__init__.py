"""The parts of bench/compare.py (see its docstring)."""
