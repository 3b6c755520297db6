//! Python bindings (feature `python`): the native module `opsapi._native`, built by maturin.
//! Bindings only: conversion and forwarding, no logic a Rust user would not also get.

mod args;
mod client;
mod errors;
mod logging;
mod models;
mod runtime;
mod sim;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    logging::install();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(runtime::_shutdown, m)?)?;
    m.add_function(wrap_pyfunction!(args::parse_duration, m)?)?;
    m.add_class::<client::Client>()?;
    m.add_class::<client::AsyncClient>()?;
    m.add_class::<client::AccessList>()?;
    m.add_class::<client::GlobalAlerts>()?;
    m.add_class::<client::AlertConfigs>()?;
    m.add_class::<client::Hosts>()?;
    m.add_class::<client::MeasurementsApi>()?;
    m.add_class::<client::Events>()?;
    m.add_class::<client::Groups>()?;
    m.add_class::<client::AsyncAccessList>()?;
    m.add_class::<client::AsyncGlobalAlerts>()?;
    m.add_class::<client::AsyncAlertConfigs>()?;
    m.add_class::<client::AsyncHosts>()?;
    m.add_class::<client::AsyncMeasurementsApi>()?;
    m.add_class::<client::AsyncEvents>()?;
    m.add_class::<client::AsyncGroups>()?;
    m.add_class::<client::AlertIterator>()?;
    m.add_class::<client::AsyncAlertIterator>()?;
    m.add_class::<models::AccessListEntry>()?;
    m.add_class::<models::Alert>()?;
    m.add_class::<models::AlertList>()?;
    m.add_class::<models::AlertConfig>()?;
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
    Ok(())
}
