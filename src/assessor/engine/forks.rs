//! Fork bombs: the loops and functions being walked, what each starts (processes,
//! threads, itself) and whether it waits or ends, decided as each one is left.
//!
//! Part of `Scanner` (called from `scan` and `flow` for loops and function bodies, from
//! `calls` for every call, and from `calls` and `methods` for what starts a thread, a
//! process or a pool task). Invariant: the frames mirror the walk: one pushed per loop,
//! function body or followed start entered, popped as it is left.

use super::calls::call_indirect;
use super::findings::Confidence;
use super::rules;
use super::scan::Scanner;
use super::value::{Kind, Taint, Value, ENDLESS, OWN_SCRIPT_TEXT};

/// The loops and function bodies being walked, and the starts being followed,
/// innermost last.
#[derive(Default)]
pub(super) struct Forks<'a> {
    loops: Vec<LoopFrame>,
    /// The container a method is being called on was bound in the loop being walked (a
    /// new one each pass): what the call adds to it is no growth.
    pub(super) fresh_receiver: bool,
    functions: Vec<FunctionFrame<'a>>,
    starts: Vec<Start>,
    /// `if` statements being walked (`if __name__ == "__main__"` aside).
    branches: u32,
    /// The program ended under an `if` earlier in its run (`if child: sys.exit()`): a
    /// start of its own script after that may be the other side of that branch.
    ended_in_branch: bool,
}

/// A new thread or process whose code is being followed.
struct Start {
    at: u32,
    /// How many function bodies were being walked where it started.
    functions: usize,
    /// The passes of each loop open where it started, outermost first.
    passes: Vec<i64>,
}

/// A function whose body is being walked, where it is defined or followed from a call:
/// does it fork and call itself, or start itself as a new thread or process?
struct FunctionFrame<'a> {
    function: u32,
    /// Its name while its definition is walked (a followed call has none).
    defining: Option<&'a str>,
    /// Where it first forks itself (`os.fork`, while defined): the copy runs on too.
    forks: Option<u32>,
    /// It calls itself by name (while defined).
    recurses: bool,
    /// How many loops were open as it was entered; the later ones are its own.
    loops_at: usize,
    /// Where it first starts itself, and how many times per call (its loops' passes
    /// multiplied in).
    first_self_start: Option<u32>,
    self_starts: i64,
    /// It returns before it first starts itself: a base case ends the recursion.
    base_case: bool,
    /// It waits for what it started (`join`, `result`, `wait`).
    waits: bool,
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
    /// It can end (`break`, `return`) from an `except` handler (when something fails:
    /// the disk is full), or from its body.
    exits_on_error: bool,
    exits_cleanly: bool,
    /// It waits for something (`accept`, `sleep`, `join`, `get`...).
    waits: bool,
    /// It waits for a child to end (`wait`, `join`...): forks one at a time.
    waits_for_child: bool,
    /// Where it first grows a list or a file by big data (`append`, `extend`, `write`).
    grows: Option<u32>,
    /// Where it first grows a list, a dict or a file that outlives a pass, by anything.
    grows_any: Option<u32>,
    /// It surely runs on: its test is a constant or a call that returns one (not a name
    /// or attribute the body may change), or it goes through an endless iterator.
    certain: bool,
    /// Something reached from it may end the program or leave the loop however deep
    /// (`sys.exit`, `os._exit`, `raise` in a helper).
    may_end: bool,
    /// Names (hashed) bound in it by the function that runs it: a container bound there
    /// is new on each pass, and a key bound there changes.
    rebound: Vec<u64>,
    /// How many functions were being walked when it began: growth in a loop of a called
    /// function is that call's own (a list it builds and returns), not the caller's loop's.
    functions_at: usize,
    /// It calls something that may block however it is named (`await`, `fetch_next`,
    /// `receive`): a pass may wait on input, so small growth is not a runaway.
    may_wait: bool,
    /// Its body is walked once per item (a known list), so what it starts is already
    /// counted per pass.
    unrolled: bool,
    /// It yields (in a generator): when it never ends, neither does the generator.
    yields: bool,
    /// How many `except` handlers of it are being walked: a wait there (a retry's
    /// `sleep`) happens only when something failed, so it does not pace the loop.
    handlers: u32,
}

impl LoopFrame {
    /// It can end (`break`, `return`), however.
    fn exits(&self) -> bool {
        self.exits_cleanly || self.exits_on_error
    }

