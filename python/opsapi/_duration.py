"""Short and ISO 8601 durations (``4h``, ``30m``, ``2d``, ``P1DT2H``) as ``timedelta``."""

from __future__ import annotations

import re
from datetime import timedelta

_SHORT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(w|d|h|m|s|ms)\s*$", re.IGNORECASE)
_ISO = re.compile(
    r"^P(?:(?P<w>\d+(?:\.\d+)?)W)?(?:(?P<d>\d+(?:\.\d+)?)D)?"
    r"(?:T(?:(?P<h>\d+(?:\.\d+)?)H)?(?:(?P<m>\d+(?:\.\d+)?)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?$",
    re.IGNORECASE,
)
_UNIT = {
    "w": "weeks",
    "d": "days",
    "h": "hours",
    "m": "minutes",
    "s": "seconds",
    "ms": "milliseconds",
}


def parse_duration(text: str | timedelta) -> timedelta:
    """Parse ``"4h"``, ``"30m"``, ``"2d"``, ``"1w"`` or an ISO 8601 duration such as ``"PT4H"``.

    Months and years are refused: their length depends on the calendar.

    >>> parse_duration("4h")
    datetime.timedelta(seconds=14400)
    >>> parse_duration("P1DT30M")
    datetime.timedelta(days=1, seconds=1800)
    """
    if isinstance(text, timedelta):
        return text
    m = _SHORT.match(text)
    if m:
        return timedelta(**{_UNIT[m.group(2).lower()]: float(m.group(1))})
    m = _ISO.match(text.strip())
    if m and text.strip().upper() not in ("P", "PT") and not text.strip().upper().endswith("T"):
        parts = {k: float(v) for k, v in m.groupdict().items() if v is not None}
        if parts:
            return timedelta(
                weeks=parts.get("w", 0.0),
                days=parts.get("d", 0.0),
                hours=parts.get("h", 0.0),
                minutes=parts.get("m", 0.0),
                seconds=parts.get("s", 0.0),
            )
    raise ValueError(f"not a duration: {text!r} (use 30m, 4h, 2d, 1w or ISO 8601 such as PT4H)")
