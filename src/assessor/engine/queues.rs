//! Queues between threads and processes: what a producer puts in (`q.put(path)`) is what
//! its workers get (`path = q.get()`), even when the workers were started first.
//!
//! Part of `Scanner` (called from `calls` for `queue.Queue()` and started targets, from
//! `methods` for `put` and `get`, and from `pipeline` once the whole program is walked).

use super::scan::{either, Scanner};
use super::value::Value;

/// Most values remembered as put in queues.
const MAX_QUEUED: usize = 16;

/// Most started workers walked again.
const MAX_CONSUMERS: usize = 8;

/// What the program put in its queues, and the workers to walk again once it has.
#[derive(Default)]
pub(super) struct Queues {
    /// Values put in any of the program's queues, the first few.
    items: Vec<Value>,
    /// Workers started, the first few: (target, arguments, where).
    consumers: Vec<(Value, Vec<Value>, u32)>,
    /// The consumers are being walked again (they are not remembered twice).
    replaying: bool,
}

impl<'a> Scanner<'a> {
    /// `q.put(item)` or `q.get()` on a queue; `None` for its other methods.
    pub(super) fn queue_method(&mut self, method: &str, item: Option<&Value>) -> Option<Value> {
        match method {
            "put" | "put_nowait" => {
                if let Some(item) = item {
                    if self.queues.items.len() < MAX_QUEUED && !self.queues.items.contains(item) {
                        self.queues.items.push(item.clone());
                    }
                }
                Some(Value::UNKNOWN)
            }
            "get" | "get_nowait" => Some(self.queued_item()),
            _ => None,
        }
    }

    /// What a worker gets from a queue: one of the values put in so far (the one the rules
    /// can follow furthest), unknown before any.
    fn queued_item(&self) -> Value {
        let mut items = self.queues.items.iter().cloned();
        let Some(first) = items.next() else {
            return Value::UNKNOWN;
        };
        items.fold(first, |picked, item| either(Value::UNKNOWN, picked, item))
    }

    /// A thread or process was started on `target` with `positional`: it may get from a
    /// queue (given, global or its instance's), so it is walked again once the program
    /// has put items in one.
    pub(super) fn note_queue_consumer(&mut self, target: &Value, positional: &[Value], at: u32) {
        if !self.queues.replaying && self.queues.consumers.len() < MAX_CONSUMERS {
            self.queues
                .consumers
                .push((target.clone(), positional.to_vec(), at));
        }
    }

    /// The whole program has been walked: workers started before their queue was filled
    /// are walked again, now getting what was put in it.
    pub(super) fn replay_queue_consumers(&mut self) {
        if self.queues.items.is_empty() {
            return;
        }
        self.queues.replaying = true;
        for (target, positional, at) in std::mem::take(&mut self.queues.consumers) {
            self.start_target(&target, positional, at);
        }
    }
}
