//! The pure core of a sync: what to ask of each target, which of the answer's points are new,
//! which files a month of new points goes to (and which are compacted with it), and which
//! files fall out of the store's window. No I/O here: every rule is a function of the store's
//! state and the clock, unit-tested on its own.

use chrono::{DateTime, Datelike, TimeZone, Utc};

use super::manifest::{FileEntry, TargetState};
use crate::models::Measurements;

/// Milliseconds in a second.
const MS: i64 = 1000;

/// The grid point of a `step_s`-second granularity at or before `t_ms` (the service's points
/// sit on that grid, days at midnight UTC).
pub(crate) fn grid_floor(t_ms: i64, step_s: u64) -> i64 {
    let step = step_s as i64 * MS;
    t_ms.div_euclid(step) * step
}

/// The window of one request, `start..=end` in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ask {
    /// `start`: the last stored point (the one-point overlap), or where the store's window
    /// begins for a target never asked.
    pub start: i64,
    /// `end`: now, on the granularity's grid.
    pub end: i64,
}

/// What to ask of a target, or `None` when nothing can be new since it was last asked.
///
/// - A target never asked: the store's whole window, `now - window ..= now`.
/// - Otherwise from its last stored point, so that the answer's first point (null in a rate
///   series) is one the store already holds, and the first new point has its value.
/// - Never from before the end of the last request by more than one step: a span the server
///   answered empty (it no longer holds that granularity there, or the host sent nothing) is
///   asked once, not again at every sync.
/// - Never from before the store's window.
pub(crate) fn ask(
    state: Option<&TargetState>,
    now_grid: i64,
    window_ms: i64,
    step_s: u64,
) -> Option<Ask> {
    let oldest = now_grid - window_ms;
    let mut start = oldest;
    if let Some(s) = state {
        if s.asked_until.is_some_and(|a| a >= now_grid) {
            return None;
        }
        if let Some(last) = s.last() {
            start = start.max(last);
        }
        if let Some(asked) = s.asked_until {
            start = start.max(asked - step_s as i64 * MS);
        }
    }
    (start < now_grid).then_some(Ask {
        start,
        end: now_grid,
    })
}

/// Keeps the points of every series of `m` whose timestamp is within `from..=to`, values
/// along with their timestamps. Returns the number of points kept.
pub(crate) fn retain_window(m: &mut Measurements, from: i64, to: i64) -> usize {
    let mut kept = 0;
    for s in &mut m.series {
        let mut ts = Vec::with_capacity(s.timestamps.len());
        let mut vs = Vec::with_capacity(s.values.len());
        for (t, v) in s.timestamps.iter().zip(&s.values) {
            if (from..=to).contains(t) {
                ts.push(*t);
                vs.push(*v);
            }
        }
        kept += ts.len();
        s.timestamps = ts;
        s.values = vs;
    }
    kept
}

/// The points of `m` that are new to a target whose last stored point is `last`, asked with
/// `ask`: after `last` (the overlapped point stays as stored: the answer's first point of a
/// rate series is null and must not replace the value before it), within the request's
/// window. Returns the number of points kept.
pub(crate) fn new_points(m: &mut Measurements, last: Option<i64>, ask: Ask) -> usize {
    let from = match last {
        Some(l) => l.saturating_add(1).max(ask.start),
        None => ask.start,
    };
    retain_window(m, from, ask.end)
}

/// The calendar month (UTC) of a timestamp, as `YYYY-MM`: the unit of the store's files.
pub(crate) fn month_of(t_ms: i64) -> String {
    let t: DateTime<Utc> = Utc.timestamp_millis_opt(t_ms).single().unwrap_or_default();
    format!("{:04}-{:02}", t.year(), t.month())
}

/// The first instant of the month after the one holding `t_ms`.
pub(crate) fn next_month_start(t_ms: i64) -> i64 {
    let t: DateTime<Utc> = Utc.timestamp_millis_opt(t_ms).single().unwrap_or_default();
    let (y, m) = if t.month() == 12 {
        (t.year() + 1, 1)
    } else {
        (t.year(), t.month() + 1)
    };
    Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0)
        .single()
        .map_or(i64::MAX, |d| d.timestamp_millis())
}

