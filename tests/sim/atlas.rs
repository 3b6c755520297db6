//! The simulator as Atlas and Cloud Manager (`SimConfig::flavour`), through raw HTTP: the
//! token endpoint and its own bucket, Bearer tokens and their expiry, versioned media types
//! (406 for a missing or unknown version), processes for hosts, Atlas's measurement names,
//! `PT10S` on small tiers, token buckets per endpoint set and project, and the paths each
//! flavour lacks.

use std::time::Duration;

use opsapi::sim::{SimConfig, Simulator, TokenBucket};
use opsapi::{EndpointSet, Flavour};

use crate::common::{start, Api, Resp};

const V2: &str = "/api/atlas/v2";
const ACCEPT_2023: &str = "application/vnd.atlas.2023-01-01+json";

fn fixed_now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-03-02T10:00:00Z")
        .unwrap()
        .to_utc()
}

fn atlas_with(f: impl FnOnce(&mut SimConfig)) -> Simulator {
    let mut config = SimConfig {
        flavour: Flavour::Atlas,
        now: Some(fixed_now()),
        ..SimConfig::default()
    };
    f(&mut config);
    start(config)
}

fn atlas() -> Simulator {
    atlas_with(|_| {})
}

/// Raw requests to an Atlas simulator: the token endpoint and Bearer requests.
struct Raw {
    http: reqwest::Client,
    base: String,
}

impl Raw {
    fn new(sim: &Simulator) -> Self {
        Self {
            http: reqwest::Client::builder().no_proxy().build().unwrap(),
            base: sim.base_url(),
        }
    }

    async fn send(&self, rb: reqwest::RequestBuilder) -> Resp {
        let r = rb.send().await.expect("request sent");
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let body = r.bytes().await.unwrap().to_vec();
        Resp {
            status,
            headers,
            body,
        }
    }

    async fn token_request(&self, id: &str, secret: &str, form: &str) -> Resp {
        let rb = self
            .http
            .post(format!("{}/api/oauth/token", self.base))
            .basic_auth(id, Some(secret))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form.to_string());
        self.send(rb).await
    }

    async fn token(&self, sim: &Simulator) -> String {
        let r = self
            .token_request(
                sim.client_id(),
                sim.client_secret(),
                "grant_type=client_credentials",
            )
            .await;
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        r.json()["access_token"].as_str().unwrap().to_string()
    }

    async fn get(&self, path: &str, token: &str, accept: Option<&str>) -> Resp {
        let mut rb = self
            .http
            .get(format!("{}{V2}{path}", self.base))
            .bearer_auth(token);
        if let Some(a) = accept {
            rb = rb.header("accept", a);
        }
        self.send(rb).await
    }

    async fn get_json(&self, path: &str, token: &str) -> serde_json::Value {
        let r = self.get(path, token, Some(ACCEPT_2023)).await;
        assert_eq!(
            r.status,
            200,
            "{path}: {}",
            String::from_utf8_lossy(&r.body)
        );
        r.json()
    }
}

#[tokio::test]
async fn the_token_endpoint_sells_bearer_tokens_for_the_client_credentials_only() {
    let sim = atlas();
    let raw = Raw::new(&sim);
    let r = raw
        .token_request(
            sim.client_id(),
            sim.client_secret(),
            "grant_type=client_credentials",
        )
        .await;
    assert_eq!(r.status, 200);
    let body = r.json();
    assert_eq!(body["expires_in"], 3600);
    assert_eq!(body["token_type"], "Bearer");
    assert!(body["access_token"].as_str().unwrap().len() >= 32);

    let r = raw
        .token_request(sim.client_id(), "wrong", "grant_type=client_credentials")
        .await;
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["error"], "invalid_client");
    let r = raw
        .token_request(sim.client_id(), sim.client_secret(), "grant_type=password")
        .await;
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (400, Some("unsupported_grant_type"))
    );
    let r = raw
        .send(raw.http.get(format!("{}/api/oauth/token", raw.base)))
        .await;
    assert_eq!(
        (r.status, r.error_code()),
        (405, "METHOD_NOT_ALLOWED".into())
    );
    // Ops Manager has no token endpoint.
    let om = start(SimConfig::default());
    let r = Raw::new(&om)
        .token_request(
            om.client_id(),
            om.client_secret(),
            "grant_type=client_credentials",
        )
        .await;
    assert_eq!(r.status, 401, "no Digest signature: a challenge");
}

