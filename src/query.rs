//! Query parameters: plain structs with chainable setters and `validate()`, checked before any
//! request is sent. Parsing of user input (ISO 8601 timestamps and durations) lives here too,
//! so that the Python layer only forwards strings.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Months, TimeDelta, Utc};

use crate::error::{Error, Result};
use crate::models::time::format_timestamp;
use crate::models::AlertStatus;

/// Parses an ISO 8601 timestamp with a time zone (`2024-05-01T00:00:00Z`,
/// `2024-05-01T02:00:00+02:00`). A time without a zone is rejected: its zone would be a guess.
///
/// ```
/// let t = opsapi::query::parse_timestamp("start", "2024-05-01T02:00:00+02:00").unwrap();
/// assert_eq!(t.to_rfc3339(), "2024-05-01T00:00:00+00:00");
/// assert!(opsapi::query::parse_timestamp("start", "2024-05-01T00:00:00").is_err());
/// ```
pub fn parse_timestamp(argument: &str, s: &str) -> Result<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&Utc));
    }
    // RFC 3339 needs seconds; ISO 8601 allows `2024-05-01T00:00Z`.
    if let Ok(t) = DateTime::parse_from_str(s, "%Y-%m-%dT%H:%M%#z") {
        return Ok(t.with_timezone(&Utc));
    }
    let naive = chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f").is_ok()
        || chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M").is_ok()
        || chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok();
    Err(Error::invalid_argument(
        argument,
        if naive {
            format!("`{s}` has no time zone; give one, e.g. `{s}Z` for UTC")
        } else {
            format!("`{s}` is not an ISO 8601 timestamp such as 2024-05-01T00:00:00Z")
        },
    ))
}

/// The longest duration accepted anywhere (a period, an acknowledgement): 100 years, the
/// service's own "forever". Longer ones are mistakes that would reach the server otherwise.
pub const MAX_DURATION_YEARS: u32 = 100;

const MAX_DURATION_SECONDS: f64 = 36_525.0 * 86_400.0;

/// An ISO 8601 duration (`P1D`, `PT1M`, `P1DT12H`, `P2W`, `PT0.5S`), at most 100 years
/// ([`MAX_DURATION_YEARS`]).
///
/// ```
/// let d: opsapi::IsoDuration = "P1DT12H".parse().unwrap();
/// assert_eq!(d.to_string(), "P1DT12H");
/// assert_eq!(d.fixed_seconds(), Some(129_600.0));
/// assert!("1 day".parse::<opsapi::IsoDuration>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct IsoDuration {
    /// Years (calendar).
    pub years: u32,
    /// Months (calendar).
    pub months: u32,
    /// Weeks.
    pub weeks: u32,
    /// Days.
    pub days: u32,
    /// Hours.
    pub hours: u32,
    /// Minutes.
    pub minutes: u32,
    /// Seconds, possibly fractional.
    pub seconds: f64,
}

impl IsoDuration {
    /// Parses `s`, naming `argument` in the error.
    pub fn parse(argument: &str, s: &str) -> Result<Self> {
        let d = s.trim().parse::<Self>().map_err(|why| {
            Error::invalid_argument(
                argument,
                format!("`{s}` is not an ISO 8601 duration such as P1D or PT1M ({why})"),
            )
        })?;
        d.check(argument, s)?;
        Ok(d)
    }

    /// At most [`MAX_DURATION_YEARS`]: calendar years and months count as 365.25 and 30.44
    /// days here, which only decides where "too long" starts.
    fn check(&self, argument: &str, s: &str) -> Result<()> {
        let calendar_days = f64::from(self.years) * 365.25 + f64::from(self.months) * 30.436_875;
        let total = calendar_days * 86_400.0 + self.fixed_part_seconds();
        if !total.is_finite() || total > MAX_DURATION_SECONDS {
            return Err(Error::invalid_argument(
                argument,
                format!("`{}` is longer than {MAX_DURATION_YEARS} years", s.trim()),
            ));
        }
        Ok(())
    }

