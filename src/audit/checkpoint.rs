//! Signed checkpoints in the C2SP `checkpoint` / `signed-note` text formats, Ed25519 only.
//! Pure: no I/O, so a witness or a court's expert can embed it. Used by the writer (sign),
//! `verify` and the CLI (open), and the checkpoint store.
//!
//! A checkpoint body is `<origin>\n<tree size>\n<base64 root>\n`; the signed note is the
//! body, a blank line, then one line per signature: `— <key name> <base64(key hash ||
//! signature)>`, where the key hash is the first 4 bytes of `SHA-256(name || "\n" || 0x01
//! || public key)` and the signature covers the body bytes exactly. Keys are written as
//! the note formats say: `PRIVATE+KEY+<name>+<hash hex>+<base64(0x01 || seed)>` and
//! `<name>+<hash hex>+<base64(0x01 || public key)>`.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

use super::merkle::Hash;

/// The algorithm byte of Ed25519 in the note formats.
const ALG_ED25519: u8 = 0x01;
/// What starts every signature line (an em dash and a space).
const SIGNATURE_PREFIX: &str = "\u{2014} ";
const PRIVATE_PREFIX: &str = "PRIVATE+KEY+";

/// Why a key, a checkpoint or its signature does not check out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    #[error("key name {0:?} is empty or holds '+' or white space")]
    BadKeyName(String),
    #[error("key text is malformed: {0}")]
    BadKey(&'static str),
    #[error("checkpoint text is malformed: {0}")]
    Malformed(&'static str),
    #[error("no signature by key {name} ({key_hash:08x}) on the checkpoint")]
    NotSigned { name: String, key_hash: u32 },
    #[error("the signature by key {name} does not verify (altered checkpoint or signature)")]
    BadSignature { name: String },
}

/// What a checkpoint says: this log, this many entries, this root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub origin: String,
    pub size: u64,
    pub root: Hash,
}

impl Checkpoint {
    /// The note body: three lines, each ending in `\n`.
    pub fn body(&self) -> String {
        format!(
            "{}\n{}\n{}\n",
            self.origin,
            self.size,
            BASE64.encode(self.root)
        )
    }

    /// Reads a body (extension lines after the root are allowed and ignored).
    pub fn parse_body(body: &str) -> Result<Checkpoint, CheckpointError> {
        let malformed = CheckpointError::Malformed;
        let mut lines = body
            .strip_suffix('\n')
            .ok_or(malformed("body does not end in a newline"))?
            .split('\n');
        let origin = lines.next().filter(|o| !o.is_empty());
        let origin = origin.ok_or(malformed("no origin line"))?;
        let size = lines.next().ok_or(malformed("no size line"))?;
        let canonical = size == "0" || (!size.starts_with('0') && !size.is_empty());
        let size: u64 = match size.bytes().all(|b| b.is_ascii_digit()) && canonical {
            true => size.parse().map_err(|_| malformed("size out of range"))?,
            false => return Err(malformed("size is not a decimal number")),
        };
        let root = lines.next().ok_or(malformed("no root line"))?;
        let root = BASE64
            .decode(root)
            .ok()
            .and_then(|r| Hash::try_from(r).ok())
            .ok_or(malformed("root is not base64 of 32 bytes"))?;
        Ok(Checkpoint {
            origin: origin.to_owned(),
            size,
            root,
        })
    }
}

/// A signed note split into its body and its signature lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedNote {
    pub body: String,
    pub signatures: Vec<NoteSignature>,
}

/// One signature line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteSignature {
    pub name: String,
    pub key_hash: u32,
    pub signature: Vec<u8>,
}

impl SignedNote {
    /// Splits note text at its last blank line and reads every signature line.
    pub fn parse(text: &str) -> Result<SignedNote, CheckpointError> {
        let malformed = CheckpointError::Malformed;
        let split = text.rfind("\n\n").ok_or(malformed("no blank line"))?;
        let (body, signatures) = (&text[..split + 1], &text[split + 2..]);
        let lines = signatures
            .strip_suffix('\n')
            .ok_or(malformed("signatures do not end in a newline"))?;
        let signatures = lines
            .split('\n')
            .map(parse_signature_line)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SignedNote {
            body: body.to_owned(),
            signatures,
        })
    }
}

fn parse_signature_line(line: &str) -> Result<NoteSignature, CheckpointError> {
    let malformed = CheckpointError::Malformed;
    let rest = line
        .strip_prefix(SIGNATURE_PREFIX)
        .ok_or(malformed("a signature line does not start with an em dash"))?;
    let (name, blob) = rest
        .split_once(' ')
        .ok_or(malformed("a signature line has no space"))?;
    let blob = BASE64
        .decode(blob)
        .map_err(|_| malformed("a signature is not base64"))?;
    if blob.len() < 5 || !valid_name(name) {
        return Err(malformed("a signature line is too short or badly named"));
    }
    Ok(NoteSignature {
        name: name.to_owned(),
        key_hash: u32::from_be_bytes([blob[0], blob[1], blob[2], blob[3]]),
        signature: blob[4..].to_vec(),
    })
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.contains('+') && !name.chars().any(char::is_whitespace)
}

