//! cordon's Merkle tree agrees with an independent RFC 6962 implementation (the
//! `ct-merkle` crate): the same roots, the same inclusion and consistency proofs byte for
//! byte, and each side's proofs verify with the other side's verifier, for every size up
//! to a few hundred.

use cordon::audit::merkle::{leaf_hash, verify_consistency, verify_inclusion, Hash, Tree};
use ct_merkle::mem_backed_tree::MemoryBackedTree;
use ct_merkle::{ConsistencyProof, InclusionProof, RootHash};
use sha2_011::Sha256;

const MAX: u64 = 260;

fn datum(i: u64) -> Vec<u8> {
    format!("entry {i}").into_bytes()
}

fn flat(proof: &[Hash]) -> Vec<u8> {
    proof.concat()
}

fn both_trees(n: u64) -> (Tree, MemoryBackedTree<Sha256, Vec<u8>>) {
    let mut theirs = MemoryBackedTree::new();
    let ours: Tree = (0..n)
        .map(|i| {
            theirs.push(datum(i));
            leaf_hash(&datum(i))
        })
        .collect();
    (ours, theirs)
}

#[test]
fn roots_and_inclusion_proofs_match_ct_merkle_for_every_size() {
    let mut theirs = MemoryBackedTree::<Sha256, Vec<u8>>::new();
    let mut ours = Tree::new();
    for size in 1..=MAX {
        theirs.push(datum(size - 1));
        ours.push(leaf_hash(&datum(size - 1)));
        let root = ours.root_at(size).unwrap();
        assert_eq!(theirs.root().as_bytes().as_slice(), root, "root of {size}");
        for index in 0..size {
            let proof = ours.inclusion_proof(index, size).unwrap();
            let their_proof = theirs.prove_inclusion(index as usize);
            assert_eq!(their_proof.as_bytes(), flat(&proof), "{index} in {size}");
            let parsed = InclusionProof::<Sha256>::from_bytes(flat(&proof));
            theirs
                .root()
                .verify_inclusion(&datum(index), index, &parsed)
                .unwrap();
            verify_inclusion(&leaf_hash(&datum(index)), index, size, &proof, &root).unwrap();
        }
    }
}

#[test]
fn consistency_proofs_match_ct_merkle_for_every_pair_of_sizes() {
    for new in 2..=MAX / 2 {
        let (ours, theirs) = both_trees(new);
        let new_root = ours.root_at(new).unwrap();
        for old in 1..new {
            let proof = ours.consistency_proof(old, new).unwrap();
            let their_proof = theirs.prove_consistency((new - old) as usize);
            assert_eq!(their_proof.as_bytes(), flat(&proof), "{old} -> {new}");
            let old_root = ours.root_at(old).unwrap();
            verify_consistency(old, new, &old_root, &new_root, &proof).unwrap();
            let parsed = ConsistencyProof::<Sha256>::try_from_bytes(flat(&proof)).unwrap();
            let their_old = RootHash::<Sha256>::new(old_root.into(), old);
            theirs
                .root()
                .verify_consistency(&their_old, &parsed)
                .unwrap();
        }
    }
}
