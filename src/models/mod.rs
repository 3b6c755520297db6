//! Response models.
//!
//! Every top-level model keeps the text of the JSON object the server sent
//! ([`Model::raw_json`], parsed on demand by [`Model::raw`]), so fields unknown to this library
//! are never lost and serializing a model gives back exactly what the server sent. The typed
//! fields are read from that text; an absent or `null` field is `None`. Enums keep values they
//! do not know in an `Other(String)` variant.
//!
//! # What decodes, on every path
//!
//! A decoded value never fails later (in a Python attribute or `to_dict()`): whatever could
//! not become a value is an [`Error::Decode`](crate::Error::Decode) naming the field when the
//! response is read. The rules are the same for every model and for [`Measurements`], whether
//! a body goes through the byte scanner or through serde:
//!
//! - **Timestamps** are RFC 3339 with an offset, and the UTC instant must lie in years 1 to
//!   9999 (0001-01-01T00:00:00Z ..= 9999-12-31T23:59:59.999999Z, what Python's `datetime`
//!   holds); `9999-12-31T23:59:59-01:00` or `0000-01-01T00:00:00Z` is an error naming the
//!   field (`results[2].created`, `measurements[0].dataPoints[5].timestamp`).
//! - **Numbers** in typed fields (data point values, `currentValue.number`, integers such as
//!   `port`, and fields kept as any JSON value such as `Event::raw`) must fit their type: a
//!   number beyond f64's range (`1e309`, a 400-digit integer) is an error naming the field,
//!   never infinity; a number too small for f64 (`1e-400`) is zero, as in every JSON parser.
//!   Fields the library does not type are kept as sent: `to_dict()` gives what Python's
//!   `json.loads` makes of them (`1e309` becomes `inf` there), and [`Model::raw_json`] their
//!   text. ([`Model::raw`] cannot hold such a number: serde_json's `Value` has no infinity,
//!   and today it gives an empty map for that object.)
//! - **Nesting**: at most 127 arrays and objects inside one another, counted from the top of
//!   a model's own object (for measurements, of the body); the 128th, wherever it is, even in
//!   a field the library does not read, is an error naming where. This is serde_json's own
//!   limit, so everything kept can be parsed again ([`Model::raw`], `to_dict()`).

mod alert;
mod cluster;
mod event;
pub mod event_kinds;
mod group;
mod host;
pub(crate) mod measurements;
pub(crate) mod performance_advisor;
pub mod slow_shapes;
pub(crate) mod time;

// The field tables (`*_fields!`) are read by the frame builders and the Python classes.
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use alert::{alert_config_fields, alert_fields, current_value_fields};
pub use alert::{Alert, AlertConfig, AlertStatus, CurrentValue, GlobalAlert};
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use cluster::{auto_scaling_fields, cluster_fields};
pub use cluster::{AtlasTier, AutoScaling, Cluster, ClusterType, ATLAS_TIERS};
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use event::{event_diff_fields, event_diff_param_fields, event_fields};
pub use event::{Event, EventDiff, EventDiffParam};
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use group::{access_list_entry_fields, group_fields};
pub use group::{AccessListEntry, Database, Group, Partition};
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use host::{host_fields, system_info_fields};
pub use host::{Host, HostType, ReplicaState, SystemInfo};
pub use measurements::{Measurements, Series};
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use performance_advisor::{
    namespace_fields, query_shape_fields, slow_query_fields, slow_query_logs_fields,
    suggested_index_fields, suggested_indexes_fields,
};
pub use performance_advisor::{
    IndexSuggestion, Namespace, Namespaces, QueryShape, SlowQuery, SlowQueryLogs, SlowQueryRow,
    SlowQueryShape, SuggestedIndex, SuggestedIndexes,
};

use serde::Serialize;
use serde_json::{Map, Value};

