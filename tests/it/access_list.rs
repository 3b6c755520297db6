//! `client.access_list()`: deleting an entry, and deleting it again.

use crate::common::{authorized, client, sim, API};

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
