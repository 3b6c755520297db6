//! TLS as on-premise servers use it, against the simulator serving HTTPS: an internal CA in
//! `ca_file`, the server's own self-signed certificate pinned through `ca_file`, wrong
//! certificates refused with a message that says what would help, and `verify(false)`.

#![cfg(feature = "sim")] // against the simulator

use std::path::Path;
use std::time::Duration;

use opsapi::sim::{SimConfig, SimTls, Simulator};
use opsapi::{Client, Error};

const API: &str = "/api/public/v1.0";

fn start(tls: SimTls) -> Simulator {
    Simulator::start(SimConfig {
        tls: Some(tls),
        ..SimConfig::default()
    })
    .expect("simulator starts")
}

fn builder(sim: &Simulator) -> opsapi::ClientBuilder {
    builder_for(sim, &sim.base_url())
}

fn builder_for(sim: &Simulator, base_url: &str) -> opsapi::ClientBuilder {
    Client::builder(base_url)
        .credentials(sim.public_key(), sim.private_key())
        .retry_backoff(Duration::from_millis(1))
}

/// One GET of the first project: what came back, and what the server answered.
async fn get_group(sim: &Simulator, client: &Client) -> opsapi::Result<()> {
    let id = sim.group_ids()[0].clone();
    let group = client.groups().get(&id).await?;
    assert_eq!(group.id.as_deref(), Some(id.as_str()));
    let seen: Vec<(String, String, u16)> = sim
        .requests()
        .into_iter()
        .filter(|r| r.authorized)
        .map(|r| (r.method, r.path, r.status))
        .collect();
    assert_eq!(seen, [("GET".into(), format!("{API}/groups/{id}"), 200)]);
    Ok(())
}

/// The transport error of a refused call, after checking that nothing reached the server.
async fn refused(sim: &Simulator, client: &Client) -> String {
    let err = client
        .groups()
        .get(&sim.group_ids()[0])
        .await
        .expect_err("the certificate must be refused");
    assert!(sim.requests().is_empty(), "{:?}", sim.requests());
    match err {
        Error::Transport { message, .. } => message,
        other => panic!("expected a transport error, got {other:?}"),
    }
}

fn ca_file(sim: &Simulator) -> &Path {
    sim.ca_file().expect("a TLS simulator has a ca_file")
}

#[tokio::test]
async fn internal_ca_in_ca_file_is_trusted() {
    let sim = start(SimTls::InternalCa);
    assert!(sim.base_url().starts_with("https://127.0.0.1:"));
    assert!(ca_file(&sim).ends_with("ca.pem"));
    let client = builder(&sim).ca_file(ca_file(&sim)).build().unwrap();
    get_group(&sim, &client).await.unwrap();
}

#[tokio::test]
async fn self_signed_server_certificate_in_ca_file_is_pinned() {
    let sim = start(SimTls::SelfSigned);
    // As `openssl req -x509` makes it: a CA certificate without subjectAltName, which plain
    // chain verification refuses as the server's own.
    let pem = std::fs::read_to_string(ca_file(&sim)).unwrap();
    assert_eq!(pem.matches("BEGIN CERTIFICATE").count(), 1);
    let client = builder(&sim).ca_file(ca_file(&sim)).build().unwrap();
    get_group(&sim, &client).await.unwrap();
}

#[tokio::test]
async fn no_ca_file_names_ca_file_and_verify_false() {
    for mode in [SimTls::InternalCa, SimTls::SelfSigned] {
        let sim = start(mode);
        let client = builder(&sim).build().unwrap();
        let msg = refused(&sim, &client).await;
        assert!(
            msg.contains("the server's certificate is not signed by an authority this system trusts: pass ca_file=<PEM of the server's CA or of its own certificate>, or verify=False to skip verification (insecure)"),
            "{mode:?}: {msg}"
        );
        assert!(!msg.contains("OtherError"), "{msg}");
    }
}

#[tokio::test]
async fn another_servers_certificate_in_ca_file_is_refused() {
    let other_ca = start(SimTls::InternalCa);
    let other_self_signed = start(SimTls::SelfSigned);
    for mode in [SimTls::InternalCa, SimTls::SelfSigned] {
        for wrong in [ca_file(&other_ca), ca_file(&other_self_signed)] {
            let sim = start(mode);
            let client = builder(&sim).ca_file(wrong).build().unwrap();
            let msg = refused(&sim, &client).await;
            let want = format!(
                "the server's certificate is neither signed by a certificate in ca_file ({}) nor one of them: pass ca_file=<PEM of the server's CA or of its own certificate>, or verify=False to skip verification (insecure)",
                wrong.display()
            );
            assert!(msg.contains(&want), "{mode:?} {wrong:?}: {msg}");
            assert!(
                msg.contains(": invalid peer certificate; the server's") && !msg.contains("Other"),
                "{msg}"
            );
        }
    }
}

#[tokio::test]
async fn wrong_host_name_is_refused_and_said() {
    let sim = start(SimTls::InternalCa);
    let port = sim.base_url().rsplit(':').next().unwrap().to_string();
    let client = builder_for(&sim, &format!("https://localhost:{port}"))
        .ca_file(ca_file(&sim))
        .build()
        .unwrap();
    let msg = refused(&sim, &client).await;
    assert!(
        msg.contains("the server's certificate is not valid for the host name in base_url (it names 127.0.0.1, ::1): use a name it is valid for in base_url, pin it with ca_file=<PEM of the server's own certificate>, or verify=False to skip verification (insecure)"),
        "{msg}"
    );
}