/// The fields of [`Link`], declared once (see [`declare_part`]).
macro_rules! link_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// A link of a resource (RFC 5988): `{"rel": "self", "href": "https://..."}`.
            #[derive(Eq)]
            Link {} {
                /// The relation: `self`, `next`, `previous`, or an extension like
                /// `http://mms.mongodb.com/group`.
                #[serde(default)]
                rel: String,
                /// The absolute URL.
                #[serde(default)]
                href: String,
            }
        }
    };
}
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use link_fields;
link_fields!(declare_part);

/// A field's name as Python and the frames say it: without the `r#` of a raw identifier
/// (`Cluster::r#type` is `type`).
///
/// ```
/// assert_eq!(<opsapi::Cluster as opsapi::models::FieldNames>::FIELDS[3], "type");
/// ```
pub const fn unraw(name: &'static str) -> &'static str {
    match name.as_bytes() {
        [b'r', b'#', rest @ ..] => match std::str::from_utf8(rest) {
            Ok(unraw) => unraw,
            Err(_) => name,
        },
        _ => name,
    }
}

/// The names of a model's fields, in declaration order: what its Python class exposes and
/// what a test compares the stub against.
pub trait FieldNames {
    /// The snake_case field names.
    const FIELDS: &'static [&'static str];
}

/// Declares a top-level model from its one field list (`<model>_fields!(declare_model)`; the
/// list passes a consumer's extra arguments first, in parentheses): the struct with
/// serde, its [`Model`] implementation over the kept text, and [`FieldNames`]. The same list
/// makes the Python class (`src/python/models.rs`) and the list frame (`src/frame/lists.rs`).
///
/// Options between the braces after the name: `raw: <field holding the kept text>`, optional
/// `id: <field used by the paging guard>`, and `repr: [<fields shown by Python's repr>]`.
macro_rules! declare_model {
    (
        ()
        $(#[$meta:meta])*
        $name:ident { raw: $raw:ident $(, id: $id:ident)? $(, repr: [$($repr:ident),*])? }
        { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    ) => {
        #[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
        #[serde(default, rename_all = "camelCase")]
        #[non_exhaustive]
        $(#[$meta])*
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
            #[serde(skip)]
            $raw: $crate::models::RawJson,
        }
        $crate::models::raw_model!($name, $raw $(, id: $id)?);
        impl $crate::models::FieldNames for $name {
            const FIELDS: &'static [&'static str] =
                &[$($crate::models::unraw(stringify!($field))),*];
        }
    };
}
pub(crate) use declare_model;

/// Declares a part of a model (a nested object such as `currentValue`) from its one field
/// list: the struct with serde (both ways) and [`FieldNames`].
macro_rules! declare_part {
    (
        ()
        $(#[$meta:meta])*
        $name:ident {}
        { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    ) => {
        #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
        #[non_exhaustive]
        $(#[$meta])*
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
        }
        impl $crate::models::FieldNames for $name {
            const FIELDS: &'static [&'static str] =
                &[$($crate::models::unraw(stringify!($field))),*];
        }
    };
}
pub(crate) use declare_part;

/// A model decoded from a JSON object that it keeps whole.
pub trait Model: serde::de::DeserializeOwned + Send + Sync + 'static {
    /// Stores the text of the object the model was decoded from.
    #[doc(hidden)]
    fn set_raw(&mut self, text: RawText);
    /// The JSON object exactly as the server sent it (camelCase keys, unknown fields included),
    /// parsed from [`Model::raw_json`] on first use.
    fn raw(&self) -> &Map<String, Value>;
    /// The text of the JSON object exactly as the server sent it.
    fn raw_json(&self) -> &str;
    /// The item's `id`, used by the paging guard against repeated pages.
    fn item_id(&self) -> Option<&str> {
        None
    }
}

/// JSON text as the server sent it: a response body, or a slice of one shared with the other
/// items of its page (no copy, no allocation per item), or its own copy. Always UTF-8.
#[doc(hidden)]
#[derive(Clone, PartialEq, Default)]
pub struct RawText(bytes::Bytes);

impl std::fmt::Debug for RawText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RawText({} bytes)", self.0.len())
    }
}