    fn fixed_part_seconds(&self) -> f64 {
        f64::from(self.weeks) * 604_800.0
            + f64::from(self.days) * 86_400.0
            + f64::from(self.hours) * 3600.0
            + f64::from(self.minutes) * 60.0
            + self.seconds
    }

    /// Parses an ISO 8601 duration or a short form as people type it: `30s`, `30m`, `4h`,
    /// `2d`, `1w`, `1.5h`, `500ms` (case-insensitive), naming `argument` in the error.
    ///
    /// ```
    /// use opsapi::IsoDuration;
    /// assert_eq!(IsoDuration::parse_lenient("for", "4h").unwrap().to_string(), "PT4H");
    /// assert_eq!(IsoDuration::parse_lenient("for", "1.5d").unwrap().to_string(), "P1DT12H");
    /// assert_eq!(IsoDuration::parse_lenient("for", "P1W").unwrap().to_string(), "P1W");
    /// assert!(IsoDuration::parse_lenient("for", "4 hours").is_err());
    /// ```
    pub fn parse_lenient(argument: &str, s: &str) -> Result<Self> {
        let t = s.trim();
        let not_a_duration = |why: &str| {
            Error::invalid_argument(
                argument,
                format!(
                    "`{s}` is not a duration{why}: use 30m, 4h, 2d, 1w or ISO 8601 such as PT4H"
                ),
            )
        };
        if t.starts_with(['P', 'p']) {
            let d = t
                .to_ascii_uppercase()
                .parse::<Self>()
                .map_err(|why| not_a_duration(&format!(" ({why})")))?;
            d.check(argument, s)?;
            return Ok(d);
        }
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (number, unit) = t.split_at(split);
        let seconds_per = match unit.trim().to_ascii_lowercase().as_str() {
            "w" => 604_800.0,
            "d" => 86_400.0,
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            _ => f64::NAN,
        };
        match number.parse::<f64>() {
            Ok(n) if n.is_finite() && seconds_per.is_finite() => {
                let d = Self::from_seconds_f64(n * seconds_per);
                match d {
                    Some(d) => Ok(d),
                    None => Err(Error::invalid_argument(
                        argument,
                        format!("`{}` is longer than {MAX_DURATION_YEARS} years", s.trim()),
                    )),
                }
            }
            _ => Err(not_a_duration("")),
        }
    }

    /// A duration of whole seconds, written in its largest exact units (`PT1M`, `P1D`).
    pub fn from_seconds(total: u64) -> Self {
        let mut d = Self {
            days: (total / 86_400).min(u64::from(u32::MAX)) as u32,
            ..Self::default()
        };
        let rest = total % 86_400;
        d.hours = (rest / 3600) as u32;
        d.minutes = ((rest % 3600) / 60) as u32;
        d.seconds = (rest % 60) as f64;
        d
    }

    /// A duration of `seconds` (millisecond precision), or `None` past [`MAX_DURATION_YEARS`].
    pub fn from_seconds_f64(seconds: f64) -> Option<Self> {
        if !(0.0..=MAX_DURATION_SECONDS).contains(&seconds) {
            return None;
        }
        Some(Self::from_std(std::time::Duration::from_secs_f64(seconds)))
    }

    /// A duration from a `std::time::Duration` (millisecond precision).
    pub fn from_std(d: std::time::Duration) -> Self {
        let mut out = Self::from_seconds(d.as_secs());
        out.seconds += f64::from(d.subsec_millis()) / 1000.0;
        out
    }

    /// The length in seconds when it has no calendar part (years, months).
    pub fn fixed_seconds(&self) -> Option<f64> {
        (self.years == 0 && self.months == 0).then(|| self.fixed_part_seconds())
    }

    /// Whether it has zero length.
    pub fn is_zero(&self) -> bool {
        self.years == 0 && self.months == 0 && self.fixed_seconds() == Some(0.0)
    }

    /// `t` plus this duration (calendar-aware for years and months).
    pub fn add_to(&self, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let months = self.years.checked_mul(12)?.checked_add(self.months)?;
        let t = t.checked_add_months(Months::new(months))?;
        let millis = (self.fixed_part_seconds() * 1000.0).round();
        if !(millis.is_finite() && millis.abs() < 9.0e15) {
            return None;
        }
        t.checked_add_signed(TimeDelta::try_milliseconds(millis as i64)?)
    }
}