    /// How many times what one walk of the body starts is started: once per pass, or
    /// once when each pass had a walk of its own.
    fn passes_walked_once(&self) -> i64 {
        match (self.unrolled, self.runs) {
            (false, Some(runs)) => runs.max(1),
            _ => 1,
        }
    }
}

impl<'a> Scanner<'a> {
    /// The body of the program's function `function` is walked next: where it is
    /// defined (`defining` is its name) or followed from a call.
    pub(super) fn enter_function(&mut self, function: u32, defining: Option<&'a str>) {
        self.forks.functions.push(FunctionFrame {
            function,
            defining,
            forks: None,
            recurses: false,
            loops_at: self.forks.loops.len(),
            first_self_start: None,
            self_starts: 0,
            base_case: false,
            waits: false,
        });
    }

    /// A function body ends. It is a recursive fork bomb when it forks and calls itself
    /// (both copies recurse), or starts itself `MIN_SELF_STARTS` times or more per call
    /// (growth by a power each generation), unless it is divide and conquer: a base case
    /// ends the recursion and each call waits for the copies it started.
    pub(super) fn leave_function(&mut self) {
        let Some(frame) = self.forks.functions.pop() else {
            return;
        };
        if let (Some(at), true) = (frame.forks, frame.recurses) {
            self.hits.add(rules::FORK_BOMB, at, Confidence::Medium);
        }
        let divide_and_conquer = frame.base_case && frame.waits;
        if frame.self_starts >= MIN_SELF_STARTS && !divide_and_conquer {
            if let Some(at) = frame.first_self_start {
                self.hits.add(rules::FORK_BOMB, at, Confidence::High);
            }
        }
    }

    /// Whether the definition of `function` is being walked (its body is not followed
    /// into again from inside itself: that walk is already the analysis of it).
    pub(super) fn is_being_defined(&self, function: u32) -> bool {
        self.forks
            .functions
            .iter()
            .any(|f| f.function == function && f.defining.is_some())
    }

    /// An `except` handler begins: what it does happens only when something failed.
    pub(super) fn enter_handler(&mut self) {
        if let Some(frame) = self.forks.loops.last_mut() {
            frame.handlers += 1;
        }
    }

    /// The `except` handler begun by `enter_handler` ends.
    pub(super) fn leave_handler(&mut self) {
        if let Some(frame) = self.forks.loops.last_mut() {
            frame.handlers = frame.handlers.saturating_sub(1);
        }
    }

    /// A `yield` in the function being walked: counted for its innermost loop.
    pub(super) fn note_yield_in_loop(&mut self) {
        let own_loops_from = self.forks.functions.last().map_or(0, |f| f.loops_at);
        if self.forks.loops.len() > own_loops_from {
            if let Some(frame) = self.forks.loops.last_mut() {
                frame.yields = true;
            }
        }
    }

    /// The function whose body is being walked where it is defined, its parameters
    /// unknown (not followed from a call with its arguments bound), if any.
    pub(super) fn function_being_defined(&self) -> Option<u32> {
        self.forks
            .functions
            .iter()
            .rev()
            .find(|f| f.defining.is_some())
            .map(|f| f.function)
    }

    /// A task given to a pool in the function being walked: the pool runs it on one of
    /// its fixed workers, as a wait for a started thread would bound it.
    pub(super) fn note_pool_task(&mut self) {
        if let Some(frame) = self.forks.functions.last_mut() {
            frame.waits = true;
        }
    }

    /// An `if` is entered. In the function being walked, whether it starts itself can
    /// depend on its arguments (a base case, as in a threaded merge sort).
    pub(super) fn enter_branch(&mut self) {
        self.forks.branches += 1;
        if let Some(frame) = self.forks.functions.last_mut() {
            frame.base_case = true;
        }
    }

    pub(super) fn leave_branch(&mut self) {
        self.forks.branches = self.forks.branches.saturating_sub(1);
    }

    /// `return` in the function being walked: before it starts itself, a base case.
    pub(super) fn note_function_returns(&mut self) {
        if let Some(frame) = self.forks.functions.last_mut() {
            frame.base_case |= frame.self_starts == 0;
        }
    }

    /// The program's run may end here (`sys.exit`, `raise SystemExit`): under a branch,
    /// that is a condition on which the rest of it runs.
    pub(super) fn note_end_of_run(&mut self) {
        if self.forks.branches > 0 && self.is_program_run() {
            self.forks.ended_in_branch = true;
        }
    }

