//! Measurements: time series of a host, a disk partition or a database, decoded into columns.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::time::{format_millis, parse_millis};
use super::Link;

/// One measurement series (`measurements[]`), stored as columns.
///
/// `timestamps` are milliseconds since the Unix epoch (UTC); `values[i]` is `None` where the
/// server sent `null` (the first point of a rate series, a gap). Values are `f64`: a 32-bit
/// float cannot tell 1 TiB from 1 TiB + 64 KiB.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Series {
    /// `name`: the measurement (`CONNECTIONS`, `DISK_PARTITION_SPACE_USED`, ...).
    pub name: String,
    /// `units` (`SCALAR`, `BYTES`, `PERCENT`, ...): an open set, kept as sent.
    pub units: Option<String>,
    /// Timestamps of the data points, milliseconds since the epoch.
    pub timestamps: Vec<i64>,
    /// Values of the data points; `None` for `null`.
    pub values: Vec<Option<f64>>,
    extra: Map<String, Value>,
}

impl Series {
    /// A series from its columns.
    ///
    /// ```
    /// let s = opsapi::Series::new("CONNECTIONS", Some("SCALAR"), vec![0, 60_000], vec![None, Some(5.0)]);
    /// assert_eq!(s.len(), 2);
    /// ```
    pub fn new(
        name: impl Into<String>,
        units: Option<&str>,
        timestamps: Vec<i64>,
        values: Vec<Option<f64>>,
    ) -> Self {
        assert_eq!(
            timestamps.len(),
            values.len(),
            "a series needs one value per timestamp"
        );
        Self {
            name: name.into(),
            units: units.map(str::to_string),
            timestamps,
            values,
            extra: Map::new(),
        }
    }

    /// The number of data points.
    pub fn len(&self) -> usize {
        self.timestamps.len()
    }

    /// Whether the series has no data point.
    pub fn is_empty(&self) -> bool {
        self.timestamps.is_empty()
    }

    /// The timestamps as `DateTime<Utc>`.
    pub fn datetimes(&self) -> impl Iterator<Item = DateTime<Utc>> + '_ {
        self.timestamps
            .iter()
            .filter_map(|&ms| DateTime::from_timestamp_millis(ms))
    }
}

/// The answer of a measurements request: metadata and one [`Series`] per measurement.
///
/// Serializing gives back the JSON object of the API (data points included), so a
/// `Measurements` can be stored and decoded again losslessly.
///
/// ```
/// let body = br#"{"groupId":"g","hostId":"h","granularity":"PT1M","measurements":[
///   {"name":"OPCOUNTER_CMD","units":"SCALAR_PER_SECOND","dataPoints":[
///     {"timestamp":"2024-05-01T00:00:00Z","value":null},
///     {"timestamp":"2024-05-01T00:01:00Z","value":12.5}]}]}"#;
/// let m: opsapi::Measurements = opsapi::decode_model(body).unwrap();
/// assert_eq!(m.series[0].values, vec![None, Some(12.5)]);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Measurements {
    /// `groupId`
    pub group_id: Option<String>,
    /// `hostId`
    pub host_id: Option<String>,
    /// `processId`: `host:port` of the process.
    pub process_id: Option<String>,
    /// `partitionName`: disk measurements only.
    pub partition_name: Option<String>,
    /// `databaseName`: database measurements only.
    pub database_name: Option<String>,
    /// `granularity`
    pub granularity: Option<String>,
    /// `start`
    pub start: Option<DateTime<Utc>>,
    /// `end`
    pub end: Option<DateTime<Utc>>,
    /// `links`
    pub links: Vec<Link>,
    /// `measurements`: one series per measurement, in the order sent.
    pub series: Vec<Series>,
    /// Top-level fields this library does not know, kept as sent.
    pub extra: Map<String, Value>,
    /// Which of the known keys were present (bit per key), so that serializing leaves out
    /// what the server left out.
    present: u16,
}

const K_GROUP: u16 = 1;
const K_HOST: u16 = 2;
const K_PROCESS: u16 = 4;
const K_PARTITION: u16 = 8;
const K_DATABASE: u16 = 16;
const K_GRANULARITY: u16 = 32;
const K_START: u16 = 64;
const K_END: u16 = 128;
const K_LINKS: u16 = 256;
const K_MEASUREMENTS: u16 = 512;

impl Measurements {
    /// The number of data points over all series.
    pub fn data_point_count(&self) -> usize {
        self.series.iter().map(Series::len).sum()
    }

