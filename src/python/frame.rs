//! DataFrames handed to Python whole, key columns Categorical.
//!
//! A Categorical column crosses as its physical UInt32 ids (no copy, through the Arrow C
//! interface) and becomes Categorical again on the Python side with one gather from a small
//! Categorical series of its strings: about 8 ms per 2.9 M rows and column, where letting
//! Python polars import the Arrow dictionary looks every row's string up in its global
//! categories (about 20 ms per column, measured on polars 1.32 to 2.1). The result holds
//! Python polars' own global categories, so frames of different calls join, concatenate and
//! compare with strings as they are (polars >= 1.32).

use std::sync::Arc;

use polars::prelude::*;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3_polars::PyDataFrame;

/// A DataFrame on its way to Python.
pub(crate) struct PyFrame(pub DataFrame);

impl<'py> IntoPyObject<'py> for PyFrame {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut df = self.0;
        // The key columns, their ids, and the strings of those ids (one table per mapping).
        let mut keys: Vec<(String, usize)> = Vec::new();
        let mut mappings: Vec<(Arc<CategoricalMapping>, u32)> = Vec::new();
        let mut physical: Vec<(usize, Column)> = Vec::new();
        for (i, column) in df.columns().iter().enumerate() {
            let DataType::Categorical(_, mapping) = column.dtype() else {
                continue;
            };
            let ids = column
                .as_materialized_series()
                .cat32()
                .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?
                .physical()
                .clone();
            let top = ids.max().unwrap_or(0);
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
            keys.push((column.name().to_string(), m));
            physical.push((i, ids.into_series().into_column()));
        }
        if keys.is_empty() {
            return PyDataFrame(df).into_pyobject(py);
        }
        for (i, ids) in physical {
            df.replace_column(i, ids)
                .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        }
        let pl = py.import("polars")?;
        let categorical = pl.getattr("Categorical")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("dtype", &categorical)?;
        let categories = mappings
            .iter()
            .map(|(mapping, top)| {
                let strings: Vec<&str> = (0..=*top)
                    .map(|id| mapping.cat_to_str(id).unwrap_or(""))
                    .collect();
                let series = pl.getattr("Series")?.call(("", strings), Some(&kwargs))?;
                pl.getattr("lit")?.call1((series,))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let col = pl.getattr("col")?;
        let exprs = keys
            .iter()
            .map(|(name, m)| {
                categories[*m]
                    .call_method1("gather", (col.call1((name.as_str(),))?,))?
                    .call_method1("alias", (name.as_str(),))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let frame = PyDataFrame(df).into_pyobject(py)?;
        frame.call_method1("with_columns", (PyList::new(py, exprs)?,))
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