#[tokio::test]
async fn the_token_endpoint_has_its_own_bucket_of_ten_a_minute() {
    let sim = atlas();
    let raw = Raw::new(&sim);
    for _ in 0..10 {
        raw.token(&sim).await;
    }
    let r = raw
        .token_request(
            sim.client_id(),
            sim.client_secret(),
            "grant_type=client_credentials",
        )
        .await;
    assert_eq!(r.status, 429);
    assert_eq!(r.error_code(), "RATE_LIMITED_TOKEN_BUCKET");
    assert_eq!(r.header("retry-after").as_deref(), Some("6"));
    assert_eq!(
        r.json()["parameters"],
        serde_json::json!(["api/oauth/token", 6, 10, 10, 60])
    );
    // One refill is 6 s of the simulator's clock.
    sim.advance(Duration::from_secs(6));
    raw.token(&sim).await;
}

#[tokio::test]
async fn a_bearer_token_works_until_it_expires_by_the_simulators_clock() {
    let sim = atlas();
    let raw = Raw::new(&sim);
    let token = raw.token(&sim).await;
    let groups = raw.get_json("/groups", &token).await;
    assert_eq!(groups["totalCount"], sim.world().projects.len());
    sim.advance(Duration::from_secs(3599));
    assert_eq!(
        raw.get("/groups", &token, Some(ACCEPT_2023)).await.status,
        200
    );
    sim.advance(Duration::from_secs(1));
    let r = raw.get("/groups", &token, Some(ACCEPT_2023)).await;
    assert_eq!(r.status, 401);
    assert!(r.header("www-authenticate").unwrap().starts_with("Digest "));
    assert_eq!(
        raw.get("/groups", "not-a-token", Some(ACCEPT_2023))
            .await
            .status,
        401
    );
    let log = sim.requests();
    let schemes: Vec<_> = log.iter().map(|r| r.auth.as_deref()).collect();
    assert_eq!(
        schemes,
        [
            Some("Basic"),
            Some("Bearer"),
            Some("Bearer"),
            Some("Bearer"),
            Some("Bearer")
        ]
    );
}

#[tokio::test]
async fn a_missing_or_unknown_version_is_refused_406_with_atlass_error_body() {
    let sim = atlas();
    let raw = Raw::new(&sim);
    let token = raw.token(&sim).await;
    for accept in [
        None,
        Some("application/json"),
        Some("application/vnd.atlas.2099-01-01+json"),
        Some("application/vnd.atlas.2024-05-30+json"),
    ] {
        let r = raw.get("/groups", &token, accept).await;
        assert_eq!(r.status, 406, "{accept:?}");
        assert_eq!(
            r.json(),
            serde_json::json!({
                "detail": "Invalid accept header or version date.",
                "error": 406,
                "errorCode": "INVALID_VERSION_DATE",
                "parameters": [],
                "reason": "Not Acceptable",
            })
        );
    }
    let r = raw
        .get(
            "/groups",
            &token,
            Some("application/vnd.atlas.2023-01-01+json; charset=utf-8"),
        )
        .await;
    assert_eq!(r.status, 200);
    let log = sim.requests();
    assert_eq!(log[1].accept.as_deref(), Some("*/*"), "reqwest's default");
    assert_eq!(log[2].accept.as_deref(), Some("application/json"));
}

#[tokio::test]
async fn api_keys_sign_with_digest_on_atlas_too() {
    let sim = atlas();
    let api = Api::owner(&sim);
    let r = api.send("GET", &format!("{V2}/groups"), None).await;
    assert_eq!(r.status, 406, "Digest accepted, the version missing");
    let raw = Raw::new(&sim);
    let uri = format!("{V2}/groups");
    let challenge = api.challenge().await;
    let auth = crate::common::authorization(
        sim.public_key(),
        sim.private_key(),
        "GET",
        &uri,
        &challenge.nonce,
        1,
    );
    let rb = raw
        .http
        .get(format!("{}{uri}", raw.base))
        .header("authorization", auth)
        .header("accept", ACCEPT_2023);
    assert_eq!(raw.send(rb).await.status, 200);
}

