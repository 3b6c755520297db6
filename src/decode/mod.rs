//! Decoding of response bodies, with the failing field named on error.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::{decode_error, Result};
use crate::models::{Measurements, Model};

mod alerts;
mod page;
pub(crate) mod scan;

pub(crate) use page::{decode_page, decode_page_shared, Page};
// The serde-only page decoder: the reference the alerts scanner is tested against.
#[cfg(test)]
pub(crate) use page::decode_page_serde;

/// A response body this library decodes: every model, and [`Measurements`].
pub trait Decode: Sized + Send + 'static {
    /// Decodes `body`; `path` (the request path) is named in errors.
    #[doc(hidden)]
    fn decode_at(path: &str, body: &[u8]) -> crate::Result<Self>;
}

impl<T: Model> Decode for T {
    fn decode_at(path: &str, body: &[u8]) -> crate::Result<Self> {
        decode_object_at(path, body)
    }
}

impl Decode for Measurements {
    fn decode_at(path: &str, body: &[u8]) -> crate::Result<Self> {
        decode_measurements(path, body)
    }
}

/// The one nesting limit of every body this library decodes: arrays and objects may nest at
/// most 127 deep (a model's own object counts as one); the 128th is a decode error naming
/// where. It is serde_json's own recursion limit, so a value that passes this check can
/// always be parsed again (`Model::raw`, Python's `to_dict()`, which `json.loads` the kept
/// text and would otherwise raise `RecursionError` at about 1 000 levels). Skipped values
/// are not exempt: serde_json skips them without a limit.
pub(crate) const NESTING_LIMIT: usize = 128;

