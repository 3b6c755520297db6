//! The query of measurements requests: granularity, window and metric names.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};

use crate::error::{Error, Result};
use crate::iso8601::IsoDuration;
use crate::models::time::format_timestamp;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iso8601::parse_timestamp;

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
        let (jan1, jan2) = (
            Some(t("2024-01-01T00:00:00Z")),
            Some(t("2024-01-02T00:00:00Z")),
        );
        let no_metrics = Some(Vec::new());
        // (granularity, period, start, end, metrics) and the argument the error names.
        let refused = [
            (None, Some("P1D"), None, None, None, "granularity"),
            (Some("PT1M"), None, None, None, None, "period"),
            (Some("PT1M"), None, jan1, None, None, "end"),
            (Some("PT1M"), Some("P1D"), jan1, jan2, None, "period"),
            (Some("PT1M"), None, jan2, jan1, None, "start"),
            (Some("PT1M"), Some("1 day"), None, None, None, "period"),
            (Some("PT1M"), Some("P1D"), None, None, no_metrics, "metrics"),
        ];
        for (granularity, period, start, end, metrics, argument) in refused {
            match MeasurementsQuery::from_parts(granularity, period, start, end, metrics) {
                Err(Error::InvalidArgument { argument: a, .. }) => assert_eq!(a, argument),
                other => panic!("{argument}: {other:?}"),
            }
        }
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
}
