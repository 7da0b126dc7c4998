//! Lists and dicts filled at run time: `d[k] = v`, `append`, `extend`, `insert`,
//! `update`, `setdefault`. The container bound to a name is rebound with the new items,
//! so a callable or command stored in it is still known where it is taken out and called.
//!
//! Called by `scan` (subscript assignment) and `calls` (method calls on a name). Only
//! containers of up to `MAX_FILLED_ITEMS` are followed (each fill copies one), past that
//! they keep only their data taint; fills are not charged to the fold budget, so padding
//! a program with them cannot use it up.

use super::calls::{is_callable, Args};
use super::scan::Scanner;
use super::value::{Kind, Piece, Taint, Value};

/// Most items a list or dict filled at run time is followed with.
const MAX_FILLED_ITEMS: usize = 64;

impl Scanner<'_> {
    /// `container[key] = value` for a list or a dict with known keys.
    pub(super) fn store_item(&mut self, container: &Value, key: &Value, value: Value) -> Value {
        match &container.kind {
            Kind::Dict(_) => with_pair(container, key.clone(), value),
            Kind::Seq(items) => match key.as_int().and_then(|i| usize::try_from(i).ok()) {
                Some(i) if i < items.len() => {
                    let mut items = items.to_vec();
                    items[i] = flat(value);
                    list(items)
                }
                _ => Value::unknown(
                    container
                        .deep_taint()
                        .data()
                        .with(value.deep_taint().data()),
                ),
            },
            _ => Value::unknown(
                container
                    .deep_taint()
                    .data()
                    .with(value.deep_taint().data()),
            ),
        }
    }

    /// What a list or dict holds after `method(args)`, when the method fills it.
    pub(super) fn filled(
        &mut self,
        container: &Value,
        method: &str,
        args: &Args<'_>,
    ) -> Option<Value> {
        let first = args.positional.first();
        match (&container.kind, method) {
            (Kind::Seq(items), "append") => {
                let mut items = items.to_vec();
                items.push(flat(first?.clone()));
                Some(list(items))
            }
            (Kind::Seq(items), "insert") => {
                let at = args.positional.first()?.as_int()?;
                let mut items = items.to_vec();
                let at = usize::try_from(at).unwrap_or(0).min(items.len());
                items.insert(at, flat(args.positional.get(1)?.clone()));
                Some(list(items))
            }
            (Kind::Seq(items), "extend") => {
                let mut items = items.to_vec();
                let first = first?;
                match first.items() {
                    Some(added) => items.extend(added.iter().cloned().map(flat)),
                    // `found.extend(glob.glob(p))`: elements of that kind, too.
                    None if first.taint.has(Taint::LISTING) => items.push(first.clone()),
                    // `pending.extend(data.splitlines())`, `argv.extend(names)`: items not
                    // known one by one, kept as one item made of that data.
                    None if first.deep_taint().data() != Taint::NONE => {
                        items.push(Value::unknown(first.deep_taint().data()));
                    }
                    None => return None,
                }
                Some(list(items))
            }
            (Kind::Dict(_), "setdefault") => match container.get(first?) {
                Some(_) => None,
                None => Some(with_pair(
                    container,
                    first?.clone(),
                    args.positional.get(1).cloned().unwrap_or(Value::UNKNOWN),
                )),
            },
            (Kind::Dict(_), "update") => Some(self.updated(container, args)),
            _ => None,
        }
    }

    /// `d.update(other, k=v)`: the pairs of a known dict, then the keywords.
    fn updated(&mut self, container: &Value, args: &Args<'_>) -> Value {
        let lost = || Value::unknown(container.deep_taint().data().with(args.data_taint()));
        let mut added: Vec<(Value, Value)> = match args.positional.first().map(|v| &v.kind) {
            Some(Kind::Dict(other)) => other.to_vec(),
            Some(_) => return lost(),
            None => Vec::new(),
        };
        for (name, value) in &args.keywords {
            let Some(name) = name else {
                return lost();
            };
            added.push((self.folder.literal(name), value.clone()));
        }
        added
            .into_iter()
            .fold(container.clone(), |dict, (key, value)| {
                with_pair(&dict, key, value)
            })
    }
}

