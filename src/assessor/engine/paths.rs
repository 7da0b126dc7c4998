//! Classifies file paths and indicator strings: system trees, protected directories,
//! credential files, persistence locations, container-escape files, mining markers.
//!
//! Called by `calls` (file operations) and `shell` (words of a command line). Paths are
//! normalised first (`//`, `.`, `..`), so `/tmp/../etc/shadow` is `/etc/shadow`.

use std::sync::LazyLock;

use super::indicators::{MarkerSet, Tag};
use super::value::{Value, UNKNOWN_PART, UNKNOWN_PART_STR};

/// A path split into components, `.` and `..` resolved.
pub struct NormalPath<'p> {
    pub absolute: bool,
    pub parts: Vec<&'p str>,
}

/// A relative path that climbs above where it starts (`../etc/passwd`) and then names a
/// system tree is aimed at that tree (path traversal), so it is read as absolute.
pub fn normalize(path: &str) -> NormalPath<'_> {
    let path = path.strip_prefix("file://").unwrap_or(path).trim();
    // A shell's `$HOME` is `~`.
    let home = ["$HOME", "${HOME}"].iter().find_map(|h| {
        path.strip_prefix(h)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    });
    if let Some(rest) = home {
        let mut normal = normalize_parts(rest);
        normal.parts.insert(0, "~");
        normal.absolute = false;
        return normal;
    }
    // `~root/...` is root's home, `~name/...` another user's.
    if let Some(rest) = path
        .strip_prefix('~')
        .filter(|r| !r.is_empty() && !r.starts_with('/'))
    {
        let (user, rest) = rest.split_once('/').unwrap_or((rest, ""));
        let mut normal = normalize_parts(rest);
        match user {
            "root" => normal.parts.insert(0, "root"),
            _ => normal.parts.splice(0..0, ["home", user]).for_each(drop),
        }
        normal.absolute = true;
        return normal;
    }
    normalize_parts(path)
}

fn normalize_parts(path: &str) -> NormalPath<'_> {
    let mut parts: Vec<&str> = Vec::new();
    let mut climbs = false;
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => climbs |= parts.pop().is_none(),
            other => parts.push(other),
        }
    }
    let traversal = climbs
        && parts
            .first()
            .is_some_and(|top| *top != "*" && SYSTEM_TREES.contains(top));
    NormalPath {
        absolute: path.starts_with('/') || traversal,
        parts,
    }
}

/// Top-level directories whose deletion wrecks the system or other users' data.
const SYSTEM_TREES: &[&str] = &[
    "etc", "usr", "bin", "sbin", "boot", "root", "lib", "lib32", "lib64", "libx32", "var", "home",
    "opt", "dev", "sys", "proc", "srv", "snap", "*",
];

/// Top-level directories that hold the system itself (HIGH on write or delete).
const PROTECTED_TREES: &[&str] = &[
    "etc", "usr", "bin", "sbin", "boot", "root", "lib", "lib32", "lib64", "libx32",
];