impl FromStr for IsoDuration {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let rest = s
            .strip_prefix('P')
            .ok_or_else(|| "it must start with P".to_string())?;
        if rest.is_empty() {
            return Err("it has no component".into());
        }
        let mut d = Self::default();
        let mut in_time = false;
        let mut seen_any = false;
        let mut number = String::new();
        let mut last_rank = 0u8;
        for c in rest.chars() {
            match c {
                'T' if !in_time => {
                    if !number.is_empty() {
                        return Err("a number before T has no unit".into());
                    }
                    in_time = true;
                    last_rank = 4;
                }
                '0'..='9' | '.' | ',' => number.push(if c == ',' { '.' } else { c }),
                unit => {
                    if number.is_empty() {
                        return Err(format!("`{unit}` has no number"));
                    }
                    let rank = match (in_time, unit) {
                        (false, 'Y') => 1,
                        (false, 'M') => 2,
                        (false, 'W') => 3,
                        (false, 'D') => 4,
                        (true, 'H') => 5,
                        (true, 'M') => 6,
                        (true, 'S') => 7,
                        _ => return Err(format!("`{unit}` is not a unit here")),
                    };
                    if rank <= last_rank {
                        return Err("units are out of order or repeated".into());
                    }
                    last_rank = rank;
                    if rank != 7 && number.contains('.') {
                        return Err("only seconds may have a fraction".into());
                    }
                    let whole = || number.parse::<u32>().map_err(|_| "the number is too large");
                    match rank {
                        1 => d.years = whole()?,
                        2 => d.months = whole()?,
                        3 => d.weeks = whole()?,
                        4 => d.days = whole()?,
                        5 => d.hours = whole()?,
                        6 => d.minutes = whole()?,
                        _ => {
                            d.seconds = number
                                .parse::<f64>()
                                .map_err(|_| "bad seconds".to_string())?
                        }
                    }
                    number.clear();
                    seen_any = true;
                }
            }
        }
        if !number.is_empty() {
            return Err("the last number has no unit".into());
        }
        if !seen_any {
            return Err("it has no component".into());
        }
        if in_time && last_rank == 4 {
            return Err("T is not followed by a time component".into());
        }
        Ok(d)
    }
}

impl fmt::Display for IsoDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("P")?;
        for (n, u) in [
            (self.years, 'Y'),
            (self.months, 'M'),
            (self.weeks, 'W'),
            (self.days, 'D'),
        ] {
            if n > 0 {
                write!(f, "{n}{u}")?;
            }
        }
        if self.hours > 0 || self.minutes > 0 || self.seconds > 0.0 {
            f.write_str("T")?;
            if self.hours > 0 {
                write!(f, "{}H", self.hours)?;
            }
            if self.minutes > 0 {
                write!(f, "{}M", self.minutes)?;
            }
            if self.seconds > 0.0 {
                write!(f, "{}S", self.seconds)?;
            }
        } else if self.is_zero() {
            f.write_str("T0S")?;
        }
        Ok(())
    }
}

/// The granularity of measurements: one of the five the service supports.
///
/// ```
/// use opsapi::Granularity;
/// assert_eq!("PT1M".parse::<Granularity>().unwrap(), Granularity::PT1M);
/// assert_eq!("PT60S".parse::<Granularity>().unwrap(), Granularity::PT1M);
/// assert!("PT2M".parse::<Granularity>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(clippy::upper_case_acronyms)]
pub enum Granularity {
    /// 10 seconds.
    PT10S,
    /// 1 minute.
    PT1M,
    /// 5 minutes.
    PT5M,
    /// 1 hour.
    PT1H,
    /// 1 day.
    P1D,
}

impl Granularity {
    /// Every granularity, finest first.
    pub const ALL: [Self; 5] = [Self::PT10S, Self::PT1M, Self::PT5M, Self::PT1H, Self::P1D];

