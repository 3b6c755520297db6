//! The global API access list.

use super::*;

/// The operations this file's handlers serve (`super::HANDLERS`).
pub(super) const SERVES: &[Serve] = &[
    (Operation::AccessListList, |c, _, _| c.access_list()),
    (Operation::AccessListDelete, |c, p, _| {
        c.delete_access_list_entry(p.get("entry_id"))
    }),
];

impl Ctx<'_> {
    /// `DELETE /admin/accessList/{entry_id}`: 204, or 404 `ACCESS_LIST_NOT_FOUND`.
    pub(crate) fn delete_access_list_entry(&self, id: &str) -> Reply {
        let mut w = self.shared.world.write().unwrap_or_else(|e| e.into_inner());
        let before = w.access_list.len();
        w.access_list.retain(|e| e.id != id);
        let removed = w.access_list.len() < before;
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        drop(w);
        if !removed {
            return err(
                404,
                "ACCESS_LIST_NOT_FOUND",
                format!("IP address {id} not on access list for user {}.", self.user),
                vec![json!(id), json!(self.user)],
            );
        }
        let mut r = Reply::json(204, Vec::new());
        r.content_type = "application/json";
        r
    }

    /// `GET /admin/accessList`, every page.
    pub(crate) fn access_list(&self) -> Reply {
        let w = self.world();
        let items: Vec<_> = w.access_list.iter().collect();
        let reply = self.list(items, |e| self.access_list_entry_json(e));
        drop(w);
        reply
    }

    /// An entry as the API shows it.
    fn access_list_entry_json(&self, e: &AccessListEntry) -> Value {
        json!({
            "cidrBlock": e.cidr_block,
            "created": iso(&e.created),
            "description": e.description,
            "id": e.id,
            "links": [link(self.url(&format!("/admin/accessList/{}", e.id)), "self")],
        })
    }
}
