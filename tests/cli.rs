//! The command line as a new user meets it: the embedded `cordon exec` on the shipped
//! example, plain messages when something is missing, documented exit codes, the doctor,
//! and the audit commands on the log the run left.

mod pipeline_support;

use std::process::{Command, Output};

use pipeline_support::cordon_bin;

fn cordon(data_dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(cordon_bin());
    command.arg("--data-dir").arg(data_dir).args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run cordon")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_example_runs_embedded_and_leaves_a_verifiable_audit_log() {
    let dir = tempfile::tempdir().unwrap();
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/hello.py");
    let host = [("CORDON__NODE__HOST_ID", "t-cli-example")];
    let run = cordon(dir.path(), &["exec", "--json", example], &host);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let document: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(document["status"], "completed");
    let stdout = document["stdout"].as_str().unwrap();
    let uid: u64 = stdout
        .split("as uid ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no uid in {stdout:?}"));
    assert!(
        (1_879_048_192..1_879_048_192 + 65_536).contains(&uid),
        "the sandbox runs as a uid of its own from the range: {uid}"
    );
    assert!(document["stdout"].as_str().unwrap().contains("['lo']"));
    let verify = cordon(dir.path(), &["audit", "verify"], &[]);
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));
    let id = document["request_id"].as_str().unwrap();
    let show = cordon(dir.path(), &["audit", "show", "--request", id], &[]);
    let kinds: Vec<String> = text(&show.stdout)
        .lines()
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(kinds.first().map(String::as_str), Some("received"));
    assert_eq!(kinds.last().map(String::as_str), Some("finished"));
    assert!(pipeline_support::containers_of("t-cli-example").is_empty());
}

/// A missing sandbox image is named with the command that builds it, and `cordon exec`
/// exits 69 (cordon unavailable), as the README says.
#[test]
fn a_missing_image_is_named_with_the_command_that_builds_it() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("p.py");
    std::fs::write(&program, "print(1)\n").unwrap();
    let settings = dir.path().join("nope.toml");
    std::fs::write(&settings, "[sandbox]\nimage = \"cordon-nope:0\"\n").unwrap();
    let env = [("CORDON__NODE__HOST_ID", "t-cli-noimage")];
    let with_settings = ["--config", settings.to_str().unwrap()];
    let exec = [&with_settings[..], &["exec", program.to_str().unwrap()]].concat();
    let run = cordon(dir.path(), &exec, &env);
    assert_eq!(run.status.code(), Some(69), "{}", text(&run.stderr));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains("cordon-nope:0") && stderr.contains("cordon image build"),
        "{stderr}"
    );
    let doctor = cordon(
        dir.path(),
        &[&with_settings[..], &["doctor"]].concat(),
        &env,
    );
    assert_eq!(doctor.status.code(), Some(1));
    let report = text(&doctor.stdout);
    assert!(
        report.contains("FAIL image") && report.contains("cordon image build"),
        "{report}"
    );
}

/// With untrusted code on runsc, the doctor checks both runtimes are registered as cordon
/// needs and proves from inside a sandbox of each that the seccomp profile holds.
#[test]
fn the_doctor_proves_each_runtime_enforces_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("split.toml");
    let split =
        "[sandbox.runtimes]\nuntrusted = \"runsc\"\n[network]\nallowed_trust = [\"trusted\"]\n";
    std::fs::write(&settings, split).unwrap();
    let args = ["--config", settings.to_str().unwrap(), "doctor"];
    let doctor = cordon(
        dir.path(),
        &args,
        &[("CORDON__NODE__HOST_ID", "t-cli-doctor")],
    );
    let report = text(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "{report}");
    for runtime in ["runc", "runsc"] {
        assert!(
            report.contains(&format!(
                "ok   seccomp   {runtime}: io_uring, clone3 and vsock refused"
            )),
            "{report}"
        );
    }
    assert!(report.contains("--oci-seccomp"), "{report}");
    assert!(pipeline_support::containers_of("cordon-doctor").is_empty());
}