    /// The value as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PT10S => "PT10S",
            Self::PT1M => "PT1M",
            Self::PT5M => "PT5M",
            Self::PT1H => "PT1H",
            Self::P1D => "P1D",
        }
    }

    /// The step in seconds.
    pub fn seconds(self) -> u64 {
        match self {
            Self::PT10S => 10,
            Self::PT1M => 60,
            Self::PT5M => 300,
            Self::PT1H => 3600,
            Self::P1D => 86_400,
        }
    }

    /// The granularity of a step in seconds.
    pub fn from_seconds(s: f64) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.seconds() as f64 == s)
    }

    /// Parses `s`, naming `argument` in the error.
    pub fn parse(argument: &str, s: &str) -> Result<Self> {
        let d = IsoDuration::parse(argument, s)?;
        d.fixed_seconds()
            .and_then(Self::from_seconds)
            .ok_or_else(|| {
                Error::invalid_argument(
                    argument,
                    format!(
                        "`{s}` is not a supported granularity: use PT10S, PT1M, PT5M, PT1H or P1D"
                    ),
                )
            })
    }
}

impl FromStr for Granularity {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::parse("granularity", s)
    }
}

impl fmt::Display for Granularity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Filters of `GET /globalAlerts`.
///
/// ```
/// use opsapi::{AlertStatus, GlobalAlertsQuery};
/// let q = GlobalAlertsQuery::new().status(AlertStatus::Open);
/// assert_eq!(q.to_pairs(), vec![("status", "OPEN".to_string())]);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct GlobalAlertsQuery {
    /// `status`: `TRACKING`, `OPEN` or `CLOSED`.
    pub status: Option<AlertStatus>,
    /// `createdOnOrAfter`
    pub created_on_or_after: Option<DateTime<Utc>>,
    /// `createdOnOrBefore`
    pub created_on_or_before: Option<DateTime<Utc>>,
}

impl GlobalAlertsQuery {
    /// No filter: every global alert.
    pub fn new() -> Self {
        Self::default()
    }
    /// Only alerts with this status.
    pub fn status(mut self, status: AlertStatus) -> Self {
        self.status = Some(status);
        self
    }
    /// Only alerts created at or after `t`.
    pub fn created_on_or_after(mut self, t: DateTime<Utc>) -> Self {
        self.created_on_or_after = Some(t);
        self
    }
    /// Only alerts created at or before `t`.
    pub fn created_on_or_before(mut self, t: DateTime<Utc>) -> Self {
        self.created_on_or_before = Some(t);
        self
    }

