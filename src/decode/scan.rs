//! A one-pass byte scanner for measurement bodies.
//!
//! (Over 600 lines: one scanner, its states sharing one cursor, and its tests against serde
//! beside it, a sixth of the file.)
//!
//! A measurements response is almost all data points, and serde spends most of its time on
//! them: walking each `{"timestamp": ..., "value": ...}` through the visitor machinery, and,
//! to hand the scanner a slice, skipping the whole `dataPoints` array once before it is read.
//! This scanner reads the body once, left to right, straight into the columns of
//! [`Measurements`]. It accepts the JSON the service sends (any whitespace, any key order,
//! unknown keys, `null`s) and gives up, returning `None`, at anything else it does not fully
//! understand: an escape in a string, a duplicate key, a malformed number or timestamp. The
//! caller then decodes the body with serde, which either agrees or reports the error with its
//! field path, so the result never depends on the path taken.
//!
//! Values of unknown keys and `links` are cut out of the body by [`Scan::value_slice`] and
//! parsed (and validated) by serde_json: they are small and rare.
//!
//! (Over 600 lines: one state machine and its tests; its parts are not useful apart.)

use serde_json::Value;

use super::NESTING_LIMIT;
use crate::models::measurements::{
    Measurements, Series, K_DATABASE, K_END, K_GRANULARITY, K_GROUP, K_HOST, K_LINKS,
    K_MEASUREMENTS, K_PARTITION, K_PROCESS, K_START,
};
use crate::models::time::parse_millis;
use crate::models::Link;
use chrono::DateTime;

/// Scans a measurements body (plain or in a `{"status", "content"}` envelope).
pub(crate) fn measurements(body: &[u8]) -> Option<Measurements> {
    let mut s = Scan {
        b: body,
        i: 0,
        utf8: false,
    };
    s.ws();
    let m = s.measurements(0)?;
    s.ws();
    (s.i == body.len()).then_some(m)
}

pub(super) struct Scan<'a> {
    pub(super) b: &'a [u8],
    pub(super) i: usize,
    /// `b` is known to be UTF-8 (checked once, whole): strings need no check of their own.
    pub(super) utf8: bool,
}

/// Exact powers of ten: a decimal with at most 15 digits times or over one of these is
/// correctly rounded (Clinger's fast path).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The prefix of a data point as the service writes it, and what follows its timestamp.
const POINT_HEAD: &[u8] = b"{\"timestamp\":\"";
const POINT_MID: &[u8] = b"\",\"value\":";

