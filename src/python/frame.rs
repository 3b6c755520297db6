//! DataFrames handed to Python whole, key columns Categorical.
//!
//! A Categorical column holds ids of the extension's own polars categories, which Python
//! polars does not share. It crosses as UInt32 (no copy, through the Arrow C interface) after
//! its ids are rewritten in place to Python polars' ids of the same strings (looked up once
//! per distinct string), and becomes Categorical on the Python side by reinterpreting them
//! (`.cat.to(pl.Categorical)`, a cast before polars 1.44), which checks them and shares the
//! buffer. Letting Python polars import the Arrow dictionary instead looks every row's
//! string up (about 20 ms per 2.9 M rows and column), and a gather from a Categorical series
//! of the strings made a second copy of every key column (+80 MB for the benchmark's pull).
//! The result holds Python polars' own global categories, so frames of different calls join,
//! concatenate and compare with strings as they are (polars >= 1.32; the package asks for 1.33.1, see pyproject.toml).

use std::sync::Arc;

use polars::prelude::*;
use polars_arrow::array::PrimitiveArray;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3_polars::PyDataFrame;

/// A DataFrame on its way to Python.
pub(crate) struct PyFrame(pub DataFrame);

fn polars_err(e: PolarsError) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// `ids` with every id replaced by `to[id]`, in place where its buffers are its own.
fn remap(ids: UInt32Chunked, to: &[u32]) -> UInt32Chunked {
    let name = ids.name().clone();
    let chunks = ids.downcast_into_iter().map(|mut arr| {
        let at = |v: u32| to.get(v as usize).copied().unwrap_or(0);
        match arr.get_mut_values() {
            Some(values) => {
                values.iter_mut().for_each(|v| *v = at(*v));
                arr
            }
            None => {
                let values: Vec<u32> = arr.values().iter().map(|v| at(*v)).collect();
                PrimitiveArray::new(arr.dtype().clone(), values.into(), arr.validity().cloned())
            }
        }
    });
    UInt32Chunked::from_chunk_iter(name, chunks)
}

impl<'py> IntoPyObject<'py> for PyFrame {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut df = self.0;
        // The key columns and the mapping of each (one table of strings per mapping).
        let mut keys: Vec<(usize, String, usize)> = Vec::new();
        let mut mappings: Vec<(Arc<CategoricalMapping>, u32)> = Vec::new();
        for (i, column) in df.columns().iter().enumerate() {
            let DataType::Categorical(_, mapping) = column.dtype() else {
                continue;
            };
            let top = column
                .as_materialized_series()
                .cat32()
                .map_err(polars_err)?
                .physical()
                .max()
                .unwrap_or(0);
            let m = match mappings.iter().position(|(m, _)| Arc::ptr_eq(m, mapping)) {
                Some(m) => {
                    mappings[m].1 = mappings[m].1.max(top);
                    m
                }
                None => {
                    mappings.push((mapping.clone(), top));
                    mappings.len() - 1
                }
            };
            keys.push((i, column.name().to_string(), m));
        }
        if keys.is_empty() {
            return PyDataFrame(df).into_pyobject(py);
        }
        // Python polars' id of each string: a small Categorical series of them, kept alive
        // (it holds the categories) until the frame's columns hold them too.
        let pl = py.import("polars")?;
        let categorical = pl.getattr("Categorical")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("dtype", &categorical)?;
        let mut anchors = Vec::with_capacity(mappings.len());
        let mut python_ids: Vec<Vec<u32>> = Vec::with_capacity(mappings.len());
        for (mapping, top) in &mappings {
            let strings: Vec<&str> = (0..=*top)
                .map(|id| mapping.cat_to_str(id).unwrap_or(""))
                .collect();
            let series = pl.getattr("Series")?.call(("", strings), Some(&kwargs))?;
            let ids: Vec<Option<u32>> = series
                .call_method0("to_physical")?
                .call_method0("to_list")?
                .extract()?;
            python_ids.push(ids.into_iter().map(|v| v.unwrap_or(0)).collect());
            anchors.push(series);
        }
        // One column at a time: its old ids are gone before the next column's are rewritten.
        for (i, name, m) in &keys {
            let column = df.drop_in_place(name).map_err(polars_err)?;
            let ids = column
                .as_materialized_series()
                .cat32()
                .map_err(polars_err)?
                .physical()
                .clone();
            drop(column);
            let ids = remap(ids, &python_ids[*m]);
            df.insert_column(*i, ids.into_series().into_column())
                .map_err(polars_err)?;
        }
        // `.cat.to(pl.Categorical)` from polars 1.44; a cast before (removed in 2.0).
        let col = pl.getattr("col")?;
        let reinterpret = col.call1(("_",))?.getattr("cat")?.hasattr("to")?;
        let exprs = keys
            .iter()
            .map(|(_, name, _)| {
                let c = col.call1((name.as_str(),))?;
                if reinterpret {
                    c.getattr("cat")?.call_method1("to", (&categorical,))
                } else {
                    c.call_method1("cast", (&categorical,))
                }
            })
            .collect::<PyResult<Vec<_>>>()?;
        let frame = PyDataFrame(df).into_pyobject(py)?;
        let frame = frame.call_method1("with_columns", (PyList::new(py, exprs)?,))?;
        drop(anchors);
        Ok(frame)
    }
}

/// A frame's Arrow PyCapsule stream (`__arrow_c_stream__`), through the polars frame it
/// becomes in Python: its buffers are shared, nothing goes through Python objects.
pub(crate) fn arrow_stream(
    py: Python<'_>,
    frame: DataFrame,
    requested_schema: Option<Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let frame = PyFrame(frame).into_pyobject(py)?;
    Ok(frame
        .call_method1("__arrow_c_stream__", (requested_schema,))?
        .unbind())
}

/// A frame as polars shows it in Jupyter, after a caption.
pub(crate) fn html(py: Python<'_>, frame: DataFrame, caption: &str) -> PyResult<String> {
    let frame = PyFrame(frame).into_pyobject(py)?;
    let table: String = frame.call_method0("_repr_html_")?.extract()?;
    Ok(format!("{caption}{table}"))
}
