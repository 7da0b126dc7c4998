//! Program starts (`os.system`, `subprocess`, `os.exec*`, `pty.spawn`) and signals:
//! builds the command line as the program would see it and applies what `shell` reads.
//!
//! Called by `calls` for process APIs and by `methods` for libc.

use super::calls::{carries_secret, hit, network, text_value, Args};
use super::findings::Confidence;
use super::rules::{self, Rule};
use super::scan::Scanner;
use super::shell;
use super::value::{Kind, Piece, Taint, Value, UNKNOWN_PART};

/// `os.execv(path, [argv0, args...])`, `os.execl(path, argv0, args...)`,
/// `os.spawnv(mode, path, argv)`: the program path followed by the real arguments.
pub(super) fn exec_program_argv(s: &mut Scanner<'_>, args: &Args<'_>) -> Value {
    // `os.spawnv(os.P_WAIT, ...)`: the mode before the path is a number or a name.
    let mut parts = args
        .positional
        .iter()
        .skip_while(|v| v.as_int().is_some() || v.qualified_name().is_some())
        .cloned();
    let mut items: Vec<Value> = parts.next().into_iter().collect();
    for (i, part) in parts.enumerate() {
        match part.items() {
            Some(argv) => items.extend(argv.iter().skip(1).cloned()),
            None if i > 0 => items.push(part),
            None => {} // argv[0] of the `l` variants
        }
    }
    s.folder.seq(items)
}

pub(super) fn process(s: &mut Scanner<'_>, args: &Args<'_>, at: u32) -> Value {
    let shell = args
        .keyword("shell")
        .is_some_and(|v| v.as_int() != Some(0) && !matches!(v.kind, Kind::NoneValue));
    let mut command = args.get(0, "args").cloned();
    // `executable=` replaces the program of an argv; with a shell it names the shell,
    // which still runs the command line.
    let program = args.keyword("executable").filter(|_| !shell);
    if let (Some(program), Some(argv)) = (program, &command) {
        let mut items = vec![program.clone()];
        items.extend(
            argv.items()
                .unwrap_or(std::slice::from_ref(argv))
                .iter()
                .skip(1)
                .cloned(),
        );
        command = Some(s.folder.seq(items));
    }
    run_command(s, command.as_ref(), shell, at);
    if let Some(command) = &command {
        s.note_program_start(command, at);
    }
    // `call([shell], stdin=sock.fileno(), stdout=...)`: a program driven through a socket.
    let on_socket = ["stdin", "stdout", "stderr"]
        .iter()
        .any(|k| args.keyword(k).is_some_and(|v| v.taint.has(Taint::SOCKET)));
    if on_socket {
        s.caps.shell_wiring.push(at);
    }
    // `run(["curl", "--data-binary", "@-", url], input=secrets)`: what the program is
    // given to send, it sends.
    let secret_input = args.keyword("input").is_some_and(carries_secret);
    if let (true, Some(command)) = (secret_input, &command) {
        let line = command_line(s, command);
        if line.text().is_some_and(|text| shell::analyse(text).network) {
            hit(s, rules::EXFILTRATION, at, Confidence::High);
        }
    }
    let child = child_process(s, command.as_ref(), Taint::CHILD.with(args.data_taint()));
    if let (true, Some(input)) = (child.taint.has(Taint::CODE_STDIN), args.keyword("input")) {
        code_fed(s, &child, input, at);
    }
    child
}

/// The child process that runs `command`, with `taint`: when it is an interpreter reading
/// its program from stdin, it is that interpreter's name (`CODE_STDIN`), so that what is
/// written to it is read as its code.
pub(super) fn child_process(s: &mut Scanner<'_>, command: Option<&Value>, taint: Taint) -> Value {
    match command.and_then(|c| stdin_interpreter(s, c)) {
        Some(interpreter) => text_value(s, &interpreter, taint.with(Taint::CODE_STDIN)),
        None => Value::unknown(taint),
    }
}

