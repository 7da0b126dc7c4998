//! The control channel between the host (`egress::Egress`, inside the supervisor) and
//! the proxy worker in its container: one JSON object per line, commands on the worker's
//! stdin, reports on its stdout. No network is involved, so a sandbox cannot reach it.
//! A grant is keyed by the proxy's own address on the request's private network: the
//! address a sandbox's connection arrives at says, unforgeably, which request it is.

use serde::{Deserialize, Serialize};

use super::policy::EgressPolicy;

/// Longest control line either side accepts.
pub const MAX_LINE_BYTES: usize = 256 * 1024;

/// Host -> worker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Command {
    /// Connections arriving at address `key` belong to a request with this policy.
    Grant { key: String, policy: EgressPolicy },
    /// The request ended: cut its connections, report them, then answer `Revoked`.
    Revoke { key: String },
}

/// Worker -> host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Report {
    /// The worker listens and reads commands.
    Ready,
    Granted {
        key: String,
    },
    /// Every connection of the grant has been reported.
    Revoked {
        key: String,
    },
    /// One connection attempt of the grant `key`, once it is over.
    Connection {
        key: String,
        attempt: Attempt,
    },
}

/// One connection attempt as it ended: what was asked, what was decided, what moved.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// `GET`, `HEAD`, `CONNECT`, another method that was refused, or `?` if unreadable.
    pub method: String,
    pub host: String,
    pub port: u16,
    /// The address connected to, when it got that far.
    #[serde(default)]
    pub address: Option<String>,
    pub allowed: bool,
    /// Why it was refused or cut, or how it ended.
    pub reason: String,
    /// Bytes from the sandbox to the server, and back.
    pub bytes_sent: u64,
    pub bytes_received: u64,
}

impl Command {
    pub fn to_line(&self) -> String {
        line_of(self)
    }
}

impl Report {
    pub fn to_line(&self) -> String {
        line_of(self)
    }
}

fn line_of<T: Serialize>(value: &T) -> String {
    // Serializing these plain structs cannot fail; an empty object is a harmless fallback.
    let mut line = serde_json::to_string(value).unwrap_or_else(|_| "{}".to_string());
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_reports_round_trip_as_single_lines() {
        let policy = EgressPolicy {
            allowlist: vec!["pypi.org".into()],
            resolve: [("pypi.org".to_string(), "10.0.0.2".parse().unwrap())].into(),
            max_bytes: 10,
            max_connections: 2,
        };
        let grant = Command::Grant {
            key: "10.1.0.2".into(),
            policy,
        };
        let line = grant.to_line();
        assert_eq!(line.matches('\n').count(), 1);
        assert_eq!(serde_json::from_str::<Command>(&line).unwrap(), grant);
        let report = Report::Connection {
            key: "k".into(),
            attempt: Attempt {
                method: "GET\n".into(),
                ..Default::default()
            },
        };
        let line = report.to_line();
        assert_eq!(
            line.matches('\n').count(),
            1,
            "a newline in a field is escaped"
        );
        assert_eq!(serde_json::from_str::<Report>(&line).unwrap(), report);
    }
}