impl NormalPath<'_> {
    fn first(&self) -> Option<&str> {
        self.parts.first().copied()
    }

    fn last(&self) -> Option<&str> {
        self.parts.last().copied()
    }

    /// True when `a` is immediately followed by a component satisfying `b`.
    fn has_pair(&self, a: &str, b: impl Fn(&str) -> bool) -> bool {
        self.parts.windows(2).any(|w| w[0] == a && b(w[1]))
    }

    fn starts(&self, prefix: &[&str]) -> bool {
        self.absolute && self.parts.starts_with(prefix)
    }

    /// `/`, `/*`, anything under a system tree (scratch areas excepted), or the home
    /// directory itself or every entry of it (`~`, `~/*`, `Path.home().iterdir()`).
    pub fn is_destructive_target(&self) -> bool {
        // Home itself, or any number of wholly unknown levels below it: every file there
        // (`for f in home.rglob("*"): f.unlink()`, a walk of home removing what it finds).
        // So is every file found below the user's own documents (`~/Documents/**`).
        let found = |below: &[&str]| {
            below
                .iter()
                .all(|p| p.chars().all(|c| c == '*' || c == UNKNOWN_PART))
        };
        match self.parts.as_slice() {
            ["~", below @ ..] if found(below) => return !self.absolute,
            ["~", dir, below @ ..]
                if USER_DIRS.contains(dir) && !below.is_empty() && found(below) =>
            {
                return !self.absolute
            }
            _ => {}
        }
        if !self.absolute {
            return false;
        }
        if self.starts(&["var", "tmp"])
            || self.starts(&["dev", "shm"])
            || self.starts(&["dev", "null"])
        {
            return false;
        }
        self.first()
            .is_none_or(|top| SYSTEM_TREES.contains(&top) || top == UNKNOWN_PART_STR)
    }

    /// One of the user's own folders of documents, whole (`~/Documents`): removing it
    /// with everything in it (`rmtree`) destroys them all.
    pub fn is_user_folder(&self) -> bool {
        matches!(self.parts.as_slice(), ["~", dir] if USER_DIRS.contains(dir)) && !self.absolute
    }

    /// Files whose contents opening them for writing destroys (truncating, or overwriting
    /// in place) as surely as deleting them: a disk (`/dev/sda`), files found in the
    /// system's trees (`/etc/<?>.conf`, a walk of `/var/log`), or found at any depth below
    /// home (`~/<?>/<?>.py`). A file of a known name in a known directory is not.
    pub fn is_overwrite_target(&self) -> bool {
        const DISKS: &[&str] = &["sd", "hd", "vd", "xvd", "nvme", "mmcblk", "dm-", "md"];
        // Found, not named: the last two levels wholly unknown (a walk's directory and
        // file name, `rglob("*")`), which a name the program computes is not.
        let unknown = |p: &&str| !p.is_empty() && p.chars().all(|c| c == UNKNOWN_PART);
        let disk = match self.parts.as_slice() {
            ["dev", "mapper" | "disk", _, ..] => true,
            ["dev", name] => DISKS.iter().any(|d| name.starts_with(d)),
            _ => false,
        };
        let found =
            |parts: &[&str]| parts.len() >= 2 && parts[parts.len() - 2..].iter().all(unknown);
        let in_system = self.absolute && found(&self.parts) && self.is_destructive_target();
        // The user's own documents (`~/Documents/<?>/<?>`) are theirs as wholly as home.
        let in_home = match self.parts.as_slice() {
            ["~", first, below @ ..] => {
                let below = match USER_DIRS.contains(first) {
                    true => below,
                    false => &self.parts[1..],
                };
                found(below) && below.iter().all(unknown)
            }
            _ => false,
        };
        (self.absolute && disk) || in_system || in_home
    }

    pub fn is_protected(&self) -> bool {
        self.absolute
            && self
                .first()
                .is_some_and(|top| PROTECTED_TREES.contains(&top))
    }

    pub fn is_secret(&self) -> bool {
        const ETC_SECRETS: &[&str] = &["shadow", "gshadow", "sudoers", "master.passwd"];
        let etc_secret =
            self.parts.len() == 2 && self.starts(&["etc"]) && ETC_SECRETS.contains(&self.parts[1]);
        let ssh_key = self.has_pair(".ssh", |f| {
            (f.starts_with("id_") || f.starts_with("identity")) && !f.ends_with(".pub")
        });
        let proc_environ = self.absolute
            && self.parts.len() == 3
            && self.parts[0] == "proc"
            && self.parts[2] == "environ";
        etc_secret
            || ssh_key
            || self.unknown_file_in_credential_dir()
            || self.home_private_key()
            || proc_environ
            || self.has_pair(".aws", |f| f == "credentials" || f == "config")
            || self.has_pair(".docker", |f| f == "config.json")
            || self.has_pair(".kube", |f| f == "config")
            || self.has_pair("gh", |f| f == "hosts.yml")
            || self.has_pair(".terraform.d", |f| f == "credentials.tfrc.json")
            || self.has_pair("rclone", |f| f == "rclone.conf")
            || self.has_pair(".cargo", |f| f.starts_with("credentials"))
            || self.has_pair(".azure", |f| {
                f.ends_with("TokenCache.dat") || f.contains("token")
            })
            || self.home_env_file()
            || self.credential_dir()
            || self.has_pair("gcloud", |f| {
                f.starts_with("credentials") || f.starts_with("application_default")
            })
            || self.starts(&["var", "run", "secrets"])
            || self.browser_credential_store()
            || self.wallet_or_keyring()
            || self.last().is_some_and(|f| {
                may_name_one_of(f, SECRET_FILE_NAMES) || may_name_one_of(f, SHELL_HISTORIES)
            })
    }

    /// A host file that surveys the system: accounts, authentication and security
    /// configuration, system logs, kernel state, root's home (system reconnaissance).
    /// Everyday files a program reads for ordinary reasons (`/etc/hosts`, `/etc/os-release`,
    /// CA bundles, `/proc/cpuinfo`, its own `/proc/self/...`) are not.
    /// Where the kernel lists the machine's disks (`/sys/block`, `/sys/class/block`).
    pub fn lists_disks(&self) -> bool {
        self.absolute
            && matches!(
                self.parts.as_slice(),
                ["sys", "block"] | ["sys", "class", "block"]
            )
    }

    /// Root's home directory or anything below it (`os.listdir("/root")`).
    pub fn is_root_home(&self) -> bool {
        self.absolute && self.parts.first() == Some(&"root")
    }

    pub fn is_system_recon(&self) -> bool {
        if !self.absolute {
            return false;
        }
        match self.parts.as_slice() {
            ["etc", rest @ ..] => !rest.is_empty() && !everyday_etc(rest),
            ["root", _, ..] => true,
            // Login and authentication records, not application logs.
            ["var", "log", file, ..] => is_login_record(file),
            ["var", "lib", "pam" | "sss" | "samba", ..] => true,
            ["usr", "share", "base-passwd", ..] => true,
            ["boot", _, ..] => true,
            ["sys", "kernel" | "firmware", ..] => true,
            ["proc", file] => !EVERYDAY_PROC.contains(file),
            ["proc", pid, _] => *pid != "self" && *pid != "thread-self",
            _ => false,
        }
    }

    /// A file of the system itself rather than of the job: under `/proc`, `/sys`, `/etc`,
    /// `/usr` (but `/usr/share` and `/usr/local`), `/var/log`, `/boot`, or the binary and
    /// library trees, the everyday files aside. Harmless to read; its contents describe
    /// the host.
    pub fn is_host_file(&self) -> bool {
        const HOST_TREES: &[&str] = &[
            "proc", "sys", "etc", "usr", "boot", "bin", "sbin", "lib", "lib32", "lib64", "libx32",
        ];
        // Shared data, local installs and the job's own home (`/root` when it runs as
        // root) hold what a program works with, not what describes the host; the everyday
        // files (`/proc/cpuinfo`, `/etc/hostname`, `/etc/os-release`) are what programs
        // report about where they run, to experiment trackers and bug reports alike.
        let everyday = match self.parts.as_slice() {
            ["proc", file] => EVERYDAY_PROC.contains(file),
            ["etc", rest @ ..] => everyday_etc(rest),
            _ => false,
        };
        let data = everyday || self.starts(&["usr", "share"]) || self.starts(&["usr", "local"]);
        self.absolute
            && self.parts.len() >= 2
            && !data
            && (self.first().is_some_and(|top| HOST_TREES.contains(&top))
                || self.starts(&["var", "log"]))
    }

    /// A private key under the home directory, wherever it is kept there (`~/<?>/id_rsa`,
    /// `~/<?>.pem`, `~/<?>.key`).
    fn home_private_key(&self) -> bool {
        let home = self.parts.first() == Some(&"~")
            || self
                .parts
                .iter()
                .take(2)
                .any(|p| *p == "home" || *p == "root");
        home && self.last().is_some_and(|f| {
            (f.starts_with("id_") && !f.ends_with(".pub"))
                || [".pem", ".key", ".p12", ".pfx"]
                    .iter()
                    .any(|x| f.ends_with(x))
        })
    }

    /// A browser's saved passwords, cookies or the key that decrypts them.
    fn browser_credential_store(&self) -> bool {
        const BROWSER_DIRS: &[&str] = &[
            ".mozilla",
            "google-chrome",
            "chromium",
            "BraveSoftware",
            "microsoft-edge",
            "vivaldi",
            "opera",
        ];
        const STORES: &[&str] = &[
            "Login Data",
            "Cookies",
            "Web Data",
            "Local State",
            "logins.json",
            "key4.db",
            "key3.db",
            "cookies.sqlite",
            "signons.sqlite",
            // Browsing histories: where the user has been, as private as a shell's.
            "History",
            "places.sqlite",
        ];
        // Any file found below a profile (a walk, `rglob("*")`) may be one of them.
        let found = |f: &str| !f.is_empty() && f.chars().all(|c| c == UNKNOWN_PART);
        self.parts.iter().any(|p| BROWSER_DIRS.contains(p))
            && self
                .last()
                .is_some_and(|f| found(f) || may_name_one_of(f, STORES))
    }

    /// A cryptocurrency wallet, a keyring or a password manager's store: the wallet files
    /// by name (`wallet.dat`, `*.wallet`, `*.kdbx`), or anything in (or the whole of) a
    /// folder that holds only those (`~/.electrum/wallets`, `~/.ethereum/keystore`,
    /// `~/.local/share/keyrings`, `~/Library/Keychains`, `~/.password-store`).
    fn wallet_or_keyring(&self) -> bool {
        const STORE_DIRS: &[&str] = &[".electrum", ".monero", ".armory", ".password-store"];
        // Folders of those names elsewhere are something else (`/usr/share/keyrings` holds
        // the package signing keys, `texts/Exodus` a book): only the user's own count.
        let home = self.parts.first() == Some(&"~")
            || matches!(
                self.parts.as_slice(),
                ["home", _, ..] | ["root", ..] | ["Users", _, ..]
            );
        if !home {
            return false;
        }
        let app_store = self.has_pair("share", |d| d == "keyrings")
            || self.has_pair("Library", |d| d == "Keychains")
            || self.has_pair(".config", |d| d == "Exodus" || d == "Electrum")
            || self.has_pair("Application Support", |d| {
                matches!(d, "Exodus" | "Electrum")
            });
        let wallet_file = |f: &str| {
            f == "wallet.dat"
                || (f.starts_with("wallet") && f.ends_with(".dat"))
                || [".wallet", ".kdbx", ".keychain", ".keychain-db"]
                    .iter()
                    .any(|x| f.ends_with(x))
        };
        let keystore = |d: &str| d.eq_ignore_ascii_case(".ethereum") || d == "Ethereum";
        app_store
            || self.parts.iter().any(|p| STORE_DIRS.contains(p))
            || self
                .parts
                .windows(2)
                .any(|w| keystore(w[0]) && w[1] == "keystore")
            || self.last().is_some_and(wallet_file)
    }

    /// `~/.ssh/<?>`, `~/.config/gcloud/<?>/<?>.json`: a file picked at run time (a glob, a
    /// computed name) from below a directory that holds little but credentials. Public
    /// keys and `known_hosts` are not credentials.
    fn unknown_file_in_credential_dir(&self) -> bool {
        let Some(dir) = self.parts.iter().position(|p| CREDENTIAL_DIRS.contains(p)) else {
            return false;
        };
        let below = &self.parts[dir + 1..];
        let file = below.last().copied().unwrap_or("");
        below.iter().any(|p| p.contains(UNKNOWN_PART))
            && !file.ends_with(".pub")
            && !matches!(file, "known_hosts" | "config" | "authorized_keys")
    }

    /// A directory that holds little but credentials, taken whole (archived, copied):
    /// every credential in it is read.
    fn credential_dir(&self) -> bool {
        self.last().is_some_and(|d| CREDENTIAL_DIRS.contains(&d))
            || self.parts.ends_with(&[".config", "gh"])
    }

    /// `~/.env`, `~/<?>/.env.production`: environment files of the user's projects, found
    /// from the home directory (a program's own `.env` in its work dir is its settings).
    fn home_env_file(&self) -> bool {
        let env_file = |f: &str| {
            (f == ".env" || f.starts_with(".env.") || f.starts_with(".env\u{FFFD}"))
                && !f.ends_with(".example")
        };
        let searched = self.parts.iter().any(|p| p.contains(UNKNOWN_PART));
        match self.parts.as_slice() {
            ["~", f] => env_file(f),
            ["~", .., f] => searched && env_file(f),
            _ => false,
        }
    }

    /// Who may be root: the account databases, sudo's rules (`/etc/sudoers.d/*`) and how
    /// logins are checked (`/etc/pam.d/*`).
    pub fn is_account_database(&self) -> bool {
        let file = |name: &str| self.parts.len() == 2 && self.starts(&["etc", name]);
        ["passwd", "shadow", "group", "gshadow", "sudoers"]
            .iter()
            .any(|name| file(name))
            || self.parts.len() > 2 && self.starts(&["etc", "sudoers.d"])
            || self.parts.len() > 2 && self.starts(&["etc", "pam.d"])
    }

    /// A shell or an interpreter (`/bin/bash`, `/usr/bin/python3`): setuid, it runs
    /// anything as its owner.
    pub fn is_shell_or_interpreter(&self) -> bool {
        self.last().is_some_and(|name| {
            let name = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
            matches!(
                name,
                "sh" | "bash"
                    | "dash"
                    | "zsh"
                    | "ksh"
                    | "csh"
                    | "tcsh"
                    | "fish"
                    | "ash"
                    | "busybox"
                    | "python"
                    | "perl"
                    | "ruby"
                    | "php"
                    | "node"
                    | "lua"
                    | "find"
                    | "vim"
                    | "vi"
                    | "env"
                    | "awk"
                    | "gawk"
                    | "nmap"
                    | "less"
                    | "more"
                    | "cp"
            )
        })
    }

    pub fn is_persistence(&self) -> bool {
        const RC_FILES: &[&str] = &[
            ".bashrc",
            ".bash_profile",
            ".bash_login",
            ".profile",
            ".zshrc",
            ".zprofile",
            ".zshenv",
            ".zlogin",
            ".cshrc",
            ".tcshrc",
            ".kshrc",
            "bash.bashrc",
            "ld.so.preload",
            "authorized_keys",
            "authorized_keys2",
            "crontab",
            "rc.local",
        ];
        let etc_dir = |dir: &str| self.parts.len() > 2 && self.starts(&["etc", dir]);
        self.last().is_some_and(|f| RC_FILES.contains(&f))
            || self.is_startup_hook()
            || self.starts(&["etc", "profile"])
            || etc_dir("profile.d")
            || etc_dir("init.d")
            || etc_dir("systemd")
            || etc_dir("cron.d")
            || (self.starts(&["etc"]) && self.parts.get(1).is_some_and(|d| d.starts_with("cron.")))
            || self.starts(&["var", "spool", "cron"])
            || self.starts(&["lib", "systemd", "system"])
            || self.starts(&["usr", "lib", "systemd"])
            || self.has_pair("systemd", |f| f == "user")
            || self.has_pair(".config", |f| f == "autostart")
            || self.hooks_of_found_repositories()
            // macOS: launchd starts every agent and daemon listed there at login or boot.
            || self.has_pair("Library", |f| matches!(f, "LaunchAgents" | "LaunchDaemons"))
    }

    /// `~/<?>/.git/hooks/post-checkout`: hooks put into repositories found below home (or
    /// anywhere absolute) run on the user's next checkout or commit in each; a program's
    /// own repository (`.git/hooks/pre-commit`) is its set-up.
    fn hooks_of_found_repositories(&self) -> bool {
        let found = self.parts.iter().any(|p| p.contains(UNKNOWN_PART));
        let outside = self.absolute || self.parts.first() == Some(&"~");
        outside && found && self.has_pair(".git", |d| d == "hooks")
    }

    /// Files every Python start reads: a `.pth` file or `sitecustomize.py` in
    /// site-packages (or in a directory only known at run time) runs code in every later
    /// interpreter.
    fn is_startup_hook(&self) -> bool {
        let [.., dir, file] = self.parts.as_slice() else {
            return false;
        };
        let hook =
            file.ends_with(".pth") || matches!(*file, "sitecustomize.py" | "usercustomize.py");
        hook && (dir.contains(UNKNOWN_PART)
            || self
                .parts
                .iter()
                .any(|p| matches!(*p, "site-packages" | "dist-packages")))
    }

    /// `/dev/input/event3`, `/dev/input/by-path/<?>-kbd`: keyboards and other input
    /// devices, whose events are what is typed.
    pub fn is_input_device(&self) -> bool {
        self.starts(&["dev", "input"]) && self.parts.len() > 2
    }

    /// Files that only matter for breaking out of a container.
    pub fn is_escape(&self) -> bool {
        let proc_mem = self.absolute
            && self.parts.len() == 3
            && self.parts[0] == "proc"
            && self.parts[2] == "mem";
        // `/proc/1/root/...`: another process's view of the file system, the host's when
        // the container shares its pid namespace (the job's own is `/proc/self/root`).
        let proc_root = self.absolute
            && self.parts.len() >= 3
            && self.parts[0] == "proc"
            && !matches!(self.parts[1], "self" | "thread-self")
            && self.parts[2] == "root";
        proc_mem
            || proc_root
            || self.starts(&["dev", "mem"])
            || self.starts(&["dev", "kmem"])
            || self.starts(&["proc", "kcore"])
    }
}

