//! `client.access_list()`: listing every entry, deleting an entry, and deleting it again.

use crate::common::{authorized, client, seen, sim, warm, API};

#[tokio::test]
async fn list_access_list_sends_one_page_request_and_returns_every_seeded_entry() {
    let sim = sim();
    let c = warm(&sim).await;
    let list = c.access_list().list().await.unwrap();
    assert_eq!(
        seen(&sim),
        ["GET /admin/accessList?pageNum=1&itemsPerPage=500 signed 200"]
    );
    assert!(authorized(&sim)[0].body.is_empty(), "a GET without a body");
    let world = sim.world();
    assert_eq!(list.total_count(), world.access_list.len() as u64);
    let got: Vec<_> = list
        .iter()
        .map(|e| {
            (
                e.id.as_deref().unwrap(),
                e.cidr_block.as_deref().unwrap(),
                e.description.as_deref().unwrap(),
                e.created.unwrap(),
            )
        })
        .collect();
    let want: Vec<_> = world
        .access_list
        .iter()
        .map(|e| {
            (
                e.id.as_str(),
                e.cidr_block.as_str(),
                e.description.as_str(),
                e.created,
            )
        })
        .collect();
    assert_eq!(got, want, "every entry, in the server's order");

    // After a deletion the listing is the simulator's list without it.
    let gone = world.access_list[2].id.clone();
    c.access_list().delete(&gone).await.unwrap();
    sim.clear_requests();
    let after = c.access_list().list().await.unwrap();
    let got: Vec<&str> = after.iter().map(|e| e.id.as_deref().unwrap()).collect();
    let want: Vec<&str> = world
        .access_list
        .iter()
        .map(|e| e.id.as_str())
        .filter(|id| *id != gone)
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        sim.world()
            .access_list
            .iter()
            .map(|e| e.id.as_str())
            .collect::<Vec<_>>(),
        want
    );
    assert_eq!(
        seen(&sim),
        ["GET /admin/accessList?pageNum=1&itemsPerPage=500 signed 200"]
    );
}

#[tokio::test]
async fn delete_an_access_list_entry_twice() {
    let sim = sim();
    let c = client(&sim);
    let id = sim.world().access_list[0].id.clone();
    c.access_list().delete(&id).await.unwrap();
    let req = authorized(&sim).pop().unwrap();
    assert_eq!((req.method.as_str(), req.status), ("DELETE", 204));
    assert_eq!(req.path, format!("{API}/admin/accessList/{id}"));
    let err = c.access_list().delete(&id).await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
    assert_eq!(err.error_code(), Some("ACCESS_LIST_NOT_FOUND"));
}
