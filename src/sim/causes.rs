//! The seeded causes as truths (`world/causes.rs` seeds them): what an alert's context and
//! the capacity report must name beside what happened.

use super::world::Causes;
use super::Simulator;

impl Simulator {
    /// The causes the world was seeded with: the election before each replication-lag
    /// alert (and the one that ended each no-primary alert), every host's last restart, and Atlas's compute auto-scaling (see
    /// [`Causes`]). Event ids are the flavour's: on Atlas a restart's is its
    /// `CLUSTER_INSTANCE_RESTARTED` (`atlas_event_id`), and Ops Manager and Cloud Manager serve
    /// no auto-scaling.
    ///
    /// ```
    /// let sim = opsapi::sim::Simulator::start(Default::default()).unwrap();
    /// let causes = sim.cause_truth();
    /// let lag: Vec<_> = sim.alert_truth().metric_alerts.into_iter()
    ///     .filter(|a| a.metric_name == "OPLOG_REPLICATION_LAG_TIME").collect();
    /// let before: Vec<_> = causes.elections.iter().filter(|e| !e.ends).collect();
    /// assert_eq!(before.len(), lag.len());
    /// assert!(before.iter().all(|e| lag.iter().any(|a| a.alert_id == e.alert_id)));
    /// ```
    pub fn cause_truth(&self) -> Causes {
        self.shared.world_read().causes.clone()
    }
}