/// The directory holding `path`, as `os.path.dirname` and `Path.parent` give it. The home
/// directory's is where every user's home lives (`/home`).
pub fn parent(path: &str) -> String {
    let path = path.trim_end_matches('/');
    if path == "~" {
        return "/home".to_string();
    }
    match path.rsplit_once('/') {
        Some(("", _)) => "/".to_string(),
        Some((head, _)) => head.to_string(),
        None if path.is_empty() => "/".to_string(),
        None => ".".to_string(),
    }
}

/// Whether a file name that may hold unknown pieces (a glob's `*`, a computed part) can be
/// one of `names`: its known pieces appear in the name in order, the first at its start
/// and the last at its end. A name with fewer than two known characters matches only itself, so a
/// listing of everything (`*`, `.*`) is not taken for a secret.
fn may_name_one_of(part: &str, names: &[&str]) -> bool {
    if !part.contains(UNKNOWN_PART) {
        return names.contains(&part);
    }
    let pieces: Vec<&str> = part.split(UNKNOWN_PART).collect();
    // A glob's leading `*` never matches a dot-file.
    let dot_files = !pieces[0].is_empty();
    pieces.iter().map(|p| p.len()).sum::<usize>() >= 2
        && names
            .iter()
            .any(|name| (dot_files || !name.starts_with('.')) && pieces_fit(&pieces, name))
}

