//! Result classes: frozen pyclasses whose attributes read the core models, generated from
//! each model's one field list (`crate::models::<model>_fields!`), and `to_dict()` from the
//! JSON the server sent. One file per resource; the machinery is here.

mod alert;
mod cluster;
mod event;
mod group;
mod host;
mod measurements;
mod performance_advisor;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyDateTime, PyList};
use pyo3::IntoPyObjectExt;

pub use alert::{Alert, AlertConfig, AlertContext, AlertList, CurrentValue};
pub use cluster::{AutoScaling, Cluster, ClusterList};
pub use event::{Event, EventDiff, EventDiffParam, EventList};
pub use group::{AccessListEntry, Group};
pub use host::{Host, HostList, SystemInfo};
pub use measurements::{Measurements, Series};
pub use performance_advisor::{
    Namespace, QueryShape, SlowQuery, SlowQueryLogs, SuggestedIndex, SuggestedIndexes,
};

pub(crate) use super::json::{json_loads, json_to_py};

/// How a field of a core model becomes a Python value: `None` where the server left it out,
/// strings for open enums, timezone-aware datetimes, Python objects for free-form JSON, and
/// the classes of nested objects.
pub(crate) trait PyField {
    /// The field's type as the stub spells it (`Optional[str]`).
    const STUB: &'static str;
    /// The Python value of the field.
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

macro_rules! py_field_as_is {
    ($($ty:ty => $stub:literal),*) => {
        $(impl PyField for $ty {
            const STUB: &'static str = $stub;
            fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                self.into_py_any(py)
            }
        })*
    };
}
py_field_as_is!(
    String => "str",
    Option<String> => "Optional[str]",
    Option<i64> => "Optional[int]",
    Option<f64> => "Optional[float]",
    Option<bool> => "Optional[bool]",
    Option<DateTime<Utc>> => "Optional[datetime]",
    Option<Vec<String>> => "Optional[list[str]]"
);

macro_rules! py_field_enum {
    ($($ty:ty),*) => {
        $(impl PyField for Option<$ty> {
            const STUB: &'static str = "Optional[str]";
            fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                self.as_ref().map(|v| v.as_str()).into_py_any(py)
            }
        })*
    };
}
py_field_enum!(
    crate::models::AlertStatus,
    crate::models::ClusterType,
    crate::models::HostType,
    crate::models::ReplicaState
);

impl PyField for Option<serde_json::Value> {
    const STUB: &'static str = "Any";
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Some(v) => json_to_py(py, v),
            None => Ok(py.None()),
        }
    }
}

impl PyField for Option<Vec<serde_json::Value>> {
    const STUB: &'static str = "Optional[list[Any]]";
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Some(v) => json_to_py(py, v),
            None => Ok(py.None()),
        }
    }
}

/// `links`: a list, empty where the server sent none.
impl PyField for Option<Vec<crate::models::Link>> {
    const STUB: &'static str = "list[Link]";
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let links = self.as_deref().unwrap_or_default();
        let items = links
            .iter()
            .map(|l| Link::from(l.clone()).into_py_any(py))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.into_any().unbind())
    }
}

/// A nested object (or a list of them) as its Python class.
macro_rules! py_field_part {
    ($($part:ident),*) => {
        $(
            impl PyField for Option<crate::models::$part> {
                const STUB: &'static str = concat!("Optional[", stringify!($part), "]");
                fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                    self.clone().map($part::from).into_py_any(py)
                }
            }
            impl PyField for Option<Vec<crate::models::$part>> {
                const STUB: &'static str = concat!("Optional[list[", stringify!($part), "]]");
                fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                    self.as_ref()
                        .map(|v| v.iter().cloned().map($part::from).collect::<Vec<_>>())
                        .into_py_any(py)
                }
            }
        )*
    };
}
py_field_part!(
    AutoScaling,
    CurrentValue,
    SystemInfo,
    EventDiff,
    EventDiffParam,
    SlowQuery,
    QueryShape,
    SuggestedIndex
);

/// `Name(field=value, ...)`: timestamps as ISO 8601 text, everything else as Python's repr.
fn repr_of(py: Python<'_>, name: &str, fields: &[(&str, Py<PyAny>)]) -> PyResult<String> {
    let mut out = format!("{name}(");
    for (i, (field, value)) in fields.iter().enumerate() {
        let value = value.bind(py);
        let shown = if value.is_instance_of::<PyDateTime>() {
            format!("'{}'", value.call_method0("isoformat")?)
        } else {
            value.repr()?.to_string()
        };
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(field);
        out.push('=');
        out.push_str(&shown);
    }
    out.push(')');
    Ok(out)
}

