//! What the scanner knows about a run-time value: a dotted name it refers to, folded text,
//! an integer, a short list, plus taint bits saying where the data came from.
//!
//! Used by `scan` (evaluation and name binding) and `calls` (deciding rules). Invariant:
//! folding is bounded by `limits` (string length, list length, a per-program byte budget).

use std::rc::Rc;

use super::input_limits::{
    FOLD_BUDGET_BYTES, MAX_FOLDED_ITEMS, MAX_FOLDED_STR, MAX_QUALIFIED_NAME,
};

/// The length of an iterator that never ends (`itertools.count()`), as `Kind::Range`.
pub const ENDLESS: i64 = i64::MAX;

/// Stands for a part of a string that is only known at run time.
pub const UNKNOWN_PART: char = '\u{FFFD}';
/// `UNKNOWN_PART` alone: a path part or text only known at run time.
pub const UNKNOWN_PART_STR: &str = "\u{FFFD}";

/// The text of the program's own script path: a `.py` file in a directory, both unknown.
pub const OWN_SCRIPT_TEXT: &str = "\u{FFFD}/\u{FFFD}.py";

/// Where a value's data came from, or what kind of object it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Taint(u32);

impl Taint {
    pub const NONE: Taint = Taint(0);
    /// Output of a decoder or decompressor (base64, zlib, rot13, hex).
    pub const DECODED: Taint = Taint(1);
    /// Data received from the network.
    pub const NETWORK: Taint = Taint(1 << 1);
    /// Data read from a credential file.
    pub const SECRET: Taint = Taint(1 << 2);
    /// A socket object.
    pub const SOCKET: Taint = Taint(1 << 3);
    /// This process's own pid (or a child's, which it may signal).
    pub const OWN_PID: Taint = Taint(1 << 4);
    /// A child process object (`subprocess.Popen`).
    pub const CHILD: Taint = Taint(1 << 5);
    /// A ctypes handle on libc.
    pub const LIBC: Taint = Taint(1 << 6);
    /// A file opened for writing; the value's text is its path.
    pub const FILE_WRITE: Taint = Taint(1 << 7);
    /// A `pathlib.Path`; the value's text is the path.
    pub const PATH: Taint = Taint(1 << 8);
    /// A ctypes library handle of any kind.
    pub const NATIVE_LIB: Taint = Taint(1 << 9);
    /// Text assembled by folding rather than written as one literal.
    pub const BUILT: Taint = Taint(1 << 10);
    /// A collection of paths (`glob`, `listdir`, `iterdir`); the text is what each
    /// element looks like, with unknown parts marked.
    pub const LISTING: Taint = Taint(1 << 11);
    /// A process (or processes) this program did not start (`psutil.process_iter()`).
    pub const FOREIGN_PROCESS: Taint = Taint(1 << 12);
    /// A credential from one environment variable whose name says so (`*_TOKEN`).
    pub const CREDENTIAL: Taint = Taint(1 << 13);
    /// A handle on a file this program wrote earlier (its own cache or checkpoint), or
    /// bytes it pickled itself.
    pub const OWN_FILE: Taint = Taint(1 << 14);
    /// Read from a file of the system itself (`/proc`, `/etc`, `/usr`...): harmless to
    /// read, but sending it off the machine fingerprints the host (exfiltration).
    pub const HOST_DATA: Taint = Taint(1 << 15);
    /// Text from outside the program: the environment, its command line, its input.
    pub const EXTERNAL: Taint = Taint(1 << 16);
    /// The program's own script, or a path derived from it (`__file__`, `sys.argv[0]`).
    pub const OWN_SCRIPT: Taint = Taint(1 << 17);
    /// A queue between threads or processes (`queue.Queue()`): what is put in one is
    /// what its consumers get.
    pub const QUEUE: Taint = Taint(1 << 18);
    /// Data of a megabyte or more made in one go (`bytearray(1 << 28)`, `b"x" * 2**24`).
    pub const BIG: Taint = Taint(1 << 19);
    /// The environment's variables taken whole (`dict(os.environ)`, `.items()`): every
    /// secret the job was given.
    pub const ENVIRONMENT: Taint = Taint(1 << 20);
    /// An iterator that never ends: a generator that yields inside an endless loop, or a
    /// `map` over one. A `for` over it loops forever.
    pub const ENDLESS_ITERATOR: Taint = Taint(1 << 21);
    /// `enumerate(x)` of a collection not known item by item: each item is a pair of its
    /// count and what `x` gives.
    pub const COUNTED: Taint = Taint(1 << 22);
    /// A child process that reads its program from stdin (`Popen(["bash", "-s"],
    /// stdin=PIPE)`), or its stdin: what is written to it is run as code.
    pub const CODE_STDIN: Taint = Taint(1 << 23);
    /// A constant naming a container runtime's socket or another escape path, written
    /// among other constant strings (`RISKY_MOUNTS = ("/var/run/docker.sock", ...)`): a
    /// pattern to compare against until some call is given it.
    pub const ESCAPE_MARKER: Taint = Taint(1 << 24);
    /// Addresses of a whole network (`ip_network(...).hosts()`, `f"10.0.0.{i}"`):
    /// connecting to each sweeps the network.
    pub const HOST_RANGE: Taint = Taint(1 << 25);
    /// A connection to a database the program did not make: a server's (not on this
    /// machine), or a file found on the machine. Dropping its tables destroys data.
    pub const FOREIGN_DATABASE: Taint = Taint(1 << 26);

