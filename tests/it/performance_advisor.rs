//! `client.performance_advisor()`: the namespaces, slow query logs and suggested indexes of a
//! host, each flavour's request (Atlas: its process, `hostname:port`) with the window and
//! filters as the services document them, what each log line says read independently of the
//! client's reader, the filters' effect on what comes back, and argument errors before any
//! request.

use chrono::Duration;
use opsapi::api::performance_advisor::AdvisorQuery;
use opsapi::sim::Simulator;
use opsapi::{Error, Flavour, IsoDuration};
use serde_json::Value;

use crate::common::{api_error, authorized, fixed_now, sim};
use crate::flavours::{api_requests, client_of, sim_of};

/// A primary with an application's databases (it has a workload), by the flavour's id.
fn primary(sim: &Simulator) -> (String, String) {
    let h = sim
        .world()
        .hosts
        .into_iter()
        .find(|h| h.type_name.ends_with("_PRIMARY") && h.databases.len() > 3)
        .unwrap();
    let id = if sim.flavour() == Flavour::Atlas {
        h.process_id()
    } else {
        h.id.clone()
    };
    (h.group_id, id)
}

#[tokio::test]
async fn each_flavour_asks_its_path_with_the_documented_query() {
    let since = fixed_now() - Duration::hours(6);
    for flavour in Flavour::ALL {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let (g, h) = primary(&sim);
        let q = AdvisorQuery::new()
            .since(since)
            .duration("PT2H".parse::<IsoDuration>().unwrap())
            .namespace("orders.users")
            .namespace("orders.items")
            .n_logs(7);
        c.groups().list().await.unwrap(); // the handshake or the token first
        sim.clear_requests();
        c.performance_advisor()
            .slow_query_logs(&g, &h, &q)
            .await
            .unwrap();
        let sent = api_requests(&sim);
        let hosts = if flavour == Flavour::Atlas {
            "processes"
        } else {
            "hosts"
        };
        let path = format!(
            "{}/groups/{g}/{hosts}/{}/performanceAdvisor/slowQueryLogs",
            flavour.api_path(),
            h.replace(':', "%3A")
        );
        let query = format!(
            "since={}&duration=7200000&namespaces=orders.users&namespaces=orders.items&nLogs=7",
            since.timestamp_millis()
        );
        assert_eq!(sent.len(), 1, "{flavour}");
        assert_eq!(
            (sent[0].path.as_str(), sent[0].query.as_deref()),
            (path.as_str(), Some(query.as_str())),
            "{flavour}"
        );
    }
}

