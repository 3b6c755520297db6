//! A one-pass scanner for pages of alerts (`/globalAlerts`, the open alerts of an alert
//! configuration), the longest listings users pull.
//!
//! serde reads such a page twice: once to find each item's text (kept for `to_dict()`), then
//! the item's text into the typed fields, most of the time going to its generic machinery.
//! This walks the body once, reading each known field where it stands and noting where each
//! item begins and ends. It gives the page back to serde (`None`) at anything unusual: an
//! escape in a string, a duplicate field, a value of another type than documented, a number
//! beyond f64, nesting at the limit, any syntax error; serde then decodes it or names the
//! field at fault. What it accepts, it decodes exactly as serde does (tests below, and the
//! `model_pages` fuzz target's differential check).

use std::ops::Range;

use serde::de::IgnoredAny;

use super::scan::Scan;
use crate::models::time::parse_datetime;
use crate::models::{Alert, AlertStatus, CurrentValue, Link};

/// The items of a page (with the byte range of each one's text), `totalCount` and `links`.
pub(crate) type Scanned<T> = (Vec<(T, Range<usize>)>, Option<u64>, Vec<Link>);

/// A page of alerts, or `None` for serde to read it.
pub(crate) fn alert_page(body: &[u8]) -> Option<Scanned<Alert>> {
    // UTF-8 throughout, as serde requires of every value it reads or skips (std checks it
    // faster than the walk below): the items' texts are then UTF-8 too.
    std::str::from_utf8(body).ok()?;
    let mut s = Scan {
        b: body,
        i: 0,
        utf8: true,
    };
    let mut items: Option<Vec<(Alert, Range<usize>)>> = None;
    let mut total: Option<Option<u64>> = None;
    let mut links: Option<Vec<Link>> = None;
    s.object(|s, key| {
        match key {
            "results" if items.is_none() => items = Some(results(s)?),
            "totalCount" if total.is_none() => total = Some(opt_count(s)?),
            "links" if links.is_none() => links = Some(opt_links(s)?.unwrap_or_default()),
            // A repeated page key: serde's last-one-wins is left to serde.
            "results" | "totalCount" | "links" => return None,
            _ => skip(s, 1)?,
        }
        Some(())
    })?;
    s.ws();
    if s.i != body.len() {
        return None;
    }
    Some((items?, total.flatten(), links.unwrap_or_default()))
}

/// A value this scanner does not read, checked as serde checks it (nesting limit included).
fn skip(s: &mut Scan<'_>, level: usize) -> Option<()> {
    let slice = s.value_slice(level)?;
    serde_json::from_slice::<IgnoredAny>(slice).ok().map(|_| ())
}

