//! `InterpreterSandbox`: one sandbox running cordon's interpreter runner (`runner.py`),
//! which keeps one namespace across cells. It is made like any sandbox (same hardening,
//! limits, own uid and removal guarantees) and then fed cells one at a time; each cell
//! comes back with its output, files, runtime record and end, under its own deadline
//! (interrupted first, killed after a grace), kill orders and output caps. Sessions hold
//! one for many cells; every one-off program opens one, runs one cell and closes it.

use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use bollard::container::LogOutput;
use bollard::exec::StartExecResults;
use bollard::Docker;
use futures::{Stream, StreamExt};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc::{self, Receiver, Sender};

use super::changes::Layers;
use super::ending::{
    full_disk_violation, kill_sandbox, killed_from_outside, oom_violation, sleep_until_or_never,
    violation, wait_stopped,
};
use super::guard::RemovalGuard;
use super::init_process::SandboxInit;
use super::output::CappedOutput;
use super::policy::RuntimePolicy;
use super::pool::WarmContainer;
use super::runner::{
    CellEnd, EventCounts, FirstEvent, FrameDecoder, OutputCaps, RunnerFile, RunnerFrame,
};
use super::sandbox::{
    attach, charge_socket_buffers, create_guarded, created_event, emit, remove_reported, settle,
    start,
};
use super::spec::{Lifecycle, LiveOutput, PackageInstall, RecordedRun, SandboxSpec, PACKAGES_DIR};
use super::SandboxError;
use crate::cgroup::counters::CgroupFiles;
use crate::protocol::exec::{Usage, Violation, ViolationKind};
use crate::protocol::interpreter::{RuntimeEvent, SkippedFile};
use crate::protocol::scheduler::Limits;

/// How long a killed sandbox may take to stop before a cell stops waiting for it.
const KILL_GRACE: Duration = Duration::from_secs(5);
/// pip's output kept for the audit log and the result.
const INSTALL_OUTPUT_BYTES: u64 = 64 * 1024;
/// Distinct runtime events kept per cell (the runner keeps as many).
const MOST_DISTINCT_EVENTS: usize = 4096;
/// How long a closed runner has to exit by itself.
const CLOSE_WAIT: Duration = Duration::from_secs(1);
/// Frames buffered between the sandbox's output and the cell reading them.
const FRAME_QUEUE: usize = 64;

/// A frame from the runner, or why its stream broke.
type Incoming = Result<RunnerFrame, String>;

/// What one cell runs under.
#[derive(Debug, Clone)]
pub struct CellLimits {
    pub timeout: Duration,
    /// How long an interrupted cell has to stop before the sandbox is killed; zero: no
    /// interrupt, the sandbox is killed at the deadline (one-off programs).
    pub grace: Duration,
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    /// The scratch space's size, for the message of a `disk` violation.
    pub tmpfs_bytes: u64,
    pub files: OutputCaps,
    /// The rules its runtime record is held to (`None`: none).
    pub policy: Option<Arc<RuntimePolicy>>,
}

impl CellLimits {
    /// A program's cell under `limits` (deadline and output caps), with no runtime rules.
    pub fn of_program(limits: &Limits, grace: Duration, files: OutputCaps) -> CellLimits {
        CellLimits {
            timeout: Duration::from_millis(limits.timeout_ms),
            grace,
            stdout_bytes: limits.stdout_bytes,
            stderr_bytes: limits.stderr_bytes,
            tmpfs_bytes: limits.tmpfs_bytes,
            files,
            policy: None,
        }
    }
}

/// How one cell ended.
#[derive(Debug, Default)]
pub struct CellOutcome {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    /// The cell's own (`sys.exit(n)`: n; an uncaught exception: 1), or the sandbox's when
    /// the program ended the interpreter.
    pub exit_code: Option<i64>,
    pub files: Vec<RunnerFile>,
    pub skipped: Vec<SkippedFile>,
    pub violation: Option<Violation>,
    /// The kernel's OOM killer ended a process of the sandbox during the cell.
    pub oom_killed: bool,
    /// Set when the sandbox is gone after this cell (killed, or ended by the program):
    /// why. The session it held is over.
    pub ended: Option<String>,
    /// Set when it ended for a reason cordon did not cause (see `SandboxOutcome::lost`).
    pub lost: Option<String>,
    pub usage: Usage,
    /// What the cell asked Python to do.
    pub runtime: Option<RecordedRun>,
    /// Whether the cell can have run: its frame was written whole while the sandbox was
    /// still up (see `delivered`). A sandbox lost before that never ran it.
    pub delivered: bool,
}

