//! The sessions this host holds. Each session is one task (`serve`) that owns one
//! `InterpreterSandbox` and runs the cells sent to it one at a time; between cells it
//! watches the sandbox, kill orders, the idle timeout and the session's lifetime. The
//! registry (`Sessions`) finds a session by id for the cells that name it, knows whose it
//! is, and remembers why recent sessions ended so a late cell hears why.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use super::interpreter::{CellLimits, CellOutcome, InterpreterSandbox};
use crate::protocol::exec::Violation;
use crate::protocol::interpreter::SessionInfo;
use crate::protocol::supervisor::OpenSession;

/// Recent session ends kept, to answer late cells `session_closed` with the reason.
const ENDS_KEPT: usize = 4096;
/// Cells waiting for a busy session, past which a sender waits.
const CELL_QUEUE: usize = 8;

/// One cell for a session, and where its outcome goes.
pub struct CellOrder {
    pub frame: Vec<u8>,
    pub limits: CellLimits,
    /// Close the session after this cell.
    pub close_after: bool,
    /// Whether there is a cell to run (opening or closing may come without one).
    pub has_code: bool,
    pub live: Option<super::spec::LiveOutput>,
    pub reply: oneshot::Sender<(CellOutcome, SessionInfo)>,
}

/// How to reach a live session.
#[derive(Clone)]
pub struct SessionHandle {
    pub id: String,
    pub client: String,
    /// The request that opened it: its sandbox's label, the subject its usage and kill
    /// orders use, and where its end is audited.
    pub opened_by: String,
    pub container_id: String,
    pub memory_bytes: u64,
    cells: mpsc::Sender<CellOrder>,
    kill: mpsc::Sender<Violation>,
}

impl SessionHandle {
    /// Sends a cell; `None` when the session has ended meanwhile.
    pub async fn send(&self, order: CellOrder) -> Option<()> {
        self.cells.send(order).await.ok()
    }
}

/// What `find` says of a session id.
pub enum Lookup {
    Open(SessionHandle),
    /// It ended here: why, and whether it was lost (its sandbox ended by something other
    /// than its client, its limits or its timeouts).
    Ended {
        why: String,
        lost: bool,
    },
    /// This host does not know it (a supervisor that restarted lost it with its sandbox).
    Unknown,
}

#[derive(Default)]
pub struct Sessions {
    open: Mutex<HashMap<String, SessionHandle>>,
    ended: Mutex<VecDeque<(String, String, bool)>>,
}

/// The receiving ends a session's task serves.
pub struct SessionInbox {
    pub cells: mpsc::Receiver<CellOrder>,
    pub kills: mpsc::Receiver<Violation>,
}

impl Sessions {
    pub fn find(&self, id: &str) -> Lookup {
        if let Some(handle) = lock(&self.open).get(id) {
            return Lookup::Open(handle.clone());
        }
        match lock(&self.ended).iter().find(|(ended, ..)| ended == id) {
            Some((_, why, lost)) => Lookup::Ended {
                why: why.clone(),
                lost: *lost,
            },
            None => Lookup::Unknown,
        }
    }

    /// Registers a new session: how to reach it, and the inbox its task serves.
    pub fn register(
        &self,
        id: &str,
        (client, opened_by): (&str, &str),
        container_id: &str,
        memory_bytes: u64,
    ) -> (SessionHandle, SessionInbox) {
        let (cells_in, cells) = mpsc::channel(CELL_QUEUE);
        let (kill, kills) = mpsc::channel(4);
        let handle = SessionHandle {
            id: id.to_string(),
            client: client.to_string(),
            opened_by: opened_by.to_string(),
            container_id: container_id.to_string(),
            memory_bytes,
            cells: cells_in,
            kill,
        };
        lock(&self.open).insert(id.to_string(), handle.clone());
        (handle, SessionInbox { cells, kills })
    }

