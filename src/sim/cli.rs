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

/// Every flag [`parse_args`] takes: its name, its value, and what it does (`--help`; a test
/// checks that each is taken and that the parser takes no other).
pub const FLAGS: &[(&str, &str, &str)] = &[
    (
        "--port",
        "PORT",
        "port to listen on (default 8080; 0: a free one)",
    ),
    ("--bind", "ADDR", "address to listen on (default 127.0.0.1)"),
    (
        "--seed",
        "SEED",
        "the world's seed (default 0): one seed, one world",
    ),
    ("--projects", "N", "projects in the world (default 3)"),
    (
        "--hosts-per-project",
        "N",
        "hosts of each project (default 5)",
    ),
    ("--global-alerts", "N", "global alerts (default 60)"),
    (
        "--flavour",
        "ops-manager|cloud-manager|atlas",
        "the server to be (default ops-manager); atlas adds a service account",
    ),
    (
        "--token-buckets",
        "",
        "Atlas's documented rate limits, as token buckets",
    ),
    (
        "--tls",
        "[ca|self-signed]",
        "HTTPS, with a certificate made at start by an internal CA (the default) or \
         self-signed; prints the PEM file as OPSAPI_CA_FILE",
    ),
    ("--workers", "N", "server threads (default 2)"),
    (
        "--nonce-lifetime",
        "SECS",
        "how long a Digest nonce stays valid (default 300)",
    ),
    (
        "--latency-ms",
        "MS",
        "delay before every answer (default 0)",
    ),
    (
        "--rate-429",
        "P",
        "share of requests answered 429 RATE_LIMITED, 0 to 1 (default 0)",
    ),
    (
        "--rate-500",
        "P",
        "share answered 500 UNEXPECTED_ERROR (default 0)",
    ),
    ("--rate-503", "P", "share answered 503 (default 0)"),
    (
        "--rate-reset",
        "P",
        "share of connections closed without an answer (default 0)",
    ),
    (
        "--rate-truncate",
        "P",
        "share of answers cut to half their body (default 0)",
    ),
    (
        "--retry-after",
        "SECS",
        "Retry-After of 429 and 503 answers (default 1)",
    ),
    (
        "--rate-limit",
        "PER_SECOND",
        "at most this many requests a second per project, as Ops Manager's rate limit",
    ),
];

/// `--help`: what the simulator is, then each flag on its own line with what it does.
pub fn help() -> String {
    let mut out = String::from(
        "usage: opsapi-sim [FLAGS]\n\n\
         Serves a seeded world of projects, hosts, alerts and measurements as Ops\n\
         Manager, Cloud Manager or Atlas would, until Ctrl-C or SIGTERM. Prints its base\n\
         URL and keys, also as OPSAPI_*= lines for a shell.\n\nflags:\n",
    );
    for (flag, value, what) in FLAGS {
        let head = if value.is_empty() {
            (*flag).to_string()
        } else {
            format!("{flag} {value}")
        };
        if head.len() > 24 {
            out.push_str(&format!("  {head}\n"));
        }
        // The description in a column of its own, wrapped to fit 80 columns.
        let mut lines = vec![String::new()];
        for word in what.split(' ') {
            let last = lines.last_mut().expect("one line at least");
            if !last.is_empty() && last.len() + 1 + word.len() > 52 {
                lines.push(word.to_string());
            } else {
                if !last.is_empty() {
                    last.push(' ');
                }
                last.push_str(word);
            }
        }
        for (i, line) in lines.iter().enumerate() {
            let left = if i == 0 && head.len() <= 24 {
                head.as_str()
            } else {
                ""
            };
            out.push_str(&format!("  {left:<24}  {line}\n"));
        }
    }
    out.push_str(&format!("  {:<24}  this help\n", "-h, --help"));
    out
}

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
        // Only the flags of the help: one that is parsed below but missing there is refused.
        if !FLAGS.iter().any(|(f, _, _)| *f == name) {
            return Err(format!("unknown option {name}"));
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
        Err(e) if e.is_empty() => {
            print!("{}", help());
            return 0;
        }
        Err(e) => {
            eprintln!("opsapi-sim: {e}");
            eprintln!("{USAGE}");
            eprintln!("(opsapi-sim --help says what each flag does)");
            return 2;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A value each flag takes.
    fn sample(flag: &str) -> Option<&'static str> {
        match flag {
            "--token-buckets" => None,
            "--tls" => Some("self-signed"),
            "--flavour" => Some("atlas"),
            "--bind" => Some("127.0.0.1"),
            f if f.starts_with("--rate-") && f != "--rate-limit" => Some("0.5"),
            _ => Some("1"),
        }
    }

    #[test]
    fn every_flag_of_the_help_is_taken_and_no_other() {
        for (flag, _, what) in FLAGS {
            let mut args = vec![flag.to_string()];
            args.extend(sample(flag).map(String::from));
            assert!(
                parse_args(&args).is_ok(),
                "{flag} is in the help but refused"
            );
            assert!(!what.is_empty() && USAGE.contains(flag), "{flag}");
        }
        // Every flag of the usage line has its line in the help.
        for word in USAGE.split(['[', ']', ' ']) {
            if word.starts_with("--") {
                assert!(
                    FLAGS.iter().any(|(f, _, _)| *f == word),
                    "{word} has no help"
                );
            }
        }
        assert!(parse_args(&["--not-a-flag".into(), "1".into()]).is_err());
        // The help is text for an 80-column terminal.
        assert!(help().lines().all(|l| l.len() <= 80), "{}", help());
    }
}