    /// Whether the code being walked is the program running: not a definition's walk of a
    /// function body (which runs only when called, and is followed there).
    fn is_program_run(&self) -> bool {
        self.forks.functions.iter().all(|f| f.defining.is_none())
    }

    /// A program is started beside this one. When it is this program's own script,
    /// started on every run (under no `if` of its own, with no early exit before it),
    /// each copy starts another: process creation without end, a fork bomb. A script
    /// that starts itself as a worker behind a condition (`if role == "parent"`) is not.
    pub(super) fn note_program_start(&mut self, command: &Value, at: u32) {
        let unconditional = self.forks.branches == 0 && !self.forks.ended_in_branch;
        if unconditional && self.is_program_run() && starts_own_script(command) {
            self.hits.add(rules::FORK_BOMB, at, Confidence::High);
        }
    }

    /// `target` starts in a new thread or process (or as a task of a pool): a function
    /// that is being walked starting itself is counted for it (and not followed again);
    /// anything else is followed apart from the loops that start it, remembering the
    /// start in case that code calls a function being walked (`target=lambda: f()`).
    /// Returns what the followed call returns (unknown for a self-start).
    pub(super) fn start_target(
        &mut self,
        target: &Value,
        positional: Vec<Value>,
        at: u32,
    ) -> Value {
        self.note_queue_consumer(target, &positional, at);
        let passes: Vec<i64> = self
            .forks
            .loops
            .iter()
            .map(LoopFrame::passes_walked_once)
            .collect();
        if let Some(position) = function_of(target).and_then(|f| self.walked_at(f)) {
            let times = self.own_passes(position, &passes);
            self.count_self_start(position, at, times);
            return Value::UNKNOWN;
        }
        self.forks.starts.push(Start {
            at,
            functions: self.forks.functions.len(),
            passes,
        });
        let result = self.apart_from_loops(|s| call_indirect(s, target, positional, at));
        self.forks.starts.pop();
        result
    }

    /// Code being followed from a start calls `function`: when that function was being
    /// walked where the start happened, it started itself; counted for it (at the first
    /// start made inside it, whose loops are its own), and the call is not followed (true).
    pub(super) fn started_again(&mut self, function: u32) -> bool {
        if self.forks.starts.is_empty() {
            return false;
        }
        let Some(position) = self.walked_at(function) else {
            return false;
        };
        let starts = &self.forks.starts;
        let Some(start) = starts.iter().find(|s| s.functions > position) else {
            return false;
        };
        let (at, times) = (start.at, self.own_passes(position, &start.passes));
        self.count_self_start(position, at, times);
        true
    }

    /// Where `function` is on the stack of walked function bodies (innermost).
    fn walked_at(&self, function: u32) -> Option<usize> {
        self.forks
            .functions
            .iter()
            .rposition(|f| f.function == function)
    }

    /// How many times the function at `position` runs what is inside all of `passes`
    /// (each open loop's passes, outermost first): the passes of its own loops.
    fn own_passes(&self, position: usize, passes: &[i64]) -> i64 {
        passes
            .iter()
            .skip(self.forks.functions[position].loops_at)
            .fold(1i64, |n, p| n.saturating_mul(*p))
    }

    /// The function at `position` starts itself at `at`, `times` times per call.
    fn count_self_start(&mut self, position: usize, at: u32, times: i64) {
        let frame = &mut self.forks.functions[position];
        frame.first_self_start.get_or_insert(at);
        frame.self_starts = frame.self_starts.saturating_add(times);
    }

    /// A loop begins; `runs` is how many times its body runs, when known (`ENDLESS`
    /// for `while True`).
    pub(super) fn enter_loop(&mut self, runs: Option<i64>) {
        self.forks.loops.push(LoopFrame {
            runs,
            certain: runs == Some(ENDLESS),
            functions_at: self.forks.functions.len(),
            ..LoopFrame::default()
        });
    }

    /// `name` is bound in the function being walked: inside its own innermost loop, the
    /// loop remembers it.
    pub(super) fn note_bound_in_loop(&mut self, name: &str) {
        let own_loops_from = self.forks.functions.last().map_or(0, |f| f.loops_at);
        if self.forks.loops.len() > own_loops_from {
            if let Some(frame) = self.forks.loops.last_mut() {
                note_rebound(frame, name_hash(name));
            }
        }
    }