/// Text escaped for HTML.
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A compact two-column table of the fields that hold a value (for Jupyter), values as
/// `repr_of` shows them, long ones cut at 120 characters.
pub(crate) fn repr_html_of(
    py: Python<'_>,
    name: &str,
    fields: &[(&str, Py<PyAny>)],
) -> PyResult<String> {
    let mut out = format!(
        "<table class=\"opsapi\"><caption style=\"text-align:left\"><b>{}</b></caption>",
        escape_html(name)
    );
    for (field, value) in fields {
        let value = value.bind(py);
        if value.is_none() {
            continue;
        }
        let shown = if value.is_instance_of::<PyDateTime>() {
            value.call_method0("isoformat")?.to_string()
        } else if let Ok(s) = value.cast::<pyo3::types::PyString>() {
            s.to_string()
        } else {
            value.repr()?.to_string()
        };
        let shown = match shown.char_indices().nth(120) {
            Some((cut, _)) => format!("{}…", &shown[..cut]),
            None => shown,
        };
        out.push_str(&format!(
            "<tr><th style=\"text-align:left\">{}</th><td style=\"text-align:left\">{}</td></tr>",
            escape_html(field),
            escape_html(&shown)
        ));
    }
    out.push_str("</table>");
    Ok(out)
}

/// The stub of a model's fields (`_native._model_stubs()`, which `.ci/stubs.py` writes the
/// stub-only bases `_<Model>Fields` of `python/opsapi/_generated.pyi` from): its class, and
/// each field's name and type as the stub spells it ([`PyField::STUB`]).
pub(crate) struct ModelStub {
    pub(crate) class: &'static str,
    pub(crate) fields: &'static [(&'static str, &'static str)],
}
inventory::collect!(ModelStub);

/// Records a model's fields for the stub.
macro_rules! model_stub {
    ($name:ident { $($field:ident: $ty:ty),* }) => {
        inventory::submit! {
            $crate::python::models::ModelStub {
                class: stringify!($name),
                fields: &[$((
                    $crate::models::unraw(stringify!($field)),
                    <$ty as $crate::python::models::PyField>::STUB,
                )),*],
            }
        }
    };
}
pub(crate) use model_stub;

/// `_model_stubs()`: every model's fields as `(class, [(field, type)])`, by class, each in its
/// declared order.
#[pyfunction]
pub(crate) fn _model_stubs() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    let mut out: Vec<_> = inventory::iter::<ModelStub>
        .into_iter()
        .map(|m| (m.class, m.fields.to_vec()))
        .collect();
    out.sort();
    out
}

/// Makes the Python class of a top-level model from its field list: one getter per field
/// (read from the shared core model on access: nothing is copied when the object is made),
/// `_fields`, `to_dict()` (the server's JSON text, parsed by `json.loads`) and `__repr__`.
/// Invoked as `crate::models::<model>_fields!(py_model "docstring")`.
macro_rules! py_model {
    (
        ($doc:literal)
        $(#[$meta:meta])*
        $name:ident { raw: $raw:ident $(, id: $id:ident)?, repr: [$($repr:ident),*] }
        { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    ) => {
        #[doc = $doc]
        #[pyclass(frozen, module = "opsapi._native", skip_from_py_object)]
        pub struct $name {
            inner: $crate::python::models::Shared<$crate::models::$name>,
        }
        $crate::python::models::model_stub!($name { $($field: $ty),* });
        impl From<$crate::models::$name> for $name {
            fn from(m: $crate::models::$name) -> Self {
                Self { inner: $crate::python::models::Shared::one(m) }
            }
        }
        impl From<$crate::python::models::Shared<$crate::models::$name>> for $name {
            fn from(inner: $crate::python::models::Shared<$crate::models::$name>) -> Self {
                Self { inner }
            }
        }
        impl $name {
            /// The core model this object reads (an argument handed back to the core).
            #[allow(dead_code)]
            pub(crate) fn model(&self) -> &$crate::models::$name {
                self.inner.get()
            }
        }
        #[pymethods]
        impl $name {
            $(
                #[getter]
                fn $field(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                    $crate::python::models::PyField::to_py(&self.inner.get().$field, py)
                }
            )*
            /// The names of the attributes that hold the model's fields, in order.
            #[classattr]
            fn _fields(py: Python<'_>) -> PyResult<Py<pyo3::types::PyTuple>> {
                let names = [$($crate::models::unraw(stringify!($field))),*];
                Ok(pyo3::types::PyTuple::new(py, names)?.unbind())
            }
            /// The JSON object exactly as the server sent it (camelCase keys, key order,
            /// number spelling and fields this library does not know included).
            ///
            /// >>> host.to_dict()["replicaStateName"]  # doctest: +SKIP
            /// 'PRIMARY'
            fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                $crate::python::models::json_loads(
                    py,
                    $crate::models::Model::raw_json(self.inner.get()),
                )
            }
            /// A table of the fields the server sent, for Jupyter.
            ///
            /// >>> host  # in a notebook cell: a compact table  # doctest: +SKIP
            fn _repr_html_(&self, py: Python<'_>) -> PyResult<String> {
                let m = self.inner.get();
                $crate::python::models::repr_html_of(
                    py,
                    stringify!($name),
                    &[$((
                        $crate::models::unraw(stringify!($field)),
                        $crate::python::models::PyField::to_py(&m.$field, py)?,
                    )),*],
                )
            }
            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                // A model whose fields are all lists shows none (`SlowQueryLogs()`).
                #[allow(unused_variables)]
                let m = self.inner.get();
                $crate::python::models::repr_of(
                    py,
                    stringify!($name),
                    &[$((
                        $crate::models::unraw(stringify!($repr)),
                        $crate::python::models::PyField::to_py(&m.$repr, py)?,
                    )),*],
                )
            }
        }
    };
}
pub(crate) use py_model;