/// The interpreter `command` starts when it reads its own program from stdin (`python3`
/// of `python3 -`, `bash` of `bash -s`, a bare shell).
fn stdin_interpreter(s: &mut Scanner<'_>, command: &Value) -> Option<String> {
    let line = command_line(s, command);
    // An interpreter reading stdin has a short command line; a long one is not read
    // again here (`run_command` reads it within the program's shell budget).
    let text = line.text().filter(|t| t.len() <= MAX_STDIN_COMMAND)?;
    if !shell::analyse(text).runs_stdin {
        return None;
    }
    let program = text.split_ascii_whitespace().next()?;
    Some(program.to_string())
}

/// Longest command line checked for an interpreter that reads its program from stdin.
const MAX_STDIN_COMMAND: usize = 1024;

/// `input` written to `child`, an interpreter that reads its program from stdin
/// (`run(["python3", "-"], input=code)`, `Popen(["bash", "-s"],
/// stdin=PIPE).communicate(body)`): it is run as that interpreter's code, as `bash -c
/// INPUT` would run it; fetched or decoded input is run as code.
pub(super) fn code_fed(s: &mut Scanner<'_>, child: &Value, input: &Value, at: u32) {
    let taint = input.deep_taint();
    if taint.has(Taint::NETWORK) {
        hit(s, rules::DOWNLOAD_EXECUTE, at, Confidence::High);
    }
    if taint.has(Taint::DECODED) {
        hit(s, rules::DECODE_EXECUTE, at, Confidence::High);
    }
    let (Some(interpreter), Some(_)) = (child.exact_text(), input.text()) else {
        return;
    };
    let interpreter = text_value(s, interpreter, Taint::NONE);
    let inline = text_value(s, "-c", Taint::NONE);
    let argv = s.folder.seq(vec![interpreter, inline, input.clone()]);
    run_command(s, Some(&argv), false, at);
}

/// Any program start: LOW by itself, MEDIUM for a shell line built at run time, and the
/// command line's own meaning (sudo, rm -rf /, crontab, ...) on top.
pub(super) fn run_command(s: &mut Scanner<'_>, command: Option<&Value>, via_shell: bool, at: u32) {
    hit(s, rules::SUBPROCESS, at, Confidence::High);
    let Some(command) = command else { return };
    // An argv whose program takes its arguments as data (`["convert", name, ...]`), or an
    // interpreter given a script file (`["python3", "worker.py", "--job", job]`): only the
    // program (and script) come into what is run; the rest are arguments, a file name or
    // a revision from the network among them. Arguments hidden by an encoding still count
    // (a miner's pool decoded from base64).
    let code_taint = match command.items().filter(|_| !via_shell) {
        Some(argv) => {
            let words: Vec<Option<&str>> = argv.iter().map(Value::exact_text).collect();
            let code = shell::code_words(&words).min(argv.len());
            (argv[..code].iter()).fold(Taint::NONE, |t, word| t.with(word.deep_taint()))
        }
        None => command.deep_taint(),
    };
    let taint = code_taint.with(command.deep_taint().only(Taint::DECODED));
    if taint.has(Taint::DECODED) {
        hit(s, rules::DECODE_EXECUTE, at, Confidence::High);
    }
    if taint.has(Taint::NETWORK) {
        hit(s, rules::DOWNLOAD_EXECUTE, at, Confidence::High);
    }
    // A pid of the program's own is a number: it cannot carry shell syntax.
    let built = !command.is_constant() && !command.taint.has(Taint::OWN_PID);
    if via_shell && built || !via_shell && program_from_outside(command) {
        hit(s, rules::SHELL_INJECTION, at, Confidence::High);
    }
    let line = command_line(s, command);
    let Kind::Text { text, .. } = line.kind else {
        s.caps.program_runs.push(("".into(), false, at));
        return;
    };
    s.caps
        .program_runs
        .push((text.clone(), command.is_constant(), at));
    if s.shell_budget < text.len() {
        // Past the budget the command is not read; flag it rather than trust it.
        hit(s, rules::SHELL_INJECTION, at, Confidence::Low);
        return;
    }
    s.shell_budget -= text.len();
    let facts = shell::analyse(&text);
    if facts.network && (carries_secret(command) || s.caps.names_secret_file(&text)) {
        // `curl -d <secret> ...`: the command line itself carries the secret out, or
        // uploads a file the program filled with secrets (`wget --post-file=F`).
        hit(s, rules::EXFILTRATION, at, Confidence::High);
    }
    apply_command_facts(s, &facts, at);
}