    /// Whether `name` was bound in one of the open loops of the function being walked.
    /// Whether the walk is inside a loop (of this function or of a caller's).
    pub(super) fn in_loop(&self) -> bool {
        !self.forks.loops.is_empty()
    }

    pub(super) fn is_bound_in_loop(&self, name: &str) -> bool {
        let own_loops_from = self.forks.functions.last().map_or(0, |f| f.loops_at);
        let own_loops = &self.forks.loops[own_loops_from.min(self.forks.loops.len())..];
        if own_loops.is_empty() {
            return false;
        }
        let hash = name_hash(name);
        own_loops.iter().any(|frame| frame.rebound.contains(&hash))
    }

    /// The program may end, or leave every loop, here (`raise`, `sys.exit`).
    pub(super) fn note_may_end(&mut self) {
        for frame in &mut self.forks.loops {
            frame.may_end = true;
        }
    }

    /// The loop being walked runs until something in it ends it: its test is always true
    /// (`while True`, or `while step()` of a function that returns `True`).
    pub(super) fn loop_never_ends(&mut self, certain: bool) {
        if let Some(frame) = self.forks.loops.last_mut() {
            frame.runs = Some(ENDLESS);
            frame.certain = certain;
        }
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
        let started = frame.starts.saturating_mul(frame.passes_walked_once());
        let doubles = frame.doubles && !frame.child_ends;
        let runaway = forever || (doubles && runs >= MIN_DOUBLINGS) || started >= MIN_STARTS;
        // A copy of the process that loops on doubles however slowly each pass goes
        // (`sleep`, `accept`): only ending the loop or waiting for the copy bounds it.
        let doubling = doubles
            && (forever || runs >= MIN_DOUBLINGS)
            && !frame.exits()
            && !frame.waits_for_child;
        if (runaway && !frame.bounded) || doubling {
            if let Some(&at) = frame.forks.first() {
                self.hits.add(rules::FORK_BOMB, at, Confidence::High);
                return;
            }
        }
        if let (Some(at), true, false) = (frame.grows, forever, frame.bounded) {
            self.hits.add(rules::RESOURCE_BOMB, at, Confidence::High);
        }
        // Writing a megabyte or more each pass until a write fails fills the disk.
        let until_it_fails = frame.exits_on_error && !frame.exits_cleanly && !frame.waits;
        if let (Some(at), true, true) = (frame.grows, forever, until_it_fails) {
            self.hits.add(rules::RESOURCE_BOMB, at, Confidence::High);
        }
        // Growth by small pieces, pass after pass with nothing to wait for, ends the same
        // way, only later. A generator's loop goes only as far as its consumer pulls.
        let unpaced = forever
            && frame.certain
            && !frame.bounded
            && !frame.may_wait
            && !frame.may_end
            && !frame.yields;
        if let (Some(at), true, None) = (frame.grows_any, unpaced, frame.grows) {
            self.hits.add(rules::RESOURCE_BOMB, at, Confidence::High);
        }
        if forever && !frame.exits() && !frame.bounded && frame.yields {
            // A generator yielding in a loop that never ends, waits for nothing and has no
            // way out: iterating over it never ends either.
            if let Some(generator) = self.yields.last_mut() {
                generator.endless = true;
            }
        }
        if forever && !frame.exits() {
            // Nothing after a loop that never ends runs: a forked copy that enters one
            // (a worker's accept loop) never goes back to forking.
            if let Some(outer) = self.forks.loops.last_mut() {
                outer.child_ends = true;
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
            outer.waits_for_child |= frame.waits_for_child && !forever;
            outer.grows = outer.grows.or(frame.grows);
            if outer.functions_at == frame.functions_at {
                outer.grows_any = outer.grows_any.or(frame.grows_any);
            }
            outer.may_wait |= frame.may_wait;
            outer.may_end |= frame.may_end;
            for name in frame.rebound {
                note_rebound(outer, name);
            }
            outer.yields |= frame.yields;
        }
    }

    /// `instance.start()` of the program's subclass of `library` (`threading.Thread`,
    /// `multiprocessing.Process`): a start like `Thread(target=...)` whose target is the
    /// instance's `run`.
    pub(super) fn start_instance(&mut self, instance: &Value, library: &str, at: u32) {
        self.note_call_in_loop(library, at);
        if let Some(run) = self.member_of(instance, "run") {
            self.start_target(&run, Vec::new(), at);
        }
    }

    /// Runs `f` as code that does not run in the loops being walked (a thread's target).
    pub(super) fn apart_from_loops<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let loops = std::mem::take(&mut self.forks.loops);
        let result = f(self);
        self.forks.loops = loops;
        result
    }