/// Makes the Python class of a nested object (`currentValue`, `systemInfo`, a diff) from its
/// field list: it holds its own copy (nested objects are small), with `to_dict()` from the
/// typed fields.
macro_rules! py_part {
    (
        ($doc:literal)
        $(#[$meta:meta])*
        $name:ident {}
        { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    ) => {
        #[doc = $doc]
        #[pyclass(frozen, module = "opsapi._native", skip_from_py_object)]
        pub struct $name {
            inner: $crate::models::$name,
        }
        $crate::python::models::model_stub!($name { $($field: $ty),* });
        impl From<$crate::models::$name> for $name {
            fn from(inner: $crate::models::$name) -> Self {
                Self { inner }
            }
        }
        #[pymethods]
        // A part's field may be called `new` (a diff's new value).
        #[allow(clippy::new_ret_no_self, clippy::wrong_self_convention)]
        impl $name {
            $(
                #[getter]
                fn $field(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                    $crate::python::models::PyField::to_py(&self.inner.$field, py)
                }
            )*
            /// The names of the attributes that hold the object's fields, in order.
            #[classattr]
            fn _fields(py: Python<'_>) -> PyResult<Py<pyo3::types::PyTuple>> {
                let names = [$($crate::models::unraw(stringify!($field))),*];
                Ok(pyo3::types::PyTuple::new(py, names)?.unbind())
            }
            /// The JSON object, with the API's key names.
            ///
            /// >>> alert.current_value.to_dict()  # doctest: +SKIP
            /// {'number': 0.0, 'units': 'RAW'}
            fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                $crate::python::models::json_to_py(py, &self.inner)
            }
            /// A table of the fields, for Jupyter.
            ///
            /// >>> alert.current_value  # in a notebook cell  # doctest: +SKIP
            fn _repr_html_(&self, py: Python<'_>) -> PyResult<String> {
                $crate::python::models::repr_html_of(
                    py,
                    stringify!($name),
                    &[$((
                        $crate::models::unraw(stringify!($field)),
                        $crate::python::models::PyField::to_py(&self.inner.$field, py)?,
                    )),*],
                )
            }
            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                $crate::python::models::repr_of(
                    py,
                    stringify!($name),
                    &[$((
                        $crate::models::unraw(stringify!($field)),
                        $crate::python::models::PyField::to_py(&self.inner.$field, py)?,
                    )),*],
                )
            }
        }
    };
}
pub(crate) use py_part;

crate::models::link_fields!(py_part "A link of a resource: `rel` (`self`, `next`, ...) and `href`.");

/// One item of a list that Python objects share: the list's items stay where paging put them,
/// and indexing or iterating makes a small object pointing at one of them (as a slice of a
/// polars or numpy array points into its parent). An item kept after its list is dropped keeps
/// the list's items alive with it: giving each item its own allocation instead was measured to
/// cost a list of 20 000 alerts 11 MB more peak memory and 10 ms more.
pub(crate) struct Shared<T> {
    items: Arc<Vec<T>>,
    index: usize,
}

impl<T> Shared<T> {
    pub(crate) fn one(item: T) -> Self {
        Self::at(Arc::new(vec![item]), 0)
    }
    pub(crate) fn at(items: Arc<Vec<T>>, index: usize) -> Self {
        debug_assert!(index < items.len());
        Self { items, index }
    }
    pub(crate) fn get(&self) -> &T {
        &self.items[self.index]
    }
}

/// Index or slice a read-only sequence.
pub(crate) fn index_of(len: usize, index: isize) -> PyResult<usize> {
    let i = if index < 0 {
        index + len as isize
    } else {
        index
    };
    if i < 0 || i as usize >= len {
        return Err(PyIndexError::new_err("list index out of range"));
    }
    Ok(i as usize)
}

