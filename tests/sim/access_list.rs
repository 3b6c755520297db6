//! The simulator's access list: deleting an entry, and deleting it again.

use crate::common::{sim, Api, PREFIX};

#[tokio::test]
async fn delete_access_list_entry_twice() {
    let sim = sim();
    let api = Api::owner(&sim);
    let id = sim.world().access_list[0].id.clone();
    let uri = format!("{PREFIX}/admin/accessList/{id}");
    let r = api.send("DELETE", &uri, None).await;
    assert_eq!(r.status, 204);
    assert!(r.body.is_empty());
    assert!(r.header("x-mongodb-service-version").is_some());
    let r = api.send("DELETE", &uri, None).await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (404, "ACCESS_LIST_NOT_FOUND")
    );
    assert!(sim.world().access_list.iter().all(|e| e.id != id));
}
