//! `cordon image inspect`: the Python packages (distributions) an image holds, name and
//! version, read by `importlib.metadata` inside a hardened sandbox of that image (no
//! network, nothing installed), so a tool description can tell a model what it may import.

use bollard::Docker;
use serde::{Deserialize, Serialize};

use super::probe::{self, ProbeError};
use crate::config::SandboxSettings;

/// One installed distribution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    pub name: String,
    pub version: String,
}

/// What `inspect` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inspection {
    /// The image reference looked into.
    pub image: String,
    /// Sorted by name, case-insensitively.
    pub packages: Vec<Package>,
}

#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    #[error("cannot look into {image}: {source}")]
    Probe {
        image: String,
        #[source]
        source: ProbeError,
    },
    #[error("{image} printed a package list that cannot be read: {source}")]
    Listing {
        image: String,
        #[source]
        source: serde_json::Error,
    },
}

/// Prints `[[name, version], ...]`, one entry per distribution name (the first found on
/// `sys.path` wins, as for an import).
const LIST_DISTRIBUTIONS: &str = r#"
import importlib.metadata, json
seen = {}
for dist in importlib.metadata.distributions():
    name = dist.metadata["Name"]
    if name and name.lower() not in seen:
        seen[name.lower()] = [name, dist.version or ""]
print(json.dumps(sorted(seen.values(), key=lambda p: p[0].lower())))
"#;

/// The Python packages of `image`.
pub async fn inspect(
    docker: &Docker,
    settings: &SandboxSettings,
    image: &str,
) -> Result<Inspection, InspectError> {
    let printed = probe::run(
        docker,
        settings,
        image,
        ("image-inspect", LIST_DISTRIBUTIONS),
    )
    .await
    .map_err(|source| InspectError::Probe {
        image: image.to_string(),
        source,
    })?;
    let pairs: Vec<(String, String)> =
        serde_json::from_slice(&printed).map_err(|source| InspectError::Listing {
            image: image.to_string(),
            source,
        })?;
    let packages = pairs
        .into_iter()
        .map(|(name, version)| Package { name, version })
        .collect();
    Ok(Inspection {
        image: image.to_string(),
        packages,
    })
}

impl Inspection {
    /// `name version` lines, the versions aligned.
    pub fn to_text(&self) -> String {
        let width = self
            .packages
            .iter()
            .map(|p| p.name.len())
            .max()
            .unwrap_or(0);
        self.packages
            .iter()
            .map(|p| format!("{:width$}  {}\n", p.name, p.version))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lines_align_the_versions() {
        let inspection = Inspection {
            image: "i".into(),
            packages: vec![
                Package {
                    name: "numpy".into(),
                    version: "1.24.2".into(),
                },
                Package {
                    name: "pip".into(),
                    version: "23.0.1".into(),
                },
            ],
        };
        assert_eq!(inspection.to_text(), "numpy  1.24.2\npip    23.0.1\n");
    }
}