    /// The session is over: later cells hear `why`.
    pub fn forget(&self, id: &str, why: &str, lost: bool) {
        lock(&self.open).remove(id);
        let mut ended = lock(&self.ended);
        if ended.len() == ENDS_KEPT {
            ended.pop_front();
        }
        ended.push_back((id.to_string(), why.to_string(), lost));
    }

    /// Passes a kill order for the request that opened a session to that session.
    pub fn kill(&self, opened_by: &str, violation: Violation) -> bool {
        let open = lock(&self.open);
        match open.values().find(|h| h.opened_by == opened_by) {
            Some(handle) => {
                let _ = handle.kill.try_send(violation);
                true
            }
            None => false,
        }
    }

    pub fn count(&self) -> usize {
        lock(&self.open).len()
    }

    /// Every open session, for the host's load report.
    pub fn listed(&self) -> Vec<OpenSession> {
        lock(&self.open)
            .values()
            .map(|h| OpenSession {
                session_id: h.id.clone(),
                client: h.client.clone(),
                memory_bytes: h.memory_bytes,
            })
            .collect()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// How long a session may live and idle.
#[derive(Debug, Clone)]
pub struct SessionTimes {
    pub idle: Duration,
    pub lifetime: Duration,
    /// Caps on output printed between cells.
    pub between_cells: CellLimits,
}

/// Why a session ended, the violation that ended it between cells (if one did), and
/// whether it was lost (see `Lookup::Ended`).
pub struct SessionEnd {
    pub why: String,
    pub violation: Option<Violation>,
    pub lost: bool,
}

/// Serves one session's cells until it ends; the caller then closes the sandbox.
pub async fn serve(
    id: &str,
    sandbox: &mut InterpreterSandbox,
    mut inbox: SessionInbox,
    times: SessionTimes,
    mut shutdown: crate::shutdown::Shutdown,
) -> SessionEnd {
    let end_of_life = Instant::now() + times.lifetime;
    let mut idle_until = Instant::now() + times.idle;
    let mut cells = 0u64;
    let ended = |why: String| SessionEnd {
        why,
        violation: None,
        lost: false,
    };
    loop {
        let event = tokio::select! {
            order = inbox.cells.recv() => Event::Cell(order),
            why = sandbox.watch_idle(&times.between_cells) => {
                return SessionEnd { lost: true, ..ended(why) };
            }
            Some(violation) = inbox.kills.recv() => Event::Killed(violation),
            () = tokio::time::sleep_until(idle_until.into()) => {
                return ended(format!("it was idle for {} s", times.idle.as_secs()));
            }
            () = tokio::time::sleep_until(end_of_life.into()) => {
                return ended(format!("it reached its lifetime of {} s", times.lifetime.as_secs()));
            }
            _ = shutdown.wait() => return ended("its supervisor stopped".into()),
        };
        let order = match event {
            Event::Cell(Some(order)) => order,
            Event::Cell(None) => return ended("its supervisor stopped".into()),
            Event::Killed(violation) => {
                sandbox.kill_now();
                return SessionEnd {
                    why: format!("ended by a {} violation", violation.kind.as_str()),
                    violation: Some(violation),
                    lost: false,
                };
            }
        };
        let outcome = match order.has_code {
            false => CellOutcome {
                exit_code: Some(0),
                ..CellOutcome::default()
            },
            true => {
                cells += 1;
                sandbox
                    .run_cell((order.frame, order.live), &order.limits, &mut inbox.kills)
                    .await
            }
        };
        let lost = outcome.lost.is_some();
        let over = outcome.ended.clone().or_else(|| {
            order
                .close_after
                .then(|| "its client closed it".to_string())
        });
        let info = SessionInfo {
            id: id.to_string(),
            open: over.is_none(),
            cells,
        };
        let _ = order.reply.send((outcome, info));
        if let Some(why) = over {
            return SessionEnd { lost, ..ended(why) };
        }
        idle_until = Instant::now() + times.idle;
    }
}

enum Event {
    Cell(Option<CellOrder>),
    Killed(Violation),
}
