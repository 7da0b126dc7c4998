//! The RFC 6962 / RFC 9162 Merkle tree over the log's entries: leaf and node hashes, the
//! root of any size, inclusion and consistency proofs, and their verification. Pure: no
//! I/O, so a third party can embed it to check cordon's proofs on its own.
//!
//! Leaf `i` is `SHA-256(0x00 || encoded entry i)`, the exact bytes stored in the frame (the
//! entry hash of the chain is `SHA-256(encoded entry)`, without the prefix); an inner node
//! is `SHA-256(0x01 || left || right)`; the empty tree's root is `SHA-256("")`.
//! Callers: the writer (`Frontier`, O(log n) memory), `verify` and the CLI (`Tree`).

use sha2::{Digest, Sha256};

/// A leaf, node or root hash.
pub type Hash = [u8; 32];

const LEAF_PREFIX: u8 = 0x00;
const NODE_PREFIX: u8 = 0x01;

/// Why a proof could not be made or does not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MerkleError {
    #[error("index {index} is not in a tree of size {size}")]
    IndexOutOfRange { index: u64, size: u64 },
    #[error("tree size {size} is larger than the {len} leaves known")]
    SizeOutOfRange { size: u64, len: u64 },
    #[error("old size {old} is larger than new size {new}")]
    OldLarger { old: u64, new: u64 },
    #[error("the proof has {found} hashes, a valid one for these sizes has {expected}")]
    WrongLength { expected: usize, found: usize },
    #[error("the proof does not lead to the expected root")]
    RootMismatch,
}

/// `SHA-256(0x00 || data)`.
pub fn leaf_hash(data: &[u8]) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update([LEAF_PREFIX]);
    hasher.update(data);
    hasher.finalize().into()
}

/// `SHA-256(0x01 || left || right)`.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update([NODE_PREFIX]);
    hasher.update(left);
    hasher.update(right);
    hasher.finalize().into()
}

/// The root of the empty tree, `SHA-256("")`.
pub fn empty_root() -> Hash {
    Sha256::digest([]).into()
}

/// The largest power of two strictly below `n` (for `n >= 2`).
fn split_point(n: u64) -> u64 {
    debug_assert!(n >= 2);
    1 << (63 - (n - 1).leading_zeros())
}

/// The right edge of a tree: the roots of its perfect subtrees, largest first. Enough to
/// append and to compute the root, in O(log n) memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontier {
    size: u64,
    /// (root, leaf count) of each perfect subtree, sizes strictly decreasing.
    peaks: Vec<(Hash, u64)>,
}

impl Frontier {
    pub fn new() -> Frontier {
        Frontier::default()
    }

    pub fn len(&self) -> u64 {
        self.size
    }

    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Appends a leaf hash.
    pub fn push(&mut self, leaf: Hash) {
        self.size += 1;
        self.peaks.push((leaf, 1));
        while let [.., (left, a), (right, b)] = self.peaks.as_slice() {
            if a != b {
                break;
            }
            let merged = (node_hash(left, right), a + b);
            self.peaks.truncate(self.peaks.len() - 2);
            self.peaks.push(merged);
        }
    }

    /// The root of the tree of every leaf pushed so far.
    pub fn root(&self) -> Hash {
        let mut peaks = self.peaks.iter().rev();
        let Some((last, _)) = peaks.next() else {
            return empty_root();
        };
        peaks.fold(*last, |right, (left, _)| node_hash(left, &right))
    }
}

/// A whole tree in memory: every perfect subtree's hash, level by level, so roots and
/// proofs of any size take O(log² n) hashes. 64 bytes per leaf.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// `levels[k][i]` is the root of leaves `i * 2^k .. (i + 1) * 2^k`.
    levels: Vec<Vec<Hash>>,
}

impl Tree {
    pub fn new() -> Tree {
        Tree::default()
    }

