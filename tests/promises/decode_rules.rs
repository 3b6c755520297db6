//! The decode rules of issue 12 point 7: nothing a decoded object holds can fail later (in a
//! Python attribute or `to_dict()`), so whatever cannot become a value is a decode error when
//! the response is read, naming the field, the same on every decode path.

use opsapi::{
    decode_model, AccessListEntry, Alert, AlertConfig, Decode, Error, Event, Group, Host,
    Measurements, Model, Partition,
};

/// The field and message of the decode error `body` must give as a `T`.
fn decode_error<T: Decode + std::fmt::Debug>(body: &str) -> (String, String) {
    match decode_model::<T>(body.as_bytes()) {
        Err(Error::Decode { field, message, .. }) => (field, message),
        other => panic!("expected a decode error for {body}, got {other:?}"),
    }
}

/// The same for a page of `T` (through the public list decoding: a one-page listing).
fn page_error<T: Model + std::fmt::Debug>(body: &str) -> (String, String) {
    match opsapi::fuzzing::decode_page::<T>(body.as_bytes()) {
        Err(Error::Decode { field, message, .. }) => (field, message),
        other => panic!("expected a decode error for {body}, got {other:?}"),
    }
}

/// A measurements body with one series; `top` is spliced in among the top-level keys and
/// `points` is the data point list.
fn measurements(top: &str, points: &str) -> String {
    format!(
        r#"{{"groupId":"g","hostId":"h",{top}"measurements":[{{"name":"A","units":"RAW","dataPoints":[{points}]}}]}}"#
    )
}

