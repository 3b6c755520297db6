use super::*;
use chrono::TimeZone;

fn set(family: Family, n: usize) -> Vec<ShapeCase> {
    let anchor = Utc.with_ymd_and_hms(2026, 3, 2, 10, 0, 0).unwrap();
    cases(&ShapesConfig {
        family,
        n,
        anchor,
        ..ShapesConfig::default()
    })
}

#[test]
fn the_truth_is_the_first_hour_the_series_itself_reaches_the_limit() {
    for family in Family::ALL {
        for c in set(family, 20) {
            let a = c.anchor.timestamp();
            let breach = c.first_breach_at.expect("every case reaches its limit");
            let t = breach.timestamp();
            assert!(c.toward_limit(t) >= 0.0, "{}", family.name());
            // No hour between the anchor and it reaches it.
            let first = a.div_euclid(3600) * 3600 + 3600;
            assert!(
                (first..t).step_by(3600).all(|s| c.toward_limit(s) < 0.0),
                "{}",
                family.name()
            );
            // And over the history it stayed below (the case starts short of its limit).
            assert!(
                (1..63 * 24).all(|k| c.toward_limit(a - k * 3600) < 0.0),
                "{} {}",
                family.name(),
                c.index
            );
        }
    }
}

#[test]
fn same_seed_same_series_and_each_family_its_shape() {
    for family in Family::ALL {
        let (a, b) = (set(family, 5), set(family, 5));
        assert_eq!(a, b);
        let c = &a[2];
        let end = c.anchor.timestamp();
        let m = c.measurements(end - 14 * 86_400, end, 3600);
        assert_eq!(m.series[0].len(), 14 * 24 + 1);
        let disk = family.resource() == "disk";
        assert_eq!(m.partition_name.is_some(), disk);
        assert_eq!(
            m.series.len(),
            if disk || family == Family::Tickets {
                2
            } else {
                1
            }
        );
        // A change is inside the history, where its family has one.
        assert_eq!(c.changed_at.is_some(), family.change().is_some());
        if let Some(at) = c.changed_at {
            let days = (c.anchor - at).num_hours() as f64 / 24.0;
            assert!((3.0..=40.0).contains(&days), "{days}");
        }
    }
}

#[test]
fn a_resized_disk_shows_its_capacity_change_and_a_bend_its_two_rates() {
    for c in set(Family::DiskResize, 10) {
        let at = c.changed_at.unwrap().timestamp();
        let free = |t: i64| c.values(t)[1].1 + c.values(t)[0].1;
        assert_eq!(free(at + 3600), c.capacity_bytes.unwrap().round());
        assert_eq!(free(at - 3600), c.capacity_before_bytes.unwrap().round());
    }
    for c in set(Family::DiskBend, 10) {
        let (before, after) = match c.shape.before {
            Some((_, g0)) => (g0, c.shape.per_day),
            None => panic!("a bend has a rate before it"),
        };
        let ratio = after / before;
        assert!(!(1.0 / 1.5 + 1e-9..1.5 - 1e-9).contains(&ratio), "{ratio}");
    }
}

#[test]
fn the_horizons_spread_from_days_to_months() {
    for family in Family::ALL {
        let days: Vec<f64> = set(family, 100)
            .iter()
            .map(|c| (c.first_breach_at.unwrap() - c.anchor).num_hours() as f64 / 24.0)
            .collect();
        let short = days.iter().filter(|d| **d < 21.0).count();
        let long = days.iter().filter(|d| **d > 60.0).count();
        assert!(
            short >= 10 && long >= 10,
            "{} {short} {long}",
            family.name()
        );
    }
}
