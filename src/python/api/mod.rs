//! The Python face of the operations: one file per resource, where each operation is a
//! function shared by the sync class (`Hosts`) and the async class (`AsyncHosts`), whose two
//! methods `twins!` writes from one signature. The function converts its arguments (by name,
//! so that an error names the argument) and either waits for the core's future with the GIL
//! released (sync) or hands it to asyncio (async).

mod access_list;
mod acknowledgement;
mod alert_configs;
mod alerts;
mod client;
mod clusters;
mod events;
mod global_alerts;
mod groups;
mod hosts;
mod measurements;
mod performance_advisor;
mod store;
mod store_report;
mod store_sync;

pub use access_list::{AccessList, AsyncAccessList};
pub use alert_configs::{AlertConfigs, AsyncAlertConfigs};
pub use alerts::{Alerts, AsyncAlerts};
pub use client::{AsyncClient, Client};
pub use clusters::{AsyncClusters, Clusters};
pub use events::{AsyncEvents, Events};
pub use global_alerts::{AlertIterator, AsyncAlertIterator, AsyncGlobalAlerts, GlobalAlerts};
pub use groups::{AsyncGroups, Groups};
pub use hosts::{AsyncHosts, Hosts};
pub(crate) use measurements::_check_targets;
pub use measurements::{AsyncMeasurementsApi, MeasurementsApi};
pub use performance_advisor::{AsyncPerformanceAdvisor, PerformanceAdvisor};
pub use store::{Store, StoreCheck};
pub use store_report::SyncReport;

/// Every resource of the clients, one row each: the getter's docstring and name (`hosts`), the
/// sync class and the async class (declared by `handle_pair!` in the resource's file). The
/// clients' getters (`client_classes!` in `client.rs`) and the module's classes
/// ([`add_handles`]) come from it, so that a new resource is one row here.
macro_rules! resources {
    ($then:ident!($($args:tt)*)) => {
        $then!($($args)* {
            /// The global API access list.
            access_list: AccessList, AsyncAccessList;
            /// Global alerts: list, iterate, acknowledge.
            global_alerts: GlobalAlerts, AsyncGlobalAlerts;
            /// Project alerts: list, acknowledge, every project at once, in context.
            alerts: Alerts, AsyncAlerts;
            /// Alert configurations and their open alerts.
            alert_configs: AlertConfigs, AsyncAlertConfigs;
            /// Hosts of a project.
            hosts: Hosts, AsyncHosts;
            /// Measurements and fleet pulls.
            measurements: MeasurementsApi, AsyncMeasurementsApi;
            /// Project events.
            events: Events, AsyncEvents;
            /// Projects.
            groups: Groups, AsyncGroups;
            /// Clusters of projects: replica sets and sharded clusters.
            clusters: Clusters, AsyncClusters;
            /// The Performance Advisor of hosts: slow queries and suggested indexes.
            performance_advisor: PerformanceAdvisor, AsyncPerformanceAdvisor;
        });
    };
}
pub(crate) use resources;