    /// Processes, the program's children or others': a list of them holds what each is.
    pub const PROCESSES: Taint = Taint(Self::FOREIGN_PROCESS.0 | Self::CHILD.0);

    /// Taint that flows through data transformations (not object identity).
    const DATA: Taint = Taint(
        Self::DECODED.0
            | Self::NETWORK.0
            | Self::SECRET.0
            | Self::CREDENTIAL.0
            | Self::HOST_DATA.0
            | Self::EXTERNAL.0
            | Self::OWN_SCRIPT.0
            | Self::BIG.0
            | Self::ENVIRONMENT.0
            | Self::HOST_RANGE.0
            | Self::FOREIGN_DATABASE.0,
    );

    pub fn has(self, other: Taint) -> bool {
        self.0 & other.0 != 0
    }

    pub const fn with(self, other: Taint) -> Taint {
        Taint(self.0 | other.0)
    }

    /// The part of the taint that survives a transformation of the data.
    pub fn data(self) -> Taint {
        Taint(self.0 & Self::DATA.0)
    }

    /// The part of the taint that is also in `mask`.
    pub fn only(self, mask: Taint) -> Taint {
        Taint(self.0 & mask.0)
    }

    pub fn without(self, other: Taint) -> Taint {
        Taint(self.0 & !other.0)
    }
}

/// Bytes from which one piece of data is big (`Taint::BIG`).
pub const BIG_BYTES: i64 = 1 << 20;

/// The shape of a value, as far as the analysis knows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Unknown,
    /// A module or an object inside one, by canonical dotted name (`os.system`).
    Name(Rc<str>),
    /// Text; unknown parts are `UNKNOWN_PART`. `exact` is false when any part is unknown.
    Text {
        text: Rc<str>,
        exact: bool,
    },
    Int(i64),
    NoneValue,
    Seq(Rc<[Value]>),
    /// A function or lambda defined in the program, by its index in the scanner's table.
    Function(u32),
    /// `functools.partial(function, arguments...)`.
    Partial(Rc<(Value, Vec<Value>)>),
    /// A dict with known keys (text or integers), in order.
    Dict(Rc<[(Value, Value)]>),
    /// What `range(...)`, `itertools.count()` and the like go through: how many items
    /// (`ENDLESS` for an iterator that never ends); the items themselves are not kept.
    Range(i64),
    /// A class defined in the program, and an instance of one, by the scanner's index.
    Class(u32),
    Instance(u32, Fields),
}

/// The fields of one instance of a record class (a dataclass, a `NamedTuple`), by name,
/// as it was created; `None` for instances whose attributes are the class's.
pub type Fields = Option<Rc<[(Rc<str>, Value)]>>;

/// Most nodes a list or dict may hold with everything in it expanded. Values share what
/// they hold, so `a = [a, a]` forty times over is 2^40 nodes for every walk over it (taint,
/// constants, equality): past this, only the value's taint is kept.
pub const MAX_VALUE_NODES: usize = 4096;

#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    pub kind: Kind,
    pub taint: Taint,
}

impl Value {
    pub const UNKNOWN: Value = Value {
        kind: Kind::Unknown,
        taint: Taint::NONE,
    };

    pub fn unknown(taint: Taint) -> Value {
        Value {
            kind: Kind::Unknown,
            taint,
        }
    }

    pub fn name(name: &str) -> Value {
        if name.len() > MAX_QUALIFIED_NAME {
            return Value::UNKNOWN;
        }
        Value {
            kind: Kind::Name(name.into()),
            taint: Taint::NONE,
        }
    }

