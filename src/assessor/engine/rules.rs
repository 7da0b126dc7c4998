//! The rule table: every rule's id, title, severity, class, CWE and one-sentence reason,
//! as data. `docs/rules.md` is written from this table (a test keeps them in step).
//!
//! Detectors in `calls`, `shell` and `combine` refer to rules by the constants below;
//! `report` turns a hit into a `Finding` using only what is written here.

use crate::protocol::assessor::Level;

/// How a rule reacts to the program's origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// What the program does; one level lower when the assistant wrote it itself.
    Behavioural,
    /// Privileged access; the same for every origin.
    Privileged,
    /// The analysis itself could not vouch for the program; the same for every origin.
    Analysis,
}

#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    pub title: &'static str,
    pub severity: Level,
    pub class: Class,
    pub cwe: Option<&'static str>,
    /// Why it matters, one sentence; becomes the finding's message.
    pub why: &'static str,
}

macro_rules! rules {
    ($($name:ident = $id:literal, $sev:ident, $class:ident, $cwe:expr, $title:literal, $why:literal;)*) => {
        $(pub const $name: &Rule = &Rule {
            id: $id,
            title: $title,
            severity: Level::$sev,
            class: Class::$class,
            cwe: $cwe,
            why: $why,
        };)*
        /// Every rule, in id order.
        pub const ALL: &[&Rule] = &[$($name),*];
    };
}