    /// Checks the filters without sending anything.
    pub fn validate(&self) -> Result<()> {
        if let Some(AlertStatus::Cancelled) = &self.status {
            return Err(Error::invalid_argument(
                "status",
                "the service cannot filter on CANCELLED; use TRACKING, OPEN or CLOSED",
            ));
        }
        if let Some(AlertStatus::Other(s)) = &self.status {
            if s.is_empty() {
                return Err(Error::invalid_argument("status", "must not be empty"));
            }
        }
        if let (Some(a), Some(b)) = (self.created_on_or_after, self.created_on_or_before) {
            if a > b {
                return Err(Error::invalid_argument(
                    "created_on_or_after",
                    format!(
                        "{} is after created_on_or_before {}",
                        format_timestamp(&a),
                        format_timestamp(&b)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The query parameters, as sent.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(s) = &self.status {
            out.push(("status", s.as_str().to_string()));
        }
        if let Some(t) = &self.created_on_or_after {
            out.push(("createdOnOrAfter", format_timestamp(t)));
        }
        if let Some(t) = &self.created_on_or_before {
            out.push(("createdOnOrBefore", format_timestamp(t)));
        }
        out
    }
}

/// The time window of a measurements request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Window {
    /// The last `period`, ending now.
    Period(IsoDuration),
    /// From `start` to `end`.
    Range {
        /// Start (inclusive).
        start: DateTime<Utc>,
        /// End.
        end: DateTime<Utc>,
    },
}

/// Parameters of a measurements request: granularity, window and metric names.
///
/// ```
/// use opsapi::{Granularity, MeasurementsQuery};
/// let q = MeasurementsQuery::period(Granularity::PT1M, "P1D".parse().unwrap())
///     .metrics(["CONNECTIONS", "OPCOUNTER_CMD"]);
/// assert_eq!(q.to_pairs(), vec![
///     ("granularity", "PT1M".to_string()), ("period", "P1D".to_string()),
///     ("m", "CONNECTIONS".to_string()), ("m", "OPCOUNTER_CMD".to_string()),
/// ]);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MeasurementsQuery {
    /// `granularity`
    pub granularity: Granularity,
    /// `period`, or `start` and `end`.
    pub window: Window,
    /// `m`, one per name; empty means every measurement.
    pub metrics: Vec<String>,
}

impl MeasurementsQuery {
    /// The last `period` at `granularity`.
    pub fn period(granularity: Granularity, period: IsoDuration) -> Self {
        Self {
            granularity,
            window: Window::Period(period),
            metrics: Vec::new(),
        }
    }

    /// From `start` to `end` at `granularity`.
    pub fn range(granularity: Granularity, start: DateTime<Utc>, end: DateTime<Utc>) -> Self {
        Self {
            granularity,
            window: Window::Range { start, end },
            metrics: Vec::new(),
        }
    }

    /// Only these measurements.
    pub fn metrics<I, S>(mut self, metrics: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.metrics = metrics.into_iter().map(Into::into).collect();
        self
    }

    /// Builds a query from separately given parts, as a caller passing keyword arguments
    /// does, with an error naming the argument for every invalid combination.
    pub fn from_parts(
        granularity: Option<&str>,
        period: Option<&str>,
        start: Option<DateTime<Utc>>,
        end: Option<DateTime<Utc>>,
        metrics: Option<Vec<String>>,
    ) -> Result<Self> {
        let granularity = match granularity {
            Some(g) => Granularity::parse("granularity", g)?,
            None => return Err(Error::invalid_argument("granularity", "is required")),
        };
        let window = match (period, start, end) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return Err(Error::invalid_argument(
                    "period",
                    "give either period or both start and end, not both",
                ))
            }
            (Some(p), None, None) => Window::Period(IsoDuration::parse("period", p)?),
            (None, Some(start), Some(end)) => Window::Range { start, end },
            (None, Some(_), None) => {
                return Err(Error::invalid_argument(
                    "end",
                    "start is given, so end is required too",
                ))
            }
            (None, None, Some(_)) => {
                return Err(Error::invalid_argument(
                    "start",
                    "end is given, so start is required too",
                ))
            }
            (None, None, None) => {
                return Err(Error::invalid_argument(
                    "period",
                    "give either period or both start and end",
                ))
            }
        };
        if metrics.as_ref().is_some_and(Vec::is_empty) {
            // An empty `m` list would mean "every measurement" on the wire: a list that ended up
            // empty by mistake must not silently pull everything.
            return Err(Error::invalid_argument(
                "metrics",
                "is empty; leave it out (None) for every measurement",
            ));
        }
        let q = Self {
            granularity,
            window,
            metrics: metrics.unwrap_or_default(),
        };
        q.validate()?;
        Ok(q)
    }

    /// Checks the query without sending anything.
    pub fn validate(&self) -> Result<()> {
        match self.window {
            Window::Period(p) => {
                if p.is_zero() {
                    return Err(Error::invalid_argument(
                        "period",
                        "must be longer than zero",
                    ));
                }
            }
            Window::Range { start, end } => {
                if start >= end {
                    return Err(Error::invalid_argument(
                        "start",
                        format!(
                            "{} is not before end {}",
                            format_timestamp(&start),
                            format_timestamp(&end)
                        ),
                    ));
                }
            }
        }
        for m in &self.metrics {
            if m.trim().is_empty() {
                return Err(Error::invalid_argument(
                    "metrics",
                    "contains an empty measurement name",
                ));
            }
        }
        Ok(())
    }

    /// The query parameters, as sent: one `m` per metric.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![("granularity", self.granularity.as_str().to_string())];
        match &self.window {
            Window::Period(p) => out.push(("period", p.to_string())),
            Window::Range { start, end } => {
                out.push(("start", format_timestamp(start)));
                out.push(("end", format_timestamp(end)));
            }
        }
        out.extend(self.metrics.iter().map(|m| ("m", m.clone())));
        out
    }
}

