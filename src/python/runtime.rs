//! The one tokio runtime behind every Python call, sync and async.
//!
//! pyo3-async-runtimes keeps its own runtime in a static that can never be shut down, and a
//! runtime whose workers still run when the interpreter finalizes can abort the process. So
//! the runtime is ours: created on first use, plugged into pyo3-async-runtimes through its
//! `generic` traits, and shut down by [`shutdown`] (called from an `atexit` hook).
//!
//! A child made by `fork` inherits the runtime's memory but none of its threads: the runtime
//! is keyed by process id, and a child builds its own on first use (the parent's is leaked in
//! the child, since dropping it would wait for threads that do not exist there).

use std::cell::OnceCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;
use pyo3_async_runtimes::generic::{ContextExt, Runtime as GenericRuntime};
use pyo3_async_runtimes::TaskLocals;
use tokio::runtime::{Handle, Runtime};

use super::errors::to_py_err;

/// The runtime and the process it belongs to.
static RUNTIME: Mutex<Option<(u32, Runtime)>> = Mutex::new(None);
static SHUT_DOWN: AtomicBool = AtomicBool::new(false);

/// Whether [`shutdown`] ran: from then on nothing may call into Python from Rust threads.
pub(crate) fn is_shut_down() -> bool {
    SHUT_DOWN.load(Ordering::Acquire)
}

fn shut_down_error(py: Python<'_>) -> PyErr {
    let message = "the opsapi runtime is shut down (the interpreter is exiting)";
    py.import("opsapi.exceptions")
        .and_then(|m| m.getattr("ShutdownError"))
        .and_then(|cls| cls.call1((message,)))
        .map(PyErr::from_value)
        .unwrap_or_else(|e| e)
}

/// The runtime's handle, creating the runtime on first use.
pub(crate) fn handle() -> PyResult<Handle> {
    if is_shut_down() {
        return Err(Python::attach(shut_down_error));
    }
    let pid = std::process::id();
    let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    match slot.take() {
        Some((owner, rt)) if owner == pid => {
            let h = rt.handle().clone();
            *slot = Some((owner, rt));
            return Ok(h);
        }
        Some((_, inherited)) => std::mem::forget(inherited),
        None => {}
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("opsapi-rt")
        .enable_all()
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the tokio runtime: {e}")))?;
    let h = rt.handle().clone();
    *slot = Some((pid, rt));
    Ok(h)
}

/// Stops the runtime: pending tasks are dropped and worker threads joined (up to a second).
/// Idempotent. Later calls raise instead of starting a new runtime.
#[pyfunction]
pub(crate) fn _shutdown(py: Python<'_>) {
    SHUT_DOWN.store(true, Ordering::Release);
    let rt = RUNTIME.lock().unwrap_or_else(|e| e.into_inner()).take();
    match rt {
        Some((owner, rt)) if owner == std::process::id() => {
            py.detach(move || rt.shutdown_timeout(Duration::from_secs(1)));
        }
        // Inherited through fork: its threads are the parent's.
        Some((_, inherited)) => std::mem::forget(inherited),
        None => {}
    }
}

/// Runs `fut` on the runtime and waits for it without holding the GIL, in slices, so that
/// Ctrl-C (or any pending signal handler that raises) cancels the call promptly.
pub(crate) fn block_on<T, F>(py: Python<'_>, fut: F) -> PyResult<T>
where
    F: Future<Output = crate::Result<T>> + Send + 'static,
    T: Send + 'static,
{
    let (tx, rx) = mpsc::sync_channel(1);
    let task = handle()?.spawn(async move {
        let _ = tx.send(fut.await);
    });
    let mut rx = rx;
    loop {
        let (back, got) = py.detach(move || {
            let got = rx.recv_timeout(Duration::from_millis(50));
            if is_shut_down() {
                stay_detached();
            }
            (rx, got)
        });
        rx = back;
        match got {
            Ok(result) => return result.map_err(|e| to_py_err(py, e)),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    task.abort();
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(cut_off(py)),
        }
    }
}

/// A call whose task ended without sending its result: it panicked, which is a bug. (A call
/// whose runtime shut down while it waited never gets here: see [`stay_detached`].)
fn cut_off(py: Python<'_>) -> PyErr {
    if is_shut_down() {
        return shut_down_error(py);
    }
    PyRuntimeError::new_err(
        "internal error in opsapi: the call ended without a result (please report this)",
    )
}

/// Where a call waiting when the runtime shut down ends: it never takes the GIL again.
///
/// The runtime shuts down in an `atexit` hook, after the interpreter joined every non-daemon
/// thread, so such a call is on a daemon thread, which the exiting process stops. Taking the
/// GIL back there would be worse than useless: once the interpreter finalizes, CPython (up to
/// 3.13) ends a daemon thread that asks for the GIL with `pthread_exit`, whose forced unwind
/// would run through this library's frames, and the portable wheel's unwinder is not the
/// system's (zig links its own): the process would crash at exit instead of exiting.
fn stay_detached() -> ! {
    loop {
        std::thread::park();
    }
}

/// Runs `fut` on the runtime as an asyncio awaitable; cancelling it cancels the Rust future.
pub(crate) fn py_future<T, F>(py: Python<'_>, fut: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    handle()?;
    pyo3_async_runtimes::generic::future_into_py::<OpsRuntime, _, T>(py, fut)
}

/// [`py_future`] for a future of the core, its error mapped to `opsapi.exceptions`.
pub(crate) fn future_into_py<T, F>(py: Python<'_>, fut: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = crate::Result<T>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    py_future(py, async move {
        match fut.await {
            Ok(v) => Ok(v),
            Err(e) => Err(Python::attach(|py| to_py_err(py, e))),
        }
    })
}

