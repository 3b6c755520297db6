//! The simulator's command line, shared by the `opsapi-sim` binary and the Python launcher
//! (`opsapi sim`, `python -m opsapi sim`): one parser, so both take the same flags.
//!
//! ```text
//! opsapi-sim --port 8080 --seed 0 [--projects N] [--hosts-per-project N]
//!            [--global-alerts N] [--nonce-lifetime SECS] [--workers N] [--bind ADDR]
//!            [--latency-ms MS] [--rate-429 P] [--rate-500 P] [--rate-503 P]
//!            [--rate-reset P] [--rate-truncate P] [--retry-after SECS]
//!            [--rate-limit PER_SECOND] [--tls [ca|self-signed]]
//!            [--flavour ops-manager|cloud-manager|atlas] [--token-buckets]
//! ```
//!
//! Prints its base URL and both API key pairs (also as `OPSAPI_*=` lines to paste into a
//! shell), then serves until interrupted (Ctrl-C or SIGTERM). With `--tls` it serves HTTPS with
//! a certificate generated at start, signed by an internal CA (`ca`, the default) or
//! self-signed (`self-signed`), and prints the PEM file a client passes as `ca_file`
//! (`OPSAPI_CA_FILE`). `--flavour atlas` serves the world as Atlas would (its Admin API v2 and
//! service accounts: it also prints the service account, `OPSAPI_CLIENT_ID` and
//! `OPSAPI_CLIENT_SECRET`), `--token-buckets` with Atlas's documented token buckets.

use std::time::Duration;

use super::{SimConfig, SimTls, Simulator};

/// The usage line.
pub const USAGE: &str = "usage: opsapi-sim [--port PORT] [--seed SEED] [--projects N] \
[--hosts-per-project N] [--global-alerts N] [--nonce-lifetime SECS] [--workers N] [--bind ADDR] \
[--latency-ms MS] [--rate-429 P] [--rate-500 P] [--rate-503 P] [--rate-reset P] [--rate-truncate P] \
[--retry-after SECS] [--rate-limit PER_SECOND] [--tls [ca|self-signed]] \
[--flavour ops-manager|cloud-manager|atlas] [--token-buckets]";