/// Whether the known pieces of a name (split at its unknown parts) fit `name`.
fn pieces_fit(pieces: &[&str], name: &str) -> bool {
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() {
        return false;
    }
    let Some(mut rest) = name[first.len()..].strip_suffix(last) else {
        return false;
    };
    for piece in &pieces[1..pieces.len() - 1] {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

/// Credential files known by their name alone, wherever they are.
/// Directories that hold little but credentials.
/// The folders of home where the user keeps their own work (`Downloads` is not: its
/// files are copies, and clearing it is housekeeping).
const USER_DIRS: &[&str] = &[
    "Documents",
    "Desktop",
    "Pictures",
    "Music",
    "Videos",
    "Photos",
];

const CREDENTIAL_DIRS: &[&str] = &[".ssh", ".aws", ".gnupg", "gcloud", ".kube"];

const SECRET_FILE_NAMES: &[&str] = &[
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".vault-token",
    ".s3cfg",
    ".boto",
    ".my.cnf",
    ".htpasswd",
];

/// Shell and REPL histories: commands typed with passwords and tokens in them.
const SHELL_HISTORIES: &[&str] = &[
    ".bash_history",
    ".zsh_history",
    ".sh_history",
    ".history",
    ".python_history",
    ".mysql_history",
    ".psql_history",
    ".lesshst",
];

/// Logs under `/var/log` that record who logged in, failed to, or ran what as root.
const LOGIN_RECORDS: &[&str] = &[
    "wtmp", "btmp", "lastlog", "faillog", "auth.log", "secure", "audit", "sudo.log", "tallylog",
];

/// A login record or one of its rotations (`auth.log`, `auth.log.1`, `secure-20261101`,
/// `auth.log*` as a glob finds them).
fn is_login_record(file: &str) -> bool {
    LOGIN_RECORDS.iter().any(|record| {
        file.strip_prefix(record)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '-', UNKNOWN_PART]))
    })
}

