//! Program-level rules that need two capabilities together (GuardDog-style): a socket
//! plus a shell wired to it is a reverse shell, a downloaded file that is then run is
//! download-and-execute, a credential read plus any network use is exfiltration.
//!
//! `calls` records capabilities while scanning; `engine` calls [`combine`] once at the end.

use std::rc::Rc;

use super::findings::{Confidence, Hits};
use super::paths::is_partial;
use super::rules;
use super::shell;
use super::value::{Taint, UNKNOWN_PART};

/// What the program can do, with where it does it (byte offsets).
#[derive(Debug, Default)]
pub struct Capabilities {
    pub socket_connect: Option<u32>,
    /// `os.dup2`, `pty.spawn`, an interactive shell: each could serve a socket.
    pub shell_wiring: Vec<u32>,
    pub network: Option<u32>,
    pub secret_read: Option<u32>,
    /// Files written with network data, by (possibly partial) path.
    pub downloads: Vec<Rc<str>>,
    /// Files written with decoded data (base64, zlib...), by (possibly partial) path.
    pub decoded_files: Vec<Rc<str>>,
    /// Copies of secret files (`shutil.copy2("~/.config/google-chrome/Default/Login
    /// Data", tmp)`) and files written with secrets, by (possibly partial) path: reading
    /// or uploading one reads or sends the secret.
    pub secret_copies: Vec<Rc<str>>,
    /// Where a downloaded archive or directory was put on `sys.path`: imports after it
    /// may load the downloaded code.
    pub downloaded_import_path: Option<u32>,
    /// Where a stratum message is written out (`{"method": "login", "params": {...,
    /// "agent": ...}}`): a miner's pool client when the program also uses the network.
    pub stratum_message: Option<u32>,
    /// Where a log handler that ships records to another host was made (a remote
    /// syslog, socket or HTTP handler): what is logged after it leaves the machine.
    pub remote_log: Option<u32>,
    /// Every program started: its command text, whether fully known, and where.
    pub program_runs: Vec<(Rc<str>, bool, u32)>,
    /// Paths given execute permission, and where.
    pub made_executable: Vec<(Rc<str>, u32)>,
    /// Modules imported by name, and where: importing a downloaded `<name>.py` runs it.
    pub imports: Vec<(Rc<str>, u32)>,
    /// Files this program wrote with `pickle.dump`, by path (unknown parts marked):
    /// loading one back loads the program's own objects.
    pub pickled: Vec<Rc<str>>,
    /// Pickles loaded from local files, where, and from which path when known: the
    /// program's own cache if it pickles objects there anywhere in the program, else
    /// untrusted data.
    pub local_loads: Vec<(u32, Option<Rc<str>>)>,
    /// The path of the file last opened for reading (what a handle passed on names).
    pub last_read: Option<Rc<str>>,
    /// Paths also written with other data than the program's pickles (by path, unknown
    /// parts marked): a pickle loaded from one is not the program's own, whatever order
    /// the writes come in.
    pub foreign_writes: Vec<Rc<str>>,
    /// Where the user's own SSH key (in `~/.ssh`) was first loaded by an SSH library: the
    /// program's credential for its host when it connects anywhere, else a secret read.
    pub key_loaded: Option<u32>,
    /// Where libc was first loaded through ctypes, and whether any call through it was
    /// more than a harmless helper (`strlen`, `qsort`, `time`) or not known by name.
    pub libc_loaded: Option<u32>,
    pub libc_beyond_helpers: bool,
    pub libc_called: bool,
    /// Files given to root (`os.chown(path, 0, 0)`) and copies of a shell or an
    /// interpreter, by path: setuid, either is a way back to root.
    pub root_owned: Vec<Rc<str>>,
    pub shell_copies: Vec<Rc<str>>,
}

/// Most imports and written files remembered: enough for any real program's own.
const MAX_REMEMBERED: usize = 256;

/// Adds `item` to a remembered list, up to `MAX_REMEMBERED` of them.
fn remember<T>(list: &mut Vec<T>, item: T) {
    if list.len() < MAX_REMEMBERED {
        list.push(item);
    }
}

/// Whether one of the (possibly partial) paths of `list` names the file at `path`.
fn names_file(list: &[Rc<str>], path: &str) -> bool {
    list.iter().any(|c| same_file(c, path))
}

impl Capabilities {
    pub fn note_network(&mut self, at: u32) {
        self.network.get_or_insert(at);
    }

    /// `data` was written to `path`: fetched bytes make it a download, decoded bytes a
    /// decoded payload, either of which running the file later executes.
    pub fn note_written(&mut self, path: &str, data: Taint) {
        for (taint, files) in [
            (Taint::NETWORK, &mut self.downloads),
            (Taint::DECODED, &mut self.decoded_files),
        ] {
            if data.has(taint) && files.len() < MAX_REMEMBERED {
                files.push(path.into());
            }
        }
    }