    /// The series of one measurement.
    pub fn get(&self, name: &str) -> Option<&Series> {
        self.series.iter().find(|s| s.name == name)
    }
}

// ---------------------------------------------------------------------------------------
// Decoding: data points go straight into the column vectors.

struct DataPoints<'a> {
    timestamps: &'a mut Vec<i64>,
    values: &'a mut Vec<Option<f64>>,
}

impl<'de> DeserializeSeed<'de> for DataPoints<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for DataPoints<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of data points")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if let Some(n) = seq.size_hint() {
            self.timestamps.reserve(n);
            self.values.reserve(n);
        }
        while let Some((ts, v)) = seq.next_element_seed(DataPoint)? {
            self.timestamps.push(ts);
            self.values.push(v);
        }
        Ok(())
    }
}

struct DataPoint;

impl<'de> DeserializeSeed<'de> for DataPoint {
    type Value = (i64, Option<f64>);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for DataPoint {
    type Value = (i64, Option<f64>);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a data point {timestamp, value}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut ts = None;
        let mut value = None;
        while let Some(key) = map.next_key::<Key>()? {
            match key.0.as_ref() {
                "timestamp" => ts = Some(map.next_value::<Timestamp>()?.0),
                "value" => value = Some(map.next_value::<Option<f64>>()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let ts = ts.ok_or_else(|| de::Error::missing_field("timestamp"))?;
        // A point without `value` is a gap, like an explicit null.
        Ok((ts, value.flatten()))
    }
}

/// A map key, borrowed from the input when it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string().into()))
            }
        }
        d.deserialize_str(V)
    }
}

