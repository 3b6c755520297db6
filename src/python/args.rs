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
    if v.is_instance_of::<PyString>() {
        let s = text(py, argument, v)?;
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
            type_name(v)
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
    if v.is_instance_of::<PyString>() {
        return text(py, argument, v).map(Some);
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
            type_name(v)
        ),
    ))
}

/// `metrics`: a list (or any iterable but a string) of measurement names.
pub(crate) fn metrics(
    py: Python<'_>,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<Vec<String>>> {
    match value.filter(|v| !v.is_none()) {
        None => Ok(None),
        Some(v) => texts(py, "metrics", "a list of measurement names", v).map(Some),
    }
}

/// A list (or any iterable but a string) of `str`, each named by its position on error
/// (`alert_ids[3]`); `what` says what the list holds.
pub(crate) fn texts(
    py: Python<'_>,
    argument: &str,
    what: &str,
    v: &Bound<'_, PyAny>,
) -> PyResult<Vec<String>> {
    let bad = || {
        invalid_argument(
            py,
            argument,
            format!("must be {what}, not {}", type_name(v)),
        )
    };
    if v.is_instance_of::<PyString>() {
        return Err(bad());
    }
    let mut out = Vec::new();
    for (i, item) in v.try_iter().map_err(|_| bad())?.enumerate() {
        out.push(text(py, &format!("{argument}[{i}]"), &item?)?);
    }
    Ok(out)
}

/// A `str` argument as Rust text. A lone surrogate (as `os.fsdecode` or a broken decode
/// makes them) cannot be encoded for the wire: an `InvalidArgumentError` names the argument and
/// the position, rather than a `UnicodeEncodeError` from deep inside.
pub(crate) fn text(py: Python<'_>, argument: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
    let Ok(s) = v.cast::<PyString>() else {
        return Err(invalid_argument(
            py,
            argument,
            format!("must be a str, not {}", type_name(v)),
        ));
    };
    match s.to_cow() {
        Ok(t) => Ok(t.into_owned()),
        Err(_) => {
            let lossy = s.to_string_lossy();
            let at = lossy.chars().position(|c| c == '\u{FFFD}').unwrap_or(0);
            Err(invalid_argument(
                py,
                argument,
                format!(
                    "contains a lone surrogate at position {at} (a character that is not valid \
                     Unicode, as a broken decode leaves it), which cannot be sent"
                ),
            ))
        }
    }
}