impl<'a> Scan<'a> {
    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    pub(super) fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.i += 1;
        }
    }

    /// Consumes `c` (after whitespace).
    #[inline]
    pub(super) fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// Consumes `lit` if the input continues with it.
    #[inline]
    pub(super) fn lit(&mut self, lit: &[u8]) -> bool {
        let hit = self.b[self.i..].starts_with(lit);
        if hit {
            self.i += lit.len();
        }
        hit
    }

    /// A string without escapes or control characters, at the cursor (after whitespace).
    pub(super) fn string(&mut self) -> Option<&'a str> {
        self.ws();
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.i + 1;
        let end = start + memchr::memchr2(b'"', b'\\', &self.b[start..])?;
        let text = &self.b[start..end];
        if self.b[end] != b'"' || text.iter().any(|&c| c < 0x20) {
            return None;
        }
        self.i = end + 1;
        if self.utf8 {
            // SAFETY: a slice of UTF-8 text between two ASCII quotes is UTF-8.
            Some(unsafe { std::str::from_utf8_unchecked(text) })
        } else {
            std::str::from_utf8(text).ok()
        }
    }

    /// `null` or a string.
    pub(super) fn opt_string(&mut self) -> Option<Option<&'a str>> {
        self.ws();
        if self.lit(b"null") {
            return Some(None);
        }
        self.string().map(Some)
    }

    /// The extent of the value at the cursor, without checking it (the caller parses it with
    /// serde_json, which does). `level` is the number of arrays and objects around the value:
    /// a value that would take the body to the nesting limit is left to serde, which names it.
    pub(super) fn value_slice(&mut self, level: usize) -> Option<&'a [u8]> {
        self.ws();
        let start = self.i;
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    loop {
                        match self.peek()? {
                            b'"' => break,
                            b'\\' => self.i += 2,
                            _ => self.i += 1,
                        }
                    }
                    self.i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                b'{' | b'[' => {
                    depth += 1;
                    if level + depth >= NESTING_LIMIT {
                        return None;
                    }
                    self.i += 1;
                }
                b'}' | b']' => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                    self.i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                b',' | b' ' | b'\n' | b'\r' | b'\t' if depth == 0 => break,
                _ => self.i += 1,
            }
        }
        (self.i > start).then(|| &self.b[start..self.i])
    }

    /// Any JSON value inside `level` arrays and objects, parsed by serde_json.
    fn value(&mut self, level: usize) -> Option<Value> {
        serde_json::from_slice(self.value_slice(level)?).ok()
    }

    /// Walks an object: `f` is called with each key, the cursor on its value.
    pub(super) fn object(
        &mut self,
        mut f: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            let key = self.string()?;
            self.eat(b':')?;
            f(self, key)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Walks an array (or `null`, which has no element): `f` is called with the cursor on
    /// each element.
    pub(super) fn array(&mut self, mut f: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.ws();
        if self.lit(b"null") {
            return Some(());
        }
        self.eat(b'[')?;
        self.ws();
        if self.peek()? == b']' {
            self.i += 1;
            return Some(());
        }
        loop {
            f(self)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A measurements object; `depth` counts `content` envelopes around it.
    fn measurements(&mut self, depth: u8) -> Option<Measurements> {
        let mut m = Measurements::default();
        let mut content: Option<Measurements> = None;
        let mut hint = 0usize;
        self.object(|s, key| {
            let bit = match key {
                "groupId" => K_GROUP,
                "hostId" => K_HOST,
                "processId" => K_PROCESS,
                "partitionName" => K_PARTITION,
                "databaseName" => K_DATABASE,
                "granularity" => K_GRANULARITY,
                "start" => K_START,
                "end" => K_END,
                "links" => K_LINKS,
                "measurements" => K_MEASUREMENTS,
                "content" if depth == 0 && content.is_none() => {
                    content = Some(s.measurements(depth + 1)?);
                    return Some(());
                }
                _ => {
                    if m.extra.contains_key(key) || key == "content" {
                        return None;
                    }
                    let v = s.value(usize::from(depth) + 1)?;
                    m.extra.insert(key.to_string(), v);
                    return Some(());
                }
            };
            if m.present & bit != 0 {
                return None;
            }
            m.present |= bit;
            let text = |s: &mut Self| s.opt_string().map(|v| v.map(str::to_string));
            let time = |s: &mut Self| -> Option<_> {
                match s.opt_string()? {
                    None => Some(None),
                    Some(t) => Some(DateTime::from_timestamp_millis(parse_millis(t).ok()?)),
                }
            };
            match bit {
                K_GROUP => m.group_id = text(s)?,
                K_HOST => m.host_id = text(s)?,
                K_PROCESS => m.process_id = text(s)?,
                K_PARTITION => m.partition_name = text(s)?,
                K_DATABASE => m.database_name = text(s)?,
                K_GRANULARITY => m.granularity = text(s)?,
                K_START => m.start = time(s)?,
                K_END => m.end = time(s)?,
                K_LINKS => {
                    let links: Option<Vec<Link>> =
                        serde_json::from_slice(s.value_slice(usize::from(depth) + 1)?).ok()?;
                    m.links = links.unwrap_or_default();
                }
                _ => s.array(|s| {
                    let series = s.series(usize::from(depth) + 3, hint)?;
                    hint = series.len();
                    m.series.push(series);
                    Some(())
                })?,
            }
            Some(())
        })?;
        match content {
            None => Some(m),
            // The envelope: `content` and nothing else but `status`.
            Some(inner) if m.present == 0 && m.extra.keys().all(|k| k == "status") => Some(inner),
            Some(_) => None,
        }
    }

    /// One series, the `level`-th array or object of the body; `hint` is the length of the one before (series of a response share their
    /// timestamps, so their columns are allocated once at the right size).
    fn series(&mut self, level: usize, hint: usize) -> Option<Series> {
        let mut s = Series::default();
        let (mut name, mut units, mut points) = (None, false, false);
        self.object(|sc, key| {
            match key {
                "name" if name.is_none() => name = Some(sc.string()?.to_string()),
                "units" if !units => {
                    units = true;
                    s.units = sc.opt_string()?.map(str::to_string);
                }
                "dataPoints" if !points => {
                    points = true;
                    sc.points(&mut s.timestamps, &mut s.values, hint)?;
                }
                "name" | "units" | "dataPoints" => return None,
                other => {
                    if s.extra.contains_key(other) {
                        return None;
                    }
                    let v = sc.value(level)?;
                    s.extra.insert(other.to_string(), v);
                }
            }
            Some(())
        })?;
        s.name = name?;
        Some(s)
    }

    /// `dataPoints`: an array of `{timestamp, value}` or `null`.
    fn points(
        &mut self,
        ts: &mut Vec<i64>,
        vals: &mut Vec<Option<f64>>,
        hint: usize,
    ) -> Option<()> {
        ts.reserve(hint);
        vals.reserve(hint);
        let mut days = DayCache::default();
        self.array(|s| {
            if let Some((millis, v)) = s.compact_point(&mut days) {
                ts.push(millis);
                vals.push(v);
                return Some(());
            }
            let (mut t, mut v, mut seen_v) = (None, None, false);
            s.object(|s, key| {
                match key {
                    "timestamp" if t.is_none() => {
                        let stamp = s.string()?;
                        t = Some(days.millis(stamp.as_bytes())?);
                    }
                    "value" if !seen_v => {
                        seen_v = true;
                        s.ws();
                        v = s.null_or_number()?;
                    }
                    _ => return None,
                }
                Some(())
            })?;
            ts.push(t?);
            // A point without `value` is a gap, like an explicit null.
            vals.push(v);
            Some(())
        })
    }

    /// A point in the form the service writes, `{"timestamp":"YYYY-MM-DDTHH:MM:SSZ","value":V}`,
    /// read without a key lookup; anything else leaves the cursor where it was.
    #[inline]
    fn compact_point(&mut self, days: &mut DayCache) -> Option<(i64, Option<f64>)> {
        let start = self.i;
        let t = start + POINT_HEAD.len();
        let rest = self.b.get(start..t + 20 + POINT_MID.len())?;
        if !(rest.starts_with(POINT_HEAD) && rest[POINT_HEAD.len() + 20..] == *POINT_MID) {
            return None;
        }
        let millis = days.millis(&self.b[t..t + 20])?;
        self.i = t + 20 + POINT_MID.len();
        match self.null_or_number() {
            Some(v) if self.peek() == Some(b'}') => {
                self.i += 1;
                Some((millis, v))
            }
            _ => {
                self.i = start;
                None
            }
        }
    }

    /// `null` or a JSON number, at the cursor.
    #[inline]
    pub(super) fn null_or_number(&mut self) -> Option<Option<f64>> {
        if self.lit(b"null") {
            return Some(None);
        }
        self.number().map(Some)
    }

    /// A JSON number (RFC 8259 grammar), correctly rounded.
    #[inline]
    pub(super) fn number(&mut self) -> Option<f64> {
        let b = self.b;
        let start = self.i;
        let mut i = start;
        let neg = b.get(i) == Some(&b'-');
        i += usize::from(neg);
        let mut mantissa: u64 = 0;
        let mut digits = 0u32; // significant digits taken into the mantissa
        let mut exact = true; // every digit fitted
        let mut exp10: i32 = 0;
        let digit = |i: usize| b.get(i).filter(|c| c.is_ascii_digit()).map(|c| c - b'0');
        match digit(i)? {
            0 => i += 1,
            _ => {
                while let Some(d) = digit(i) {
                    if digits < 19 {
                        mantissa = mantissa * 10 + u64::from(d);
                        digits += u32::from(mantissa != 0);
                    } else {
                        exact = false;
                    }
                    i += 1;
                }
            }
        }
        let mut integer = true;
        if b.get(i) == Some(&b'.') {
            integer = false;
            i += 1;
            digit(i)?;
            while let Some(d) = digit(i) {
                if digits < 19 {
                    mantissa = mantissa * 10 + u64::from(d);
                    digits += u32::from(mantissa != 0);
                    exp10 -= 1;
                } else {
                    exact = false;
                }
                i += 1;
            }
        }
        if let Some(b'e' | b'E') = b.get(i) {
            integer = false;
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            digit(i)?;
            while digit(i).is_some() {
                i += 1;
            }
            exact = false;
        }
        self.i = i;
        if exact {
            if integer {
                // As serde_json reads an integer: through u64 or i64 (`-0` is -0.0).
                let v = mantissa as f64;
                return Some(if neg { -v } else { v });
            }
            if mantissa < (1 << 53) && exp10 >= -22 {
                let v = mantissa as f64 / POW10[exp10.unsigned_abs() as usize];
                return Some(if neg { -v } else { v });
            }
        }
        // Long mantissas and exponents: the standard library's correctly rounded parser.
        // The token is ASCII: digits, sign, point and exponent only. It reads `1e309` as
        // infinity where serde_json refuses it: a number beyond f64 is left to serde, which
        // names the field (the rule in `models`' doc).
        let v: f64 = std::str::from_utf8(&b[start..i]).ok()?.parse().ok()?;
        v.is_finite().then_some(v)
    }
}

/// Timestamps of one series mostly share their date: its day is computed once.
#[derive(Default)]
pub(crate) struct DayCache {
    date: [u8; 10],
    midnight_ms: Option<i64>,
}

impl DayCache {
    /// The milliseconds of an ISO 8601 timestamp; `YYYY-MM-DDTHH:MM:SSZ` on a day already
    /// seen is read without a calendar computation.
    #[inline]
    pub(crate) fn millis(&mut self, s: &[u8]) -> Option<i64> {
        if s.len() == 20 && s[10] == b'T' && s[13] == b':' && s[16] == b':' && s[19] == b'Z' {
            if let Some(midnight) = self.midnight_ms {
                // A date cached from a `Z` timestamp passed the range check, and the range
                // starts and ends at UTC midnight: every time of that day is in range.
                if s[..10] == self.date {
                    let two = |k: usize| {
                        let (a, b) = (s[k].wrapping_sub(b'0'), s[k + 1].wrapping_sub(b'0'));
                        (a < 10 && b < 10).then(|| i64::from(a) * 10 + i64::from(b))
                    };
                    // Anything else (a leap second `23:59:60`, which chrono reads) takes
                    // the full parser.
                    if let (Some(h @ 0..=23), Some(m @ 0..=59), Some(sec @ 0..=59)) =
                        (two(11), two(14), two(17))
                    {
                        return Some(midnight + (h * 3600 + m * 60 + sec) * 1000);
                    }
                }
            }
        }
        self.parse(s)
    }

    /// The full parser, out of the loop's way: once per day of a series.
    #[cold]
    #[inline(never)]
    fn parse(&mut self, s: &[u8]) -> Option<i64> {
        let ms = parse_millis(std::str::from_utf8(s).ok()?).ok()?;
        // The service's form sets the cache; a leap second counts into the next day, so its
        // date's midnight is not ms's.
        if s.len() == 20
            && s[10] == b'T'
            && s[13] == b':'
            && s[16] == b':'
            && s[19] == b'Z'
            && s[17..19] != *b"60"
        {
            self.date.copy_from_slice(&s[..10]);
            self.midnight_ms = Some(ms - ms.rem_euclid(86_400_000));
        }
        Some(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scanner's answer and serde's, for one body.
    fn both(body: &str) -> (Option<Measurements>, Result<Measurements, String>) {
        let fast = measurements(body.as_bytes());
        let serde = serde_json::from_str::<Measurements>(body).map_err(|e| e.to_string());
        (fast, serde)
    }

    #[test]
    fn the_scanner_agrees_with_serde() {
        let cases = [
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T23:59:00Z","value":1.5},{"timestamp":"2024-01-02T00:00:00Z","value":null},{"timestamp":"2024-01-02T00:01:00Z","value":-2e3}]}]}"#,
            // Pretty-printed, keys in the other order, a gap without `value`.
            "{ \"measurements\" : [ { \"name\" : \"A\", \"dataPoints\" : [ {\n \"value\" : 7 ,\n \"timestamp\" : \"2024-01-01T00:00:00Z\" } , { \"timestamp\" : \"2024-01-01T00:01:00Z\" } ] } ] }",
            // Whitespace inside the service's own form.
            r#"{"measurements":[{"name":"A","dataPoints":[ {"timestamp":"2024-01-01T00:00:00Z","value": 5},{"timestamp":"2024-01-01T00:01:00Z","value":6 }]}]}"#,
            // Fractions and offsets in timestamps; empty and null point lists.
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2014-04-22T15:57:13.562Z","value":0},{"timestamp":"2024-02-29T10:00:00+02:00","value":1}]},{"name":"B","dataPoints":[]},{"name":"C","dataPoints":null}]}"#,
            // 1 TiB + 64 KiB stays exact; -0 is -0.0 as in serde_json.
            r#"{"measurements":[{"name":"A","units":"BYTES","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1099511693312},{"timestamp":"2024-01-01T00:01:00Z","value":-0}]}]}"#,
            // Every top-level key, unknown keys with nested values, links, nulls.
            r#"{"groupId":"g","hostId":"h","processId":"h:27017","partitionName":null,"databaseName":null,"granularity":"PT1M","start":"2024-01-01T00:00:00Z","end":"2024-01-01T00:01:00Z","links":[{"rel":"self","href":"https://x/y?z=\"1\""}],"future":{"a":[1,{"b":"}]"}],"c":null},"measurements":[{"name":"A","units":null,"extra":[true,false],"dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1e-7}]}],"n":-1.5E+3}"#,
            // The envelope.
            r#"{"status":200,"content":{"groupId":"g","measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":12345.678}]}]}}"#,
            // Long mantissas and exponents go to the standard parser.
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":0.30000000000000004},{"timestamp":"2024-01-01T00:01:00Z","value":123456789012345678901234},{"timestamp":"2024-01-01T00:02:00Z","value":9007199254740993.5},{"timestamp":"2024-01-01T00:03:00Z","value":1.7976931348623157e308}]}]}"#,
            "{}",
            r#"{"measurements":null}"#,
        ];
        for body in cases {
            let (fast, serde) = both(body);
            let fast = fast.unwrap_or_else(|| panic!("the scanner gave up on {body}"));
            assert_eq!(Ok(fast), serde, "{body}");
        }
    }

    #[test]
    fn the_scanner_leaves_the_unusual_to_serde() {
        for body in [
            // An escape in a key or a value.
            r#"{"measurements":[{"name":"A","dataPoints":[{"time\u0073tamp":"2024-01-01T00:00:00Z","value":1}]}]}"#,
            r#"{"groupId":"g\"1","measurements":[]}"#,
            // An unknown key in a point, a duplicate key.
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1,"extra":true}]}]}"#,
            r#"{"groupId":"a","groupId":"b","measurements":[]}"#,
            r#"{"measurements":[{"name":"A","name":"B","dataPoints":[]}]}"#,
        ] {
            let (fast, serde) = both(body);
            assert_eq!(fast, None, "{body}");
            // decode_model still answers, through serde.
            let serde = serde.unwrap_or_else(|e| panic!("{body}: {e}"));
            let decoded = crate::decode_model::<Measurements>(body.as_bytes()).unwrap();
            assert_eq!(decoded, serde, "{body}");
        }
    }

    #[test]
    fn the_scanner_rejects_what_serde_rejects() {
        let point = |v: &str| {
            format!(
                r#"{{"measurements":[{{"name":"A","dataPoints":[{{"timestamp":"2024-01-01T00:00:00Z","value":{v}}}]}}]}}"#
            )
        };
        let mut bodies: Vec<String> = [
            r#"{"measurements":[{"name":"A","dataPoints":[{"value":1}]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00","value":1}]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T25:00:00Z","value":1}]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-02-30T00:00:00Z","value":1}]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1},]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1}]}]} x"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1}"#,
            r#"{"measurements":[{"dataPoints":[]}]}"#,
            r#"{"measurements":[{"name":null,"dataPoints":[]}]}"#,
            r#"{"start":"yesterday","measurements":[]}"#,
            r#"{"future":[1,}"#,
            r#"{"future":tru,"measurements":[]}"#,
            r#"{"groupId":"g","measurements":[],}"#,
            r#"{"status":200,"content":{"measurements":[]},"groupId":"g"}"#,
        ]
        .map(String::from)
        .to_vec();
        for v in [
            r#""1""#, ".5", "01", "1.", "-", "+1", "1e", "1e+", "--1", "0x1", "NaN", "1.5.2",
        ] {
            bodies.push(point(v));
        }
        for body in &bodies {
            let (fast, serde) = both(body);
            assert!(
                fast.is_none() && serde.is_err(),
                "{body}: {fast:?} / {serde:?}"
            );
        }
    }

    #[test]
    fn numbers_are_correctly_rounded() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut forms: Vec<String> = Vec::new();
        for _ in 0..20_000 {
            let (int_digits, frac_digits) = (rng.u32(1..20), rng.u32(1..12));
            let int = rng.u64(0..10u64.pow(int_digits));
            let frac = rng.u64(0..10u64.pow(frac_digits));
            let sign = if rng.bool() { "-" } else { "" };
            forms.push(format!("{sign}{int}"));
            forms.push(format!("{sign}{int}.{frac:0w$}", w = rng.usize(1..13)));
            forms.push(format!("{sign}0.{frac:0w$}", w = rng.usize(1..13)));
            forms.push(format!("{sign}{int}e{}", rng.i32(-30..30)));
            forms.push(format!("{}", f64::from_bits(rng.u64(..)).abs() % 1e12));
        }
        forms.retain(|f| !f.contains("inf") && !f.contains("NaN"));
        for f in forms {
            let mut s = Scan {
                b: f.as_bytes(),
                i: 0,
                utf8: true,
            };
            let ours = s.number().unwrap_or_else(|| panic!("{f} not read"));
            assert_eq!(s.i, f.len(), "{f} not read whole");
            let std: f64 = f.parse().unwrap();
            assert_eq!(ours.to_bits(), std.to_bits(), "{f}");
        }
    }

    #[test]
    fn the_day_cache_follows_date_changes() {
        let mut days = DayCache::default();
        for s in [
            "2024-01-01T23:59:59Z",
            "2024-01-02T00:00:00Z",
            "2024-01-02T12:34:56Z",
            "2023-12-31T00:00:00Z",
            "1969-12-31T23:59:59Z",
            "1969-12-31T00:00:01Z",
            "2024-01-02T12:34:56.5Z",
        ] {
            assert_eq!(days.millis(s.as_bytes()), parse_millis(s).ok(), "{s}");
        }
        assert_eq!(days.millis(b"2024-01-02T24:00:00Z"), None);
        assert_eq!(days.millis(b"2024-01-02T12:3a:00Z"), None);
        // A leap second on a day already seen reads as chrono reads it (found by fuzzing).
        assert_eq!(
            days.millis(b"2024-01-02T23:59:60Z"),
            parse_millis("2024-01-02T23:59:60Z").ok()
        );
        assert!(days.millis(b"2024-01-02T23:59:60Z").is_some());
        // ...and seen first, it does not set the cache to the next day's midnight.
        let mut days = DayCache::default();
        for s in ["2024-01-02T23:59:60Z", "2024-01-02T10:00:00Z"] {
            assert_eq!(days.millis(s.as_bytes()), parse_millis(s).ok(), "{s}");
        }
    }
}
