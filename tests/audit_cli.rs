//! `cordon audit` on a log on disk: prints the public key and the latest checkpoint, gives
//! inclusion and consistency proofs that check out, verifies against a saved checkpoint,
//! and exits non-zero naming the problem once the tail is cut off.

mod audit_common;

use std::path::Path;
use std::process::{Command, Output};

use audit_common::{append_range, frame_ranges, only_segment};
use cordon::audit::checkpoint::NoteVerifier;
use cordon::audit::merkle::{verify_consistency, verify_inclusion, Hash};
use cordon::audit::{AuditLog, LogOptions};

fn cordon(data_dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cordon"))
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn hash(value: &serde_json::Value) -> Hash {
    hex::decode(value.as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap()
}

fn hashes(value: &serde_json::Value) -> Vec<Hash> {
    value.as_array().unwrap().iter().map(hash).collect()
}

/// A data dir whose log has 7 entries under a checkpoint and 3 more after it.
fn data_dir() -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    let (mut log, _) =
        AuditLog::open_with(&data.path().join("audit"), LogOptions::default()).unwrap();
    append_range(&mut log, 0, 7);
    log.checkpoint().unwrap().unwrap();
    append_range(&mut log, 7, 10);
    data
}

#[test]
fn pubkey_checkpoint_and_proofs_check_out_with_the_library_verifiers() {
    let data = data_dir();
    let verifier =
        NoteVerifier::parse(&stdout(&cordon(data.path(), &["audit", "pubkey"]))).unwrap();
    let note = stdout(&cordon(data.path(), &["audit", "checkpoint"]));
    let checkpoint = verifier.open(&note).unwrap();
    assert_eq!(checkpoint.size, 7);

    let proof: serde_json::Value =
        serde_json::from_str(&stdout(&cordon(data.path(), &["audit", "prove", "3"]))).unwrap();
    assert_eq!(proof["size"], 7, "proved against the signed checkpoint");
    let leaf = hash(&proof["leaf"]);
    verify_inclusion(&leaf, 3, 7, &hashes(&proof["proof"]), &checkpoint.root).unwrap();

    let consistency: serde_json::Value = serde_json::from_str(&stdout(&cordon(
        data.path(),
        &["audit", "consistency", "7", "10"],
    )))
    .unwrap();
    let new_root = hash(&consistency["new_root"]);
    let proof = hashes(&consistency["proof"]);
    verify_consistency(7, 10, &checkpoint.root, &new_root, &proof).unwrap();
}

#[test]
fn verify_against_a_saved_checkpoint_passes_then_names_a_cut_tail() {
    let data = data_dir();
    let saved = data.path().join("saved-checkpoint");
    std::fs::write(
        &saved,
        stdout(&cordon(data.path(), &["audit", "checkpoint"])),
    )
    .unwrap();
    let args = ["audit", "verify", "--checkpoint", saved.to_str().unwrap()];
    assert!(stdout(&cordon(data.path(), &args)).starts_with("ok: 10 entries"));

    let segment = only_segment(&data.path().join("audit"));
    let keep = frame_ranges(&segment)[4].1;
    let bytes = std::fs::read(&segment).unwrap();
    std::fs::write(&segment, &bytes[..keep]).unwrap();
    std::fs::remove_file(data.path().join("audit/checkpoints")).unwrap();
    let failed = cordon(data.path(), &args);
    assert_eq!(failed.status.code(), Some(1));
    let message = String::from_utf8_lossy(&failed.stderr);
    assert!(
        message.contains("holds 5 entries") && message.contains("signed 7"),
        "{message}"
    );
}

#[test]
fn verify_exits_non_zero_naming_an_altered_blob() {
    use cordon::protocol::audit::{AuditEvent, AuditRecord};
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().join("audit");
    let (mut log, _) = AuditLog::open_with(&dir, LogOptions::default()).unwrap();
    let code = "print('kept as a blob')\n";
    let event = AuditEvent {
        event_id: "req-1.received".into(),
        actor: "assessor".into(),
        host: "host-1".into(),
        at_ms: 1,
        record: AuditRecord::Received {
            code_sha256: cordon::audit::blobs::blob_name(code.as_bytes()),
            code_bytes: code.len() as u64,
            trust: cordon::protocol::assessor::TrustLevel::Untrusted,
            origin: cordon::protocol::assessor::Origin::External,
            client: None,
            submitter: "alice".into(),
            code: Some(code.into()),
            input: None,
        },
    };
    log.append("req-1", &event).unwrap();
    log.checkpoint().unwrap().unwrap();
    drop(log);
    assert!(stdout(&cordon(data.path(), &["audit", "verify"])).starts_with("ok: 1 entries"));

    let blob = cordon::audit::blobs::BlobStore::new(&dir)
        .path_of(&cordon::audit::blobs::blob_name(code.as_bytes()))
        .unwrap();
    let mut bytes = std::fs::read(&blob).unwrap();
    bytes[0] ^= 0x01;
    std::fs::write(&blob, bytes).unwrap();
    let failed = cordon(data.path(), &["audit", "verify"]);
    assert_eq!(failed.status.code(), Some(1));
    let message = String::from_utf8_lossy(&failed.stderr);
    assert!(
        message.contains("entry 0: blob")
            && message.contains("(code)")
            && message.contains("altered"),
        "{message}"
    );
}
