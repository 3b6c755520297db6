//! Measurements: time series of a host, a disk partition or a database, decoded into columns.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::time::{format_millis, parse_millis, TimeError};
use super::{Link, RawText};

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
    pub(crate) extra: Map<String, Value>,
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
    pub(crate) present: u16,
    /// The body exactly as sent, kept by the single-target operations (a fleet pull does not
    /// keep its bodies: they would double its memory).
    pub(crate) raw: Option<RawText>,
}

pub(crate) const K_GROUP: u16 = 1;
pub(crate) const K_HOST: u16 = 2;
pub(crate) const K_PROCESS: u16 = 4;
pub(crate) const K_PARTITION: u16 = 8;
pub(crate) const K_DATABASE: u16 = 16;
pub(crate) const K_GRANULARITY: u16 = 32;
pub(crate) const K_START: u16 = 64;
pub(crate) const K_END: u16 = 128;
pub(crate) const K_LINKS: u16 = 256;
pub(crate) const K_MEASUREMENTS: u16 = 512;

impl Measurements {
    /// The JSON body exactly as the server sent it (key order, number spelling and unknown
    /// keys included), for measurements read by `host()`, `disk()` or `database()`; `None` for
    /// the results of a fleet pull and for values built in code.
    pub fn raw_json(&self) -> Option<&str> {
        self.raw.as_ref().map(RawText::as_str)
    }

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
                match parse_millis(v) {
                    Ok(ms) => Ok(Timestamp(ms)),
                    Err(TimeError::OutOfRange) => Err(E::custom(TimeError::OutOfRange)),
                    Err(TimeError::Invalid(_)) => Err(E::invalid_value(
                        de::Unexpected::Str(v),
                        &"an ISO 8601 timestamp",
                    )),
                }
            }
        }
        d.deserialize_str(V)
    }
}

/// Decodes a series (the serde path; [`super::scan`] is the fast one).
struct SeriesVisitor;

impl<'de> Visitor<'de> for SeriesVisitor {
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
        d.deserialize_map(SeriesVisitor)
    }
}

/// `measurements`: an array of series, or null.
struct SeriesList;

impl<'de> DeserializeSeed<'de> for SeriesList {
    type Value = Vec<Series>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Series>, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for SeriesList {
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
        while let Some(series) = seq.next_element_seed(SeriesSeed)? {
            out.push(series);
        }
        Ok(out)
    }
}

struct SeriesSeed;

impl<'de> DeserializeSeed<'de> for SeriesSeed {
    type Value = Series;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Series, D::Error> {
        d.deserialize_map(SeriesVisitor)
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

struct MeasurementsVisitor;

impl<'de> Visitor<'de> for MeasurementsVisitor {
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
                    m.series = map.next_value_seed(SeriesList)?;
                    m.present |= K_MEASUREMENTS;
                }
                // `envelope=true` wraps the object as {"status": 200, "content": {...}}.
                "content" => content = Some(map.next_value_seed(MeasurementsSeed)?),
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
        d.deserialize_map(MeasurementsVisitor)
    }
}

struct MeasurementsSeed;

impl<'de> DeserializeSeed<'de> for MeasurementsSeed {
    type Value = Measurements;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Measurements, D::Error> {
        d.deserialize_map(MeasurementsVisitor)
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