rules! {
    SYNTAX_ERROR = "CRD001", Medium, Analysis, None, "Program does not parse",
        "Code that does not parse cannot be fully analysed, and the recovered parts may hide what it does.";
    TOO_DEEP = "CRD002", High, Analysis, Some("CWE-674"), "Too deeply nested to analyse",
        "Part of the program nests deeper than the analyser safely follows; that part was left out of the analysis and may hide anything.";
    TOO_LARGE = "CRD003", High, Analysis, Some("CWE-400"), "Too large to analyse",
        "The program holds more code than the analyser reads; the code past the limit was left out of the analysis and may hide anything.";
    ANALYSIS_FAILED = "CRD004", High, Analysis, None, "Analysis failed",
        "The analyser failed on this program, so nothing in it was vouched for.";
    NOT_SOURCE = "CRD005", High, Analysis, None, "Not Python source",
        "The file is binary data rather than Python source text, so nothing in it could be checked.";

    REVERSE_SHELL = "CRD101", Blocked, Behavioural, Some("CWE-506"), "Reverse shell",
        "Connecting a socket and wiring a shell to it hands control of the sandbox to a remote party.";
    DOWNLOAD_EXECUTE = "CRD102", Blocked, Behavioural, Some("CWE-494"), "Download and execute",
        "Running code fetched from the network executes something nobody assessed.";
    DECODE_EXECUTE = "CRD103", Blocked, Behavioural, Some("CWE-506"), "Decoded payload executed",
        "Executing data that is decoded or decompressed at run time hides the real program from review.";
    DESTRUCTIVE = "CRD104", Blocked, Behavioural, Some("CWE-732"), "Destroys system paths",
        "Deleting the root or a system directory, or emptying a database that is not the job's own, has no place in a sandboxed job and signals hostile intent.";
    PERSISTENCE = "CRD105", Blocked, Behavioural, Some("CWE-506"), "Installs persistence",
        "Writing shell rc files, cron, systemd units, authorized_keys or ld.so.preload makes code outlive the job.";
    CONTAINER_ESCAPE = "CRD106", Blocked, Behavioural, Some("CWE-269"), "Container escape probe",
        "Touching the Docker socket, cgroup release_agent, namespaces, mounts, kernel modules or process memory probes for a way out of the sandbox.";
    KILL_OTHERS = "CRD107", Blocked, Behavioural, Some("CWE-400"), "Kills other processes",
        "Signalling processes the program did not start attacks whatever else shares the machine.";
    CRYPTO_MINING = "CRD108", Blocked, Behavioural, Some("CWE-400"), "Crypto-mining",
        "Mining pool URLs and miner binaries turn the sandbox into someone else's mining rig.";
    EXFILTRATION = "CRD109", Blocked, Behavioural, Some("CWE-200"), "Secret read and sent out",
        "A program that reads credentials and also talks to the network can leak them.";
    KNOWN_THREAT = "CRD110", Blocked, Behavioural, Some("CWE-506"), "Matches a known-threat signature",
        "The program contains code, a string, a domain or an address on the configured list of known threats.";
    FORK_BOMB = "CRD111", Blocked, Behavioural, Some("CWE-400"), "Fork bomb",
        "Starting processes or threads in a loop that never ends, or a thousand of them, or forking for ten passes or more (each child forks on), or a function (in Python or the shell) that starts itself twice or more per call, without waiting, exhausts the process table and memory of everything on the machine.";
    RESOURCE_BOMB = "CRD112", Blocked, Behavioural, Some("CWE-400"), "Memory or disk bomb",
        "A loop that never ends, waits for nothing and only grows a list, a dict or a file takes all the memory or disk the sandbox shares with other jobs.";
    PRIVILEGE_ESCALATION = "CRD113", Blocked, Behavioural, Some("CWE-269"), "Plants a way to root",
        "A setuid copy of a shell or a root-owned setuid program, a sudoers rule, a changed account database (passwd, shadow, group) or capabilities granted to an interpreter let anyone act as root later.";

    PRIVILEGE_COMMAND = "CRD201", High, Privileged, Some("CWE-250"), "sudo or su invoked",
        "Asking for root through sudo, su, doas or pkexec tries to leave the sandbox's unprivileged user.";
    SET_ID = "CRD202", High, Privileged, Some("CWE-250"), "Changes process user or group ids",
        "Calling setuid and its relatives tries to change which user the code runs as.";
    SETID_BITS = "CRD203", High, Privileged, Some("CWE-732"), "Sets setuid or setgid bits",
        "A setuid or setgid file runs with its owner's privileges for anyone who starts it.";
    SYSTEM_PATH_WRITE = "CRD204", High, Privileged, Some("CWE-732"), "Writes or deletes system files",
        "Changing files under /etc, /usr, /bin, /sbin, /boot, /root or /lib alters the system itself.";
    SECRET_READ = "CRD205", High, Privileged, Some("CWE-522"), "Reads credentials",
        "Reading /etc/shadow, SSH keys, cloud credentials, .netrc or another process's environment accesses secrets.";
    CTYPES_LIBC = "CRD206", High, Privileged, Some("CWE-676"), "Calls libc through ctypes",
        "Loading libc with ctypes reaches system calls directly, past every Python-level check.";
    CAPABILITIES = "CRD207", High, Privileged, Some("CWE-250"), "Changes process capabilities",
        "prctl and capability tools change what the kernel lets the process do.";
    SYSTEM_READ = "CRD208", High, Privileged, Some("CWE-497"), "Reads sensitive system files",
        "Reading account databases, security configuration, system logs, kernel state or root's files surveys the host (system reconnaissance).";
    HIDDEN_CALL = "CRD209", High, Behavioural, Some("CWE-95"), "Call hidden in evaluated code",
        "A string handed to exec or eval that starts programs, opens connections or imports by name hides that call from anyone reading the program.";
    KEYLOGGER = "CRD210", High, Privileged, Some("CWE-200"), "Records keystrokes",
        "Hooking the keyboard or reading input devices (`/dev/input`) captures everything typed, passwords included.";
    RAW_SOCKET = "CRD211", High, Privileged, Some("CWE-250"), "Opens a raw socket",
        "Raw and packet sockets craft or capture any traffic on the host's interfaces, which needs privileges a job should not have.";
    NETWORK_SCAN = "CRD212", High, Behavioural, Some("CWE-200"), "Scans a network",
        "Connecting to every address of a network, or resolving or transferring a whole zone, maps what else is reachable from the sandbox (network reconnaissance).";

    SHELL_INJECTION = "CRD301", Medium, Behavioural, Some("CWE-78"), "Shell command built at run time",
        "A shell command assembled from run-time values, or a program named by the environment, the command line or input, can run anything that value contains.";
    UNSAFE_DESERIALIZATION = "CRD302", Medium, Behavioural, Some("CWE-502"), "Unsafe deserialization",
        "pickle, marshal and yaml.load without a safe loader run code embedded in the data.";
    DYNAMIC_CODE = "CRD303", Medium, Behavioural, Some("CWE-95"), "eval or exec of run-time code",
        "Evaluating code that is only known at run time executes something the analysis never saw.";
    DYNAMIC_IMPORT = "CRD304", Medium, Behavioural, Some("CWE-470"), "Import of a run-time module name",
        "Importing a module whose name is computed at run time hides which code is loaded.";
    NETWORK = "CRD305", Medium, Behavioural, None, "Network access",
        "The program opens network connections, which a sandboxed job rarely needs.";

    WEAK_HASH = "CRD401", Low, Behavioural, Some("CWE-328"), "Weak hash",
        "MD5 and SHA-1 are broken for security uses such as signatures or password storage.";
    SUBPROCESS = "CRD402", Low, Behavioural, Some("CWE-78"), "Starts a subprocess",
        "Starting other programs widens what the job can do beyond the Python it contains.";
}