/// Files of `/proc` that programs read for ordinary reasons (how many cores, how much memory,
/// which filesystems are mounted and how busy the disks are: what `df` and `iostat` read).
const EVERYDAY_PROC: &[&str] = &[
    "cpuinfo",
    "meminfo",
    "loadavg",
    "uptime",
    "stat",
    "version",
    "mounts",
    "diskstats",
    "partitions",
    "filesystems",
    "swaps",
    "self",
    "thread-self",
];

/// Files of `/etc` read for ordinary reasons: name resolution, the OS name, time zone,
/// MIME types, CA certificates.
fn everyday_etc(rest: &[&str]) -> bool {
    matches!(
        rest,
        ["hosts"
            | "hostname"
            | "resolv.conf"
            | "os-release"
            | "lsb-release"
            | "debian_version"
            | "localtime"
            | "timezone"
            | "locale.conf"
            | "mime.types"
            | "nsswitch.conf"
            | "protocols"
            | "services"
            | "machine-id"]
            | ["ssl", "certs", ..]
            | ["pki", "tls", "certs", ..]
            | ["ca-certificates", ..]
            | ["ssl", "cert.pem"]
            | ["zoneinfo", ..]
    )
}

/// Strings whose mere presence marks a container-escape attempt.
const ESCAPE_MARKERS: &[&str] = &[
    "docker.sock",
    "containerd.sock",
    "crio.sock",
    "release_agent",
    "notify_on_release",
    "core_pattern",
    "sysrq-trigger",
    "uevent_helper",
    "/proc/sys/kernel/modprobe",
];