fn key_hash(name: &str, public: &[u8; 32]) -> u32 {
    let mut hasher = Sha256::new();
    hasher.update(name.as_bytes());
    hasher.update(b"\n");
    hasher.update([ALG_ED25519]);
    hasher.update(public);
    let digest = hasher.finalize();
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// The log's signing key and the name (also the checkpoint origin) it signs under.
pub struct NoteSigner {
    name: String,
    key: SigningKey,
}

impl std::fmt::Debug for NoteSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NoteSigner({})", self.verifier().to_text())
    }
}

impl NoteSigner {
    pub fn from_seed(name: &str, seed: [u8; 32]) -> Result<NoteSigner, CheckpointError> {
        if !valid_name(name) {
            return Err(CheckpointError::BadKeyName(name.to_owned()));
        }
        Ok(NoteSigner {
            name: name.to_owned(),
            key: SigningKey::from_bytes(&seed),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// `PRIVATE+KEY+<name>+<hash>+<base64(0x01 || seed)>`.
    pub fn to_text(&self) -> String {
        let mut key = vec![ALG_ED25519];
        key.extend_from_slice(self.key.as_bytes());
        let hash = key_hash(&self.name, self.key.verifying_key().as_bytes());
        format!(
            "{PRIVATE_PREFIX}{}+{hash:08x}+{}",
            self.name,
            BASE64.encode(key)
        )
    }

    /// Reads the text `to_text` writes, checking its key hash.
    pub fn parse(text: &str) -> Result<NoteSigner, CheckpointError> {
        let rest = text
            .trim_end()
            .strip_prefix(PRIVATE_PREFIX)
            .ok_or(CheckpointError::BadKey("no PRIVATE+KEY+ prefix"))?;
        let (name, hash, key) = split_key_text(rest)?;
        let seed: [u8; 32] = key
            .try_into()
            .map_err(|_| CheckpointError::BadKey("not a 32-byte Ed25519 seed"))?;
        let signer = NoteSigner::from_seed(name, seed)?;
        match signer.verifier().key_hash == hash {
            true => Ok(signer),
            false => Err(CheckpointError::BadKey("key hash does not match the key")),
        }
    }

    pub fn verifier(&self) -> NoteVerifier {
        let key = self.key.verifying_key();
        NoteVerifier {
            name: self.name.clone(),
            key_hash: key_hash(&self.name, key.as_bytes()),
            key,
        }
    }

    /// Signs `checkpoint` (whose origin must be this key's name): the signed note text.
    pub fn sign(&self, checkpoint: &Checkpoint) -> String {
        let body = checkpoint.body();
        let signature = self.key.sign(body.as_bytes());
        let mut blob = self.verifier().key_hash.to_be_bytes().to_vec();
        blob.extend_from_slice(&signature.to_bytes());
        format!(
            "{body}\n{SIGNATURE_PREFIX}{} {}\n",
            self.name,
            BASE64.encode(blob)
        )
    }
}

/// A public key that checks checkpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteVerifier {
    name: String,
    key_hash: u32,
    key: VerifyingKey,
}

impl NoteVerifier {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `<name>+<hash>+<base64(0x01 || public key)>`.
    pub fn to_text(&self) -> String {
        let mut key = vec![ALG_ED25519];
        key.extend_from_slice(self.key.as_bytes());
        format!("{}+{:08x}+{}", self.name, self.key_hash, BASE64.encode(key))
    }

    /// Reads the text `to_text` writes, checking its key hash.
    pub fn parse(text: &str) -> Result<NoteVerifier, CheckpointError> {
        let (name, hash, key) = split_key_text(text.trim())?;
        let key: [u8; 32] = key
            .try_into()
            .map_err(|_| CheckpointError::BadKey("not a 32-byte Ed25519 public key"))?;
        let key = VerifyingKey::from_bytes(&key)
            .map_err(|_| CheckpointError::BadKey("not an Ed25519 public key"))?;
        if !valid_name(name) {
            return Err(CheckpointError::BadKeyName(name.to_owned()));
        }
        match key_hash(name, key.as_bytes()) == hash {
            true => Ok(NoteVerifier {
                name: name.to_owned(),
                key_hash: hash,
                key,
            }),
            false => Err(CheckpointError::BadKey("key hash does not match the key")),
        }
    }

    /// Checks the note's signature by this key and that its origin is this key's name;
    /// returns what it says.
    pub fn open(&self, note_text: &str) -> Result<Checkpoint, CheckpointError> {
        let note = SignedNote::parse(note_text)?;
        let ours = note
            .signatures
            .iter()
            .find(|s| s.name == self.name && s.key_hash == self.key_hash)
            .ok_or_else(|| CheckpointError::NotSigned {
                name: self.name.clone(),
                key_hash: self.key_hash,
            })?;
        let bad = || CheckpointError::BadSignature {
            name: self.name.clone(),
        };
        let signature = Signature::from_slice(&ours.signature).map_err(|_| bad())?;
        self.key
            .verify_strict(note.body.as_bytes(), &signature)
            .map_err(|_| bad())?;
        let checkpoint = Checkpoint::parse_body(&note.body)?;
        match checkpoint.origin == self.name {
            true => Ok(checkpoint),
            false => Err(CheckpointError::Malformed("origin is not the key's name")),
        }
    }
}

/// `<name>+<hash hex>+<base64(0x01 || key)>` -> (name, hash, key bytes).
fn split_key_text(text: &str) -> Result<(&str, u32, Vec<u8>), CheckpointError> {
    let bad = CheckpointError::BadKey;
    // base64 may hold '+' itself: the key is whatever follows the second '+'.
    let mut parts = text.splitn(3, '+');
    let (Some(name), Some(hash), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad("expected name+hash+key"));
    };
    let hash = (hash.len() == 8)
        .then(|| u32::from_str_radix(hash, 16).ok())
        .flatten()
        .ok_or(bad("key hash is not 8 hex digits"))?;
    let key = BASE64.decode(key).map_err(|_| bad("key is not base64"))?;
    match key.split_first() {
        Some((&ALG_ED25519, rest)) => Ok((name, hash, rest.to_vec())),
        _ => Err(bad("not an Ed25519 key")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signer() -> NoteSigner {
        NoteSigner::from_seed("cordon.test/audit", [7; 32]).unwrap()
    }

    fn checkpoint() -> Checkpoint {
        Checkpoint {
            origin: "cordon.test/audit".into(),
            size: 42,
            root: [0xab; 32],
        }
    }

    #[test]
    fn a_signed_checkpoint_has_the_c2sp_shape_and_opens() {
        let text = signer().sign(&checkpoint());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "cordon.test/audit");
        assert_eq!(lines[1], "42");
        assert_eq!(BASE64.decode(lines[2]).unwrap(), vec![0xab; 32]);
        assert_eq!(lines[3], "");
        assert!(lines[4].starts_with("\u{2014} cordon.test/audit "));
        assert_eq!(signer().verifier().open(&text).unwrap(), checkpoint());
    }

    #[test]
    fn any_flipped_byte_is_refused() {
        let text = signer().sign(&checkpoint());
        let verifier = signer().verifier();
        for at in 0..text.len() {
            let mut bytes = text.clone().into_bytes();
            bytes[at] ^= 0x01;
            if let Ok(altered) = String::from_utf8(bytes) {
                assert!(verifier.open(&altered).is_err(), "byte {at}");
            }
        }
    }

    #[test]
    fn another_key_with_the_same_name_is_not_accepted() {
        let other = NoteSigner::from_seed("cordon.test/audit", [8; 32]).unwrap();
        let text = other.sign(&checkpoint());
        assert!(matches!(
            signer().verifier().open(&text),
            Err(CheckpointError::NotSigned { .. })
        ));
    }

    #[test]
    fn keys_round_trip_through_their_text() {
        for seed in 0..64 {
            let signer = NoteSigner::from_seed("n", [seed; 32]).unwrap();
            NoteSigner::parse(&signer.to_text()).unwrap();
            NoteVerifier::parse(&signer.verifier().to_text()).unwrap();
        }
        let signer = signer();
        let again = NoteSigner::parse(&signer.to_text()).unwrap();
        assert_eq!(again.verifier(), signer.verifier());
        let verifier = NoteVerifier::parse(&signer.verifier().to_text()).unwrap();
        assert_eq!(verifier, signer.verifier());
        let mut tampered = signer.verifier().to_text();
        tampered.replace_range(..1, "x");
        assert!(NoteVerifier::parse(&tampered).is_err());
    }

    #[test]
    fn bodies_must_be_canonical() {
        for bad in [
            "o\n042\nAAAA\n",
            "o\n-1\n",
            "\n1\n",
            "o\n1\nAAAA\n",
            "o\n1\n",
            "o\n1",
        ] {
            assert!(Checkpoint::parse_body(bad).is_err(), "{bad:?}");
        }
        let body = checkpoint().body();
        assert_eq!(Checkpoint::parse_body(&body).unwrap(), checkpoint());
    }
}