#[tokio::test]
async fn verify_false_skips_verification() {
    for mode in [SimTls::InternalCa, SimTls::SelfSigned] {
        let sim = start(mode);
        let client = builder(&sim).verify(false).build().unwrap();
        get_group(&sim, &client).await.unwrap();
    }
}

#[tokio::test]
async fn a_refused_certificate_is_not_retried() {
    let sim = start(SimTls::SelfSigned);
    // Retrying would wait at least half the first backoff.
    let client = builder(&sim)
        .retry_backoff(Duration::from_secs(10))
        .max_retries(3)
        .build()
        .unwrap();
    refused(&sim, &client).await;
    // One TLS handshake, refused, and no retry's.
    assert_eq!(sim.connections(), 1);
}

#[tokio::test]
async fn plain_http_behind_an_https_url_is_said() {
    let sim = Simulator::start(SimConfig::default()).unwrap();
    let url = sim.base_url().replace("http://", "https://");
    let client = builder_for(&sim, &url).build().unwrap();
    let msg = refused(&sim, &client).await;
    assert!(
        msg.contains("the server did not answer in TLS: if it serves plain HTTP, base_url should start with http://"),
        "{msg}"
    );
}

#[test]
fn ca_file_argument_errors_come_before_any_request() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.pem");
    let not_pem = dir.path().join("garbage.pem");
    std::fs::write(
        &not_pem,
        "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "no certificate here\n").unwrap();
    for (path, want) in [
        (&missing, format!("cannot read {}", missing.display())),
        (
            &not_pem,
            format!("{} is not a PEM certificate bundle", not_pem.display()),
        ),
        (&empty, format!("{} holds no certificate", empty.display())),
    ] {
        // verify(false) turns ca_file off but does not hide a wrong one.
        for verify in [true, false] {
            let err = Client::builder("https://127.0.0.1:1")
                .ca_file(path)
                .verify(verify)
                .build()
                .unwrap_err();
            match err {
                Error::InvalidArgument { argument, message } => {
                    assert_eq!(argument, "ca_file");
                    assert!(message.starts_with(&want), "{message}");
                }
                other => panic!("{other:?}"),
            }
        }
    }
}

#[test]
fn the_simulators_pem_files_go_with_it() {
    let sim = start(SimTls::InternalCa);
    let path = ca_file(&sim).to_path_buf();
    let dir = path.parent().unwrap().to_path_buf();
    assert!(path.is_file());
    drop(sim);
    assert!(!dir.exists(), "{dir:?}");
}

#[tokio::test]
async fn standalone_command_serves_https_and_prints_its_ca_file() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    struct Child(std::process::Child);
    impl Drop for Child {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    for mode in ["self-signed", "ca"] {
        let mut child = Child(
            Command::new(env!("CARGO_BIN_EXE_opsapi-sim"))
                .args(["--port", "0", "--tls", mode])
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn opsapi-sim"),
        );
        // A watchdog: a changed banner must fail this test, not hang it (it once hung CI).
        let pid = child.0.id().to_string();
        let (done, watched) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            if watched.recv_timeout(Duration::from_secs(60)).is_err() {
                let _ = Command::new("kill").args(["-KILL", &pid]).status();
            }
        });
        let mut lines = BufReader::new(child.0.stdout.take().unwrap()).lines();
        let (mut base, mut key, mut ca_file) = (String::new(), Vec::new(), String::new());
        for line in lines.by_ref() {
            let line = line.unwrap();
            if let Some(rest) = line.strip_prefix("base URL:") {
                base = rest.trim().to_string();
            } else if let Some(rest) = line.strip_prefix("Global Owner key:") {
                key = rest.split_whitespace().map(str::to_string).collect();
            } else if let Some(rest) = line.strip_prefix("OPSAPI_CA_FILE=") {
                ca_file = rest.to_string();
            } else if line.starts_with("# try:") {
                break;
            }
        }
        let _ = done.send(());
        assert!(base.starts_with("https://127.0.0.1:"), "{base}");
        let want = if mode == "ca" { "ca.pem" } else { "server.pem" };
        assert!(ca_file.ends_with(want), "{ca_file}");
        let client = Client::builder(&base)
            .credentials(&key[0], &key[1])
            .ca_file(&ca_file)
            .build()
            .unwrap();
        let groups = client.groups().list().await.unwrap();
        assert_eq!(groups.len(), 3, "{mode}");
        // SIGTERM stops it cleanly, PEM files removed (the Drop above is SIGKILL, for failures).
        let term = Command::new("kill")
            .args(["-TERM", &child.0.id().to_string()])
            .status()
            .unwrap();
        assert!(term.success());
        // Bounded: a child that ignores SIGTERM fails the test (and is killed by the drop).
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.0.try_wait().unwrap() {
                break status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "opsapi-sim --tls {mode} did not stop within 30 s of SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(status.success(), "{status:?}");
        assert!(!Path::new(&ca_file).exists(), "{ca_file}");
    }
}