pub struct InterpreterSandbox {
    docker: Docker,
    container_id: String,
    input: Pin<Box<dyn AsyncWrite + Send>>,
    frames: Receiver<Incoming>,
    init: Option<Arc<SandboxInit>>,
    counters: Option<CgroupFiles>,
    guard: Option<RemovalGuard>,
    lifecycle: Sender<Lifecycle>,
    record_changes: bool,
    memory_bytes: u64,
    /// Whether its pids cgroup counts the program's tasks: under runsc it counts the
    /// Sentry's, so a cell's usage reports none.
    counts_program_tasks: bool,
    /// Output that arrived between cells (a thread or child still printing): the next
    /// cell's, in front of its own.
    carried: Vec<(bool, Vec<u8>)>,
}

impl InterpreterSandbox {
    /// A runner sandbox for `spec`: `warm` (one the pool made
    /// for this shape, already running the runner) or, without one, a fresh one created,
    /// attached and started now. The container is removed if anything fails.
    pub async fn open(
        docker: &Docker,
        warm: Option<WarmContainer>,
        spec: &SandboxSpec,
        lifecycle: Sender<Lifecycle>,
    ) -> Result<InterpreterSandbox, SandboxError> {
        let (container_id, streams, guard) = match warm {
            Some(warm) => {
                let (container_id, image_id, streams, mut guard) = warm.into_parts();
                guard.report_to(&lifecycle);
                emit(&lifecycle, created_event(spec, &container_id, image_id)).await;
                (container_id, streams, guard)
            }
            None => {
                let (container_id, guard) = create_guarded(docker, spec, &lifecycle).await?;
                let streams = attach(docker, &container_id).await?;
                start(docker, &container_id).await?;
                (container_id, streams, guard)
            }
        };
        let started = Lifecycle::Started {
            container_id: container_id.clone(),
        };
        emit(&lifecycle, started).await;
        charge_socket_buffers(docker, &container_id, spec).await?;
        let init = SandboxInit::find(docker, &container_id).await.map(Arc::new);
        let root = std::path::Path::new(crate::cgroup::CGROUP_ROOT);
        let (frames_in, frames) = mpsc::channel(FRAME_QUEUE);
        tokio::spawn(pump(streams.output, frames_in));
        Ok(InterpreterSandbox {
            docker: docker.clone(),
            counters: CgroupFiles::locate(root, &container_id),
            container_id,
            input: streams.input,
            frames,
            init,
            guard: Some(guard),
            lifecycle,
            record_changes: spec.record_fs_changes,
            memory_bytes: spec.limits.memory_bytes,
            counts_program_tasks: spec.runtime == crate::docker::runtime::SandboxRuntime::Runc,
            carried: Vec::new(),
        })
    }

    pub fn container_id(&self) -> &str {
        &self.container_id
    }

