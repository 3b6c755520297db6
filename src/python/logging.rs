//! A minimal `tracing` subscriber that forwards the crate's events (target `opsapi`) to the
//! Python logger `opsapi`. No spans, no `tracing-subscriber`: events only, formatted as
//! `message key=value ...`. The core never puts a key in an event field.

use std::fmt::Write as _;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

use super::runtime::is_shut_down;

static LOGGER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

struct Fields {
    message: String,
    rest: String,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.rest, " {}={value:?}", field.name());
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.rest, " {}={value}", field.name());
        }
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        let _ = write!(self.rest, " {}={value:.1}", field.name());
    }
}

fn python_level(level: &Level) -> i32 {
    match *level {
        Level::ERROR => 40,
        Level::WARN => 30,
        Level::INFO => 20,
        _ => 10,
    }
}

/// Forwards events to `logging.getLogger("opsapi")`.
pub(crate) struct PythonLogBridge;

impl Subscriber for PythonLogBridge {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.is_event()
            && (metadata.target() == "opsapi" || metadata.target().starts_with("crate::"))
            && !metadata.target().starts_with("crate::sim")
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        if is_shut_down() {
            return;
        }
        let level = python_level(event.metadata().level());
        Python::attach(|py| {
            let Ok(logger) = LOGGER.get_or_try_init(py, || {
                Ok::<_, PyErr>(
                    py.import("logging")?
                        .call_method1("getLogger", ("opsapi",))?
                        .unbind(),
                )
            }) else {
                return;
            };
            let logger = logger.bind(py);
            let enabled = logger
                .call_method1("isEnabledFor", (level,))
                .and_then(|v| v.is_truthy())
                .unwrap_or(false);
            if !enabled {
                return;
            }
            let mut fields = Fields {
                message: String::new(),
                rest: String::new(),
            };
            event.record(&mut fields);
            let line = format!("{}{}", fields.message, fields.rest);
            if let Err(e) = logger.call_method1("log", (level, line)) {
                e.write_unraisable(py, None);
            }
        });
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}

/// Installs the bridge as the global default subscriber, unless one is already set
/// (an embedding Rust program keeps its own).
pub(crate) fn install() {
    let _ = tracing::subscriber::set_global_default(PythonLogBridge);
}
