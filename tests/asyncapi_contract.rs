//! `docs/asyncapi.yaml` cannot drift from the code: every subject cordon builds has a channel
//! and every channel is a cordon subject; every message's schema lists exactly the fields the
//! Rust type serializes (nested types too); every example decodes into the Rust type.

use cordon::protocol::assessor::{Assessed, BlockedEvent};
use cordon::protocol::audit::{Alert, AuditEvent, CheckpointPublished};
use cordon::protocol::exec::{DeadLetterEvent, ExecRequest, ExecResult, OutputChunk};
use cordon::protocol::grant::{GrantDecision, HeldRequest, OverrideGrant};
use cordon::protocol::monitor::{KillOrder, UsageSample};
use cordon::protocol::scheduler::{Scheduled, SessionList};
use cordon::protocol::supervisor::{ContainerExited, ContainerStarted, HostLoad, ViolationEvent};
use cordon::protocol::{Envelope, Subject};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

fn document() -> Value {
    serde_yaml_ng::from_str(include_str!("../docs/asyncapi.yaml")).expect("asyncapi.yaml parses")
}

/// Whether a channel address (`a.b.{param}`) covers a concrete subject.
fn address_matches(address: &str, subject: &str) -> bool {
    let (pattern, tokens): (Vec<&str>, Vec<&str>) =
        (address.split('.').collect(), subject.split('.').collect());
    pattern.len() == tokens.len()
        && pattern
            .iter()
            .zip(&tokens)
            .all(|(p, t)| p == t || (p.starts_with('{') && p.ends_with('}')))
}

fn channel_addresses(doc: &Value) -> Vec<String> {
    let channels = doc["channels"].as_object().expect("channels");
    channels
        .values()
        .map(|c| c["address"].as_str().expect("address").to_string())
        .collect()
}

#[test]
fn every_subject_has_a_channel_and_every_channel_is_a_subject() {
    let doc = document();
    let addresses = channel_addresses(&doc);
    for subject in Subject::examples() {
        let text = subject.to_subject();
        let matching = addresses
            .iter()
            .filter(|a| address_matches(a, &text))
            .count();
        assert_eq!(matching, 1, "{text} should match exactly one channel");
    }
    for address in &addresses {
        let concrete = address
            .replace("{host}", "worker-1")
            .replace("{client}", "alice")
            .replace("{request_id}", "01J9ZQ3V7Y8K2M4N6P8R0T2V4X");
        assert!(
            Subject::parse(&concrete).is_ok(),
            "channel {address} is not a cordon subject"
        );
    }
}

/// Whether a property is marked `x-omitted-when-empty: true`: a field the Rust type skips
/// when it is empty or None (`skip_serializing_if`), so an example may lack it.
fn omitted_when_empty(property: &Value) -> bool {
    property["x-omitted-when-empty"] == true
}

/// Checks that `value` has exactly the properties of schema `name`, recursing into `$ref`s.
/// A property marked `omitted_when_empty` may be absent; when present it is checked.
fn assert_fields_match(doc: &Value, name: &str, value: &Value) {
    let schema = &doc["components"]["schemas"][name];
    let properties = schema["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("schema {name} has properties"));
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("{name} serializes as an object: {value}"));
    let mut documented: Vec<&String> = properties
        .iter()
        .filter(|(field, property)| object.contains_key(*field) || !omitted_when_empty(property))
        .map(|(field, _)| field)
        .collect();
    let mut serialized: Vec<&String> = object.keys().collect();
    documented.sort();
    serialized.sort();
    assert_eq!(
        documented, serialized,
        "fields of {name}: documented vs serialized"
    );
    for (field, property) in properties {
        if let Some(value) = object.get(field) {
            check_nested(doc, property, value);
        }
    }
}

fn check_nested(doc: &Value, property: &Value, value: &Value) {
    let reference = property["$ref"].as_str().or_else(|| {
        property["oneOf"]
            .as_array()?
            .iter()
            .find_map(|alternative| alternative["$ref"].as_str())
    });
    if let (Some(reference), true) = (reference, value.is_object()) {
        assert_fields_match(doc, reference.rsplit('/').next().unwrap(), value);
    }
    if let (Some(items), Some(elements)) = (property["items"]["$ref"].as_str(), value.as_array()) {
        for element in elements {
            assert_fields_match(doc, items.rsplit('/').next().unwrap(), element);
        }
    }
}

/// Every example of message `name` decodes as `Envelope<T>` and matches schema `name`, and
/// each property of `name` that may be omitted is present in some example (so it is checked).
fn check_message<T: DeserializeOwned + Serialize>(doc: &Value, name: &str) {
    let examples = doc["components"]["messages"][name]["examples"].as_array();
    let examples = examples.unwrap_or_else(|| panic!("message {name} has examples"));
    assert!(!examples.is_empty(), "message {name} has examples");
    let mut bodies = Vec::new();
    for example in examples {
        let envelope: Envelope<T> = serde_json::from_value(example["payload"].clone())
            .unwrap_or_else(|e| panic!("example of {name} does not decode: {e}"));
        let body = serde_json::to_value(&envelope.body).unwrap();
        assert_fields_match(doc, name, &body);
        bodies.push(body);
    }
    let properties = doc["components"]["schemas"][name]["properties"].as_object();
    for (field, property) in properties.into_iter().flatten() {
        assert!(
            !omitted_when_empty(property) || bodies.iter().any(|b| b.get(field).is_some()),
            "no example of {name} shows its field {field}"
        );
    }
}

#[test]
fn every_message_schema_and_example_matches_its_rust_type() {
    let doc = document();
    check_message::<ExecRequest>(&doc, "ExecRequest");
    check_message::<ExecResult>(&doc, "ExecResult");
    check_message::<Assessed>(&doc, "Assessed");
    check_message::<Scheduled>(&doc, "Scheduled");
    check_message::<AuditEvent>(&doc, "AuditEvent");
    check_message::<ViolationEvent>(&doc, "ViolationEvent");
    check_message::<BlockedEvent>(&doc, "BlockedEvent");
    check_message::<HostLoad>(&doc, "HostLoad");
    check_message::<ContainerStarted>(&doc, "ContainerStarted");
    check_message::<ContainerExited>(&doc, "ContainerExited");
    check_message::<KillOrder>(&doc, "KillOrder");
    check_message::<UsageSample>(&doc, "UsageSample");
    check_message::<DeadLetterEvent>(&doc, "DeadLetterEvent");
    check_message::<HeldRequest>(&doc, "HeldRequest");
    check_message::<OverrideGrant>(&doc, "OverrideGrant");
    check_message::<GrantDecision>(&doc, "GrantDecision");
    check_message::<Alert>(&doc, "Alert");
    check_message::<CheckpointPublished>(&doc, "CheckpointPublished");
    check_message::<OutputChunk>(&doc, "OutputChunk");
    check_message::<SessionList>(&doc, "SessionList");
    // The session list request has no body type: its (inline) example wraps `null`.
    let ask = &doc["channels"]["sessionList"]["messages"]["SessionListRequest"];
    for example in ask["examples"]
        .as_array()
        .expect("SessionListRequest has examples")
    {
        serde_json::from_value::<Envelope<()>>(example["payload"].clone())
            .expect("example of SessionListRequest decodes");
    }
    let documented = doc["components"]["messages"].as_object().unwrap().len();
    assert_eq!(
        documented, 20,
        "a message was added to the document without a check here"
    );
}
