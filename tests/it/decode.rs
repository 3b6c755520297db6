//! Bodies that are not the documented JSON (an HTML page, garbled JSON, bytes that are not
//! UTF-8) are decode errors naming the path and the field, and are not retried. (The decode
//! rules without a server are in `tests/promises/decode_rules.rs`.)

use opsapi::sim::Fault;
use opsapi::Error;

use crate::common::{api_error, ids, seen, sim, warm};

#[tokio::test]
async fn bodies_that_are_not_the_documented_json_are_decode_errors() {
    let sim = sim();
    let i = ids(&sim);
    let c = warm(&sim).await;
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    for (fault, message) in [
        (
            Fault::HtmlPage { status: 200 },
            "expected value at line 1 column 1",
        ),
        (Fault::GarbledJson, "expected `:` at line 1 column "),
        (
            Fault::InvalidUtf8,
            "invalid unicode code point at line 1 column ",
        ),
    ] {
        sim.clear_requests();
        sim.inject(fault.clone(), 1);
        let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
        match &err {
            Error::Decode {
                path: p,
                message: m,
                body_start,
                ..
            } => {
                assert_eq!(p, &path);
                assert!(m.starts_with(message), "{fault:?}: {err}");
                assert!(!body_start.is_empty());
            }
            other => panic!("{fault:?}: {other:?}"),
        }
        assert_eq!(
            seen(&sim),
            [format!("GET {path} signed 200 [{}]", fault.label())],
            "not retried"
        );
    }
    sim.inject(Fault::HtmlPage { status: 200 }, 1);
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "cannot decode the response of {path}: at `.`: expected value at line 1 column 1; \
             body starts with: <!DOCTYPE html>"
        )),
        "{err}"
    );

    // A gateway's HTML 502 page, every time: retried, then kept as text.
    sim.clear_requests();
    sim.inject(Fault::HtmlPage { status: 502 }, 4);
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    let api = api_error(&err);
    assert_eq!((api.status, api.error_code.as_deref()), (502, None));
    assert!(api.body.starts_with("<!DOCTYPE html>"), "{}", api.body);
    assert!(api.body.contains("<title>502 Bad Gateway</title>"));
    assert_eq!(
        seen(&sim),
        vec![format!("GET {path} signed 502 [html 502]"); 4]
    );
}

/// The field a syntax error sits in is named, as for a wrong type (`port`): a body garbled
/// or holding bytes that are not UTF-8 part-way is not the same as one that is not JSON at
/// all (`.`).
#[tokio::test]
async fn garbled_json_and_invalid_utf8_name_the_field_they_sit_in() {
    let sim = sim();
    let i = ids(&sim);
    let c = warm(&sim).await;
    for fault in [Fault::GarbledJson, Fault::InvalidUtf8] {
        sim.inject(fault.clone(), 1);
        match c.hosts().get(&i.group, &i.host).await.unwrap_err() {
            Error::Decode { field, .. } => assert_ne!(field, ".", "{fault:?}"),
            other => panic!("{fault:?}: {other:?}"),
        }
    }
}