/// Adds the classes of every resource of [`resources!`] to the module, sync then async.
macro_rules! add_handles {
    ($m:ident { $($(#[doc = $doc:literal])* $getter:ident: $sync:ident, $async:ident;)* }) => {
        $($m.add_class::<$sync>()?;)*
        $($m.add_class::<$async>()?;)*
    };
}

/// Adds the handle classes of every resource (`Hosts`, `AsyncHosts`, ...) to the module.
pub(crate) fn add_handles(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
    use pyo3::types::PyModuleMethods;
    resources!(add_handles!(m));
    Ok(())
}

/// `(getter, sync class, async class)` of every resource of [`resources!`], in its order.
macro_rules! resource_names {
    ($out:ident, $py:ident {
        $($(#[doc = $doc:literal])* $getter:ident: $sync:ident, $async:ident;)*
    }) => {
        $out = pyo3::types::PyTuple::new(
            $py,
            [$((stringify!($getter), stringify!($sync), stringify!($async))),*],
        )
    };
}

/// The resources of the clients, `(getter, sync class, async class)` in [`resources!`]'s order
/// (`_native.RESOURCES`, which the API reference's page is written from).
pub(crate) fn resource_names(
    py: pyo3::Python<'_>,
) -> pyo3::PyResult<pyo3::Bound<'_, pyo3::types::PyTuple>> {
    let names;
    resources!(resource_names!(names, py));
    names
}

/// Declares the sync and the async class of one resource handle; each holds the client.
macro_rules! handle_pair {
    ($(#[$meta:meta])* $sync:ident, $async:ident) => {
        $(#[$meta])*
        #[pyo3::pyclass(frozen, module = "opsapi._native")]
        pub struct $sync {
            pub(crate) client: crate::Client,
        }

        $(#[$meta])*
        #[doc = ""]
        #[doc = "The async twin: every method that talks to the server returns an awaitable."]
        #[pyo3::pyclass(frozen, module = "opsapi._native")]
        pub struct $async {
            pub(crate) client: crate::Client,
        }
    };
}
pub(crate) use handle_pair;

/// Writes the sync and the async method of one operation from one signature, so that the two
/// cannot drift (obstore's `head` and `head_async`, as one). The shared docstring comes first,
/// then each class with the example of its own (`x = client...` or `x = await client...`),
/// then the signature as Python sees it (without `self` and `py`), and after `=>` the function
/// doing the work: it is called with `py`, the client, whether the class is the async one,
/// any constants given in its parentheses, then the arguments in order.
///
/// ```ignore
/// twins! {
///     /// One host: `GET /groups/{group_id}/hosts/{host_id}`.
///     ///
///     Hosts
///     /// >>> client.hosts.get(group_id, host_id).replica_state_name  # doctest: +SKIP
///     AsyncHosts
///     /// >>> (await client.hosts.get(group_id, host_id)).replica_state_name  # doctest: +SKIP
///     fn get(group_id: &Bound<'_, PyAny>, host_id: &Bound<'_, PyAny>) => get
/// }
/// ```
macro_rules! twins {
    // An operation whose arguments are kinds (`crate::python::args::Kind`): the required ones,
    // positional, then after `;` the optional ones, keyword-only. Each is converted by its kind
    // (an error names it), the closure's body runs with the client and every argument by
    // name, and the stub's line comes from the same entry (`_twin_stubs()`).
    (
        $(#[doc = $doc:literal])*
        $sync:ident $(#[doc = $sync_doc:literal])*
        $async:ident $(#[doc = $async_doc:literal])*
        fn $name:ident(
            $($req:ident: $rkind:ident),* $(; $($opt:ident: $okind:ident),+)? $(,)?
        ) -> $returns:literal { |$client:ident| $body:expr }
    ) => {
        twins!(@kinds $sync, false, [$(#[doc = $doc])* $(#[doc = $sync_doc])*], $name,
            [$($req: $rkind),*], [$($($opt: $okind),+)?], $client, $body);
        twins!(@kinds $async, true, [$(#[doc = $doc])* $(#[doc = $async_doc])*], $name,
            [$($req: $rkind),*], [$($($opt: $okind),+)?], $client, $body);
        inventory::submit! {
            $crate::python::api::TwinStub {
                class: stringify!($sync),
                async_class: stringify!($async),
                method: stringify!($name),
                params: &[
                    $((stringify!($req), $crate::python::args::stub_type!($rkind), false),)*
                    $($((stringify!($opt), $crate::python::args::stub_type!($okind), true),)+)?
                ],
                returns: $returns,
            }
        }
    };
    // Without optional arguments: the signature has no `*`.
    (@kinds $class:ident, $is_async:literal, [$($attr:tt)*], $name:ident,
     [$($req:ident: $rkind:ident),*], [], $client:ident, $body:expr) => {
        #[pyo3::pymethods]
        impl $class {
            $($attr)*
            #[pyo3(signature = ($($req),*))]
            fn $name(
                &self,
                py: pyo3::Python<'_>,
                $($req: &pyo3::Bound<'_, pyo3::PyAny>,)*
            ) -> pyo3::PyResult<pyo3::Py<pyo3::PyAny>> {
                $(let $req = <$crate::python::args::$rkind as $crate::python::args::Kind>::convert(
                    py, stringify!($req), $req)?;)*
                let $client = self.client.clone();
                $crate::python::runtime::dispatch(py, $is_async, async move { $body })
            }
        }
    };
    (@kinds $class:ident, $is_async:literal, [$($attr:tt)*], $name:ident,
     [$($req:ident: $rkind:ident),*], [$($opt:ident: $okind:ident),+], $client:ident,
     $body:expr) => {
        #[pyo3::pymethods]
        impl $class {
            $($attr)*
            #[pyo3(signature = ($($req,)* *, $($opt = None),+))]
            #[allow(clippy::too_many_arguments)]
            fn $name(
                &self,
                py: pyo3::Python<'_>,
                $($req: &pyo3::Bound<'_, pyo3::PyAny>,)*
                $($opt: Option<&pyo3::Bound<'_, pyo3::PyAny>>,)*
            ) -> pyo3::PyResult<pyo3::Py<pyo3::PyAny>> {
                $(let $req = <$crate::python::args::$rkind as $crate::python::args::Kind>::convert(
                    py, stringify!($req), $req)?;)*
                $(let $opt = <$crate::python::args::$okind as $crate::python::args::Kind>::optional(
                    py, stringify!($opt), $opt)?;)*
                let $client = self.client.clone();
                $crate::python::runtime::dispatch(py, $is_async, async move { $body })
            }
        }
    };
    (
        $(#[doc = $doc:literal])*
        $sync:ident $(#[doc = $sync_doc:literal])*
        $async:ident $(#[doc = $async_doc:literal])*
        $(#[pyo3($($option:tt)*)])?
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) => $work:ident $(($($constant:expr),*))?
    ) => {
        twins!(@one $sync, false,
            [$(#[doc = $doc])* $(#[doc = $sync_doc])* $(#[pyo3($($option)*)])?],
            $name, [$($arg: $ty),*], $work, [$($($constant),*)?]);
        twins!(@one $async, true,
            [$(#[doc = $doc])* $(#[doc = $async_doc])* $(#[pyo3($($option)*)])?],
            $name, [$($arg: $ty),*], $work, [$($($constant),*)?]);
    };
    // One of the two: the method of `$class`, its attributes (docstring, signature) given.
    (@one $class:ident, $is_async:literal, [$($attr:tt)*], $name:ident,
     [$($arg:ident: $ty:ty),*], $work:ident, [$($constant:expr),*]) => {
        #[pyo3::pymethods]
        impl $class {
            $($attr)*
            #[allow(clippy::too_many_arguments)]
            fn $name(
                &self,
                py: pyo3::Python<'_>,
                $($arg: $ty),*
            ) -> pyo3::PyResult<pyo3::Py<pyo3::PyAny>> {
                $work(py, &self.client, $is_async, $($constant,)* $($arg),*)
            }
        }
    };
}
pub(crate) use twins;

/// The stub's line of a method written by `twins!` from argument kinds: its classes (the sync
/// one, and the async one, whose method returns an awaitable of the same), name, parameters
/// (name, stub type, whether optional) and the sync method's return type.
pub(crate) struct TwinStub {
    pub(crate) class: &'static str,
    pub(crate) async_class: &'static str,
    pub(crate) method: &'static str,
    pub(crate) params: &'static [(&'static str, &'static str, bool)],
    pub(crate) returns: &'static str,
}
inventory::collect!(TwinStub);

/// `_twin_stubs()`: every method written from argument kinds, as
/// `(class, async class, method, [(parameter, type, optional)], returns)`, in the order of
/// their files (as each class declares them): what `.ci/stubs.py` writes
/// `python/opsapi/_generated.pyi` from.
#[pyo3::pyfunction]
pub(crate) fn _twin_stubs() -> Vec<TwinStubRow> {
    let mut out: Vec<TwinStubRow> = inventory::iter::<TwinStub>
        .into_iter()
        .map(|t| {
            (
                t.class,
                t.async_class,
                t.method,
                t.params.to_vec(),
                t.returns,
            )
        })
        .collect();
    // inventory's order is the link order's: sorted, the stub does not move between builds.
    out.sort();
    out
}

type TwinStubRow = (
    &'static str,
    &'static str,
    &'static str,
    Vec<(&'static str, &'static str, bool)>,
    &'static str,
);