    /// Installs `requirements` into `PACKAGES_DIR` before any code runs: pip as root (with
    /// the sandbox's own capabilities, none) from `index` only, binary wheels only (so no
    /// package code runs at install), through the sandbox's proxy; the program then imports
    /// from the directory and cannot write it. At most `deadline`.
    pub async fn install_packages(
        &mut self,
        requirements: &[String],
        index: &str,
        deadline: Duration,
    ) -> PackageInstall {
        let started = Instant::now();
        let mut cmd: Vec<String> = [
            "python3",
            "-I",
            "-m",
            "pip",
            "install",
            "--no-cache-dir",
            "--no-input",
            "--disable-pip-version-check",
            "--only-binary",
            ":all:",
            "--no-compile",
            "--target",
            PACKAGES_DIR,
            "--index-url",
            index,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // A plain-HTTP index (a local mirror) must be named trusted, or pip ignores it.
        if let Some(rest) = index.strip_prefix("http://") {
            let host = rest.split(['/', ':']).next().unwrap_or_default();
            cmd.extend(["--trusted-host".to_string(), host.to_string()]);
        }
        cmd.push("--".to_string());
        cmd.extend(requirements.iter().cloned());
        let ran = tokio::time::timeout(deadline, self.exec_as_root(cmd)).await;
        let (exit_code, output) = match ran {
            Ok(Ok((code, output))) => (code, output),
            Ok(Err(error)) => (None, format!("cannot run pip in the sandbox: {error}")),
            Err(_) => (
                None,
                format!("pip did not finish within {} s", deadline.as_secs()),
            ),
        };
        PackageInstall {
            requirements: requirements.to_vec(),
            index: index.to_string(),
            exit_code,
            output,
            took_ms: started.elapsed().as_millis() as u64,
        }
    }

    /// Runs `cmd` in the sandbox as root; its exit code and the tail of its output.
    async fn exec_as_root(
        &mut self,
        cmd: Vec<String>,
    ) -> Result<(Option<i64>, String), bollard::errors::Error> {
        let config = bollard::models::ExecConfig {
            cmd: Some(cmd),
            user: Some("0:0".into()),
            attach_stdout: Some(true),
            attach_stderr: Some(true),
            ..Default::default()
        };
        let exec = self.docker.create_exec(&self.container_id, config).await?;
        let mut output = CappedOutput::new(INSTALL_OUTPUT_BYTES);
        if let StartExecResults::Attached {
            output: mut stream, ..
        } = self.docker.start_exec(&exec.id, None).await?
        {
            while let Some(Ok(chunk)) = stream.next().await {
                output.push(&chunk.into_bytes());
            }
        }
        let inspected = self.docker.inspect_exec(&exec.id).await?;
        let text = String::from_utf8_lossy(output.as_bytes()).into_owned();
        Ok((inspected.exit_code, text))
    }

    /// Runs one cell (`frame`, from `runner::cell_frame`) to its end. Kill orders on
    /// `kills` end it (and the sandbox) with their violation.
    pub async fn run_cell(
        &mut self,
        (frame, live): (Vec<u8>, Option<LiveOutput>),
        limits: &CellLimits,
        kills: &mut Receiver<Violation>,
    ) -> CellOutcome {
        let started = Instant::now();
        let cpu_before = self.read_counters().map(|c| c.cpu_ns).unwrap_or(0);
        let mut cell = Cell::new(limits, std::mem::take(&mut self.carried), live);
        let input = &mut self.input;
        // The program cannot start before its frame begins to go in.
        let write_started = SystemTime::now();
        // Written whole counts as fed, whether or not the flush then succeeds.
        let write = async move {
            let whole = input.write_all(&frame).await.is_ok();
            if whole {
                let _ = input.flush().await;
            }
            whole
        };
        let deadline = tokio::time::sleep(limits.timeout);
        tokio::pin!(write, deadline);
        let (mut writing, mut orders_open) = (true, true);
        let mut stream_open = true;
        let mut fed_at = None;
        // When the sandbox's last process was gone, as its init's exit shows (before
        // Docker's own bookkeeping ends the output stream).
        let mut gone_at = None;
        while cell.end.is_none() && stream_open {
            tokio::select! {
                () = init_exited(self.init.clone()), if gone_at.is_none() => {
                    gone_at = Some(Instant::now());
                }
                written = &mut write, if writing => {
                    writing = false;
                    fed_at = written.then_some(write_started);
                    if !written {
                        tracing::debug!(container = %self.container_id, "runner stdin closed");
                    }
                }
                frame = self.frames.recv() => match frame {
                    Some(Ok(frame)) => {
                        if let Some(violation) = cell.on_frame(frame, limits) {
                            cell.kill_for(violation, &self.docker, &self.container_id, &self.init);
                        }
                    }
                    Some(Err(why)) => {
                        cell.broken = Some(why);
                        cell.kill_quietly(&self.docker, &self.container_id, &self.init);
                    }
                    None => stream_open = false,
                },
                () = &mut deadline, if cell.interrupted_at.is_none() && cell.violation.is_none() => {
                    if limits.grace.is_zero() {
                        let detail = format!("ran past its wall-clock deadline of {} ms", limits.timeout.as_millis());
                        cell.kill_for(violation(ViolationKind::Timeout, detail), &self.docker, &self.container_id, &self.init);
                    } else {
                        cell.interrupt(&self.docker, &self.container_id, &self.init).await;
                    }
                }
                () = sleep_until_or_never(cell.interrupt_gives_up_at(limits)) => {
                    let detail = format!(
                        "ran past its deadline of {} ms and did not stop within {} ms of being interrupted",
                        limits.timeout.as_millis(), limits.grace.as_millis()
                    );
                    cell.kill_for(violation(ViolationKind::Timeout, detail), &self.docker, &self.container_id, &self.init);
                }
                order = kills.recv(), if orders_open => match order {
                    Some(violation) => cell.kill_for(violation, &self.docker, &self.container_id, &self.init),
                    None => orders_open = false,
                },
                () = sleep_until_or_never(cell.killed_at.map(|at| at + KILL_GRACE)) => break,
            }
        }
        let mut outcome = cell.into_outcome(limits);
        outcome.delivered = fed_at.is_some();
        if outcome.ended.is_some() || !stream_open {
            self.settle_ended(&mut outcome, fed_at).await;
        }
        // Every cell that reached the runner has a record, if only an empty one.
        if outcome.delivered {
            outcome.runtime.get_or_insert_with(RecordedRun::default);
        }
        outcome.usage = self.usage_since(started, cpu_before);
        if let Some(gone_at) = gone_at {
            outcome.usage.wall_ms = gone_at.duration_since(started).as_millis() as u64;
        }
        outcome
    }

    /// Waits for output between cells, keeping it for the next cell; returns once the
    /// sandbox has ended (why), which is the only thing that ends this wait. A flood
    /// past the caps ends it too.
    pub async fn watch_idle(&mut self, limits: &CellLimits) -> String {
        let mut kept = [0u64, 0u64];
        loop {
            match self.frames.recv().await {
                Some(Ok(RunnerFrame::Stdout(bytes))) => kept[0] += self.carry(false, bytes),
                Some(Ok(RunnerFrame::Stderr(bytes))) => kept[1] += self.carry(true, bytes),
                Some(Ok(_)) => {}
                Some(Err(why)) => return self.end_now(format!("its runner's output broke: {why}")),
                None => {
                    let why =
                        "the sandbox stopped between cells (ended or removed from outside cordon)";
                    return self.end_now(why.to_string());
                }
            }
            if kept[0] > limits.stdout_bytes || kept[1] > limits.stderr_bytes {
                return self.end_now("it printed past its output cap between cells".into());
            }
        }
    }

    fn carry(&mut self, stderr: bool, bytes: Vec<u8>) -> u64 {
        let size = bytes.len() as u64;
        self.carried.push((stderr, bytes));
        size
    }

    fn end_now(&self, why: String) -> String {
        self.kill_now();
        why
    }

    /// Kills the sandbox (every process in it) without waiting.
    pub fn kill_now(&self) {
        kill_sandbox(self.init.as_deref(), &self.docker, &self.container_id);
    }

    /// Stops the sandbox (its runner sees the end of its input; what still runs after
    /// `CLOSE_WAIT` is killed) and removes it, reporting `Exited` and `Removed`; says
    /// whether the kernel's OOM killer ended a process in it. Its guard removes it if this
    /// fails.
    pub async fn close(mut self) -> Result<bool, SandboxError> {
        // End of input: the runner finishes and exits by itself; what does not is killed.
        let _ = self.input.shutdown().await;
        let stopped = wait_stopped(&self.docker, &self.container_id);
        if tokio::time::timeout(CLOSE_WAIT, stopped).await.is_err() {
            self.kill_now();
        }
        let (ended, layers) = match settle(&self.docker, &self.container_id).await {
            Ok((ended, layers)) => (ended, Layers::Inspected(layers)),
            Err(error) => {
                tracing::warn!(%error, "cannot read how a session sandbox ended");
                (Default::default(), Layers::NotInspected)
            }
        };
        let exited = Lifecycle::Exited {
            container_id: self.container_id.clone(),
            exit_code: ended.exit_code,
            oom_killed: ended.oom_killed,
        };
        emit(&self.lifecycle, exited).await;
        let Some(guard) = self.guard.take() else {
            return Ok(ended.oom_killed);
        };
        let target = (self.container_id.clone(), self.record_changes);
        remove_reported(&self.docker, guard, target, layers, &self.lifecycle).await?;
        Ok(ended.oom_killed)
    }

    /// After a cell during which the sandbox stopped: why, from the engine (out of memory,
    /// killed from outside, or the program ending the interpreter itself).
    async fn settle_ended(&mut self, outcome: &mut CellOutcome, fed_at: Option<SystemTime>) {
        self.kill_now();
        let ended = settle(&self.docker, &self.container_id).await.ok();
        let (exit_code, oom, lost) = match &ended {
            Some((ended, _)) => (ended.exit_code, ended.oom_killed, ended.lost.clone()),
            None => (
                None,
                false,
                Some("the engine could not say how the sandbox ended".into()),
            ),
        };
        if let Some((ended, _)) = &ended {
            outcome.delivered = delivered(fed_at, ended.finished_at);
        }
        outcome.oom_killed = oom;
        if outcome.violation.is_none() {
            if oom {
                outcome.violation = Some(oom_violation(self.memory_bytes));
            } else {
                // A sandbox that stopped before its cell arrived never ran it, whatever
                // its exit code says.
                let undelivered = (!outcome.delivered)
                    .then(|| "the sandbox stopped before its program arrived".to_string());
                outcome.lost = (outcome.lost.take().or(lost))
                    .or_else(|| killed_from_outside(exit_code))
                    .or(undelivered);
            }
        }
        if outcome.exit_code.is_none() {
            outcome.exit_code = exit_code;
        }
        let why = match (&outcome.violation, &outcome.lost) {
            (Some(v), _) => format!("ended by a {} violation", v.kind.as_str()),
            (None, Some(lost)) => lost.clone(),
            (None, None) => format!(
                "the program ended the interpreter itself (exit code {})",
                exit_code.map_or("unknown".to_string(), |c| c.to_string())
            ),
        };
        outcome.ended = Some(why);
    }

    fn read_counters(&self) -> Option<crate::cgroup::counters::RawSample> {
        self.counters.as_ref()?.read()
    }

    /// The cell's wall and CPU time; memory is the session's high-water mark so far, pids
    /// those running at the cell's end (none reported under runsc).
    fn usage_since(&self, started: Instant, cpu_before_ns: u64) -> Usage {
        let now = self.read_counters().unwrap_or_default();
        Usage {
            wall_ms: started.elapsed().as_millis() as u64,
            cpu_ms: now.cpu_ns.saturating_sub(cpu_before_ns) / 1_000_000,
            peak_memory_bytes: now.max_memory_bytes.max(now.memory_bytes),
            peak_pids: if self.counts_program_tasks {
                now.pids
            } else {
                0
            },
        }
    }
}

/// The state of one cell while it runs.
struct Cell {
    stdout: CappedOutput,
    stderr: CappedOutput,
    files: Vec<RunnerFile>,
    skipped: Vec<SkippedFile>,
    end: Option<CellEnd>,
    violation: Option<Violation>,
    interrupted_at: Option<Instant>,
    killed_at: Option<Instant>,
    broken: Option<String>,
    live: Option<LiveOutput>,
    /// The first of each distinct runtime event, as it came.
    first_events: Vec<FirstEvent>,
    /// Every distinct event with its count, sent at the cell's end.
    counts: Option<EventCounts>,
}

impl Cell {
    fn new(limits: &CellLimits, carried: Vec<(bool, Vec<u8>)>, live: Option<LiveOutput>) -> Cell {
        let mut cell = Cell {
            stdout: CappedOutput::new(limits.stdout_bytes),
            stderr: CappedOutput::new(limits.stderr_bytes),
            files: Vec::new(),
            skipped: Vec::new(),
            end: None,
            violation: None,
            interrupted_at: None,
            killed_at: None,
            broken: None,
            live,
            first_events: Vec::new(),
            counts: None,
        };
        for (is_stderr, bytes) in carried {
            let buffer = match is_stderr {
                true => &mut cell.stderr,
                false => &mut cell.stdout,
            };
            buffer.push_live(&bytes, cell.live.as_ref(), is_stderr);
        }
        cell
    }