/// How long to acknowledge an alert for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AckUntil {
    /// Until this time, which must be in the future (and within 100 years): a time in the
    /// past would un-acknowledge the alert, which [`AckUntil::Unacknowledge`] says plainly.
    Until(DateTime<Utc>),
    /// For this long from now.
    For(IsoDuration),
    /// Forever: the service's convention is 100 years from now.
    Forever,
    /// Un-acknowledge: the service's convention is an `acknowledgedUntil` in the past (a
    /// minute before now is sent).
    Unacknowledge,
}

/// The body of `PATCH /globalAlerts/{id}`.
///
/// ```
/// use opsapi::{AckUntil, Acknowledgement};
/// let ack = Acknowledgement::new(AckUntil::For("PT4H".parse().unwrap())).comment("on it");
/// assert!(ack.validate().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Acknowledgement {
    /// Until when.
    pub until: AckUntil,
    /// `acknowledgementComment`
    pub comment: Option<String>,
}

impl Acknowledgement {
    /// An acknowledgement without comment.
    pub fn new(until: AckUntil) -> Self {
        Self {
            until,
            comment: None,
        }
    }

    /// Adds a comment.
    pub fn comment(mut self, comment: impl Into<String>) -> Self {
        self.comment = Some(comment.into());
        self
    }

    /// An acknowledgement ending in the past, which un-acknowledges the alert.
    pub fn unacknowledge() -> Self {
        Self::new(AckUntil::Unacknowledge)
    }

    /// Builds one from the keyword arguments of the Python face: exactly one of `until`,
    /// `duration` or `forever`.
    pub fn from_parts(
        until: Option<DateTime<Utc>>,
        duration: Option<&str>,
        forever: bool,
        comment: Option<String>,
    ) -> Result<Self> {
        let until = match (until, duration, forever) {
            (Some(t), None, false) => AckUntil::Until(t),
            (None, Some(d), false) => AckUntil::For(IsoDuration::parse_lenient("duration", d)?),
            (None, None, true) => AckUntil::Forever,
            (None, None, false) => {
                return Err(Error::invalid_argument(
                    "until",
                    "give exactly one of until, duration or forever=True",
                ))
            }
            _ => {
                return Err(Error::invalid_argument(
                    "until",
                    "give only one of until, duration or forever=True",
                ))
            }
        };
        let ack = Self { until, comment };
        ack.validate()?;
        Ok(ack)
    }

    /// Checks the acknowledgement without sending anything.
    pub fn validate(&self) -> Result<()> {
        if let AckUntil::For(d) = &self.until {
            if d.is_zero() {
                return Err(Error::invalid_argument(
                    "duration",
                    "must be longer than zero",
                ));
            }
        }
        Ok(())
    }

    /// The time to send, computed against `now`.
    ///
    /// ```
    /// use opsapi::{AckUntil, Acknowledgement};
    /// let now = opsapi::query::parse_timestamp("now", "2024-01-31T10:00:00Z").unwrap();
    /// let past = opsapi::query::parse_timestamp("until", "2024-01-31T09:00:00Z").unwrap();
    /// let e = Acknowledgement::new(AckUntil::Until(past)).resolve(now).unwrap_err();
    /// assert!(e.to_string().contains("unacknowledge()"), "{e}");
    /// ```
    pub fn resolve(&self, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
        let latest = now.checked_add_months(Months::new(MAX_DURATION_YEARS * 12));
        match &self.until {
            AckUntil::Until(t) if *t <= now => Err(Error::invalid_argument(
                "until",
                format!(
                    "{} is not in the future, and acknowledging until a past time would \
                     un-acknowledge the alert; to do that, call unacknowledge()",
                    format_timestamp(t)
                ),
            )),
            AckUntil::Until(t) if latest.is_some_and(|l| *t > l) => Err(Error::invalid_argument(
                "until",
                format!(
                    "{} is more than {MAX_DURATION_YEARS} years ahead; to acknowledge without \
                     end, use forever",
                    format_timestamp(t)
                ),
            )),
            AckUntil::Until(t) => Ok(*t),
            AckUntil::For(d) => d.add_to(now).ok_or_else(|| {
                Error::invalid_argument("duration", format!("`{d}` is out of range"))
            }),
            AckUntil::Forever => {
                latest.ok_or_else(|| Error::invalid_argument("forever", "is out of range"))
            }
            AckUntil::Unacknowledge => Ok(DateTime::<Utc>::from_timestamp(now.timestamp() - 60, 0)
                .unwrap_or(DateTime::<Utc>::UNIX_EPOCH)),
        }
    }

