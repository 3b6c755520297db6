//! The base URL a client is given: normalized to the API's base, and shown in messages with
//! whatever could be a pasted secret left out.

use url::Url;

use crate::error::{Error, Result};
use crate::flavour::Flavour;

/// Accepts `https://host:port`, `https://host:port/`, the server's address with the
/// flavour's API path (`https://host:port/api/public/v1.0`, `https://cloud.mongodb.com/api/atlas/v2`)
/// or a prefix behind a proxy (`https://host/ops`), and returns the API's base URL and the
/// server's address without it (where the OAuth token endpoint is).
///
/// Messages never echo what could be a secret pasted by mistake: the user info, query and
/// fragment of the URL are left out and the private key (or client secret), wherever it is,
/// is masked.
pub(super) fn normalize_base_url(
    base: &str,
    secret: Option<&str>,
    flavour: Flavour,
) -> Result<(String, String)> {
    let shown = || redact_url(base, secret);
    let trimmed = base.trim().trim_end_matches('/');
    let url = Url::parse(trimmed).map_err(|e| {
        Error::invalid_argument("base_url", format!("`{}` is not a URL: {e}", shown()))
    })?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(Error::invalid_argument(
            "base_url",
            format!("`{}` must start with https:// or http://", shown()),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::invalid_argument(
            "base_url",
            format!(
                "`{}` must not hold credentials; pass the API keys separately",
                shown()
            ),
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(Error::invalid_argument(
            "base_url",
            format!("`{}` must not have a query or fragment", shown()),
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(Error::invalid_argument(
            "base_url",
            format!("`{}` has no host", shown()),
        ));
    }
    if let Some(secret) = maskable(secret) {
        if base.contains(secret) {
            return Err(Error::invalid_argument(
                "base_url",
                format!(
                    "`{}` contains the private key; pass the keys separately",
                    shown()
                ),
            ));
        }
    }
    let s = url.as_str().trim_end_matches('/');
    let api = flavour.api_path();
    if let Some(root) = s.strip_suffix(api) {
        return Ok((s.to_string(), root.to_string()));
    }
    if let Some(other) = Flavour::ALL
        .into_iter()
        .find(|f| f.api_path() != api && s.ends_with(f.api_path()))
    {
        return Err(Error::invalid_argument(
            "base_url",
            format!(
                "`{}` ends in the path of the {other} API ({}); {flavour}'s is {api}",
                shown(),
                other.api_path()
            ),
        ));
    }
    Ok((format!("{s}{api}"), s.to_string()))
}

/// A URL as it may be shown in a message: without user info, query or fragment (where keys
/// get pasted), and with `secret` masked wherever else it occurs.
///
/// ```
/// # use opsapi::redact_url;
/// let key = "5f1c2e3a-private";
/// assert_eq!(redact_url(&format!("https://pub:{key}@om:8443/x?k={key}"), None), "https://***@om:8443/x?***");
/// assert_eq!(redact_url(&format!("https://om:8443/{key}/api"), Some(key)), "https://om:8443/***/api");
/// ```
pub fn redact_url(url: &str, secret: Option<&str>) -> String {
    let mut s = url.trim().to_string();
    // The query and fragment go first: user info is only looked for before them.
    if let Some(i) = s.find(['?', '#']) {
        s.truncate(i);
        s.push_str("?***");
    }
    let authority_start = s.find("://").map_or(0, |i| i + 3);
    let authority_end = s[authority_start..]
        .find('/')
        .map_or(s.len(), |i| authority_start + i);
    if let Some(at) = s[authority_start..authority_end].rfind('@') {
        s.replace_range(authority_start..authority_start + at, "***");
    }
    match maskable(secret) {
        Some(k) => s.replace(k, "***"),
        None => s,
    }
}

/// The secret to mask in messages. Real private keys are UUIDs; a key of a few characters
/// (a test's `"k"`) would mask ordinary words, so it is not looked for.
pub(super) fn maskable(secret: Option<&str>) -> Option<&str> {
    secret.filter(|k| k.len() >= 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_flavour_has_its_api_path() {
        let atlas = |u| normalize_base_url(u, None, Flavour::Atlas);
        assert_eq!(
            atlas("https://cloud.mongodb.com/").unwrap(),
            (
                "https://cloud.mongodb.com/api/atlas/v2".to_string(),
                "https://cloud.mongodb.com".to_string()
            )
        );
        assert_eq!(
            atlas("http://127.0.0.1:9/api/atlas/v2").unwrap().1,
            "http://127.0.0.1:9"
        );
        let e = atlas("https://cloud.mongodb.com/api/public/v1.0").unwrap_err();
        assert!(e.to_string().contains("Ops Manager API"), "{e}");
        let e = normalize_base_url("https://om/api/atlas/v2", None, Flavour::OpsManager);
        assert!(e.unwrap_err().to_string().contains("`base_url`"));
    }

    #[test]
    fn base_urls_are_normalized() {
        for (input, want) in [
            ("https://om:8443", "https://om:8443/api/public/v1.0"),
            ("https://om:8443/", "https://om:8443/api/public/v1.0"),
            (
                "https://om:8443/api/public/v1.0",
                "https://om:8443/api/public/v1.0",
            ),
            (
                "https://om:8443/api/public/v1.0/",
                "https://om:8443/api/public/v1.0",
            ),
            (
                "http://127.0.0.1:1/ops",
                "http://127.0.0.1:1/ops/api/public/v1.0",
            ),
        ] {
            assert_eq!(
                normalize_base_url(input, None, Flavour::OpsManager)
                    .unwrap()
                    .0,
                want
            );
        }
        for bad in [
            "om:8443",
            "ftp://om",
            "https://u:p@om",
            "https://om/?x=1",
            "",
        ] {
            assert!(
                normalize_base_url(bad, None, Flavour::OpsManager).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_key_pasted_into_the_base_url_is_never_echoed() {
        let key = "0c2e7a4b-5f21-4a8e-9d3b-6f1e2a3b4c5d";
        for url in [
            format!("https://pub:{key}@om:8443"),
            format!("https://{key}@om:8443"),
            format!("https://om:8443/{key}"),
            format!("https://om:8443/?key={key}"),
            format!("https://om:8443/#{key}"),
            format!("om:8443/{key}"),
            format!("https://om:8443 {key}"),
        ] {
            let err = normalize_base_url(&url, Some(key), Flavour::Atlas)
                .unwrap_err()
                .to_string();
            assert!(!err.contains(key), "{err}");
            assert!(err.contains("`base_url`"), "{err}");
        }
        // Without the key at hand, the user info, query and fragment are still left out.
        let err = normalize_base_url(&format!("https://u:{key}@om"), None, Flavour::OpsManager)
            .unwrap_err()
            .to_string();
        assert!(!err.contains(key), "{err}");
    }
}
