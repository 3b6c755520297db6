//! Argument conversion: Python values to what `crate::query` parses and validates.
//! No validation logic of its own beyond types; the rules live in the core.

use chrono::{DateTime, FixedOffset, TimeDelta, Utc};
use pyo3::prelude::*;
use pyo3::types::{PyDateTime, PyDelta, PyString};

use crate::query::{parse_timestamp, IsoDuration};

use super::errors::invalid_argument;

/// A timestamp argument: a timezone-aware `datetime` or an ISO 8601 string.
pub(crate) fn timestamp(
    py: Python<'_>,
    argument: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<DateTime<Utc>>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if let Ok(s) = v.cast::<PyString>() {
        let s: String = s.extract()?;
        return parse_timestamp(argument, &s)
            .map(Some)
            .map_err(|e| super::errors::to_py_err(py, e));
    }
    if v.is_instance_of::<PyDateTime>() {
        if v.call_method0("utcoffset")?.is_none() {
            return Err(invalid_argument(
                py,
                argument,
                "is a naive datetime; give it a time zone, e.g. tzinfo=datetime.timezone.utc",
            ));
        }
        let t: DateTime<FixedOffset> = v.extract()?;
        return Ok(Some(t.with_timezone(&Utc)));
    }
    Err(invalid_argument(
        py,
        argument,
        format!(
            "must be a timezone-aware datetime or an ISO 8601 string, not {}",
            v.get_type().name()?
        ),
    ))
}

/// A duration argument: an ISO 8601 duration string or a `timedelta`, as the string the core
/// parses.
pub(crate) fn duration(
    py: Python<'_>,
    argument: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<String>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Some(s.extract::<String>()?));
    }
    if v.is_instance_of::<PyDelta>() {
        let d: TimeDelta = v.extract()?;
        let std = d
            .to_std()
            .map_err(|_| invalid_argument(py, argument, "must not be negative"))?;
        return Ok(Some(IsoDuration::from_std(std).to_string()));
    }
    Err(invalid_argument(
        py,
        argument,
        format!(
            "must be an ISO 8601 duration string such as \"PT1M\" or a timedelta, not {}",
            v.get_type().name()?
        ),
    ))
}

/// `metrics`: a list (or any iterable but a string) of measurement names.
pub(crate) fn metrics(
    py: Python<'_>,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<Vec<String>>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let bad = || invalid_argument(py, "metrics", "must be a list of measurement names");
    if v.is_instance_of::<PyString>() {
        return Err(bad());
    }
    let mut out = Vec::new();
    for item in v.try_iter().map_err(|_| bad())? {
        out.push(item?.extract::<String>().map_err(|_| bad())?);
    }
    Ok(Some(out))
}

/// A string argument that must be a `str` (or None).
pub(crate) fn string(
    py: Python<'_>,
    argument: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<String>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    match v.cast::<PyString>() {
        Ok(s) => Ok(Some(s.extract::<String>()?)),
        Err(_) => Err(invalid_argument(py, argument, "must be a str")),
    }
}

/// `parse_duration(text)`: an ISO 8601 duration (`PT4H`) or a short form (`30m`, `4h`, `2d`,
/// `1w`) as a `timedelta`; a `timedelta` is returned as it is. Months and years are refused:
/// their length depends on the calendar.
#[pyfunction]
pub(crate) fn parse_duration(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<TimeDelta> {
    if text.is_instance_of::<PyDelta>() {
        return text.extract();
    }
    let s: String = text.extract().map_err(|_| {
        invalid_argument(
            py,
            "duration",
            "must be a string such as \"4h\" or \"PT4H\", or a timedelta",
        )
    })?;
    let d =
        IsoDuration::parse_lenient("duration", &s).map_err(|e| super::errors::to_py_err(py, e))?;
    let secs = d.fixed_seconds().ok_or_else(|| {
        invalid_argument(
            py,
            "duration",
            format!(
                "`{s}` is not a duration of fixed length: months and years depend on the calendar"
            ),
        )
    })?;
    Ok(TimeDelta::milliseconds((secs * 1000.0).round() as i64))
}