#[tokio::test]
async fn hosts_are_processes_named_hostname_port() {
    let sim = atlas();
    let raw = Raw::new(&sim);
    let token = raw.token(&sim).await;
    let world = sim.world();
    let g = &world.projects[0].id;
    let list = raw
        .get_json(&format!("/groups/{g}/processes"), &token)
        .await;
    let results = list["results"].as_array().unwrap();
    // Atlas has no standalone processes: the world's are not served.
    let seeded: Vec<_> = world
        .hosts
        .iter()
        .filter(|h| &h.group_id == g && h.type_name != "STANDALONE")
        .collect();
    assert!(world.hosts.iter().any(|h| h.type_name == "STANDALONE"));
    assert_eq!(results.len(), seeded.len());
    for (p, h) in results.iter().zip(&seeded) {
        assert_eq!(p["id"], h.process_id());
        assert_eq!(p["hostname"], h.hostname);
        assert_eq!(p["typeName"], h.type_name);
        assert!(p.get("replicaStateName").is_none());
        let links = p["links"].as_array().unwrap();
        assert_eq!(
            links[0]["href"],
            format!(
                "{}{V2}/groups/{g}/processes/{}",
                sim.base_url(),
                h.process_id().replace(':', "%3A")
            )
        );
    }
    let h = seeded[0];
    let one = raw
        .get_json(&format!("/groups/{g}/processes/{}", h.process_id()), &token)
        .await;
    assert_eq!(one["port"], h.port);
    let by_hex_id = raw
        .get(
            &format!("/groups/{g}/processes/{}", h.id),
            &token,
            Some(ACCEPT_2023),
        )
        .await;
    assert_eq!(by_hex_id.status, 404);
    let hosts = raw
        .get(&format!("/groups/{g}/hosts"), &token, Some(ACCEPT_2023))
        .await;
    assert_eq!(
        (hosts.status, hosts.error_code()),
        (404, "RESOURCE_NOT_FOUND".into())
    );
    let disks = raw
        .get_json(
            &format!("/groups/{g}/processes/{}/disks", h.process_id()),
            &token,
        )
        .await;
    assert_eq!(disks["results"][0]["partitionName"], h.partitions[0].name);
}