    /// Takes one frame; a violation when output passed its cap.
    fn on_frame(&mut self, frame: RunnerFrame, limits: &CellLimits) -> Option<Violation> {
        let (buffer, name, bytes) = match frame {
            RunnerFrame::Stdout(bytes) => (&mut self.stdout, "stdout", bytes),
            RunnerFrame::Stderr(bytes) => (&mut self.stderr, "stderr", bytes),
            RunnerFrame::File(file) => {
                self.on_file(file, limits.files);
                return None;
            }
            RunnerFrame::End(end) => {
                self.end = Some(end);
                return None;
            }
            RunnerFrame::Event(first) => return self.on_event(first, limits),
            RunnerFrame::Counts(counts) => {
                self.counts = Some(counts);
                return None;
            }
        };
        let stderr = name == "stderr";
        buffer
            .push_live(&bytes, self.live.as_ref(), stderr)
            .then(|| {
                let detail = format!("{name} passed its cap of {} bytes", buffer.len());
                violation(ViolationKind::Output, detail)
            })
    }

    /// Keeps a runtime event; a `policy` violation when it breaks the rules.
    fn on_event(&mut self, first: FirstEvent, limits: &CellLimits) -> Option<Violation> {
        let breach = limits
            .policy
            .as_ref()
            .and_then(|policy| policy.breach(&first.0, &first.1));
        if self.first_events.len() < MOST_DISTINCT_EVENTS {
            self.first_events.push(first);
        }
        breach.map(|why| super::ending::violation(ViolationKind::Policy, why))
    }