/// An ISO 8601 timestamp decoded to milliseconds.
struct Timestamp(i64);

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Timestamp;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an ISO 8601 timestamp with a time zone")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Timestamp, E> {
                parse_millis(v).map(Timestamp).ok_or_else(|| {
                    E::invalid_value(de::Unexpected::Str(v), &"an ISO 8601 timestamp")
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// Decodes a series. `FAST` reads `dataPoints` as a raw slice and scans it (falling back to
/// serde for anything unusual); it needs a deserializer that borrows from a byte slice, which
/// only [`decode_model`](crate::decode_model) guarantees, so it is not the public impl.
struct SeriesVisitor<const FAST: bool>;

impl<'de, const FAST: bool> Visitor<'de> for SeriesVisitor<FAST> {
    type Value = Series;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a measurement {name, units, dataPoints}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Series, A::Error> {
        let mut s = Series::default();
        let mut name = None;
        while let Some(key) = map.next_key::<Key>()? {
            match key.0.as_ref() {
                "name" => name = Some(map.next_value::<String>()?),
                "units" => s.units = map.next_value()?,
                "dataPoints" if FAST => {
                    let raw: &'de serde_json::value::RawValue = map.next_value()?;
                    scan_or_decode(raw.get(), &mut s).map_err(de::Error::custom)?;
                }
                "dataPoints" => {
                    // `dataPoints: null` is read as no data point.
                    map.next_value_seed(NullableSeed(DataPoints {
                        timestamps: &mut s.timestamps,
                        values: &mut s.values,
                    }))?;
                }
                other => {
                    let v: Value = map.next_value()?;
                    s.extra.insert(other.to_string(), v);
                }
            }
        }
        s.name = name.ok_or_else(|| de::Error::missing_field("name"))?;
        Ok(s)
    }
}

impl<'de> Deserialize<'de> for Series {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(SeriesVisitor::<false>)
    }
}

/// `measurements`: an array of series, or null.
struct SeriesList<const FAST: bool>;

impl<'de, const FAST: bool> DeserializeSeed<'de> for SeriesList<FAST> {
    type Value = Vec<Series>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Series>, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, const FAST: bool> Visitor<'de> for SeriesList<FAST> {
    type Value = Vec<Series>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of measurements or null")
    }
    fn visit_none<E: de::Error>(self) -> Result<Vec<Series>, E> {
        Ok(Vec::new())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Vec<Series>, E> {
        Ok(Vec::new())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Series>, D::Error> {
        d.deserialize_seq(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Series>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(series) = seq.next_element_seed(SeriesSeed::<FAST>)? {
            out.push(series);
        }
        Ok(out)
    }
}

struct SeriesSeed<const FAST: bool>;

impl<'de, const FAST: bool> DeserializeSeed<'de> for SeriesSeed<FAST> {
    type Value = Series;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Series, D::Error> {
        d.deserialize_map(SeriesVisitor::<FAST>)
    }
}

/// Scans `raw` (the `dataPoints` value) into the series' columns; anything the scanner does
/// not expect is decoded by serde instead, so the result never depends on the path taken.
fn scan_or_decode(raw: &str, s: &mut Series) -> Result<(), serde_json::Error> {
    if scan_points(raw.as_bytes(), &mut s.timestamps, &mut s.values).is_some() {
        return Ok(());
    }
    s.timestamps.clear();
    s.values.clear();
    let mut de = serde_json::Deserializer::from_str(raw);
    NullableSeed(DataPoints {
        timestamps: &mut s.timestamps,
        values: &mut s.values,
    })
    .deserialize(&mut de)?;
    de.end()
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\r' | b'\t') {
        i += 1;
    }
    i
}

/// The index of the next `"` at or after `i`, if no backslash comes first.
fn closing_quote(b: &[u8], i: usize) -> Option<usize> {
    let rel = b.get(i..)?.iter().position(|&c| c == b'"' || c == b'\\')?;
    (b[i + rel] == b'"').then_some(i + rel)
}

/// Timestamps of one series mostly share their date: its day is computed once.
#[derive(Default)]
struct DayCache {
    date: [u8; 10],
    midnight_ms: Option<i64>,
}

impl DayCache {
    fn millis(&mut self, s: &[u8]) -> Option<i64> {
        let fixed = s.len() == 20
            && s[10] == b'T'
            && s[13] == b':'
            && s[16] == b':'
            && s[19] == b'Z'
            && [11, 12, 14, 15, 17, 18]
                .iter()
                .all(|&k| s[k].is_ascii_digit());
        if !fixed {
            return parse_millis(std::str::from_utf8(s).ok()?);
        }
        let two = |k: usize| i64::from(s[k] - b'0') * 10 + i64::from(s[k + 1] - b'0');
        let (h, m, sec) = (two(11), two(14), two(17));
        if h > 23 || m > 59 || sec > 59 {
            return None;
        }
        let time_ms = (h * 3600 + m * 60 + sec) * 1000;
        match self.midnight_ms {
            Some(midnight) if s[..10] == self.date => Some(midnight + time_ms),
            _ => {
                let ms = parse_millis(std::str::from_utf8(s).ok()?)?;
                self.date.copy_from_slice(&s[..10]);
                self.midnight_ms = Some(ms - time_ms);
                Some(ms)
            }
        }
    }
}

/// Reads `[{"timestamp": "...", "value": 1.5}, ...]` (or `null`) straight into the columns.
/// Returns `None` at anything it does not expect (escapes, other keys, a missing timestamp):
/// the caller then decodes the slice with serde, which also reports the error precisely.
fn scan_points(b: &[u8], ts: &mut Vec<i64>, vals: &mut Vec<Option<f64>>) -> Option<()> {
    let mut i = skip_ws(b, 0);
    if b[i..].starts_with(b"null") {
        return (skip_ws(b, i + 4) == b.len()).then_some(());
    }
    if b.get(i) != Some(&b'[') {
        return None;
    }
    i = skip_ws(b, i + 1);
    // About 50 bytes a point: one allocation instead of a series of doublings.
    ts.reserve(b.len() / 48);
    vals.reserve(b.len() / 48);
    if b.get(i) == Some(&b']') {
        return (skip_ws(b, i + 1) == b.len()).then_some(());
    }
    let mut days = DayCache::default();
    loop {
        if b.get(i) != Some(&b'{') {
            return None;
        }
        i = skip_ws(b, i + 1);
        let mut t = None;
        let mut v = None;
        loop {
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let end = closing_quote(b, i + 1)?;
            let key = &b[i + 1..end];
            i = skip_ws(b, end + 1);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i = skip_ws(b, i + 1);
            match key {
                b"timestamp" => {
                    if b.get(i) != Some(&b'"') {
                        return None;
                    }
                    let end = closing_quote(b, i + 1)?;
                    t = Some(days.millis(&b[i + 1..end])?);
                    i = end + 1;
                }
                b"value" => {
                    if b[i..].starts_with(b"null") {
                        v = None;
                        i += 4;
                    } else {
                        let start = i;
                        while i < b.len()
                            && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                        {
                            i += 1;
                        }
                        let tok = &b[start..i];
                        if !tok
                            .first()
                            .is_some_and(|c| *c == b'-' || c.is_ascii_digit())
                        {
                            return None;
                        }
                        v = Some(std::str::from_utf8(tok).ok()?.parse::<f64>().ok()?);
                    }
                }
                _ => return None,
            }
            i = skip_ws(b, i);
            match b.get(i) {
                Some(b',') => i = skip_ws(b, i + 1),
                Some(b'}') => {
                    i += 1;
                    break;
                }
                _ => return None,
            }
        }
        ts.push(t?);
        vals.push(v);
        i = skip_ws(b, i);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b']') => return (skip_ws(b, i + 1) == b.len()).then_some(()),
            _ => return None,
        }
    }
}