/// What a structured log line says, read here on its own: (namespace, duration, examined,
/// returned, plan).
fn read(line: &str) -> (String, i64, i64, i64, String) {
    let v: Value = serde_json::from_str(line).unwrap();
    let a = &v["attr"];
    (
        a["ns"].as_str().unwrap().to_string(),
        a["durationMillis"].as_i64().unwrap(),
        a["docsExamined"].as_i64().unwrap(),
        a["nreturned"].as_i64().unwrap(),
        a["planSummary"].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn slow_query_logs_say_what_their_lines_say_in_the_window_asked() {
    let sim = sim();
    let c = client_of(&sim);
    let (g, h) = primary(&sim);
    let advisor = c.performance_advisor();
    let day = advisor
        .slow_query_logs(&g, &h, &AdvisorQuery::new())
        .await
        .unwrap();
    let rows = day.rows();
    assert!(rows.len() > 10, "{}", rows.len());
    for (row, q) in rows.iter().zip(day.slow_queries.as_ref().unwrap()) {
        let (ns, ms, examined, returned, plan) = read(q.line.as_deref().unwrap());
        assert_eq!(row.namespace.as_deref(), Some(ns.as_str()));
        assert_eq!(q.namespace.as_deref(), Some(ns.as_str()));
        assert_eq!(row.duration_ms, Some(ms));
        assert!(ms >= 100, "a slow query: {ms} ms");
        assert_eq!(
            (row.docs_examined, row.docs_returned),
            (Some(examined), Some(returned))
        );
        assert_eq!(row.plan_summary.as_deref(), Some(plan.as_str()));
        let t = row.timestamp.unwrap();
        assert!(
            fixed_now() - Duration::hours(24) <= t && t <= fixed_now(),
            "{t}"
        );
    }
    // Newest first.
    assert!(rows.windows(2).all(|w| w[0].timestamp >= w[1].timestamp));

    // Two hours from six hours ago, one namespace, at most three lines.
    let ns = rows[0].namespace.clone().unwrap();
    let since = fixed_now() - Duration::hours(6);
    let q = AdvisorQuery::new()
        .since(since)
        .duration(IsoDuration::from_seconds(7200))
        .namespace(ns.clone());
    let window = advisor.slow_query_logs(&g, &h, &q).await.unwrap().rows();
    assert!(!window.is_empty());
    for row in &window {
        let t = row.timestamp.unwrap();
        assert!(since <= t && t <= since + Duration::hours(2), "{t}");
        assert_eq!(row.namespace.as_deref(), Some(ns.as_str()));
    }
    let capped = advisor
        .slow_query_logs(&g, &h, &q.clone().n_logs(1))
        .await
        .unwrap()
        .rows();
    assert_eq!(capped, window[..1]);
    let names = advisor
        .namespaces(&g, &h, &AdvisorQuery::new())
        .await
        .unwrap();
    let mut seen: Vec<&str> = rows.iter().filter_map(|r| r.namespace.as_deref()).collect();
    seen.sort_unstable();
    seen.dedup();
    let listed: Vec<&str> = names
        .iter()
        .filter_map(|n| n.namespace.as_deref())
        .collect();
    assert_eq!(
        listed, seen,
        "the day's namespaces are those of its slow queries"
    );
    assert!(names
        .iter()
        .all(|n| n.r#type.as_deref() == Some("COLLECTION")));
}

#[tokio::test]
async fn suggested_indexes_name_the_shapes_they_serve_and_the_scans_they_spare() {
    for flavour in [Flavour::OpsManager, Flavour::Atlas] {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let (g, h) = primary(&sim);
        let advisor = c.performance_advisor();
        let q = AdvisorQuery::new().n_examples(2);
        let s = advisor.suggested_indexes(&g, &h, &q).await.unwrap();
        let (indexes, shapes) = (s.indexes.unwrap(), s.shapes.unwrap());
        assert!(!indexes.is_empty(), "{flavour}: the workload has a scan");
        let logs = advisor
            .slow_query_logs(&g, &h, &AdvisorQuery::new())
            .await
            .unwrap();
        for index in &indexes {
            let impact = index.impact.as_ref().unwrap();
            let shape = shapes
                .iter()
                .find(|s| s.id.as_deref() == impact.first().map(String::as_str))
                .expect("an index's impact is a shape of the answer");
            assert_eq!(shape.namespace, index.namespace);
            let ops = shape.operations.as_ref().unwrap();
            assert!(!ops.is_empty() && ops.len() <= 2, "{flavour}: n_examples");
            // The index's keys are the fields its shape's queries filter on, in order.
            let predicate = ops[0]["predicates"][0].as_object().unwrap();
            let filter = predicate.values().next().unwrap().as_object().unwrap();
            let keys: Vec<Value> = filter
                .keys()
                .map(|k| serde_json::json!({ k.clone(): 1 }))
                .collect();
            let mut ours = index.index.clone().unwrap();
            ours.sort_by_key(|k| k.to_string());
            let mut want = keys;
            want.sort_by_key(|k| k.to_string());
            assert_eq!(ours, want, "{flavour}");
            // Each scans its collection: the day's log lines of its namespace say so.
            let count = logs
                .rows()
                .iter()
                .filter(|r| {
                    r.namespace == index.namespace && r.plan_summary.as_deref() == Some("COLLSCAN")
                })
                .count();
            assert!(count as i64 >= shape.count.unwrap(), "{flavour}");
            // Ops Manager shows each example's log line; Atlas a weight and the average size.
            if flavour == Flavour::Atlas {
                assert!(ops[0].get("raw").is_none());
                assert!(index.weight.unwrap() > 0.0 && index.avg_obj_size.is_some());
            } else {
                let (ns, ..) = read(ops[0]["raw"].as_str().unwrap());
                assert_eq!(Some(ns), index.namespace.clone());
                assert_eq!(index.weight, None);
            }
        }
        let one = advisor
            .suggested_indexes(&g, &h, &AdvisorQuery::new().n_indexes(1))
            .await
            .unwrap();
        assert_eq!(one.indexes.unwrap().len(), 1, "{flavour}: n_indexes");
    }
}

#[tokio::test]
async fn bad_arguments_are_refused_before_any_request() {
    let sim = sim();
    let c = client_of(&sim);
    let (g, h) = primary(&sim);
    let advisor = c.performance_advisor();
    sim.clear_requests();
    let long_ago = fixed_now() - Duration::days(365 * 30);
    let cases: Vec<(AdvisorQuery, &str, bool)> = vec![
        (AdvisorQuery::new().n_logs(20_001), "n_logs", true),
        (
            AdvisorQuery::new().namespace("users"),
            "namespaces[0]",
            true,
        ),
        (AdvisorQuery::new().since(long_ago), "since", true),
        (
            AdvisorQuery::new().duration("P1M".parse().unwrap()),
            "duration",
            true,
        ),
        (AdvisorQuery::new().n_indexes(3), "n_indexes", true),
        (
            AdvisorQuery::new().namespace("orders.users"),
            "namespaces",
            false,
        ),
    ];
    for (q, argument, logs) in cases {
        let e = if logs {
            advisor.slow_query_logs(&g, &h, &q).await.unwrap_err()
        } else {
            advisor.namespaces(&g, &h, &q).await.unwrap_err()
        };
        match e {
            Error::InvalidArgument { argument: a, .. } => assert_eq!(a, argument),
            other => panic!("{argument}: {other}"),
        }
    }
    assert!(authorized(&sim).is_empty());
    // An unknown host is the server's 404.
    let e = advisor
        .namespaces(&g, "0000000000000000", &AdvisorQuery::new())
        .await
        .unwrap_err();
    assert_eq!(
        (api_error(&e).status, api_error(&e).error_code.as_deref()),
        (404, Some("HOST_NOT_FOUND"))
    );
}