    /// The program's own script (`__file__`): a path whose name is unknown.
    pub fn own_script() -> Value {
        Value {
            kind: Kind::Text {
                text: OWN_SCRIPT_TEXT.into(),
                exact: false,
            },
            taint: Taint::OWN_SCRIPT,
        }
    }

    pub fn int(value: i64) -> Value {
        Value {
            kind: Kind::Int(value),
            taint: Taint::NONE,
        }
    }

    pub fn tainted(mut self, taint: Taint) -> Value {
        self.taint = self.taint.with(taint);
        self
    }

    pub fn qualified_name(&self) -> Option<&str> {
        match &self.kind {
            Kind::Name(name) => Some(name),
            _ => None,
        }
    }

    /// The text when every part of it is known.
    pub fn exact_text(&self) -> Option<&str> {
        match &self.kind {
            Kind::Text { text, exact: true } => Some(text),
            _ => None,
        }
    }

    /// The text with unknown parts marked, if this is text at all.
    pub fn text(&self) -> Option<&str> {
        match &self.kind {
            Kind::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self.kind {
            Kind::Int(value) => Some(value),
            _ => None,
        }
    }

    pub fn items(&self) -> Option<&[Value]> {
        match &self.kind {
            Kind::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// True when the value is fully known at analysis time (no run-time input).
    pub fn is_constant(&self) -> bool {
        match &self.kind {
            Kind::Text { exact, .. } => *exact,
            Kind::Int(_) | Kind::NoneValue | Kind::Range(_) => true,
            Kind::Seq(items) => items.iter().all(Value::is_constant),
            Kind::Dict(pairs) => pairs.iter().all(|(_, v)| v.is_constant()),
            Kind::Unknown
            | Kind::Name(_)
            | Kind::Function(_)
            | Kind::Partial(_)
            | Kind::Class(_)
            | Kind::Instance(..) => false,
        }
    }

    /// What iterating over this value yields: an element of a listing or a list, a process
    /// of a process listing; otherwise an unknown value with the data taint.
    pub fn element(&self) -> Value {
        if self.taint.has(Taint::COUNTED) {
            let counted = Value {
                kind: self.kind.clone(),
                taint: self.taint.without(Taint::COUNTED),
            };
            return Value::bounded_seq(vec![Value::UNKNOWN, counted.element()]);
        }
        let taint = self.deep_taint();
        let kept = taint
            .data()
            .with(taint.only(Taint::PROCESSES.with(Taint::PATH)));
        match &self.kind {
            Kind::Text { text, .. } if self.taint.has(Taint::LISTING) => Value {
                kind: Kind::Text {
                    text: text.clone(),
                    exact: false,
                },
                taint: kept.with(Taint::BUILT),
            },
            Kind::Seq(items) if items.len() == 1 => items[0].clone(),
            _ => Value::unknown(kept.without(Taint::PATH)),
        }
    }

    /// How many items a `for` loop over this value goes through, when known.
    pub fn length(&self) -> Option<i64> {
        if self.taint.has(Taint::ENDLESS_ITERATOR) {
            return Some(ENDLESS);
        }
        match &self.kind {
            Kind::Range(n) => Some(*n),
            Kind::Seq(items) => i64::try_from(items.len()).ok(),
            Kind::Dict(pairs) => i64::try_from(pairs.len()).ok(),
            _ => None,
        }
    }

    /// All taint in this value and, for lists and dicts, in its items.
    pub fn deep_taint(&self) -> Taint {
        if let Kind::Instance(_, Some(fields)) = &self.kind {
            return fields
                .iter()
                .fold(self.taint, |t, (_, v)| t.with(v.deep_taint()));
        }
        if let Kind::Dict(pairs) = &self.kind {
            return pairs
                .iter()
                .fold(self.taint, |t, (_, v)| t.with(v.deep_taint()));
        }
        self.items()
            .unwrap_or(&[])
            .iter()
            .fold(self.taint, |t, item| t.with(item.deep_taint()))
    }

    /// `items` as a list, or only their taint when it would hold more than
    /// `MAX_VALUE_NODES` nodes.
    pub fn bounded_seq(items: Vec<Value>) -> Value {
        if fits_in_nodes(items.iter()) {
            return Value {
                kind: Kind::Seq(items.into()),
                taint: Taint::NONE,
            };
        }
        let taint = items
            .iter()
            .fold(Taint::NONE, |t, v| t.with(v.deep_taint()));
        Value::unknown(taint.data())
    }

    /// `pairs` as a dict, or only their values' taint when it would hold more than
    /// `MAX_VALUE_NODES` nodes.
    pub fn bounded_dict(pairs: Vec<(Value, Value)>) -> Value {
        if fits_in_nodes(pairs.iter().flat_map(|(k, v)| [k, v])) {
            return Value {
                kind: Kind::Dict(pairs.into()),
                taint: Taint::NONE,
            };
        }
        let taint = pairs
            .iter()
            .fold(Taint::NONE, |t, (_, v)| t.with(v.deep_taint()));
        Value::unknown(taint.data())
    }

    /// Takes this value's expanded nodes from `budget`; false once it runs out (it stops
    /// there, so the walk costs at most the budget).
    fn spend_nodes(&self, budget: &mut usize) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        match &self.kind {
            Kind::Seq(items) => items.iter().all(|item| item.spend_nodes(budget)),
            Kind::Dict(pairs) => pairs
                .iter()
                .all(|(k, v)| k.spend_nodes(budget) && v.spend_nodes(budget)),
            Kind::Instance(_, Some(fields)) => fields.iter().all(|(_, v)| v.spend_nodes(budget)),
            _ => true,
        }
    }

    /// An instance of the program's class `class`, with the fields it was created with.
    /// Fields that would hold more than `MAX_VALUE_NODES` nodes are not kept.
    pub fn instance(class: u32, fields: Vec<(Rc<str>, Value)>) -> Value {
        let fields = (!fields.is_empty() && fits_in_nodes(fields.iter().map(|(_, v)| v)))
            .then(|| fields.into());
        Value {
            kind: Kind::Instance(class, fields),
            taint: Taint::NONE,
        }
    }

    /// The field `name` of a record instance.
    pub fn field(&self, name: &str) -> Option<&Value> {
        match &self.kind {
            Kind::Instance(_, Some(fields)) => {
                fields.iter().find(|(n, _)| &**n == name).map(|(_, v)| v)
            }
            _ => None,
        }
    }

    /// What a `for` loop over this value goes through, when known: a list's items, a
    /// dict's keys.
    pub fn iterated(&self) -> Option<Vec<Value>> {
        match &self.kind {
            Kind::Seq(items) => Some(items.to_vec()),
            Kind::Dict(pairs) => Some(pairs.iter().map(|(k, _)| k.clone()).collect()),
            _ => None,
        }
    }

    /// The value under `key` of a dict with known keys.
    pub fn get(&self, key: &Value) -> Option<&Value> {
        let Kind::Dict(pairs) = &self.kind else {
            return None;
        };
        pairs.iter().find_map(|(k, v)| k.same_key(key).then_some(v))
    }

    /// The value under the known text key `key` of a dict with known keys.
    pub fn get_text(&self, key: &str) -> Option<&Value> {
        let Kind::Dict(pairs) = &self.kind else {
            return None;
        };
        pairs
            .iter()
            .find_map(|(k, v)| (k.exact_text() == Some(key)).then_some(v))
    }

    /// Whether two dict keys are the same known text, integer or tuple of those.
    pub fn same_key(&self, other: &Value) -> bool {
        match (self.exact_text(), other.exact_text(), &self.kind) {
            (Some(a), Some(b), _) => a == b,
            (_, _, Kind::Seq(_)) => self.is_known_key() && self == other,
            _ => self.as_int().is_some() && self.as_int() == other.as_int(),
        }
    }

    /// Known text, an integer, or a tuple of those (`("etc", "passwd")`): a key a dict
    /// can be followed under.
    pub fn is_known_key(&self) -> bool {
        match &self.kind {
            Kind::Seq(items) => items.iter().all(Value::is_known_key),
            _ => self.exact_text().is_some() || self.as_int().is_some(),
        }
    }
}

/// What one list element is charged against the fold budget.
const ITEM_COST_BYTES: usize = 16;

/// Builds folded strings and lists within the per-program budget.
#[derive(Default)]
pub struct Folder {
    spent: usize,
}

/// One piece of text being assembled.
pub enum Piece<'v> {
    Known(&'v str),
    /// Text that is one of several possibilities (`"a" if c else x`): kept, not exact.
    Inexact(&'v str),
    Unknown,
}

impl Folder {
    /// Text from a literal (charged to the budget like any other fold).
    pub fn literal(&mut self, text: &str) -> Value {
        let mut value = self.join([Piece::Known(text)], Taint::NONE);
        value.taint = Taint::NONE;
        value
    }

    /// Concatenates pieces; unknown pieces become `UNKNOWN_PART`. Past the length cap or
    /// the budget the result is an unknown value carrying the taint.
    pub fn join<'v>(&mut self, pieces: impl IntoIterator<Item = Piece<'v>>, taint: Taint) -> Value {
        let mut text = String::new();
        let mut exact = true;
        for piece in pieces {
            match piece {
                Piece::Known(part) => {
                    exact &= !part.contains(UNKNOWN_PART);
                    text.push_str(part);
                }
                Piece::Inexact(part) => {
                    exact = false;
                    text.push_str(part);
                }
                Piece::Unknown => {
                    exact = false;
                    if !text.ends_with(UNKNOWN_PART) {
                        text.push(UNKNOWN_PART);
                    }
                }
            }
            if text.len() > MAX_FOLDED_STR {
                return Value::unknown(taint);
            }
        }
        self.spent += text.len();
        if self.spent > FOLD_BUDGET_BYTES {
            return Value::unknown(taint);
        }
        Value {
            kind: Kind::Text {
                text: text.into(),
                exact,
            },
            taint: taint.with(Taint::BUILT),
        }
    }

    /// A list or tuple; too long a list keeps only its taint.
    pub fn seq(&mut self, items: Vec<Value>) -> Value {
        let taint = items
            .iter()
            .fold(Taint::NONE, |t, v| t.with(v.deep_taint()));
        self.spent += items.len() * ITEM_COST_BYTES;
        if items.len() > MAX_FOLDED_ITEMS || self.spent > FOLD_BUDGET_BYTES {
            return Value::unknown(taint.data());
        }
        Value::bounded_seq(items)
    }
}

/// Whether a list or dict of `items` stays within `MAX_VALUE_NODES` nodes.
fn fits_in_nodes<'v>(items: impl Iterator<Item = &'v Value>) -> bool {
    let mut budget = MAX_VALUE_NODES;
    let mut items = items;
    items.all(|item| item.spend_nodes(&mut budget))
}

/// `Taint::OWN_PID` for text folded from `parts` when every part not known exactly is
/// one of the program's own pids (`f"kill {child.pid}"`): its unknown parts are own pids.
pub fn own_pid_parts<'v>(parts: impl IntoIterator<Item = &'v Value>) -> Taint {
    let mut own = false;
    for part in parts {
        if part.taint.has(Taint::OWN_PID) {
            own = true;
        } else if !part.is_constant() {
            return Taint::NONE;
        }
    }
    if own {
        Taint::OWN_PID
    } else {
        Taint::NONE
    }
}