    /// `from` was copied or moved to `to` (`os.replace`, `shutil.copy`): a download, a
    /// decoded payload or a secret there is one at `to` as well.
    pub fn note_copied(&mut self, from: &str, to: &str, secret: bool) {
        for files in [&mut self.downloads, &mut self.decoded_files] {
            if files.iter().any(|f| **f == *from) && files.len() < MAX_REMEMBERED {
                files.push(to.into());
            }
        }
        if secret && self.secret_copies.len() < MAX_REMEMBERED {
            self.secret_copies.push(to.into());
        }
    }

    /// `path` was written with secrets (the environment, a credential file's contents).
    pub fn note_secret_file(&mut self, path: &str) {
        if self.secret_copies.len() < MAX_REMEMBERED && !self.is_secret_copy(path) {
            self.secret_copies.push(path.into());
        }
    }

    /// Whether a command line uploads a file holding secrets this program made
    /// (`--post-file=F`, `-d @F`, `-F f=@F`, `-T F`), named by its whole path when part of
    /// it is only known at run time.
    pub fn names_secret_file(&self, line: &str) -> bool {
        if self.secret_copies.is_empty() {
            return false;
        }
        let words: Vec<&str> = (line.split_whitespace())
            .map(|w| w.trim_matches(['\'', '"']))
            .collect();
        let uploaded = words.iter().enumerate().filter_map(|(i, word)| {
            let before = i.checked_sub(1).map(|j| words[j]);
            uploaded_file(before, word)
        });
        uploaded.into_iter().any(|file| {
            self.secret_copies.iter().any(|c| match is_partial(c) {
                true => **c == *file,
                false => same_file(c, file),
            })
        })
    }

    pub fn note_root_owned(&mut self, path: &str) {
        remember(&mut self.root_owned, path.into());
    }

    pub fn is_root_owned(&self, path: &str) -> bool {
        names_file(&self.root_owned, path)
    }

    pub fn note_shell_copy(&mut self, path: &str) {
        remember(&mut self.shell_copies, path.into());
    }

    pub fn is_shell_copy(&self, path: &str) -> bool {
        names_file(&self.shell_copies, path)
    }

    /// Whether `path` names a copy of a secret file this program made.
    pub fn is_secret_copy(&self, path: &str) -> bool {
        names_file(&self.secret_copies, path)
    }

    /// A fetched archive was unpacked into `dir`: every file below it is a download,
    /// remembered as `dir/<?>`.
    pub fn note_unpacked(&mut self, dir: &str) {
        let dir = dir.trim_end_matches('/');
        if !dir.is_empty() && dir != "." {
            self.note_written(&format!("{dir}/{UNKNOWN_PART}"), Taint::NETWORK);
        }
    }

    /// Whether `dir` is a directory a fetched archive was unpacked into.
    pub fn is_download_dir(&self, dir: &str) -> bool {
        let dir = dir.trim_end_matches('/');
        self.downloads.iter().any(|d| {
            let unpacked = d
                .strip_suffix(UNKNOWN_PART)
                .and_then(|d| d.strip_suffix('/'));
            // Or a folder below it (`<dir>/<top>`, the archive's top folder).
            unpacked.is_some_and(|base| {
                dir == base || dir.strip_prefix(base).is_some_and(|r| r.starts_with('/'))
            })
        })
    }

    /// Whether `dir` directly holds a Python module this program downloaded
    /// (`<dir>/helper.py`): put on `sys.path`, an import may load it.
    pub fn holds_downloaded_module(&self, dir: &str) -> bool {
        let dir = dir.trim_end_matches('/');
        self.downloads.iter().any(|d| {
            d.strip_prefix(dir)
                .and_then(|rest| rest.strip_prefix('/'))
                .is_some_and(|file| file.ends_with(".py") && !file.contains('/'))
        })
    }

    pub fn note_secret(&mut self, at: u32) {
        self.secret_read.get_or_insert(at);
    }

    pub fn note_import(&mut self, module: &str, at: u32) {
        remember(&mut self.imports, (module.into(), at));
    }

    pub fn note_pickled(&mut self, path: &str) {
        if self.pickled.len() < MAX_REMEMBERED && !self.pickled_to(path) {
            self.pickled.push(path.into());
        }
    }

    pub fn note_local_load(&mut self, at: u32, path: Option<Rc<str>>) {
        remember(&mut self.local_loads, (at, path));
    }

    pub fn note_foreign_write(&mut self, path: &str) {
        if self.foreign_writes.len() < MAX_REMEMBERED
            && !self.foreign_writes.iter().any(|p| &**p == path)
        {
            self.foreign_writes.push(path.into());
        }
    }

