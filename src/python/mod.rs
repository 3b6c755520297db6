//! Python bindings (feature `python`): the native module `opsapi._native`, built by maturin.
//! Bindings only: conversion and forwarding, no logic a Rust user would not also get.

mod api;
mod args;
mod errors;
mod forecast;
mod frame;
mod json;
mod logging;
mod models;
mod runtime;
mod sim;

use pyo3::prelude::*;

/// `MEASUREMENT_NAMES` (flavour -> kind -> the names its server takes) and `MAX_MEASUREMENTS`
/// (flavour -> names one request may carry, or None): `crate::flavour::measurements`.
fn measurement_names(m: &Bound<'_, PyModule>) -> PyResult<()> {
    use crate::flavour::{Flavour, Operation};
    use pyo3::types::PyDict;
    let (names, max) = (PyDict::new(m.py()), PyDict::new(m.py()));
    for f in Flavour::ALL {
        let kinds = PyDict::new(m.py());
        for (kind, op) in [
            ("host", Operation::MeasurementsHost),
            ("disk", Operation::MeasurementsDisk),
            ("database", Operation::MeasurementsDatabase),
        ] {
            kinds.set_item(kind, f.measurement_names(op).to_vec())?;
        }
        names.set_item(f.as_str(), kinds)?;
        max.set_item(f.as_str(), f.max_measurements())?;
    }
    m.add("MEASUREMENT_NAMES", names)?;
    m.add("MAX_MEASUREMENTS", max)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    logging::install();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The long frame's key columns, for opsapi.capacity (the one list is Rust's).
    let keys = pyo3::types::PyTuple::new(m.py(), crate::frame::LONG_KEY_COLUMNS)?;
    m.add("LONG_KEY_COLUMNS", keys)?;
    let names = pyo3::types::PyDict::new(m.py());
    for (om, atlas) in crate::flavour::ATLAS_MEASUREMENT_NAMES {
        names.set_item(om, atlas)?;
    }
    m.add("ATLAS_MEASUREMENT_NAMES", names)?;
    // Atlas's tiers, smallest first: name -> (vCPUs, memory GiB), for opsapi.capacity (the
    // one table is Rust's).
    let tiers = pyo3::types::PyDict::new(m.py());
    for t in crate::ATLAS_TIERS {
        tiers.set_item(t.name, (t.vcpus, t.memory_gib))?;
    }
    m.add("ATLAS_TIERS", tiers)?;
    measurement_names(m)?;
    // The flavour table's operations and the flavours that have each, for the tests that
    // every one is reachable, in the stub and served (tests/python/test_operation_table.py).
    // And the version Atlas is asked each in (`ATLAS_VERSIONS`, the versioned media type's).
    let operations = pyo3::types::PyDict::new(m.py());
    let versions = pyo3::types::PyDict::new(m.py());
    for op in crate::Operation::ALL {
        let flavours = crate::Flavour::ALL.into_iter().filter(|f| f.supports(op));
        let flavours: Vec<&str> = flavours.map(|f| f.as_str()).collect();
        operations.set_item(op.name(), pyo3::types::PyTuple::new(m.py(), flavours)?)?;
        if let Some(v) = crate::Flavour::Atlas.version(op) {
            versions.set_item(op.name(), v)?;
        }
    }
    m.add("OPERATIONS", operations)?;
    m.add("ATLAS_VERSIONS", versions)?;
    m.add_function(wrap_pyfunction!(runtime::_shutdown, m)?)?;
    m.add_function(wrap_pyfunction!(args::parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(sim::_sim_main, m)?)?;
    m.add_function(wrap_pyfunction!(sim::_sim_help, m)?)?;
    m.add_function(wrap_pyfunction!(sim::_seasonal_cases, m)?)?;
    m.add_function(wrap_pyfunction!(sim::_forecast_cases, m)?)?;
    m.add_class::<forecast::_Forecasts>()?;
    m.add_function(wrap_pyfunction!(api::_check_targets, m)?)?;
    m.add_class::<api::Client>()?;
    m.add_class::<api::AsyncClient>()?;
    api::add_handles(m)?;
    m.add_class::<api::Store>()?;
    m.add_class::<api::SyncReport>()?;
    m.add_class::<api::StoreCheck>()?;
    m.add_class::<api::AlertIterator>()?;
    m.add_class::<api::AsyncAlertIterator>()?;
    m.add_class::<models::AccessListEntry>()?;
    m.add_class::<models::Alert>()?;
    m.add_class::<models::AlertList>()?;
    m.add_class::<models::AlertConfig>()?;
    m.add_class::<models::AlertContext>()?;
    m.add_class::<models::AutoScaling>()?;
    m.add_class::<models::Cluster>()?;
    m.add_class::<models::ClusterList>()?;
    m.add_class::<models::CurrentValue>()?;
    m.add_class::<models::Event>()?;
    m.add_class::<models::EventDiff>()?;
    m.add_class::<models::EventDiffParam>()?;
    m.add_class::<models::EventList>()?;
    m.add_class::<models::Group>()?;
    m.add_class::<models::Host>()?;
    m.add_class::<models::HostList>()?;
    m.add_class::<models::Link>()?;
    m.add_class::<models::Measurements>()?;
    m.add_class::<models::Series>()?;
    m.add_class::<models::SystemInfo>()?;
    m.add_class::<sim::PySimulator>()?;
    m.add_class::<sim::PyHold>()?;
    Ok(())
}