/// The dict with `key` set to `value` (replaced in place, or added at the end); an
/// unknown container or key, or a full dict, leaves only the data taint.
fn with_pair(dict: &Value, key: Value, value: Value) -> Value {
    let known_key = key.is_known_key();
    let lost = || Value::unknown(dict.deep_taint().data().with(value.deep_taint().data()));
    let Kind::Dict(pairs) = &dict.kind else {
        return lost();
    };
    if pairs.len() >= MAX_FILLED_ITEMS {
        return lost();
    }
    let value = flat(value);
    let mut pairs = pairs.to_vec();
    if !known_key {
        // `table[kind] = handler` with the key known only at run time (a registry filled
        // by a decorator): the dict keeps what it held and the new pair under its unknown
        // key, so dispatch finds the handler and `values()` holds what was stored.
        if !pairs.iter().any(|(k, v)| *v == value && !k.is_constant()) {
            pairs.push((key, value));
        }
        return Value::bounded_dict(pairs);
    }
    match pairs.iter().position(|(k, _)| k.same_key(&key)) {
        Some(i) => pairs[i].1 = value,
        None => pairs.push((key, value)),
    }
    Value::bounded_dict(pairs)
}

/// What a fill stores: a short flat list or dict (an argv, a pair) as it is; one that
/// holds containers, or is long, as its own and its items' data taint only. So no fill
/// nests deeper than that (a list appended to itself, again and again, would otherwise be
/// a value exponentially large to walk).
fn flat(value: Value) -> Value {
    let nested: Vec<&Value> = match &value.kind {
        Kind::Seq(items) => items.iter().collect(),
        Kind::Dict(pairs) => pairs.iter().map(|(_, v)| v).collect(),
        _ => return value,
    };
    let shallow = nested.len() <= MAX_FILLED_ITEMS
        && nested
            .iter()
            .all(|v| !matches!(v.kind, Kind::Seq(_) | Kind::Dict(_)));
    if shallow {
        return value;
    }
    let taint = nested.iter().fold(value.taint, |t, v| t.with(v.taint));
    Value::unknown(taint.data())
}

/// A filled list; past `MAX_FILLED_ITEMS` only its data taint is kept.
fn list(items: Vec<Value>) -> Value {
    if items.len() > MAX_FILLED_ITEMS {
        let taint = items
            .iter()
            .fold(Taint::NONE, |t, v| t.with(v.deep_taint().data()));
        return Value::unknown(taint);
    }
    Value::bounded_seq(items)
}

/// `table[key]` with a key known only at run time: a dispatch table is called through
/// such keys, so the first callable it holds stands for what is taken out.
/// A dict of a few texts indexed by a key known only at run time
/// (`exec(SNIPPETS[name])`): any of them, as one text not known exactly that holds each
/// on its own line, so that code or commands among them are still read.
pub(super) fn any_of_texts(s: &mut Scanner<'_>, container: &Value) -> Option<Value> {
    let Kind::Dict(pairs) = &container.kind else {
        return None;
    };
    if !(2..=MAX_ALTERNATIVE_TEXTS).contains(&pairs.len()) {
        return None;
    }
    let texts: Option<Vec<&str>> = pairs.iter().map(|(_, v)| v.exact_text()).collect();
    let texts = texts?;
    let mut pieces = Vec::with_capacity(texts.len() * 2);
    for (i, text) in texts.iter().enumerate() {
        if i > 0 {
            pieces.push(Piece::Known("\n"));
        }
        pieces.push(Piece::Inexact(text));
    }
    Some(s.folder.join(pieces, container.deep_taint().data()))
}

/// Most texts of a dict read by a run-time key that are kept as its alternatives.
const MAX_ALTERNATIVE_TEXTS: usize = 8;

pub(super) fn any_callable(container: &Value) -> Option<Value> {
    let Kind::Dict(pairs) = &container.kind else {
        return None;
    };
    pairs
        .iter()
        .map(|(_, v)| v)
        .find(|v| is_callable(v))
        .cloned()
}