    pub fn forget_pickled(&mut self, path: &str) {
        self.pickled.retain(|p| &**p != path);
    }

    /// Whether this program pickled its own objects into exactly `path` before.
    pub fn pickled_to(&self, path: &str) -> bool {
        self.pickled.iter().any(|w| &**w == path)
    }

    /// Whether `path` names a file this program downloaded.
    pub fn is_downloaded(&self, path: &str) -> bool {
        self.downloads.iter().any(|d| same_file(d, path))
    }
}

pub fn combine(caps: &Capabilities, hits: &mut Hits) {
    if let (Some(at), Some(_)) = (caps.stratum_message, caps.network) {
        hits.add(rules::CRYPTO_MINING, at, Confidence::High);
    }
    reverse_shell(caps, hits);
    exfiltration(caps, hits);
    download_then_run(caps, hits);
    decoded_then_run(caps, hits);
    foreign_pickles(caps, hits);
    unused_keys(caps, hits);
    native_libc(caps, hits);
}

/// libc loaded through ctypes passes every check the runtime record makes (HIGH by the
/// mission's table), unless every call made through it is to a harmless helper
/// (`strlen`, `qsort`, `abs`, `time`): a program that only sorts with `qsort` escalates
/// nothing. Loaded and never seen called, it is judged as any call.
fn native_libc(caps: &Capabilities, hits: &mut Hits) {
    if let Some(at) = caps.libc_loaded {
        if caps.libc_beyond_helpers || !caps.libc_called {
            hits.add(rules::CTYPES_LIBC, at, Confidence::High);
        }
    }
}

/// The user's SSH keys loaded by a program that connects nowhere (and starts no program,
/// such as `git push`, that could) are not presented to any host: they are read, as a
/// file read of them is.
fn unused_keys(caps: &Capabilities, hits: &mut Hits) {
    if !caps.program_runs.is_empty() {
        return;
    }
    if let (Some(at), None) = (caps.key_loaded, caps.network) {
        hits.add(rules::SECRET_READ, at, Confidence::High);
    }
}

/// Pickles loaded from local files: untrusted data unless the program pickles its own
/// objects to that file (then it is its cache).
/// A load of a path unknown where it stands (`def load(path)` walked as defined) is of
/// the program's own pickle when the calls of that code load only its own.
fn foreign_pickles(caps: &Capabilities, hits: &mut Hits) {
    let own_file = |p: &str| caps.pickled_to(p) && !caps.foreign_writes.iter().any(|w| &**w == p);
    let own_at = |at: u32| {
        let mut known = (caps.local_loads.iter())
            .filter(|(a, _)| *a == at)
            .filter_map(|(_, p)| p.as_deref())
            .peekable();
        known.peek().is_some() && known.all(own_file)
    };
    for (at, path) in &caps.local_loads {
        let own = match path.as_deref() {
            Some(p) => own_file(p),
            None => own_at(*at),
        };
        if !own {
            hits.add(rules::UNSAFE_DESERIALIZATION, *at, Confidence::High);
        }
    }
}

fn reverse_shell(caps: &Capabilities, hits: &mut Hits) {
    if caps.socket_connect.is_some() {
        for &at in &caps.shell_wiring {
            hits.add(rules::REVERSE_SHELL, at, Confidence::High);
        }
    }
}

fn exfiltration(caps: &Capabilities, hits: &mut Hits) {
    if let (Some(secret), Some(network)) = (caps.secret_read, caps.network) {
        hits.add(rules::EXFILTRATION, secret.max(network), Confidence::Medium);
    }
}

fn download_then_run(caps: &Capabilities, hits: &mut Hits) {
    if caps.downloads.is_empty() && caps.downloaded_import_path.is_none() {
        return;
    }
    let downloads: Vec<String> = caps.downloads.iter().map(|d| d.to_string()).collect();
    for (command, _, at) in &caps.program_runs {
        // Running the file counts; unpacking or inspecting it (`unzip`, `tar`) does not.
        let (runs_download, runs_unknown) = shell::runs_downloaded(command, &downloads);
        if runs_download {
            hits.add(rules::DOWNLOAD_EXECUTE, *at, Confidence::High);
        } else if runs_unknown || command.is_empty() {
            hits.add(rules::DOWNLOAD_EXECUTE, *at, Confidence::Medium);
        }
    }
    for (path, at) in &caps.made_executable {
        if caps.is_downloaded(path) {
            hits.add(rules::DOWNLOAD_EXECUTE, *at, Confidence::High);
        }
    }
    for (module, at) in &caps.imports {
        let after_path = caps.downloaded_import_path.is_some_and(|path| *at > path);
        if after_path || downloads.iter().any(|path| is_module_file(path, module)) {
            hits.add(rules::DOWNLOAD_EXECUTE, *at, Confidence::High);
        }
    }
}