/// Treats `null` as "nothing" for a seed that expects a sequence.
struct NullableSeed<S>(S);

impl<'de, S: DeserializeSeed<'de, Value = ()>> DeserializeSeed<'de> for NullableSeed<S> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, S: DeserializeSeed<'de, Value = ()>> Visitor<'de> for NullableSeed<S> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array or null")
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.0.deserialize(d)
    }
}

struct MeasurementsVisitor<const FAST: bool>;

impl<'de, const FAST: bool> Visitor<'de> for MeasurementsVisitor<FAST> {
    type Value = Measurements;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a measurements object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Measurements, A::Error> {
        let mut m = Measurements::default();
        let mut content: Option<Measurements> = None;
        while let Some(key) = map.next_key::<Key>()? {
            let k = key.0.as_ref();
            match k {
                "groupId" => (m.group_id, m.present) = (map.next_value()?, m.present | K_GROUP),
                "hostId" => (m.host_id, m.present) = (map.next_value()?, m.present | K_HOST),
                "processId" => {
                    (m.process_id, m.present) = (map.next_value()?, m.present | K_PROCESS)
                }
                "partitionName" => {
                    (m.partition_name, m.present) = (map.next_value()?, m.present | K_PARTITION)
                }
                "databaseName" => {
                    (m.database_name, m.present) = (map.next_value()?, m.present | K_DATABASE)
                }
                "granularity" => {
                    (m.granularity, m.present) = (map.next_value()?, m.present | K_GRANULARITY)
                }
                "start" => {
                    let t: Option<Timestamp> = map.next_value()?;
                    m.start = t.and_then(|t| DateTime::from_timestamp_millis(t.0));
                    m.present |= K_START;
                }
                "end" => {
                    let t: Option<Timestamp> = map.next_value()?;
                    m.end = t.and_then(|t| DateTime::from_timestamp_millis(t.0));
                    m.present |= K_END;
                }
                "links" => {
                    m.links = map.next_value::<Option<Vec<Link>>>()?.unwrap_or_default();
                    m.present |= K_LINKS;
                }
                "measurements" => {
                    m.series = map.next_value_seed(SeriesList::<FAST>)?;
                    m.present |= K_MEASUREMENTS;
                }
                // `envelope=true` wraps the object as {"status": 200, "content": {...}}.
                "content" => content = Some(map.next_value_seed(MeasurementsSeed::<FAST>)?),
                _ => {
                    let v: Value = map.next_value()?;
                    m.extra.insert(k.to_string(), v);
                }
            }
        }
        if let Some(inner) = content {
            if m.present == 0 && m.extra.keys().all(|k| k == "status") {
                return Ok(inner);
            }
            return Err(de::Error::custom(
                "a measurements object with both `content` and measurement fields",
            ));
        }
        Ok(m)
    }
}

impl<'de> Deserialize<'de> for Measurements {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(MeasurementsVisitor::<false>)
    }
}

/// [`Measurements`] decoded with the data-point scanner: only for deserializers that borrow
/// from a byte slice (`serde_json::from_slice`).
pub(crate) struct FastMeasurements(pub(crate) Measurements);

impl<'de> Deserialize<'de> for FastMeasurements {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(MeasurementsVisitor::<true>)
            .map(FastMeasurements)
    }
}

struct MeasurementsSeed<const FAST: bool>;

impl<'de, const FAST: bool> DeserializeSeed<'de> for MeasurementsSeed<FAST> {
    type Value = Measurements;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Measurements, D::Error> {
        d.deserialize_map(MeasurementsVisitor::<FAST>)
    }
}

// ---------------------------------------------------------------------------------------
// Encoding: the API's JSON again.

struct Points<'a>(&'a Series);

