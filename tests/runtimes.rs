//! A runtime per trust level, through a whole node: untrusted code runs on gVisor's runsc
//! (cold and from the warm pool), trusted code on runc, and each run's audit entry names
//! the runtime it ran on.

mod pipeline_support;

use cordon::protocol::exec::Status;
use pipeline_support::*;

fn runtime_of(node: &Node, request_id: &str) -> String {
    let created = audit_body(&node.audit_dir(), request_id, "container_created");
    created["runtime"].as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn untrusted_code_runs_on_runsc_and_trusted_code_on_runc() {
    let nats = Nats::start();
    let config = test_config(
        "[sandbox.runtimes]\nuntrusted = \"runsc\"\n[network]\nallowed_trust = [\"trusted\"]\n",
    );
    // One warm untrusted sandbox: the first untrusted job takes it, the second starts cold.
    let pool = [("CORDON__POOL__UNTRUSTED", "1")];
    let mut node = Node::up_with_env(&nats, "runtimes", &config, &pool);
    let client = client(&nats).await;
    let code = "import platform\nprint(platform.release())";
    let mut seen = Vec::new();
    for trust in ["untrusted", "untrusted", "trusted"] {
        let result = run_request(&client, &request(code, trust)).await;
        assert_eq!(result.status, Status::Completed, "{trust}: {result:?}");
        seen.push((
            trust,
            runtime_of(&node, &result.request_id),
            result.stdout.trim().to_string(),
        ));
    }
    let host_release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    for (trust, runtime, release) in &seen {
        let expected = if *trust == "untrusted" {
            "runsc"
        } else {
            "runc"
        };
        assert_eq!(runtime, expected, "{seen:?}");
        // The kernel a program sees: gVisor's own under runsc, the host's under runc.
        assert_eq!(
            release == host_release.trim(),
            *trust == "trusted",
            "{seen:?}"
        );
    }
    // The warm pool keeps a sandbox until the node stops; then nothing is left.
    node.stop();
    assert_no_containers_within(&node.host, std::time::Duration::from_secs(20));
}