/// A value's contribution to a joined string.
pub fn piece(value: &Value) -> Piece<'_> {
    match &value.kind {
        Kind::Text { text, exact: true } => Piece::Known(text),
        Kind::Text { text, exact: false } if !text.contains(UNKNOWN_PART) => Piece::Inexact(text),
        Kind::Text { text, .. } => Piece::Known(text),
        _ => Piece::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joining_known_text_is_exact() {
        // "sys" + "tem" folds to the exact string "system".
        let mut folder = Folder::default();
        let value = folder.join([Piece::Known("sys"), Piece::Known("tem")], Taint::NONE);
        assert_eq!(value.exact_text(), Some("system"));
    }

    #[test]
    fn unknown_parts_are_marked_and_not_exact() {
        // A run-time part leaves a marker so paths like "<?>/.bashrc" still match suffixes.
        let mut folder = Folder::default();
        let value = folder.join([Piece::Unknown, Piece::Known("/.bashrc")], Taint::NONE);
        assert_eq!(value.exact_text(), None);
        assert_eq!(value.text(), Some("\u{FFFD}/.bashrc"));
    }

    #[test]
    fn budget_stops_runaway_folding() {
        // Repeated doubling cannot build more than the fold budget in total.
        let mut folder = Folder::default();
        let chunk = "a".repeat(MAX_FOLDED_STR / 2);
        let mut last = Value::UNKNOWN;
        for _ in 0..100 {
            last = folder.join([Piece::Known(&chunk), Piece::Known(&chunk)], Taint::NONE);
        }
        assert_eq!(last.kind, Kind::Unknown);
    }

    #[test]
    fn data_taint_survives_but_object_taint_does_not() {
        // Transforming socket data keeps "network" but not "is a socket".
        let taint = Taint::NETWORK.with(Taint::SOCKET);
        assert!(taint.data().has(Taint::NETWORK));
        assert!(!taint.data().has(Taint::SOCKET));
    }
}
