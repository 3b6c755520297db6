//! Query parameters, decoded, in order.

/// Query parameters, decoded, in order.
pub(crate) struct Query<'a> {
    pub(crate) raw: Option<&'a str>,
    pub(crate) pairs: Vec<(String, String)>,
}

impl<'a> Query<'a> {
    pub(crate) fn parse(raw: Option<&'a str>) -> Self {
        let pairs = raw
            .map(|q| {
                url::form_urlencoded::parse(q.as_bytes())
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        Self { raw, pairs }
    }

    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn all(&self, name: &str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    pub(crate) fn flag(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    /// The raw query without the paging parameters (kept as sent).
    pub(crate) fn raw_without_paging(&self) -> Vec<&'a str> {
        self.raw
            .map(|q| {
                q.split('&')
                    .filter(|kv| {
                        let k = kv.split('=').next().unwrap_or("");
                        !kv.is_empty() && k != "pageNum" && k != "itemsPerPage"
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}