impl Serialize for Points<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Point(i64, Option<f64>);
        impl Serialize for Point {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("timestamp", &format_millis(self.0))?;
                m.serialize_entry("value", &self.1)?;
                m.end()
            }
        }
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for (ts, v) in self.0.timestamps.iter().zip(&self.0.values) {
            seq.serialize_element(&Point(*ts, *v))?;
        }
        seq.end()
    }
}

impl Serialize for Series {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("dataPoints", &Points(self))?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("units", &self.units)?;
        for (k, v) in &self.extra {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl Serialize for Measurements {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Written with every known key when the value was built in code (present == 0).
        let all = self.present == 0;
        let has = |k: u16| all || self.present & k != 0;
        let mut m = s.serialize_map(None)?;
        if has(K_END) {
            m.serialize_entry("end", &self.end.as_ref().map(super::time::format_timestamp))?;
        }
        if has(K_GRANULARITY) {
            m.serialize_entry("granularity", &self.granularity)?;
        }
        if has(K_GROUP) {
            m.serialize_entry("groupId", &self.group_id)?;
        }
        if has(K_HOST) {
            m.serialize_entry("hostId", &self.host_id)?;
        }
        if has(K_LINKS) {
            m.serialize_entry("links", &self.links)?;
        }
        if has(K_MEASUREMENTS) {
            m.serialize_entry("measurements", &self.series)?;
        }
        if has(K_PARTITION) && (self.partition_name.is_some() || !all) {
            m.serialize_entry("partitionName", &self.partition_name)?;
        }
        if has(K_DATABASE) && (self.database_name.is_some() || !all) {
            m.serialize_entry("databaseName", &self.database_name)?;
        }
        if has(K_PROCESS) {
            m.serialize_entry("processId", &self.process_id)?;
        }
        if has(K_START) {
            m.serialize_entry(
                "start",
                &self.start.as_ref().map(super::time::format_timestamp),
            )?;
        }
        for (k, v) in &self.extra {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(body: &str) -> (Result<Measurements, String>, Result<Measurements, String>) {
        let fast = serde_json::from_str::<FastMeasurements>(body)
            .map(|m| m.0)
            .map_err(|e| e.to_string());
        let precise = serde_json::from_str::<Measurements>(body).map_err(|e| e.to_string());
        (fast, precise)
    }

    #[test]
    fn the_scanner_agrees_with_serde() {
        let cases = [
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T23:59:00Z","value":1.5},{"timestamp":"2024-01-02T00:00:00Z","value":null},{"timestamp":"2024-01-02T00:01:00Z","value":-2e3}]}]}"#,
            // Pretty-printed, keys in the other order, a gap without `value`.
            "{ \"measurements\" : [ { \"name\" : \"A\", \"dataPoints\" : [ {\n \"value\" : 7 ,\n \"timestamp\" : \"2024-01-01T00:00:00Z\" } , { \"timestamp\" : \"2024-01-01T00:01:00Z\" } ] } ] }",
            // Fractions and offsets in timestamps; empty and null point lists.
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2014-04-22T15:57:13.562Z","value":0},{"timestamp":"2024-02-29T10:00:00+02:00","value":1}]},{"name":"B","dataPoints":[]},{"name":"C","dataPoints":null}]}"#,
            // An escape in a key and an unknown key: serde decides.
            r#"{"measurements":[{"name":"A","dataPoints":[{"time\u0073tamp":"2024-01-01T00:00:00Z","value":1,"extra":true}]}]}"#,
            // 1 TiB + 64 KiB stays exact.
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1099511693312}]}]}"#,
        ];
        for body in cases {
            let (fast, precise) = both(body);
            assert_eq!(fast, precise, "{body}");
            assert!(fast.is_ok(), "{body}: {fast:?}");
        }
    }

    #[test]
    fn the_scanner_rejects_what_serde_rejects() {
        for body in [
            r#"{"measurements":[{"name":"A","dataPoints":[{"value":1}]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00","value":1}]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T25:00:00Z","value":1}]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-02-30T00:00:00Z","value":1}]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":"1"}]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":.5}]}]}"#,
        ] {
            let (fast, precise) = both(body);
            assert!(
                fast.is_err() && precise.is_err(),
                "{body}: {fast:?} / {precise:?}"
            );
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
        ] {
            assert_eq!(days.millis(s.as_bytes()), parse_millis(s), "{s}");
        }
        assert_eq!(days.millis(b"2024-01-02T24:00:00Z"), None);
    }
}