    /// How many leaves the tree holds.
    pub fn len(&self) -> u64 {
        self.levels.first().map_or(0, |l| l.len() as u64)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The leaf hash at `index`.
    pub fn leaf(&self, index: u64) -> Option<Hash> {
        self.levels.first()?.get(index as usize).copied()
    }

    /// Appends a leaf hash.
    pub fn push(&mut self, leaf: Hash) {
        let mut carry = leaf;
        for level in 0.. {
            if self.levels.len() == level {
                self.levels.push(Vec::new());
            }
            let nodes = &mut self.levels[level];
            nodes.push(carry);
            if nodes.len() % 2 == 1 {
                break;
            }
            carry = node_hash(&nodes[nodes.len() - 2], &nodes[nodes.len() - 1]);
        }
    }

    /// The root of the first `size` leaves.
    pub fn root_at(&self, size: u64) -> Result<Hash, MerkleError> {
        self.check_size(size)?;
        Ok(match size {
            0 => empty_root(),
            _ => self.subtree(0, size),
        })
    }

    /// The inclusion proof of leaf `index` in the tree of the first `size` leaves
    /// (RFC 6962 section 2.1.1, `PATH`), nearest sibling first.
    pub fn inclusion_proof(&self, index: u64, size: u64) -> Result<Vec<Hash>, MerkleError> {
        self.check_size(size)?;
        if index >= size {
            return Err(MerkleError::IndexOutOfRange { index, size });
        }
        let mut proof = Vec::new();
        self.path(index, 0, size, &mut proof);
        Ok(proof)
    }

    /// The proof that the tree of the first `old` leaves is a prefix of the tree of the
    /// first `new` (RFC 6962 section 2.1.2, `PROOF`). Empty when `old` is 0 or `new`.
    pub fn consistency_proof(&self, old: u64, new: u64) -> Result<Vec<Hash>, MerkleError> {
        self.check_size(new)?;
        if old > new {
            return Err(MerkleError::OldLarger { old, new });
        }
        let mut proof = Vec::new();
        if old > 0 && old < new {
            self.subproof(old, 0, new, true, &mut proof);
        }
        Ok(proof)
    }

    fn check_size(&self, size: u64) -> Result<(), MerkleError> {
        match size > self.len() {
            true => Err(MerkleError::SizeOutOfRange {
                size,
                len: self.len(),
            }),
            false => Ok(()),
        }
    }

    /// The root of leaves `start..end` (non-empty, within the tree).
    fn subtree(&self, start: u64, end: u64) -> Hash {
        let n = end - start;
        if n.is_power_of_two() && start.is_multiple_of(n) {
            let level = n.trailing_zeros() as usize;
            return self.levels[level][(start / n) as usize];
        }
        let k = split_point(n);
        node_hash(
            &self.subtree(start, start + k),
            &self.subtree(start + k, end),
        )
    }

    fn path(&self, index: u64, start: u64, end: u64, proof: &mut Vec<Hash>) {
        let n = end - start;
        if n == 1 {
            return;
        }
        let k = split_point(n);
        if index < start + k {
            self.path(index, start, start + k, proof);
            proof.push(self.subtree(start + k, end));
        } else {
            self.path(index, start + k, end, proof);
            proof.push(self.subtree(start, start + k));
        }
    }

    fn subproof(&self, m: u64, start: u64, end: u64, whole: bool, proof: &mut Vec<Hash>) {
        let n = end - start;
        if m == n {
            if !whole {
                proof.push(self.subtree(start, end));
            }
            return;
        }
        let k = split_point(n);
        if m <= k {
            self.subproof(m, start, start + k, whole, proof);
            proof.push(self.subtree(start + k, end));
        } else {
            self.subproof(m - k, start + k, end, false, proof);
            proof.push(self.subtree(start, start + k));
        }
    }
}

impl FromIterator<Hash> for Tree {
    fn from_iter<I: IntoIterator<Item = Hash>>(leaves: I) -> Tree {
        let mut tree = Tree::new();
        leaves.into_iter().for_each(|leaf| tree.push(leaf));
        tree
    }
}

/// Checks that `leaf` is leaf `index` of the tree of `size` leaves whose root is `root`
/// (RFC 9162 section 2.1.3.2).
pub fn verify_inclusion(
    leaf: &Hash,
    index: u64,
    size: u64,
    proof: &[Hash],
    root: &Hash,
) -> Result<(), MerkleError> {
    if index >= size {
        return Err(MerkleError::IndexOutOfRange { index, size });
    }
    let (mut fn_, mut sn) = (index, size - 1);
    let mut r = *leaf;
    for p in proof {
        if sn == 0 {
            return Err(wrong_length(inclusion_len(index, size), proof.len()));
        }
        if fn_ & 1 == 1 || fn_ == sn {
            r = node_hash(p, &r);
            while fn_ & 1 == 0 && fn_ != 0 {
                fn_ >>= 1;
                sn >>= 1;
            }
        } else {
            r = node_hash(&r, p);
        }
        fn_ >>= 1;
        sn >>= 1;
    }
    if sn != 0 {
        return Err(wrong_length(inclusion_len(index, size), proof.len()));
    }
    match r == *root {
        true => Ok(()),
        false => Err(MerkleError::RootMismatch),
    }
}

/// Checks that the tree of `old` leaves with root `old_root` is a prefix of the tree of
/// `new` leaves with root `new_root` (RFC 9162 section 2.1.4.2, with the equal-size and
/// empty-old cases that section leaves to the caller).
pub fn verify_consistency(
    old: u64,
    new: u64,
    old_root: &Hash,
    new_root: &Hash,
    proof: &[Hash],
) -> Result<(), MerkleError> {
    if old > new {
        return Err(MerkleError::OldLarger { old, new });
    }
    if old == 0 || old == new {
        if !proof.is_empty() {
            return Err(wrong_length(0, proof.len()));
        }
        let same = old == 0 || old_root == new_root;
        return if same {
            Ok(())
        } else {
            Err(MerkleError::RootMismatch)
        };
    }
    let expected = consistency_len(old, new);
    let mut path: Vec<Hash> = Vec::with_capacity(proof.len() + 1);
    if old.is_power_of_two() {
        path.push(*old_root);
    }
    path.extend_from_slice(proof);
    let Some((first, rest)) = path.split_first() else {
        return Err(wrong_length(expected, proof.len()));
    };
    let (mut fn_, mut sn) = (old - 1, new - 1);
    while fn_ & 1 == 1 {
        fn_ >>= 1;
        sn >>= 1;
    }
    let (mut fr, mut sr) = (*first, *first);
    for c in rest {
        if sn == 0 {
            return Err(wrong_length(expected, proof.len()));
        }
        if fn_ & 1 == 1 || fn_ == sn {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            while fn_ & 1 == 0 && fn_ != 0 {
                fn_ >>= 1;
                sn >>= 1;
            }
        } else {
            sr = node_hash(&sr, c);
        }
        fn_ >>= 1;
        sn >>= 1;
    }
    if sn != 0 {
        return Err(wrong_length(expected, proof.len()));
    }
    match fr == *old_root && sr == *new_root {
        true => Ok(()),
        false => Err(MerkleError::RootMismatch),
    }
}

fn wrong_length(expected: usize, found: usize) -> MerkleError {
    MerkleError::WrongLength { expected, found }
}

/// How many hashes an inclusion proof of `index` in a tree of `size` has.
fn inclusion_len(index: u64, size: u64) -> usize {
    let (mut start, mut end, mut len) = (0, size, 0);
    while end - start > 1 {
        let k = split_point(end - start);
        if index < start + k {
            end = start + k;
        } else {
            start += k;
        }
        len += 1;
    }
    len
}

/// How many hashes a consistency proof from `old` to `new` (0 < old < new) has.
fn consistency_len(old: u64, new: u64) -> usize {
    let (mut m, mut n, mut whole, mut len) = (old, new, true, 0);
    while m != n {
        let k = split_point(n);
        if m <= k {
            n = k;
        } else {
            m -= k;
            n -= k;
            whole = false;
        }
        len += 1;
    }
    len + usize::from(!whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(n: u64) -> Vec<Hash> {
        (0..n).map(|i| leaf_hash(&i.to_le_bytes())).collect()
    }

    /// MTH straight from RFC 6962, as the reference for the level-based tree.
    fn reference_root(leaves: &[Hash]) -> Hash {
        match leaves.len() {
            0 => empty_root(),
            1 => leaves[0],
            n => {
                let k = split_point(n as u64) as usize;
                node_hash(&reference_root(&leaves[..k]), &reference_root(&leaves[k..]))
            }
        }
    }

    #[test]
    fn the_empty_root_and_one_leaf_roots_are_the_rfc_values() {
        assert_eq!(
            hex::encode(empty_root()),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let leaf = leaf_hash(b"");
        assert_eq!(
            hex::encode(leaf),
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
        );
        let tree: Tree = [leaf].into_iter().collect();
        assert_eq!(tree.root_at(1).unwrap(), leaf);
    }

    #[test]
    fn roots_of_every_size_match_the_rfc_definition_and_the_frontier() {
        let all = leaves(300);
        let tree: Tree = all.iter().copied().collect();
        let mut frontier = Frontier::new();
        for size in 0..=300u64 {
            let expected = reference_root(&all[..size as usize]);
            assert_eq!(tree.root_at(size).unwrap(), expected, "size {size}");
            assert_eq!(frontier.root(), expected, "frontier at {size}");
            if let Some(leaf) = all.get(size as usize) {
                frontier.push(*leaf);
            }
        }
    }

    #[test]
    fn every_inclusion_proof_up_to_200_leaves_verifies_and_only_for_its_leaf() {
        let tree: Tree = leaves(200).into_iter().collect();
        for size in 1..=200 {
            let root = tree.root_at(size).unwrap();
            for index in 0..size {
                let proof = tree.inclusion_proof(index, size).unwrap();
                assert_eq!(proof.len(), inclusion_len(index, size));
                let leaf = tree.leaf(index).unwrap();
                verify_inclusion(&leaf, index, size, &proof, &root).unwrap();
                let other = tree.leaf((index + 1) % size).unwrap();
                if size > 1 {
                    assert!(verify_inclusion(&other, index, size, &proof, &root).is_err());
                }
            }
        }
    }

    #[test]
    fn every_consistency_proof_up_to_200_leaves_verifies() {
        let tree: Tree = leaves(200).into_iter().collect();
        for new in 0..=200 {
            let new_root = tree.root_at(new).unwrap();
            for old in 0..=new {
                let old_root = tree.root_at(old).unwrap();
                let proof = tree.consistency_proof(old, new).unwrap();
                verify_consistency(old, new, &old_root, &new_root, &proof)
                    .unwrap_or_else(|e| panic!("{old} -> {new}: {e}"));
                if old > 0 && old < new {
                    assert_eq!(proof.len(), consistency_len(old, new));
                }
            }
        }
    }

    #[test]
    fn a_rewritten_history_fails_consistency() {
        let tree: Tree = leaves(50).into_iter().collect();
        let mut forged = leaves(50);
        forged[3] = leaf_hash(b"forged");
        let forged: Tree = forged.into_iter().collect();
        for (old, new) in [(5, 50), (8, 50), (4, 9), (20, 33)] {
            let proof = forged.consistency_proof(old, new).unwrap();
            let result = verify_consistency(
                old,
                new,
                &tree.root_at(old).unwrap(),
                &forged.root_at(new).unwrap(),
                &proof,
            );
            assert_eq!(result, Err(MerkleError::RootMismatch), "{old} -> {new}");
        }
    }

    #[test]
    fn tampered_proofs_fail_without_panicking() {
        let tree: Tree = leaves(37).into_iter().collect();
        let root = tree.root_at(37).unwrap();
        let leaf = tree.leaf(11).unwrap();
        let mut proof = tree.inclusion_proof(11, 37).unwrap();
        proof[2][0] ^= 1;
        assert!(verify_inclusion(&leaf, 11, 37, &proof, &root).is_err());
        proof.pop();
        assert!(verify_inclusion(&leaf, 11, 37, &proof, &root).is_err());
        assert!(verify_inclusion(&leaf, 37, 37, &[], &root).is_err());
        let consistency = tree.consistency_proof(13, 37).unwrap();
        let old = tree.root_at(13).unwrap();
        assert!(verify_consistency(13, 37, &old, &root, &consistency[1..]).is_err());
        assert!(verify_consistency(13, 37, &old, &root, &[]).is_err());
        assert!(verify_consistency(37, 13, &root, &old, &[]).is_err());
        let mut longer = consistency.clone();
        longer.push(root);
        assert!(verify_consistency(13, 37, &old, &root, &longer).is_err());
    }

    #[test]
    fn sizes_past_the_tree_are_refused() {
        let tree: Tree = leaves(3).into_iter().collect();
        assert!(tree.root_at(4).is_err());
        assert!(tree.inclusion_proof(3, 3).is_err());
        assert!(tree.consistency_proof(2, 4).is_err());
        assert!(tree.consistency_proof(3, 2).is_err());
    }
}