/// Either blocks (sync client) or returns an awaitable (async client).
pub(crate) fn dispatch<T, F>(py: Python<'_>, is_async: bool, fut: F) -> PyResult<Py<PyAny>>
where
    F: Future<Output = crate::Result<T>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    if is_async {
        Ok(future_into_py(py, fut)?.unbind())
    } else {
        let v = block_on(py, fut)?;
        Ok(v.into_bound_py_any(py)?.unbind())
    }
}

/// Python's `None`, as the result of an operation that has nothing to return (a DELETE).
/// `()` would become an empty tuple.
pub(crate) struct NoneResult;

impl<'py> IntoPyObject<'py> for NoneResult {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = std::convert::Infallible;
    fn into_pyobject(self, py: Python<'py>) -> Result<Bound<'py, PyAny>, Self::Error> {
        Ok(py.None().into_bound(py))
    }
}

struct OpsRuntime;

tokio::task_local! {
    static TASK_LOCALS: OnceCell<TaskLocals>;
}

struct Cancelled;

impl pyo3_async_runtimes::generic::JoinError for Cancelled {
    fn is_panic(&self) -> bool {
        false
    }
    fn into_panic(self) -> Box<dyn std::any::Any + Send + 'static> {
        Box::new("the opsapi runtime is shut down")
    }
}

/// A join handle that also works when the runtime is already gone (it then resolves at once).
struct JoinHandle(Option<tokio::task::JoinHandle<()>>);

impl Future for JoinHandle {
    type Output = Result<(), Cancelled>;
    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        match self.0.as_mut() {
            None => std::task::Poll::Ready(Err(Cancelled)),
            Some(h) => Pin::new(h).poll(cx).map(|r| r.map_err(|_| Cancelled)),
        }
    }
}

impl GenericRuntime for OpsRuntime {
    type JoinError = Cancelled;
    type JoinHandle = JoinHandle;

    fn spawn<F>(fut: F) -> Self::JoinHandle
    where
        F: Future<Output = ()> + Send + 'static,
    {
        JoinHandle(handle().ok().map(|h| h.spawn(fut)))
    }

    fn spawn_blocking<F>(f: F) -> Self::JoinHandle
    where
        F: FnOnce() + Send + 'static,
    {
        JoinHandle(handle().ok().map(|h| h.spawn_blocking(f)))
    }
}

impl ContextExt for OpsRuntime {
    fn scope<F, R>(locals: TaskLocals, fut: F) -> Pin<Box<dyn Future<Output = R> + Send>>
    where
        F: Future<Output = R> + Send + 'static,
    {
        let cell = OnceCell::new();
        let _ = cell.set(locals);
        Box::pin(TASK_LOCALS.scope(cell, fut))
    }

    fn get_task_locals() -> Option<TaskLocals> {
        TASK_LOCALS
            .try_with(|c| c.get().cloned())
            .unwrap_or_default()
    }
}
