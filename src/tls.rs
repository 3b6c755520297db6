//! TLS as on-premise servers use it: the `ca_file` verifier (internal CA or a pinned
//! self-signed certificate) and the hint a TLS failure's message gets.
//!
//! Ops Manager installations come in two common shapes. Either an internal CA signs the
//! server's certificate, and `ca_file` holds that CA: ordinary chain verification with the
//! file's certificates as the only roots. Or the server presents a certificate of its own
//! that `openssl req -x509` made: self-signed, `CA:TRUE`, often without a subjectAltName.
//! webpki refuses a CA certificate as the server's own (and finds no name in it), so such a
//! certificate in `ca_file` is trusted as exactly itself: when chain verification fails, an
//! end-entity certificate byte-identical to one in `ca_file` is accepted. The exact DER match
//! is the identity check, so its names are not compared with the URL's host; its validity
//! period still is (an expired pinned certificate is refused, with a message that says it
//! expired), and the handshake's signature is always verified against its key.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, DistinguishedName, SignatureScheme};

use crate::error::{Error, Result};

/// What to pass instead, said the way the Python API spells it (the Rust builder's
/// `.ca_file(..)` and `.verify(false)` are the same options).
const CA_FILE_HINT: &str = "pass ca_file=<PEM of the server's CA or of its own certificate>";
const INSECURE_HINT: &str = "verify=False to skip verification (insecure)";

/// Reads `ca_file`: a PEM bundle of one or more certificates.
pub(crate) fn load_ca_file(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    let pem = std::fs::read(path).map_err(|e| {
        Error::invalid_argument("ca_file", format!("cannot read {}: {e}", path.display()))
    })?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| {
            Error::invalid_argument(
                "ca_file",
                format!("{} is not a PEM certificate bundle: {e}", path.display()),
            )
        })?;
    if certs.is_empty() {
        return Err(Error::invalid_argument(
            "ca_file",
            format!("{} holds no certificate", path.display()),
        ));
    }
    Ok(certs)
}

/// The TLS configuration of a client given `ca_file`: the file's certificates as the only
/// roots, each also pinned as a server certificate, with the aws-lc-rs provider reqwest uses.
pub(crate) fn client_config(path: &Path) -> Result<rustls::ClientConfig> {
    let certs = load_ca_file(path)?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let verifier = CaFileVerifier::new(path, certs, provider.clone())?;
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Config(format!("cannot configure TLS: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    // reqwest takes a preconfigured config as it is: offer what its own config would.
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// Chain verification against the `ca_file` roots, then the pin (see the module doc).
#[derive(Debug)]
pub(crate) struct CaFileVerifier {
    webpki: Arc<WebPkiServerVerifier>,
    pinned: Vec<CertificateDer<'static>>,
    provider: Arc<CryptoProvider>,
    path: PathBuf,
}

impl CaFileVerifier {
    pub(crate) fn new(
        path: &Path,
        certs: Vec<CertificateDer<'static>>,
        provider: Arc<CryptoProvider>,
    ) -> Result<Self> {
        let mut roots = rustls::RootCertStore::empty();
        for (i, cert) in certs.iter().enumerate() {
            roots.add(cert.clone()).map_err(|e| {
                Error::invalid_argument(
                    "ca_file",
                    format!(
                        "certificate {} of {} cannot be read: {e}",
                        i + 1,
                        path.display()
                    ),
                )
            })?;
        }
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .map_err(|e| Error::Config(format!("cannot configure TLS: {e}")))?;
        Ok(Self {
            webpki,
            pinned: certs,
            provider,
            path: path.to_path_buf(),
        })
    }
}

impl ServerCertVerifier for CaFileVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        let err = match self.webpki.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Ok(ok) => return Ok(ok),
            Err(e) => e,
        };
        if self
            .pinned
            .iter()
            .any(|c| c.as_ref() == end_entity.as_ref())
        {
            return check_validity(end_entity, now).map(|()| ServerCertVerified::assertion());
        }
        Err(match err {
            // The certificate has no path to the file's certificates and is none of them.
            rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer
                | CertificateError::BadSignature
                | CertificateError::Other(_),
            ) => rustls::Error::InvalidCertificate(CertificateError::Other(rustls::OtherError(
                Arc::new(NotInCaFile(self.path.clone())),
            ))),
            // A wrong name, an expired certificate...: said as webpki found it.
            other => other,
        })
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }

    fn root_hint_subjects(&self) -> Option<&[DistinguishedName]> {
        self.webpki.root_hint_subjects()
    }
}

