//! ISO 8601 as users type it: timestamps with a time zone and durations (`P1D`, `PT1M`,
//! `4h`). Parsed here once, for Rust callers, the Python layer and the command line alike.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Months, TimeDelta, Utc};

use crate::error::{Error, Result};

/// Parses an ISO 8601 timestamp with a time zone (`2024-05-01T00:00:00Z`,
/// `2024-05-01T02:00:00+02:00`). A time without a zone is rejected: its zone would be a guess.
///
/// ```
/// let t = opsapi::iso8601::parse_timestamp("start", "2024-05-01T02:00:00+02:00").unwrap();
/// assert_eq!(t.to_rfc3339(), "2024-05-01T00:00:00+00:00");
/// assert!(opsapi::iso8601::parse_timestamp("start", "2024-05-01T00:00:00").is_err());
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
                                .ok()
                                .filter(|s| s.is_finite())
                                .ok_or_else(|| "the number is too large".to_string())?
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
        let endless_seconds = format!("PT{}S", "9".repeat(309));
        for bad in [
            "",
            "P",
            "PT",
            "1D",
            "P1H",
            "PT1D",
            "P1.5D",
            "P1DT",
            "PT1M1H",
            "P-1D",
            "P1X",
            &endless_seconds,
        ] {
            assert!(bad.parse::<IsoDuration>().is_err(), "{bad}");
        }
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
    fn durations_longer_than_a_century_are_refused_by_name() {
        let msg = |r: Result<IsoDuration>| r.unwrap_err().to_string();
        // (argument, input, message): `period` is read strictly, `duration` leniently.
        for (argument, input, expected) in [
            ("period", "P99999999W", "is longer than 100 years"),
            ("period", "P4294967295Y", "is longer than 100 years"),
            ("duration", "P4294967295W", "is longer than 100 years"),
            (
                "duration",
                "1e300h",
                "is not a duration: use 30m, 4h, 2d, 1w or ISO 8601 such as PT4H",
            ),
            ("duration", "99999999999d", "is longer than 100 years"),
        ] {
            let parse = match argument {
                "period" => IsoDuration::parse,
                _ => IsoDuration::parse_lenient,
            };
            assert_eq!(
                msg(parse(argument, input)),
                format!("invalid argument `{argument}`: `{input}` {expected}")
            );
        }
        // timedelta.max, as the Python layer passes it on.
        let max = IsoDuration::from_seconds(999_999_999 * 86_400 + 86_399).to_string();
        assert!(msg(IsoDuration::parse("period", &max)).ends_with("is longer than 100 years"));
        assert!(IsoDuration::parse("period", "P100Y").is_ok());
        assert!(IsoDuration::parse("period", "P36525D").is_ok());
        assert!(IsoDuration::parse("period", "P36526D").is_err());
    }
}