    /// The record: the runner's counts when they came, else each first event once (a cell
    /// killed before its end).
    fn recorded(&mut self) -> Option<RecordedRun> {
        let event = |(event, detail, count, first_s, last_s)| RuntimeEvent {
            event,
            detail,
            count,
            first_s,
            last_s,
        };
        match self.counts.take() {
            Some(counts) => Some(RecordedRun {
                events: counts
                    .events
                    .into_iter()
                    .take(MOST_DISTINCT_EVENTS)
                    .map(event)
                    .collect(),
                dropped: counts.dropped,
            }),
            None if self.first_events.is_empty() => None,
            None => Some(RecordedRun {
                events: std::mem::take(&mut self.first_events)
                    .into_iter()
                    .map(|FirstEvent(e, d, at)| event((e, d, 1, at, at)))
                    .collect(),
                dropped: 0,
            }),
        }
    }

    /// Keeps a returned file within the caps (the runner applies them too; this does
    /// not rely on it).
    fn on_file(&mut self, file: RunnerFile, caps: OutputCaps) {
        let size = file.data.len() as u64 / 4 * 3;
        let reason = if self.files.len() >= caps.max_files as usize {
            Some("over the cap on files per request".to_string())
        } else if size > caps.max_file_bytes + 3 {
            Some(format!("over the cap of {} bytes", caps.max_file_bytes))
        } else {
            None
        };
        match reason {
            Some(reason) => self.skipped.push(SkippedFile {
                name: file.name,
                reason,
            }),
            None => self.files.push(file),
        }
    }

