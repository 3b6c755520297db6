//! The exchanges of an Atlas simulator, recorded for the suite's check against Atlas's OpenAPI
//! specification (`tests/python/_atlas_spec.py`): with `OPSAPI_SIM_EXCHANGES` set to a folder,
//! every Atlas simulator started in the process appends each request and its answer there, one
//! JSON line each, in a file of its own (`{pid}-{n}.jsonl`, whose first line says which test
//! started it). Other flavours, and a simulator started without the variable, record nothing.
//!
//! A line is written whole, with one `write`, so that a reader never sees half of one unless
//! the process died while writing it (the checker skips an unfinished last line).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::*;

/// The environment variable naming the folder.
pub(crate) const VARIABLE: &str = "OPSAPI_SIM_EXCHANGES";

/// Numbers the simulators of this process.
static SIMULATORS: AtomicU64 = AtomicU64::new(0);

/// One simulator's file.
pub(crate) struct Recorder {
    file: Mutex<std::fs::File>,
    path: PathBuf,
}

impl Recorder {
    /// The recorder of a simulator of `flavour`: `None` unless it is Atlas and the variable
    /// names a folder (created if missing). A folder that cannot be written to is an error: a
    /// check that silently saw nothing would pass.
    pub(crate) fn from_env(flavour: crate::Flavour) -> std::io::Result<Option<Recorder>> {
        match std::env::var_os(VARIABLE) {
            Some(dir) if flavour == crate::Flavour::Atlas && !dir.is_empty() => {
                Self::open(Path::new(&dir), &started_by()).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// A new file in `dir`, its first line naming `label` (the test that started it).
    pub(crate) fn open(dir: &Path, label: &str) -> std::io::Result<Recorder> {
        std::fs::create_dir_all(dir)?;
        let n = SIMULATORS.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{}-{n}.jsonl", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&path)?;
        let recorder = Recorder {
            file: Mutex::new(file),
            path,
        };
        recorder.write(&json!({"simulator": {"started_by": label, "flavour": "atlas"}}));
        Ok(recorder)
    }

    /// The file.
    #[allow(dead_code)] // read by the unit test
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Records one exchange: the request as it arrived, and the answer as it went out (the
    /// status 0 of a connection reset without one), with the faults that struck it and the
    /// simulator's time.
    pub(crate) fn record(&self, r: &RequestRecord, answer: Option<&Reply>, now: DateTime<Utc>) {
        let text = |b: &[u8]| (!b.is_empty()).then(|| String::from_utf8_lossy(b).into_owned());
        let line = json!({
            "method": r.method,
            "path": r.path,
            "query": r.query,
            "accept": r.accept,
            "content_type": r.content_type,
            "body": text(&r.body),
            "status": r.status,
            "faults": r.faults,
            "now": iso(&now),
            "answer": answer.map(|a| json!({
                "content_type": (a.status != 204).then_some(a.content_type),
                "body": text(&a.body),
            })),
        });
        self.write(&line);
    }

    fn write(&self, v: &Value) {
        let mut line = serde_json::to_vec(v).unwrap_or_default();
        line.push(b'\n');
        // A test's check finds what is missing: nothing to do here about a full disk.
        let _ = lock(&self.file).write_all(&line);
    }
}

/// Who started the simulator: the pytest test running (`PYTEST_CURRENT_TEST`), else the
/// thread's name (a Rust test's own), else the process.
fn started_by() -> String {
    if let Ok(t) = std::env::var("PYTEST_CURRENT_TEST") {
        return t;
    }
    match std::thread::current().name() {
        Some(name) if name != "main" => name.to_string(),
        _ => std::env::args().collect::<Vec<_>>().join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_exchange_is_one_json_line_after_the_simulators_own() {
        let dir = tempfile::tempdir().unwrap();
        let rec = Recorder::open(dir.path(), "a test").unwrap();
        let r = RequestRecord {
            method: "GET".into(),
            path: "/api/atlas/v2/groups".into(),
            query: None,
            body: Vec::new(),
            status: 200,
            signed: true,
            authorized: true,
            faults: Vec::new(),
            arrived: std::time::Duration::ZERO,
            accept: Some("application/vnd.atlas.2023-01-01+json".into()),
            content_type: None,
            auth: Some("Bearer".into()),
        };
        let answer = Reply::json(200, br#"{"results":[]}"#.to_vec());
        rec.record(&r, Some(&answer), Utc::now());
        let text = std::fs::read_to_string(rec.path()).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["simulator"]["started_by"], "a test");
        assert_eq!(lines[1]["path"], "/api/atlas/v2/groups");
        assert_eq!(lines[1]["answer"]["body"], r#"{"results":[]}"#);
        assert_eq!(lines[1]["answer"]["content_type"], "application/json");
    }
}
