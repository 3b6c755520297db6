//! Fast, allocation-light formatting and parsing helpers for the simulator.

use chrono::{DateTime, TimeZone, Utc};

/// Days since 1970-01-01 to a civil (year, month, day) date (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = (z - era * 146_097) as u64;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe as i64 + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn push2(out: &mut Vec<u8>, v: u32) {
    out.push(b'0' + (v / 10 % 10) as u8);
    out.push(b'0' + (v % 10) as u8);
}

/// Appends `YYYY-MM-DDTHH:MM:SSZ` for a Unix time in seconds.
pub fn push_timestamp(out: &mut Vec<u8>, secs: i64) {
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400) as u32;
    let (y, m, d) = civil_from_days(days);
    let y = y.clamp(0, 9999) as u32;
    push2(out, y / 100);
    push2(out, y % 100);
    out.push(b'-');
    push2(out, m);
    out.push(b'-');
    push2(out, d);
    out.push(b'T');
    push2(out, sod / 3600);
    out.push(b':');
    push2(out, sod / 60 % 60);
    out.push(b':');
    push2(out, sod % 60);
    out.push(b'Z');
}

/// `YYYY-MM-DDTHH:MM:SSZ`, or with milliseconds when the instant has any.
pub fn iso(t: &DateTime<Utc>) -> String {
    let ms = t.timestamp_subsec_millis();
    if ms == 0 {
        t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    } else {
        t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
    }
}

/// Appends a JSON string literal.
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for &b in s.as_bytes() {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0..=0x1f => {
                out.extend_from_slice(b"\\u00");
                let hex = b"0123456789abcdef";
                out.push(hex[(b >> 4) as usize]);
                out.push(hex[(b & 15) as usize]);
            }
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

/// Appends a JSON number (always with a fraction, `5.0`, as the service writes doubles), or
/// `null` when the value is not finite.
pub fn push_f64(out: &mut Vec<u8>, buf: &mut ryu::Buffer, v: f64) {
    if v.is_finite() {
        out.extend_from_slice(buf.format_finite(v).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

/// Parses an ISO 8601 date-time (RFC 3339, `Z` or an offset; fractional seconds allowed;
/// a bare date means midnight UTC).
pub fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    if let Ok(t) = chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.fZ") {
        return Some(Utc.from_utc_datetime(&t));
    }
    if let Ok(t) = chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M%#z") {
        return Some(Utc.from_utc_datetime(&t));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return d.and_hms_opt(0, 0, 0).map(|t| Utc.from_utc_datetime(&t));
    }
    None
}

/// Parses an ISO 8601 duration (`P1D`, `PT1M`, `P2W`, `P1DT12H`, `PT0.5S`) into seconds.
///
/// Years count 365 days and months 30. Returns `None` for anything else, or a zero or
/// negative duration.
pub fn parse_duration(s: &str) -> Option<f64> {
    let s = s.trim();
    let rest = s.strip_prefix('P').or_else(|| s.strip_prefix('p'))?;
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0f64;
    let mut in_time = false;
    let mut num = String::new();
    let mut any = false;
    let mut any_time = false;
    for c in rest.chars() {
        match c {
            '0'..='9' | '.' => num.push(c),
            'T' | 't' if num.is_empty() && !in_time => in_time = true,
            _ => {
                if num.is_empty() {
                    return None;
                }
                let n: f64 = num.parse().ok()?;
                num.clear();
                let unit = match (in_time, c.to_ascii_uppercase()) {
                    (false, 'Y') => 365.0 * 86_400.0,
                    (false, 'M') => 30.0 * 86_400.0,
                    (false, 'W') => 7.0 * 86_400.0,
                    (false, 'D') => 86_400.0,
                    (true, 'H') => 3600.0,
                    (true, 'M') => 60.0,
                    (true, 'S') => 1.0,
                    _ => return None,
                };
                total += n * unit;
                any = true;
                any_time |= in_time;
            }
        }
    }
    if !num.is_empty() || !any || (in_time && !any_time) || !total.is_finite() || total <= 0.0 {
        return None;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_match_chrono() {
        for secs in [
            0i64,
            951_782_400,
            1_714_521_600,
            1_709_164_800 + 86_399,
            4_102_444_800,
        ] {
            let mut out = Vec::new();
            push_timestamp(&mut out, secs);
            let t = Utc.timestamp_opt(secs, 0).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
            );
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("P1D"), Some(86_400.0));
        assert_eq!(parse_duration("PT1M"), Some(60.0));
        assert_eq!(parse_duration("P1DT12H"), Some(129_600.0));
        assert_eq!(parse_duration("P2W"), Some(1_209_600.0));
        assert_eq!(parse_duration("PT0.5S"), Some(0.5));
        for bad in [
            "", "P", "PT", "1D", "P1H", "PT1D", "P1", "PxD", "P0D", "P1DT",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }

    #[test]
    fn times() {
        assert!(parse_time("2024-05-01T00:00:00Z").is_some());
        assert!(parse_time("2024-05-01T00:00:00.123Z").is_some());
        assert!(parse_time("2024-05-01T02:00:00+02:00").is_some());
        assert!(parse_time("2024-05-01").is_some());
        assert!(parse_time("yesterday").is_none());
    }
}