/// `null` or a non-negative integer (`totalCount`).
fn opt_count(s: &mut Scan<'_>) -> Option<Option<u64>> {
    s.ws();
    if s.lit(b"null") {
        return Some(None);
    }
    let start = s.i;
    while s.peek().is_some_and(|c| c.is_ascii_digit()) {
        s.i += 1;
    }
    let digits = &s.b[start..s.i];
    // `01` is not JSON; a fraction or exponent is not a u64 for serde either.
    if digits.is_empty() || (digits.len() > 1 && digits[0] == b'0') {
        return None;
    }
    if matches!(s.peek(), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok().map(Some)
}

fn opt_owned(s: &mut Scan<'_>) -> Option<Option<String>> {
    Some(s.opt_string()?.map(str::to_owned))
}

fn opt_time(s: &mut Scan<'_>) -> Option<Option<chrono::DateTime<chrono::Utc>>> {
    match s.opt_string()? {
        None => Some(None),
        Some(t) => parse_datetime(t).ok().map(Some),
    }
}

/// Marks field `bit` as read; `None` (serde's "duplicate field") when it was already.
fn first(seen: &mut u64, bit: u32) -> Option<()> {
    let mask = 1u64 << bit;
    if *seen & mask != 0 {
        return None;
    }
    *seen |= mask;
    Some(())
}

fn results(s: &mut Scan<'_>) -> Option<Vec<(Alert, Range<usize>)>> {
    s.ws();
    if s.lit(b"null") {
        // serde reads `"results": null` as no page at all: its slow path says so.
        return None;
    }
    let mut out = Vec::new();
    s.array(|s| {
        s.ws();
        let start = s.i;
        let alert = alert(s)?;
        out.push((alert, start..s.i));
        Some(())
    })?;
    Some(out)
}

fn alert(s: &mut Scan<'_>) -> Option<Alert> {
    let mut a = Alert::default();
    let mut seen = 0u64;
    s.object(|s, key| {
        let (bit, _) = match key {
            "id" => (0, a.id = opt_owned(s)?),
            "groupId" => (1, a.group_id = opt_owned(s)?),
            "alertConfigId" => (2, a.alert_config_id = opt_owned(s)?),
            "typeName" => (3, a.type_name = opt_owned(s)?),
            "eventTypeName" => (4, a.event_type_name = opt_owned(s)?),
            "status" => (5, a.status = s.opt_string()?.map(AlertStatus::from)),
            "created" => (6, a.created = opt_time(s)?),
            "updated" => (7, a.updated = opt_time(s)?),
            "resolved" => (8, a.resolved = opt_time(s)?),
            "lastNotified" => (9, a.last_notified = opt_time(s)?),
            "acknowledgedUntil" => (10, a.acknowledged_until = opt_time(s)?),
            "acknowledgementComment" => (11, a.acknowledgement_comment = opt_owned(s)?),
            "acknowledgingUsername" => (12, a.acknowledging_username = opt_owned(s)?),
            "metricName" => (13, a.metric_name = opt_owned(s)?),
            "currentValue" => (14, a.current_value = current_value(s)?),
            "hostId" => (15, a.host_id = opt_owned(s)?),
            "hostnameAndPort" => (16, a.hostname_and_port = opt_owned(s)?),
            "replicaSetName" => (17, a.replica_set_name = opt_owned(s)?),
            "clusterId" => (18, a.cluster_id = opt_owned(s)?),
            "clusterName" => (19, a.cluster_name = opt_owned(s)?),
            "sourceTypeName" => (20, a.source_type_name = opt_owned(s)?),
            "tags" => (21, a.tags = tags(s)?),
            "links" => (22, a.links = opt_links(s)?),
            _ => return skip(s, 1),
        };
        first(&mut seen, bit)
    })?;
    Some(a)
}

fn current_value(s: &mut Scan<'_>) -> Option<Option<CurrentValue>> {
    s.ws();
    if s.lit(b"null") {
        return Some(None);
    }
    let mut v = CurrentValue::default();
    let mut seen = 0u64;
    s.object(|s, key| {
        let bit = match key {
            "number" => {
                s.ws();
                v.number = s.null_or_number()?;
                0
            }
            "units" => {
                v.units = opt_owned(s)?;
                1
            }
            _ => return skip(s, 2),
        };
        first(&mut seen, bit)
    })?;
    Some(Some(v))
}

fn tags(s: &mut Scan<'_>) -> Option<Option<Vec<String>>> {
    s.ws();
    if s.lit(b"null") {
        return Some(None);
    }
    let mut out = Vec::new();
    s.array(|s| {
        out.push(s.string()?.to_owned());
        Some(())
    })?;
    Some(Some(out))
}

fn opt_links(s: &mut Scan<'_>) -> Option<Option<Vec<Link>>> {
    s.ws();
    if s.lit(b"null") {
        return Some(None);
    }
    let mut out = Vec::new();
    s.array(|s| {
        let mut link = Link::default();
        let mut seen = 0u64;
        s.object(|s, key| {
            let bit = match key {
                "rel" => {
                    link.rel = s.string()?.to_owned();
                    0
                }
                "href" => {
                    link.href = s.string()?.to_owned();
                    1
                }
                _ => return skip(s, 3),
            };
            first(&mut seen, bit)
        })?;
        out.push(link);
        Some(())
    })?;
    Some(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::decode_page_serde;
    use crate::models::Model;

    /// The scanner's page, if it reads it, equals serde's: every typed field and every
    /// item's text.
    fn agree(body: &str) -> bool {
        let serde = decode_page_serde::<Alert>("/p", body.as_bytes(), None);
        let Some((items, total, links)) = alert_page(body.as_bytes()) else {
            return false;
        };
        let serde =
            serde.unwrap_or_else(|e| panic!("the scanner read what serde refuses: {e}\n{body}"));
        assert_eq!(total, serde.total_count, "{body}");
        assert_eq!(links, serde.links, "{body}");
        assert_eq!(items.len(), serde.items.len(), "{body}");
        for ((a, range), b) in items.iter().zip(&serde.items) {
            assert_eq!(&body[range.clone()], b.raw_json(), "{body}");
            let mut a = a.clone();
            a.set_raw(b.raw_json().into());
            assert_eq!(&a, b, "{body}");
        }
        true
    }

    const ITEM: &str = r#"{"alertConfigId":"c1","created":"2019-11-29T20:26:30Z","currentValue":{"number":1.5e2,"units":"RAW"},"eventTypeName":"OUTSIDE_METRIC_THRESHOLD","groupId":"g1","hostId":"h1","hostnameAndPort":"db1:27017","id":"a1","lastNotified":"2020-04-09T20:21:00.123Z","links":[{"href":"https://om/api/public/v1.0/globalAlerts/a1","rel":"self"}],"metricName":"CONNECTIONS","replicaSetName":"rs0","status":"OPEN","tags":["x","y"],"typeName":"HOST_METRIC","updated":"2019-11-29T20:26:30Z","brandNew":{"nested":[1,2,{"k":null}]}}"#;

    #[test]
    fn documented_and_simulated_pages_agree_with_serde() {
        let fixture = std::fs::read_to_string(format!(
            "{}/tests/fixtures/list-global-alerts.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        assert!(agree(&fixture));
        let page = format!(r#"{{"links":[],"results":[{ITEM},{ITEM}],"totalCount":2}}"#);
        assert!(agree(&page));
        let spaced = format!(" {{ \"totalCount\" : 1 ,\n\"results\" : [ {ITEM} ] }} ");
        assert!(agree(&spaced));
        assert!(agree(r#"{"results":[],"totalCount":null}"#));
        assert!(agree(r#"{"results":[{}],"links":null}"#));
        assert!(agree(
            r#"{"results":[{"status":"SOMETHING_NEW","currentValue":null,"tags":null,"links":null,"id":null}]}"#
        ));
    }

    #[test]
    fn the_unusual_is_left_to_serde() {
        for body in [
            r#"{"results":[{"id":"a\"1"}]}"#,                      // an escape
            r#"{"results":[{"id":"a1","id":"a2"}]}"#,              // a duplicate field
            r#"{"results":[{"id":1}]}"#,                           // another type
            r#"{"results":[{"currentValue":{"number":1e999}}]}"#,  // beyond f64
            r#"{"results":[{"created":"2019-02-30T00:00:00Z"}]}"#, // no such day
            r#"{"results":[{"x":tru}]}"#,                          // not JSON
            r#"{"results":[{"id":"a1"}]} x"#,                      // trailing text
            r#"{"results":[{"id":"a1"},]}"#,                       // trailing comma
            r#"{"results":null}"#,
            r#"{"totalCount":1}"#,            // no results
            r#"{"results":[],"results":[]}"#, // a repeated page key
            r#"{"results":[],"totalCount":1.0}"#,
            r#"{"results":[],"totalCount":-1}"#,
            r#"{"results":[{"links":[{"rel":null}]}]}"#,
            r#"{"results":[{"tags":[1]}]}"#,
        ] {
            assert!(alert_page(body.as_bytes()).is_none(), "{body}");
        }
        let deep = format!(
            r#"{{"results":[{{"x":{}{}}}]}}"#,
            "[".repeat(127),
            "]".repeat(127)
        );
        assert!(
            alert_page(deep.as_bytes()).is_none(),
            "at the nesting limit"
        );
        let shallow = format!(
            r#"{{"results":[{{"x":{}{}}}]}}"#,
            "[".repeat(126),
            "]".repeat(126)
        );
        assert!(agree(&shallow), "just under it");
    }

    #[test]
    fn mutated_pages_are_read_as_serde_reads_them_or_left_to_it() {
        // Every single-byte change of a page, and every truncation: what the scanner reads,
        // serde reads the same (`agree` panics otherwise).
        let page = format!(r#"{{"links":[],"results":[{ITEM}],"totalCount":1}}"#);
        let bytes = page.as_bytes();
        let mut read = 0;
        for i in 0..bytes.len() {
            for b in [b'"', b',', b'}', b']', b'1', b' ', b'\\', b'x', b'n'] {
                let mut m = bytes.to_vec();
                m[i] = b;
                if let Ok(text) = std::str::from_utf8(&m) {
                    read += usize::from(agree(text));
                }
            }
            read += usize::from(agree(&page[..i]));
        }
        assert!(read > 100, "{read}");
    }
}
