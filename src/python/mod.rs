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

/// A row of the flavour table as Python reads it (`OPERATION_TABLE`'s values): the tests' and
/// the docs' tables are written from it or checked against it.
fn row<'py>(
    py: Python<'py>,
    row: &crate::flavour::Row,
    flavours: &[&str],
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    use crate::Flavour;
    let d = pyo3::types::PyDict::new(py);
    d.set_item("method", row.method.as_str())?;
    d.set_item("path", row.path(Flavour::OpsManager))?;
    d.set_item("atlas_path", row.path(Flavour::Atlas))?;
    d.set_item("params", row.params().collect::<Vec<_>>())?;
    d.set_item("query", row.query.to_vec())?;
    d.set_item("answer", row.answer.as_str())?;
    d.set_item("endpoint_set", row.endpoint_set.as_str())?;
    let versions: Vec<(&str, Option<&str>)> = row
        .atlas_versions
        .iter()
        .map(|v| (v.date, v.sunset))
        .collect();
    d.set_item("atlas_versions", versions)?;
    d.set_item("atlas_operation_id", row.atlas_operation_id)?;
    d.set_item("flavours", pyo3::types::PyTuple::new(py, flavours)?)?;
    Ok(d)
}

/// Registers the classes `opsapi` exports, from one list, and names them in the module's
/// `__all__`: `opsapi/__init__.py` imports and exports `_native.__all__`, so that a new model
/// is one entry here (and its class in the stub, which stubtest holds to this list).
macro_rules! exported {
    ($m:ident: $($module:ident::$class:ident),* $(,)?) => {
        {
            $($m.add_class::<$module::$class>()?;)*
            [$(stringify!($class)),*]
        }
    };
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
    let table = pyo3::types::PyDict::new(m.py());
    for op in crate::Operation::ALL {
        let flavours = crate::Flavour::ALL.into_iter().filter(|f| f.supports(op));
        let flavours: Vec<&str> = flavours.map(|f| f.as_str()).collect();
        operations.set_item(op.name(), pyo3::types::PyTuple::new(m.py(), &flavours)?)?;
        if let Some(v) = crate::Flavour::Atlas.version(op) {
            versions.set_item(op.name(), v)?;
        }
        table.set_item(op.name(), row(m.py(), op.row(), &flavours)?)?;
    }
    m.add("OPERATIONS", operations)?;
    m.add("ATLAS_VERSIONS", versions)?;
    m.add("OPERATION_TABLE", table)?;
    m.add_function(wrap_pyfunction!(runtime::_shutdown, m)?)?;
    m.add_function(wrap_pyfunction!(args::parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(sim::_sim_main, m)?)?;
    m.add_function(wrap_pyfunction!(sim::_sim_help, m)?)?;
    m.add_function(wrap_pyfunction!(sim::_seasonal_cases, m)?)?;
    m.add_function(wrap_pyfunction!(sim::_forecast_cases, m)?)?;
    m.add_class::<forecast::_Forecasts>()?;
    m.add_function(wrap_pyfunction!(api::_check_targets, m)?)?;
    m.add_function(wrap_pyfunction!(api::_twin_stubs, m)?)?;
    m.add_function(wrap_pyfunction!(models::_model_stubs, m)?)?;
    api::add_handles(m)?;
    m.add("RESOURCES", api::resource_names(m.py())?)?;
    let exported = exported!(m:
        api::Client, api::AsyncClient, models::Alert, models::AlertList, models::CurrentValue,
        models::AlertContext, models::AlertConfig, api::AlertIterator, api::AsyncAlertIterator,
        models::Host, models::HostList, models::SystemInfo, models::Cluster,
        models::ClusterList, models::AutoScaling, models::Measurements, models::Series,
        api::Store, api::StoreCheck, api::SyncReport, models::Event, models::EventList,
        models::EventDiff, models::EventDiffParam, models::Group, models::AccessListEntry,
        models::Link, models::Namespace, models::SlowQueryLogs, models::SlowQuery,
        models::SuggestedIndexes, models::SuggestedIndex, models::QueryShape,
    );
    m.add_class::<sim::PySimulator>()?;
    m.add_class::<sim::PyHold>()?;
    // pyo3 lists every name added in `__all__`; the module's own is the exported classes.
    m.setattr("__all__", exported)
}