/// A command run on another host (`ssh.exec_command(cmd)`, fabric's `c.run(cmd)` and
/// `c.sudo(cmd)`): ordinary administration there is no business of this sandbox, but an
/// attack is one wherever it runs (a second uid 0 account, a reverse shell, `curl | sh`,
/// a miner).
pub(super) fn remote_command(s: &mut Scanner<'_>, command: Option<&Value>, at: u32) {
    let Some(command) = command else { return };
    let line = command_line(s, command);
    let Some(text) = line.text().filter(|t| t.len() <= s.shell_budget) else {
        return;
    };
    s.shell_budget -= text.len();
    let facts = shell::analyse(text);
    let attacks = [
        (facts.uid_zero, rules::PRIVILEGE_ESCALATION),
        (facts.reverse_shell, rules::REVERSE_SHELL),
        (facts.fetch_then_run, rules::DOWNLOAD_EXECUTE),
        (facts.decode_then_run, rules::DECODE_EXECUTE),
        (facts.mining, rules::CRYPTO_MINING),
        (facts.fork_bomb, rules::FORK_BOMB),
    ];
    hit_fired(s, &attacks, at);
}

/// Each rule whose fact holds, at `at`.
fn hit_fired(s: &mut Scanner<'_>, checks: &[(bool, &'static Rule)], at: u32) {
    for &(fired, rule) in checks {
        if fired {
            hit(s, rule, at, Confidence::High);
        }
    }
}

/// The program a command without a shell runs (an argv's first item, or the whole
/// command) comes from outside the program: `shlex.split(os.environ["CMD"])`,
/// `sys.argv[1:]`, `[os.environ["PROG"], ...]`. Later arguments alone do not count.
fn program_from_outside(command: &Value) -> bool {
    let program = command.items().map_or(Some(command), <[Value]>::first);
    program.is_some_and(|p| p.deep_taint().has(Taint::EXTERNAL))
}

/// A command as one line of text: argv lists are joined with spaces, each argument quoted
/// as a shell would need it, so `["sh", "-c", "a | b"]` reads as `sh -c 'a | b'`. The
/// program's own pids read as `$!` (a child it started, as the shell writes one).
pub(super) fn command_line(s: &mut Scanner<'_>, command: &Value) -> Value {
    let Some(items) = command.items() else {
        return match own_pids_written(command) {
            Some(text) => s.folder.join([Piece::Known(&text)], command.taint),
            None => command.clone(),
        };
    };
    let quoted: Vec<Option<String>> = items
        .iter()
        .map(|i| own_pids_written(i).or_else(|| i.text().map(str::to_string)))
        .map(|text| text.as_deref().map(shell_quote))
        .collect();
    let mut pieces = Vec::with_capacity(items.len() * 2);
    for (i, item) in quoted.iter().enumerate() {
        if i > 0 {
            pieces.push(Piece::Known(" "));
        }
        pieces.push(item.as_deref().map_or(Piece::Unknown, Piece::Known));
    }
    s.folder.join(pieces, Taint::NONE)
}

/// A value that is, or is text folded around, the program's own pids, with each pid
/// written `$!`.
fn own_pids_written(value: &Value) -> Option<String> {
    if !value.taint.has(Taint::OWN_PID) {
        return None;
    }
    let text = value.text().unwrap_or(OWN_PID_WORD);
    Some(text.replace(UNKNOWN_PART, OWN_PID_WORD))
}

/// How a pid of the program's own reads in a command line.
const OWN_PID_WORD: &str = "$!";

