//! `cordon image inspect` lists the Python packages of an image, read in a sandbox of it:
//! numpy (with its version) for the data image, in text and in JSON, and not for the
//! default image, which lists pip. Needs Docker and both images.

mod pipeline_support;

use std::process::Command;

fn inspect(args: &[&str]) -> String {
    let run = Command::new(pipeline_support::cordon_bin())
        .args(["image", "inspect"])
        .args(args)
        .output()
        .expect("run cordon");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{args:?}: {stderr}");
    String::from_utf8_lossy(&run.stdout).into_owned()
}

/// The version the text listing gives `package`, if it lists it.
fn text_version(listing: &str, package: &str) -> Option<String> {
    listing.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        (fields.next()? == package).then(|| fields.next().unwrap_or_default().to_string())
    })
}

fn json_version(listing: &str, package: &str) -> Option<String> {
    let document: serde_json::Value = serde_json::from_str(listing).expect("JSON");
    document["packages"]
        .as_array()
        .expect("a packages array")
        .iter()
        .find(|p| p["name"] == package)
        .map(|p| p["version"].as_str().expect("a version").to_string())
}

/// numpy is listed for the data image (same version in text and JSON), not for the default.
#[test]
fn the_data_image_lists_numpy_in_text_and_json_and_the_default_image_does_not() {
    let text = inspect(&["data"]);
    let version = text_version(&text, "numpy").unwrap_or_else(|| panic!("no numpy: {text}"));
    assert!(version.starts_with(|c: char| c.is_ascii_digit()), "{text}");
    for also in ["pandas", "matplotlib", "scipy", "pip"] {
        assert!(text_version(&text, also).is_some(), "no {also}: {text}");
    }
    let json = inspect(&["data", "--json"]);
    assert_eq!(json_version(&json, "numpy"), Some(version), "{json}");
    let document: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(document["image"], "cordon-python-data:3.11");

    let default_text = inspect(&[]);
    assert!(
        text_version(&default_text, "pip").is_some(),
        "{default_text}"
    );
    assert_eq!(text_version(&default_text, "numpy"), None, "{default_text}");
    let default_json = inspect(&["default", "--json"]);
    assert!(
        json_version(&default_json, "pip").is_some(),
        "{default_json}"
    );
    assert_eq!(json_version(&default_json, "numpy"), None, "{default_json}");
}