/// The refusal of a server certificate that is neither signed by a certificate in
/// `ca_file` nor one of them.
#[derive(Debug)]
struct NotInCaFile(PathBuf);

impl std::fmt::Display for NotInCaFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the server's certificate is neither signed by a certificate in ca_file ({}) nor \
             one of them",
            self.0.display()
        )
    }
}

impl std::error::Error for NotInCaFile {}

/// A pinned certificate is trusted for what it is, not for ever: refused outside its
/// validity period, as chain verification would refuse it.
fn check_validity(
    cert: &CertificateDer<'_>,
    now: UnixTime,
) -> std::result::Result<(), rustls::Error> {
    let Some((not_before, not_after)) = validity(cert.as_ref()) else {
        return Err(rustls::Error::InvalidCertificate(
            CertificateError::BadEncoding,
        ));
    };
    let now_secs = now.as_secs();
    let unix = |t: i64| UnixTime::since_unix_epoch(std::time::Duration::from_secs(t.max(0) as u64));
    if (now_secs as i128) > not_after as i128 {
        return Err(rustls::Error::InvalidCertificate(
            CertificateError::ExpiredContext {
                time: now,
                not_after: unix(not_after),
            },
        ));
    }
    if (now_secs as i128) < not_before as i128 {
        return Err(rustls::Error::InvalidCertificate(
            CertificateError::NotValidYetContext {
                time: now,
                not_before: unix(not_before),
            },
        ));
    }
    Ok(())
}

/// `notBefore` and `notAfter` of a DER certificate, in seconds since the Unix epoch.
///
/// webpki keeps them to itself, and a pinned certificate is exactly one that webpki did
/// not accept, so the few DER elements in front of them are walked here.
fn validity(der: &[u8]) -> Option<(i64, i64)> {
    let (tag, cert, _) = tlv(der)?;
    if tag != 0x30 {
        return None;
    }
    let (tag, tbs, _) = tlv(cert)?;
    if tag != 0x30 {
        return None;
    }
    let mut rest = tbs;
    // [0] version (optional), serialNumber, signature, issuer, then validity.
    let (tag, _, r) = tlv(rest)?;
    if tag == 0xa0 {
        rest = r;
    }
    for expected in [0x02, 0x30, 0x30] {
        let (tag, _, r) = tlv(rest)?;
        if tag != expected {
            return None;
        }
        rest = r;
    }
    let (tag, validity, _) = tlv(rest)?;
    if tag != 0x30 {
        return None;
    }
    let (t1, v1, r) = tlv(validity)?;
    let (t2, v2, _) = tlv(r)?;
    Some((der_time(t1, v1)?, der_time(t2, v2)?))
}

/// One DER element: its tag, its content and what follows it.
fn tlv(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (first as usize, rest)
    } else {
        let n = (first & 0x7f) as usize;
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, &b| (acc << 8) | b as usize);
        (len, &rest[n..])
    };
    if rest.len() < len {
        return None;
    }
    Some((tag, &rest[..len], &rest[len..]))
}

/// UTCTime (`YYMMDDHHMMSSZ`, years 1950-2049) or GeneralizedTime (`YYYYMMDDHHMMSSZ`), the
/// two forms RFC 5280 allows, in seconds since the Unix epoch.
fn der_time(tag: u8, v: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(v).ok()?;
    let digits = s.strip_suffix('Z')?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (year, rest) = match (tag, digits.len()) {
        (0x17, 12) => {
            let yy: i32 = digits[..2].parse().ok()?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, &digits[2..])
        }
        (0x18, 14) => (digits[..4].parse().ok()?, &digits[4..]),
        _ => return None,
    };
    let n = |i: usize| rest[i..i + 2].parse::<u32>().ok();
    let t =
        chrono::NaiveDate::from_ymd_opt(year, n(0)?, n(2)?)?.and_hms_opt(n(4)?, n(6)?, n(8)?)?;
    Some(t.and_utc().timestamp())
}

/// The TLS failure in a transport error's source chain, if there is one.
fn rustls_error<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if let Some(r) = err.downcast_ref::<rustls::Error>() {
            return Some(r);
        }
        // io::Error's source() skips the error it wraps (tokio-rustls wraps rustls's in
        // two of them): look inside instead.
        cur = match err
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => err.source(),
        };
    }
    None
}

