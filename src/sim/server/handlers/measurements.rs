//! Host, disk and database measurements: the window, the catalog, the body rendered straight
//! into bytes, and the bounded cache of rendered bodies.

use super::*;
use crate::flavour::Operation;

/// The operations this file's handlers serve (`super::HANDLERS`).
pub(super) const SERVES: &[Serve] = &[
    (Operation::MeasurementsHost, |c, p, _| {
        c.host_measurements(p.group(), p.get("host_id"))
    }),
    (Operation::MeasurementsDisk, |c, p, _| {
        c.disk_measurements(p.group(), p.get("host_id"), p.get("partition_name"))
    }),
    (Operation::MeasurementsDatabase, |c, p, _| {
        c.database_measurements(p.group(), p.get("host_id"), p.get("database_name"))
    }),
];

impl Ctx<'_> {
    /// `GET /groups/{group_id}/hosts/{host_id}/measurements`.
    pub(crate) fn host_measurements(&self, g: &str, h: &str) -> Reply {
        match self.find_host(g, h) {
            Ok(host) => self.measurements(&host, Of::Host),
            Err(e) => e,
        }
    }

    /// `GET /groups/{group_id}/hosts/{host_id}/disks/{partition_name}/measurements`.
    pub(crate) fn disk_measurements(&self, g: &str, h: &str, d: &str) -> Reply {
        match self.find_host(g, h) {
            Ok(host) => match host.partitions.iter().position(|p| p.name == d) {
                Some(i) => self.measurements(&host, Of::Disk(i)),
                None => device_not_found(h, d),
            },
            Err(e) => e,
        }
    }

    /// `GET /groups/{group_id}/hosts/{host_id}/databases/{database_name}/measurements`.
    pub(crate) fn database_measurements(&self, g: &str, h: &str, d: &str) -> Reply {
        match self.find_host(g, h) {
            Ok(host) => match host.databases.iter().position(|x| x.name == d) {
                Some(i) => self.measurements(&host, Of::Database(i)),
                None => database_not_found(h, d),
            },
            Err(e) => e,
        }
    }

    fn measurements(&self, host: &Host, of: Of) -> Reply {
        let Some(gran) = self.query("granularity") else {
            return missing("granularity");
        };
        let step: i64 = match gran {
            "PT10S" => 10,
            "PT1M" => 60,
            "PT5M" => 300,
            "PT1H" => 3600,
            "P1D" => 86_400,
            other => {
                return err(
                    400,
                    "INVALID_GRANULARITY",
                    format!("An invalid granularity {other} was specified."),
                    vec![json!(other)],
                )
            }
        };
        if let Err(refused) = self.granularity_allowed(host, gran) {
            return refused;
        }
        let flavour = self.shared.config.flavour;
        let (period, start, end) = (self.query("period"), self.query("start"), self.query("end"));
        let now = self.shared.clock.now().timestamp();
        let (from, to) = match (period, start, end) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return err(
                    400,
                    "MUTUALLY_EXCLUSIVE_QUERY_PARAMETERS",
                    "The query parameters period and start/end are mutually exclusive.",
                    vec![json!("period"), json!("start"), json!("end")],
                )
            }
            (None, None, None) => return missing("period"),
            (None, Some(_), None) => return missing("end"),
            (None, None, Some(_)) => return missing("start"),
            (Some(p), None, None) => match parse_duration(p) {
                Some(secs) if secs <= 20.0 * 365.0 * 86_400.0 => (now - secs.ceil() as i64, now),
                _ => return invalid_period(),
            },
            (None, Some(s), Some(e)) => {
                let parse = |name: &str, v: &str| {
                    parse_time(v).map(|t| t.timestamp()).ok_or_else(|| {
                        err(
                            400,
                            "INVALID_QUERY_PARAMETER",
                            format!(
                                "An invalid value {v} was specified for query parameter {name}."
                            ),
                            vec![json!(name), json!(v)],
                        )
                    })
                };
                let s = match parse("start", s) {
                    Ok(t) => t,
                    Err(e) => return e,
                };
                let e = match parse("end", e) {
                    Ok(t) => t,
                    Err(e) => return e,
                };
                if s > e {
                    return invalid_period();
                }
                (s, e)
            }
        };
        // No point after the clock's now (a window that ends later gets what there is), and
        // what the server no longer holds at this granularity is left out.
        let to = to.min(now);
        let from = match self.shared.config.retention.oldest(step as u64, now) {
            Some(oldest) => from.max(oldest),
            None => from,
        };
        let first =
            from.div_euclid(step) * step + if from.rem_euclid(step) == 0 { 0 } else { step };
        let last = to.div_euclid(step) * step;
        let (catalog, op): (&[MetricDef], _) = match of {
            Of::Host => (HOST_METRICS, Operation::MeasurementsHost),
            Of::Disk(_) => (DISK_METRICS, Operation::MeasurementsDisk),
            Of::Database(_) => (DATABASE_METRICS, Operation::MeasurementsDatabase),
        };
        // The catalog as the flavour serves it: its names and units, what it has.
        let served: Vec<(usize, Face)> = catalog
            .iter()
            .enumerate()
            .filter_map(|(i, m)| Some((i, Face::of(flavour, op, m)?)))
            .collect();
        let wanted = self.query_all("m");
        if let Some(max) = flavour.max_measurements().filter(|max| wanted.len() > *max) {
            return err(
                400,
                "VALIDATION_ERROR",
                format!(
                    "The query parameter m takes at most {max} values; {} were given.",
                    wanted.len()
                ),
                vec![json!("m")],
            );
        }
        let metrics: Vec<(usize, Face)> = if wanted.is_empty() {
            served
        } else {
            let mut idx = Vec::with_capacity(wanted.len());
            for name in wanted {
                match served.iter().find(|(_, face)| face.name == name) {
                    Some(found) => idx.push(*found),
                    // A host or disk measurement asked of a database, as the service says it.
                    None if matches!(of, Of::Database(_))
                        && [Operation::MeasurementsHost, Operation::MeasurementsDisk]
                            .iter()
                            .any(|op| flavour.measurement_names(*op).contains(&name)) =>
                    {
                        return err(
                            404,
                            "NOT_DATABASE_OR_DISK_METRIC",
                            format!("The metric {name} is not a database or disk metric."),
                            vec![json!(name)],
                        )
                    }
                    None => {
                        return err(
                            404,
                            "INVALID_METRIC_NAME",
                            format!("An invalid metric name {name} was specified."),
                            vec![json!(name)],
                        )
                    }
                }
            }
            idx.sort_unstable_by_key(|(i, _)| *i);
            idx.dedup_by_key(|(i, _)| *i);
            idx
        };
        let points = if last >= first {
            (last - first) / step + 1
        } else {
            0
        };
        if points.saturating_mul(metrics.len() as i64) > MAX_POINTS {
            return err(
                400,
                "INVALID_PERIOD",
                format!(
                    "The requested window holds {points} points per measurement at {gran}; use a coarser granularity."
                ),
                vec![json!(gran)],
            );
        }
        let key = format!(
            "{}?{}#{first}-{last}",
            self.path,
            self.q
                .raw_without_paging()
                .into_iter()
                .filter(|kv| !kv.starts_with("period=")
                    && !kv.starts_with("start=")
                    && !kv.starts_with("end="))
                .collect::<Vec<_>>()
                .join("&")
        );
        // The self link carries the raw query, so it is part of the key too.
        let key = format!("{key}|{}", self.q.raw.unwrap_or(""));
        if self.shared.config.cache_bytes > 0 {
            if let Some(b) = lock(&self.shared.cache).map.get(&key) {
                return Reply::json(200, Vec::new()).with_body(b.clone());
            }
        }
        let world = self.world();
        let anchor = world.anchor.timestamp();
        drop(world);
        let src = Source {
            seed: self.shared.config.seed,
            host,
            partition: match of {
                Of::Disk(i) => Some((i, &host.partitions[i])),
                _ => None,
            },
            database: match of {
                Of::Database(i) => Some((i, &host.databases[i])),
                _ => None,
            },
            anchor,
        };
        let est = points as usize * metrics.len() * 52 + 1024;
        let mut out = Vec::with_capacity(est);
        if self.r.envelope && !self.r.pretty {
            out.extend_from_slice(b"{\"content\":");
        }
        out.extend_from_slice(b"{\"end\":\"");
        crate::sim::fmt::push_timestamp(&mut out, last.max(first));
        out.extend_from_slice(b"\",\"granularity\":");
        push_str(&mut out, gran);
        out.extend_from_slice(b",\"groupId\":");
        push_str(&mut out, &host.group_id);
        out.extend_from_slice(b",\"hostId\":");
        push_str(&mut out, &self.host_ref(host));
        out.extend_from_slice(b",\"links\":[{\"href\":");
        push_str(&mut out, &self.self_url());
        out.extend_from_slice(b",\"rel\":\"self\"},{\"href\":");
        push_str(&mut out, &self.url(&self.host_base(host)));
        out.extend_from_slice(b",\"rel\":\"http://mms.mongodb.com/host\"}],\"measurements\":");
        render_measurements(&mut out, &src, catalog, &metrics, (first, last, step));
        if let Some((_, p)) = src.partition {
            out.extend_from_slice(b",\"partitionName\":");
            push_str(&mut out, &p.name);
        }
        if let Some((_, d)) = src.database {
            out.extend_from_slice(b",\"databaseName\":");
            push_str(&mut out, &d.name);
        }
        out.extend_from_slice(b",\"processId\":");
        push_str(&mut out, &host.process_id());
        out.extend_from_slice(b",\"start\":\"");
        crate::sim::fmt::push_timestamp(&mut out, first);
        out.extend_from_slice(b"\"}");
        if self.r.envelope && !self.r.pretty {
            out.extend_from_slice(b",\"status\":200}");
        }
        let body = if self.r.pretty {
            match serde_json::from_slice::<Value>(&out) {
                Ok(v) => return self.r.entity(200, v),
                Err(_) => out,
            }
        } else {
            out
        };
        let body = Bytes::from(body);
        let cap = self.shared.config.cache_bytes;
        if cap > 0 && body.len() <= cap / 4 {
            let mut c = lock(&self.shared.cache);
            if !c.map.contains_key(&key) {
                c.bytes += body.len();
                c.map.insert(key.clone(), body.clone());
                c.order.push_back(key);
                while c.bytes > cap {
                    let Some(old) = c.order.pop_front() else {
                        break;
                    };
                    if let Some(b) = c.map.remove(&old) {
                        c.bytes -= b.len();
                    }
                }
            }
        }
        Reply::json(200, Vec::new()).with_body(body)
    }
}
