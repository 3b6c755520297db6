//! What global and project alerts share in Python: the acknowledgement made of
//! `acknowledge(...)`'s keyword arguments, and the results of an `*_many` call.

use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::api::acknowledgement::Acknowledgement;
use crate::python::args;
use crate::python::errors::to_py_err;
use crate::python::models::Alert;

/// The acknowledgement of `acknowledge(...)`'s keyword arguments: exactly one of `until`,
/// `duration` or `forever=True`.
pub(super) fn acknowledgement(
    py: Python<'_>,
    until: Option<&Bound<'_, PyAny>>,
    duration: Option<&Bound<'_, PyAny>>,
    forever: Option<&Bound<'_, PyAny>>,
    comment: Option<&Bound<'_, PyAny>>,
) -> PyResult<Acknowledgement> {
    let forever = args::flag(py, "forever", forever)?.unwrap_or(false);
    let comment = args::string(py, "comment", comment)?;
    let until = args::timestamp(py, "until", until)?;
    let duration = args::duration(py, "duration", duration)?;
    Acknowledgement::from_parts(until, duration.as_deref(), forever, comment)
        .map_err(|e| to_py_err(py, e))
}

/// The results of an `*_many` call as Python sees them: a list with one `Alert` or one
/// exception object (an `OpsApiError`, not raised) per id.
pub(super) struct ManyResults(pub(super) Vec<crate::Result<crate::Alert>>);

impl<'py> IntoPyObject<'py> for ManyResults {
    type Target = PyList;
    type Output = Bound<'py, PyList>;
    type Error = PyErr;
    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for r in self.0 {
            match r {
                Ok(alert) => list.append(Alert::from(alert))?,
                Err(e) => list.append(to_py_err(py, e).into_value(py))?,
            }
        }
        Ok(list)
    }
}
