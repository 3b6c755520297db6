//! The pure core of a sync: what to ask of each target, which of the answer's points are new,
//! which files a month of new points goes to (and which are compacted with it), and which
//! files fall out of the store's window. No I/O here: every rule is a function of the store's
//! state and the clock, unit-tested on its own.

use chrono::{DateTime, Datelike, TimeZone, Utc};

use super::manifest::{FileEntry, Hole, Key, TargetState};
use crate::api::measurements::query::Granularity;
use crate::api::measurements::target::Target;
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
/// - From one step before its earliest hole (a span the store lost: see `check`), so that
///   the same request answers the hole again, its first point with its value (a hole wholly
///   before the window is not asked: `holes_in_window`).
/// - Never from before `lookback_ms` (the store's window at this granularity; for one kept
///   for good, the longest window of the sync), unless the server's clock is not `trusted`
///   (far ahead of this machine's): then a known target is asked from its last stored point
///   whatever that clock says, so that no span is skipped because of it.
pub(crate) fn ask(
    state: Option<&TargetState>,
    now_grid: i64,
    lookback_ms: i64,
    step_s: u64,
    trusted: bool,
) -> Option<Ask> {
    let step = step_s as i64 * MS;
    let mut oldest = now_grid.saturating_sub(lookback_ms);
    if !trusted {
        if let Some(last) = state.and_then(TargetState::last) {
            oldest = oldest.min(last);
        }
    }
    let mut start = oldest;
    let mut hole_start = None;
    if let Some(s) = state {
        // Not bounded by the window: a hole that straddles its start is asked whole (its
        // file would have stayed whole), so that only what the server no longer has is a gap.
        hole_start = s.holes.iter().map(|h| h.first.saturating_sub(step)).min();
        if hole_start.is_none() && s.asked_until.is_some_and(|a| a >= now_grid) {
            return None;
        }
        if let Some(last) = s.last() {
            start = start.max(last);
        }
        if let Some(asked) = s.asked_until {
            start = start.max(asked - step);
        }
    }
    let start = hole_start.map_or(start, |h| h.min(start));
    (start < now_grid).then_some(Ask {
        start,
        end: now_grid,
    })
}

/// The holes of a target still worth asking: those with a point at or after `cutoff` (the
/// start of the store's window, [`removal_cutoff`]: a hole wholly older would have left the
/// window anyway: it is dropped, and is no gap).
pub(crate) fn holes_in_window(holes: &[Hole], cutoff: i64) -> Vec<Hole> {
    holes.iter().filter(|h| h.last >= cutoff).copied().collect()
}

/// An `asked_until` later than `limit` (the server's now and the clock tolerance) can only
/// come from a clock that was wrong: it would keep the target from being asked until that
/// time. It is brought back to the last stored point (none: forgotten), so that the target is
/// asked from there. Returns whether it was repaired.
pub(crate) fn repair_asked_until(state: &mut TargetState, limit: i64) -> bool {
    match state.asked_until {
        Some(a) if a > limit => {
            state.asked_until = state.last().filter(|l| *l <= limit);
            true
        }
        _ => false,
    }
}

/// The instant before which a target's files may leave the store's window: the window back
/// from the earliest of the server's now, this machine's now and the target's newest stored
/// point, so that no one answer (a server's clock a year ahead) decides a removal.
pub(crate) fn removal_cutoff(
    server_now: i64,
    local_now: i64,
    newest: Option<i64>,
    window_ms: i64,
) -> i64 {
    let now = server_now.min(local_now).min(newest.unwrap_or(i64::MAX));
    now.saturating_sub(window_ms)
}

/// Keeps the points of every series of `m` whose timestamp is within `from..=to`, values
/// along with their timestamps. Returns the number of points kept.
pub(crate) fn retain_window(m: &mut Measurements, from: i64, to: i64) -> usize {
    retain_points(m, |t| (from..=to).contains(&t))
}