#[test]
fn bad_usage_and_unreadable_files_get_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = cordon(dir.path(), &["exec", "/no/such/file.py"], &[]);
    assert_eq!(missing.status.code(), Some(2));
    let stderr = text(&missing.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("/no/such/file.py"));
    let bad_trust = cordon(dir.path(), &["exec", "--trust", "root", "-"], &[]);
    assert_eq!(bad_trust.status.code(), Some(2));
}

#[test]
fn help_names_every_command() {
    let help = Command::new(cordon_bin()).arg("--help").output().unwrap();
    let help = text(&help.stdout);
    for command in [
        "up", "serve", "exec", "assess", "keygen", "override", "image", "doctor", "audit",
    ] {
        assert!(
            help.contains(command),
            "{command} missing from --help:\n{help}"
        );
    }
}

/// A typo'd section or key in a settings file is refused, naming the key and the file.
#[test]
fn an_unknown_key_in_a_settings_file_is_refused_naming_key_and_file() {
    let dir = tempfile::tempdir().unwrap();
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/hello.py");
    for (settings, key) in [
        ("[limitz.trusted]\ncpus = 1\n", "`limitz`"),
        ("[limits.trusted]\ncpu = 1\n", "`limits.trusted.cpu`"),
    ] {
        let file = dir.path().join("typo.toml");
        std::fs::write(&file, settings).unwrap();
        let file = file.to_str().unwrap();
        let run = cordon(dir.path(), &["--config", file, "assess", program], &[]);
        assert_eq!(run.status.code(), Some(2), "{settings}");
        let stderr = text(&run.stderr);
        assert!(stderr.contains(key) && stderr.contains(file), "{stderr}");
    }
}

/// A `CORDON__...` variable naming no setting is refused, naming the key and the variable.
#[test]
fn an_unknown_key_in_the_environment_is_refused_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/hello.py");
    let env = [("CORDON__LIMITS__TRUSTED__CPU", "1")];
    let run = cordon(dir.path(), &["assess", program], &env);
    assert_eq!(run.status.code(), Some(2));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains("`limits.trusted.cpu`") && stderr.contains("CORDON__LIMITS__TRUSTED__CPU"),
        "{stderr}"
    );
}

/// `--nats` naming a port where nothing listens fails at once saying the connection was
/// refused (exit 69), instead of a publish timing out seconds later.
#[test]
fn a_nats_url_where_nothing_listens_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/hello.py");
    let url = format!("nats://127.0.0.1:{}", pipeline_support::free_port());
    let started = std::time::Instant::now();
    let run = cordon(dir.path(), &["exec", "--nats", &url, program], &[]);
    let took = started.elapsed();
    assert_eq!(run.status.code(), Some(69), "{}", text(&run.stderr));
    let stderr = text(&run.stderr);
    assert!(
        stderr.to_lowercase().contains("refused") && stderr.contains(&url),
        "{stderr}"
    );
    assert!(took < std::time::Duration::from_secs(2), "took {took:?}");
}

/// `--timeout` negative, NaN, 0 or above the trust level's deadline is refused with the
/// allowed range (exit 2) before anything is started.
#[test]
fn a_timeout_outside_the_trust_levels_range_is_refused_with_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/hello.py");
    for timeout in ["-1", "NaN", "0", "10.5", "inf"] {
        let args = [
            "exec",
            "--trust",
            "untrusted",
            "--timeout",
            timeout,
            program,
        ];
        let run = cordon(dir.path(), &args, &[]);
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "--timeout {timeout}: {stderr}");
        assert!(
            stderr.contains("more than 0 and at most 10 s for trust untrusted"),
            "--timeout {timeout}: {stderr}"
        );
    }
    let trusted = ["exec", "--trust", "trusted", "--timeout", "121", program];
    let run = cordon(dir.path(), &trusted, &[]);
    assert!(text(&run.stderr).contains("at most 120 s"), "{run:?}");
}
