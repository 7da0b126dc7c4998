//! Turns a client's `ExecRequest` into a `Job`, or says exactly what is wrong with it.
//! Called by the Assessor actor for every submission; pure, so it is tested here.

use sha2::{Digest, Sha256};

use crate::config::{Caps, ClientSettings, NetworkSettings, SandboxSettings};
use crate::protocol::assessor::{Job, Origin, TrustLevel};
use crate::protocol::exec::{ErrorCode, ErrorInfo, ExecRequest};
use crate::protocol::interpreter::{
    bad_requirement, host_of_session, unsafe_path, CellInput, InputFile, SessionAction,
    MAX_PACKAGES, NEW_SESSION,
};
use crate::protocol::scheduler::Network;
use crate::protocol::subjects::is_valid_token;

/// Checks a request id can name a result subject.
pub fn validate_request_id(request_id: &str) -> Result<(), ErrorInfo> {
    if is_valid_token(request_id) {
        Ok(())
    } else {
        Err(ErrorInfo::new(
            ErrorCode::InvalidRequestId,
            "request id must be 1 to 128 letters, digits, '-' or '_' (a ULID is best)",
        ))
    }
}

/// Validates the client a request was submitted under (the `<client>` of its submit
/// subject): without a usable one there is nowhere to send its result.
pub fn validate_client(client: &str) -> Result<(), ErrorInfo> {
    if is_valid_token(client) {
        Ok(())
    } else {
        Err(ErrorInfo::new(
            ErrorCode::InvalidClient,
            format!("client name {client:?} in the submit subject must be 1 to 128 letters, digits, '-' or '_'"),
        ))
    }
}

/// Validates a request against the caps.
pub fn validate_request(mut request: ExecRequest, caps: &Caps) -> Result<Job, ErrorInfo> {
    let interpreter = validate_interpreter(&mut request, caps)?;
    // Opening or closing a session may come without a cell.
    let session = interpreter.as_ref().and_then(|i| i.session.as_ref());
    let may_be_empty = matches!(session, Some(SessionAction::Open | SessionAction::Close(_)));
    let code = validate_code(request.code.into_vec(), caps.max_code_bytes, may_be_empty)?;
    let trust = match request.trust.as_deref() {
        None => TrustLevel::Untrusted,
        Some(text) => TrustLevel::parse(text).ok_or_else(|| {
            ErrorInfo::new(
                ErrorCode::UnknownTrustLevel,
                format!("trust level {text:?} is not one of untrusted, unknown, trusted"),
            )
        })?,
    };
    let origin = match request.origin.as_deref() {
        None => Origin::External,
        Some(text) => Origin::parse(text).ok_or_else(|| {
            ErrorInfo::new(
                ErrorCode::UnknownOrigin,
                format!("origin {text:?} is not one of self, external"),
            )
        })?,
    };
    let network = match request.network.as_deref() {
        None => Network::None,
        Some(text) => Network::parse(text).ok_or_else(|| {
            ErrorInfo::new(
                ErrorCode::UnknownNetwork,
                format!("network {text:?} is not one of none, allowlist"),
            )
        })?,
    };
    if request.timeout_ms == Some(0) {
        return Err(ErrorInfo::new(
            ErrorCode::InvalidRequest,
            "timeout_ms must be above 0",
        ));
    }
    Ok(Job {
        code_sha256: hex::encode(Sha256::digest(code.as_bytes())),
        code,
        trust,
        origin,
        timeout_ms: request.timeout_ms,
        client: request.client,
        network,
        image: request.image,
        interpreter,
    })
}

/// The interpreter part of a request (sessions, files, stdin), checked: `None` when it
/// uses none of it.
fn validate_interpreter(
    request: &mut ExecRequest,
    caps: &Caps,
) -> Result<Option<CellInput>, ErrorInfo> {
    let session = session_action(request.session.as_deref(), request.close_session)?;
    let files = request.files.take().unwrap_or_default();
    let stdin = request.stdin.take();
    let packages = request.packages.take().unwrap_or_default();
    let wanted = session.is_some()
        || !files.is_empty()
        || stdin.is_some()
        || !packages.is_empty()
        || request.return_files == Some(true);
    if !wanted {
        return Ok(None);
    }
    check_files(&files, stdin.as_ref().map_or(0, |s| s.len()), caps)?;
    check_packages(&packages, session.is_some())?;
    if request.idle_timeout_secs == Some(0) {
        return Err(ErrorInfo::new(
            ErrorCode::InvalidRequest,
            "idle_timeout_secs must be above 0",
        ));
    }
    Ok(Some(CellInput {
        idle_secs: request
            .idle_timeout_secs
            .filter(|_| session == Some(SessionAction::Open)),
        session,
        files,
        stdin,
        packages,
    }))
}