#[tokio::test]
async fn measurements_carry_the_process_as_host_and_atlass_names() {
    let sim = atlas();
    let raw = Raw::new(&sim);
    let token = raw.token(&sim).await;
    let h = sim.world().hosts[0].clone();
    let base = format!("/groups/{}/processes/{}", h.group_id, h.process_id());
    let m = raw
        .get_json(
            &format!("{base}/measurements?granularity=PT1H&period=PT2H&m=SYSTEM_NETWORK_IN&m=CONNECTIONS"),
            &token,
        )
        .await;
    assert_eq!(m["hostId"], h.process_id());
    assert_eq!(m["processId"], h.process_id());
    let names: Vec<_> = m["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["CONNECTIONS", "SYSTEM_NETWORK_IN"]);
    let r = raw
        .get(
            &format!("{base}/measurements?granularity=PT1H&period=PT2H&m=SYSTEM_NETWORK_BYTES_IN"),
            &token,
            Some(ACCEPT_2023),
        )
        .await;
    assert_eq!(
        (r.status, r.error_code()),
        (404, "INVALID_METRIC_NAME".into())
    );
    let disk = raw
        .get_json(
            &format!(
                "{base}/disks/{}/measurements?granularity=PT1H&period=PT2H",
                h.partitions[0].name
            ),
            &token,
        )
        .await;
    assert_eq!(disk["hostId"], h.process_id());
    assert_eq!(disk["partitionName"], h.partitions[0].name);
}

#[tokio::test]
async fn pt10s_is_refused_below_tier_m40() {
    let sim = atlas_with(|c| c.hosts_per_project = 10);
    let raw = Raw::new(&sim);
    let token = raw.token(&sim).await;
    let world = sim.world();
    // A process of a cluster below M40, and one of M40 or larger (their tier is their
    // cluster's, and so is their memory).
    let of_tier = |small: bool| {
        let c = world
            .clusters
            .iter()
            .find(|c| matches!(c.instance_size, "M10" | "M20" | "M30") == small)
            .expect("a cluster of each size");
        let h = world
            .hosts
            .iter()
            .find(|h| h.cluster_id.as_ref() == Some(&c.id));
        (c.instance_size, h.unwrap().clone())
    };
    let (small_tier, small) = of_tier(true);
    let (_, large) = of_tier(false);
    let ask = |h: &opsapi::sim::Host| {
        format!(
            "/groups/{}/processes/{}/measurements?granularity=PT10S&period=PT1M",
            h.group_id,
            h.process_id()
        )
    };
    let r = raw.get(&ask(&small), &token, Some(ACCEPT_2023)).await;
    assert_eq!(
        (r.status, r.error_code()),
        (400, "INVALID_GRANULARITY".into())
    );
    assert!(r.json()["detail"].as_str().unwrap().contains(small_tier));
    assert_eq!(
        raw.get(&ask(&large), &token, Some(ACCEPT_2023))
            .await
            .status,
        200
    );
    // Ops Manager serves PT10S to any host.
    let om = start(SimConfig {
        hosts_per_project: 10,
        now: Some(fixed_now()),
        ..SimConfig::default()
    });
    let path = format!(
        "/groups/{}/hosts/{}/measurements?granularity=PT10S&period=PT1M",
        small.group_id, small.id
    );
    assert_eq!(Api::owner(&om).get(&path).await.status, 200);
}

#[tokio::test]
async fn token_buckets_are_per_endpoint_set_and_project() {
    let bucket = TokenBucket {
        capacity: 3,
        per_minute: 60.0,
    };
    let sim = atlas_with(|c| c.token_buckets = vec![(EndpointSet::Monitoring, bucket)]);
    let raw = Raw::new(&sim);
    let token = raw.token(&sim).await;
    let world = sim.world();
    let (g1, g2) = (&world.projects[0].id, &world.projects[1].id);
    let processes = |g: &str| format!("/groups/{g}/processes");
    for _ in 0..3 {
        raw.get_json(&processes(g1), &token).await;
    }
    let r = raw.get(&processes(g1), &token, Some(ACCEPT_2023)).await;
    assert_eq!(r.status, 429);
    let resource = format!("api/atlas/v2/groups/{g1}/monitoring");
    assert_eq!(
        r.json(),
        serde_json::json!({
            "detail": format!("Rate limit exceeded for {resource}. Please retry after 1 seconds. Request capacity: 3. Refill rate: 60 per 60 seconds."),
            "error": 429,
            "errorCode": "RATE_LIMITED_TOKEN_BUCKET",
            "parameters": [resource, 1, 3, 60, 60],
            "reason": "Too Many Requests",
        })
    );
    assert_eq!(r.header("retry-after").as_deref(), Some("1"));
    assert_eq!(r.header("ratelimit-limit").as_deref(), Some("3"));
    assert_eq!(r.header("ratelimit-remaining").as_deref(), Some("0"));
    // Another project, and another endpoint set, have buckets of their own (events: none).
    raw.get_json(&processes(g2), &token).await;
    raw.get_json(&format!("/groups/{g1}/events"), &token).await;
    sim.advance(Duration::from_secs(1));
    raw.get_json(&processes(g1), &token).await;
    let limited: Vec<_> = sim
        .requests()
        .into_iter()
        .filter(|r| r.faults.contains(&"token_bucket".to_string()))
        .collect();
    assert_eq!(limited.len(), 1);
}

/// Every route below a process draws from the monitoring bucket of its project: its
/// databases and their measurements too.
#[tokio::test]
async fn a_processs_databases_draw_from_the_monitoring_bucket() {
    let bucket = TokenBucket {
        capacity: 2,
        per_minute: 60.0,
    };
    let sim = atlas_with(|c| c.token_buckets = vec![(EndpointSet::Monitoring, bucket)]);
    let raw = Raw::new(&sim);
    let token = raw.token(&sim).await;
    let world = sim.world();
    let h = world
        .hosts
        .iter()
        .find(|h| !h.databases.is_empty())
        .unwrap();
    let databases = format!(
        "/groups/{}/processes/{}/databases",
        h.group_id,
        h.process_id().replace(':', "%3A")
    );
    let measurements = format!(
        "{databases}/{}/measurements?granularity=PT1H&period=PT2H",
        h.databases[0].name
    );
    raw.get_json(&databases, &token).await;
    raw.get_json(&measurements, &token).await;
    for path in [&databases, &measurements] {
        let r = raw.get(path, &token, Some(ACCEPT_2023)).await;
        assert_eq!(r.status, 429, "{path}");
        assert_eq!(r.json()["errorCode"], "RATE_LIMITED_TOKEN_BUCKET");
    }
}

#[tokio::test]
async fn cloud_manager_and_atlas_have_no_global_alerts_or_access_list() {
    let cm = start(SimConfig {
        flavour: Flavour::CloudManager,
        ..SimConfig::default()
    });
    let api = Api::owner(&cm);
    for path in ["/globalAlerts", "/admin/accessList"] {
        let r = api.get(path).await;
        assert_eq!(
            (r.status, r.error_code()),
            (404, "RESOURCE_NOT_FOUND".into()),
            "{path}"
        );
    }
    let g = &cm.group_ids()[0];
    assert_eq!(api.get(&format!("/groups/{g}/hosts")).await.status, 200);
    let sim = atlas();
    let raw = Raw::new(&sim);
    let token = raw.token(&sim).await;
    for path in ["/globalAlerts", "/admin/accessList"] {
        let r = raw.get(path, &token, Some(ACCEPT_2023)).await;
        assert_eq!(r.status, 404, "{path}");
    }
}

#[tokio::test]
async fn one_seed_one_world_whatever_the_flavour() {
    let worlds: Vec<_> = Flavour::ALL
        .into_iter()
        .map(|flavour| {
            let sim = start(SimConfig {
                flavour,
                now: Some(fixed_now()),
                ..SimConfig::default()
            });
            (
                sim.world(),
                sim.public_key().to_string(),
                sim.client_id().to_string(),
            )
        })
        .collect();
    assert!(worlds.windows(2).all(|w| w[0] == w[1]));
    let om = start(SimConfig::default());
    assert!(!format!("{om:?}").contains(om.client_secret()));
}
