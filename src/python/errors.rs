//! The one place where [`crate::Error`] becomes a Python exception of `opsapi.exceptions`.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::Error;

static EXCEPTIONS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    let module = EXCEPTIONS.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("opsapi.exceptions")?.unbind())
    })?;
    module.bind(py).getattr(name)
}

fn build(py: Python<'_>, err: Error) -> PyResult<PyErr> {
    let message = err.to_string();
    let kw = PyDict::new(py);
    let (name, args): (&str, Bound<'_, PyTuple>) = match err {
        Error::Api(api) => {
            let name = match api.status {
                401 => "AuthenticationError",
                403 => "ForbiddenError",
                404 => "NotFoundError",
                429 => "RateLimitError",
                500..=599 => "ServerError",
                _ => "ApiError",
            };
            let params = PyList::empty(py);
            for p in &api.parameters {
                params.append(super::json::json_to_py(py, p)?)?;
            }
            kw.set_item("message", &message)?;
            kw.set_item("request", (!api.request.is_empty()).then_some(&api.request))?;
            kw.set_item("retry_after", api.retry_after.map(|d| d.as_secs_f64()))?;
            let args = PyTuple::new(
                py,
                [
                    api.status.into_pyobject(py)?.into_any(),
                    api.error_code.into_pyobject(py)?.into_any(),
                    api.detail.into_pyobject(py)?.into_any(),
                    api.reason.into_pyobject(py)?.into_any(),
                    params.into_any(),
                    api.body.into_pyobject(py)?.into_any(),
                ],
            )?;
            (name, args)
        }
        Error::InvalidArgument { argument, .. } => {
            kw.set_item("argument", argument)?;
            ("InvalidArgumentError", PyTuple::new(py, [message])?)
        }
        Error::Transport { method, path, .. } => {
            kw.set_item("method", method)?;
            kw.set_item("path", path)?;
            ("TransportError", PyTuple::new(py, [message])?)
        }
        Error::Timeout {
            method,
            path,
            timeout,
        } => {
            kw.set_item("method", method)?;
            kw.set_item("path", path)?;
            kw.set_item("timeout", timeout.as_secs_f64())?;
            ("RequestTimeoutError", PyTuple::new(py, [message])?)
        }
        Error::ResponseTooLarge {
            method,
            path,
            limit,
        } => {
            kw.set_item("method", method)?;
            kw.set_item("path", path)?;
            kw.set_item("limit", limit)?;
            ("ResponseTooLargeError", PyTuple::new(py, [message])?)
        }
        Error::Decode {
            path,
            field,
            body_start,
            ..
        } => {
            kw.set_item("path", path)?;
            kw.set_item("field", field)?;
            kw.set_item("body_start", body_start)?;
            ("DecodeError", PyTuple::new(py, [message])?)
        }
        Error::Unsupported { operation, flavour } => {
            kw.set_item("operation", operation)?;
            kw.set_item("flavour", flavour.as_str())?;
            ("UnsupportedError", PyTuple::new(py, [message])?)
        }
        Error::Paging { path, .. } => {
            kw.set_item("path", path)?;
            ("PagingError", PyTuple::new(py, [message])?)
        }
        Error::Frame(_) => ("FrameError", PyTuple::new(py, [message])?),
        Error::Io { path, .. } => {
            kw.set_item("path", path)?;
            ("OutputError", PyTuple::new(py, [message])?)
        }
        Error::StoreLocked { path } => {
            kw.set_item("path", path.into_os_string())?;
            ("StoreLockedError", PyTuple::new(py, [message])?)
        }
        Error::StoreFile { path, .. } => {
            kw.set_item("path", path.into_os_string())?;
            ("StoreFileError", PyTuple::new(py, [message])?)
        }
        Error::Internal(_) => return Ok(PyRuntimeError::new_err(message)),
        _ => ("ConfigError", PyTuple::new(py, [message])?),
    };
    let exc = class(py, name)?.call(args, Some(&kw))?;
    Ok(PyErr::from_value(exc))
}

/// Converts a core error into the matching `opsapi.exceptions` class, attributes filled.
pub(crate) fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    build(py, err).unwrap_or_else(|e| e)
}

/// An `InvalidArgumentError` raised by the bindings themselves (type checks of arguments).
pub(crate) fn invalid_argument(
    py: Python<'_>,
    argument: &str,
    message: impl Into<String>,
) -> PyErr {
    to_py_err(py, Error::invalid_argument(argument, message))
}
