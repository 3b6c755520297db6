//! JSON to Python objects, through the standard library's `json` (for `to_dict()`, free-form
//! fields and the `parameters` of API errors).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// A JSON value to Python objects, through the standard library (correctness over
/// cleverness; integers stay exact: serde_json keeps their digits).
pub(crate) fn json_to_py<T: serde::Serialize + ?Sized>(
    py: Python<'_>,
    value: &T,
) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    json_loads(py, &text)
}

/// JSON text to Python objects with the standard library's `json.loads`.
pub(crate) fn json_loads(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}