/// What would help with a TLS failure, for the end of a transport error's message.
fn hint(e: &rustls::Error) -> Option<String> {
    use CertificateError as C;
    let rustls::Error::InvalidCertificate(cert) = e else {
        return match e {
            rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType) => Some(
                "the server did not answer in TLS: if it serves plain HTTP, base_url should \
                 start with http://"
                    .into(),
            ),
            _ => None,
        };
    };
    Some(match cert {
        C::Other(other) if other.0.downcast_ref::<NotInCaFile>().is_some() => {
            format!("{}: {CA_FILE_HINT}, or {INSECURE_HINT}", other.0)
        }
        C::UnknownIssuer | C::BadSignature => untrusted(),
        // How webpki refuses a self-signed `CA:TRUE` certificate as the server's own.
        C::Other(other)
            if matches!(
                other.0.downcast_ref::<webpki::Error>(),
                Some(webpki::Error::CaUsedAsEndEntity)
            ) =>
        {
            untrusted()
        }
        C::NotValidForName | C::NotValidForNameContext { .. } => {
            let names = match cert {
                C::NotValidForNameContext { presented, .. } if !presented.is_empty() => {
                    let names: Vec<String> = presented.iter().map(|n| name(n)).collect();
                    format!(" (it names {})", names.join(", "))
                }
                _ => String::new(),
            };
            format!(
                "the server's certificate is not valid for the host name in base_url{names}: \
                 use a name it is valid for in base_url, pin it with ca_file=<PEM of the \
                 server's own certificate>, or {INSECURE_HINT}"
            )
        }
        C::Expired | C::ExpiredContext { .. } => {
            let when = match cert {
                C::ExpiredContext { not_after, .. } => format!(" on {}", rfc3339(*not_after)),
                _ => String::new(),
            };
            format!(
                "the server's certificate expired{when}: renew it on the server, or \
                 {INSECURE_HINT}"
            )
        }
        C::NotValidYet | C::NotValidYetContext { .. } => {
            let when = match cert {
                C::NotValidYetContext { not_before, .. } => {
                    format!(" before {}", rfc3339(*not_before))
                }
                _ => String::new(),
            };
            format!(
                "the server's certificate is not valid{when} (is this machine's clock \
                 right?); {INSECURE_HINT}"
            )
        }
        _ => format!("the server's certificate was refused; {INSECURE_HINT}"),
    })
}

fn untrusted() -> String {
    format!(
        "the server's certificate is not signed by an authority this system trusts: \
         {CA_FILE_HINT}, or {INSECURE_HINT}"
    )
}

/// A name as webpki reports it (`IpAddress(0::1)`, `DnsName("om.example.com")`), as a user
/// would write it in a URL.
fn name(presented: &str) -> String {
    let inner = ["IpAddress(", "DnsName("]
        .iter()
        .find_map(|p| presented.strip_prefix(p)?.strip_suffix(')'))
        .map(|s| s.trim_matches('"'));
    match inner {
        Some(s) => s
            .parse::<std::net::IpAddr>()
            .map(|ip| ip.to_string())
            .unwrap_or_else(|_| s.to_string()),
        None => presented.to_string(),
    }
}

fn rfc3339(t: UnixTime) -> String {
    chrono::DateTime::from_timestamp(t.as_secs() as i64, 0)
        .map(|d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| format!("{} s after 1970", t.as_secs()))
}

