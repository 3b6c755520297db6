//! The simulator's flavours ([`SimConfig::flavour`]): its Atlas token buckets and what a
//! client of Atlas needs (the API's address, the service account). The server's side is
//! `server/atlas.rs`.

use super::Simulator;

/// A token bucket of the Atlas simulator: `capacity` requests, refilled at `per_minute`, by
/// the simulator's clock.
///
/// ```
/// use opsapi::{sim::TokenBucket, EndpointSet};
/// let documented = TokenBucket::documented();
/// assert_eq!(documented[0], (EndpointSet::Monitoring, TokenBucket { capacity: 300, per_minute: 100.0 }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenBucket {
    /// Requests the bucket holds (and starts with).
    pub capacity: u32,
    /// Requests it gets back a minute.
    pub per_minute: f64,
}

impl TokenBucket {
    /// Atlas's documented buckets: monitoring and logs 300 (refilled at 100 a minute),
    /// alerts 1 200 (500 a minute), events 300 (100 a minute), Performance Advisor 1 200 (500
    /// a minute; the API's rate-limit page, "Performance Advisor", scope GROUP).
    pub fn documented() -> Vec<(crate::EndpointSet, TokenBucket)> {
        use crate::EndpointSet::*;
        let b = |capacity, per_minute| TokenBucket {
            capacity,
            per_minute,
        };
        vec![
            (Monitoring, b(300, 100.0)),
            (Alerts, b(1200, 500.0)),
            (Events, b(300, 100.0)),
            (PerformanceAdvisor, b(1200, 500.0)),
        ]
    }
}

impl Simulator {
    /// The flavour it serves the world as.
    pub fn flavour(&self) -> crate::Flavour {
        self.shared.config.flavour
    }

    /// The address of its API: [`Simulator::base_url`] and the flavour's path
    /// (`/api/public/v1.0`, `/api/atlas/v2`).
    pub fn api_url(&self) -> String {
        format!("{}{}", self.base_url, self.flavour().api_path())
    }

    /// The service account's client id (Atlas: `POST /api/oauth/token` with it and
    /// [`Simulator::client_secret`] buys an access token).
    ///
    /// ```
    /// use opsapi::{sim::{SimConfig, Simulator}, Client, Flavour};
    /// let sim = Simulator::start(SimConfig { flavour: Flavour::Atlas, ..SimConfig::default() }).unwrap();
    /// let client = Client::atlas()
    ///     .base_url(sim.base_url())
    ///     .service_account(sim.client_id(), sim.client_secret())
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(client.base_url(), sim.api_url());
    /// ```
    pub fn client_id(&self) -> &str {
        &self.shared.keys.client_id
    }

    /// The service account's client secret.
    pub fn client_secret(&self) -> &str {
        &self.shared.keys.client_secret
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimConfig;

    #[test]
    fn the_service_account_is_seeded_apart_from_the_keys() {
        let sim = Simulator::start(SimConfig::default()).unwrap();
        let again = Simulator::start(SimConfig {
            seed: 1,
            ..SimConfig::default()
        })
        .unwrap();
        assert!(sim.client_id().starts_with("mdb_sa_id_"));
        assert!(sim.client_secret().starts_with("mdb_sa_sk_"));
        assert_ne!(sim.client_secret(), again.client_secret());
        assert_eq!(sim.api_url(), format!("{}/api/public/v1.0", sim.base_url()));
        assert!(!format!("{sim:?}").contains(sim.client_secret()));
    }
}
