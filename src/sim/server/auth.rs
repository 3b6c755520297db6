//! Digest: the challenge, and the verification of a signed request (with the same code as the
//! client's `src/auth.rs`).

use super::*;

pub(crate) fn challenge(shared: &Shared, stale: bool) -> Reply {
    let nonce = shared.new_nonce();
    let mut r = err(
        401,
        "UNAUTHORIZED",
        "You are not authorized for this resource.",
        vec![],
    );
    r.content_type = "application/json;charset=ISO-8859-1";
    r.headers.push((
        "www-authenticate",
        format!(
            "Digest realm=\"{REALM}\", domain=\"\", nonce=\"{nonce}\", algorithm=MD5, qop=\"auth\", stale={stale}"
        ),
    ));
    r
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Role {
    Owner,
    ReadOnly,
}

pub(crate) enum Auth {
    Ok(Role, String),
    Challenge { stale: bool },
}

pub(crate) fn verify(shared: &Shared, method: &str, target: &str, header: Option<&str>) -> Auth {
    let Some(header) = header else {
        return Auth::Challenge { stale: false };
    };
    if let Some(token) = header.strip_prefix("Bearer ") {
        return atlas::verify_bearer(shared, token);
    }
    let (scheme, params) = crate::auth::parse_auth_params(header);
    if !scheme.eq_ignore_ascii_case("digest") {
        return Auth::Challenge { stale: false };
    }
    let p = |n: &str| params.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    let (Some(user), Some(realm), Some(nonce), Some(uri), Some(resp)) = (
        p("username"),
        p("realm"),
        p("nonce"),
        p("uri"),
        p("response"),
    ) else {
        return Auth::Challenge { stale: false };
    };
    let keys = &shared.keys;
    let (role, password) = if user == keys.owner_public {
        (Role::Owner, keys.owner_private.as_str())
    } else if user == keys.ro_public {
        (Role::ReadOnly, keys.ro_private.as_str())
    } else {
        return Auth::Challenge { stale: false };
    };
    if realm != REALM
        || uri != target
        || p("algorithm").is_some_and(|a| !a.eq_ignore_ascii_case("MD5"))
        || p("qop") != Some("auth")
    {
        return Auth::Challenge { stale: false };
    }
    let (Some(nc), Some(cnonce)) = (p("nc"), p("cnonce")) else {
        return Auth::Challenge { stale: false };
    };
    let Ok(nc_value) = u32::from_str_radix(nc, 16) else {
        return Auth::Challenge { stale: false };
    };
    let expected = crate::auth::digest_response(
        user,
        realm,
        password,
        method,
        uri,
        nonce,
        Some((nc, cnonce)),
    );
    if !expected.eq_ignore_ascii_case(resp) {
        return Auth::Challenge { stale: false };
    }
    let mut nonces = lock(&shared.nonces);
    match nonces.get_mut(nonce) {
        // Right credentials, but a nonce this server does not know (or no longer): stale.
        None => Auth::Challenge { stale: true },
        Some(s) if shared.clock.elapsed().saturating_sub(s.issued) >= shared.nonce_lifetime() => {
            Auth::Challenge { stale: true }
        }
        Some(s) => {
            if s.used.insert(nc_value) {
                Auth::Ok(role, user.to_string())
            } else {
                // A replayed (nonce, nc) pair.
                Auth::Challenge { stale: false }
            }
        }
    }
}
