//! The simulator's HTTPS: certificates generated at start (rcgen), PEM files in a temporary
//! directory of its own, and the tokio-rustls acceptor.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{Datelike, TimeDelta, Utc};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// How the simulator serves HTTPS: the two certificates on-premise servers commonly have.
///
/// ```no_run
/// use opsapi::sim::{SimConfig, SimTls, Simulator};
///
/// let sim = Simulator::start(SimConfig { tls: Some(SimTls::SelfSigned), ..SimConfig::default() })
///     .unwrap();
/// let client = opsapi::Client::builder(sim.base_url())
///     .credentials(sim.public_key(), sim.private_key())
///     .ca_file(sim.ca_file().unwrap())
///     .build()
///     .unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SimTls {
    /// An internal CA signs the server's certificate; `ca_file` is the CA's certificate.
    /// The certificate names the IP addresses `127.0.0.1`, `::1` and the bind address but
    /// not `localhost`, so `https://localhost:PORT` shows how a wrong host name is refused.
    InternalCa,
    /// The server presents a certificate of its own as `openssl req -x509 -subj /CN=...`
    /// makes it: self-signed, `CA:TRUE`, no subjectAltName; `ca_file` is that certificate.
    SelfSigned,
}

impl std::str::FromStr for SimTls {
    type Err = String;

    /// `ca` (or `internal-ca`) and `self-signed`, the spellings of `opsapi-sim --tls` and
    /// `Simulator(tls=...)`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ca" | "internal-ca" => Ok(Self::InternalCa),
            "self-signed" => Ok(Self::SelfSigned),
            other => Err(format!(
                "unknown TLS mode `{other}` (expected `ca` or `self-signed`)"
            )),
        }
    }
}

/// A directory removed with everything in it when dropped.
#[derive(Debug)]
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<Self> {
        let base = std::env::temp_dir();
        loop {
            let dir = base.join(format!(
                "opsapi-sim-{}-{:016x}",
                std::process::id(),
                fastrand::u64(..)
            ));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(Self(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a simulator serving HTTPS holds on to.
pub(crate) struct Tls {
    pub acceptor: tokio_rustls::TlsAcceptor,
    /// The PEM file a client passes as `ca_file`.
    pub ca_file: PathBuf,
    _dir: TempDir,
}

fn io_err(what: &str, e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(format!("cannot {what}: {e}"))
}

/// From yesterday (clocks differ a little) to a year from now.
fn validity(params: &mut CertificateParams) {
    let ymd =
        |d: chrono::DateTime<Utc>| rcgen::date_time_ymd(d.year(), d.month() as u8, d.day() as u8);
    params.not_before = ymd(Utc::now() - TimeDelta::days(1));
    params.not_after = ymd(Utc::now() + TimeDelta::days(365));
}

/// Generates the certificates of `mode`, writes the client's PEM file and builds the
/// acceptor.
pub(crate) fn setup(mode: SimTls, bind: IpAddr) -> std::io::Result<Tls> {
    let gen_err = |e: rcgen::Error| io_err("generate the TLS certificates", e);
    let server_key = KeyPair::generate().map_err(gen_err)?;
    let (chain, ca_pem, ca_name) = match mode {
        SimTls::InternalCa => {
            let ca_key = KeyPair::generate().map_err(gen_err)?;
            let mut ca = CertificateParams::default();
            ca.distinguished_name = rcgen::DistinguishedName::new();
            ca.distinguished_name
                .push(DnType::CommonName, "opsapi-sim internal CA");
            ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
            ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
            validity(&mut ca);
            let ca_cert = ca.self_signed(&ca_key).map_err(gen_err)?;
            let issuer = Issuer::new(ca, ca_key);

            let mut names: Vec<SanType> = vec![
                SanType::IpAddress(IpAddr::from([127, 0, 0, 1])),
                SanType::IpAddress(IpAddr::from([0u16, 0, 0, 0, 0, 0, 0, 1])),
            ];
            if !bind.is_loopback() && !bind.is_unspecified() {
                names.push(SanType::IpAddress(bind));
            }
            let mut server = CertificateParams::default();
            server.distinguished_name = rcgen::DistinguishedName::new();
            server
                .distinguished_name
                .push(DnType::CommonName, "opsapi-sim");
            server.subject_alt_names = names;
            server.key_usages = vec![KeyUsagePurpose::DigitalSignature];
            server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
            server.use_authority_key_identifier_extension = true;
            validity(&mut server);
            let server_cert = server.signed_by(&server_key, &issuer).map_err(gen_err)?;
            (
                vec![server_cert.der().clone(), ca_cert.der().clone()],
                ca_cert.pem(),
                "ca.pem",
            )
        }
        SimTls::SelfSigned => {
            let mut server = CertificateParams::default();
            server.distinguished_name = rcgen::DistinguishedName::new();
            server
                .distinguished_name
                .push(DnType::CommonName, bind.to_string());
            // What `openssl req -x509` writes by default: a CA, and no subjectAltName.
            server.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
            validity(&mut server);
            let cert = server.self_signed(&server_key).map_err(gen_err)?;
            (vec![cert.der().clone()], cert.pem(), "server.pem")
        }
    };
    let dir = TempDir::new()?;
    let ca_file = dir.0.join(ca_name);
    std::fs::write(&ca_file, ca_pem)?;
    let acceptor = acceptor(chain, &server_key)?;
    Ok(Tls {
        acceptor,
        ca_file,
        _dir: dir,
    })
}

fn acceptor(
    chain: Vec<CertificateDer<'static>>,
    key: &KeyPair,
) -> std::io::Result<tokio_rustls::TlsAcceptor> {
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| io_err("configure TLS", e))?
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .map_err(|e| io_err("configure TLS", e))?;
    // The server speaks HTTP/1.1 only.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

impl Tls {
    pub(crate) fn ca_file(&self) -> &Path {
        &self.ca_file
    }
}
