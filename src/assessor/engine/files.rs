//! File operations: `open`, deletes, writes, `chmod`, and `pathlib.Path` values and
//! methods, classified by `paths` into secret reads, system writes, persistence, escapes.
//!
//! Called by `calls` and `methods`.

use super::calls::{hit, text_value, Args};
use super::findings::Confidence;
use super::paths::normalize;
use super::rules::{self, Rule};
use super::scan::Scanner;
use super::value::{own_pid_parts, piece, Piece, Taint, Value, UNKNOWN_PART, UNKNOWN_PART_STR};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    Read,
    Write,
    Delete,
    /// A directory removed with everything in it (`shutil.rmtree`).
    DeleteTree,
}

/// Longer paths fail with ENAMETOOLONG, so they are not worth classifying.
pub(super) const MAX_PATH_BYTES: usize = 4096;

pub(super) fn open_file(s: &mut Scanner<'_>, path: &Value, mode: Option<&str>, at: u32) -> Value {
    let writes = mode.is_some_and(|m| m.contains(['w', 'a', 'x', '+']));
    let access = if writes { Access::Write } else { Access::Read };
    file_access(s, path, access, at);
    let own = path_text(path);
    let text = own.as_deref().unwrap_or("");
    let overwrites = mode.is_some_and(|m| m.contains(['w', '+']) && !m.contains('a'));
    if overwrites && text.len() <= MAX_PATH_BYTES && normalize(text).is_overwrite_target() {
        hit(s, rules::DESTRUCTIVE, at, Confidence::High);
    }
    let mut taint = Taint::NONE;
    if writes {
        taint = taint.with(Taint::FILE_WRITE);
    }
    if !writes && !text.is_empty() {
        s.caps.last_read = Some(text.into());
    }
    if !text.is_empty() && text.len() <= MAX_PATH_BYTES {
        let normal = normalize(text);
        if normal.is_secret() || normal.is_system_recon() || s.caps.is_secret_copy(text) {
            taint = taint.with(Taint::SECRET);
        } else if !writes && normal.is_host_file() {
            taint = taint.with(Taint::HOST_DATA);
        }
    }
    if !text.is_empty() && s.caps.is_downloaded(text) {
        taint = taint.with(Taint::NETWORK);
    }
    if path
        .exact_text()
        .is_some_and(|p| !writes && s.caps.pickled_to(p))
    {
        taint = taint.with(Taint::OWN_FILE);
    }
    match path.text() {
        Some(text) if writes => text_value(s, text, taint),
        _ => Value::unknown(taint),
    }
}

/// A file copied or moved from `from` to `to`: what `from` held (a download, a decoded
/// payload, a secret) is at `to` now.
pub(super) fn note_copy(s: &mut Scanner<'_>, from: &str, to: &str) {
    let secret = from.len() <= MAX_PATH_BYTES && {
        let normal = normalize(from);
        normal.is_secret() || normal.is_system_recon() || s.caps.is_secret_copy(from)
    };
    s.caps.note_copied(from, to, secret);
    if from.len() <= MAX_PATH_BYTES && normalize(from).is_shell_or_interpreter() {
        s.caps.note_shell_copy(to);
    }
}

/// The path's text, with the program's own pid read as `self`: `f"/proc/{os.getpid()}/status"`
/// is `/proc/self/status`, the program's own process and not another one's.
fn path_text(path: &Value) -> Option<std::borrow::Cow<'_, str>> {
    const OWN_PROC: &str = "/proc/\u{FFFD}/";
    let text = path.text()?;
    match text.strip_prefix(OWN_PROC) {
        Some(rest) if path.taint.has(Taint::OWN_PID) => Some(format!("/proc/self/{rest}").into()),
        _ => Some(text.into()),
    }
}

