//! The bounded memory of recently appended event ids, so a redelivered event is appended
//! once. Holds the last `capacity` ids in append order; rebuilt from the log on open.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// How many event ids are remembered by default.
pub const DEFAULT_RECENT_EVENT_IDS: usize = 100_000;

/// Event id -> index of its entry, for the last `capacity` entries.
#[derive(Debug)]
pub struct RecentIds {
    capacity: usize,
    index_of: HashMap<Arc<str>, u64>,
    order: VecDeque<(Arc<str>, u64)>,
}

impl RecentIds {
    pub fn new(capacity: usize) -> RecentIds {
        RecentIds {
            capacity,
            index_of: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// The index of the entry carrying `event_id`, if it is among the recent ones.
    pub fn get(&self, event_id: &str) -> Option<u64> {
        self.index_of.get(event_id).copied()
    }

    /// Remembers that `event_id` is at `index`, forgetting the oldest id when full.
    pub fn insert(&mut self, event_id: &str, index: u64) {
        if self.capacity == 0 {
            return;
        }
        if self.order.len() == self.capacity {
            self.forget_oldest();
        }
        let id: Arc<str> = Arc::from(event_id);
        self.index_of.insert(Arc::clone(&id), index);
        self.order.push_back((id, index));
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.order.len()
    }

    fn forget_oldest(&mut self) {
        let Some((oldest, index)) = self.order.pop_front() else {
            return;
        };
        // The same id may sit at a later index too (an event redelivered after it was
        // forgotten); keep the map pointing at that later one.
        if self.index_of.get(&oldest) == Some(&index) {
            self.index_of.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inserted_id_is_found_with_its_index() {
        let mut recent = RecentIds::new(3);
        recent.insert("a", 0);
        assert_eq!(recent.get("a"), Some(0));
        assert_eq!(recent.get("b"), None);
    }

    #[test]
    fn the_oldest_id_is_forgotten_beyond_capacity() {
        let mut recent = RecentIds::new(2);
        for (i, id) in ["a", "b", "c"].into_iter().enumerate() {
            recent.insert(id, i as u64);
        }
        assert_eq!(recent.get("a"), None);
        assert_eq!(recent.get("c"), Some(2));
        assert_eq!(recent.len(), 2);
    }
}