/// Six points, the last with the given timestamp and value.
fn points(last_ts: &str, last_value: &str) -> String {
    let mut p: Vec<String> = (0..5)
        .map(|i| format!(r#"{{"timestamp":"2024-01-01T00:0{i}:00Z","value":{i}}}"#))
        .collect();
    p.push(format!(
        r#"{{"timestamp":"{last_ts}","value":{last_value}}}"#
    ));
    p.join(",")
}

/// The body as the scanner takes it, and the same body as only serde takes it (an escaped
/// character in `hostId`, which the scanner leaves to serde). Both must answer alike.
fn both_paths(body: &str) -> [String; 2] {
    let slow = body.replacen(r#""hostId":"h""#, r#""hostId":"\u0068""#, 1);
    assert_ne!(slow, body, "the body has no hostId to escape");
    [body.to_string(), slow]
}

const OUT_OF_RANGE: [&str; 4] = [
    "9999-12-31T23:59:59-01:00",
    "0000-01-01T00:00:00Z",
    "0001-01-01T00:00:00+01:00",
    "0000-12-31T23:59:59.999Z",
];

const IN_RANGE: [&str; 5] = [
    "0001-01-01T00:00:00Z",
    "0000-12-31T23:00:00-01:00",
    "9999-12-31T23:59:59.999Z",
    "9999-12-31T23:59:59.999999Z",
    "9999-12-31T22:59:59+00:00",
];

#[test]
fn timestamps_outside_pythons_datetime_are_decode_errors_naming_the_field() {
    for t in OUT_OF_RANGE {
        let expect = |(field, message): (String, String), want: &str| {
            assert_eq!(field, want, "{t}");
            assert!(
                message.contains("outside 0001-01-01T00:00:00Z"),
                "{t}: {message}"
            );
        };
        let page = |key: &str| {
            format!(
                r#"{{"totalCount":3,"results":[{{"id":"a"}},{{"id":"b"}},{{"id":"c","{key}":"{t}"}}]}}"#
            )
        };
        // Every model with a timestamp, every timestamp field.
        for key in [
            "created",
            "updated",
            "resolved",
            "lastNotified",
            "acknowledgedUntil",
        ] {
            expect(
                page_error::<Alert>(&page(key)),
                &format!("results[2].{key}"),
            );
        }
        expect(
            page_error::<AlertConfig>(&page("updated")),
            "results[2].updated",
        );
        expect(page_error::<Event>(&page("created")), "results[2].created");
        expect(
            page_error::<Group>(&page("lastActiveAgent")),
            "results[2].lastActiveAgent",
        );
        expect(page_error::<Host>(&page("lastPing")), "results[2].lastPing");
        expect(
            page_error::<AccessListEntry>(&page("created")),
            "results[2].created",
        );
        // Single objects, plain and in the envelope.
        expect(
            decode_error::<Host>(&format!(r#"{{"id":"h","lastRestart":"{t}"}}"#)),
            "lastRestart",
        );
        expect(
            decode_error::<Event>(&format!(
                r#"{{"status":200,"content":{{"id":"e","created":"{t}"}}}}"#
            )),
            "created",
        );
        // Measurements, on the scanner's path and on serde's.
        for body in both_paths(&measurements(
            &format!(r#""start":"{t}","#),
            &points("2024-01-01T00:05:00Z", "5"),
        )) {
            expect(decode_error::<Measurements>(&body), "start");
        }
        for body in both_paths(&measurements("", &points(t, "5"))) {
            expect(
                decode_error::<Measurements>(&body),
                "measurements[0].dataPoints[5].timestamp",
            );
        }
    }
}

#[test]
fn timestamps_at_the_edges_of_the_range_decode() {
    for t in IN_RANGE {
        let want = t.parse::<chrono::DateTime<chrono::Utc>>().unwrap();
        let alert: Alert = decode_model(format!(r#"{{"created":"{t}"}}"#).as_bytes()).unwrap();
        assert_eq!(alert.created, Some(want), "{t}");
        for body in both_paths(&measurements(&format!(r#""end":"{t}","#), &points(t, "1"))) {
            let m: Measurements = decode_model(body.as_bytes()).unwrap();
            assert_eq!(m.end.unwrap().timestamp_millis(), want.timestamp_millis());
            assert_eq!(m.series[0].timestamps[5], want.timestamp_millis(), "{t}");
        }
    }
}

/// `{"id":"x","deep":{"in":[[...]]}}` with the whole object `depth` levels deep.
fn deep_object(depth: usize) -> String {
    let arrays = depth - 2;
    format!(
        r#"{{"id":"x","deep":{{"in":{}{}}}}}"#,
        "[".repeat(arrays),
        "]".repeat(arrays)
    )
}

#[test]
fn one_nesting_limit_for_every_model_named_where_it_is_passed() {
    let too_deep_at = |prefix: &str| format!("{prefix}deep.in{}", "[0]".repeat(125));
    for depth in [128, 1000] {
        let item = deep_object(depth);
        let page = format!(r#"{{"totalCount":2,"results":[{{"id":"a"}},{item}]}}"#);
        let check = |(field, message): (String, String), want: &str| {
            assert_eq!(field, want, "depth {depth}");
            assert_eq!(
                message,
                "arrays and objects nested 128 deep; at most 127 are decoded"
            );
        };
        let want = too_deep_at("results[1].");
        check(page_error::<Alert>(&page), &want);
        check(page_error::<AlertConfig>(&page), &want);
        check(page_error::<Event>(&page), &want);
        check(page_error::<Group>(&page), &want);
        check(page_error::<Host>(&page), &want);
        check(page_error::<AccessListEntry>(&page), &want);
        check(page_error::<Partition>(&page), &want);
        // A page that is only unusual (a repeated key) takes the slower path: same rule.
        let repeated = page.replacen("\"totalCount\":2", "\"totalCount\":1,\"totalCount\":2", 1);
        check(page_error::<Host>(&repeated), &want);
        check(decode_error::<Host>(&item), &too_deep_at(""));
        check(
            decode_error::<Event>(&format!(r#"{{"status":200,"content":{item}}}"#)),
            &too_deep_at(""),
        );
    }
    // 127 levels decode, in an unknown field and in a field kept as any JSON value, and what
    // was kept parses again (Python's `to_dict()` does the same with `json.loads`).
    let item = deep_object(127);
    let page = format!(r#"{{"totalCount":1,"results":[{item}]}}"#);
    let host = opsapi::fuzzing::decode_page::<Host>(page.as_bytes()).unwrap();
    assert_eq!(host[0].raw_json(), item);
    assert_eq!(host[0].raw()["id"], "x");
    let raw = format!(
        r#"{{"raw":{{"a":{}{}}}}}"#,
        "[".repeat(125),
        "]".repeat(125)
    );
    let event: Event = decode_model(raw.as_bytes()).unwrap();
    assert!(event.raw.is_some());
    assert!(!event.raw().is_empty());
}

#[test]
fn measurements_have_the_same_nesting_limit_on_both_paths() {
    // Measurements count from the top of the body: the series is at level 3, a data point
    // at level 5.
    let deep = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
    for (top, in_point, field) in [
        (
            format!(r#""future":{},"#, deep(127)),
            "",
            format!("future{}", "[0]".repeat(126)),
        ),
        (
            String::new(),
            r#","extra":DEEP"#,
            format!("measurements[0].dataPoints[0].extra{}", "[0]".repeat(122)),
        ),
    ] {
        let point = format!(r#"{{"timestamp":"2024-01-01T00:00:00Z","value":1{in_point}}}"#)
            .replace("DEEP", &deep(123));
        for body in both_paths(&measurements(&top, &point)) {
            let (f, message) = decode_error::<Measurements>(&body);
            assert_eq!(f, field);
            assert_eq!(
                message,
                "arrays and objects nested 128 deep; at most 127 are decoded"
            );
        }
    }
    // One level less decodes, on both paths, to the same value.
    let top = format!(r#""future":{},"#, deep(126));
    let body = measurements(&top, &points("2024-01-01T00:05:00Z", "5"));
    let [fast, slow] = both_paths(&body);
    let fast: Measurements = decode_model(fast.as_bytes()).unwrap();
    let slow: Measurements = decode_model(slow.as_bytes()).unwrap();
    assert_eq!(fast.series, slow.series);
    assert_eq!(fast.start, slow.start);
}

#[test]
fn numbers_beyond_f64_in_typed_fields_are_decode_errors_on_every_path() {
    let huge = format!("1{}", "0".repeat(400));
    for v in ["1e309", "-1e309", "1.8e308", huge.as_str(), "123456789e301"] {
        for body in both_paths(&measurements("", &points("2024-01-01T00:05:00Z", v))) {
            let (field, message) = decode_error::<Measurements>(&body);
            assert_eq!(field, "measurements[0].dataPoints[5].value", "{v}");
            assert!(message.starts_with("number out of range"), "{v}: {message}");
        }
        let (field, message) = page_error::<Alert>(&format!(
            r#"{{"results":[{{"currentValue":{{"number":{v}}}}}]}}"#
        ));
        assert_eq!(field, "results[0].currentValue.number", "{v}");
        assert!(message.starts_with("number out of range"), "{v}: {message}");
    }
    // Too small to represent is zero on both paths, as in every JSON parser.
    for body in both_paths(&measurements(
        "",
        &points("2024-01-01T00:05:00Z", "-1e-400"),
    )) {
        let m: Measurements = decode_model(body.as_bytes()).unwrap();
        assert_eq!(
            m.series[0].values[5].map(f64::to_bits),
            Some((-0.0f64).to_bits())
        );
    }
    // A field the library does not type is kept as sent.
    let alert: Alert = decode_model(br#"{"id":"a","future":1e309}"#).unwrap();
    assert_eq!(alert.raw_json(), r#"{"id":"a","future":1e309}"#);
}

/// Hand-made bodies at the edges of what the two measurement paths read.
fn edge_cases() -> Vec<String> {
    let p = |v: &str| measurements("", &points("2024-01-01T00:05:00Z", v));
    let t = |ts: &str| measurements("", &points(ts, "1"));
    let mut bodies = vec![];
    for v in [
        "0",
        "-0",
        "-0.0",
        "0e0",
        "1E2",
        "1e+2",
        "1e-2",
        "-1.5e-7",
        "1e308",
        "1.7976931348623157e308",
        "1.7976931348623159e308",
        "1e309",
        "-1e309",
        "1e-400",
        "4.9e-324",
        "2.5e-324",
        "9007199254740993",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "0.1e1",
        "123456789012345678901234567890",
        "1.00000000000000011102230246251565404236316680908203125",
        "null",
        "true",
        "\"1\"",
        "01",
        "1.",
        ".1",
        "-",
        "1e",
        "+1",
        "NaN",
        "Infinity",
    ] {
        bodies.push(p(v));
    }
    bodies.push(p(&format!("1{}", "0".repeat(400))));
    bodies.push(p(&format!("0.{}1", "0".repeat(400))));
    for ts in [
        "2016-12-31T23:59:60Z",
        "2016-12-31T23:59:60.5Z",
        "2024-01-01T00:05:00+00:00",
        "2024-01-01T00:05:00-00:00",
        "2024-01-01T00:05:00+23:59",
        "2024-01-01T00:05:00+24:00",
        "2024-01-01t00:05:00z",
        "2024-01-01 00:05:00Z",
        "2024-01-01T00:05:00.123456789Z",
        "2024-01-01T00:05:00.Z",
        "2024-01-01T00:05Z",
        "2024-02-30T00:00:00Z",
        "9999-12-31T23:59:59-01:00",
        "0000-01-01T00:00:00Z",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999Z",
    ] {
        bodies.push(t(ts));
    }
    bodies.extend(
        [
            // Nulls everywhere they may be.
            r#"{"groupId":null,"hostId":null,"processId":null,"granularity":null,"start":null,"end":null,"links":null,"measurements":[{"name":"A","units":null,"dataPoints":null},{"name":"B","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":null},{"timestamp":"2024-01-01T00:01:00Z"}]}]}"#,
            r#"{"measurements":null}"#,
            r#"{"measurements":[{"name":null,"dataPoints":[]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":null,"value":1}]}]}"#,
            // Escapes in strings: keys, names, units, timestamps.
            r#"{"groupId":"g\"1\\","measurements":[{"name":"A\u00e9","units":"\n","dataPoints":[]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00\u005a","value":1}]}]}"#,
            r#"{"measurements":[{"n\u0061me":"A","dataPoints":[{"time\u0073tamp":"2024-01-01T00:00:00Z","value":1}]}]}"#,
            r#"{"measurements":[{"name":"A\ud800","dataPoints":[]}]}"#,
            // Duplicate keys at every level.
            r#"{"groupId":"a","groupId":"b","measurements":[]}"#,
            r#"{"measurements":[],"measurements":[{"name":"A","dataPoints":[]}]}"#,
            r#"{"measurements":[{"name":"A","name":"B","dataPoints":[]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","timestamp":"2024-01-01T00:01:00Z","value":1}]}]}"#,
            r#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1,"value":2}]}]}"#,
            r#"{"x":1,"x":2,"measurements":[]}"#,
            // Unknown keys at every level.
            r#"{"future":{"a":[1,{"b":"}]"}]},"measurements":[{"name":"A","more":[true],"dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1,"why":"x"}]}]}"#,
            // The envelope, right and wrong.
            r#"{"status":200,"content":{"measurements":[]}}"#,
            r#"{"content":{"measurements":[]},"status":200}"#,
            r#"{"status":200,"content":{"status":200,"content":{"measurements":[]}}}"#,
            r#"{"status":200,"content":{"measurements":[]},"groupId":"g"}"#,
            r#"{"content":null}"#,
            r#"{"content":{"measurements":[]},"content":{"measurements":[]}}"#,
            // Not JSON, not an object, trailing text.
            "",
            " ",
            "[]",
            "null",
            r#"{"measurements":[]} x"#,
            r#"{"measurements":[],}"#,
            "{\"measurements\":[]}\u{0}",
        ]
        .map(String::from),
    );
    // Deep nesting at the limit and one past it, in each place a value can hide.
    for levels in [125, 126, 127, 1000] {
        let deep = format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        bodies.push(format!(r#"{{"future":{deep},"measurements":[]}}"#));
        bodies.push(format!(
            r#"{{"measurements":[{{"name":"A","more":{deep},"dataPoints":[]}}]}}"#
        ));
        bodies.push(format!(
            r#"{{"measurements":[{{"name":"A","dataPoints":[{{"timestamp":"2024-01-01T00:00:00Z","more":{deep}}}]}}]}}"#
        ));
        bodies.push(format!(
            r#"{{"status":200,"content":{{"future":{deep},"measurements":[]}}}}"#
        ));
    }
    bodies
}

fn fixture_bodies() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json" || e == "txt"))
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    assert!(out.len() >= 20, "the fixtures are missing");
    out
}

#[test]
fn both_measurement_paths_agree_on_fixtures_and_edge_cases() {
    let mut scanned = 0;
    for (name, body) in fixture_bodies().into_iter().chain(
        edge_cases()
            .into_iter()
            .map(|b| (b.clone(), b.into_bytes())),
    ) {
        // Panics with the input named when a path disagrees or misbehaves.
        let run = std::panic::catch_unwind(|| opsapi::fuzzing::measurements_differential(&body));
        assert!(run.is_ok(), "the paths disagree on {name}");
        scanned += usize::from(opsapi::fuzzing::scanner_takes(&body));
    }
    // The comparison is only worth something where the scanner answered.
    assert!(scanned >= 40, "the scanner took only {scanned} bodies");
}
