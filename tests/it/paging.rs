//! Paging: every page fetched, in server order, by `list` and by the lazy `stream`; a repeated
//! page (with or without ids) or a wrong total is a paging error, never a shorter list.

use futures_util::TryStreamExt;
use opsapi::sim::{Aim, Fault, SimConfig};
use opsapi::{Client, Error, GlobalAlertsQuery};

use crate::common::{authorized, client, query_pairs, start, API};
use crate::loopback::SamePage;

#[tokio::test]
async fn every_page_is_fetched_in_order() {
    let sim = start(SimConfig {
        global_alerts: 1234,
        ..SimConfig::default()
    });
    let c = client(&sim);
    let all = c
        .global_alerts()
        .list(&GlobalAlertsQuery::new())
        .await
        .unwrap();
    assert_eq!(all.len(), 1234);
    assert_eq!(all.total_count(), 1234);
    let ids: Vec<&str> = all.iter().map(|a| a.id.as_deref().unwrap()).collect();
    let world = sim.world();
    let want: Vec<&str> = world.alerts.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, want, "server order kept across pages");
    let mut pages: Vec<String> = authorized(&sim)
        .iter()
        .map(|r| {
            query_pairs(r)
                .into_iter()
                .find(|(k, _)| k == "pageNum")
                .unwrap()
                .1
        })
        .collect();
    pages.sort();
    assert_eq!(pages, vec!["1", "2", "3"]);

    // The lazy stream gives the same items.
    let streamed: Vec<_> = c
        .global_alerts()
        .stream(&GlobalAlertsQuery::new())
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed.len(), 1234);
    assert_eq!(streamed[1233].id, all[1233].id);
}

/// A simulator of 1500 global alerts (3 pages of 500) whose page `page` of `GET /globalAlerts`
/// answers with `fault`, aimed at that request so that nothing else can use it up, and a
/// client that has done its handshake.
async fn listing_with(fault: Fault, page: u32) -> (opsapi::sim::Simulator, Client) {
    let sim = start(SimConfig {
        global_alerts: 1500,
        ..SimConfig::default()
    });
    let c = client(&sim);
    c.groups().list().await.unwrap();
    sim.inject_at(Aim::get("/globalAlerts").page(page), fault, 1);
    (sim, c)
}

#[tokio::test]
async fn a_repeated_page_or_a_wrong_total_is_an_error_not_a_short_list() {
    // Each case on a simulator of its own: a page request of an earlier call still in flight
    // when the call ended in its error cannot strike the next case.
    let (sim, c) = listing_with(Fault::RepeatFirstPage, 2).await;
    let err = c
        .global_alerts()
        .list(&GlobalAlertsQuery::new())
        .await
        .map(|l| l.len())
        .unwrap_err();
    assert!(matches!(err, Error::Paging { .. }), "{err:?}");
    // Caught by the page's fingerprint, before the ids are compared.
    assert!(
        err.to_string()
            .ends_with("page 2 holds the same items as page 1: the server repeated a page"),
        "{err}"
    );
    assert!(sim.injected().is_empty());

    let (sim, c) = listing_with(Fault::WrongTotalCount(1800), 1).await;
    let err = c
        .global_alerts()
        .list(&GlobalAlertsQuery::new())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Paging { .. }), "{err:?}");
    assert!(
        err.to_string().contains("1800") && err.to_string().contains("1500"),
        "{err}"
    );
    assert!(sim.injected().is_empty());

    let (sim, c) = listing_with(Fault::RepeatFirstPage, 3).await;
    let mut stream = c.global_alerts().stream(&GlobalAlertsQuery::new()).unwrap();
    let mut n = 0;
    let err = loop {
        match stream.try_next().await {
            Ok(Some(_)) => n += 1,
            Ok(None) => panic!("the stream ended after {n} items without error"),
            Err(e) => break e,
        }
    };
    assert!(matches!(err, Error::Paging { .. }), "{err:?}");
    // Pages 1 and 2 were handed over before page 3 came back as page 1 again.
    assert_eq!(n, 1000);
    let first = sim.world().alerts[0].id.clone();
    assert_eq!(
        err.to_string(),
        format!(
            "inconsistent paging on /globalAlerts: item `{first}` arrived on page 1 and again \
             on page 3: the server repeated a page"
        )
    );
    assert!(sim.injected().is_empty());
}

#[tokio::test]
async fn every_page_the_same_without_ids_is_a_paging_error_for_list_and_stream() {
    let server = SamePage::start();
    let c = Client::builder(format!("http://127.0.0.1:{}", server.port))
        .credentials("public", "private-key")
        .build()
        .unwrap();
    let err = c.hosts().partitions("g", "h").await.unwrap_err();
    let disks = format!("{API}/groups/g/hosts/h/disks");
    assert_eq!(
        err.to_string(),
        "inconsistent paging on /groups/g/hosts/h/disks: page 2 holds the same items as page \
         1: the server repeated a page"
    );
    let seen = server.requests();
    assert_eq!(
        seen[0],
        format!("GET {disks}?pageNum=1&itemsPerPage=500 unsigned")
    );
    assert_eq!(
        seen[1],
        format!("GET {disks}?pageNum=1&itemsPerPage=500 signed")
    );
    assert!(seen[2..].iter().all(|s| s.ends_with(" signed")), "{seen:?}");
    // Pages 2 and on were asked for concurrently; no more than max_concurrency of them.
    assert!(seen.len() <= 2 + 8, "{seen:?}");

    let mut stream = c.global_alerts().stream(&GlobalAlertsQuery::new()).unwrap();
    let mut items = 0;
    let err = loop {
        match stream.try_next().await {
            Ok(Some(_)) => items += 1,
            Ok(None) => panic!("the stream ended after {items} items"),
            Err(e) => break e,
        }
    };
    assert_eq!(items, 2, "page 1's items, and no duplicate");
    assert!(matches!(err, Error::Paging { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "inconsistent paging on /globalAlerts: page 2 holds the same items as page 1: the \
         server repeated a page"
    );
    // (Late requests of the aborted listing may still arrive: only /globalAlerts counts.)
    let alerts: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.contains("/globalAlerts"))
        .collect();
    assert_eq!(
        alerts,
        [
            format!("GET {API}/globalAlerts?pageNum=1&itemsPerPage=500 signed"),
            format!("GET {API}/globalAlerts?pageNum=2&itemsPerPage=500 signed"),
        ]
    );
}
