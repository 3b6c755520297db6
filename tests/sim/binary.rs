//! The standalone `opsapi-sim` command starts, prints its address and keys, and answers.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use opsapi::auth::Challenge;

use crate::common::authorization;

/// The first `n` lines a child writes, read on a thread of their own: a child that hangs
/// before writing them fails the test after `within` (the child is killed by [`Child`]'s
/// drop, which ends the reader), instead of hanging the whole run.
fn first_lines(
    out: impl std::io::Read + Send + 'static,
    n: usize,
    within: Duration,
) -> Vec<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().take(n) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = std::time::Instant::now() + within;
    (0..n)
        .map(|i| {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => line.expect("a line of text"),
                Err(e) => {
                    panic!("opsapi-sim wrote {i} of its first {n} lines within {within:?}: {e}")
                }
            }
        })
        .collect()
}

struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn standalone_command_serves_digest_requests() {
    let mut child = Child(
        Command::new(env!("CARGO_BIN_EXE_opsapi-sim"))
            .args([
                "--port",
                "0",
                "--seed",
                "0",
                "--projects",
                "3",
                "--hosts-per-project",
                "4",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn opsapi-sim"),
    );
    let out = child.0.stdout.take().unwrap();
    let mut base = String::new();
    let mut keys = Vec::new();
    let mut projects = Vec::new();
    for line in first_lines(out, 6, Duration::from_secs(60)) {
        if let Some(rest) = line.strip_prefix("base URL:") {
            base = rest.trim().trim_end_matches("/api/public/v1.0").to_string();
        } else if line.starts_with("Global Owner key:") || line.starts_with("Project Read Only:") {
            let parts: Vec<&str> = line.split_whitespace().collect();
            keys.push((
                parts[parts.len() - 2].to_string(),
                parts[parts.len() - 1].to_string(),
            ));
        } else if let Some(rest) = line.strip_prefix("projects:") {
            projects = rest.split_whitespace().map(str::to_string).collect();
        }
    }
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    assert_eq!(keys.len(), 2);
    assert_eq!(projects.len(), 3);
    // Same seed, same keys as the in-process simulator.
    let sim = opsapi::sim::Simulator::start(opsapi::sim::SimConfig::default()).unwrap();
    assert_eq!(
        keys[0],
        (sim.public_key().to_string(), sim.private_key().to_string())
    );
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let uri = "/api/public/v1.0/groups";
    let r = http.get(format!("{base}{uri}")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let c = Challenge::parse(r.headers()["www-authenticate"].to_str().unwrap()).unwrap();
    let auth = authorization(&keys[0].0, &keys[0].1, "GET", uri, &c.nonce, 1);
    let r = http
        .get(format!("{base}{uri}"))
        .header("authorization", auth)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    assert_eq!(v["totalCount"], 3);
}

#[test]
fn bad_arguments_are_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_opsapi-sim"))
        .args(["--port", "notaport"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: opsapi-sim"));
}

#[test]
fn fault_options_are_checked() {
    let out = Command::new(env!("CARGO_BIN_EXE_opsapi-sim"))
        .args(["--port", "0", "--rate-429", "1.5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rate-429"));
    let out = Command::new(env!("CARGO_BIN_EXE_opsapi-sim"))
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // The help is output (stdout), a line per flag with what it does.
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.lines()
            .any(|l| l.contains("--rate-truncate") && l.contains("half")),
        "{help}"
    );
}