pub(super) fn file_access(s: &mut Scanner<'_>, path: &Value, access: Access, at: u32) {
    let Some(text) = path_text(path).filter(|t| t.len() <= MAX_PATH_BYTES) else {
        return;
    };
    let text = text.as_ref();
    if access != Access::Read {
        // Whatever else is written there is no longer the program's own pickle.
        s.caps.forget_pickled(text);
    }
    let path = normalize(text);
    let checks: [(bool, &'static Rule); 8] = [
        (
            access == Access::Write && path.is_account_database(),
            rules::PRIVILEGE_ESCALATION,
        ),
        (
            access == Access::Read && path.is_secret(),
            rules::SECRET_READ,
        ),
        (
            access == Access::Read && !path.is_secret() && path.is_system_recon(),
            rules::SYSTEM_READ,
        ),
        (
            access == Access::Write && path.is_persistence(),
            rules::PERSISTENCE,
        ),
        (
            access != Access::Read && path.is_protected(),
            rules::SYSTEM_PATH_WRITE,
        ),
        (
            matches!(access, Access::Delete | Access::DeleteTree) && path.is_destructive_target()
                || access == Access::DeleteTree && path.is_user_folder(),
            rules::DESTRUCTIVE,
        ),
        (path.is_escape(), rules::CONTAINER_ESCAPE),
        (
            access == Access::Read && path.is_input_device(),
            rules::KEYLOGGER,
        ),
    ];
    for (fired, rule) in checks {
        if fired {
            hit(s, rule, at, Confidence::High);
        }
    }
    if access == Access::Read && path.is_secret() {
        s.caps.note_secret(at);
    }
}

/// `data` is written into `file` (an open file, or a path): what was pickled there is no
/// longer only the program's pickle, and fetched or decoded bytes make it a payload file.
/// A file without a known path (a temporary file) is one all the same.
/// `data` was written to `file` at `at`. The environment's variables saved to a file are
/// its secrets taken out of where they are kept (credential files are HIGH when read; what
/// a client made with one credential returns is not that credential).
pub(super) fn written(s: &mut Scanner<'_>, file: &Value, data: Taint, at: u32) {
    if data.has(Taint::ENVIRONMENT) {
        hit(s, rules::SECRET_READ, at, Confidence::Medium);
    }
    let path = file.text().unwrap_or(UNKNOWN_PART_STR);
    if data.has(Taint::SECRET.with(Taint::ENVIRONMENT)) {
        // A file holding secrets is one: sending it sends them.
        s.caps.note_secret_file(path);
    }
    s.caps.forget_pickled(path);
    s.caps.note_foreign_write(path);
    s.caps.note_written(path, data);
}

/// Whether a file made setuid (or given root's capabilities) lets anyone become root: a
/// shell, an interpreter, a copy of one, or a file the program gave to root.
pub(super) fn is_way_to_root(s: &Scanner<'_>, path: &str) -> bool {
    path.len() <= MAX_PATH_BYTES
        && (normalize(path).is_shell_or_interpreter()
            || s.caps.is_root_owned(path)
            || s.caps.is_shell_copy(path))
}

pub(super) fn chmod(s: &mut Scanner<'_>, path: &Value, mode: Option<i64>, at: u32) {
    let mode = mode.unwrap_or(0);
    if mode & 0o6000 != 0 {
        hit(s, rules::SETID_BITS, at, Confidence::High);
    }
    let setuid_root = mode & 0o4000 != 0 && path.text().is_some_and(|t| is_way_to_root(s, t));
    if setuid_root {
        hit(s, rules::PRIVILEGE_ESCALATION, at, Confidence::High);
    }
    if let Some(text) = path.text() {
        if mode & 0o111 != 0 {
            s.caps.made_executable.push((text.into(), at));
        }
        if normalize(text).is_protected() {
            hit(s, rules::SYSTEM_PATH_WRITE, at, Confidence::High);
        }
    }
}

pub(super) fn path_new(s: &mut Scanner<'_>, args: &Args<'_>) -> Value {
    if args.positional.is_empty() {
        return text_value(s, ".", Taint::PATH);
    }
    join_paths(s, &args.positional, Taint::PATH)
}

/// `os.path.join` semantics: an absolute part restarts the path.
pub(super) fn join_paths(s: &mut Scanner<'_>, parts: &[Value], taint: Taint) -> Value {
    let start = parts
        .iter()
        .rposition(|p| p.text().is_some_and(|t| t.starts_with('/')))
        .unwrap_or(0);
    let mut pieces = Vec::new();
    for (i, part) in parts[start..].iter().enumerate() {
        if i > 0 {
            pieces.push(Piece::Known("/"));
        }
        pieces.push(piece(part));
    }
    let data = parts
        .iter()
        .fold(Taint::NONE, |t, p| t.with(p.deep_taint().data()))
        .with(own_pid_parts(&parts[start..]));
    s.folder.join(pieces, taint.with(data))
}

/// `Path.with_name`: `path` with its last part replaced by `name`.
fn with_name(path: &str, name: &str) -> String {
    match path.rsplit_once('/') {
        Some((dir, _)) => format!("{dir}/{name}"),
        None => name.to_string(),
    }
}

/// `Path.with_suffix`: `path` with its last part's suffix (from its last dot) replaced.
fn with_suffix(path: &str, suffix: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => format!("{}{suffix}", &path[..path.len() - name.len() + dot]),
        _ => format!("{path}{suffix}"),
    }
}

