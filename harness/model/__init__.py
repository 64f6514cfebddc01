"""The abstract Battleship model, built once per instance and shared by every backend."""

from harness.model.abstract import Model, Placement, build_model

__all__ = ["Model", "Placement", "build_model"]