/// Strings whose mere presence marks crypto-mining.
const MINING_MARKERS: &[&str] = &[
    "stratum+tcp://",
    "stratum+ssl://",
    "stratum+tls://",
    "stratum2+tcp://",
    "stratum1+tcp://",
    "mining.subscribe",
    "mining.authorize",
    "mining.submit",
    "xmrig",
    "xmr-stak",
    "ethminer",
    "lolminer",
    "nbminer",
    "phoenixminer",
    "cgminer",
    "bfgminer",
    "minerd",
    "cpuminer",
    "nicehash",
    "moneroocean",
    "minexmr",
    "cryptonight",
    // Miners run in visitors' browsers: their scripts, services and client objects.
    "coinhive",
    "coin-hive",
    "authedmine",
    "cryptoloot",
    "crypto-loot",
    "crlt.anonymous",
    "coinimp",
    "webminepool",
    "jsecoin",
    "deepminer",
    "webminer",
    "web-miner",
    // xmrig's options and configuration keys.
    "donate-level",
    "max-threads-hint",
    "getblocktemplate",
];

/// The mining and escape markers, matched together in one pass.
static MARKERS: LazyLock<MarkerSet> = LazyLock::new(|| {
    let mining = MINING_MARKERS.iter().map(|m| (*m, Tag::Mining));
    MarkerSet::new(mining.chain(ESCAPE_MARKERS.iter().map(|m| (*m, Tag::Escape))))
});

/// Whether `text` mentions crypto-mining and whether it mentions a container escape.
pub fn mining_and_escape(text: &str) -> (bool, bool) {
    let (mut mining, mut escape) = (false, false);
    MARKERS.find(text, |tag| match tag {
        Tag::Mining => mining = true,
        _ => escape = true,
    });
    (
        mining || has_monero_address(text) || text == "getwork" || text.ends_with("/getwork"),
        escape || looks_like_path(text) && normalize(text).is_escape(),
    )
}

/// A stratum message written out as a dict (a miner's own pool client): a `login` with
/// the miner's `login`, `pass` and `agent`, a `submit` of a share's `job_id` and `nonce`,
/// or the `keepalived` ping.
pub fn is_stratum_message(message: &Value) -> bool {
    let Some(method) = message.get_text("method").and_then(Value::exact_text) else {
        return false;
    };
    let params = message.get_text("params");
    let has_all =
        |keys: &[&str]| params.is_some_and(|p| keys.iter().all(|k| p.get_text(k).is_some()));
    match method {
        "login" => has_all(&["login", "pass", "agent"]),
        "submit" | "mining.submit" => has_all(&["job_id", "nonce"]),
        "keepalived" => true,
        _ => false,
    }
}

/// A Monero wallet address: 95 (or, integrated, 106) letters and digits starting with
/// `4` or `8`, what a miner is told to pay.
fn has_monero_address(text: &str) -> bool {
    const BASE58: &str = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    // Words of base64 (`+`, `/`, `=`) are not split apart.
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')))
        .any(|word| {
            matches!(word.len(), 95 | 106)
                && (word.starts_with('8')
                    || word.starts_with("4")
                        && word[1..]
                            .starts_with(|c: char| c.is_ascii_digit() || c == 'A' || c == 'B'))
                && word.chars().all(|c| BASE58.contains(c))
        })
}

/// The name of an entry listed in `dir`, known only at run time: under `/sys/block` it is
/// a disk's (`sd<?>`, standing for any of them), so `/dev/<name>` is that disk.
pub fn listed_name(dir: &str) -> &'static str {
    match dir.len() <= 64 && normalize(dir).lists_disks() {
        true => "sd\u{FFFD}",
        false => UNKNOWN_PART_STR,
    }
}

pub fn mentions_escape(text: &str) -> bool {
    mining_and_escape(text).1
}

