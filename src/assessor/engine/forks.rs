//! Fork bombs: the loops and function definitions being walked, what each starts
//! (processes, threads) and whether it waits or ends, decided as each one is left.
//!
//! Part of `Scanner` (called from `scan` for loops, `def`s and every call, and from
//! `calls` for thread and process targets). Invariant: the frames mirror the walk: one
//! pushed per loop or `def` entered, popped as it is left.

use super::findings::Confidence;
use super::rules;
use super::scan::Scanner;
use super::value::ENDLESS;

/// The loops and definitions being walked, innermost last.
#[derive(Default)]
pub(super) struct Forks<'a> {
    loops: Vec<LoopFrame>,
    defining: Vec<DefFrame<'a>>,
}

/// A function whose body is being walked where it is defined: does it start processes,
/// and does it call itself (a recursive fork bomb)?
struct DefFrame<'a> {
    name: &'a str,
    forks: Option<u32>,
    recurses: bool,
}

/// What one loop being walked has done so far.
#[derive(Default)]
struct LoopFrame {
    /// How many times the body runs, when known: `ENDLESS` for `while True` (or another
    /// constant true test) and `itertools.count()`.
    runs: Option<i64>,
    /// Where processes or threads are started in it (the first few).
    forks: Vec<u32>,
    /// How many are started per pass (nested loops multiplied in).
    starts: i64,
    /// A pass forks the process itself (`os.fork`), so each child runs the rest of the
    /// loop too and the count doubles per pass.
    doubles: bool,
    /// Something in it ends the process or replaces it (`os._exit`, `os.exec*`): a
    /// forked child stops there instead of doubling.
    child_ends: bool,
    /// It waits for something (`accept`, `sleep`, `join`, `get`...) or can end (`break`).
    bounded: bool,
}

impl<'a> Scanner<'a> {
    /// A `def` of `name` begins: its body is walked next.
    pub(super) fn begin_definition(&mut self, name: &'a str) {
        self.forks.defining.push(DefFrame {
            name,
            forks: None,
            recurses: false,
        });
    }

    /// A `def` ends: a function that starts a process and calls itself is a recursive
    /// fork bomb.
    pub(super) fn end_definition(&mut self) {
        if let Some(DefFrame {
            forks: Some(at),
            recurses: true,
            ..
        }) = self.forks.defining.pop()
        {
            self.hits.add(rules::FORK_BOMB, at, Confidence::Medium);
        }
    }

    /// A loop begins; `runs` is how many times its body runs, when known (`ENDLESS`
    /// for `while True`).
    pub(super) fn enter_loop(&mut self, runs: Option<i64>) {
        self.forks.loops.push(LoopFrame {
            runs,
            ..LoopFrame::default()
        });
    }

    /// A loop that starts processes or threads without ever waiting or ending is a fork
    /// bomb when it never ends, when each pass doubles the processes (`os.fork`) for at
    /// least `MIN_DOUBLINGS` passes, or when it starts `MIN_STARTS` of them in all; any
    /// other loop hands what it saw to the loop around it.
    pub(super) fn leave_loop(&mut self) {
        let Some(frame) = self.forks.loops.pop() else {
            return;
        };
        let forever = frame.runs == Some(ENDLESS);
        let runs = frame.runs.unwrap_or(1).max(1);
        let started = frame.starts.saturating_mul(runs);
        let doubles = frame.doubles && !frame.child_ends;
        let runaway = forever || (doubles && runs >= MIN_DOUBLINGS) || started >= MIN_STARTS;
        if runaway && !frame.bounded {
            if let Some(&at) = frame.forks.first() {
                self.hits.add(rules::FORK_BOMB, at, Confidence::High);
                return;
            }
        }
        if forever && !frame.bounded {
            return;
        }
        if let Some(outer) = self.forks.loops.last_mut() {
            outer.forks.extend(frame.forks.into_iter().take(4));
            outer.starts = outer.starts.saturating_add(started);
            outer.doubles |= doubles;
            outer.bounded |= frame.bounded && !forever;
        }
    }

    /// Runs `f` as code that does not run in the loops being walked (a thread's target).
    pub(super) fn apart_from_loops<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let loops = std::mem::take(&mut self.forks.loops);
        let result = f(self);
        self.forks.loops = loops;
        result
    }

    pub(super) fn loop_exits(&mut self) {
        if let Some(frame) = self.forks.loops.last_mut() {
            frame.bounded = true;
        }
    }

    /// Called for every call: starting a process or thread, or waiting, inside a loop;
    /// a function calling itself or starting a process, for the function being defined.
    pub(super) fn note_call_in_loop(&mut self, name: &str, at: u32) {
        if let Some(def) = self.forks.defining.last_mut() {
            if def.name == name {
                def.recurses = true;
            } else if FORK_STARTS.contains(&name) {
                def.forks.get_or_insert(at);
            }
        }
        let Some(frame) = self.forks.loops.last_mut() else {
            return;
        };
        const WAITS: &[&str] = &[
            "accept",
            "recv",
            "recvfrom",
            "sleep",
            "get",
            "wait",
            "waitpid",
            "input",
            "select",
            "poll",
            "read",
            "readline",
            "join",
            "communicate",
            "serve_forever",
            "acquire",
            "result",
            "urlopen",
            "getline",
            "connect",
        ];
        // The process ends or becomes another program: a forked child that does this
        // does not go on looping (the parent may).
        const ENDS: &[&str] = &[
            "_exit", "exit", "abort", "execv", "execve", "execvp", "execvpe", "execl", "execle",
            "execlp", "execlpe",
        ];
        let last = name.rsplit('.').next().unwrap_or(name);
        if FORK_STARTS.contains(&name) {
            if frame.forks.len() < 4 {
                frame.forks.push(at);
            }
            frame.starts = frame.starts.saturating_add(1);
            frame.doubles |= FORKS_ITSELF.contains(&name);
        } else if WAITS.contains(&last) {
            frame.bounded = true;
        } else if ENDS.contains(&last) {
            frame.child_ends = true;
        }
    }
}

/// Calls that start a process or thread without waiting for it.
const FORK_STARTS: &[&str] = &[
    "os.fork",
    "os.forkpty",
    "pty.fork",
    "multiprocessing.Process",
    "threading.Thread",
    "subprocess.Popen",
    "os.posix_spawn",
    "os.posix_spawnp",
];

/// Starts that copy the running process, loop and all.
const FORKS_ITSELF: &[&str] = &["os.fork", "os.forkpty", "pty.fork"];

/// Passes of a loop that forks itself from which the processes (2 to that power) are a
/// bomb in effect.
const MIN_DOUBLINGS: i64 = 10;

/// Processes or threads started by one loop, never waited for, that are a bomb in effect.
const MIN_STARTS: i64 = 1000;