/// At most `MAX_PACKAGES` plain requirements, and none in a session.
fn check_packages(packages: &[String], in_session: bool) -> Result<(), ErrorInfo> {
    let invalid = |message: String| Err(ErrorInfo::new(ErrorCode::InvalidPackage, message));
    if packages.is_empty() {
        return Ok(());
    }
    if in_session {
        return invalid("packages are installed for one-off runs only, not in sessions".into());
    }
    if packages.len() > MAX_PACKAGES {
        return invalid(format!(
            "{} packages; at most {MAX_PACKAGES}",
            packages.len()
        ));
    }
    match packages.iter().find_map(|p| bad_requirement(p)) {
        Some(why) => invalid(why),
        None => Ok(()),
    }
}

fn session_action(
    session: Option<&str>,
    close: Option<bool>,
) -> Result<Option<SessionAction>, ErrorInfo> {
    let close = close == Some(true);
    let action = match session {
        None if close => {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidRequest,
                "close_session needs the id of the session to close in `session`",
            ))
        }
        None => return Ok(None),
        Some(NEW_SESSION) if close => {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidRequest,
                "close_session cannot close a session this request opens",
            ))
        }
        Some(NEW_SESSION) => SessionAction::Open,
        Some(id) if host_of_session(id).is_none() => {
            return Err(ErrorInfo::new(
                ErrorCode::UnknownSession,
                format!(
                    "session {:?} is not \"new\" nor a session id (<id>@<host>)",
                    crate::text::preview_of(id, 64)
                ),
            ))
        }
        Some(id) if close => SessionAction::Close(id.to_string()),
        Some(id) => SessionAction::Cell(id.to_string()),
    };
    Ok(Some(action))
}

/// Every file path is safe and unique, and files and stdin together fit the cap.
fn check_files(files: &[InputFile], stdin_bytes: usize, caps: &Caps) -> Result<(), ErrorInfo> {
    let mut seen = std::collections::HashSet::new();
    for file in files {
        if let Some(why) = unsafe_path(&file.path) {
            return Err(ErrorInfo::new(ErrorCode::InvalidFile, why));
        }
        if !seen.insert(file.path.as_str()) {
            return Err(ErrorInfo::new(
                ErrorCode::InvalidFile,
                format!("file path {:?} is given twice", file.path),
            ));
        }
    }
    let total = files.iter().map(|f| f.content.len()).sum::<usize>() + stdin_bytes;
    if total as u64 > caps.max_input_bytes {
        return Err(ErrorInfo::new(
            ErrorCode::InputTooLarge,
            format!(
                "files and stdin are {total} bytes; the limit is {} (caps.max_input_bytes)",
                caps.max_input_bytes
            ),
        ));
    }
    Ok(())
}

/// Refuses a trust level above what the settings allow `client` (the submitter the
/// subject names) to ask for: a request cannot raise its own limits by saying `trusted`.
pub fn check_trust(job: Job, client: &str, settings: &ClientSettings) -> Result<Job, ErrorInfo> {
    let ceiling = settings.max_trust_of(client);
    if job.trust > ceiling {
        return Err(ErrorInfo::new(
            ErrorCode::TrustNotAllowed,
            format!(
                "client {client:?} may ask for trust level {} at most, not {}",
                ceiling.as_str(),
                job.trust.as_str()
            ),
        ));
    }
    Ok(job)
}

/// Refuses `network: allowlist` at a trust level the settings do not allow it for: the
/// caller asked for something explicit, so a silent downgrade would only confuse them.
pub fn check_network(job: Job, settings: &NetworkSettings) -> Result<Job, ErrorInfo> {
    if job.network == Network::Allowlist && !settings.allowed_trust.contains(&job.trust) {
        let allowed: Vec<&str> = settings.allowed_trust.iter().map(|t| t.as_str()).collect();
        return Err(ErrorInfo::new(
            ErrorCode::NetworkNotAllowed,
            format!(
                "network \"allowlist\" is not allowed at trust level {}; allowed: {}",
                job.trust.as_str(),
                if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                }
            ),
        ));
    }
    Ok(job)
}

/// Refuses an image name the settings' `[sandbox.images]` allowlist does not have: a
/// request runs only in images an operator chose, never in one it names itself.
pub fn check_image(job: Job, settings: &SandboxSettings) -> Result<Job, ErrorInfo> {
    let Some(name) = job.image.as_deref() else {
        return Ok(job);
    };
    if settings.image_named(Some(name)).is_some() {
        return Ok(job);
    }
    let offered: Vec<&str> = settings.images.keys().map(String::as_str).collect();
    Err(ErrorInfo::new(
        ErrorCode::UnknownImage,
        format!(
            "image {:?} is not one of {}",
            crate::text::preview_of(name, 64),
            offered.join(", ")
        ),
    ))
}