    /// The JSON body, computed against `now`.
    pub fn to_body(&self, now: DateTime<Utc>) -> Result<serde_json::Value> {
        let until = self.resolve(now)?;
        let mut body = serde_json::Map::new();
        body.insert(
            "acknowledgedUntil".into(),
            format_timestamp(&until.with_nanosecond_truncated()).into(),
        );
        if let Some(c) = &self.comment {
            body.insert("acknowledgementComment".into(), c.clone().into());
        }
        Ok(body.into())
    }
}

trait TruncateNanos {
    fn with_nanosecond_truncated(self) -> Self;
}

impl TruncateNanos for DateTime<Utc> {
    fn with_nanosecond_truncated(self) -> Self {
        DateTime::<Utc>::from_timestamp(self.timestamp(), 0).unwrap_or(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_and_print() {
        for (s, out) in [
            ("P1D", "P1D"),
            ("PT1M", "PT1M"),
            ("PT10S", "PT10S"),
            ("P1DT12H", "P1DT12H"),
            ("P2W", "P2W"),
            ("P1Y2M3DT4H5M6.5S", "P1Y2M3DT4H5M6.5S"),
            ("PT0S", "PT0S"),
        ] {
            assert_eq!(s.parse::<IsoDuration>().unwrap().to_string(), out, "{s}");
        }
        for bad in [
            "", "P", "PT", "1D", "P1H", "PT1D", "P1.5D", "P1DT", "PT1M1H", "P-1D", "P1X",
        ] {
            assert!(bad.parse::<IsoDuration>().is_err(), "{bad}");
        }
    }

    #[test]
    fn granularity_names_the_argument() {
        let e = Granularity::parse("granularity", "PT2M").unwrap_err();
        assert!(e.to_string().contains("`granularity`"), "{e}");
        assert_eq!(IsoDuration::from_seconds(60).to_string(), "PT1M");
        assert_eq!(IsoDuration::from_seconds(86_400).to_string(), "P1D");
        assert_eq!(
            Granularity::parse("g", &IsoDuration::from_seconds(10).to_string()).unwrap(),
            Granularity::PT10S
        );
    }

    #[test]
    fn measurement_windows_are_checked_before_sending() {
        let t = |s| parse_timestamp("t", s).unwrap();
        let arg = |r: Result<MeasurementsQuery>| match r {
            Err(Error::InvalidArgument { argument, .. }) => argument,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                None,
                Some("P1D"),
                None,
                None,
                None
            )),
            "granularity"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                None,
                None,
                None,
                None
            )),
            "period"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                None,
                Some(t("2024-01-01T00:00:00Z")),
                None,
                None
            )),
            "end"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                Some("P1D"),
                Some(t("2024-01-01T00:00:00Z")),
                Some(t("2024-01-02T00:00:00Z")),
                None
            )),
            "period"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                None,
                Some(t("2024-01-02T00:00:00Z")),
                Some(t("2024-01-01T00:00:00Z")),
                None
            )),
            "start"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                Some("1 day"),
                None,
                None,
                None
            )),
            "period"
        );
        assert_eq!(
            arg(MeasurementsQuery::from_parts(
                Some("PT1M"),
                Some("P1D"),
                None,
                None,
                Some(vec![])
            )),
            "metrics"
        );
        let q = MeasurementsQuery::from_parts(
            Some("PT1M"),
            None,
            Some(t("2024-01-01T00:00:00Z")),
            Some(t("2024-01-01T01:00:00.5Z")),
            Some(vec!["CONNECTIONS".into()]),
        )
        .unwrap();
        assert_eq!(
            q.to_pairs(),
            vec![
                ("granularity", "PT1M".into()),
                ("start", "2024-01-01T00:00:00Z".into()),
                ("end", "2024-01-01T01:00:00.500Z".into()),
                ("m", "CONNECTIONS".into())
            ]
        );
    }

    #[test]
    fn timestamps_need_a_zone() {
        assert!(parse_timestamp("until", "2024-05-01T00:00:00")
            .unwrap_err()
            .to_string()
            .contains("no time zone"));
        assert!(parse_timestamp("until", "2024-05-01").is_err());
        assert_eq!(
            parse_timestamp("until", "2024-05-01T00:00Z")
                .unwrap()
                .timestamp(),
            1_714_521_600
        );
    }

    #[test]
    fn acknowledgements_resolve_against_now() {
        let now = parse_timestamp("now", "2024-01-31T10:00:00Z").unwrap();
        let ack = Acknowledgement::from_parts(None, Some("PT4H"), false, Some("x".into())).unwrap();
        assert_eq!(
            ack.to_body(now).unwrap(),
            serde_json::json!({"acknowledgedUntil": "2024-01-31T14:00:00Z", "acknowledgementComment": "x"})
        );
        let forever = Acknowledgement::from_parts(None, None, true, None).unwrap();
        assert_eq!(
            forever.to_body(now).unwrap(),
            serde_json::json!({"acknowledgedUntil": "2124-01-31T10:00:00Z"})
        );
        let month = Acknowledgement::from_parts(None, Some("P1M"), false, None).unwrap();
        assert_eq!(
            month.resolve(now).unwrap().to_rfc3339(),
            "2024-02-29T10:00:00+00:00"
        );
        assert!(Acknowledgement::from_parts(None, None, false, None).is_err());
        assert!(Acknowledgement::from_parts(Some(now), None, true, None).is_err());
        assert!(Acknowledgement::from_parts(None, Some("PT0S"), false, None).is_err());
        assert_eq!(
            Acknowledgement::unacknowledge().to_body(now).unwrap(),
            serde_json::json!({"acknowledgedUntil": "2024-01-31T09:59:00Z"})
        );
        let past = Acknowledgement::from_parts(Some(now), None, false, None).unwrap();
        let e = past.resolve(now).unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid argument `until`: 2024-01-31T10:00:00Z is not in the future, and \
             acknowledging until a past time would un-acknowledge the alert; to do that, call \
             unacknowledge()"
        );
        let far = parse_timestamp("t", "2124-02-01T00:00:00Z").unwrap();
        let e = Acknowledgement::new(AckUntil::Until(far))
            .resolve(now)
            .unwrap_err();
        assert!(e.to_string().contains("use forever"), "{e}");
    }

    #[test]
    fn durations_longer_than_a_century_are_refused_by_name() {
        let msg = |r: Result<IsoDuration>| r.unwrap_err().to_string();
        assert_eq!(
            msg(IsoDuration::parse("period", "P99999999W")),
            "invalid argument `period`: `P99999999W` is longer than 100 years"
        );
        assert_eq!(
            msg(IsoDuration::parse("period", "P4294967295Y")),
            "invalid argument `period`: `P4294967295Y` is longer than 100 years"
        );
        assert_eq!(
            msg(IsoDuration::parse_lenient("duration", "P4294967295W")),
            "invalid argument `duration`: `P4294967295W` is longer than 100 years"
        );
        assert_eq!(
            msg(IsoDuration::parse_lenient("duration", "1e300h")),
            "invalid argument `duration`: `1e300h` is not a duration: use 30m, 4h, 2d, 1w or ISO 8601 such as PT4H"
        );
        assert_eq!(
            msg(IsoDuration::parse_lenient("duration", "99999999999d")),
            "invalid argument `duration`: `99999999999d` is longer than 100 years"
        );
        // timedelta.max, as the Python layer passes it on.
        let max = IsoDuration::from_seconds(999_999_999 * 86_400 + 86_399).to_string();
        assert!(msg(IsoDuration::parse("period", &max)).ends_with("is longer than 100 years"));
        assert!(IsoDuration::parse("period", "P100Y").is_ok());
        assert!(IsoDuration::parse("period", "P36525D").is_ok());
        assert!(IsoDuration::parse("period", "P36526D").is_err());
    }
}
