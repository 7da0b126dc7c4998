//! The files in deploy/ name what a Debian machine really has: the nats-server units run
//! the binary where Debian's package installs it, and the cluster's nats-server
//! configuration is one nats-server accepts.

mod pipeline_support;

use std::process::Command;

/// deploy/systemd's NATS units start `/usr/sbin/nats-server`, the path `apt-get install
/// nats-server` gives (the tests' own nats-server comes from that package).
#[test]
fn the_nats_units_run_the_binary_debian_installs() {
    for unit in [
        include_str!("../deploy/systemd/cordon-nats.service"),
        include_str!("../deploy/systemd/cordon-nats-cluster.service"),
    ] {
        assert_runs_debians_nats_server(unit);
    }
}

fn assert_runs_debians_nats_server(unit: &str) {
    let exec = unit
        .lines()
        .find_map(|line| line.strip_prefix("ExecStart="))
        .expect("the unit has an ExecStart");
    let binary = exec.split_whitespace().next().unwrap_or_default();
    assert_eq!(binary, "/usr/sbin/nats-server", "{exec}");
    assert!(
        std::path::Path::new(binary).exists(),
        "{binary} is not where this machine's nats-server package put it"
    );
}

/// deploy/nats/cluster.conf (with the cordon.conf it includes) passes nats-server's own
/// configuration check once its environment is given, and fails it without the member's
/// name. The check runs in a network namespace of its own, so nothing can leave the machine.
#[test]
fn the_cluster_configuration_is_one_nats_server_accepts() {
    let conf = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/nats/cluster.conf");
    let passwords: Vec<(String, String)> = pipeline_support::DEPLOY_NATS_USERS
        .iter()
        .map(|user| {
            let variable = format!("CORDON_NATS_{}_PASSWORD", user.to_uppercase());
            (variable, "test".to_string())
        })
        .collect();
    let check = |name: Option<&str>| {
        let mut command = Command::new("unshare");
        command
            .args(["-n", "nats-server", "-t", "-c", conf])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(passwords.iter().cloned());
        if let Some(name) = name {
            command.env("CORDON_NATS_SERVER_NAME", name);
        }
        command.output().expect("run unshare -n nats-server -t")
    };
    let named = check(Some("nats-1"));
    assert!(
        named.status.success(),
        "{}{}",
        String::from_utf8_lossy(&named.stdout),
        String::from_utf8_lossy(&named.stderr)
    );
    let unnamed = check(None);
    assert!(!unnamed.status.success(), "a member needs its name");
    assert!(String::from_utf8_lossy(&unnamed.stderr).contains("CORDON_NATS_SERVER_NAME"));
}
