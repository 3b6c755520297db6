"""Durations as people type them (``4h``, ``30m``, ``2d``, ``1w``) or in ISO 8601 (``P1DT2H``),
as ``timedelta``. The parsing is the core's (``IsoDuration::parse_lenient``)."""

from __future__ import annotations

from ._native import parse_duration

__all__ = ["parse_duration"]