/// How many files one target may hold in one month before they are compacted.
pub(crate) const MAX_FILES_PER_MONTH: usize = 4;

/// Which of a target's files of one month are merged with a month's new points (indices into
/// `files`, oldest first), so that a month holds at most [`MAX_FILES_PER_MONTH`] files and
/// ends as one:
///
/// - below the bound, none: the new points go to a file of their own;
/// - at the bound, the small files and the new points, leaving the month's largest file as
///   it is while it holds at least four times the rest (so that a month's big file is
///   rewritten only each time the month has grown by a quarter, not at every sync);
/// - otherwise every file of the month.
pub(crate) fn to_merge(files: &[&FileEntry], new_rows: u64) -> Vec<usize> {
    if files.len() + 1 < MAX_FILES_PER_MONTH {
        return Vec::new();
    }
    let largest = (0..files.len()).max_by_key(|&i| (files[i].rows, std::cmp::Reverse(i)));
    let rest: u64 = new_rows + files.iter().map(|f| f.rows).sum::<u64>();
    match largest {
        Some(big) if files[big].rows >= 4 * (rest - files[big].rows) => {
            (0..files.len()).filter(|&i| i != big).collect()
        }
        _ => (0..files.len()).collect(),
    }
}

/// The files that fall out of the store's window (`cutoff`: its oldest instant): those whose
/// every point is older. Whole files go; a file that straddles the cutoff stays.
pub(crate) fn expired(files: &[FileEntry], cutoff: i64) -> Vec<usize> {
    (0..files.len())
        .filter(|&i| files[i].last < cutoff)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::Series;

    const H: i64 = 3_600_000;

    fn state(last: Option<i64>, asked_until: Option<i64>) -> TargetState {
        let mut s = TargetState::default();
        if let Some(l) = last {
            s.files.push(FileEntry {
                name: "f".into(),
                rows: 1,
                bytes: 1,
                first: l - H,
                last: l,
            });
        }
        s.asked_until = asked_until;
        s
    }

    #[test]
    fn the_grid_is_the_services() {
        assert_eq!(grid_floor(10 * H + 59 * 60_000, 3600), 10 * H);
        assert_eq!(grid_floor(-1, 60), -60_000);
        assert_eq!(grid_floor(86_400_000 + 5, 86_400), 86_400_000);
    }

    #[test]
    fn a_new_target_is_asked_its_window() {
        let a = ask(None, 100 * H, 35 * 24 * H, 3600).unwrap();
        assert_eq!((a.start, a.end), (100 * H - 35 * 24 * H, 100 * H));
    }

    #[test]
    fn a_known_target_is_asked_from_its_last_point_overlapping_by_one() {
        let s = state(Some(99 * H), Some(99 * H));
        assert_eq!(
            ask(Some(&s), 100 * H, 35 * 24 * H, 3600),
            Some(Ask {
                start: 99 * H,
                end: 100 * H
            })
        );
    }

    #[test]
    fn nothing_is_asked_when_nothing_can_be_new() {
        let s = state(Some(100 * H), Some(100 * H));
        assert_eq!(ask(Some(&s), 100 * H, 35 * 24 * H, 3600), None);
        // Asked up to now and answered empty: not asked again at the same time.
        let empty = state(None, Some(100 * H));
        assert_eq!(ask(Some(&empty), 100 * H, 35 * 24 * H, 3600), None);
    }

    #[test]
    fn an_empty_span_is_asked_once_not_at_every_sync() {
        // Data up to hour 50, then answers empty up to hour 99: the next sync asks from one
        // step before hour 99, not from hour 50 again.
        let s = state(Some(50 * H), Some(99 * H));
        let a = ask(Some(&s), 100 * H, 35 * 24 * H, 3600).unwrap();
        assert_eq!(a.start, 98 * H);
        // Never asked anything but answered empty: the same.
        let s = state(None, Some(99 * H));
        assert_eq!(
            ask(Some(&s), 100 * H, 35 * 24 * H, 3600).unwrap().start,
            98 * H
        );
    }

    #[test]
    fn never_before_the_window() {
        let s = state(Some(H), Some(H));
        let a = ask(Some(&s), 1000 * H, 24 * H, 3600).unwrap();
        assert_eq!(a.start, 976 * H);
    }

    fn measurements(ts: &[i64]) -> Measurements {
        let mut m: Measurements = crate::decode_model(br#"{"measurements":[]}"#).unwrap();
        let values: Vec<Option<f64>> = ts
            .iter()
            .enumerate()
            .map(|(i, _)| (i > 0).then_some(i as f64))
            .collect();
        m.series = vec![
            Series::new(
                "OPCOUNTER_CMD",
                Some("SCALAR_PER_SECOND"),
                ts.to_vec(),
                values.clone(),
            ),
            Series::new("CONNECTIONS", Some("SCALAR"), ts.to_vec(), values),
        ];
        m
    }

    #[test]
    fn the_overlapped_null_never_replaces_the_stored_value() {
        // Asked from the last stored point (hour 9): the answer's first point, null in a rate
        // series, is that stored point; it is left out, and the new points keep their values.
        let mut m = measurements(&[9 * H, 10 * H, 11 * H]);
        let a = Ask {
            start: 9 * H,
            end: 11 * H,
        };
        assert_eq!(new_points(&mut m, Some(9 * H), a), 4);
        let s = &m.series[0];
        assert_eq!(s.timestamps, [10 * H, 11 * H]);
        assert_eq!(s.values, [Some(1.0), Some(2.0)]);
        // A first ask keeps everything in the window, the null first point included.
        let mut m = measurements(&[9 * H, 10 * H]);
        assert_eq!(new_points(&mut m, None, a), 4);
        assert_eq!(m.series[0].values, [None, Some(1.0)]);
    }

    #[test]
    fn points_outside_the_window_are_not_kept() {
        let mut m = measurements(&[8 * H, 9 * H, 12 * H]);
        let a = Ask {
            start: 9 * H,
            end: 11 * H,
        };
        assert_eq!(new_points(&mut m, None, a), 2);
        assert_eq!(m.series[1].timestamps, [9 * H]);
    }

    #[test]
    fn months_are_utc_calendar_months() {
        let feb_end = Utc
            .with_ymd_and_hms(2026, 2, 28, 23, 0, 0)
            .unwrap()
            .timestamp_millis();
        assert_eq!(month_of(feb_end), "2026-02");
        assert_eq!(month_of(feb_end + H), "2026-03");
        assert_eq!(next_month_start(feb_end), feb_end + H);
        let dec = Utc
            .with_ymd_and_hms(2025, 12, 5, 0, 0, 0)
            .unwrap()
            .timestamp_millis();
        assert_eq!(month_of(next_month_start(dec)), "2026-01");
    }

    fn file(rows: u64) -> FileEntry {
        FileEntry {
            name: String::new(),
            rows,
            bytes: 0,
            first: 0,
            last: 0,
        }
    }

    #[test]
    fn a_month_is_compacted_at_the_bound_and_its_big_file_rarely() {
        let (big, s1, s2) = (file(1000), file(9), file(9));
        // Below the bound: a file of its own.
        assert!(to_merge(&[&big, &s1], 9).is_empty());
        // At the bound: the small files and the new points, the big file left as it is.
        assert_eq!(to_merge(&[&big, &s1, &s2], 9), [1, 2]);
        // Once the rest is over a quarter of the big file, everything.
        let (m1, m2) = (file(100), file(100));
        assert_eq!(to_merge(&[&big, &m1, &m2], 100), [0, 1, 2]);
    }

    #[test]
    fn only_whole_files_older_than_the_window_expire() {
        let f = |first, last| FileEntry {
            name: String::new(),
            rows: 1,
            bytes: 1,
            first,
            last,
        };
        let files = [f(0, 10), f(11, 20), f(21, 30)];
        assert_eq!(expired(&files, 15), [0]);
        assert_eq!(expired(&files, 31), [0, 1, 2]);
        assert!(expired(&files, 0).is_empty());
    }
}
