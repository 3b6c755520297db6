//! The simulator's flavour for Python: `Simulator(flavour="atlas", token_buckets=...,
//! token_lifetime=...)` and what a client of it needs (`client_id`, `client_secret`,
//! `api_url`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};

use super::{seconds, PySimulator};
use crate::sim::{SimConfig, TokenBucket};

/// `flavour=` (`"ops-manager"`, `"cloud-manager"`, `"atlas"`), `token_buckets=` (`True`:
/// Atlas's documented buckets; a dict of endpoint set to `(capacity, per_minute)`) and
/// `token_lifetime=` (seconds).
pub(super) fn configure(
    config: &mut SimConfig,
    flavour: Option<&str>,
    token_buckets: Option<&Bound<'_, PyAny>>,
    token_lifetime: Option<f64>,
) -> PyResult<()> {
    if let Some(f) = flavour {
        config.flavour = f.parse().map_err(|_| {
            PyValueError::new_err(format!(
                "flavour must be \"ops-manager\", \"cloud-manager\" or \"atlas\", not {f:?}"
            ))
        })?;
    }
    if let Some(s) = token_lifetime {
        config.token_lifetime = seconds("token_lifetime", s)?;
        if config.token_lifetime.is_zero() {
            return Err(PyValueError::new_err(
                "token_lifetime must be above 0 seconds",
            ));
        }
    }
    let Some(buckets) = token_buckets.filter(|b| !b.is_none()) else {
        return Ok(());
    };
    if let Ok(on) = buckets.cast::<PyBool>() {
        if on.is_true() {
            config.token_buckets = TokenBucket::documented();
        }
        return Ok(());
    }
    let sets = buckets.cast::<PyDict>().map_err(|_| {
        PyValueError::new_err(
            "token_buckets must be True (Atlas's) or a dict of endpoint set to \
             (capacity, per_minute)",
        )
    })?;
    for (set, spec) in sets.iter() {
        let name: String = set.extract()?;
        let set: crate::EndpointSet = name
            .parse()
            .map_err(|e: crate::Error| PyValueError::new_err(format!("token_buckets: {e}")))?;
        let (capacity, per_minute): (u32, f64) = spec.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "token_buckets[{name:?}] must be (capacity, per_minute)"
            ))
        })?;
        if !(per_minute.is_finite() && per_minute >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "token_buckets[{name:?}]: per_minute must be 0 or more"
            )));
        }
        config.token_buckets.retain(|(s, _)| *s != set);
        config.token_buckets.push((
            set,
            TokenBucket {
                capacity,
                per_minute,
            },
        ));
    }
    Ok(())
}

#[pymethods]
impl PySimulator {
    /// The flavour it serves the world as.
    #[getter]
    fn flavour(&self) -> PyResult<&'static str> {
        self.with(|s| s.flavour().as_str())
    }

    /// The address of its API (`base_url` and the flavour's path).
    #[getter]
    fn api_url(&self) -> PyResult<String> {
        self.with(|s| s.api_url())
    }

    /// The service account's client id (Atlas).
    #[getter]
    fn client_id(&self) -> PyResult<String> {
        self.with(|s| s.client_id().to_string())
    }

    /// The service account's client secret (Atlas).
    #[getter]
    fn client_secret(&self) -> PyResult<String> {
        self.with(|s| s.client_secret().to_string())
    }
}
