//! Who a connection is on the bus: the credentials it presents to nats-server (a user and
//! password file, a `.creds` file, or an nkey seed file) and the private inbox prefix it
//! receives replies on. Settings hold only paths: secrets are read at connect time and
//! never logged. `Bus::connect` and the node (one connection per actor role) call this.
//!
//! A permissioned server (`deploy/nats/cordon.conf`) lets each user subscribe only to its
//! own inbox prefix (`_INBOX_<user>.>`), so replies to one user cannot be read by another.

use std::path::Path;

use crate::config::Credentials;

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("cannot read the NATS {what} file {path}: {source}")]
    Read {
        what: &'static str,
        path: String,
        source: std::io::Error,
    },
    #[error("NATS user {user:?} has no password_file")]
    NoPassword { user: String },
    #[error("NATS credentials name more than one of user, creds_file, nkey_seed_file")]
    Ambiguous,
}

impl Credentials {
    /// Whether these present anything to the server.
    pub fn is_empty(&self) -> bool {
        self.user.is_empty() && self.creds_file.is_empty() && self.nkey_seed_file.is_empty()
    }

    /// The inbox prefix a connection with these credentials uses when none is configured:
    /// the library's `_INBOX` without a user, `_INBOX_<user>` with one.
    pub fn default_inbox_prefix(&self) -> String {
        if self.user.is_empty() {
            "_INBOX".to_string()
        } else {
            format!("_INBOX_{}", self.user)
        }
    }

    /// Adds these credentials to connect options.
    pub async fn apply(
        &self,
        options: async_nats::ConnectOptions,
    ) -> Result<async_nats::ConnectOptions, AuthError> {
        let named = [
            !self.user.is_empty(),
            !self.creds_file.is_empty(),
            !self.nkey_seed_file.is_empty(),
        ];
        if named.iter().filter(|n| **n).count() > 1 {
            return Err(AuthError::Ambiguous);
        }
        if !self.user.is_empty() {
            if self.password_file.is_empty() {
                return Err(AuthError::NoPassword {
                    user: self.user.clone(),
                });
            }
            let password = read_secret("password", &self.password_file)?;
            return Ok(options.user_and_password(self.user.clone(), password));
        }
        if !self.creds_file.is_empty() {
            return options
                .credentials_file(&self.creds_file)
                .await
                .map_err(|source| AuthError::Read {
                    what: "creds",
                    path: self.creds_file.clone(),
                    source,
                });
        }
        if !self.nkey_seed_file.is_empty() {
            let seed = read_secret("nkey seed", &self.nkey_seed_file)?;
            return Ok(options.nkey(seed));
        }
        Ok(options)
    }
}

/// The first line of a secret file, without surrounding white space.
fn read_secret(what: &'static str, path: &str) -> Result<String, AuthError> {
    let text = std::fs::read_to_string(Path::new(path)).map_err(|source| AuthError::Read {
        what,
        path: path.to_string(),
        source,
    })?;
    Ok(text.lines().next().unwrap_or("").trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_gets_a_private_inbox_prefix() {
        assert_eq!(Credentials::default().default_inbox_prefix(), "_INBOX");
        let alice = Credentials {
            user: "alice".into(),
            ..Default::default()
        };
        assert_eq!(alice.default_inbox_prefix(), "_INBOX_alice");
    }

    #[tokio::test]
    async fn a_user_without_a_password_file_is_refused() {
        let alice = Credentials {
            user: "alice".into(),
            ..Default::default()
        };
        let refused = alice.apply(async_nats::ConnectOptions::new()).await;
        assert!(matches!(refused, Err(AuthError::NoPassword { .. })));
    }

    #[tokio::test]
    async fn two_kinds_of_credentials_at_once_are_refused() {
        let both = Credentials {
            user: "alice".into(),
            password_file: "/dev/null".into(),
            nkey_seed_file: "/dev/null".into(),
            ..Default::default()
        };
        let refused = both.apply(async_nats::ConnectOptions::new()).await;
        assert!(matches!(refused, Err(AuthError::Ambiguous)));
    }

    #[tokio::test]
    async fn a_missing_password_file_is_named() {
        let alice = Credentials {
            user: "alice".into(),
            password_file: "/nonexistent/alice.pass".into(),
            ..Default::default()
        };
        let Err(error) = alice.apply(async_nats::ConnectOptions::new()).await else {
            panic!("a missing password file is refused");
        };
        assert!(
            error.to_string().contains("/nonexistent/alice.pass"),
            "{error}"
        );
    }
}
