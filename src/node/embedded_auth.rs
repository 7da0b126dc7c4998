//! The embedded nats-server is permissioned, not open: `cordon up` and an embedded
//! `cordon exec` give every actor role, the operator and one local client (`local`) a
//! password of its own, kept in `<data dir>/credentials/<user>.password` (mode 0600, the
//! directory 0700, made once and kept), and run the server with the same accounts and
//! permissions as `deploy/nats/cordon.conf`. A local process that cannot read those files
//! can neither forge a result nor a job, a kill order or an audit entry. `cordon exec`,
//! `cordon override` and other clients of this machine's `cordon up` find the local
//! client's password there when no `[nats.auth]` is set. `nats.embedded_open = true`
//! restores the open server.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::actor::Role;
use crate::config::{Credentials, Settings};

/// The client name (and NATS user) of this machine's own CLI.
pub const LOCAL_CLIENT: &str = "local";
/// The people besides the actors: the operator (overrides) and stream management.
const PEOPLE: [&str; 2] = ["operator", "admin"];
/// The permissioned configuration the embedded server shares with deploy/.
const DEPLOY_CONFIG: &str = include_str!("../../deploy/nats/cordon.conf");
/// Where deploy/'s client entries start; the embedded server has its own instead.
const CLIENTS_MARKER: &str = "# ---- clients";

/// Where a data dir keeps the embedded server's passwords.
pub fn credentials_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("credentials")
}

/// Every user the embedded server knows.
fn users() -> Vec<&'static str> {
    let roles = Role::ALL.iter().map(|role| role.name());
    roles.chain(PEOPLE).chain([LOCAL_CLIENT]).collect()
}

/// Makes (once) a password for every user in `dir`; returns each user with its password,
/// as nats-server reads them from its environment (`CORDON_NATS_<USER>_PASSWORD`).
pub fn prepare(dir: &Path) -> std::io::Result<Vec<(String, String)>> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    users()
        .into_iter()
        .map(|user| {
            let password = password_of(dir, user)?;
            let variable = format!("CORDON_NATS_{}_PASSWORD", user.to_uppercase());
            Ok((variable, password))
        })
        .collect()
}

/// The user's password file's content, made with 128 random bits when missing. It starts
/// with a letter: nats-server parses a variable's value as configuration, and one that
/// starts with a digit would be read as a malformed number.
fn password_of(dir: &Path, user: &str) -> std::io::Result<String> {
    let path = dir.join(format!("{user}.password"));
    if let Ok(existing) = std::fs::read_to_string(&path) {
        return Ok(existing.trim().to_string());
    }
    let mut random = [0u8; 16];
    getrandom::getrandom(&mut random).map_err(std::io::Error::other)?;
    let password = format!("p{}", hex::encode(random));
    let mut file = std::fs::OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(&path)?;
    writeln!(file, "{password}")?;
    Ok(password)
}

/// The accounts block: deploy/'s actors and people, and the local client.
pub fn accounts_config() -> String {
    let start = DEPLOY_CONFIG.find("accounts {").unwrap_or(0);
    let end = DEPLOY_CONFIG
        .find(CLIENTS_MARKER)
        .unwrap_or(DEPLOY_CONFIG.len());
    let line_start = DEPLOY_CONFIG[..end].rfind('\n').map_or(end, |n| n + 1);
    format!(
        "{}{}    ]\n  }}\n}}\n",
        &DEPLOY_CONFIG[start..line_start],
        client_entry(LOCAL_CLIENT)
    )
}

/// A client's user: submit as itself, read its own results and events, nothing else.
fn client_entry(name: &str) -> String {
    let variable = format!("CORDON_NATS_{}_PASSWORD", name.to_uppercase());
    format!(
        r#"      {{
        user: {name}, password: ${variable}
        permissions: {{
          publish: {{ allow: [
            "cordon.v1.exec.submit.{name}", "cordon.v1.session.list.{name}",
            "$JS.API.DIRECT.GET.CORDON_RESULTS.cordon.v1.exec.result.{name}.>"
          ] }}
          subscribe: {{ allow: [
            "cordon.v1.exec.result.{name}.>", "cordon.v1.exec.output.{name}.>",
            "cordon.v1.events.violation.{name}",
            "cordon.v1.events.blocked.{name}", "_INBOX_{name}.>"
          ] }}
        }}
      }}
"#
    )
}

/// Each actor role of this process connects as itself, with its password file in `dir`.
pub fn use_role_credentials(settings: &mut Settings, dir: &Path) {
    for role in Role::ALL {
        let name = role.name();
        settings
            .nats
            .roles
            .insert(name.to_string(), user_credentials(dir, name));
    }
}

/// `settings` with the local client's credentials when no `[nats.auth]` is set and the data
/// dir holds them (a client of this machine's `cordon up`).
pub fn use_local_client(settings: &mut Settings, dir: &Path) {
    use_local_user(settings, dir, LOCAL_CLIENT);
}

/// Like `use_local_client`, as `user` (`operator` for `cordon override`).
pub fn use_local_user(settings: &mut Settings, dir: &Path, user: &str) {
    let has_auth = !settings.nats.auth.is_empty();
    if !has_auth && dir.join(format!("{user}.password")).is_file() {
        settings.nats.auth = user_credentials(dir, user);
        settings.nats.client = user.to_string();
    }
}

fn user_credentials(dir: &Path, user: &str) -> Credentials {
    Credentials {
        user: user.to_string(),
        password_file: dir
            .join(format!("{user}.password"))
            .to_string_lossy()
            .into_owned(),
        ..Credentials::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn passwords_are_made_once_private_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let creds = dir.path().join("credentials");
        let first = prepare(&creds).unwrap();
        assert_eq!(first.len(), users().len());
        assert_eq!(prepare(&creds).unwrap(), first, "kept across restarts");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&creds), 0o700);
        assert_eq!(mode(&creds.join("audit.password")), 0o600);
        assert!(first
            .iter()
            .all(|(_, password)| password.len() == 33 && password.starts_with('p')));
    }

    #[test]
    fn the_accounts_have_every_actor_and_the_local_client_and_no_example_client() {
        let accounts = accounts_config();
        for user in users() {
            assert!(
                accounts.contains(&format!("user: {user}, password:")),
                "{user}"
            );
        }
        assert!(!accounts.contains("alice") && !accounts.contains("bob"));
        assert_eq!(accounts.matches('{').count(), accounts.matches('}').count());
    }
}