    /// A list, a dict or a file grows at `at` (`append`, `d[key] = v`, `write`), by a
    /// megabyte or more when `big`: in a loop that never ends nor waits, without bound.
    pub(super) fn note_growth(&mut self, at: u32, big: bool) {
        if self.forks.fresh_receiver {
            return;
        }
        if let Some(frame) = self.forks.loops.last_mut() {
            frame.grows_any.get_or_insert(at);
            if big {
                frame.grows.get_or_insert(at);
            }
        }
    }

    /// Something that may block is awaited or called (`await`, `receive_message()`).
    pub(super) fn note_may_wait(&mut self) {
        if let Some(frame) = self.forks.loops.last_mut() {
            frame.may_wait |= frame.handlers == 0;
        }
    }

    /// The loop being entered walks its body once per item.
    pub(super) fn loop_unrolled(&mut self) {
        if let Some(frame) = self.forks.loops.last_mut() {
            frame.unrolled = true;
        }
    }

    /// `break` or `return`: the innermost loop ends here, when that loop is in the function
    /// being walked (a `return` in a function called from a loop does not end the loop).
    pub(super) fn loop_exits(&mut self) {
        let own_loops_from = self.forks.functions.last().map_or(0, |f| f.loops_at);
        if self.forks.loops.len() > own_loops_from {
            if let Some(frame) = self.forks.loops.last_mut() {
                frame.bounded = true;
                match frame.handlers {
                    0 => frame.exits_cleanly = true,
                    _ => frame.exits_on_error = true,
                }
            }
        }
    }

    /// A process or thread is started at `at` and not waited for (`forks_itself`: it is a
    /// copy of this one, loop and all): counted for the loop being walked.
    pub(super) fn note_start(&mut self, at: u32, forks_itself: bool) {
        let Some(frame) = self.forks.loops.last_mut() else {
            return;
        };
        if frame.forks.len() < 4 {
            frame.forks.push(at);
        }
        frame.starts = frame.starts.saturating_add(1);
        frame.doubles |= forks_itself;
    }

    /// Called for every call: starting a process or thread, or waiting, inside a loop;
    /// a function calling itself or forking, for the function being defined; a wait, for the
    /// function being walked.
    pub(super) fn note_call_in_loop(&mut self, name: &str, at: u32) {
        if PROGRAM_ENDS.contains(&name) {
            self.note_end_of_run();
            self.note_may_end();
        }
        let mut defining = self.forks.functions.iter_mut().rev();
        if let Some(def) = defining.find(|f| f.defining.is_some()) {
            if def.defining == Some(name) {
                def.recurses = true;
            } else if FORKS_ITSELF.contains(&name) {
                def.forks.get_or_insert(at);
            }
        }
        let last = name.rsplit('.').next().unwrap_or(name);
        if let Some(function) = self.forks.functions.last_mut() {
            function.waits |= CHILD_WAITS.contains(&last);
        }
        if FORK_STARTS.contains(&name) {
            self.note_start(at, FORKS_ITSELF.contains(&name));
            return;
        }
        let Some(frame) = self.forks.loops.last_mut() else {
            return;
        };
        const WAITS: &[&str] = &[
            "accept",
            "recv",
            "recvfrom",
            "recv_into",
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
            "_exit", "exit", "quit", "abort", "execv", "execve", "execvp", "execvpe", "execl",
            "execle", "execlp", "execlpe",
        ];
        // `os.path.join` builds a path; it is no thread's `join`.
        let builds_text = matches!(name, "os.path.join" | "shlex.join" | "str.join");
        // By word: `recv_into`, `readline`, `fetchone`, not `current_thread` or `target`.
        // A library's getter (`os.getpid`, `logging.getLogger`, `os.path.getsize`)
        // returns at once; `get`, `getpass`, `getch` and the like wait for an item or a key.
        const WAITING_GETTERS: &[&str] = &[
            "get",
            "getpass",
            "getc",
            "getch",
            "getche",
            "getchar",
            "getkey",
            "getwch",
            "getwche",
            "getline",
            "getmessage",
            "getaddrinfo",
            "getnameinfo",
            "gethostbyname",
            "gethostbyaddr",
            "getfqdn",
            "getresponse",
        ];
        let library = name.contains('.');
        let may_wait = last.split('_').any(|word| {
            let getter = library
                && word.starts_with("get")
                && !WAITING_GETTERS.contains(&word.to_ascii_lowercase().as_str());
            !getter && MAY_WAIT.iter().any(|w| word.starts_with(w))
        });
        if frame.handlers == 0 && may_wait {
            frame.may_wait = true;
        }
        if WAITS.contains(&last) && !builds_text && frame.handlers == 0 {
            frame.bounded = true;
            frame.waits = true;
            frame.waits_for_child |= CHILD_WAITS.contains(&last);
        } else if ENDS.contains(&last) {
            frame.child_ends = true;
            frame.may_end = true;
        }
    }
}