/// The rule table as Markdown, one row per rule; `docs/rules.md` embeds it verbatim.
pub fn markdown_table() -> String {
    let mut table = String::from(
        "| Rule | Severity | Class | CWE | Title | Why |\n|---|---|---|---|---|---|\n",
    );
    for rule in ALL {
        table.push_str(&format!(
            "| {} | {} | {:?} | {} | {} | {} |\n",
            rule.id,
            rule.severity.as_str(),
            rule.class,
            rule.cwe.unwrap_or("-"),
            rule.title,
            rule.why
        ));
    }
    table
}

/// Finds a rule by id.
pub fn by_id(id: &str) -> Option<&'static Rule> {
    ALL.iter().copied().find(|rule| rule.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_sorted() {
        // Rule ids are stable keys: no duplicates, and the table reads in id order.
        let ids: Vec<&str> = ALL.iter().map(|r| r.id).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(ids, sorted);
    }

    #[test]
    fn id_prefix_matches_severity() {
        // CRD1xx are BLOCKED, CRD2xx HIGH, CRD3xx MEDIUM, CRD4xx LOW.
        for rule in ALL.iter().filter(|r| r.class != Class::Analysis) {
            let expected = match &rule.id[3..4] {
                "1" => Level::Blocked,
                "2" => Level::High,
                "3" => Level::Medium,
                _ => Level::Low,
            };
            assert_eq!(rule.severity, expected, "{}", rule.id);
        }
    }

    #[test]
    fn docs_list_every_rule() {
        // docs/rules.md lists every rule id and embeds the generated table verbatim.
        let docs = include_str!("../../../docs/rules.md");
        for rule in ALL {
            let row = format!("| {} | {} |", rule.id, rule.severity.as_str());
            assert!(docs.contains(&row), "docs/rules.md lacks `{row}`");
        }
        assert!(
            docs.contains(&markdown_table()),
            "docs/rules.md is stale; paste rules::markdown_table() into it"
        );
    }

    #[test]
    #[ignore = "run by hand to print the table for docs/rules.md"]
    fn print_markdown_table() {
        print!("{}", markdown_table());
    }

    #[test]
    fn by_id_finds_rules() {
        // Lookup by id returns the rule with that id and nothing for unknown ids.
        assert_eq!(by_id("CRD101").map(|r| r.title), Some("Reverse shell"));
        assert!(by_id("CRD999").is_none());
    }
}