/// A file's contents replaced (`write_bytes`): destroyed when it is one of the files
/// found below home or the system's trees, or a system file `emptied`.
pub(super) fn overwrite(s: &mut Scanner<'_>, path: &Value, emptied: bool, at: u32) {
    let Some(text) = path.text().filter(|t| t.len() <= MAX_PATH_BYTES) else {
        return;
    };
    let path = normalize(text);
    if path.is_overwrite_target() || emptied && path.is_protected() {
        hit(s, rules::DESTRUCTIVE, at, Confidence::High);
    }
}

pub(super) fn path_method(
    s: &mut Scanner<'_>,
    object: &Value,
    method: &str,
    args: &Args<'_>,
    at: u32,
) -> Value {
    match method {
        "write_text" | "write_bytes" => {
            file_access(s, object, Access::Write, at);
            let emptied = args.get(0, "data").and_then(Value::exact_text) == Some("");
            overwrite(s, object, emptied, at);
            written(s, object, args.data_taint(), at);
            Value::UNKNOWN
        }
        "touch" | "mkdir" | "symlink_to" | "hardlink_to" => {
            file_access(s, object, Access::Write, at);
            written(s, object, args.data_taint(), at);
            Value::UNKNOWN
        }
        "read_text" | "read_bytes" => {
            let value = open_file(s, object, None, at);
            Value::unknown(value.taint)
        }
        "open" => {
            let mode = args
                .get(0, "mode")
                .and_then(Value::text)
                .map(str::to_string);
            open_file(s, object, mode.as_deref(), at)
        }
        "unlink" | "rmdir" => {
            file_access(s, object, Access::Delete, at);
            Value::UNKNOWN
        }
        "chmod" => {
            chmod(s, object, args.get(0, "mode").and_then(Value::as_int), at);
            Value::UNKNOWN
        }
        "joinpath" => {
            let mut parts = vec![object.clone()];
            parts.extend(args.positional.iter().cloned());
            join_paths(s, &parts, Taint::PATH)
        }
        "expanduser" | "resolve" | "absolute" => object.clone(),
        // `tmp.replace(dest)`: the file is at `dest` now.
        "rename" | "replace" => {
            if let Some(target) = args.get(0, "target") {
                file_access(s, target, Access::Write, at);
                if let (Some(from), Some(to)) = (object.text(), target.text()) {
                    note_copy(s, from, to);
                }
            }
            Value::UNKNOWN
        }
        "with_suffix" | "with_name" => {
            let keyword = if method == "with_suffix" {
                "suffix"
            } else {
                "name"
            };
            let new = args.get(0, keyword).and_then(Value::exact_text);
            match (object.text(), new) {
                (Some(path), Some(new)) => {
                    let renamed = match method {
                        "with_suffix" => with_suffix(path, new),
                        _ => with_name(path, new),
                    };
                    text_value(s, &renamed, object.taint)
                }
                _ => Value::unknown(object.taint.data().with(Taint::PATH)),
            }
        }
        "glob" | "rglob" | "iterdir" => {
            // `home.rglob("*.pem")` yields paths like `~/<?>/<?>.pem`.
            let pattern = args
                .get(0, "pattern")
                .and_then(Value::text)
                .map(|p| p.replace(['*', '?'], &UNKNOWN_PART.to_string()));
            let mut parts = vec![object.clone()];
            if method == "rglob" {
                parts.push(Value::UNKNOWN);
            }
            let listed = object.text().map(super::paths::listed_name);
            parts.push(match (pattern, listed) {
                (Some(pattern), _) => text_value(s, &pattern, Taint::NONE),
                (None, Some(name)) => text_value(s, name, Taint::NONE),
                (None, None) => Value::UNKNOWN,
            });
            join_paths(s, &parts, Taint::PATH.with(Taint::LISTING))
        }
        _ => Value::unknown(object.taint.data()),
    }
}