/// The configuration the flags ask for (an empty error: `--help`).
pub fn parse_args(args: &[String]) -> Result<SimConfig, String> {
    let mut config = SimConfig {
        port: 8080,
        worker_threads: 2,
        ..SimConfig::default()
    };
    let mut it = args.iter().peekable();
    while let Some(flag) = it.next() {
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (flag.as_str(), None),
        };
        if name == "-h" || name == "--help" {
            return Err(String::new());
        }
        if name == "--token-buckets" {
            config.token_buckets = super::TokenBucket::documented();
            continue;
        }
        if name == "--tls" {
            // The mode is optional: `--tls --port 8443` is the internal CA.
            let mode = match inline {
                Some(v) => v,
                None => match it.next_if(|v| !v.starts_with('-')) {
                    Some(v) => v.clone(),
                    None => "ca".into(),
                },
            };
            config.tls = Some(mode.parse::<SimTls>().map_err(|e| format!("--tls: {e}"))?);
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => it
                .next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))?,
        };
        let num = |v: &str| {
            v.parse::<u64>()
                .map_err(|_| format!("{name}: not a whole number: {v}"))
        };
        match name {
            "--port" => {
                config.port = u16::try_from(num(&value)?)
                    .map_err(|_| format!("--port: out of range: {value}"))?
            }
            "--seed" => config.seed = num(&value)?,
            "--projects" => config.projects = num(&value)? as usize,
            "--hosts-per-project" => config.hosts_per_project = num(&value)? as usize,
            "--global-alerts" => config.global_alerts = num(&value)? as usize,
            "--nonce-lifetime" => config.nonce_lifetime = Duration::from_secs(num(&value)?),
            "--workers" => config.worker_threads = (num(&value)? as usize).max(1),
            "--latency-ms" => config.faults.latency = Duration::from_millis(num(&value)?),
            "--retry-after" => config.faults.retry_after_secs = num(&value)?,
            "--rate-429" | "--rate-500" | "--rate-503" | "--rate-reset" | "--rate-truncate" => {
                let p: f64 = value
                    .parse()
                    .ok()
                    .filter(|p: &f64| (0.0..=1.0).contains(p))
                    .ok_or_else(|| format!("{name}: not a share between 0 and 1: {value}"))?;
                let f = &mut config.faults;
                match name {
                    "--rate-429" => f.rate_429 = p,
                    "--rate-500" => f.rate_500 = p,
                    "--rate-503" => f.rate_503 = p,
                    "--rate-reset" => f.rate_reset = p,
                    _ => f.rate_truncate = p,
                }
            }
            "--rate-limit" => {
                let r: f64 = value
                    .parse()
                    .ok()
                    .filter(|r: &f64| r.is_finite() && *r > 0.0)
                    .ok_or_else(|| format!("{name}: not a positive rate: {value}"))?;
                config.rate_limit = Some(r);
            }
            "--flavour" => {
                config.flavour = value.parse().map_err(|_| {
                    format!("--flavour: not one of ops-manager, cloud-manager, atlas: {value}")
                })?
            }
            "--bind" => {
                config.bind = value
                    .parse()
                    .map_err(|_| format!("--bind: not an IP address: {value}"))?
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(config)
}

/// Runs the simulator as the flags say until Ctrl-C or SIGTERM; returns the exit code (0, 1
/// when it cannot start, 2 for a usage error).
pub fn run(args: &[String]) -> u8 {
    let config = match parse_args(args) {
        Ok(c) => c,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("opsapi-sim: {e}");
            }
            eprintln!("{USAGE}");
            return if e.is_empty() { 0 } else { 2 };
        }
    };
    let seed = config.seed;
    let tls = config.tls;
    let flavour = config.flavour;
    let sim = match Simulator::start(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("opsapi-sim: cannot start: {e}");
            return 1;
        }
    };
    println!(
        "opsapi-sim (seed {seed}, {flavour}) listening on {}",
        sim.base_url()
    );
    println!("base URL:           {}", sim.api_url());
    println!(
        "Global Owner key:   {} {}",
        sim.public_key(),
        sim.private_key()
    );
    println!(
        "Project Read Only:  {} {}",
        sim.read_only_public_key(),
        sim.read_only_private_key()
    );
    if flavour == crate::Flavour::Atlas {
        println!(
            "service account:    {} {}",
            sim.client_id(),
            sim.client_secret()
        );
    }
    println!("projects:           {}", sim.group_ids().join(" "));
    // curl checks the name of a pinned certificate too, which the self-signed one lacks.
    let curl_tls = match (sim.ca_file(), tls) {
        (Some(ca), Some(SimTls::InternalCa)) => format!(" --cacert {}", ca.display()),
        (Some(_), _) => " --insecure".to_string(),
        (None, _) => String::new(),
    };
    println!("OPSAPI_BASE_URL={}", sim.base_url());
    if flavour != crate::Flavour::OpsManager {
        println!("OPSAPI_FLAVOUR={}", flavour.as_str());
    }
    if flavour == crate::Flavour::Atlas {
        println!("OPSAPI_CLIENT_ID={}", sim.client_id());
        println!("OPSAPI_CLIENT_SECRET={}", sim.client_secret());
    } else {
        println!("OPSAPI_PUBLIC_KEY={}", sim.public_key());
        println!("OPSAPI_PRIVATE_KEY={}", sim.private_key());
    }
    if let Some(ca) = sim.ca_file() {
        println!("OPSAPI_CA_FILE={}", ca.display());
    }
    if flavour == crate::Flavour::Atlas {
        println!(
            "# try: curl{curl_tls} --digest -u {}:{} -H 'Accept: application/vnd.atlas.2023-01-01+json' {}/groups",
            sim.public_key(),
            sim.private_key(),
            sim.api_url()
        );
    } else {
        println!(
            "# try: curl{curl_tls} --digest -u {}:{} {}/groups",
            sim.public_key(),
            sim.private_key(),
            sim.api_url()
        );
    }
    let signals = match Signals::listen() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("opsapi-sim: cannot listen for signals: {e}");
            return 1;
        }
    };
    println!("# Ctrl-C to stop");
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    signals.wait();
    // Dropping the simulator stops it and removes its PEM files.
    drop(sim);
    0
}

/// Ctrl-C and SIGTERM, listened to from creation on: the "Ctrl-C to stop" line is printed
/// only once they are, so a signal sent right after it is never missed.
struct Signals {
    rt: tokio::runtime::Runtime,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
}

impl Signals {
    fn listen() -> std::io::Result<Self> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let _guard = rt.enter();
            let int = signal(SignalKind::interrupt())?;
            let term = signal(SignalKind::terminate())?;
            Ok(Self { rt, int, term })
        }
        #[cfg(not(unix))]
        Ok(Self { rt })
    }

    /// Blocks until one arrives.
    fn wait(mut self) {
        #[cfg(unix)]
        self.rt.block_on(async {
            tokio::select! {
                _ = self.int.recv() => {}
                _ = self.term.recv() => {}
            }
        });
        #[cfg(not(unix))]
        self.rt.block_on(async {
            let _ = tokio::signal::ctrl_c().await;
        });
    }
}