/// Keeps the points of every series of `m` whose timestamp is `wanted`, with their values.
/// Returns the number of points kept.
fn retain_points(m: &mut Measurements, wanted: impl Fn(i64) -> bool) -> usize {
    let mut kept = 0;
    for s in &mut m.series {
        let mut ts = Vec::with_capacity(s.timestamps.len());
        let mut vs = Vec::with_capacity(s.values.len());
        for (t, v) in s.timestamps.iter().zip(&s.values) {
            if wanted(*t) {
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
/// window, and those inside one of its `holes` (spans it lost, asked again). Returns the
/// number of points kept.
pub(crate) fn new_points(
    m: &mut Measurements,
    last: Option<i64>,
    ask: Ask,
    holes: &[Hole],
) -> usize {
    let from = match last {
        Some(l) => l.saturating_add(1).max(ask.start),
        None => ask.start,
    };
    retain_points(m, |t| {
        (from..=ask.end).contains(&t) || holes.iter().any(|h| (h.first..=h.last).contains(&t))
    })
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

/// What the store asks of one target at one granularity in this sync.
pub(super) struct Plan {
    pub(super) key: Key,
    pub(super) target: Target,
    pub(super) granularity: Granularity,
    pub(super) ask: Ask,
    /// Its files before this sync.
    pub(super) files: Vec<FileEntry>,
    /// The spans it lost that this request answers again.
    pub(super) holes: Vec<Hole>,
    pub(super) is_new: bool,
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
                checksum: None,
                modified: None,
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
        let a = ask(None, 100 * H, 35 * 24 * H, 3600, true).unwrap();
        assert_eq!((a.start, a.end), (100 * H - 35 * 24 * H, 100 * H));
    }

    #[test]
    fn a_known_target_is_asked_from_its_last_point_overlapping_by_one() {
        let s = state(Some(99 * H), Some(99 * H));
        assert_eq!(
            ask(Some(&s), 100 * H, 35 * 24 * H, 3600, true),
            Some(Ask {
                start: 99 * H,
                end: 100 * H
            })
        );
    }

    #[test]
    fn nothing_is_asked_when_nothing_can_be_new() {
        let s = state(Some(100 * H), Some(100 * H));
        assert_eq!(ask(Some(&s), 100 * H, 35 * 24 * H, 3600, true), None);
        // Asked up to now and answered empty: not asked again at the same time.
        let empty = state(None, Some(100 * H));
        assert_eq!(ask(Some(&empty), 100 * H, 35 * 24 * H, 3600, true), None);
    }

    #[test]
    fn an_empty_span_is_asked_once_not_at_every_sync() {
        // Data up to hour 50, then answers empty up to hour 99: the next sync asks from one
        // step before hour 99, not from hour 50 again.
        let s = state(Some(50 * H), Some(99 * H));
        let a = ask(Some(&s), 100 * H, 35 * 24 * H, 3600, true).unwrap();
        assert_eq!(a.start, 98 * H);
        // Never asked anything but answered empty: the same.
        let s = state(None, Some(99 * H));
        assert_eq!(
            ask(Some(&s), 100 * H, 35 * 24 * H, 3600, true)
                .unwrap()
                .start,
            98 * H
        );
    }

    #[test]
    fn never_before_the_window() {
        let s = state(Some(H), Some(H));
        let a = ask(Some(&s), 1000 * H, 24 * H, 3600, true).unwrap();
        assert_eq!(a.start, 976 * H);
    }

    #[test]
    fn a_hole_is_asked_again_from_one_step_before_it_by_the_same_request() {
        // Data up to hour 99, the file of hours 40..=50 lost: asked from hour 39, and even
        // when nothing can be new at the end.
        let mut s = state(Some(99 * H), Some(100 * H));
        s.holes.push(Hole {
            first: 40 * H,
            last: 50 * H,
            rows: 11,
        });
        let a = ask(Some(&s), 100 * H, 35 * 24 * H, 3600, true).unwrap();
        assert_eq!((a.start, a.end), (39 * H, 100 * H));
        // Kept: the hole's points and what is new, not the stored points between.
        let ts: Vec<i64> = (39..=100).map(|h| h * H).collect();
        let mut m = measurements(&ts);
        assert_eq!(new_points(&mut m, Some(99 * H), a, &s.holes), 2 * (11 + 1));
        assert_eq!(m.series[0].timestamps.first(), Some(&(40 * H)));
        assert_eq!(m.series[0].timestamps.last(), Some(&(100 * H)));
        // A hole wholly before the window is not asked (and is no gap).
        assert!(holes_in_window(&s.holes, 76 * H).is_empty());
        assert_eq!(holes_in_window(&s.holes, 50 * H).len(), 1);
    }

    #[test]
    fn an_asked_until_after_the_servers_now_is_repaired() {
        // A sync whose server said it was a year later asked up to then; with the clock
        // right again the target would not be asked for a year.
        let year = 365 * 24 * H;
        let mut s = state(Some(99 * H), Some(100 * H + year));
        assert_eq!(ask(Some(&s), 101 * H, 35 * 24 * H, 3600, true), None);
        // Within the tolerance (a `Date` a second off) it stands.
        assert!(!repair_asked_until(
            &mut state(Some(99 * H), Some(100 * H)),
            100 * H - 1000 + 300_000
        ));
        assert!(repair_asked_until(&mut s, 101 * H + 300_000));
        assert_eq!(s.asked_until, Some(99 * H));
        assert_eq!(
            ask(Some(&s), 101 * H, 35 * 24 * H, 3600, true),
            Some(Ask {
                start: 99 * H,
                end: 101 * H
            })
        );
        assert!(!repair_asked_until(&mut s, 101 * H + 300_000));
    }

    #[test]
    fn a_clock_not_trusted_never_skips_a_span() {
        // The server says it is a year later: its window would start long after the last
        // stored point. Not trusted, the target is asked from that point all the same.
        let year = 365 * 24 * H;
        let s = state(Some(99 * H), Some(99 * H));
        let now = 100 * H + year;
        assert_eq!(
            ask(Some(&s), now, 48 * H, 3600, true).unwrap().start,
            now - 48 * H
        );
        assert_eq!(
            ask(Some(&s), now, 48 * H, 3600, false).unwrap().start,
            99 * H
        );
    }

    #[test]
    fn no_one_clock_decides_a_removal() {
        let (w, year) = (48 * H, 365 * 24 * H);
        // All three agree: the window back from now.
        assert_eq!(removal_cutoff(100 * H, 100 * H, Some(100 * H), w), 52 * H);
        // A server a year ahead: this machine's clock and the newest point hold it back.
        assert_eq!(
            removal_cutoff(100 * H + year, 100 * H, Some(100 * H), w),
            52 * H
        );
        // Both clocks ahead, the data not: the newest stored point holds it back.
        assert_eq!(
            removal_cutoff(100 * H + year, 100 * H + year, Some(100 * H), w),
            52 * H
        );
        // A target with nothing stored: the clocks alone.
        assert_eq!(removal_cutoff(100 * H, 90 * H, None, w), 42 * H);
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
        assert_eq!(new_points(&mut m, Some(9 * H), a, &[]), 4);
        let s = &m.series[0];
        assert_eq!(s.timestamps, [10 * H, 11 * H]);
        assert_eq!(s.values, [Some(1.0), Some(2.0)]);
        // A first ask keeps everything in the window, the null first point included.
        let mut m = measurements(&[9 * H, 10 * H]);
        assert_eq!(new_points(&mut m, None, a, &[]), 4);
        assert_eq!(m.series[0].values, [None, Some(1.0)]);
    }

    #[test]
    fn points_outside_the_window_are_not_kept() {
        let mut m = measurements(&[8 * H, 9 * H, 12 * H]);
        let a = Ask {
            start: 9 * H,
            end: 11 * H,
        };
        assert_eq!(new_points(&mut m, None, a, &[]), 2);
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
            checksum: None,
            modified: None,
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
            checksum: None,
            modified: None,
        };
        let files = [f(0, 10), f(11, 20), f(21, 30)];
        assert_eq!(expired(&files, 15), [0]);
        assert_eq!(expired(&files, 31), [0, 1, 2]);
        assert!(expired(&files, 0).is_empty());
    }
}