impl RawText {
    /// The body, if it is UTF-8 (as JSON must be).
    pub(crate) fn new(body: bytes::Bytes) -> Option<Self> {
        std::str::from_utf8(&body).ok()?;
        Some(Self(body))
    }
    /// `text`, sharing `body` when `text` lies within it.
    pub(crate) fn within(text: &str, body: Option<&bytes::Bytes>) -> Self {
        let inside = body.filter(|b| {
            let (start, end) = (b.as_ptr() as usize, b.as_ptr() as usize + b.len());
            let t = text.as_ptr() as usize;
            t >= start && t + text.len() <= end
        });
        match inside {
            Some(b) => Self(b.slice_ref(text.as_bytes())),
            None => Self(bytes::Bytes::copy_from_slice(text.as_bytes())),
        }
    }
    pub(crate) fn as_str(&self) -> &str {
        // SAFETY: built only from `&str` (`within`, `From<&str>`) or checked UTF-8 (`new`).
        unsafe { std::str::from_utf8_unchecked(&self.0) }
    }
}

impl From<&str> for RawText {
    fn from(text: &str) -> Self {
        Self::within(text, None)
    }
}

/// The JSON object a model was decoded from, kept as the server's text (a list of 20 000
/// alerts keeps 13 MB of text where parsed maps took ten times that), and parsed into a
/// [`Map`] only when [`Model::raw`] asks for it.
#[derive(Default)]
pub(crate) struct RawJson {
    text: RawText,
    map: std::sync::OnceLock<Map<String, Value>>,
}

impl RawJson {
    pub(crate) fn new(text: RawText) -> Self {
        Self {
            text,
            map: std::sync::OnceLock::new(),
        }
    }
    /// The text; `{}` for a model that was not decoded from a response.
    pub(crate) fn text(&self) -> &str {
        if self.text.0.is_empty() {
            "{}"
        } else {
            self.text.as_str()
        }
    }
    /// The object. The text was checked to be an object when the model was decoded.
    pub(crate) fn map(&self) -> &Map<String, Value> {
        self.map
            .get_or_init(|| serde_json::from_str(self.text()).unwrap_or_default())
    }
}

impl Clone for RawJson {
    fn clone(&self) -> Self {
        Self::new(self.text.clone())
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

impl std::fmt::Debug for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

impl Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.map().serialize(s)
    }
}

/// Implements [`Model`] (the kept object in the [`RawJson`] field `$raw`, the paging guard's
/// id in `$id`) and a `Serialize` that writes the kept object.
macro_rules! raw_model {
    ($ty:ty, $raw:ident $(, id: $id:ident)?) => {
        impl $crate::models::Model for $ty {
            fn set_raw(&mut self, text: $crate::models::RawText) {
                self.$raw = $crate::models::RawJson::new(text);
            }
            fn raw(&self) -> &serde_json::Map<String, serde_json::Value> {
                self.$raw.map()
            }
            fn raw_json(&self) -> &str {
                self.$raw.text()
            }
            $(fn item_id(&self) -> Option<&str> {
                self.$id.as_deref()
            })?
        }
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.$raw.serialize(s)
            }
        }
    };
}
pub(crate) use raw_model;

/// Defines an open string enum: known values as variants, anything else kept in `Other`.
macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $s:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A value this version of the library does not know, kept as sent.
            Other(String),
        }

        impl $name {
            /// The value as the API spells it.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $s,)+
                    Self::Other(s) => s,
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Ok(match s {
                    $($s => Self::$variant,)+
                    other => Self::Other(other.to_string()),
                })
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s.parse() {
                    Ok(v) => v,
                    Err(never) => match never {},
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
                Ok(Self::from(s.as_ref()))
            }
        }
    };
}
pub(crate) use string_enum;
