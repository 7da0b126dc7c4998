//! A request names its sandbox image from the `[sandbox.images]` allowlist: `data` runs a
//! pandas program through the whole pipeline (over a real nats-server, and embedded with
//! `cordon exec --image data`), cold even beside a warm sandbox of the default image; a name
//! not on the list is `rejected` with `unknown_image`, and the rejection is audited.
//! Needs Docker, nats-server and both images.

mod pipeline_support;

use std::process::Command;

use cordon::protocol::exec::{ExecRequest, Status};
use pipeline_support::*;

const DATA_IMAGE: &str = "cordon-python-data:3.11";

const PANDAS: &str = "import pandas\n\
df = pandas.DataFrame({'city': ['a', 'b', 'a'], 'sales': [1, 2, 3]})\n\
print(df.groupby('city')['sales'].sum().to_dict())\n";

/// The pipeline's test settings with one warm untrusted sandbox (of the default image) and
/// memory enough for pandas.
fn config() -> String {
    let config = test_config("");
    assert!(
        config.contains("[pool]\nuntrusted = 0") && config.contains("memory_bytes = 134217728")
    );
    config
        .replace("[pool]\nuntrusted = 0", "[pool]\nuntrusted = 1")
        .replace("memory_bytes = 134217728", "memory_bytes = 536870912")
}

fn naming(image: &str) -> ExecRequest {
    ExecRequest {
        image: Some(image.to_string()),
        ..request(PANDAS, "untrusted")
    }
}

/// Over NATS: a job naming `data` runs pandas in a fresh sandbox of the data image (the
/// audit log names it), not in the host's warm sandbox; an unknown name is rejected with
/// `unknown_image` and its rejection is in the audit log.
#[tokio::test]
async fn a_job_naming_data_runs_pandas_cold_and_an_unknown_name_is_rejected_and_audited() {
    let nats = Nats::start();
    let mut node = Node::up(&nats, "image-choice", &config());
    let client = client(&nats).await;
    let host = node.host.clone();
    let warm = wait_for_running_sandboxes(&host).await;

    let id = fresh_id();
    let result = client
        .run(&id, &naming("data"), std::time::Duration::from_secs(120))
        .await
        .expect("a result");
    assert_eq!(result.status, Status::Completed, "{result:?}");
    assert_eq!(result.stdout, "{'a': 4, 'b': 2}\n", "{result:?}");
    let created = audit_entries(&node.audit_dir(), &id)
        .into_iter()
        .find(|e| e.kind == "container_created")
        .expect("a container_created entry");
    assert_eq!(created.body["image"], DATA_IMAGE, "{:?}", created.body);
    let container = created.body["container_id"].as_str().unwrap_or_default();
    let is_warm = |id: &str| warm.iter().any(|w| id.starts_with(w.as_str()));
    assert!(!is_warm(container), "ran in the warm sandbox {container}");
    assert!(
        containers_of(&host).iter().any(|c| is_warm(c)),
        "the warm sandbox was used up: {warm:?}"
    );

    let odd = fresh_id();
    let rejected = client
        .run(&odd, &naming("gpu"), std::time::Duration::from_secs(60))
        .await
        .expect("a result");
    assert_eq!(rejected.status, Status::Rejected);
    let error = rejected.error.expect("an error");
    assert_eq!(error.code, "unknown_image");
    assert!(error.message.contains("\"gpu\""), "{}", error.message);
    let entries = audit_entries(&node.audit_dir(), &odd);
    let audited = entries
        .iter()
        .find(|e| e.kind == "rejected")
        .expect("audited");
    assert!(
        audited.body.to_string().contains("unknown_image"),
        "{:?}",
        audited.body
    );
    assert!(!entries.iter().any(|e| e.kind == "container_created"));
    assert!(node.stop().success());
    assert_no_containers_within(&host, std::time::Duration::from_secs(10));
}

/// `cordon exec --image data` runs a pandas program through the embedded pipeline, and
/// `--image` with a name not on the list exits 2 with `unknown_image`.
#[test]
fn cordon_exec_with_image_data_runs_pandas() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("sales.py");
    std::fs::write(&program, PANDAS).unwrap();
    let exec = |image: &str| {
        Command::new(cordon_bin())
            .arg("--data-dir")
            .arg(dir.path())
            .args(["exec", "--json", "--trust", "trusted", "--image", image])
            .arg(&program)
            .env("CORDON__NODE__HOST_ID", "t-image-choice-cli")
            .output()
            .expect("run cordon")
    };
    let run = exec("data");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let document: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(document["status"], "completed", "{document}");
    assert_eq!(document["stdout"], "{'a': 4, 'b': 2}\n", "{document}");
    let refused = exec("nope");
    assert_eq!(refused.status.code(), Some(2));
    let document: serde_json::Value = serde_json::from_slice(&refused.stdout).unwrap();
    assert_eq!(document["status"], "rejected", "{document}");
    assert_eq!(document["error"]["code"], "unknown_image", "{document}");
    assert!(containers_of("t-image-choice-cli").is_empty());
}

/// A session in the data image: numpy, pandas and matplotlib import, a DataFrame made in
/// one cell is used in the next, and a figure the cell draws and shows (never saved by the
/// program) comes back as a PNG file whose bytes are an image of the figure's size.
#[tokio::test]
async fn a_data_session_keeps_a_dataframe_and_returns_its_plot_as_a_png() {
    let nats = Nats::start();
    let mut node = Node::up(&nats, "image-choice-plot", &config());
    let client = client(&nats).await;
    let in_session = |code: &str, session: &str| ExecRequest {
        session: Some(session.to_string()),
        image: Some("data".into()),
        ..request(code, "untrusted")
    };
    let opened = run_request(
        &client,
        &in_session(
            "import numpy, pandas\nimport matplotlib.pyplot as plt",
            "new",
        ),
    )
    .await;
    assert_eq!(opened.status, Status::Completed, "{opened:?}");
    let id = opened.session.expect("a session").id;
    let frame = "df = pandas.DataFrame({'x': numpy.arange(5), 'y': numpy.arange(5) ** 2})";
    assert_eq!(
        run_request(&client, &in_session(frame, &id)).await.status,
        Status::Completed
    );
    let plot = "plt.figure(figsize=(4, 3), dpi=50)\nplt.plot(df.x, df.y)\nplt.show()\nprint(int(df.y.sum()))";
    let drawn = run_request(&client, &in_session(plot, &id)).await;
    assert_eq!(drawn.status, Status::Completed, "{drawn:?}");
    assert_eq!(drawn.stdout, "30\n", "{drawn:?}");
    assert!(
        !drawn.stderr.contains("non-GUI"),
        "plt.show() warned: {drawn:?}"
    );
    assert_eq!(drawn.files.len(), 1, "{drawn:?}");
    let png = &drawn.files[0];
    assert_eq!(png.media_type, "image/png");
    assert!(png.name.ends_with(".png"), "{}", png.name);
    let bytes = png.content.as_slice();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((width, height), (200, 150), "4 x 3 inches at 50 dpi");
    // Returned once: the figure is closed after the cell.
    let next = run_request(&client, &in_session("print(len(plt.get_fignums()))", &id)).await;
    assert_eq!(next.stdout, "0\n", "{next:?}");
    assert!(next.files.is_empty());
    assert!(node.stop().success());
    assert_no_containers_within(&node.host, std::time::Duration::from_secs(10));
}