/// Quotes one argument for a POSIX shell when it needs it.
fn shell_quote(word: &str) -> String {
    const SPECIAL: &[char] = &[
        ' ', '\t', '\n', '\'', '"', '\\', '|', '&', ';', '<', '>', '(', ')', '$', '`', '*', '?',
    ];
    if !word.is_empty() && !word.contains(SPECIAL) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

pub(super) fn apply_command_facts(s: &mut Scanner<'_>, facts: &shell::CommandFacts, at: u32) {
    let checks: [(bool, &'static Rule); 16] = [
        (facts.privilege_escalation, rules::PRIVILEGE_ESCALATION),
        (facts.system_read && !facts.secret_read, rules::SYSTEM_READ),
        (facts.decode_then_run, rules::DECODE_EXECUTE),
        (facts.privilege, rules::PRIVILEGE_COMMAND),
        (facts.reverse_shell, rules::REVERSE_SHELL),
        (facts.fetch_then_run, rules::DOWNLOAD_EXECUTE),
        (facts.destructive, rules::DESTRUCTIVE),
        (facts.persistence, rules::PERSISTENCE),
        (facts.escape, rules::CONTAINER_ESCAPE),
        (facts.kills_others, rules::KILL_OTHERS),
        (facts.mining, rules::CRYPTO_MINING),
        (facts.setid_bits, rules::SETID_BITS),
        (facts.system_write, rules::SYSTEM_PATH_WRITE),
        (facts.capabilities, rules::CAPABILITIES),
        (facts.fork_bomb, rules::FORK_BOMB),
        (facts.scans, rules::NETWORK_SCAN),
    ];
    hit_fired(s, &checks, at);
    if facts.secret_read {
        hit(s, rules::SECRET_READ, at, Confidence::High);
        s.caps.note_secret(at);
    }
    if facts.network {
        network(s, at);
    }
    if facts.spawns_shell {
        s.caps.shell_wiring.push(at);
    }
    if facts.starts_in_background {
        s.note_start(at, false);
    }
    for path in &facts.downloads {
        s.caps.note_written(path, Taint::NETWORK);
    }
    for (from, to) in &facts.copies {
        super::files::note_copy(s, from, to);
    }
    for file in &facts.root_owned {
        s.caps.note_root_owned(file);
    }
    if facts
        .setuid_files
        .iter()
        .any(|f| super::files::is_way_to_root(s, f))
    {
        hit(s, rules::PRIVILEGE_ESCALATION, at, Confidence::High);
    }
    for code in &facts.python_sources {
        s.nested_sources.push((code.as_str().into(), at, false));
    }
}

/// Most signals to unknown pids remembered until the end (one finding is enough).
const MAX_PENDING_KILLS: usize = 16;

/// The program ends: a signal to an unknown pid in a function that no followed call
/// reached (a signal handler, a name looked up at run time) kills whatever it is given.
pub(super) fn judge_pending_kills(s: &mut Scanner<'_>) {
    let pending = std::mem::take(&mut s.pending_kills);
    for (function, at) in pending {
        if !s.followed.contains(&function) {
            hit(s, rules::KILL_OTHERS, at, Confidence::Medium);
        }
    }
}

/// A signal sent to `pid`: other processes' unless the pid is the program's own or its
/// child's. An unknown pid where a function is defined (its parameter, most often) waits:
/// the calls followed into the function decide with the pid bound, and only a function
/// never followed (called in ways the analysis cannot see) is judged by it, at the end.
pub(super) fn kill(s: &mut Scanner<'_>, pid: Option<&Value>, signal: Option<&Value>, at: u32) {
    let own = pid.is_some_and(|p| p.taint.has(Taint::OWN_PID));
    let probe_only = signal.and_then(Value::as_int) == Some(0);
    if own || probe_only {
        return;
    }
    match s.function_being_defined() {
        Some(function) if pid.is_some_and(|p| *p == Value::UNKNOWN) => {
            if s.pending_kills.len() < MAX_PENDING_KILLS {
                s.pending_kills.push((function, at));
            }
        }
        _ => hit(s, rules::KILL_OTHERS, at, Confidence::Medium),
    }
}