    /// SIGINT to the runner: KeyboardInterrupt in the cell.
    async fn interrupt(
        &mut self,
        docker: &Docker,
        container_id: &str,
        init: &Option<Arc<SandboxInit>>,
    ) {
        self.interrupted_at = Some(Instant::now());
        if init.as_ref().is_some_and(|init| init.interrupt().is_ok()) {
            return;
        }
        let options = bollard::query_parameters::KillContainerOptions {
            signal: "SIGINT".to_string(),
        };
        if let Err(error) = docker.kill_container(container_id, Some(options)).await {
            tracing::warn!(container = container_id, %error, "cannot interrupt a cell");
        }
    }

    fn interrupt_gives_up_at(&self, limits: &CellLimits) -> Option<Instant> {
        match self.killed_at {
            Some(_) => None,
            None => self.interrupted_at.map(|at| at + limits.grace),
        }
    }

    fn kill_for(
        &mut self,
        violation: Violation,
        docker: &Docker,
        container_id: &str,
        init: &Option<Arc<SandboxInit>>,
    ) {
        if self.violation.is_some() || self.killed_at.is_some() {
            return;
        }
        tracing::info!(
            container = container_id,
            kind = violation.kind.as_str(),
            "killing session sandbox: {}",
            violation.detail
        );
        self.violation = Some(violation);
        self.kill_quietly(docker, container_id, init);
    }

