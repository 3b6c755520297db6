# The days-to-limit forecasts' binding (src/python/forecast.rs), used by opsapi.capacity.passage.
from typing import Any

class _Forecasts:
    def __new__(
        cls,
        n: int,
        sid: list[int],
        t: list[int],
        value: list[float],
        group: list[int],
        break_sid: list[int],
        break_age: list[float],
        break_reason: list[str],
        *,
        now: int,
        quantile: float,
        window_days: int,
        min_days: int,
        level: float,
        backtest: bool = True,
        horizons: list[int] = ...,
        weekly: bool = True,
    ) -> _Forecasts: ...
    @staticmethod
    def calibrated(pits: list[float], level: float) -> tuple[float, float] | None: ...
    def fits(self, origins: list[int]) -> dict[str, list[Any]]: ...
    def backtest(self, horizons: list[int], every: int) -> dict[str, list[Any]]: ...
    def crossings(
        self, sid: list[int], limit: list[float], *, max_days: int = 1095
    ) -> dict[str, list[Any]]: ...
