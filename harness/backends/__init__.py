"""Backends: one module per solver technology behind one small contract."""

from harness.backends.base import Answer, Backend, Deadline, ModelSize, Option
from harness.backends.registry import BACKENDS, all_pairs, check_pair, get_backend

__all__ = ["Answer", "Backend", "Deadline", "ModelSize", "Option", "BACKENDS", "all_pairs", "check_pair", "get_backend"]