/// `message` (a transport error's cause chain), with what would help when the cause is a
/// refused certificate or a server that does not speak TLS.
pub(crate) fn with_hint(message: String, e: &(dyn std::error::Error + 'static)) -> String {
    let Some(err) = rustls_error(e) else {
        return message;
    };
    let Some(h) = hint(err) else {
        return message;
    };
    // rustls shows `Other` refusals in Debug form (`Other(OtherError(CaUsedAsEndEntity))`);
    // the hint says it in words.
    let message = match err {
        rustls::Error::InvalidCertificate(CertificateError::Other(_)) => {
            message.replace(&err.to_string(), "invalid peer certificate")
        }
        _ => message,
    };
    format!("{message}; {h}")
}

/// Whether a transport error is a failed TLS handshake (a refused certificate, a server
/// that does not speak TLS): the same on every retry, so not worth one.
pub(crate) fn is_tls_error(e: &(dyn std::error::Error + 'static)) -> bool {
    rustls_error(e).is_some()
}

#[cfg(all(test, feature = "sim"))]
mod tests {
    use super::*;
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};

    fn self_signed(not_before: (i32, u8, u8), not_after: (i32, u8, u8)) -> CertificateDer<'static> {
        let mut p = CertificateParams::default();
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        p.not_before = rcgen::date_time_ymd(not_before.0, not_before.1, not_before.2);
        p.not_after = rcgen::date_time_ymd(not_after.0, not_after.1, not_after.2);
        p.self_signed(&KeyPair::generate().unwrap())
            .unwrap()
            .der()
            .clone()
    }

    fn verifier(certs: &[&CertificateDer<'static>]) -> CaFileVerifier {
        CaFileVerifier::new(
            Path::new("/etc/om/ca.pem"),
            certs.iter().map(|c| (*c).clone()).collect(),
            Arc::new(rustls::crypto::aws_lc_rs::default_provider()),
        )
        .unwrap()
    }

    fn at(y: i32, m: u32, d: u32) -> UnixTime {
        let t = chrono::NaiveDate::from_ymd_opt(y, m, d)
            .unwrap()
            .and_hms_opt(0, 0, 0)
            .unwrap()
            .and_utc()
            .timestamp();
        UnixTime::since_unix_epoch(std::time::Duration::from_secs(t as u64))
    }

    fn verify(
        v: &CaFileVerifier,
        cert: &CertificateDer<'_>,
        host: &str,
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        let name = ServerName::try_from(host.to_string()).unwrap();
        v.verify_server_cert(cert, &[], &name, &[], now)
    }

    #[test]
    fn a_pinned_certificate_is_trusted_whatever_the_host_name_within_its_validity() {
        let pinned = self_signed((2024, 1, 1), (2030, 1, 1));
        let v = verifier(&[&self_signed((2024, 1, 1), (2030, 1, 1)), &pinned]);
        for host in ["127.0.0.1", "om.example.com"] {
            assert!(verify(&v, &pinned, host, at(2025, 6, 1)).is_ok(), "{host}");
        }
        let expired = verify(&v, &pinned, "om.example.com", at(2030, 1, 2)).unwrap_err();
        assert_eq!(
            hint(&expired).unwrap(),
            "the server's certificate expired on 2030-01-01T00:00:00Z: renew it on the server, \
             or verify=False to skip verification (insecure)"
        );
        let early = verify(&v, &pinned, "om.example.com", at(2023, 12, 31)).unwrap_err();
        assert!(
            hint(&early)
                .unwrap()
                .starts_with("the server's certificate is not valid before 2024-01-01T00:00:00Z"),
            "{early}"
        );
    }

    #[test]
    fn a_certificate_that_is_not_in_ca_file_is_refused_as_such() {
        let v = verifier(&[&self_signed((2024, 1, 1), (2030, 1, 1))]);
        let other = self_signed((2024, 1, 1), (2030, 1, 1));
        let err = verify(&v, &other, "127.0.0.1", at(2025, 6, 1)).unwrap_err();
        assert_eq!(
            hint(&err).unwrap(),
            "the server's certificate is neither signed by a certificate in ca_file \
             (/etc/om/ca.pem) nor one of them: pass ca_file=<PEM of the server's CA or of its \
             own certificate>, or verify=False to skip verification (insecure)"
        );
    }

    #[test]
    fn validity_reads_both_time_forms() {
        // Before 2050 a certificate's times are UTCTime, from 2050 GeneralizedTime.
        let cert = self_signed((1999, 12, 31), (2050, 1, 1));
        assert_eq!(validity(cert.as_ref()), Some((946_598_400, 2_524_608_000)));
        assert_eq!(validity(&cert.as_ref()[..40]), None);
        assert_eq!(validity(b""), None);
    }

    #[test]
    fn webpki_names_read_as_in_a_url() {
        assert_eq!(name("IpAddress(0::1)"), "::1");
        assert_eq!(name("IpAddress(127.0.0.1)"), "127.0.0.1");
        assert_eq!(name("DnsName(\"om.example.com\")"), "om.example.com");
        assert_eq!(name("DirectoryName"), "DirectoryName");
    }
}
