"""Durations for ``--for`` and ``window=``: short forms and ISO 8601."""

from __future__ import annotations

from datetime import timedelta

import pytest

from opsapi._duration import parse_duration


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4h", timedelta(hours=4)),
        ("30m", timedelta(minutes=30)),
        ("2d", timedelta(days=2)),
        ("1w", timedelta(weeks=1)),
        ("90s", timedelta(seconds=90)),
        ("1.5h", timedelta(minutes=90)),
        ("14D", timedelta(days=14)),
        ("PT4H", timedelta(hours=4)),
        ("P1DT30M", timedelta(days=1, minutes=30)),
        ("P14D", timedelta(days=14)),
        ("PT1M", timedelta(minutes=1)),
        ("P1W", timedelta(weeks=1)),
        (timedelta(hours=3), timedelta(hours=3)),
    ],
)
def test_parses(text, expected) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    "text", ["", "4", "h", "4x", "P", "PT", "P1M", "P1Y", "P1DT", "-4h", "4 parsecs"]
)
def test_rejects(text) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)