/// The code as text within its cap; empty only for a request that opens or closes a
/// session.
fn validate_code(bytes: Vec<u8>, max_bytes: u64, may_be_empty: bool) -> Result<String, ErrorInfo> {
    if bytes.len() as u64 > max_bytes {
        return Err(ErrorInfo::new(
            ErrorCode::CodeTooLarge,
            format!("code is {} bytes; the limit is {max_bytes}", bytes.len()),
        ));
    }
    let code = String::from_utf8(bytes).map_err(|e| {
        ErrorInfo::new(
            ErrorCode::CodeNotUtf8,
            format!(
                "code is not UTF-8 (first bad byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    if code.trim().is_empty() && !may_be_empty {
        return Err(ErrorInfo::new(ErrorCode::EmptyCode, "code is empty"));
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    fn caps() -> Caps {
        Settings::load(None).unwrap().caps
    }

    fn request(code: &[u8]) -> ExecRequest {
        ExecRequest {
            code: serde_bytes::ByteBuf::from(code.to_vec()),
            trust: None,
            origin: None,
            timeout_ms: None,
            client: None,
            network: None,
            image: None,
            ..Default::default()
        }
    }

    fn code_of(request: ExecRequest) -> String {
        validate_request(request, &caps()).unwrap_err().code
    }

    #[test]
    fn a_plain_request_becomes_an_untrusted_external_job() {
        let job = validate_request(request(b"print(1)"), &caps()).unwrap();
        assert_eq!(job.trust, TrustLevel::Untrusted);
        assert_eq!(job.origin, Origin::External);
        assert_eq!(job.code_sha256.len(), 64);
    }

    #[test]
    fn each_bad_field_gets_its_own_error_code() {
        assert_eq!(code_of(request(b"")), "empty_code");
        assert_eq!(code_of(request(b"  \n\t")), "empty_code");
        assert_eq!(code_of(request(&[b'x', 0xff, 0xfe])), "code_not_utf8");
        assert_eq!(code_of(request(&vec![b'#'; 1_048_577])), "code_too_large");
        let mut bad_trust = request(b"print(1)");
        bad_trust.trust = Some("root".into());
        assert_eq!(code_of(bad_trust), "unknown_trust_level");
        let mut bad_origin = request(b"print(1)");
        bad_origin.origin = Some("mars".into());
        assert_eq!(code_of(bad_origin), "unknown_origin");
        let mut zero = request(b"print(1)");
        zero.timeout_ms = Some(0);
        assert_eq!(code_of(zero), "invalid_request");
    }

    #[test]
    fn allowlist_is_only_for_the_trust_levels_config_names() {
        let settings = Settings::load(None).unwrap().network;
        let mut asked = request(b"print(1)");
        asked.network = Some("allowlist".into());
        let untrusted = validate_request(asked.clone(), &caps()).unwrap();
        assert_eq!(untrusted.network, Network::Allowlist);
        let error = check_network(untrusted, &settings).unwrap_err();
        assert_eq!(error.code, "network_not_allowed");
        assert!(error.message.contains("untrusted"), "{}", error.message);
        asked.trust = Some("trusted".into());
        let trusted = validate_request(asked, &caps()).unwrap();
        assert!(check_network(trusted, &settings).is_ok());
        let mut odd = request(b"print(1)");
        odd.network = Some("bridge".into());
        assert_eq!(code_of(odd), "unknown_network");
    }

    #[test]
    fn only_images_of_the_allowlist_may_be_named() {
        let settings = Settings::load(None).unwrap().sandbox;
        let named = |name: Option<&str>| {
            let mut asked = request(b"print(1)");
            asked.image = name.map(String::from);
            let job = validate_request(asked, &caps()).unwrap();
            check_image(job, &settings)
        };
        for fine in [None, Some("default"), Some("data")] {
            assert_eq!(named(fine).unwrap().image.as_deref(), fine);
        }
        for odd in ["gpu", "cordon-python:3.11", "DATA", ""] {
            let error = named(Some(odd)).unwrap_err();
            assert_eq!(error.code, "unknown_image");
            assert!(error.message.contains("data, default"), "{}", error.message);
        }
    }

    #[test]
    fn a_client_asks_for_no_more_trust_than_config_gives_it() {
        let config = "[clients]\nmax_trust = \"untrusted\"\n[clients.trust]\nalice = \"trusted\"\nAlice2 = \"unknown\"\n";
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cordon.toml");
        std::fs::write(&file, config).unwrap();
        let settings = Settings::load(Some(&file)).unwrap().clients;
        let mut asked = request(b"print(1)");
        asked.trust = Some("trusted".into());
        let trusted = validate_request(asked, &caps()).unwrap();
        assert!(check_trust(trusted.clone(), "alice", &settings).is_ok());
        let error = check_trust(trusted.clone(), "bob", &settings).unwrap_err();
        assert_eq!(error.code, "trust_not_allowed");
        assert!(error.message.contains("\"bob\""), "{}", error.message);
        assert!(error.message.contains("untrusted"), "{}", error.message);
        // Names are compared exactly as NATS subjects are: case and all.
        let error = check_trust(trusted, "Alice2", &settings).unwrap_err();
        assert!(
            error.message.contains("unknown at most"),
            "{}",
            error.message
        );
        let plain = validate_request(request(b"print(1)"), &caps()).unwrap();
        assert!(check_trust(plain, "bob", &settings).is_ok());
    }

    #[test]
    fn request_ids_must_be_subject_tokens() {
        assert!(validate_request_id("01JABCDEF").is_ok());
        assert!(validate_request_id("a.b").is_err());
        assert!(validate_request_id("").is_err());
    }
}