/// Most names a loop remembers as bound in it.
const MAX_REBOUND: usize = 32;

fn note_rebound(frame: &mut LoopFrame, hash: u64) {
    if frame.rebound.len() < MAX_REBOUND && !frame.rebound.contains(&hash) {
        frame.rebound.push(hash);
    }
}

fn name_hash(name: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(name)
}

/// Beginnings of words of names of calls that may block on input, whatever object they
/// belong to (`join` is left out: `"".join` builds text, and a thread's `join` is a wait
/// already).
const MAY_WAIT: &[&str] = &[
    "recv", "receive", "read", "get", "pop", "poll", "wait", "sleep", "fetch", "consume", "listen",
    "accept", "input", "next", "select", "result", "request", "urlopen", "connect", "send",
];

/// Calls that start a process or thread without waiting for it.
const FORK_STARTS: &[&str] = &[
    "os.fork",
    "os.forkpty",
    "pty.fork",
    "multiprocessing.Process",
    "multiprocessing.context.Process",
    "threading.Thread",
    "threading.Timer",
    "subprocess.Popen",
    "os.posix_spawn",
    "os.posix_spawnp",
];

/// Calls that end the program.
const PROGRAM_ENDS: &[&str] = &["sys.exit", "os._exit", "builtins.exit", "builtins.quit"];

/// Starts that copy the running process, loop and all.
const FORKS_ITSELF: &[&str] = &["os.fork", "os.forkpty", "pty.fork"];

/// Waits for a thread, process or task started earlier.
const CHILD_WAITS: &[&str] = &["join", "wait", "waitpid", "result", "communicate"];

/// Starts of itself per call from which a recursive function grows as a power.
const MIN_SELF_STARTS: i64 = 2;

/// Passes of a loop that forks itself from which the processes (2 to that power) are a
/// bomb in effect.
const MIN_DOUBLINGS: i64 = 10;

/// Processes or threads started by one loop, never waited for, that are a bomb in effect.
const MIN_STARTS: i64 = 1000;

/// Whether a command runs the program's own script: as the program itself, or as the
/// script a Python interpreter is given (`[sys.executable, __file__]`,
/// `f"python3 {sys.argv[0]} &"`). A script copied or read elsewhere is not run.
fn starts_own_script(command: &Value) -> bool {
    if !command.deep_taint().has(Taint::OWN_SCRIPT) {
        return false;
    }
    let words: Vec<&str> = command
        .items()
        .unwrap_or(std::slice::from_ref(command))
        .iter()
        .flat_map(|v| v.text().unwrap_or("").split_whitespace())
        .collect();
    let is_script = |word: &str| word.trim_matches(['"', '\'']).ends_with(OWN_SCRIPT_TEXT);
    let is_python = |word: &str| {
        let program = word.rsplit('/').next().unwrap_or(word);
        program.starts_with("python")
    };
    // The script is the program itself, or what an interpreter is given after its
    // options (`python3 -u script.py`).
    words.iter().enumerate().any(|(i, word)| {
        let before = words[..i].iter().rev().find(|w| !w.starts_with('-'));
        is_script(word) && before.is_none_or(|w| is_python(w))
    })
}

/// The program's function a value calls: itself, or the one a bound method or partial
/// wraps.
pub(super) fn function_of(value: &Value) -> Option<u32> {
    match &value.kind {
        Kind::Function(index) => Some(*index),
        Kind::Partial(partial) => match partial.0.kind {
            Kind::Function(index) => Some(index),
            _ => None,
        },
        _ => None,
    }
}