/// The name of a value's type, for messages.
pub(crate) fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// A required `str` argument.
pub(crate) fn required_str(
    py: Python<'_>,
    argument: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<String> {
    text(py, argument, value)
}

/// A string argument that must be a `str` (or None).
pub(crate) fn string(
    py: Python<'_>,
    argument: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<String>> {
    match value.filter(|v| !v.is_none()) {
        None => Ok(None),
        Some(v) => text(py, argument, v).map(Some),
    }
}

/// A `bool` argument (or None). Only `True` and `False`: a string such as `"no"` would be
/// truthy, the opposite of what was meant.
pub(crate) fn flag(
    py: Python<'_>,
    argument: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<bool>> {
    match value.filter(|v| !v.is_none()) {
        None => Ok(None),
        Some(v) => match v.cast::<pyo3::types::PyBool>() {
            Ok(b) => Ok(Some(b.is_true())),
            Err(_) => Err(invalid_argument(
                py,
                argument,
                format!("must be True or False, not {}", type_name(v)),
            )),
        },
    }
}

/// A count (`int`, or None). Any size is taken and handed to the core, which owns the bounds:
/// an int past `u64` is passed as `u64::MAX`, so that the core's message ("must be at most
/// 100") applies, never an `OverflowError`.
pub(crate) fn count(
    py: Python<'_>,
    argument: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<u64>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if !v.is_instance_of::<pyo3::types::PyInt>() || v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(invalid_argument(
            py,
            argument,
            format!("must be an int, not {}", type_name(v)),
        ));
    }
    if v.lt(0)? {
        return Err(invalid_argument(
            py,
            argument,
            format!("must be 0 or more, not {v}"),
        ));
    }
    Ok(Some(v.extract::<u64>().unwrap_or(u64::MAX)))
}

/// A number of seconds (`int` or `float`, or None), handed to the core unchecked.
pub(crate) fn seconds(
    py: Python<'_>,
    argument: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<f64>> {
    number(py, argument, value, "seconds")
}

/// A number of `what` (`int` or `float`, or None), handed to the core unchecked.
pub(crate) fn number(
    py: Python<'_>,
    argument: &str,
    value: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<Option<f64>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let is_number = (v.is_instance_of::<pyo3::types::PyInt>()
        || v.is_instance_of::<pyo3::types::PyFloat>())
        && !v.is_instance_of::<pyo3::types::PyBool>();
    if !is_number {
        return Err(invalid_argument(
            py,
            argument,
            format!("must be a number of {what}, not {}", type_name(v)),
        ));
    }
    // An int too large for a float is infinitely long for this purpose.
    Ok(Some(v.extract::<f64>().unwrap_or(f64::INFINITY)))
}

/// A file path: a `str` or an `os.PathLike` (or None).
pub(crate) fn path(
    py: Python<'_>,
    argument: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<std::path::PathBuf>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let fspath = py.import("os")?.call_method1("fspath", (v,)).map_err(|_| {
        invalid_argument(
            py,
            argument,
            format!("must be a path (str or os.PathLike), not {}", type_name(v)),
        )
    })?;
    if fspath.is_instance_of::<pyo3::types::PyBytes>() {
        return Ok(Some(fspath.extract()?));
    }
    text(py, argument, &fspath).map(|s| Some(s.into()))
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

/// An argument's kind, as a `twins!` entry names it: how a Python value becomes what the core
/// takes, and how the stub spells its type (`_native._twin_stubs()`, from which
/// `python/opsapi/_generated.pyi` is written). A required argument is positional; an optional
/// one is keyword-only and `None` when not given.
pub(crate) trait Kind {
    /// What the core takes.
    type Value: Send + 'static;
    /// The conversion, whose error names `argument`.
    fn convert(py: Python<'_>, argument: &str, v: &Bound<'_, PyAny>) -> PyResult<Self::Value>;
    /// An optional argument: `None` where it is not given (or given as `None`).
    fn optional(
        py: Python<'_>,
        argument: &str,
        v: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<Self::Value>> {
        v.filter(|v| !v.is_none())
            .map(|v| Self::convert(py, argument, v))
            .transpose()
    }
}

/// A `str` (an identifier, a name).
pub(crate) struct Text;
impl Kind for Text {
    type Value = String;
    fn convert(py: Python<'_>, argument: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
        text(py, argument, v)
    }
}

/// Several `str` (an iterable, not a string), each named by its position on error.
pub(crate) struct Texts;
impl Kind for Texts {
    type Value = Vec<String>;
    fn convert(py: Python<'_>, argument: &str, v: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        texts(py, argument, "a list of str", v)
    }
}

/// One `str` or several (`event_type="ALERT_OPEN"` or `["ALERT_OPEN", ...]`).
pub(crate) struct OneOrMore;
impl Kind for OneOrMore {
    type Value = Vec<String>;
    fn convert(py: Python<'_>, argument: &str, v: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        if v.is_instance_of::<PyString>() {
            return Ok(vec![text(py, argument, v)?]);
        }
        texts(py, argument, "a str or a list of str", v)
    }
}

/// A timezone-aware `datetime` or an ISO 8601 string.
pub(crate) struct Timestamp;
impl Kind for Timestamp {
    type Value = DateTime<Utc>;
    fn convert(py: Python<'_>, argument: &str, v: &Bound<'_, PyAny>) -> PyResult<DateTime<Utc>> {
        Ok(timestamp(py, argument, Some(v))?.unwrap_or_default())
    }
}

/// An ISO 8601 duration string or a `timedelta`, parsed by the core.
pub(crate) struct Duration;
impl Kind for Duration {
    type Value = IsoDuration;
    fn convert(py: Python<'_>, argument: &str, v: &Bound<'_, PyAny>) -> PyResult<IsoDuration> {
        let s = duration(py, argument, Some(v))?.unwrap_or_default();
        IsoDuration::parse_lenient(argument, &s).map_err(|e| super::errors::to_py_err(py, e))
    }
}

/// An `int`, 0 or more (its upper bound is the core's).
pub(crate) struct Count;
impl Kind for Count {
    type Value = u64;
    fn convert(py: Python<'_>, argument: &str, v: &Bound<'_, PyAny>) -> PyResult<u64> {
        Ok(count(py, argument, Some(v))?.unwrap_or_default())
    }
}

/// `True` or `False`.
pub(crate) struct Flag;
impl Kind for Flag {
    type Value = bool;
    fn convert(py: Python<'_>, argument: &str, v: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(flag(py, argument, Some(v))?.unwrap_or_default())
    }
}

/// How the stub spells a kind's type (a literal, for `concat!`).
macro_rules! stub_type {
    (Text) => {
        "str"
    };
    (Texts) => {
        "Iterable[str]"
    };
    (OneOrMore) => {
        "Union[str, Iterable[str]]"
    };
    (Timestamp) => {
        "_Timestamp"
    };
    (Duration) => {
        "_Duration"
    };
    (Count) => {
        "int"
    };
    (Flag) => {
        "bool"
    };
}
pub(crate) use stub_type;