/// A file written with decoded bytes that is then run, or made executable, is
/// decode-then-execute (`os.write(fd, b32decode(S))`, then `bash path`).
fn decoded_then_run(caps: &Capabilities, hits: &mut Hits) {
    if caps.decoded_files.is_empty() {
        return;
    }
    let decoded: Vec<String> = caps.decoded_files.iter().map(|d| d.to_string()).collect();
    for (command, _, at) in &caps.program_runs {
        if shell::runs_downloaded(command, &decoded).0 {
            hits.add(rules::DECODE_EXECUTE, *at, Confidence::High);
        }
    }
    for (path, at) in &caps.made_executable {
        if decoded.iter().any(|d| same_file(d, path)) {
            hits.add(rules::DECODE_EXECUTE, *at, Confidence::High);
        }
    }
}

/// The file a command-line word uploads: attached (`@F`, `f=@F`, `--post-file=F`) or
/// after an option that takes one (`-T F`, `--upload-file F`).
fn uploaded_file<'w>(before: Option<&str>, word: &'w str) -> Option<&'w str> {
    const TAKES_FILE: &[&str] = &["-T", "--upload-file", "--post-file", "--body-file"];
    if let Some(file) = word.strip_prefix('@') {
        return Some(file);
    }
    if let Some((_, file)) = word.split_once("=@") {
        return Some(file);
    }
    for option in TAKES_FILE.iter().filter(|o| o.starts_with("--")) {
        if let Some(file) = word.strip_prefix(option).and_then(|r| r.strip_prefix('=')) {
            return Some(file);
        }
    }
    before.filter(|b| TAKES_FILE.contains(b)).map(|_| word)
}

/// Whether `path` is a file `import module` loads: `<name>.py` or `<name>/__init__.py`,
/// for the module's last dotted part.
fn is_module_file(path: &str, module: &str) -> bool {
    let name = module.rsplit('.').next().unwrap_or(module);
    file_name(path) == Some(&format!("{name}.py")) || path.ends_with(&format!("{name}/__init__.py"))
}

/// The last path component, unless it is unknown.
fn file_name(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    (!name.is_empty() && !is_partial(name)).then_some(name)
}

/// Whether two paths name the same file: the same name, or the same partly known name
/// (`libx-<?>.so` made by one expression, written then loaded).
fn same_file(a: &str, b: &str) -> bool {
    let name = |path: &str| path.rsplit('/').next().unwrap_or(path).to_string();
    let (x, y) = (name(a), name(b));
    let known_part = x.chars().any(|c| c != UNKNOWN_PART && c != '.');
    x == y && known_part && (!is_partial(&x) || a == b || x.chars().count() > 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_plus_dup2_is_a_reverse_shell() {
        // Either capability alone is fine; together they are a reverse shell.
        let mut caps = Capabilities {
            shell_wiring: vec![10],
            ..Default::default()
        };
        let mut hits = Hits::default();
        combine(&caps, &mut hits);
        assert!(hits.list.is_empty());
        caps.socket_connect = Some(5);
        combine(&caps, &mut hits);
        assert_eq!(hits.list[0].rule.id, "CRD101");
    }

    #[test]
    fn running_the_downloaded_file_is_download_execute() {
        // A run naming the downloaded file's name matches even through a directory.
        let caps = Capabilities {
            downloads: vec!["/tmp/payload".into()],
            program_runs: vec![
                ("./payload --x".into(), true, 3),
                ("ls -l".into(), true, 9),
                ("tar xzf /tmp/payload".into(), true, 12),
            ],
            ..Default::default()
        };
        let mut hits = Hits::default();
        combine(&caps, &mut hits);
        assert_eq!(hits.list.len(), 1);
        assert_eq!(hits.list[0].at, 3);
    }

    #[test]
    fn importing_the_downloaded_module_is_download_execute() {
        // `import helper` after saving `<dir>/helper.py` from the network runs it;
        // importing anything else does not.
        let caps = Capabilities {
            downloads: vec![
                "/tmp/x/helper.py".into(),
                "/tmp/pkg/plug/__init__.py".into(),
            ],
            imports: vec![
                ("json".into(), 1),
                ("helper".into(), 7),
                ("pkg.plug".into(), 9),
            ],
            ..Default::default()
        };
        let mut hits = Hits::default();
        combine(&caps, &mut hits);
        let at: Vec<u32> = hits.list.iter().map(|h| h.at).collect();
        assert_eq!(at, [7, 9]);
    }
}