macro_rules! list_class {
    ($(#[$meta:meta])* $py:ident($name:literal) of $item:ident($rust:ty), $frame:path, $iter:ident) => {
        $(#[$meta])*
        #[pyclass(frozen, sequence, name = $name, module = "opsapi._native", skip_from_py_object)]
        pub struct $py {
            items: std::sync::Arc<Vec<$rust>>,
            total_count: u64,
        }

        impl From<crate::List<$rust>> for $py {
            fn from(list: crate::List<$rust>) -> Self {
                let total_count = list.total_count();
                Self {
                    items: std::sync::Arc::new(list.into_vec()),
                    total_count,
                }
            }
        }

        #[pymethods]
        impl $py {
            /// `totalCount` as the server reported it.
            #[getter]
            fn total_count(&self) -> u64 {
                self.total_count
            }
            fn __len__(&self) -> usize {
                self.items.len()
            }
            fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                if let Ok(slice) = index.cast::<pyo3::types::PySlice>() {
                    let ix = slice.indices(self.items.len() as isize)?;
                    let mut out = Vec::with_capacity(ix.slicelength);
                    let mut i = ix.start;
                    for _ in 0..ix.slicelength {
                        out.push($item::from($crate::python::models::Shared::at(std::sync::Arc::clone(&self.items), i as usize)));
                        i += ix.step;
                    }
                    return Ok(pyo3::types::PyList::new(py, out)?.into_any().unbind());
                }
                let i: isize = index
                    .extract()
                    .map_err(|_| pyo3::exceptions::PyTypeError::new_err("indices must be integers or slices"))?;
                let i = $crate::python::models::index_of(self.items.len(), i)?;
                Ok($item::from($crate::python::models::Shared::at(std::sync::Arc::clone(&self.items), i))
                    .into_pyobject(py)?
                    .into_any()
                    .unbind())
            }
            fn __iter__(&self) -> $iter {
                $iter {
                    items: std::sync::Arc::clone(&self.items),
                    next: std::sync::atomic::AtomicUsize::new(0),
                }
            }
            /// One row per item, as a polars DataFrame: snake_case columns, nested objects
            /// flattened (`current_value_number`), timestamps as `Datetime("ms", "UTC")`,
            /// identifiers (`id`, `*_id`) Categorical like every key column of opsapi.
            ///
            /// >>> client.global_alerts.list(status="OPEN").to_polars().select("id", "created")  # doctest: +SKIP
            fn to_polars(&self, py: Python<'_>) -> PyResult<$crate::python::frame::PyFrame> {
                let frame = $frame(&self.items).map_err(|e| $crate::python::errors::to_py_err(py, e))?;
                Ok($crate::python::frame::PyFrame(frame))
            }
            /// The Arrow PyCapsule stream interface: the list's frame (see `to_polars()`) as
            /// Arrow, without a copy through Python objects.
            ///
            /// >>> import pyarrow, duckdb  # doctest: +SKIP
            /// >>> pyarrow.table(alerts).num_rows  # doctest: +SKIP
            /// >>> duckdb.sql("select status, count(*) from alerts group by status")  # doctest: +SKIP
            #[pyo3(signature = (requested_schema = None))]
            fn __arrow_c_stream__(
                &self,
                py: Python<'_>,
                requested_schema: Option<Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                let frame = $frame(&self.items).map_err(|e| $crate::python::errors::to_py_err(py, e))?;
                $crate::python::frame::arrow_stream(py, frame, requested_schema)
            }
            /// The list as a table (its polars frame), for Jupyter.
            ///
            /// >>> alerts  # in a notebook cell  # doctest: +SKIP
            fn _repr_html_(&self, py: Python<'_>) -> PyResult<String> {
                let frame = $frame(&self.items).map_err(|e| $crate::python::errors::to_py_err(py, e))?;
                let caption = format!(
                    "<p><b>{}</b>: {} of total_count {}</p>",
                    $name,
                    self.items.len(),
                    self.total_count
                );
                $crate::python::frame::html(py, frame, &caption)
            }
            fn __repr__(&self) -> String {
                format!("{}(len={}, total_count={})", $name, self.items.len(), self.total_count)
            }
        }

        /// Iterates a list, making each item's object as it is reached.
        #[pyclass(frozen, module = "opsapi._native")]
        pub struct $iter {
            items: std::sync::Arc<Vec<$rust>>,
            next: std::sync::atomic::AtomicUsize,
        }

        #[pymethods]
        impl $iter {
            fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
                slf
            }
            fn __next__(&self) -> Option<$item> {
                // Frozen, so the position is atomic; Python calls this with the GIL held.
                let i = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i < self.items.len() {
                    Some($item::from($crate::python::models::Shared::at(std::sync::Arc::clone(&self.items), i)))
                } else {
                    self.next.store(self.items.len(), std::sync::atomic::Ordering::Relaxed);
                    None
                }
            }
        }
    };
}

pub(crate) use list_class;
