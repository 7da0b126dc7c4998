//! Shutdown as a value: a `ShutdownTrigger` held by whoever decides to stop, and cheap
//! `Shutdown` clones held by every long-running loop, which finish their current work and
//! return once triggered (mini-redis style).

use tokio::sync::watch;

/// Held by the owner of the process (signal handler, test). Triggers on `trigger` or drop.
#[derive(Debug)]
pub struct ShutdownTrigger {
    sender: watch::Sender<bool>,
}

/// Held by every loop that must stop when asked.
#[derive(Debug, Clone)]
pub struct Shutdown {
    receiver: watch::Receiver<bool>,
}

/// A trigger and its first listener.
pub fn channel() -> (ShutdownTrigger, Shutdown) {
    let (sender, receiver) = watch::channel(false);
    (ShutdownTrigger { sender }, Shutdown { receiver })
}

impl ShutdownTrigger {
    pub fn trigger(&self) {
        let _ = self.sender.send(true);
    }

    pub fn listener(&self) -> Shutdown {
        Shutdown {
            receiver: self.sender.subscribe(),
        }
    }
}

impl Drop for ShutdownTrigger {
    fn drop(&mut self) {
        self.trigger();
    }
}

impl Shutdown {
    pub fn is_triggered(&self) -> bool {
        *self.receiver.borrow()
    }

    /// Resolves once shutdown is triggered (or the trigger is gone).
    pub async fn wait(&mut self) {
        let _ = self.receiver.wait_for(|stop| *stop).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_listener_wakes_when_the_trigger_fires() {
        let (trigger, mut first) = channel();
        let mut second = trigger.listener();
        assert!(!first.is_triggered());
        trigger.trigger();
        first.wait().await;
        second.wait().await;
        assert!(second.is_triggered());
    }

    #[tokio::test]
    async fn dropping_the_trigger_counts_as_shutdown() {
        let (trigger, mut listener) = channel();
        drop(trigger);
        listener.wait().await;
        assert!(listener.is_triggered());
    }
}