    fn kill_quietly(
        &mut self,
        docker: &Docker,
        container_id: &str,
        init: &Option<Arc<SandboxInit>>,
    ) {
        self.killed_at.get_or_insert_with(Instant::now);
        kill_sandbox(init.as_deref(), docker, container_id);
    }

    fn into_outcome(mut self, limits: &CellLimits) -> CellOutcome {
        let runtime = self.recorded();
        // Interrupted at the deadline: the cell said so, or the sandbox ended meanwhile.
        let interrupted = self.end.as_ref().is_none_or(|end| end.interrupted);
        let mut violation = self.violation;
        if violation.is_none() && interrupted && self.interrupted_at.is_some() {
            let detail = format!(
                "ran past its deadline of {} ms and was interrupted (KeyboardInterrupt); the session goes on",
                limits.timeout.as_millis()
            );
            violation = Some(super::ending::violation(ViolationKind::Timeout, detail));
        }
        let exit_code = self.end.as_ref().map(|end| end.exit_code);
        let mut killed_at = self.killed_at;
        if violation.is_none() {
            let stderr = self.stderr.as_bytes();
            violation = full_disk_violation(exit_code, stderr, limits.tmpfs_bytes);
            // A full scratch space ends the sandbox, as any violation does.
            if violation.is_some() {
                killed_at = Some(Instant::now());
            }
        }
        let ended = killed_at.map(|_| match &self.broken {
            Some(why) => format!("its runner's output broke: {why}"),
            None => "killed".to_string(),
        });
        let mut skipped = self.skipped;
        if let Some(end) = &self.end {
            skipped.extend(end.skipped.iter().cloned());
        }
        CellOutcome {
            stdout_truncated: self.stdout.truncated(),
            stderr_truncated: self.stderr.truncated(),
            stdout: self.stdout.into_bytes(),
            stderr: self.stderr.into_bytes(),
            exit_code,
            files: self.files,
            skipped,
            violation,
            oom_killed: false,
            lost: self.broken.clone(),
            ended,
            usage: Usage::default(),
            runtime,
            delivered: false,
        }
    }
}

/// Whether a cell can have run: its frame was written whole, and the sandbox had not
/// stopped before that (a write into a dead container's stdin still succeeds, and the
/// runner reads its frame only after the write, so a sandbox that stopped earlier never
/// ran it).
fn delivered(fed_at: Option<SystemTime>, finished_at: Option<SystemTime>) -> bool {
    match (fed_at, finished_at) {
        (None, _) => false,
        (Some(fed), Some(finished)) => finished >= fed,
        (Some(_), None) => true,
    }
}

/// Resolves when `init` has exited; never when there is no init to watch.
async fn init_exited(init: Option<Arc<SandboxInit>>) {
    match init {
        Some(init) => init.exited().await,
        None => std::future::pending().await,
    }
}

/// Reads the sandbox's output into frames until it ends or stops being a runner's.
async fn pump(
    mut output: Pin<Box<dyn Stream<Item = Result<LogOutput, bollard::errors::Error>> + Send>>,
    frames: Sender<Incoming>,
) {
    let mut decoder = FrameDecoder::default();
    while let Some(item) = output.next().await {
        let decoded = match item {
            Ok(LogOutput::StdOut { message }) => decoder.push(&message),
            // The runner's own stderr: Python's message if it could not start.
            Ok(LogOutput::StdErr { message }) => Ok(vec![RunnerFrame::Stderr(message.to_vec())]),
            Ok(_) => Ok(Vec::new()),
            Err(error) => Err(format!("the sandbox's output stream broke: {error}")),
        };
        let failed = decoded.is_err();
        for frame in decoded.map_or_else(|why| vec![Err(why)], |f| f.into_iter().map(Ok).collect())
        {
            if frames.send(frame).await.is_err() {
                return;
            }
        }
        if failed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_counts_as_delivered_only_if_the_sandbox_outlived_the_write() {
        let fed = SystemTime::now();
        let earlier = fed - Duration::from_millis(5);
        let later = fed + Duration::from_millis(5);
        assert!(!delivered(None, Some(later)), "never written whole");
        assert!(
            !delivered(Some(fed), Some(earlier)),
            "dead before the write ended"
        );
        assert!(delivered(Some(fed), Some(later)));
        assert!(
            delivered(Some(fed), None),
            "unknown end: assume it may have run"
        );
    }
}