/// A host path that, mounted into a container, hands the container the host: its root
/// or one of its top-level trees whole (`/etc`, `/home`), its kernel interfaces (`/proc`,
/// `/sys`), credentials, or the engine's own socket. A project directory, a cache or
/// `/etc/localtime` does not.
pub fn exposes_host(source: &str) -> bool {
    const TREES: &[&str] = &[
        "etc", "root", "home", "proc", "sys", "dev", "boot", "var", "run", "usr", "lib", "bin",
        "sbin",
    ];
    let path = normalize(source);
    if !path.absolute {
        return false;
    }
    let whole_tree = path.parts.len() == 1 && path.first().is_some_and(|t| TREES.contains(&t));
    path.parts.is_empty()
        || whole_tree
        || path.first().is_some_and(|t| t == "proc" || t == "sys")
        || path.is_secret()
        || mentions_escape(source)
}

/// A capability that makes a container's root the host's (`SYS_ADMIN`, `ALL`...).
pub fn is_root_capability(name: &str) -> bool {
    const ROOT: &[&str] = &[
        "SYS_ADMIN",
        "ALL",
        "SYS_PTRACE",
        "SYS_MODULE",
        "DAC_READ_SEARCH",
        "DAC_OVERRIDE",
        "SYS_RAWIO",
        "SYS_BOOT",
    ];
    let upper = name.to_ascii_uppercase();
    ROOT.contains(&upper.trim_start_matches("CAP_"))
}

/// A disk or the machine's memory (`/dev/sda`, `/dev/nvme0n1`, `/dev/mem`), not a GPU or
/// `/dev/fuse`.
pub fn is_raw_device(path: &str) -> bool {
    const DISKS: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "dm-", "loop", "md",
    ];
    let Some(name) = path.strip_prefix("/dev/") else {
        return false;
    };
    matches!(name, "mem" | "kmem" | "port")
        || name.starts_with("mapper/")
        || DISKS.iter().any(|d| name.starts_with(d))
}

/// A security option that lifts the container's confinement (`seccomp=unconfined`,
/// `apparmor=unconfined`, `label=disable`), not one that adds to it.
pub fn lifts_confinement(option: &str) -> bool {
    let lower = option.to_ascii_lowercase();
    lower.contains("unconfined")
        || lower.contains("label=disable")
        || lower.contains("label:disable")
}

/// `10.0.0.<?>`: an IPv4 address whose last parts are computed.
pub fn is_partial_address(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    parts.len() == 4
        && parts[0].parse::<u8>().is_ok()
        && parts.iter().any(|p| p.contains(UNKNOWN_PART))
        && parts
            .iter()
            .all(|p| p.parse::<u8>().is_ok() || *p == UNKNOWN_PART_STR)
}

/// A mount (`/:/host`, `/var/run/docker.sock:/s:ro`, `type=bind,source=/,target=/h`)
/// of a host path that exposes the host.
pub fn mount_exposes_host(spec: &str) -> bool {
    let source = spec
        .split(',')
        .find_map(|f| f.strip_prefix("source=").or(f.strip_prefix("src=")))
        .unwrap_or_else(|| spec.split(':').next().unwrap_or(spec));
    exposes_host(source)
}

pub fn mentions_mining(text: &str) -> bool {
    MARKERS.contains(text, Tag::Mining)
}

fn looks_like_path(text: &str) -> bool {
    text.starts_with('/') && !text.contains(char::is_whitespace)
}

