//! One resource's whole stored history across the granularities a sync keeps
//! ([`super::SyncOptions::keep`]): the finest where it exists, the coarser before, so that a
//! forecast sees months of hourly or daily points behind the server's few days of minutes.
//!
//! For each target, granularities are taken finest first: each contributes its points from
//! before the first stored point of every finer one. A file wholly after that bound is not
//! read; one that straddles it is read up to it.

use std::collections::BTreeMap;

use polars::prelude::*;

use super::manifest::{self, Key, TargetState};
use super::{check, contain, Kind, Live, Store};
use crate::api::measurements::query::Granularity;
use crate::error::{Error, Result};
use crate::frame::{key_column, polars_err, LONG_COLUMNS};

/// One file of a history: the file, its granularity, and the bound its points must be before
/// (none: all of them).
pub(crate) struct HistoryFile {
    pub(crate) live: Live,
    pub(crate) granularity: Granularity,
    pub(crate) before: Option<i64>,
}

/// A target without its granularity: what a history is of.
type Resource = (Kind, String, String, Option<String>);

impl Store {
    /// The files of one manifest that make up every `kind` target's history over
    /// `granularities` (any order; each file checked for reading).
    pub(crate) fn history_files(
        &self,
        kind: Kind,
        granularities: &[Granularity],
    ) -> Result<Vec<HistoryFile>> {
        let mut order = granularities.to_vec();
        order.sort_by_key(|g| g.seconds());
        order.dedup();
        let state = manifest::load(&self.root)?;
        let mut by_resource: BTreeMap<Resource, Vec<(&Key, &TargetState)>> = BTreeMap::new();
        for (key, t) in &state.targets {
            if key.kind != kind || !order.iter().any(|g| g.as_str() == key.granularity) {
                continue;
            }
            let r = (
                key.kind,
                key.group_id.clone(),
                key.host_id.clone(),
                key.name.clone(),
            );
            by_resource.entry(r).or_default().push((key, t));
        }
        let mut root = contain::Root::new(&self.root);
        let mut out = Vec::new();
        for tiers in by_resource.values() {
            let mut bound: Option<i64> = None;
            for g in &order {
                let Some((key, t)) = tiers.iter().find(|(k, _)| k.granularity == g.as_str()) else {
                    continue;
                };
                for f in &t.files {
                    if bound.is_some_and(|b| f.first >= b) {
                        continue;
                    }
                    let path =
                        check::for_reading(&mut root, f).map_err(|problem| Error::StoreFile {
                            path: self.root.join(&f.name),
                            problem,
                        })?;
                    out.push(HistoryFile {
                        live: Live {
                            path,
                            key: (*key).clone(),
                        },
                        granularity: *g,
                        before: bound.filter(|b| f.last >= *b),
                    });
                }
                if let Some(first) = t.first() {
                    bound = Some(bound.map_or(first, |b| b.min(first)));
                }
            }
        }
        Ok(out)
    }

    /// Every `kind` target's whole stored history over `granularities` (the finest where it
    /// exists, the coarser before) as one long frame with a `granularity` column (Categorical,
    /// before `timestamp`). Python's `Store.scan(kind=, granularity=(...))` is the lazy reader.
    ///
    /// ```
    /// use opsapi::store::{Kind, Store};
    /// use opsapi::Granularity;
    /// let dir = tempfile::tempdir().unwrap();
    /// let store = Store::new(dir.path().join("never-synced"));
    /// let h = store.read_history(Kind::Host, &[Granularity::PT1M, Granularity::PT1H]).unwrap();
    /// assert_eq!(h.height(), 0);
    /// ```
    pub fn read_history(&self, kind: Kind, granularities: &[Granularity]) -> Result<DataFrame> {
        let files = self.history_files(kind, granularities)?;
        let frames = files.iter().map(|f| {
            let mut df = super::long_of_file(&f.live.path, &f.live.key)?;
            if let Some(b) = f.before {
                let ts = df
                    .column("timestamp")
                    .and_then(|c| c.cast(&DataType::Int64))
                    .map_err(polars_err)?;
                let mask = ts.i64().map_err(polars_err)?.lt(b);
                df = df.filter(&mask).map_err(polars_err)?;
            }
            with_granularity(df, f.granularity)
        });
        let stacked = crate::frame::stack_frames(frames)?;
        if files.is_empty() {
            // The empty long frame, with the column all the same.
            return with_granularity(stacked, Granularity::PT1H);
        }
        Ok(stacked)
    }
}

/// The long frame with its granularity as a column before `timestamp`.
fn with_granularity(mut df: DataFrame, granularity: Granularity) -> Result<DataFrame> {
    let n = df.height();
    let g = key_column(
        "granularity",
        std::iter::repeat_n(Some(granularity.as_str()), n),
    )?;
    let at = LONG_COLUMNS
        .iter()
        .position(|c| *c == "timestamp")
        .unwrap_or(df.width())
        .min(df.width());
    df.insert_column(at, g).map_err(polars_err)?;
    Ok(df)
}
