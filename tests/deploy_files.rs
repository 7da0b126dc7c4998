//! The files in deploy/ name what a Debian machine really has: the nats-server unit runs
//! the binary where Debian's package installs it.

/// deploy/systemd's NATS unit starts `/usr/sbin/nats-server`, the path `apt-get install
/// nats-server` gives (the tests' own nats-server comes from that package).
#[test]
fn the_nats_unit_runs_the_binary_debian_installs() {
    let unit = include_str!("../deploy/systemd/cordon-nats.service");
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