/// The byte offset of the first array or object of `text` that opens at the
/// [`NESTING_LIMIT`]-th level, if any. Strings are skipped; the text is not otherwise checked
/// (serde_json does that).
fn too_deep_at(text: &[u8]) -> Option<usize> {
    // Fewer opening brackets than the limit, strings included, cannot nest that deep. This
    // count takes a fraction of the walk below, which the typical item (an alert has about
    // ten brackets) then skips: the walk alone made a page of alerts 17 % slower to decode,
    // a memchr count 5 %.
    // `{` is 0x7B and `[` 0x5B: one comparison finds both, summed in bytes per 255-byte
    // chunk so that the compiler keeps 16 or 32 bytes per instruction.
    let opening: usize = text
        .chunks(255)
        .map(|c| c.iter().fold(0u8, |n, &b| n + u8::from(b | 0x20 == b'{')))
        .map(usize::from)
        .sum();
    if opening < NESTING_LIMIT {
        return None;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' => {
                // To the closing quote: past every `\x` pair.
                i += 1;
                loop {
                    // A text that ends inside a string (`"\` last) ends the walk.
                    let k = memchr::memchr2(b'"', b'\\', text.get(i..)?)?;
                    if text[i + k] == b'"' {
                        i += k;
                        break;
                    }
                    i += k + 2;
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth >= NESTING_LIMIT {
                    return Some(i);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The JSON path (`a.b[2]`, `.` for the top) of the value that starts at byte `at` of `text`,
/// for the error of [`check_nesting`] (read only then).
fn path_at(text: &[u8], at: usize) -> String {
    // One entry per open container: the key being read (objects) or the element's index.
    enum Step {
        Key(String),
        Index(usize),
    }
    let mut steps: Vec<Step> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while i < at {
        match text[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < at && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                if expect_key {
                    let quoted = &text[start..(i + 1).min(text.len())];
                    let key = serde_json::from_slice::<String>(quoted)
                        .unwrap_or_else(|_| String::from_utf8_lossy(&quoted[1..]).into());
                    if let Some(Step::Key(k)) = steps.last_mut() {
                        *k = key;
                    }
                    expect_key = false;
                }
            }
            b'{' => {
                steps.push(Step::Key(String::new()));
                expect_key = true;
            }
            b'[' => steps.push(Step::Index(0)),
            b'}' | b']' => {
                steps.pop();
            }
            b',' => match steps.last_mut() {
                Some(Step::Index(n)) => *n += 1,
                Some(Step::Key(_)) => expect_key = true,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for step in steps {
        match step {
            Step::Key(k) if path.is_empty() => path = k,
            Step::Key(k) => {
                path.push('.');
                path.push_str(&k);
            }
            Step::Index(n) => path.push_str(&format!("[{n}]")),
        }
    }
    if path.is_empty() {
        path.push('.');
    }
    path
}

/// [`NESTING_LIMIT`] over `text`: `Err((path, message))` names the first value too deep.
pub(crate) fn check_nesting(text: &[u8]) -> std::result::Result<(), (String, String)> {
    match too_deep_at(text) {
        None => Ok(()),
        Some(at) => Err((
            path_at(text, at),
            format!(
                "arrays and objects nested {NESTING_LIMIT} deep; at most {} are decoded",
                NESTING_LIMIT - 1
            ),
        )),
    }
}

/// Decodes a JSON body into a model (models keep the object for [`Model::raw`]; measurements
/// go straight into columns).
///
/// Bodies wrapped by `envelope=true` (`{"status": 200, "content": {...}}`) decode too.
///
/// ```
/// let host: opsapi::Host = opsapi::decode_model(br#"{"status":200,"content":{"id":"h1"}}"#).unwrap();
/// assert_eq!(host.id.as_deref(), Some("h1"));
/// let err = opsapi::decode_model::<opsapi::Host>(br#"{"id":"h1","port":"27017"}"#).unwrap_err();
/// assert!(err.to_string().contains("`port`"), "{err}");
/// ```
pub fn decode_model<T: Decode>(body: &[u8]) -> Result<T> {
    T::decode_at("", body)
}

/// A model that keeps its object: its text is found, then the typed fields are read from it
/// (see [`from_raw_at`]).
pub(crate) fn decode_object_at<T: Model>(path: &str, body: &[u8]) -> Result<T> {
    let raw: &RawValue = serde_json::from_slice(body).map_err(|e| syntax_error(path, &e, body))?;
    from_raw_at(path, None, unwrap_envelope_raw(raw).get(), body, None)
}

/// `{"status": 200, "content": X}` → `X`; anything else as it is.
fn unwrap_envelope_raw(raw: &RawValue) -> &RawValue {
    /// Exactly the two keys; any other key stops the read at once.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Envelope<'a> {
        #[serde(borrow)]
        status: &'a RawValue,
        #[serde(borrow)]
        content: &'a RawValue,
    }
    if !raw.get().starts_with('{') {
        return raw;
    }
    match serde_json::from_str::<Envelope<'_>>(raw.get()) {
        Ok(e)
            if e.status
                .get()
                .starts_with(|c: char| c == '-' || c.is_ascii_digit()) =>
        {
            e.content
        }
        _ => raw,
    }
}

/// Measurements are large: scanned straight into columns in one pass; a body the scanner does
/// not take is decoded by serde, with path tracking only on failure, to name the field.
pub(crate) fn decode_measurements(path: &str, body: &[u8]) -> Result<Measurements> {
    if let Some(m) = scan::measurements(body) {
        return Ok(m);
    }
    decode_measurements_serde(path, body)
}

/// The serde path of [`decode_measurements`] (the scanner checks nesting as it reads; serde
/// skips unknown values of data points without a limit, so the body is checked first).
pub(crate) fn decode_measurements_serde(path: &str, body: &[u8]) -> Result<Measurements> {
    if let Err((field, message)) = check_nesting(body) {
        return Err(decode_error(path, field, &message, body));
    }
    match serde_json::from_slice::<Measurements>(body) {
        Ok(m) => Ok(m),
        Err(first) => {
            let mut de = serde_json::Deserializer::from_slice(body);
            match serde_path_to_error::deserialize::<_, Measurements>(&mut de) {
                Err(e) => {
                    let field = e.path().to_string();
                    Err(decode_error(path, field, e.inner(), body))
                }
                Ok(_) => Err(decode_error(path, String::new(), &first, body)),
            }
        }
    }
}

/// Decodes one object from its text and keeps the text. `item` (the index in `results`) leads
/// the field path on error; `body` is the whole response, whose start errors show.
///
/// The typed fields are read straight from the text; only a failure reads it again, tracking
/// the path to name the field.
/// A body that is not JSON at all, or not part-way (garbled text, bytes that are not UTF-8 in a
/// string): the error names the field the fault sits in, found by reading the body again with
/// path tracking (only on this error path), or `.` when it is not inside any field.
pub(crate) fn syntax_error(path: &str, e: &serde_json::Error, body: &[u8]) -> crate::Error {
    let mut de = serde_json::Deserializer::from_slice(body);
    let field = match serde_path_to_error::deserialize::<_, serde_json::Value>(&mut de) {
        Err(located) => {
            let p = located.path().to_string();
            if p == "." || p == "?" {
                String::new()
            } else {
                p
            }
        }
        Ok(_) => String::new(),
    };
    decode_error(path, field, e, body)
}

/// Decodes one object of `body` (its text: `text`), keeping that text: as a slice of `shared`
/// (the body, when the caller holds it as `Bytes`) or as a copy.
pub(crate) fn from_raw_at<T: Model>(
    path: &str,
    item: Option<usize>,
    text: &str,
    body: &[u8],
    shared: Option<&bytes::Bytes>,
) -> Result<T> {
    let prefix = || item.map_or_else(String::new, |i| format!("results[{i}]"));
    let within = |inner: String| {
        let prefix = prefix();
        match (prefix.is_empty(), inner == ".") {
            (true, _) => inner,
            (false, true) => prefix,
            (false, false) if inner.starts_with('[') => format!("{prefix}{inner}"),
            (false, false) => format!("{prefix}.{inner}"),
        }
    };
    if !text.starts_with('{') {
        let e = format!("expected a JSON object, found {}", kind_of_text(text));
        return Err(decode_error(path, prefix(), &e, body));
    }
    if let Err((inner, message)) = check_nesting(text.as_bytes()) {
        return Err(decode_error(path, within(inner), &message, body));
    }
    match serde_json::from_str::<T>(text) {
        Ok(mut model) => {
            model.set_raw(crate::models::RawText::within(text, shared));
            Ok(model)
        }
        Err(first) => {
            let mut de = serde_json::Deserializer::from_str(text);
            let (field, message) = match serde_path_to_error::deserialize::<_, T>(&mut de) {
                Err(e) => (within(e.path().to_string()), without_position(e.inner())),
                Ok(_) => (prefix(), without_position(&first)),
            };
            Err(decode_error(path, field, &message, body))
        }
    }
}

/// A serde error's message without its "at line 1 column N", which counts within one object
/// and would mislead about the body (the field path says where instead).
fn without_position(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match message.strip_suffix(&suffix) {
        Some(m) if e.line() > 0 => m.to_string(),
        _ => message,
    }
}

/// What a JSON text is, from its first character (the text is valid JSON).
fn kind_of_text(text: &str) -> &'static str {
    match text.as_bytes().first() {
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Alert, Error, Host};

    fn field_and_message(e: Error) -> (String, String) {
        match e {
            Error::Decode { field, message, .. } => (field, message),
            other => panic!("expected a decode error, got {other}"),
        }
    }

    #[test]
    fn the_nesting_walk_stops_at_a_text_cut_inside_an_escape() {
        // Found by fuzzing: 128 brackets, then a string that ends in a backslash.
        for tail in ["\"\\", "\"a\\", "\"\\\"\\"] {
            let text = format!("{}{tail}", "[".repeat(NESTING_LIMIT));
            assert!(check_nesting(text.as_bytes()).is_err(), "{text}");
            let text = format!("{}{tail}", "[{".repeat(NESTING_LIMIT / 2 - 1));
            assert_eq!(check_nesting(text.as_bytes()), Ok(()), "{text}");
        }
    }

    #[test]
    fn page_items_keep_the_servers_text_exactly() {
        let body = br#"{"totalCount": 2, "links": [{"rel": "self", "href": "https://x/a"}],
            "results": [ {"id":"a1","status":"OPEN","zeta":1.0e3,"alpha":[1, 2]} ,
                         {"id":"a2", "currentValue": {"number": 12, "units": "RAW"}} ]}"#;
        let page: Page<Alert> = decode_page("/globalAlerts", body).unwrap();
        assert_eq!(page.total_count, Some(2));
        assert_eq!(page.link("self"), Some("https://x/a"));
        assert_eq!(page.items.len(), 2);
        // Key order, spacing inside and number spelling as sent; parsed on demand.
        assert_eq!(
            page.items[0].raw_json(),
            r#"{"id":"a1","status":"OPEN","zeta":1.0e3,"alpha":[1, 2]}"#
        );
        assert_eq!(page.items[0].raw()["zeta"], 1000.0);
        assert_eq!(
            page.items[1].raw_json(),
            r#"{"id":"a2", "currentValue": {"number": 12, "units": "RAW"}}"#
        );
        assert_eq!(
            page.items[1].current_value.as_ref().unwrap().number,
            Some(12.0)
        );
    }

    #[test]
    fn page_item_errors_name_the_item_and_field_without_a_misleading_position() {
        let body = br#"{"totalCount": 2, "results": [{"id": "a1"}, {"id": "a2", "created": "yesterday"}]}"#;
        let (field, message) = field_and_message(decode_page::<Alert>("/p", body).unwrap_err());
        assert_eq!(field, "results[1].created");
        // chrono's words; serde_json would add "at line 1 column 15", counted within the item.
        assert_eq!(message, "input contains invalid characters");

        let body = br#"{"totalCount": 2, "results": [{"id": "a1"}, 7]}"#;
        let (field, message) = field_and_message(decode_page::<Alert>("/p", body).unwrap_err());
        assert_eq!(
            (field.as_str(), message.as_str()),
            ("results[1]", "expected a JSON object, found a number")
        );
    }

    #[test]
    fn pages_not_in_the_documented_shape_say_what_is_wrong() {
        let cases: [(&[u8], &str, &str); 5] = [
            (
                br#"{"totalCount": 1}"#,
                "results",
                "missing field `results`",
            ),
            (
                br#"{"results": {"id": "a1"}}"#,
                "results",
                "expected an array, found an object",
            ),
            (
                br#"{"results": [], "totalCount": -1}"#,
                "totalCount",
                "expected a non-negative integer",
            ),
            (
                br#"{"results": [], "links": [{"rel": 5}]}"#,
                "links[0].rel",
                "invalid type",
            ),
            (br#"[{"id": "a1"}]"#, ".", "expected a list object"),
        ];
        for (body, want_field, want_message) in cases {
            let (field, message) = field_and_message(decode_page::<Alert>("/p", body).unwrap_err());
            assert_eq!(field, want_field, "{}", String::from_utf8_lossy(body));
            assert!(message.contains(want_message), "{message}");
        }
    }

    #[test]
    fn an_unusual_page_still_decodes_through_the_value() {
        // A repeated key is refused by the typed page and accepted (last wins) by a value.
        let body = br#"{"results": [{"id": "old"}], "results": [{"id": "a1", "status": "CLOSED"}], "totalCount": 1}"#;
        let page: Page<Alert> = decode_page("/p", body).unwrap();
        assert_eq!(page.items.len(), 1);
        assert_eq!(page.items[0].id.as_deref(), Some("a1"));
        assert_eq!(page.items[0].raw()["status"], "CLOSED");
    }

    #[test]
    fn single_objects_keep_their_text_with_or_without_an_envelope() {
        let host: Host = decode_object_at("/h", b" {\"id\": \"h1\", \"port\": 27017} \n").unwrap();
        assert_eq!(host.raw_json(), r#"{"id": "h1", "port": 27017}"#);
        let host: Host =
            decode_object_at("/h", br#"{"status": 200, "content": {"id": "h1"}}"#).unwrap();
        assert_eq!(host.raw_json(), r#"{"id": "h1"}"#);
        // Only the exact envelope shape is unwrapped.
        let host: Host =
            decode_object_at("/h", br#"{"status": "OK", "content": {"id": "h1"}}"#).unwrap();
        assert_eq!(host.id, None);
        assert_eq!(host.raw()["status"], "OK");
        let (field, message) =
            field_and_message(decode_object_at::<Host>("/h", b"[1]").unwrap_err());
        assert_eq!(
            (field.as_str(), message.as_str()),
            (".", "expected a JSON object, found an array")
        );
        let (field, _) =
            field_and_message(decode_object_at::<Host>("/h", br#"{"port": "27017"}"#).unwrap_err());
        assert_eq!(field, "port");
    }

    #[test]
    fn a_model_not_from_a_response_serializes_as_an_empty_object() {
        let alert = Alert::default();
        assert_eq!(alert.raw_json(), "{}");
        assert!(alert.raw().is_empty());
        assert_eq!(serde_json::to_string(&alert).unwrap(), "{}");
    }
}