/// True when some part of the text is only known at run time.
pub fn is_partial(text: &str) -> bool {
    text.contains(UNKNOWN_PART)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partly_known_names_match_the_secrets_they_can_be() {
        // A glob or computed name is a secret when it can name one; `*` and `.*` are not.
        let u = UNKNOWN_PART;
        assert!(normalize(&format!("~/.{u}_history")).is_secret());
        assert!(normalize(&format!("~/{u}/.{u}netrc")).is_secret());
        assert!(!normalize(&format!("outputs/{u}history{u}")).is_secret());
        assert!(normalize(&format!("{u}netrc")).is_secret());
        assert!(!normalize(&format!("~/{u}")).is_secret());
        assert!(!normalize(&format!("~/.{u}")).is_secret());
        assert!(!normalize(&format!("data/{u}.csv")).is_secret());
        assert!(!normalize(&format!("~/.{u}_historyx")).is_secret());
    }

    #[test]
    fn browser_stores_are_secrets() {
        let u = UNKNOWN_PART;
        assert!(normalize("~/.config/google-chrome/Default/Login Data").is_secret());
        assert!(normalize(&format!("~/.mozilla/firefox/{u}.default{u}/logins.json")).is_secret());
        assert!(!normalize("~/.mozilla/firefox/profiles.ini").is_secret());
        assert!(!normalize("data/Cookies").is_secret());
    }

    #[test]
    fn a_shells_home_variable_is_home() {
        assert!(normalize("$HOME").is_destructive_target());
        assert!(normalize("${HOME}/").is_destructive_target());
        assert!(normalize("$HOME/.ssh/id_rsa").is_secret());
        assert!(!normalize("$HOMEDIR/x").is_destructive_target());
    }

    #[test]
    fn the_parent_of_home_is_every_home() {
        // dirname("~") is where all homes live; other paths lose their last part.
        assert_eq!(parent("~"), "/home");
        assert_eq!(parent("~/"), "/home");
        assert_eq!(parent("/etc/passwd"), "/etc");
        assert_eq!(parent("/etc"), "/");
        assert_eq!(parent("data.csv"), ".");
        assert!(normalize(&parent("~")).is_destructive_target());
        assert!(!normalize(&parent("~/project/out")).is_destructive_target());
    }

    #[test]
    fn every_file_below_home_is_a_destructive_target() {
        // `~/<?>/<?>` is what a walk of home yields; a named folder in home is not.
        let u = UNKNOWN_PART;
        assert!(normalize(&format!("~/{u}/{u}")).is_destructive_target());
        assert!(!normalize(&format!("~/Downloads/{u}")).is_destructive_target());
        // Every file below the user's documents is theirs as much as home itself.
        assert!(normalize(&format!("~/Documents/{u}/{u}")).is_destructive_target());
        assert!(!normalize("~/Documents/report.txt").is_destructive_target());
        assert!(!normalize(&format!("~/{u}/{u}.tmp")).is_destructive_target());
    }

    #[test]
    fn dot_dot_cannot_hide_a_system_path() {
        // `/tmp/../etc/shadow` normalises to `/etc/shadow`.
        assert!(normalize("/tmp/../etc/shadow").is_secret());
        assert!(normalize("/etc//./passwd").is_protected());
    }

    #[test]
    fn root_and_system_trees_are_destructive_targets() {
        // Deleting `/`, `/*` or `/usr/lib` is destructive; `/tmp/x` and `/var/tmp` are not.
        assert!(normalize("/").is_destructive_target());
        assert!(normalize("/*").is_destructive_target());
        assert!(normalize("/usr/lib").is_destructive_target());
        assert!(!normalize("/tmp/x").is_destructive_target());
        assert!(!normalize("/var/tmp/x").is_destructive_target());
        assert!(!normalize("data/out").is_destructive_target());
        assert!(normalize("~").is_destructive_target());
        assert!(normalize("~/\u{FFFD}").is_destructive_target());
        assert!(!normalize("~/.cache/pip").is_destructive_target());
    }

    #[test]
    fn credentials_are_secret_but_public_keys_are_not() {
        // Private keys and cloud credentials are secrets; `id_rsa.pub` is not.
        assert!(normalize("~/.ssh/id_ed25519").is_secret());
        assert!(normalize("\u{FFFD}/.aws/credentials").is_secret());
        assert!(normalize("/proc/1/environ").is_secret());
        assert!(!normalize("~/.ssh/id_rsa.pub").is_secret());
        assert!(!normalize("/etc/passwd").is_secret());
        assert!(normalize("/home/u/.bash_history").is_secret());
        assert!(normalize("~/\u{FFFD}/\u{FFFD}.pem").is_secret());
        assert!(!normalize("certs/server.pem").is_secret());
    }

    #[test]
    fn host_surveys_are_recon_but_everyday_files_are_not() {
        // Accounts, logs, kernel state and root's files survey the host; hosts, CA bundles,
        // cpuinfo and the program's own /proc/self do not.
        for path in [
            "/etc/passwd",
            "/etc/security/limits.conf",
            "/var/log/wtmp",
            "/root/.profile",
            "/proc/1/cmdline",
            "/sys/kernel/vmcoreinfo",
            "/tmp/../etc/group",
            "../../etc/shadow",
        ] {
            assert!(normalize(path).is_system_recon(), "{path}");
        }
        for path in [
            "/etc/hosts",
            "/etc/ssl/certs/ca-certificates.crt",
            "/proc/cpuinfo",
            "/proc/self/status",
            "etc/passwd",
            "/var/lib/apt/lists",
            "/var/log/nginx/access.log",
            "../data/etc/passwd",
        ] {
            assert!(!normalize(path).is_system_recon(), "{path}");
        }
    }

    #[test]
    fn persistence_locations_are_recognised() {
        // rc files, cron, systemd units, authorized_keys and ld.so.preload persist code.
        for path in [
            "~/.bashrc",
            "/etc/cron.d/job",
            "/etc/systemd/system/x.service",
            "/root/.ssh/authorized_keys",
            "/etc/ld.so.preload",
            "\u{FFFD}/.config/systemd/user/x.service",
            "/usr/lib/python3/dist-packages/zz.pth",
            "\u{FFFD}/sitecustomize.py",
        ] {
            assert!(normalize(path).is_persistence(), "{path}");
        }
        assert!(!normalize("out/profile.json").is_persistence());
    }

    #[test]
    fn escape_and_mining_markers_are_found_in_text() {
        // Indicator strings are recognised inside longer text and URLs.
        assert!(mentions_escape("/var/run/docker.sock"));
        assert!(mentions_escape("/proc/1/mem"));
        assert!(!mentions_escape("/proc/self/status"));
        assert!(mentions_mining("stratum+tcp://pool.example:3333"));
        assert!(!mentions_mining("http://example.com"));
    }
}
