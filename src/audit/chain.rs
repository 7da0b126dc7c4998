//! The hash chain: checks that each entry follows the previous one (next index, the
//! previous entry's hash) and keeps the head. Pure: no I/O. Used when appending, when
//! opening and when verifying, so all three agree on what a valid chain is.

use super::entry::{entry_hash, Entry, EntryError, EntryHash, GENESIS_PREV_HASH};

/// Why an entry does not extend the chain.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("entry does not decode: {0}")]
    Entry(#[from] EntryError),
    #[error(
        "entry says index {found}, expected {expected} (entries missing, repeated or out of order)"
    )]
    IndexGap { expected: u64, found: u64 },
    #[error(
        "prev_hash {found} does not match the previous entry's hash {expected} (broken chain)"
    )]
    BrokenChain { expected: String, found: String },
}

/// The end of a valid chain: what the next entry must say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chain {
    next_index: u64,
    head_hash: EntryHash,
}

impl Default for Chain {
    fn default() -> Self {
        Chain::new()
    }
}

impl Chain {
    /// An empty chain: the next entry is index 0 with a zero `prev_hash`.
    pub fn new() -> Chain {
        Chain {
            next_index: 0,
            head_hash: GENESIS_PREV_HASH,
        }
    }

    /// How many entries the chain holds; also the index of the next one.
    pub fn len(&self) -> u64 {
        self.next_index
    }

    pub fn is_empty(&self) -> bool {
        self.next_index == 0
    }

    /// Hash of the last entry; zeros when empty.
    pub fn head_hash(&self) -> EntryHash {
        self.head_hash
    }

    /// Checks that `encoded` is the next entry and moves the head onto it.
    pub fn link(&mut self, encoded: &[u8]) -> Result<Entry, LinkError> {
        let entry = Entry::decode(encoded)?;
        self.check_follows(&entry)?;
        self.advance(encoded);
        Ok(entry)
    }

    /// The entry that would come next, with its index and `prev_hash` filled in.
    pub fn next_entry(&self) -> (u64, EntryHash) {
        (self.next_index, self.head_hash)
    }

    /// Moves the head onto an entry built from `next_entry` and encoded by the caller.
    pub fn advance(&mut self, encoded: &[u8]) {
        self.next_index += 1;
        self.head_hash = entry_hash(encoded);
    }

    fn check_follows(&self, entry: &Entry) -> Result<(), LinkError> {
        if entry.index != self.next_index {
            return Err(LinkError::IndexGap {
                expected: self.next_index,
                found: entry.index,
            });
        }
        if entry.prev_hash != self.head_hash {
            return Err(LinkError::BrokenChain {
                expected: hex::encode(self.head_hash),
                found: hex::encode(entry.prev_hash),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry_after(chain: &Chain, event_id: &str) -> Vec<u8> {
        let (index, prev_hash) = chain.next_entry();
        Entry {
            index,
            prev_hash,
            at_ms: 1,
            request_id: "r".into(),
            event_id: event_id.into(),
            actor: "a".into(),
            host: "h".into(),
            kind: "k".into(),
            body: vec![0xc0],
        }
        .encode()
        .unwrap()
    }

    #[test]
    fn entries_built_from_the_head_link_in_order() {
        let mut chain = Chain::new();
        for i in 0..3 {
            let bytes = entry_after(&chain, &format!("e{i}"));
            assert_eq!(chain.link(&bytes).unwrap().index, i);
            assert_eq!(chain.head_hash(), entry_hash(&bytes));
        }
        assert_eq!(chain.len(), 3);
    }

    #[test]
    fn a_skipped_or_replayed_entry_is_an_index_gap() {
        let mut chain = Chain::new();
        let first = entry_after(&chain, "e0");
        chain.link(&first).unwrap();
        assert_eq!(
            chain.clone().link(&first),
            Err(LinkError::IndexGap {
                expected: 1,
                found: 0
            })
        );
    }

    #[test]
    fn an_entry_pointing_at_another_predecessor_breaks_the_chain() {
        let mut chain = Chain::new();
        let first = entry_after(&chain, "e0");
        let mut wrong = Chain::new();
        wrong.advance(b"something else");
        let forged = entry_after(&wrong, "e1");
        chain.link(&first).unwrap();
        assert!(matches!(
            chain.link(&forged),
            Err(LinkError::BrokenChain { .. })
        ));
    }
}
