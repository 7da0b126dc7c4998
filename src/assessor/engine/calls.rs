//! Applies the rules to one call: resolves what is being called, evaluates the arguments
//! and, for known APIs (`catalog::Api`), records hits and capabilities and returns what the
//! call yields. Commands, files and methods on tracked objects have their own files.
//!
//! Called by `scan::Scanner::eval` for every call expression.

use super::catalog::{self, canonical_module, canonical_name, Api};
use super::classes::BUILTIN_VALUE;
use super::files::{chmod, file_access, join_paths, note_copy, open_file, path_new, Access};
use super::findings::Confidence;
use super::flow::collection_of;
use super::fold;
use super::input_limits::MAX_FOLDED_ITEMS;
use super::methods::method_call;
use super::parser::{Call, ExprKind};
use super::process_calls::{child_process, exec_program_argv, kill, process, run_command};
use super::rules::{self, Rule};
use super::scan::{either, Scanner};
use super::value::{
    piece, Kind, Piece, Taint, Value, BIG_BYTES, ENDLESS, UNKNOWN_PART, UNKNOWN_PART_STR,
};

/// Evaluated arguments of one call.
#[derive(Clone)]
pub(super) struct Args<'a> {
    pub(super) positional: Vec<Value>,
    pub(super) keywords: Vec<(Option<&'a str>, Value)>,
}

impl Args<'_> {
    /// One positional argument.
    pub(super) fn one(value: Value) -> Self {
        Args {
            positional: vec![value],
            keywords: Vec::new(),
        }
    }

    /// Argument by position, or by keyword name.
    pub(super) fn get(&self, index: usize, keyword: &str) -> Option<&Value> {
        self.positional.get(index).or_else(|| self.keyword(keyword))
    }

    pub(super) fn keyword(&self, name: &str) -> Option<&Value> {
        self.keywords
            .iter()
            .find(|(k, _)| *k == Some(name))
            .map(|(_, v)| v)
    }

    pub(super) fn all(&self) -> impl Iterator<Item = &Value> {
        self.positional
            .iter()
            .chain(self.keywords.iter().map(|(_, v)| v))
    }

    pub(super) fn data_taint(&self) -> Taint {
        self.all()
            .fold(Taint::NONE, |t, v| t.with(v.deep_taint().data()))
    }
}

pub fn eval_call<'a>(s: &mut Scanner<'a>, call: Call<'a>, at: u32) -> Value {
    let func = call.func();
    let mut receiver = None;
    let callee = match func.kind() {
        ExprKind::Attribute { value, attr } if s.bound_attribute(value, attr).is_some() => {
            s.eval(func)
        }
        ExprKind::Attribute { value, attr } => {
            let object = s.eval(value);
            if object.qualified_name().is_some() {
                s.attribute(&object, attr)
            } else if let Some(member) = s.member_of(&object, attr) {
                // `Runner(cmd).run()`, `Cls.helper(x)`: the program's own method (or what
                // a descriptor's `__get__` gives).
                s.read_descriptor(member, &object)
            } else if let Some(member) = s.dynamic_attribute(&object, attr) {
                member
            } else if let Some(command) = super::command_objects::attribute(&object, attr) {
                // `git.status()` of a baked `sh` command: the `git status` program.
                command
            } else {
                receiver = Some((object, attr, is_super_call(value)));
                Value::UNKNOWN
            }
        }
        _ => s.eval(func),
    };
    let args = Args {
        positional: s.eval_spread(call.args()),
        keywords: call.keywords().map(|(k, e)| (k, s.eval(e))).collect(),
    };
    let compares = compares_only(&callee, receiver.as_ref().map(|(o, a, _)| (o, *a)));
    check_argument_text(s, &args, compares, at);
    if let Some((object, attr, through_super)) = receiver {
        if through_super {
            // `super().m()` inside `m` calls the parent's `m`: not the method recursing.
            s.note_call_in_loop(&format!("super.{attr}"), at);
        } else if let Kind::Text { .. } = object.kind {
            // `"".join(parts)` builds text; it is no thread's `join`.
            s.note_call_in_loop(&format!("str.{attr}"), at);
        } else {
            s.note_call_in_loop(attr, at);
        }
        if let Kind::Instance(..) | Kind::Class(_) = object.kind {
            // A method the class does not define (inherited from outside the program):
            // a thread's or process's `start()` runs its `run` in a new one.
            if let ("start", Some(library)) = (attr, s.thread_class_of(&object)) {
                s.start_instance(&object, &library, at);
            }
            if attr == "interact" {
                s.interact(&object, at);
            }
            // A builtin type's method on an instance of its subclass (`self.items()`);
            // given secrets (`m.update(os.environ)`), the instance holds them.
            if let Some(value) = object.field(BUILTIN_VALUE).cloned() {
                let result = method_call(s, &value, attr, &args, at);
                if let ExprKind::Attribute {
                    value: receiver, ..
                } = func.kind()
                {
                    if let (ExprKind::Name(name), true) =
                        (receiver.kind(), holds_secret(&value, &args, &result))
                    {
                        now_holds_secrets(s, name);
                    }
                }
                return result;
            }
            return Value::unknown(args.data_taint());
        }
        // `batch = []` in the loop, then `batch.append(x)`: a new list each pass (a file
        // opened each pass still fills the disk).
        let in_memory = !object.taint.has(Taint::FILE_WRITE);
        let fresh = in_memory
            && matches!(attr, "append" | "extend")
            && match func.kind() {
                ExprKind::Attribute { value, .. } => match value.kind() {
                    ExprKind::Name(name) => s.is_bound_in_loop(name),
                    _ => false,
                },
                _ => false,
            };
        s.forks.fresh_receiver = fresh;
        let result = method_call(s, &object, attr, &args, at);
        s.forks.fresh_receiver = false;
        if object.taint.has(Taint::NETWORK) && attr == "setopt" {
            fills_with_download(s, call);
        }
        if let ExprKind::Attribute { value, .. } = func.kind() {
            match value.kind() {
                ExprKind::Name(name) => update_receiver(s, name, &object, attr, &args, &result),
                // `self.msg.set_content(secrets)`: the attribute's object holds them now.
                ExprKind::Attribute {
                    value: owner,
                    attr: field,
                } => {
                    if let ExprKind::Name(owner) = owner.kind() {
                        // `self.callbacks.append(cb)`: the attribute's list holds it now.
                        if let Some(filled) = s.filled(&object, attr, &args) {
                            s.set_attribute(owner, field, filled);
                        }
                        if holds_secret(&object, &args, &result) {
                            let held = object.tainted(Taint::SECRET);
                            s.set_attribute(owner, field, held);
                        }
                    }
                }
                // `m["env"].update(os.environ)`: the container holding that item holds them.
                ExprKind::Subscript { value: owner, .. } => {
                    if let (ExprKind::Name(owner), true) =
                        (owner.kind(), holds_secret(&object, &args, &result))
                    {
                        now_holds_secrets(s, owner);
                    }
                }
                _ => {}
            }
        }
        return result;
    }
    match (&callee.kind, func.kind()) {
        (Kind::Name(name), _) => s.note_call_in_loop(&name.clone(), at),
        (_, ExprKind::Attribute { attr, .. }) => s.note_call_in_loop(attr, at),
        (_, ExprKind::Name(name)) => s.note_call_in_loop(name, at),
        _ => {}
    }
    // `setattr(runner, "go", os.system)` is `runner.go = os.system`.
    if let (Some("builtins.setattr"), Some((owner, attr)), Some(value)) = (
        callee.qualified_name(),
        named_attribute(call),
        args.positional.get(2),
    ) {
        s.assign_attribute(owner, attr, value.clone());
        return Value::UNKNOWN;
    }
    s.filled_arguments.clear();
    let result = call_value(s, &callee, args, at);
    see_filled_arguments(s, call);
    result
}

/// `curl.setopt(pycurl.WRITEDATA, buf)` (or `WRITEFUNCTION, buf.write`): what the
/// transfer fetches is written into `buf`.
fn fills_with_download<'a>(s: &mut Scanner<'a>, call: Call<'a>) {
    // `pycurl.WRITEDATA`, or the same constant read from the handle (`c.WRITEDATA`).
    let option = match call.args().iter().next().map(|e| e.kind()) {
        Some(ExprKind::Attribute { attr, .. }) => attr,
        _ => "",
    };
    if !matches!(option, "WRITEDATA" | "WRITEFUNCTION") {
        return;
    }
    let target = call.args().iter().nth(1).map(|e| match e.kind() {
        ExprKind::Attribute { value, .. } => value.kind(),
        other => other,
    });
    if let Some(ExprKind::Name(name)) = target {
        let filled = s.lookup(name).tainted(Taint::NETWORK);
        s.rebind(name, filled);
    }
}

/// The name and attribute of `setattr(name, "attr", ...)`, both written in the call.
fn named_attribute<'a>(call: Call<'a>) -> Option<(&'a str, &'a str)> {
    let mut args = call.args().iter();
    match (args.next()?.kind(), args.next()?.kind()) {
        (ExprKind::Name(owner), ExprKind::Str(attr)) => Some((owner, attr)),
        _ => None,
    }
}

/// `step(state)` where `step` fills the dict or list it is given (`st["s"] = sock`): the
/// caller's `state` is that object, so it holds what was put in.
fn see_filled_arguments<'a>(s: &mut Scanner<'a>, call: Call<'a>) {
    if s.filled_arguments.is_empty() {
        return;
    }
    let filled = std::mem::take(&mut s.filled_arguments);
    let args = call.args();
    if args
        .iter()
        .any(|a| matches!(a.kind(), ExprKind::Starred(_)))
    {
        return;
    }
    // What the call was given by position beyond these (a bound method's `self`) comes first.
    let Some(offset) = s.filled_arity.checked_sub(args.iter().count()) else {
        return;
    };
    for (i, arg) in args.iter().enumerate() {
        let ExprKind::Name(name) = arg.kind() else {
            continue;
        };
        let current = s.lookup(name);
        let now = filled
            .iter()
            .find(|(at, before, _)| *at == i + offset && *before == current);
        if let Some((_, _, now)) = now {
            s.rebind(name, now.clone());
        }
    }
}

/// `name.method(args)` changed the object bound to `name`: `ops.append(os.system)` fills
/// a list, `parser.read(secret_path)` or `items.append(secret)` makes it hold secrets.
fn update_receiver<'a>(
    s: &mut Scanner<'a>,
    name: &'a str,
    object: &Value,
    method: &str,
    args: &Args<'a>,
    result: &Value,
) {
    if let Some(filled) = s.filled(object, method, args) {
        s.rebind(name, filled);
    }
    if holds_secret(object, args, result) {
        now_holds_secrets(s, name);
    }
    // `meta.reflect(bind=engine)` of a foreign database: its tables are that database's.
    if method == "reflect" && args.data_taint().has(Taint::FOREIGN_DATABASE) {
        let reflected = s.lookup(name).tainted(Taint::FOREIGN_DATABASE);
        s.rebind(name, reflected);
    }
}

/// The object bound to `name` holds secrets from now on.
fn now_holds_secrets<'a>(s: &mut Scanner<'a>, name: &'a str) {
    let held = s.lookup(name).tainted(Taint::SECRET);
    s.rebind(name, held);
}

/// A method given secrets (or returning them) leaves its object holding them.
fn holds_secret(object: &Value, args: &Args<'_>, result: &Value) -> bool {
    // A network client given the program's credentials (`transport.connect(pkey=key)`)
    // is signed in with them; it does not hold them as data to pass on.
    let secret = match object.taint.has(Taint::NETWORK) {
        true => Taint::SECRET,
        false => Taint::SECRET.with(Taint::CREDENTIAL),
    };
    result.taint.with(args.data_taint()).has(secret)
}

/// `super()` (with or without arguments).
fn is_super_call(expr: super::parser::Expr<'_>) -> bool {
    let ExprKind::Call(call) = expr.kind() else {
        return false;
    };
    matches!(call.func().kind(), ExprKind::Name("super"))
}

/// Calls whatever `callee` stands for: a partial, a method caller, a known API, one of the
/// program's functions. Used for direct calls and for calls reached indirectly (thread
/// targets, executors, `map`, `__reduce__`).
pub(super) fn call_value<'a>(
    s: &mut Scanner<'a>,
    callee: &Value,
    mut args: Args<'a>,
    at: u32,
) -> Value {
    // `functools.partial(f, a)(b)` calls `f(a, b)`.
    let callee = match &callee.kind {
        Kind::Partial(partial) => {
            let (function, bound) = &**partial;
            if let Some(name) = function.qualified_name() {
                // A method or attribute named by assembled text stays marked as hidden.
                let assembled = assembled(callee);
                if let Some(result) = call_kept_partial(s, name, bound, &mut args, (at, assembled))
                {
                    return result;
                }
            }
            args.positional.splice(0..0, bound.iter().cloned());
            function.clone()
        }
        _ => callee.clone(),
    };
    if matches!(callee.kind, Kind::Name(_)) {
        // `bytes(obj)`, `str(obj)` of an instance of the program's: its `__bytes__` or
        // `__str__`.
        let dunder = match callee.qualified_name() {
            Some("builtins.bytes") => Some("__bytes__"),
            Some("builtins.str") => Some("__str__"),
            _ => None,
        };
        if let (Some(dunder), [object]) = (dunder, args.positional.as_slice()) {
            if let Kind::Instance(class, _) = object.kind {
                if s.method_of(class, dunder).is_some() {
                    return s.as_text(object.clone(), dunder);
                }
            }
        }
        // A library function sees the value of an instance of a builtin type's subclass
        // (with what the instance was given).
        for value in args
            .positional
            .iter_mut()
            .chain(args.keywords.iter_mut().map(|(_, v)| v))
        {
            if let Some(inner) = value.field(BUILTIN_VALUE) {
                *value = inner.clone().tainted(value.taint.data());
            }
        }
        // `dict(pairs)`, `list(items)` of an iterable of the program's own: what its
        // `__iter__` gives.
        let collects = callee
            .qualified_name()
            .is_some_and(|name| COLLECTORS.contains(&name));
        if let (true, Some(first)) = (collects, args.positional.first_mut()) {
            if matches!(first.kind, Kind::Instance(..)) {
                *first = s.iterator_of(first.clone(), at);
            }
        }
    }
    let created =
        (callee.qualified_name()).and_then(|name| super::command_objects::created(name, &args));
    if let Some(command) = created {
        return command;
    }
    let api = callee.qualified_name().and_then(catalog::api);
    // `getattr(__import__("o" + "s"), "".join(parts))(cmd)`: the call is hidden when some
    // part of its name is written nowhere in the program (`"shutil:rmtree".split(":")`
    // names it plainly). The program's text is searched only for such calls.
    let spelled_out = |name: &str| name.split('.').all(|part| s.source.contains(part));
    if api.is_some_and(runs_or_destroys)
        && callee.taint.has(Taint::BUILT)
        && !callee.qualified_name().is_some_and(spelled_out)
    {
        hit(s, rules::HIDDEN_CALL, at, Confidence::High);
    }
    match (
        api,
        unbound_path_method(&callee),
        args.positional.split_first(),
    ) {
        (Some(api), ..) => apply(s, api, &args, at),
        // `getattr(Path, "write_bytes")(p, data)`: the method on the path it is given.
        (None, Some(method), Some((path, rest))) => {
            let path = path.clone().tainted(Taint::PATH);
            let method = method.to_string();
            let args = Args {
                positional: rest.to_vec(),
                keywords: args.keywords.clone(),
            };
            super::files::path_method(s, &path, &method, &args, at)
        }
        _ => plain_call(s, &callee, &args, at),
    }
}

/// Calls that run code or programs, or remove or kill things: reached through a name
/// assembled at run time, they are hidden from whoever reads the program.
fn runs_or_destroys(api: Api) -> bool {
    matches!(
        api,
        Api::CodeExec
            | Api::Shell
            | Api::Process
            | Api::ProcessArgs
            | Api::ExecProgram { .. }
            | Api::PtySpawn
            | Api::RunPath
            | Api::Kill
            | Api::Remove { .. }
            | Api::LoadLibrary
    )
}

/// `pathlib.Path.write_text` and the like, taken from the class: the method's name.
fn unbound_path_method(callee: &Value) -> Option<&str> {
    let name = callee.qualified_name()?;
    ["pathlib.Path.", "pathlib.PosixPath."]
        .iter()
        .find_map(|class| name.strip_prefix(*class))
}

/// `object.method(args)` for an object known only as a value.
/// `assembled`: `Taint::BUILT` when the method's name was assembled at run time.
fn call_method<'a>(
    s: &mut Scanner<'a>,
    object: &Value,
    method: &str,
    args: Args<'a>,
    (at, assembled): (u32, Taint),
) -> Value {
    // `methodcaller("__call__", cmd)(os.system)`: calling the object itself.
    if method == "__call__" && is_callable(object) {
        return call_value(s, object, args, at);
    }
    if object.qualified_name().is_some() {
        let callee = s.attribute(object, method).tainted(assembled);
        return call_value(s, &callee, args, at);
    }
    method_call(s, object, method, &args, at)
}

/// Most items of a known list that `map(f, items)` calls `f` on one by one.
const MAX_MAPPED_ITEMS: usize = 16;

/// The name prefix a method caller is kept under (`operator.methodcaller("system")`).
const METHOD_CALLER: &str = "operator.methodcaller:";

/// Calls a partial the analysis keeps under a name prefix (a method caller, an attribute
/// getter, a `@contextmanager` function, a bound method) with `args`; `None` for an
/// ordinary `functools.partial`, which the caller calls with `bound` prepended.
fn call_kept_partial<'a>(
    s: &mut Scanner<'a>,
    name: &str,
    bound: &[Value],
    args: &mut Args<'a>,
    (at, assembled): (u32, Taint),
) -> Option<Value> {
    if let Some(result) = super::command_objects::call(s, name, bound, args, at) {
        return Some(result);
    }
    let first = args.positional.first().cloned().unwrap_or(Value::UNKNOWN);
    // `operator.methodcaller("system", "id")(os)` calls `os.system("id")`.
    if let Some(method) = name.strip_prefix(METHOD_CALLER) {
        let bound_args = Args {
            positional: bound.to_vec(),
            keywords: Vec::new(),
        };
        return Some(call_method(s, &first, method, bound_args, (at, assembled)));
    }
    // `operator.itemgetter("eval")(vars(builtins))` is `vars(builtins)["eval"]`.
    if let (ITEM_GETTER, [key]) = (name, bound) {
        return Some(s.item(&first, key));
    }
    // `operator.attrgetter("run")(subprocess)` is `subprocess.run`.
    if let Some(path) = name.strip_prefix(ATTR_GETTER) {
        let attribute = (path.split('.')).fold(first, |value, attr| s.attribute(&value, attr));
        return Some(attribute.tainted(assembled));
    }
    let mut taken = || {
        std::mem::replace(
            args,
            Args {
                positional: Vec::new(),
                keywords: Vec::new(),
            },
        )
    };
    match (name, bound) {
        // A `@contextmanager` function called: what its generator first yields.
        (CONTEXT_MANAGER, [generator]) => {
            let yielded = call_value(s, generator, taken(), at);
            Some(match yielded.items() {
                Some([first, ..]) => first.clone(),
                _ => yielded.element(),
            })
        }
        // `"".join` or `p.write_bytes` taken as a value, later called: that method (with
        // what a `functools.partial` of it bound first).
        (name, [object, partial_args @ ..]) if name.starts_with(BOUND_METHOD) => {
            let method = &name[BOUND_METHOD.len()..];
            let mut args = taken();
            args.positional.splice(0..0, partial_args.iter().cloned());
            Some(call_method(s, object, method, args, (at, Taint::NONE)))
        }
        _ => None,
    }
}

/// The name a `@contextmanager` function is kept under, bound to the function.
const CONTEXT_MANAGER: &str = "contextlib.contextmanager:";

/// Most items `enumerate` pairs with their counts one by one (each call copies them).
const MAX_ENUMERATED: usize = 256;

/// The name an item getter is kept under, bound to its key (`operator.itemgetter("eval")`).
const ITEM_GETTER: &str = "operator.itemgetter:";

/// The name prefix an attribute getter is kept under (`operator.attrgetter("run")`).
const ATTR_GETTER: &str = "operator.attrgetter:";

/// The name prefix a text's or path's method taken as a value is kept under (`"".join`,
/// `path.write_bytes`), bound to that object.
const BOUND_METHOD: &str = "bound method:";

/// `object.method` taken as a value (`map("".join, parts)`, `to_thread(p.write_bytes,
/// data)`): a partial that calls the method on that object.
pub(super) fn bound_method(object: &Value, method: &str) -> Value {
    method_partial(BOUND_METHOD, method, vec![object.clone()])
}

/// A partial kept under `prefix` + `method`, with `bound` arguments: how method callers
/// and bound methods are carried until they are called.
fn method_partial(prefix: &str, method: &str, bound: Vec<Value>) -> Value {
    Value {
        kind: Kind::Partial(std::rc::Rc::new((
            Value::name(&format!("{prefix}{method}")),
            bound,
        ))),
        taint: Taint::NONE,
    }
}

/// Whether a value can be called for an effect the rules see.
pub(super) fn is_callable(value: &Value) -> bool {
    match &value.kind {
        // An instance is called through its `__call__`, when its class has one.
        Kind::Function(_) | Kind::Partial(_) | Kind::Class(_) | Kind::Instance(..) => true,
        Kind::Name(name) => catalog::api(name).is_some() || unbound_path_method(value).is_some(),
        _ => false,
    }
}

/// `Thread(target=f, args=(a,))`, `executor.submit(f, a)`, `map(f, items)`: calls `f`
/// with the arguments given (a list of items stands for one of its elements).
pub(super) fn call_indirect<'a>(
    s: &mut Scanner<'a>,
    target: &Value,
    positional: Vec<Value>,
    at: u32,
) -> Value {
    if !is_callable(target) {
        return Value::unknown(
            positional
                .iter()
                .fold(Taint::NONE, |t, v| t.with(v.deep_taint().data())),
        );
    }
    let args = Args {
        positional,
        keywords: Vec::new(),
    };
    call_value(s, target, args, at)
}

/// `functools.partial(f, args...)`: remembers `f` and the arguments; a partial of a
/// partial is flattened, so applying one never recurses.
fn partial(args: &Args<'_>) -> Value {
    let Some((function, bound)) = args.positional.split_first() else {
        return Value::UNKNOWN;
    };
    let (function, mut all) = match &function.kind {
        Kind::Partial(inner) => (inner.0.clone(), inner.1.clone()),
        _ => (function.clone(), Vec::new()),
    };
    all.extend(bound.iter().cloned());
    if all.len() > MAX_FOLDED_ITEMS {
        return Value::unknown(args.data_taint());
    }
    Value {
        kind: Kind::Partial(std::rc::Rc::new((function, all))),
        taint: Taint::NONE,
    }
}

/// Indicator strings built at run time (`"docker" + ".sock"`) are checked where used.
/// Indicators in text given to a call. `compares`: the call only compares, searches or
/// prints its arguments (`re.search`, `text.find`, `print`), which touches nothing.
pub(super) fn check_argument_text(s: &mut Scanner<'_>, args: &Args<'_>, compares: bool, at: u32) {
    if compares {
        return;
    }
    let wanted = Taint::BUILT.with(Taint::ESCAPE_MARKER);
    for value in args.all() {
        check_text_within(s, value, wanted, 0, at);
    }
}

/// Literals were checked where they are written; only folded text is new, and escape
/// paths listed among other constants are checked where a call uses them, also inside
/// the lists and dicts it is given (`yaml.safe_dump({"volumes": [sock]})`).
fn check_text_within(s: &mut Scanner<'_>, value: &Value, wanted: Taint, depth: u32, at: u32) {
    const MAX_DEPTH: u32 = 6;
    match &value.kind {
        Kind::Text { text, .. } if value.taint.has(wanted) => {
            let text = text.clone();
            s.check_indicators(&text, at, false);
        }
        Kind::Seq(items) if depth < MAX_DEPTH => {
            for item in items.iter() {
                check_text_within(s, item, wanted, depth + 1, at);
            }
        }
        Kind::Dict(pairs) if depth < MAX_DEPTH => {
            for (key, item) in pairs.iter() {
                check_text_within(s, key, wanted, depth + 1, at);
                check_text_within(s, item, wanted, depth + 1, at);
            }
        }
        _ => {}
    }
}

/// Calls that only compare, search, measure or print what they are given.
fn compares_only(callee: &Value, receiver: Option<(&Value, &str)>) -> bool {
    const PURE: &[&str] = &[
        "builtins.print",
        "builtins.len",
        "builtins.any",
        "builtins.all",
        "builtins.sorted",
        "builtins.repr",
        "builtins.str",
        "builtins.set",
        "builtins.frozenset",
    ];
    const COMPARING: &[&str] = &[
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "critical",
        "exception",
        "find",
        "rfind",
        "index",
        "rindex",
        "count",
        "startswith",
        "endswith",
        "search",
        "match",
        "fullmatch",
        "split",
        "__contains__",
    ];
    if let Some((object, method)) = receiver {
        return matches!(object.kind, Kind::Text { .. }) || COMPARING.contains(&method);
    }
    match &callee.kind {
        // The program's own function: the calls in its body are checked.
        Kind::Function(_) => true,
        // A builtin the rules do not follow (`len`, `max`).
        Kind::Unknown => true,
        _ => callee.qualified_name().is_some_and(|name| {
            PURE.contains(&name)
                || ["re.", "fnmatch.", "logging."]
                    .iter()
                    .any(|m| name.starts_with(m))
        }),
    }
}

pub(super) fn hit(s: &mut Scanner<'_>, rule: &'static Rule, at: u32, confidence: Confidence) {
    s.hits.add(rule, at, confidence);
}

pub(super) fn text_value(s: &mut Scanner<'_>, text: &str, taint: Taint) -> Value {
    s.folder.join([Piece::Known(text)], taint)
}

/// Builtins that, called with nothing, return the same empty value every time.
fn returns_empty_value(callable: &Value) -> bool {
    matches!(
        callable.qualified_name(),
        Some(
            "builtins.int" | "builtins.float" | "builtins.str" | "builtins.bool" | "builtins.bytes"
        )
    )
}

/// The directory holding a path (`os.path.dirname`, `Path.parent`); unknown when the path
/// is not known text.
pub(super) fn parent_path(s: &mut Scanner<'_>, path: &Value) -> Value {
    match path.text() {
        Some(text) => {
            let parent = super::paths::parent(text);
            path_part(s, path, &parent, path.taint)
        }
        None => Value::unknown(path.taint),
    }
}

/// A part of `path`'s text, as exact as the path is, with `taint`.
fn path_part(s: &mut Scanner<'_>, path: &Value, part: &str, taint: Taint) -> Value {
    let piece = match path.exact_text() {
        Some(_) => Piece::Known(part),
        None => Piece::Inexact(part),
    };
    s.folder.join([piece], taint)
}

/// Builtins that go through the iterable they are given.
const COLLECTORS: &[&str] = &[
    "builtins.dict",
    "builtins.list",
    "builtins.tuple",
    "builtins.sorted",
    "builtins.set",
    "builtins.frozenset",
    "builtins.bytes",
    "builtins.bytearray",
];

/// The methods of an import finder and loader that imports run.
const IMPORT_HOOKS: &[&str] = &[
    "find_spec",
    "find_module",
    "create_module",
    "exec_module",
    "load_module",
];

/// Sorts dict keys as Python would when they are all integers or all known text; leaves
/// any other mix in its order.
fn sort_keys(keys: &mut [Value]) {
    if keys.iter().all(|k| k.as_int().is_some()) {
        keys.sort_by_key(|k| k.as_int());
    } else if keys.iter().all(|k| k.exact_text().is_some()) {
        keys.sort_by(|a, b| a.exact_text().cmp(&b.exact_text()));
    }
}

/// The last part of a path or URL (`os.path.basename`, `Path.name`); unknown when the
/// path is not known text.
pub(super) fn path_file_name(s: &mut Scanner<'_>, path: &Value) -> Value {
    let Some(text) = path.text() else {
        return Value::unknown(path.taint.data());
    };
    let name = text.rsplit('/').next().unwrap_or(text).to_string();
    path_part(s, path, &name, path.taint.data())
}

/// A call to something the catalog does not know: builtins that pass text through, or
/// an unknown function whose result carries its inputs' data taint.
pub(super) fn plain_call<'a>(
    s: &mut Scanner<'a>,
    callee: &Value,
    args: &Args<'a>,
    at: u32,
) -> Value {
    if let Kind::Function(index) = callee.kind {
        return s.call_function(index, &args.positional, &args.keywords);
    }
    if callee.taint.has(Taint::LIBC) {
        // `f = libc.unlink; f(path)`, `libc["fork"]()`: a libc function by its name (an
        // unknown one when the name is not).
        libc_call(s, callee.exact_text().unwrap_or(""), args, at);
        return Value::UNKNOWN;
    }
    if let Kind::Class(class) = callee.kind {
        // Instantiating runs `__init__` with the new instance as `self`; a record class
        // keeps the values its fields are given.
        let mut fields = s.record_fields(class, args);
        if let Some(value) = s.builtin_value(class, args, at) {
            fields.push((BUILTIN_VALUE.into(), value));
        }
        let mut instance = Value::instance(class, fields);
        if let Some(init) = s.method_of(class, "__init__") {
            let before = s.take_instance_attributes(class);
            let mut positional = vec![instance.clone()];
            positional.extend(args.positional.iter().cloned());
            s.call_function(init, &positional, &args.keywords);
            instance = s.keep_init_attributes(class, instance, before);
        }
        if let Some(api) = s.server_api_of(class) {
            apply(s, api, args, at);
        }
        s.note_finalizer(class, &instance);
        return instance;
    }
    if let Kind::Instance(class, _) = callee.kind {
        // Calling an instance runs its class's `__call__` with the instance as `self`.
        if let Some(call) = s.method_of(class, "__call__") {
            let mut positional = vec![callee.clone()];
            positional.extend(args.positional.iter().cloned());
            return s.call_function(call, &positional, &args.keywords);
        }
    }
    let first = args.positional.first();
    match (callee.qualified_name(), first) {
        // `bytearray(1 << 28)`, `os.urandom(2**24)`: a megabyte or more at once.
        (
            Some(
                "builtins.bytes"
                | "builtins.bytearray"
                | "os.urandom"
                | "secrets.token_bytes"
                | "numpy.zeros"
                | "numpy.ones"
                | "numpy.empty",
            ),
            Some(Value {
                kind: Kind::Int(size),
                ..
            }),
        ) => match *size >= BIG_BYTES {
            true => Value::unknown(Taint::BIG),
            false => Value::UNKNOWN,
        },
        (Some("builtins.bytes" | "builtins.bytearray"), Some(first)) if first.items().is_some() => {
            bytes_of_ints(s, first)
        }
        // `array.array("B", codes)`: bytes made of those numbers (`.tobytes()` gives them).
        (Some("array.array"), Some(code)) if matches!(code.exact_text(), Some("B" | "b")) => {
            match args.positional.get(1) {
                Some(codes) if codes.items().is_some() => bytes_of_ints(s, codes),
                Some(codes) => Value::unknown(codes.deep_taint().data().with(Taint::DECODED)),
                None => Value::UNKNOWN,
            }
        }
        // `bytes(a ^ b for a, b in zip(data, cycle(key)))`: bytes made of numbers computed
        // at run time, the way ciphers hide a payload.
        (Some("builtins.bytes" | "builtins.bytearray"), Some(first))
            if matches!(first.kind, Kind::Unknown) =>
        {
            Value::unknown(first.deep_taint().data().with(Taint::DECODED))
        }
        // `textwrap.dedent(code)`, `inspect.cleandoc(doc)`, `inspect.getdoc(function)`:
        // code kept indented in a string or a docstring, as it will run.
        (Some(name @ ("textwrap.dedent" | "inspect.cleandoc")), Some(first)) => {
            // Rewriting the text is charged to the walk's budget, as slices are.
            s.work += first.exact_text().map_or(0, |t| t.len() / 64);
            match first.exact_text().filter(|_| s.has_budget()) {
                Some(text) if name == "textwrap.dedent" => {
                    text_value(s, &fold::dedent(text), first.taint)
                }
                Some(text) => text_value(s, &fold::cleandoc(text), first.taint),
                None => first.clone(),
            }
        }
        (Some("inspect.getdoc"), Some(first)) => {
            let doc = s.attribute(first, "__doc__");
            s.work += doc.exact_text().map_or(0, |t| t.len() / 64);
            match doc.exact_text().filter(|_| s.has_budget()) {
                Some(text) => text_value(s, &fold::cleandoc(text), doc.taint),
                None => Value::UNKNOWN,
            }
        }
        // `str(x)`, `repr(x)`, `format(x)` of an instance: what its `__str__`... returns.
        (
            Some(name @ ("builtins.str" | "builtins.repr" | "builtins.format" | "builtins.bytes")),
            Some(first),
        ) if matches!(first.kind, Kind::Instance(..)) => {
            let dunder = match name {
                "builtins.repr" => "__repr__",
                "builtins.format" => "__format__",
                "builtins.bytes" => "__bytes__",
                _ => "__str__",
            };
            s.as_text(first.clone(), dunder)
        }
        (
            Some(
                "builtins.str" | "builtins.bytes" | "builtins.bytearray" | "io.BytesIO"
                | "io.StringIO" | "shlex.quote" | "string.Template" | "sqlalchemy.text",
            ),
            Some(first),
        ) => first.clone(),
        // `shlex.join(argv)`: the command line, each argument quoted as a shell needs.
        (Some("shlex.join"), Some(first)) if first.items().is_some() => {
            super::process_calls::command_line(s, first)
        }
        // `list("odus")`: the characters of known text.
        (Some("builtins.list" | "builtins.tuple"), Some(first))
            if first
                .exact_text()
                .is_some_and(|t| t.chars().count() <= MAX_FOLDED_ITEMS) =>
        {
            let chars = first.exact_text().unwrap_or_default().chars();
            let items = chars
                .map(|c| text_value(s, &c.to_string(), first.taint))
                .collect();
            s.folder.seq(items)
        }
        // `sorted(table)`, `list(table)` of a dict: its keys (sorted when they are all
        // numbers or all known text).
        (Some(name @ ("builtins.list" | "builtins.tuple" | "builtins.sorted")), Some(first))
            if matches!(first.kind, Kind::Dict(_)) =>
        {
            let mut keys = first.iterated().unwrap_or_default();
            if name == "builtins.sorted" {
                sort_keys(&mut keys);
            }
            s.folder.seq(keys)
        }
        // `list(xs)`, `tuple(xs)`, `sorted(xs)`, `set(xs)`: the same items.
        (
            Some(
                "builtins.list" | "builtins.tuple" | "builtins.sorted" | "builtins.set"
                | "builtins.frozenset",
            ),
            Some(first),
        ) if first.items().is_some()
            || first.taint.has(Taint::LISTING.with(Taint::FOREIGN_PROCESS)) =>
        {
            first.clone()
        }
        // `asdict(record)`: a dict of its fields.
        (Some("dataclasses.asdict"), Some(first)) => s
            .record_as_dict(first)
            .unwrap_or_else(|| Value::unknown(first.deep_taint().data())),
        // `@dataclass(frozen=True)` is the decorator `@dataclass` with options.
        (Some("dataclasses.dataclass"), None) => callee.clone(),
        // `field(default_factory=list)`: the class's default is what the factory makes.
        (Some("dataclasses.field"), _) => match args.keyword("default_factory").cloned() {
            Some(factory) => call_indirect(s, &factory, Vec::new(), at),
            None => args.keyword("default").cloned().unwrap_or(Value::UNKNOWN),
        },
        // `dict(defaults, extra=value)`: a copy, with the keywords added.
        (Some("builtins.dict"), Some(first)) if matches!(first.kind, Kind::Dict(_)) => {
            let keywords = Args {
                positional: Vec::new(),
                keywords: args.keywords.clone(),
            };
            s.filled(first, "update", &keywords)
                .unwrap_or_else(|| first.clone())
        }
        // `dict(zip(keys, values))`, `dict([("a", f)])`: pairs with known keys.
        (Some("builtins.dict"), Some(first)) if first.items().is_some() => {
            let pairs: Option<Vec<(Value, Value)>> = first
                .items()
                .unwrap_or_default()
                .iter()
                .map(|pair| match pair.items() {
                    Some([key, value]) if key.is_constant() => Some((key.clone(), value.clone())),
                    _ => None,
                })
                .collect();
            match pairs {
                Some(pairs) => Value::bounded_dict(pairs),
                None => Value::unknown(first.deep_taint().data()),
            }
        }
        // `zip(a, b)` of known lists: the tuples of their items, as long as the shortest.
        (Some("builtins.zip"), Some(_)) if args.positional.iter().all(|a| a.items().is_some()) => {
            let lists: Vec<&[Value]> = args.positional.iter().filter_map(Value::items).collect();
            let shortest = lists.iter().map(|l| l.len()).min().unwrap_or(0);
            let tuples = (0..shortest)
                .map(|i| s.folder.seq(lists.iter().map(|l| l[i].clone()).collect()))
                .collect();
            s.folder.seq(tuples)
        }
        // `enumerate(known list[, start])`: its items paired with their counts.
        (Some("builtins.enumerate"), Some(first))
            if first
                .items()
                .is_some_and(|items| items.len() <= MAX_ENUMERATED) =>
        {
            let start = args.get(1, "start").and_then(Value::as_int).unwrap_or(0);
            let pairs = first
                .iterated()
                .unwrap_or_default()
                .into_iter()
                .zip(0i64..)
                .map(|(item, n)| {
                    s.folder
                        .seq(vec![Value::int(start.saturating_add(n)), item])
                })
                .collect();
            s.folder.seq(pairs)
        }
        (Some("builtins.enumerate"), Some(first)) => first.clone().tainted(Taint::COUNTED),
        // `dict()`, `dict(run=os.system)`, `list()`: containers to be filled.
        // `OrderedDict()`, `defaultdict(list)` too: dicts filled like any other.
        (Some("builtins.dict" | "collections.OrderedDict"), None) => {
            let empty = Value::bounded_dict(Vec::new());
            s.filled(&empty, "update", args).unwrap_or(empty)
        }
        (Some("collections.defaultdict"), _) => Value::bounded_dict(Vec::new()),
        (Some("builtins.list"), None) => s.folder.seq(Vec::new()),
        // A deque without `maxlen` keeps all it is given, as a list does (one with a
        // `maxlen` drops its oldest items, so it is no list that only grows).
        (Some("collections.deque"), None) if args.keyword("maxlen").is_none() => {
            s.folder.seq(Vec::new())
        }
        (Some("builtins.range"), _) => range(&args.positional),
        (Some("shlex.split"), Some(first)) => match first.exact_text() {
            Some(text) => {
                let words = fold::shell_words(text);
                let words = words
                    .iter()
                    .map(|w| text_value(s, w, first.taint))
                    .collect();
                s.folder.seq(words)
            }
            None => Value::unknown(first.deep_taint().data()),
        },
        (Some("itertools.count" | "itertools.cycle"), _) => iterations(Some(ENDLESS)),
        (Some("itertools.product"), _) if args.keywords.is_empty() => product(s, &args.positional),
        // `chain(a, b, c)` of known lists: one list of all their items.
        (Some("itertools.chain"), _)
            if !args.positional.is_empty()
                && args.positional.iter().all(|a| a.items().is_some()) =>
        {
            let items = args
                .positional
                .iter()
                .flat_map(|a| a.items().unwrap_or_default().iter().cloned())
                .collect();
            Value::bounded_seq(items)
        }
        // `json.loads('{"module": "subprocess", ...}')`: data kept as JSON text is the
        // same data once parsed.
        (Some("json.loads"), Some(first)) if first.exact_text().is_some() => {
            match serde_json::from_str(first.exact_text().unwrap_or_default()) {
                Ok(json) => json_value(s, &json, 0).tainted(first.taint.data()),
                Err(_) => Value::unknown(first.taint.data()),
            }
        }
        // A start-method context has the module's `Process`, `Pool` and `Queue`.
        (Some("multiprocessing.get_context"), _) => Value::name("multiprocessing"),
        // A console of the library: its `push` and `runsource` run Python.
        (Some("code.InteractiveConsole" | "code.InteractiveInterpreter"), _) => {
            Value::name("code.InteractiveConsole")
        }
        // `iter(int, 1)`: a callable that always returns its empty value never meets a
        // sentinel that differs from it.
        (Some("builtins.iter"), Some(callable))
            if args.positional.len() == 2 && returns_empty_value(callable) =>
        {
            let sentinel = &args.positional[1];
            let empty = sentinel.as_int() == Some(0) || sentinel.exact_text() == Some("");
            iterations(
                (!empty && (sentinel.as_int().is_some() || sentinel.exact_text().is_some()))
                    .then_some(ENDLESS),
            )
        }
        // `takewhile(lambda _: True, it)` is `it`: a predicate that always holds stops nothing.
        (Some("itertools.takewhile"), Some(predicate))
            if args.positional.len() == 2 && is_callable(predicate) =>
        {
            let iterable = args.positional[1].clone();
            let holds = call_indirect(s, predicate, vec![iterable.element()], at);
            match holds.as_int() {
                Some(n) if n != 0 => iterable,
                _ => Value::unknown(args.data_taint()),
            }
        }
        // `iter(lambda: resp.read(65536), b"")`: what each call of the function returns.
        (Some("builtins.iter"), Some(callable))
            if args.positional.len() == 2 && is_callable(callable) =>
        {
            collection_of(call_indirect(s, callable, Vec::new(), at))
        }
        (Some("builtins.iter"), Some(first)) if args.positional.len() == 1 => first.clone(),
        // `next(it, default)`: the first item, or the default when there is none.
        (Some("builtins.next"), Some(first)) => {
            let item = match (first.items(), s.member_of(first, "__next__")) {
                // An iterator of the program's own: its `__next__` runs.
                (_, Some(next)) => call_indirect(s, &next, Vec::new(), at),
                (Some([head, ..]), _) => head.clone(),
                // One host of a network (`next(net.hosts())`) is one address, no sweep.
                _ => one_address(first.element()),
            };
            match args.positional.get(1) {
                Some(default) => either(Value::UNKNOWN, item, default.clone()),
                None => item,
            }
        }
        (Some("itertools.repeat"), _) => match args.get(1, "times") {
            Some(times) => iterations(times.as_int()),
            None => iterations(Some(ENDLESS)),
        },
        // `filter(None, items)`: the items that are not empty.
        (
            Some("builtins.filter"),
            Some(Value {
                kind: Kind::NoneValue,
                ..
            }),
        ) => {
            let items = args.positional.get(1).cloned().unwrap_or(Value::UNKNOWN);
            match items.items() {
                Some(list) => {
                    let kept = list.iter().filter(|item| item.exact_text() != Some(""));
                    let kept = kept.cloned().collect();
                    s.folder.seq(kept)
                }
                None => items,
            }
        }
        (Some("builtins.map" | "builtins.filter" | "itertools.filterfalse"), Some(function))
            if is_callable(function) && function.qualified_name() != Some("builtins.chr") =>
        {
            let items = args.positional.get(1).cloned().unwrap_or(Value::UNKNOWN);
            let filters = callee.qualified_name() != Some("builtins.map");
            // `map` gives what each call returns; `filter` the items it keeps.
            let endless = items.length() == Some(ENDLESS);
            match items
                .items()
                .filter(|list| list.len() <= MAX_MAPPED_ITEMS && !endless)
            {
                Some(list) => {
                    let results = list
                        .iter()
                        .map(|item| call_indirect(s, function, vec![item.clone()], at))
                        .collect();
                    match filters {
                        true => items.clone(),
                        false => s.folder.seq(results),
                    }
                }
                None if endless => {
                    // Over an endless iterator the function is called in a loop that never
                    // ends, and what `map` gives never ends either.
                    s.enter_loop(Some(ENDLESS));
                    let result = call_indirect(s, function, vec![items.element()], at);
                    s.leave_loop();
                    match filters {
                        true => items,
                        false => collection_of(result).tainted(Taint::ENDLESS_ITERATOR),
                    }
                }
                None => {
                    let result = call_indirect(s, function, vec![items.element()], at);
                    match filters {
                        true => items,
                        false => collection_of(result),
                    }
                }
            }
        }
        (Some("builtins.map"), Some(function)) => map_call(s, function, args.positional.get(1)),
        // `x = property(lambda self: ...)` in a class: reading `x` runs the function.
        (Some("builtins.property"), Some(first)) => {
            if let Kind::Function(index) = first.kind {
                s.properties.insert(index);
            }
            first.clone()
        }
        // `run = staticmethod(exec)` in a class: the callable itself, not bound to the
        // instance it is reached through (a function of the program's is wrapped so that
        // it is not; `classmethod(f)` is taken as the method `f`).
        (Some("builtins.staticmethod"), Some(first)) if matches!(first.kind, Kind::Function(_)) => {
            Value {
                kind: Kind::Partial(std::rc::Rc::new((first.clone(), Vec::new()))),
                taint: Taint::NONE,
            }
        }
        (Some("builtins.staticmethod" | "builtins.classmethod"), Some(first)) => first.clone(),
        // `object.__getattribute__(self, "name")` is `self.name`.
        (Some("builtins.object.__getattribute__"), Some(first)) => {
            match args.positional.get(1).and_then(Value::exact_text) {
                Some(name) => s.attribute(first, name),
                None => Value::unknown(first.deep_taint().data()),
            }
        }
        // `operator.getitem(obj, k)` is `obj[k]`; `setitem` and `delitem` run the class's
        // item methods as `obj[k] = v` and `del obj[k]` do.
        (Some("operator.getitem"), Some(first)) => {
            let key = args.positional.get(1).cloned().unwrap_or(Value::UNKNOWN);
            s.item(first, &key)
        }
        (Some("operator.setitem"), Some(first)) => {
            s.item_method(first, "__setitem__", &args.positional[1..]);
            Value::UNKNOWN
        }
        (Some("operator.delitem"), Some(first)) => {
            s.item_method(first, "__delitem__", &args.positional[1..]);
            Value::UNKNOWN
        }
        // `type(p).write_text(p, ...)`: a path's class is `Path`.
        // `type(self)._engine`: the instance's class.
        (
            Some("builtins.type"),
            Some(Value {
                kind: Kind::Instance(class, _),
                ..
            }),
        ) if args.positional.len() == 1 => Value {
            kind: Kind::Class(*class),
            taint: Taint::NONE,
        },
        (Some("builtins.type"), Some(first)) if first.taint.has(Taint::PATH) => {
            Value::name("pathlib.Path")
        }
        (Some("builtins.ord"), Some(first)) => match first.exact_text().map(str::chars) {
            Some(mut chars) => match (chars.next(), chars.next()) {
                (Some(c), None) => Value::int(c as i64),
                _ => Value::UNKNOWN,
            },
            None => Value::unknown(first.deep_taint().data()),
        },
        (Some("builtins.reversed"), Some(first)) if first.items().is_some() => {
            let mut items = first.items().unwrap_or_default().to_vec();
            items.reverse();
            s.folder.seq(items)
        }
        (Some("builtins.reversed"), Some(first)) => match first.text() {
            Some(text) => {
                let reversed: String = text.chars().rev().collect();
                text_value(s, &reversed, first.taint)
            }
            None => Value::unknown(first.deep_taint().data()),
        },
        (Some("builtins.vars"), Some(first)) => match first.qualified_name() {
            Some(name) => Value::name(&format!("{name}.__dict__")),
            None => Value::UNKNOWN,
        },
        // `print(banner)`: what the instance's `__str__` returns is what is printed.
        (Some("builtins.print"), _) => {
            for value in &args.positional {
                if let Kind::Instance(..) = value.kind {
                    s.as_text(value.clone(), "__str__");
                }
            }
            Value {
                kind: Kind::NoneValue,
                taint: Taint::NONE,
            }
        }
        (Some("builtins.globals"), None) => Value::name("builtins.__dict__"),
        // `setattr(cls, "do_GET", handle)`: the class has that method from now on.
        (Some("builtins.setattr"), Some(object)) => {
            if let (Kind::Class(class), Some(name), Some(value)) = (
                &object.kind,
                args.positional.get(1).and_then(Value::exact_text),
                args.positional.get(2),
            ) {
                s.set_class_member(*class, name, value.clone());
            }
            Value::UNKNOWN
        }
        (Some("builtins.str.maketrans" | "builtins.bytes.maketrans"), _) => {
            super::methods::maketrans(s, &args.positional)
        }
        // `reduce(getattr, ["path", "join"], os)` is `os.path.join`.
        (Some("functools.reduce"), Some(function))
            if function.qualified_name() == Some("builtins.getattr") =>
        {
            let names = args.positional.get(1).and_then(Value::items).unwrap_or(&[]);
            let mut value = args.positional.get(2).cloned().unwrap_or(Value::UNKNOWN);
            for name in names {
                value = match (name.exact_text(), value.qualified_name()) {
                    (Some(attr), Some(_)) => s.attribute(&value, attr),
                    _ => Value::UNKNOWN,
                };
            }
            value
        }
        // `reduce(lambda acc, f: f(acc), [b64decode, bytes.decode], data)`: each step is a
        // call of the function on what the last one gave and the next item.
        (Some("functools.reduce"), Some(function)) if is_callable(function) => {
            let Some(items) = args.positional.get(1).and_then(Value::items) else {
                // Items known only at run time: the function still runs on one of them
                // (`reduce(lambda n, p: n + stop(p), process_iter(), 0)`); the result is
                // not known, but it is made of them (`reduce(add, (chr(c) for c in
                // codes), "")` is decoded text).
                let iterable = args.positional.get(1).cloned().unwrap_or(Value::UNKNOWN);
                let start = args.positional.get(2).cloned();
                let start = start.unwrap_or_else(|| iterable.element());
                let step = call_indirect(s, function, vec![start, iterable.element()], at);
                return Value::unknown(args.data_taint().with(step.deep_taint().data()));
            };
            let mut items = items.iter().take(MAX_MAPPED_ITEMS).cloned();
            let first = args.positional.get(2).cloned().or_else(|| items.next());
            let mut value = first.unwrap_or(Value::UNKNOWN);
            for item in items {
                value = call_indirect(s, function, vec![value, item], at);
            }
            value
        }
        _ => Value::unknown(args.data_taint().with(callee.taint.data())),
    }
}

/// `range(stop)`, `range(start, stop[, step])` of known integers: how many items.
fn range(args: &[Value]) -> Value {
    let ints: Option<Vec<i64>> = args.iter().map(Value::as_int).collect();
    let length = match ints.as_deref() {
        Some(&[stop]) => Some(stop.max(0)),
        Some(&[start, stop]) => stop.checked_sub(start).map(|n| n.max(0)),
        Some(&[start, stop, step]) if step != 0 => stop
            .checked_sub(start)
            .and_then(|span| span.checked_add(step - step.signum()))
            .and_then(|n| n.checked_div(step))
            .map(|n| n.max(0)),
        _ => None,
    };
    iterations(length)
}

/// An iterator of `length` items (unknown when `None`).
fn iterations(length: Option<i64>) -> Value {
    match length {
        Some(n) => Value {
            kind: Kind::Range(n),
            taint: Taint::NONE,
        },
        None => Value::UNKNOWN,
    }
}

/// `bytes([105, 109, ...])`: a list of known byte values is text spelled as numbers,
/// which is an encoding like any other.
fn bytes_of_ints(s: &mut Scanner<'_>, list: &Value) -> Value {
    let items = list.items().unwrap_or(&[]);
    let bytes: Option<Vec<u8>> = items
        .iter()
        .map(|v| v.as_int().and_then(|i| u8::try_from(i).ok()))
        .collect();
    match bytes.map(String::from_utf8) {
        Some(Ok(text)) => text_value(s, &text, Taint::DECODED),
        _ => Value::unknown(list.deep_taint().data().with(Taint::DECODED)),
    }
}

/// Deepest JSON nesting turned into values; deeper parts are unknown.
const MAX_JSON_DEPTH: usize = 8;

/// A parsed JSON document as the value Python's `json.loads` gives.
fn json_value(s: &mut Scanner<'_>, json: &serde_json::Value, depth: usize) -> Value {
    use serde_json::Value as Json;
    if depth > MAX_JSON_DEPTH {
        return Value::UNKNOWN;
    }
    match json {
        Json::String(text) => s.folder.literal(text),
        Json::Number(n) => n.as_i64().map_or(Value::UNKNOWN, Value::int),
        Json::Bool(b) => Value::int(i64::from(*b)),
        Json::Null => Value {
            kind: Kind::NoneValue,
            taint: Taint::NONE,
        },
        Json::Array(items) => {
            let items = items.iter().map(|i| json_value(s, i, depth + 1)).collect();
            s.folder.seq(items)
        }
        Json::Object(pairs) => {
            let pairs = (pairs.iter())
                .map(|(k, v)| (s.folder.literal(k), json_value(s, v, depth + 1)))
                .collect();
            Value::bounded_dict(pairs)
        }
    }
}

/// `itertools.product(a, b, ...)` of known lists: every combination, as tuples, while
/// there are at most `MAX_MAPPED_ITEMS` of them.
fn product(s: &mut Scanner<'_>, lists: &[Value]) -> Value {
    let unknown = || {
        let taint = lists
            .iter()
            .fold(Taint::NONE, |t, l| t.with(l.deep_taint().data()));
        Value::unknown(taint)
    };
    if lists.len() > MAX_MAPPED_ITEMS {
        return unknown();
    }
    let mut combinations: Vec<Vec<Value>> = vec![Vec::new()];
    for list in lists {
        let Some(items) = list.items() else {
            return unknown();
        };
        if combinations.len().saturating_mul(items.len()) > MAX_MAPPED_ITEMS {
            return unknown();
        }
        combinations = combinations
            .iter()
            .flat_map(|c| {
                items
                    .iter()
                    .map(move |i| [c.as_slice(), std::slice::from_ref(i)].concat())
            })
            .collect();
    }
    let tuples = combinations.into_iter().map(|c| s.folder.seq(c)).collect();
    s.folder.seq(tuples)
}

/// `map(f, items)`: folds `map(chr, codes)`; other functions pass their inputs' taint on.
fn map_call(s: &mut Scanner<'_>, function: &Value, items: Option<&Value>) -> Value {
    let items = items.cloned().unwrap_or(Value::UNKNOWN);
    if function.qualified_name() != Some("builtins.chr") {
        return Value::unknown(items.deep_taint().data());
    }
    let Some(list) = items.items() else {
        return Value::unknown(items.deep_taint().data().with(Taint::DECODED));
    };
    let chars = list.iter().map(|code| chr(s, code)).collect();
    s.folder.seq(chars)
}

/// `chr(i)`: a known code point is one character; either way the text is decoded from
/// numbers, so code built from it counts as decoded.
fn chr(s: &mut Scanner<'_>, code: &Value) -> Value {
    let decoded = code.deep_taint().data().with(Taint::DECODED);
    match code
        .as_int()
        .and_then(|i| u32::try_from(i).ok())
        .and_then(char::from_u32)
    {
        Some(c) => text_value(s, c.encode_utf8(&mut [0; 4]), decoded),
        None => Value::unknown(decoded),
    }
}

pub(super) fn apply(s: &mut Scanner<'_>, api: Api, args: &Args<'_>, at: u32) -> Value {
    let taint = args.data_taint();
    match api {
        Api::CodeExec => code_exec(s, args, at),
        Api::HostRange => Value::unknown(args.data_taint().with(Taint::HOST_RANGE)),
        Api::PodSpec => {
            let on = |name: &str| args.keyword(name).and_then(Value::as_int) == Some(1);
            let host_namespace = ["privileged", "host_pid", "host_network", "host_ipc"]
                .iter()
                .any(|name| on(name));
            let node_root = args
                .get(0, "path")
                .and_then(Value::exact_text)
                .is_some_and(|path| path == "/" || super::paths::normalize(path).is_escape());
            if host_namespace || node_root {
                hit(s, rules::CONTAINER_ESCAPE, at, Confidence::High);
            }
            Value::UNKNOWN
        }
        Api::ZoneTransfer => {
            network(s, at);
            hit(s, rules::NETWORK_SCAN, at, Confidence::High);
            Value::unknown(Taint::NETWORK)
        }
        Api::Interact => {
            if let Some(read) = args.get(1, "readfunc").cloned() {
                let prompt = s.folder.literal(">>> ");
                let line = call_value(s, &read, Args::one(prompt), at);
                run_console_line(s, line, at);
            }
            Value::UNKNOWN
        }
        Api::Operator(op) => match (args.positional.first(), args.positional.get(1)) {
            (Some(left), Some(right)) => s.binary(left.clone(), op, right.clone()),
            _ => Value::unknown(taint),
        },
        Api::Compile => {
            // Compiling run-time source runs nothing (a syntax check); running the code
            // object is what `exec` and `eval` are checked for.
            let source = args.get(0, "source");
            let hidden = taint.has(Taint::DECODED.with(Taint::NETWORK));
            // The code object keeps what is known of its source, for `exec` to read.
            match source.filter(|v| v.exact_text().is_none() && !hidden) {
                Some(source) => source.clone(),
                None => code_exec(s, args, at),
            }
        }
        Api::RunPath => {
            let path = args.get(0, "path_name").cloned().unwrap_or(Value::UNKNOWN);
            run_file(s, &path, at);
            Value::UNKNOWN
        }
        Api::ImportByName { top_level } => {
            // `__import__("http.client", fromlist=[...])` gives the submodule itself.
            let from_list = args
                .get(3, "fromlist")
                .is_some_and(|list| list.items().is_none_or(|items| !items.is_empty()));
            import_by_name(s, args, top_level && !from_list, at)
        }
        Api::GetAttr => get_attr(s, args, at),
        Api::Shell => {
            let command = args.get(0, "cmd").or(args.keyword("command")).cloned();
            run_command(s, command.as_ref(), true, at);
            if let Some(command) = &command {
                s.note_program_start(command, at);
            }
            child_process(s, command.as_ref(), Taint::CHILD)
        }
        Api::Process => process(s, args, at),
        Api::ProcessArgs => {
            let command = s.folder.seq(args.positional.clone());
            run_command(s, Some(&command), false, at);
            s.note_program_start(&command, at);
            child_process(s, Some(&command), Taint::CHILD)
        }
        Api::ImportPath => {
            // A folder known only at run time (`mkdtemp()`) may be where a module was
            // downloaded to (`<?>/helper.py`).
            let downloaded = args.positional.last().is_some_and(|path| {
                let path = path.text().unwrap_or(UNKNOWN_PART_STR);
                s.caps.is_downloaded(path)
                    || s.caps.is_download_dir(path)
                    || s.caps.holds_downloaded_module(path)
            });
            if downloaded {
                s.caps.downloaded_import_path.get_or_insert(at);
            }
            Value::UNKNOWN
        }
        Api::FileInput => {
            let files = args.get(0, "files").cloned().unwrap_or(Value::UNKNOWN);
            let paths = files
                .items()
                .map_or_else(|| vec![files.clone()], <[Value]>::to_vec);
            // `inplace=True`: what the loop prints replaces each file.
            let inplace = args
                .get(1, "inplace")
                .and_then(Value::as_int)
                .is_some_and(|n| n != 0);
            let mode = inplace.then_some("r+");
            let mut read = Taint::NONE;
            for path in paths.iter().filter(|p| p.text().is_some()) {
                read = read.with(open_file(s, path, mode, at).taint.data());
            }
            Value::unknown(read)
        }
        Api::ImportHook => {
            if let Some(finder) = args.positional.last() {
                for hook in IMPORT_HOOKS {
                    if let Some(method) = s.member_of(finder, hook) {
                        call_indirect(s, &method, vec![Value::UNKNOWN], at);
                    }
                }
            }
            Value::UNKNOWN
        }
        Api::KeyFile { positional } => {
            let path = match positional {
                true => args.get(0, "filename"),
                false => args.keyword("filename"),
            };
            let Some(path) = path else {
                return Value::UNKNOWN;
            };
            // A key is the program's to present to its SSH host, as `connect(key_filename=
            // ...)` does: followed as a credential (sending it elsewhere still leaks), not
            // as a secret read that any network use would leak. Keys found by listing a
            // folder (or by a glob, `id_*`) are every key the user has: reading them is
            // reading credentials.
            let found = path.text().is_none_or(|p| p.contains(UNKNOWN_PART));
            if path
                .text()
                .is_some_and(|p| super::paths::normalize(p).is_secret())
            {
                s.caps.key_loaded.get_or_insert(at);
            }
            let noted = s.caps.secret_read;
            let read = match found {
                true => open_file(s, &path.clone(), None, at),
                false => Value::unknown(path.taint.data()),
            };
            s.caps.secret_read = noted;
            Value::unknown(
                read.taint
                    .data()
                    .without(Taint::SECRET)
                    .with(Taint::CREDENTIAL),
            )
        }
        Api::OpenDatabase => {
            let Some(path) = args.get(0, "database").and_then(Value::text) else {
                return Value::UNKNOWN;
            };
            // `file:/path/db.sqlite?mode=ro`: the file is the URI's path.
            let file = path.strip_prefix("file:").unwrap_or(path);
            let file = file.split('?').next().unwrap_or(file).to_string();
            let file_value = text_value(s, &file, Taint::NONE);
            let read = open_file(s, &file_value, None, at);
            Value::unknown(read.taint.data().with(found_database(&file)))
        }
        Api::DatabaseServer => {
            // Known to be another host's (`db.prod.example`, a DSN naming it): foreign.
            // No address (the local socket), a name the environment gives, or a
            // one-word service name (`db`, a compose service) is not known to be.
            let address = ["dsn", "url", "host", "conninfo", "name_or_url"]
                .iter()
                .find_map(|k| args.keyword(k))
                .or(args.positional.first())
                .and_then(Value::text);
            match address.and_then(database_host) {
                Some(host) if !names_this_machine(host) && host.contains('.') => {
                    network(s, at);
                    Value::unknown(Taint::FOREIGN_DATABASE.with(Taint::NETWORK))
                }
                _ => Value::UNKNOWN,
            }
        }
        Api::Unpack => {
            let archive = args.get(0, "filename");
            let fetched = archive.is_some_and(|a| {
                a.deep_taint().has(Taint::NETWORK)
                    || a.text().is_some_and(|t| s.caps.is_downloaded(t))
            });
            if fetched {
                let dir = args
                    .get(1, "extract_dir")
                    .and_then(Value::text)
                    .unwrap_or(".");
                s.caps.note_unpacked(dir);
            }
            Value::UNKNOWN
        }
        Api::ExecProgram { replaces } => {
            let command = exec_program_argv(s, args);
            run_command(s, Some(&command), false, at);
            if !replaces {
                s.note_program_start(&command, at);
            }
            Value::unknown(Taint::CHILD)
        }
        Api::PtySpawn => {
            s.caps.shell_wiring.push(at);
            run_command(s, args.get(0, "argv"), false, at);
            Value::UNKNOWN
        }
        Api::Dup2 => {
            s.caps.shell_wiring.push(at);
            Value::UNKNOWN
        }
        Api::Decode(encoding) => decode(s, args, encoding, taint),
        Api::Encode => match args.get(1, "encoding").and_then(Value::exact_text) {
            Some(codec) if codec.to_ascii_lowercase().starts_with("rot") => {
                decode(s, args, fold::Encoding::HexOrBase64, taint)
            }
            Some("base64" | "base_64" | "base64_codec") => encode(s, args, false),
            Some("hex" | "hex_codec") => encode(s, args, true),
            _ => Value::unknown(args.data_taint()),
        },
        Api::EncodeAs { hex } => encode(s, args, hex),
        Api::Decompress(format) => {
            let data = args.get(0, "data").and_then(Value::exact_text);
            let bytes = data.and_then(|data| decompress(s, format, data));
            decoded_value(s, bytes, taint)
        }
        Api::Fetch => {
            network(s, at);
            send_out(s, args, at, Sending::Request);
            Value::unknown(Taint::NETWORK.with(request_to(s, requested_url(args), at)))
        }
        Api::UrlJoin => url_join(s, args),
        Api::Object(name) => Value::name(name),
        Api::LogShipper => {
            let address = args.positional.first().or(args.keyword("address"));
            let address = address
                .or(args.keyword("host"))
                .or(args.keyword("mailhost"));
            let host = address.map(|a| a.items().and_then(<[Value]>::first).unwrap_or(a));
            // `SysLogHandler()` logs to this machine (`("localhost", 514)`, `/dev/log`).
            let remote = host
                .and_then(Value::text)
                .is_some_and(|h| !names_this_machine(h));
            if remote {
                network(s, at);
                s.caps.remote_log.get_or_insert(at);
            }
            Value::UNKNOWN
        }
        Api::LogRecord => {
            log_record(s, args, at);
            Value::UNKNOWN
        }
        Api::PortScan => {
            network(s, at);
            hit(s, rules::NETWORK_SCAN, at, Confidence::High);
            Value::UNKNOWN
        }
        Api::CronJob => {
            hit(s, rules::PERSISTENCE, at, Confidence::High);
            // What the job runs, it runs as a command line.
            if let Some(command) = args.get(0, "command") {
                run_command(s, Some(command), true, at);
            }
            Value::UNKNOWN
        }
        Api::ContainerEngine => {
            network(s, at);
            let url = args.get(0, "base_url").and_then(Value::text);
            if url.is_some_and(|u| u.starts_with("tcp://") || u.starts_with("ssh://")) {
                hit(s, rules::CONTAINER_ESCAPE, at, Confidence::High);
            }
            Value::name("docker.DockerClient")
        }
        Api::ContainerRun => {
            if container_given_the_host(args) {
                hit(s, rules::CONTAINER_ESCAPE, at, Confidence::High);
            }
            Value::UNKNOWN
        }
        Api::ContainerOf { many } => {
            let container = Value::name("docker.DockerClient.container");
            match many {
                true => s.folder.seq(vec![container]),
                false => container,
            }
        }
        Api::Download => {
            network(s, at);
            send_out(s, args, at, Sending::Request);
            if let Some(path) = args.get(1, "filename").and_then(Value::text) {
                s.caps.note_written(path, Taint::NETWORK);
            }
            Value::unknown(Taint::NETWORK)
        }
        Api::SocketNew { first_arg } => {
            network(s, at);
            // `socket(AF_PACKET, ...)`, `socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK, ...)`;
            // `fromfd(fd, family, type)` takes them one place later.
            let family = args.get(first_arg, "family").and_then(Value::as_int);
            let kind = args.get(first_arg + 1, "type").and_then(Value::as_int);
            if family == Some(17) || kind.is_some_and(|k| k & 0xf == 3) {
                hit(s, rules::RAW_SOCKET, at, Confidence::High);
            }
            Value::unknown(Taint::SOCKET)
        }
        // A pair of sockets joined to each other: no network, but what passes through
        // them is still a socket's (a shell wired to one is served to the other end).
        Api::SocketPair => Value::unknown(Taint::SOCKET),
        Api::SocketConnect => {
            network(s, at);
            scans(s, args.get(0, "address"), at);
            send_out(s, args, at, Sending::Data);
            s.caps.socket_connect.get_or_insert(at);
            Value::unknown(Taint::SOCKET.with(Taint::NETWORK))
        }
        Api::NetworkClient => {
            network(s, at);
            scans(s, args.positional.first(), at);
            send_out(s, args, at, Sending::Request);
            Value::unknown(Taint::NETWORK)
        }
        Api::Open => {
            let path = args.get(0, "file").cloned().unwrap_or(Value::UNKNOWN);
            let mode = args
                .get(1, "mode")
                .and_then(Value::text)
                .map(str::to_string);
            open_file(s, &path, mode.as_deref(), at)
        }
        Api::PathNew => path_new(s, args),
        Api::PathHome => text_value(s, "~", Taint::PATH),
        Api::PathJoin => join_paths(s, &args.positional, Taint::NONE),
        Api::PathSame => args.positional.first().cloned().unwrap_or(Value::UNKNOWN),
        Api::PathParent => match args.get(0, "p") {
            Some(path) => parent_path(s, path),
            None => Value::UNKNOWN,
        },
        Api::PathFileName => match args.get(0, "p") {
            Some(path) => path_file_name(s, path),
            None => Value::UNKNOWN,
        },
        Api::ReadsFile { default } => {
            let path = match args.get(0, "file") {
                Some(path) => path.clone(),
                None => text_value(s, default, Taint::PATH),
            };
            // `netrc.netrc()`: the logins it holds are credentials, each the program's to
            // present to its host (sending them elsewhere, or all of them, still leaks).
            // They are followed as data, so reading them is not also counted as a secret
            // read that any network use would leak.
            let noted = s.caps.secret_read;
            let read = open_file(s, &path, None, at);
            s.caps.secret_read = noted;
            let credentials = match read.taint.has(Taint::SECRET) {
                true => read.taint.without(Taint::SECRET).with(Taint::CREDENTIAL),
                false => read.taint,
            };
            Value::unknown(credentials)
        }
        Api::Remove { tree } => {
            let access = if tree {
                Access::DeleteTree
            } else {
                Access::Delete
            };
            if let Some(path) = args.get(0, "path").cloned() {
                file_access(s, &path, access, at);
            }
            Value::UNKNOWN
        }
        Api::WriteTo { arg } => {
            if let Some(path) = args.get(arg, "dst").cloned() {
                file_access(s, &path, Access::Write, at);
            }
            if arg == 1 {
                // A copy or move reads its source first, and what it held is at the
                // destination now.
                if let Some(source) = args.get(0, "src").cloned() {
                    file_access(s, &source, Access::Read, at);
                    let destination = args.get(1, "dst").and_then(Value::text);
                    if let (Some(from), Some(to)) = (source.text(), destination) {
                        note_copy(s, from, to);
                    }
                }
            }
            Value::unknown(taint)
        }
        Api::Truncate { descriptor } => {
            let file = args.get(0, "path").cloned().unwrap_or(Value::UNKNOWN);
            if !descriptor {
                file_access(s, &file, Access::Write, at);
            }
            let size = args.get(1, "length").and_then(Value::as_int);
            let writable = !descriptor || file.taint.has(Taint::FILE_WRITE);
            let known = file.exact_text().is_some();
            super::files::overwrite(s, &file, writable && known && size == Some(0), at);
            Value::UNKNOWN
        }
        Api::Chown => {
            let path = args.get(0, "path").cloned().unwrap_or(Value::UNKNOWN);
            file_access(s, &path, Access::Write, at);
            let to_root = match args.get(1, "uid").or(args.keyword("user")) {
                Some(user) => user.as_int() == Some(0) || user.exact_text() == Some("root"),
                None => false,
            };
            if let (true, Some(text)) = (to_root, path.text()) {
                s.caps.note_root_owned(text);
            }
            Value::UNKNOWN
        }
        Api::Chmod => {
            let path = args.get(0, "path").cloned().unwrap_or(Value::UNKNOWN);
            let mode = args.get(1, "mode").and_then(Value::as_int);
            chmod(s, &path, mode, at);
            Value::UNKNOWN
        }
        Api::SetId => {
            hit(s, rules::SET_ID, at, Confidence::High);
            Value::UNKNOWN
        }
        Api::EscapeProbe => {
            hit(s, rules::CONTAINER_ESCAPE, at, Confidence::High);
            Value::UNKNOWN
        }
        Api::Kill => {
            kill(s, args.get(0, "pid"), args.get(1, "signal"), at);
            Value::UNKNOWN
        }
        Api::GetPid => Value::unknown(Taint::OWN_PID),
        Api::PidFd => args.get(0, "pid").cloned().unwrap_or(Value::UNKNOWN),
        Api::GroupOf => match args.get(0, "pid") {
            Some(pid) if pid.taint.has(Taint::OWN_PID) || pid.as_int() == Some(0) => {
                Value::unknown(Taint::OWN_PID)
            }
            _ => Value::UNKNOWN,
        },
        Api::LoadLibrary => load_library(s, args.get(0, "name"), at),
        Api::FindLibrary => match args.get(0, "name").and_then(Value::exact_text) {
            Some("c") => text_value(s, "libc.so.6", Taint::NONE),
            _ => Value::UNKNOWN,
        },
        Api::Prctl => {
            hit(s, rules::CAPABILITIES, at, Confidence::High);
            Value::UNKNOWN
        }
        Api::Deserialize => {
            // Loading back a file this program itself wrote (its cache) is not foreign data.
            // (`joblib.load(path)` takes the path itself.)
            let first = args.positional.first();
            let own_file = first.is_some_and(|v| {
                let own =
                    v.taint.has(Taint::OWN_FILE) || v.text().is_some_and(|p| s.caps.pickled_to(p));
                own && !v.taint.with(taint).has(Taint::NETWORK)
            });
            // A local file: the program's own when it pickles objects to that path, which
            // may come later in the source than the load (`if cache.exists(): return
            // load(...)`). A handle is taken to be of the file last opened for reading.
            let local_file = !taint.has(Taint::NETWORK.with(Taint::DECODED).with(Taint::EXTERNAL));
            // Loads of its own files are noted too: they vouch for the same line walked
            // with its path unknown (a function's body as it is defined).
            if local_file {
                let path = match first.and_then(Value::text) {
                    Some(path) => Some(std::rc::Rc::from(path)),
                    None => s.caps.last_read.clone(),
                };
                if !own_file || path.is_some() {
                    s.caps.note_local_load(at, path);
                }
            } else if !own_file {
                hit(s, rules::UNSAFE_DESERIALIZATION, at, Confidence::High);
            }
            // (Its network check is the one above.)
            if args.positional.first().is_some_and(yaml_calls_function) {
                hit(s, rules::DECODE_EXECUTE, at, Confidence::High);
            }
            if let Some(payload) = args.positional.first().and_then(Value::exact_text) {
                if payload_runs_code(payload) {
                    hit(s, rules::DECODE_EXECUTE, at, Confidence::High);
                }
            }
            if taint.has(Taint::NETWORK) {
                // Unpickling network data runs whatever the server sends.
                hit(s, rules::DOWNLOAD_EXECUTE, at, Confidence::High);
            }
            // Deserialised data is as opaque as decoded data (`exec(marshal.loads(b))`).
            Value::unknown(taint.with(Taint::DECODED))
        }
        Api::Serialize => {
            // `pickle.dump(obj, open(path, "wb"))`: the handle still names its path (a
            // cache's, with its key unknown).
            if let Some(path) = args.get(1, "file").and_then(Value::text) {
                s.caps.note_pickled(path);
            }
            // `pickle.dumps(obj)`: bytes the program may load back as its own.
            Value::unknown(Taint::OWN_FILE)
        }
        Api::YamlLoad => {
            let loader = args.get(1, "Loader").and_then(Value::qualified_name);
            let safe =
                loader.is_some_and(|l| l.ends_with("SafeLoader") || l.ends_with("BaseLoader"));
            if !safe {
                hit(s, rules::UNSAFE_DESERIALIZATION, at, Confidence::High);
            }
            // `FullLoader` builds no objects by calling them; `Loader`/`UnsafeLoader` do.
            if loader.is_some_and(|l| l.ends_with("UnsafeLoader") || l.ends_with(".Loader")) {
                yaml_runs(s, args.get(0, "stream"), at);
            }
            Value::unknown(taint)
        }
        Api::WeakHash => {
            let not_for_security =
                args.keyword("usedforsecurity").and_then(Value::as_int) == Some(0);
            if !not_for_security {
                hit(s, rules::WEAK_HASH, at, Confidence::Low);
            }
            Value::UNKNOWN
        }
        Api::HashNew => {
            let name = args
                .get(0, "name")
                .and_then(Value::exact_text)
                .map(str::to_ascii_lowercase);
            if matches!(name.as_deref(), Some("md5" | "sha1" | "md4")) {
                hit(s, rules::WEAK_HASH, at, Confidence::Low);
            }
            Value::UNKNOWN
        }
        Api::Chr => {
            let code = args.get(0, "i").cloned().unwrap_or(Value::UNKNOWN);
            chr(s, &code)
        }
        Api::Getenv => {
            let value = environment_value(args.get(0, "key"));
            match args.get(1, "default") {
                // `os.environ.get("XDG_CACHE_HOME", "~/.cache")`: unset, it is the default,
                // and that is the path a program meets wherever the variable is not set.
                Some(default) if value.taint.has(Taint::EXTERNAL) && default.text().is_some() => {
                    let default = default.clone();
                    either(Value::UNKNOWN, default, value)
                }
                _ => value,
            }
        }
        Api::LoadSource { arg } => {
            let path = args.get(arg, "path").cloned().unwrap_or(Value::UNKNOWN);
            run_file(s, &path, at);
            Value::UNKNOWN
        }
        Api::Serves { handler, keyword } => {
            network(s, at);
            // Each client is a remote party with a stream in and a stream out.
            s.caps.socket_connect.get_or_insert(at);
            let stream = Value::unknown(Taint::SOCKET.with(Taint::NETWORK));
            match args.get(handler, keyword).cloned() {
                Some(Value {
                    kind: Kind::Class(class),
                    ..
                }) => s.serve_with_handler_class(class, &stream),
                Some(handler) => {
                    call_indirect(s, &handler, vec![stream.clone(), stream], at);
                }
                None => {}
            }
            Value::UNKNOWN
        }
        Api::SecretStore { one } => {
            hit(s, rules::SECRET_READ, at, Confidence::High);
            // One credential looked up is the program's to present, followed as data; a
            // whole store is a secret read, which any network use may leak.
            if !one {
                s.caps.note_secret(at);
            }
            Value::unknown(if one {
                Taint::CREDENTIAL
            } else {
                Taint::SECRET
            })
        }
        Api::OpenUnnamed { mode: mode_arg } => {
            // A temporary file is opened for writing unless told otherwise.
            let mode = match mode_arg {
                Some(arg) => args.get(arg, "mode").and_then(Value::text).unwrap_or("r"),
                None => args.get(0, "mode").and_then(Value::text).unwrap_or("w+b"),
            };
            let mode = mode.to_string();
            // `os.fdopen(fd, "wb")` of a descriptor `mkstemp` or `os.open` gave for
            // writing: that file, by its path.
            let path = match mode_arg {
                Some(_) => args
                    .get(0, "fd")
                    .filter(|fd| fd.taint.has(Taint::FILE_WRITE)),
                None => None,
            };
            open_file(s, path.unwrap_or(&Value::UNKNOWN), Some(&mode), at)
        }
        Api::TempFile => {
            // `fd, path = mkstemp(suffix=".sh")`: a new file in the temporary directory,
            // open for writing, and its path.
            let path = temporary_path(s, args, at);
            let fd = path.clone().tainted(Taint::FILE_WRITE);
            s.folder.seq(vec![fd, path])
        }
        Api::TempDir => temporary_path(s, args, at),
        Api::WriteFd => {
            if let Some(fd) = args
                .get(0, "fd")
                .filter(|fd| fd.taint.has(Taint::FILE_WRITE))
            {
                super::files::written(s, fd, args.data_taint(), at);
            }
            Value::UNKNOWN
        }
        Api::OsOpen => {
            let path = args.get(0, "path").cloned().unwrap_or(Value::UNKNOWN);
            let flags = args.get(1, "flags").and_then(Value::as_int).unwrap_or(0);
            let writes = flags & (O_WRITE_FLAGS) != 0;
            open_file(s, &path, writes.then_some("w"), at)
        }
        Api::Listing { names_only } => {
            surveys_root_home(s, args.get(0, "path"), at);
            listing(s, args.get(0, "path"), names_only)
        }
        Api::Walk => {
            surveys_root_home(s, args.get(0, "top"), at);
            walk(s, args.get(0, "top"))
        }
        Api::ScanDir => {
            surveys_root_home(s, args.get(0, "path"), at);
            let dir = match args.get(0, "path") {
                Some(path) => path.text().unwrap_or(UNKNOWN_PART_STR),
                None => ".",
            };
            let name = super::paths::listed_name(dir);
            let entry = format!("{}/{name}", dir.trim_end_matches('/'));
            text_value(s, &entry, Taint::LISTING)
        }
        Api::Partial => partial(args),
        // `getsitepackages()` is a list and `get_paths()` a mapping: a listing whose
        // elements are that directory.
        Api::SitePackages => text_value(s, "/usr/lib/\u{FFFD}/site-packages", Taint::LISTING),
        Api::ContextManager => match args.positional.first() {
            Some(function) if is_callable(function) => {
                method_partial(CONTEXT_MANAGER, "", vec![function.clone()])
            }
            _ => Value::UNKNOWN,
        },
        Api::ItemGetter => match args.positional.as_slice() {
            [key] => method_partial(ITEM_GETTER, "", vec![key.clone()]),
            _ => Value::UNKNOWN,
        },
        // An assembled name (`attrgetter("".join(parts))`) stays marked as such.
        Api::AttrGetter => match args.positional.first() {
            Some(path) => match path.exact_text() {
                Some(name) => {
                    method_partial(ATTR_GETTER, name, Vec::new()).tainted(assembled(path))
                }
                None => Value::UNKNOWN,
            },
            None => Value::UNKNOWN,
        },
        Api::MethodCaller => match args.positional.split_first() {
            Some((name, bound)) => match name.exact_text() {
                Some(method) => {
                    method_partial(METHOD_CALLER, method, bound.to_vec()).tainted(assembled(name))
                }
                None => Value::UNKNOWN,
            },
            None => Value::UNKNOWN,
        },
        Api::CallsTarget {
            target,
            keyword,
            args: from,
            starts,
        } => {
            let function = args.keyword(keyword).or(args.positional.get(target));
            let given = args.keyword("args").or(args.positional.get(from)).cloned();
            if let Some(function) = function.cloned() {
                let positional = match given {
                    // `atexit.register(f, *args)`: the arguments follow the function.
                    _ if from == 0 => args.positional.iter().skip(target + 1).cloned().collect(),
                    Some(list) => list
                        .items()
                        .map_or_else(|| vec![list.clone()], <[Value]>::to_vec),
                    None => Vec::new(),
                };
                // The target runs in the new thread or process (or later): what it waits
                // for does not make the loop that starts it wait.
                if starts {
                    s.start_target(&function, positional, at);
                } else {
                    s.apart_from_loops(|s| call_indirect(s, &function, positional, at));
                }
            }
            // A process (or thread) it starts is its own: `os.kill(p.pid, SIGTERM)` of a
            // `multiprocessing.Process` signals the program's child.
            match starts {
                true => Value::unknown(Taint::CHILD),
                false => Value::UNKNOWN,
            }
        }
        Api::QueueNew => Value::unknown(Taint::QUEUE),
        Api::Keylogger => {
            hit(s, rules::KEYLOGGER, at, Confidence::High);
            // What is typed holds passwords: sent anywhere, it is exfiltrated.
            s.caps.note_secret(at);
            Value::UNKNOWN
        }
        Api::RawPackets => {
            network(s, at);
            hit(s, rules::RAW_SOCKET, at, Confidence::High);
            // `send(IP(dst=h)/ICMP()/Raw(load=secret))`: the packets carry their payload out.
            send_out(s, args, at, Sending::Data);
            Value::UNKNOWN
        }
        Api::DumpTo => {
            let data = args
                .get(0, "obj")
                .map_or(Taint::NONE, |d| d.deep_taint().data());
            if let Some(file) = args.get(1, "fp").filter(|f| f.taint.has(Taint::FILE_WRITE)) {
                super::files::written(s, file, data, at);
            }
            Value::UNKNOWN
        }
        Api::ProcessList => match asks_for_environ(args) {
            true => foreign_environ(s, Taint::FOREIGN_PROCESS, at),
            false => Value::unknown(Taint::FOREIGN_PROCESS),
        },
        Api::ProcessHandle => match args.get(0, "pid") {
            Some(pid) if !pid.taint.has(Taint::OWN_PID) => Value::unknown(Taint::FOREIGN_PROCESS),
            _ => Value::UNKNOWN,
        },
    }
}

/// `process_iter(["pid", "environ"])`, `proc.as_dict(attrs=["environ"])`: asked for each
/// process's environment.
pub(super) fn asks_for_environ(args: &Args<'_>) -> bool {
    args.get(0, "attrs")
        .and_then(Value::items)
        .is_some_and(|attrs| attrs.iter().any(|a| a.exact_text() == Some("environ")))
}

/// Other processes' environments read (`/proc/<pid>/environ`): their secrets. The value
/// is `object` (processes, or what was read of them) holding them.
pub(super) fn foreign_environ(s: &mut Scanner<'_>, object: Taint, at: u32) -> Value {
    hit(s, rules::SECRET_READ, at, Confidence::High);
    s.caps.note_secret(at);
    Value::unknown(object.with(Taint::SECRET))
}

/// `O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND`: flags that change the file.
const O_WRITE_FLAGS: i64 = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000;

/// `glob.glob("~/.ssh/*")` is a listing whose elements look like `~/.ssh/<?>`;
/// `os.listdir(d)` yields bare names.
/// Listing root's home (`os.listdir("/root")`, `glob("/root/*")`) surveys root's files,
/// as reading one of them does.
fn surveys_root_home(s: &mut Scanner<'_>, dir: Option<&Value>, at: u32) {
    let text = dir.and_then(Value::text).unwrap_or("");
    if text.len() <= super::files::MAX_PATH_BYTES && super::paths::normalize(text).is_root_home() {
        hit(s, rules::SYSTEM_READ, at, Confidence::High);
    }
}

fn listing(s: &mut Scanner<'_>, pattern: Option<&Value>, names_only: bool) -> Value {
    if names_only {
        // Bare names, each only known at run time (a disk's, under `/sys/block`).
        let dir = pattern.and_then(Value::text).unwrap_or(".");
        let name = super::paths::listed_name(dir);
        return text_value(s, name, Taint::LISTING);
    }
    match pattern.and_then(Value::text) {
        Some(text) => {
            let element = text.replace(['*', '?'], &UNKNOWN_PART.to_string());
            text_value(s, &element, Taint::LISTING)
        }
        None => Value::UNKNOWN,
    }
}

/// `os.walk(top)` yields `(dirpath, dirnames, filenames)` with `dirpath` below `top`.
fn walk(s: &mut Scanner<'_>, top: Option<&Value>) -> Value {
    let Some(top) = top.and_then(Value::text) else {
        return Value::UNKNOWN;
    };
    let below = format!("{}/{UNKNOWN_PART}", top.trim_end_matches('/'));
    let dirpath = text_value(s, &below, Taint::NONE);
    // The directory and file names found there: bare names, each only known at run time.
    let names = text_value(s, UNKNOWN_PART_STR, Taint::LISTING);
    let triple = s.folder.seq(vec![dirpath, names.clone(), names]);
    s.folder.seq(vec![triple])
}

/// What the arguments of a call that sends them off the machine are.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Sending {
    /// A request: a URL as first argument and the keywords `headers`, `auth`, `params`,
    /// `cookies` and `url` carry credentials, the rest is data.
    Request,
    /// Only data (a socket's `send`).
    Data,
    /// Only credentials (`login`, `add_header`).
    Credentials,
}

/// HTTP methods, as a request names them before its URL.
const HTTP_METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// Keywords of a request that authenticate it.
const CREDENTIAL_KEYWORDS: &[&str] = &[
    "pkey",
    "key_filename",
    "client_keys",
    "connect_kwargs",
    "password",
    "passphrase",
    "headers",
    "auth",
    "params",
    "cookies",
    "url",
    "additional_headers",
    "extra_headers",
];

/// A call that sends its arguments off the machine: secret or host data among them is
/// exfiltration. One credential from the environment where a request authenticates (its
/// URL, headers, auth, query parameters, a `login`) is the program using it, not a leak;
/// the whole environment or a secret file there still is.
pub(super) fn send_out(s: &mut Scanner<'_>, args: &Args<'_>, at: u32, sending: Sending) {
    // `request("POST", url, body, headers)` (http.client, `requests.request`): the URL
    // comes second, and a fourth argument is the headers.
    let verb = args
        .positional
        .first()
        .and_then(Value::exact_text)
        .is_some_and(|t| HTTP_METHODS.contains(&t));
    let url_at = usize::from(verb);
    // Credentials sent to a bare IP address authenticate to nobody in particular.
    let to_address = args
        .positional
        .get(url_at)
        .and_then(Value::text)
        .is_some_and(url_names_an_address);
    let (mut leaked, mut credentials) = (false, 0);
    // `login(user, password)` and `auth=(user, password)` present one credential.
    let mut login = 0;
    let mut check = |value: &Value, authenticates: bool, one_login: bool| {
        if authenticates && !to_address {
            leaked |= value.deep_taint().has(Taint::SECRET.with(Taint::HOST_DATA));
            match one_login {
                true => login = login.max(credential_count(value).min(1)),
                false => credentials += credential_count(value),
            }
        } else {
            leaked |= carries_secret(value);
        }
    };
    for (i, value) in args.positional.iter().enumerate() {
        let authenticates = match sending {
            // A URL's query authenticates; a host name (a DNS lookup) is data.
            Sending::Request => {
                (i == url_at && value.text().is_some_and(|t| t.contains("://"))) || (verb && i == 3)
            }
            Sending::Data => false,
            Sending::Credentials => true,
        };
        check(value, authenticates, sending == Sending::Credentials);
    }
    for (name, value) in &args.keywords {
        let token_request = sending == Sending::Request
            && matches!(*name, Some("data" | "json"))
            && is_token_request(args.positional.get(url_at), value);
        let authenticates = sending == Sending::Credentials
            || token_request
            || (sending == Sending::Request
                && name.is_some_and(|n| CREDENTIAL_KEYWORDS.contains(&n)));
        let one_login = sending == Sending::Credentials || token_request || *name == Some("auth");
        check(value, authenticates, one_login);
    }
    // One credential authenticates a request; several are being collected.
    if leaked || credentials + login > 1 {
        hit(s, rules::EXFILTRATION, at, Confidence::High);
    }
}

/// An OAuth 2.0 token request (RFC 6749: a `grant_type` field beside the client's secret,
/// a refresh token or a password, posted to a token endpoint): together they are one login
/// to the service.
fn is_token_request(url: Option<&Value>, body: &Value) -> bool {
    let endpoint = url.and_then(Value::text).is_some_and(|u| {
        let u = u.to_ascii_lowercase();
        u.contains("token") || u.contains("oauth")
    });
    // A client's secret with a refresh token or a password; more are being collected.
    endpoint && body.get_text("grant_type").is_some() && credential_count(body) <= 3
}

/// How many separate credentials a value holds (the items of a list or dict each count).
fn credential_count(value: &Value) -> usize {
    match (&value.kind, value.items()) {
        (Kind::Dict(pairs), _) => pairs.iter().map(|(_, v)| credential_count(v)).sum(),
        (_, Some(items)) => items
            .iter()
            .map(|v| usize::from(v.deep_taint().has(Taint::CREDENTIAL)))
            .sum(),
        _ => usize::from(value.deep_taint().has(Taint::CREDENTIAL)),
    }
}

/// Whether a URL's host is an IP address rather than a name (`http://203.0.113.7/c`).
fn url_names_an_address(url: &str) -> bool {
    let Some((_, rest)) = url.split_once("://") else {
        return false;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.split(':').next().unwrap_or(""),
    };
    host.parse::<std::net::IpAddr>().is_ok()
}

/// Whether a value holds data that must not leave the machine: secrets, credentials, or
/// the contents of the host's own files.
pub(super) fn carries_secret(value: &Value) -> bool {
    value
        .deep_taint()
        .has(Taint::SECRET.with(Taint::CREDENTIAL).with(Taint::HOST_DATA))
}

pub(super) fn network(s: &mut Scanner<'_>, at: u32) {
    hit(s, rules::NETWORK, at, Confidence::High);
    s.caps.note_network(at);
}

/// `Taint::BUILT` when `value` is text assembled at run time (a name put together to be
/// hidden), else nothing.
fn assembled(value: &Value) -> Taint {
    value.taint.only(Taint::BUILT)
}

/// One address taken from a network's range: connecting to it sweeps nothing.
pub(super) fn one_address(value: Value) -> Value {
    Value {
        taint: value.taint.without(Taint::HOST_RANGE),
        ..value
    }
}

/// The URL a request names: `url=`, else the first argument that is one
/// (`requests.request("GET", url)`), else the first argument.
pub(super) fn requested_url<'v>(args: &'v Args<'_>) -> Option<&'v Value> {
    let is_url = |v: &&Value| v.text().is_some_and(|t| t.contains("://"));
    args.keyword("url")
        .or_else(|| args.positional.iter().find(is_url))
        .or(args.positional.first())
}

/// What a request to `url` does besides using the network, and what its answer holds
/// (`Taint::SECRET` for keys). The metadata service's credential endpoint, even when the
/// URL is assembled (`"169.254." + "169.254"`), gives the instance's keys; the service
/// itself (its addresses, roles, security groups) surveys the host; one address after
/// another of a network's range sweeps the network.
pub(super) fn request_to(s: &mut Scanner<'_>, url: Option<&Value>, at: u32) -> Taint {
    let Some(url) = url else {
        return Taint::NONE;
    };
    let text = url.text();
    if text.is_some_and(super::scan::names_cloud_credentials) {
        hit(s, rules::SECRET_READ, at, Confidence::High);
        s.caps.note_secret(at);
        return Taint::SECRET;
    }
    if text.is_some_and(names_metadata_service) {
        hit(s, rules::SYSTEM_READ, at, Confidence::High);
    }
    let host = text.map(url_host);
    // An address with a computed part, asked in a loop (`f"http://10.0.0.{i}/"`).
    let computed = host.is_some_and(super::paths::is_partial_address) && s.in_loop();
    if url.deep_taint().has(Taint::HOST_RANGE) || computed {
        hit(s, rules::NETWORK_SCAN, at, Confidence::High);
    }
    Taint::NONE
}

/// The host of a URL (`http://10.0.0.5:8080/x` → `10.0.0.5`); text with no scheme is
/// taken as starting with the host.
fn url_host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    match host.starts_with('[') {
        true => host.split_inclusive(']').next().unwrap_or(host),
        false => host.split(':').next().unwrap_or(host),
    }
}

/// A URL of a cloud provider's instance metadata service, by name or address, however
/// the address is written (`http://2852039166/`, `0xA9.0xFE.0xA9.0xFE`, `0251.0376...`,
/// `[::ffff:169.254.169.254]`, a trailing dot).
fn names_metadata_service(url: &str) -> bool {
    const NAMES: &[&str] = &[
        "metadata.google.internal",
        "metadata",
        "instance-data",
        "instance-data.ec2.internal",
        "fd00:ec2::254",
    ];
    const ADDRESSES: &[u32] = &[0xA9FE_A9FE, 0xA9FE_AA02, 0x6464_64C8];
    let host = url_host(url)
        .trim_matches(['[', ']'])
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let address = host.strip_prefix("::ffff:").unwrap_or(&host);
    NAMES.contains(&address) || ipv4_number(address).is_some_and(|n| ADDRESSES.contains(&n))
}

/// An IPv4 address as `inet_aton` reads it: one to four parts, each decimal, octal
/// (`0251`) or hex (`0xA9`), the last filling the bytes left (`169.254.43518`).
fn ipv4_number(text: &str) -> Option<u32> {
    let parts: Vec<u32> = text
        .split('.')
        .map(
            |part| match part.strip_prefix("0x").or(part.strip_prefix("0X")) {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None if part.len() > 1 && part.starts_with('0') => {
                    u32::from_str_radix(part, 8).ok()
                }
                None => part.parse().ok(),
            },
        )
        .collect::<Option<_>>()?;
    let (last, leading) = parts.split_last()?;
    if leading.len() > 3 || leading.iter().any(|p| *p > 255) {
        return None;
    }
    let shift = 8 * (4 - leading.len() as u32);
    let high = leading.iter().fold(0u64, |n, p| n << 8 | u64::from(*p)) << shift;
    let low = u64::from(*last);
    (low < 1u64 << shift).then_some((high | low) as u32)
}

/// A record logged once a handler ships records to another host: what it carries is
/// sent there.
pub(super) fn log_record(s: &mut Scanner<'_>, args: &Args<'_>, at: u32) {
    if s.caps.remote_log.is_some() {
        send_out(s, args, at, Sending::Data);
    }
}

/// The host a database address names: a URL's (`postgresql://app@db.example/app`), a
/// libpq DSN's `host=`, or the text itself (a `host=` keyword). `None` when unknown.
fn database_host(address: &str) -> Option<&str> {
    let host = if address.contains("://") {
        url_host(address)
    } else if let Some((_, rest)) = address.split_once("host=") {
        rest.split_ascii_whitespace().next().unwrap_or_default()
    } else {
        address
    };
    (!host.is_empty() && !host.contains(UNKNOWN_PART)).then_some(host)
}

/// A host or address on this machine (`localhost`, a loopback address, a socket or file
/// path, `/dev/log`).
fn names_this_machine(host: &str) -> bool {
    let lower = host.trim_matches(['[', ']']).to_ascii_lowercase();
    matches!(lower.as_str(), "localhost" | "::1" | "0.0.0.0")
        || lower.starts_with("127.")
        || lower.starts_with('/')
        || lower.starts_with("sqlite")
}

/// A database file found on the machine rather than named (`os.walk` of home for
/// `*.sqlite`), or one in another user's or the system's trees: not the program's.
fn found_database(path: &str) -> Taint {
    let normal = super::paths::normalize(path);
    let found = path.contains(UNKNOWN_PART) && (normal.absolute || path.starts_with('~'));
    match found || normal.is_protected() || normal.is_root_home() {
        true => Taint::FOREIGN_DATABASE,
        false => Taint::NONE,
    }
}

/// YAML loaded with a loader that builds any Python object: a document that calls one
/// (`!!python/object/apply:os.system [...]`) runs it as it loads; one fetched from the
/// network runs whatever the server sends.
fn yaml_runs(s: &mut Scanner<'_>, document: Option<&Value>, at: u32) {
    let Some(document) = document else {
        return;
    };
    if document.deep_taint().has(Taint::NETWORK) {
        hit(s, rules::DOWNLOAD_EXECUTE, at, Confidence::High);
    }
    if yaml_calls_function(document) {
        hit(s, rules::DECODE_EXECUTE, at, Confidence::High);
    }
}

/// A YAML document that calls a function as it is built: the tag as a value (`key:
/// !!python/object/apply:...`, `- !!python/...`), not a mention of it in prose.
fn yaml_calls_function(document: &Value) -> bool {
    let calls = ["python/object/apply:", "python/object/new:"];
    let tagged = |t: &str| {
        t.match_indices("!!python/object/").any(|(i, _)| {
            let before = t[..i].trim_end_matches(' ');
            calls.iter().any(|c| t[i + 2..].starts_with(c))
                && (before.is_empty() || before.ends_with([':', '-', '[', '\n']))
        })
    };
    document.text().is_some_and(tagged)
}

/// `containers.run(...)` options that give the container the host: privileges, the
/// host's namespaces, root's capabilities, its disks, unconfined security, a volume
/// exposing it.
fn container_given_the_host(args: &Args<'_>) -> bool {
    use super::paths::{is_raw_device, is_root_capability, lifts_confinement, mount_exposes_host};
    let texts = |name: &str| -> Vec<String> {
        let Some(value) = args.keyword(name) else {
            return Vec::new();
        };
        let items = match &value.kind {
            Kind::Dict(pairs) => pairs.iter().map(|(k, _)| k.clone()).collect(),
            _ => value.iterated().unwrap_or_else(|| vec![value.clone()]),
        };
        items
            .iter()
            .filter_map(|v| v.text().map(str::to_string))
            .collect()
    };
    let any = |name: &str, test: fn(&str) -> bool| texts(name).iter().any(|t| test(t));
    let privileged = args
        .keyword("privileged")
        .is_some_and(|v| v.as_int().is_some_and(|n| n != 0));
    let modes = [
        "pid_mode",
        "network_mode",
        "ipc_mode",
        "userns_mode",
        "uts_mode",
    ];
    privileged
        || modes
            .iter()
            .any(|k| args.keyword(k).and_then(Value::exact_text) == Some("host"))
        || any("cap_add", is_root_capability)
        || any("devices", |d| {
            is_raw_device(d.split(':').next().unwrap_or(d))
        })
        || any("security_opt", lifts_confinement)
        || any("volumes", mount_exposes_host)
        || any("binds", mount_exposes_host)
}

/// `urllib.parse.urljoin(base, url)`: `url` when it is absolute, else resolved against
/// `base`'s origin (`/path`) or its directory.
fn url_join(s: &mut Scanner<'_>, args: &Args<'_>) -> Value {
    let taint = args.data_taint();
    let (Some(base), Some(relative)) = (args.get(0, "base"), args.get(1, "url")) else {
        return Value::unknown(taint);
    };
    let Some(base) = base.text() else {
        return Value::unknown(taint);
    };
    let rel = relative.text().unwrap_or_default();
    let (scheme, rest) = base.split_once("://").unwrap_or(("", base));
    let origin_len = base.len() - rest.len() + rest.find('/').unwrap_or(rest.len());
    let prefix = if rel.contains("://") {
        String::new()
    } else if rel.starts_with('/') || scheme.is_empty() && rest.is_empty() {
        base[..origin_len].to_string()
    } else if base.len() == origin_len {
        format!("{base}/")
    } else {
        base[..=base.rfind('/').unwrap_or(0)].to_string()
    };
    let pieces = [Piece::Known(&prefix), piece(relative)];
    s.folder.join(pieces, taint)
}

/// A connection to one address of a network's range (`(str(host), 22)` for each host of
/// `ip_network(...)`, `f"192.168.1.{i}"`): the program sweeps the network.
pub(super) fn scans(s: &mut Scanner<'_>, address: Option<&Value>, at: u32) {
    let Some(address) = address else {
        return;
    };
    let host = match address.items() {
        Some([host, ..]) => host,
        _ => address,
    };
    if host.deep_taint().has(Taint::HOST_RANGE)
        || host.text().is_some_and(super::paths::is_partial_address)
    {
        hit(s, rules::NETWORK_SCAN, at, Confidence::High);
    }
}

/// A line a console read is run as Python; read from a connection, the console is a
/// Python prompt served to whoever is at the other end.
pub(super) fn run_console_line(s: &mut Scanner<'_>, line: Value, at: u32) {
    if line.deep_taint().has(Taint::NETWORK) {
        s.caps.shell_wiring.push(at);
    }
    code_exec(s, &Args::one(line), at);
}

pub(super) fn code_exec(s: &mut Scanner<'_>, args: &Args<'_>, at: u32) -> Value {
    let code = args.get(0, "source").cloned().unwrap_or(Value::UNKNOWN);
    let taint = code.deep_taint();
    if taint.has(Taint::DECODED) {
        hit(s, rules::DECODE_EXECUTE, at, Confidence::High);
        // What it decodes to is analysed too (a decoded reverse shell is also one).
        if let Some(text) = code.exact_text() {
            s.nested_sources.push((text.into(), at, true));
        }
    } else if taint.has(Taint::NETWORK) {
        hit(s, rules::DOWNLOAD_EXECUTE, at, Confidence::High);
    } else if let Some(text) = code.exact_text() {
        s.nested_sources.push((text.into(), at, true));
    } else if code.qualified_name().is_none() {
        hit(s, rules::DYNAMIC_CODE, at, Confidence::High);
        // Code with run-time parts (`"import {m}; {m}.run({a!r})".format(...)`): its known
        // parts are still code, analysed with each unknown part read as a name.
        if let Some(text) = code.text().filter(|t| t.chars().any(|c| c != UNKNOWN_PART)) {
            s.nested_sources
                .push((text.replace(UNKNOWN_PART, "_").into(), at, true));
        }
    }
    // `compile` returns a code object that keeps where its source came from; code known
    // exactly stays that code, so `eval(compile(src, ...))` is not run-time code.
    match code.exact_text() {
        Some(_) if !taint.has(Taint::DECODED) && !taint.has(Taint::NETWORK) => code,
        _ => Value::unknown(taint.data()),
    }
}

/// One environment variable, text from outside the program: a credential when its name
/// says so (`AWS_SECRET_ACCESS_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`).
pub(super) fn environment_value(key: Option<&Value>) -> Value {
    const MARKERS: &[&str] = &[
        "SECRET",
        "TOKEN",
        "PASSW",
        "PASSWD",
        "API_KEY",
        "APIKEY",
        "PRIVATE",
        "CREDENTIAL",
        "ACCESS_KEY",
        "COOKIE",
    ];
    // `GITHUB_AUTH`, `AUTH_KEY`, `APP_SESSION_ID` hold one; `AUTH_SERVER`, `SESSION_TIMEOUT`
    // are settings: these words count at the end of the name or before `KEY`/`ID`.
    const WORDS: &[&str] = &["AUTH", "SESSION", "SESSIONID", "AUTHORIZATION"];
    let names_one_by_word = |name: &str| {
        let words: Vec<&str> = name.split('_').collect();
        words.iter().enumerate().any(|(i, word)| {
            WORDS.contains(word) && matches!(words.get(i + 1), None | Some(&"KEY") | Some(&"ID"))
        })
    };
    let name = key.and_then(Value::exact_text).map(str::to_ascii_uppercase);
    if name.as_deref() == Some("HOME") {
        return Value {
            kind: Kind::Text {
                text: "~".into(),
                exact: true,
            },
            taint: Taint::NONE,
        };
    }
    // `DB_PASS`, `SMTP_PWD`, `SENTRY_DSN`, `DATABASE_URL` (which holds the password):
    // endings that name a credential. (`_KEY` alone does not: `SORT_KEY`, an S3 key.)
    const ENDINGS: &[&str] = &["_PASS", "_PWD", "_PIN", "_DSN", "DATABASE_URL"];
    // `AWS_SHARED_CREDENTIALS_FILE`, `GNUPG_HOME`: where credentials are, not one.
    const LOCATIONS: &[&str] = &["_FILE", "_PATH", "_DIR", "_HOME", "_LOCATION"];
    match name {
        Some(name)
            if (MARKERS.iter().any(|m| name.contains(m))
                || ENDINGS.iter().any(|e| name.ends_with(e))
                || names_one_by_word(&name))
                && !LOCATIONS.iter().any(|l| name.ends_with(l)) =>
        {
            Value::unknown(Taint::CREDENTIAL.with(Taint::EXTERNAL))
        }
        _ => Value::unknown(Taint::EXTERNAL),
    }
}

/// Whether a constant pickle imports something that runs code or commands when loaded.
/// The text is tried as the bytes it was written as (Latin-1 for non-UTF-8 literals) and
/// as UTF-8.
fn payload_runs_code(payload: &str) -> bool {
    payload_bytes(payload)
        .flat_map(|bytes| super::pickle::globals(&bytes))
        .any(|global| {
            matches!(
                catalog::api(&canonical_name(&global)),
                Some(
                    Api::Shell
                        | Api::Process
                        | Api::ExecProgram { .. }
                        | Api::PtySpawn
                        | Api::CodeExec
                        | Api::RunPath
                        | Api::ImportByName { .. }
                        | Api::GetAttr
                        | Api::LoadLibrary
                        | Api::Remove { .. }
                        | Api::Kill
                )
            )
        })
}

/// The bytes a constant may stand for: binary data is held one character per byte
/// (`bytes_text`), text as UTF-8; both are tried, Latin-1 first.
fn payload_bytes(payload: &str) -> impl Iterator<Item = Vec<u8>> + '_ {
    let latin1: Option<Vec<u8>> = payload
        .chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect();
    latin1
        .into_iter()
        .chain(std::iter::once_with(|| payload.as_bytes().to_vec()))
}

/// Bytes as text: UTF-8 when they are, otherwise one character per byte (Latin-1), so
/// binary payloads (pickles) keep every byte.
pub(super) fn bytes_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.into(),
        Err(_) => bytes
            .iter()
            .map(|b| char::from(*b))
            .collect::<String>()
            .into(),
    }
}

/// `runpy.run_path(p)` and friends.
pub(super) fn run_file(s: &mut Scanner<'_>, path: &Value, at: u32) {
    match path.text() {
        // `runpy.run_path(dir)` runs the `__main__.py` an unpacked archive put there.
        Some(text) if s.caps.is_downloaded(text) || s.caps.is_download_dir(text) => {
            hit(s, rules::DOWNLOAD_EXECUTE, at, Confidence::High)
        }
        Some(_) if path.is_constant() => {}
        // A file the program cannot name, run after it saved network data somewhere.
        _ if !s.caps.downloads.is_empty() => {
            hit(s, rules::DOWNLOAD_EXECUTE, at, Confidence::Medium)
        }
        _ => hit(s, rules::DYNAMIC_CODE, at, Confidence::Medium),
    }
}

pub(super) fn import_by_name(
    s: &mut Scanner<'_>,
    args: &Args<'_>,
    top_level: bool,
    at: u32,
) -> Value {
    let name = args.get(0, "name").and_then(Value::exact_text);
    if let Some(name) = name {
        s.caps.note_import(name, at);
    }
    // `__import__("".join(["o", "s"]))`: a module named by assembled text is hidden.
    let assembled = args.get(0, "name").map_or(Taint::NONE, assembled);
    match name {
        Some(name) if top_level => {
            Value::name(canonical_module(name.split('.').next().unwrap_or(name))).tainted(assembled)
        }
        Some(name) => Value::name(&canonical_name(name)).tainted(assembled),
        None => {
            hit(s, rules::DYNAMIC_IMPORT, at, Confidence::High);
            // Whatever it names, it may be code a download put on `sys.path`.
            s.caps.note_import(UNKNOWN_PART_STR, at);
            Value::UNKNOWN
        }
    }
}

/// Modules whose attributes, picked at run time, can reach anything dangerous.
pub(super) const SENSITIVE_MODULES: &[&str] = &[
    "os",
    "subprocess",
    "builtins",
    "sys",
    "importlib",
    "ctypes",
    "socket",
    "shutil",
    "pty",
];

/// Objects whose methods the rules follow: processes (their own and others'), sockets,
/// files open for writing, queues.
const METHOD_TRACKED: Taint = Taint::FOREIGN_PROCESS
    .with(Taint::CHILD)
    .with(Taint::SOCKET)
    .with(Taint::FILE_WRITE)
    .with(Taint::QUEUE);

pub(super) fn get_attr(s: &mut Scanner<'_>, args: &Args<'_>, at: u32) -> Value {
    let object = args.positional.first().cloned().unwrap_or(Value::UNKNOWN);
    let name = args.positional.get(1);
    match (name.and_then(Value::exact_text), object.qualified_name()) {
        // `getattr(os, "sy" + "stem")`: a name assembled to be hidden stays marked so.
        (Some(attr), Some(_)) => {
            let name = name.map_or(Taint::NONE, assembled);
            s.attribute(&object, attr)
                .tainted(name.with(assembled(&object)))
        }
        // `getattr(runner, name)` on the program's own objects: as `runner.<name>` reads
        // it (fields, properties, descriptors, `__getattr__`).
        (Some(attr), None) if matches!(object.kind, Kind::Instance(..) | Kind::Class(_)) => {
            s.attribute(&object, attr)
        }
        // `getattr(libc, "kill")`: the function, by name, for when it is called.
        (Some(attr), None) if object.taint.has(Taint::LIBC) => text_value(s, attr, object.taint),
        // `getattr(path, "write_text")`: the path's method, for when it is called.
        (Some(attr), None) if object.taint.has(Taint::PATH) => bound_method(&object, attr),
        // `getattr(proc, "kill")`, `getattr(sock, "send")`: a method of an object whose
        // methods the rules follow, for when it is called.
        (Some(attr), None) if object.taint.has(METHOD_TRACKED) => bound_method(&object, attr),
        (None, Some(module)) if SENSITIVE_MODULES.contains(&module) => {
            hit(s, rules::DYNAMIC_IMPORT, at, Confidence::Medium);
            Value::UNKNOWN
        }
        _ => Value::unknown(object.taint),
    }
}

pub(super) fn decode(
    s: &mut Scanner<'_>,
    args: &Args<'_>,
    encoding: fold::Encoding,
    taint: Taint,
) -> Value {
    let Some(input) = args.positional.first() else {
        return Value::unknown(taint.with(Taint::DECODED));
    };
    let codec = args
        .get(1, "encoding")
        .and_then(Value::exact_text)
        .map(str::to_ascii_lowercase);
    let decoded = match (input.exact_text(), codec.as_deref()) {
        (Some(text), Some("rot13" | "rot_13")) => Some(fold::rot13(text).into_bytes()),
        (Some(_), Some("utf-8" | "utf8" | "ascii" | "latin-1")) => return input.clone(),
        (Some(text), Some("hex" | "hex_codec")) => fold::hex_decode(text),
        (Some(text), Some("base64" | "base_64" | "base64_codec")) => fold::base64_decode(text),
        (Some(text), Some(codec)) => {
            fold::Compression::from_codec(codec).and_then(|format| decompress(s, format, text))
        }
        (Some(text), None) => encoding.decode(text),
        _ => None,
    };
    decoded_value(s, decoded, taint)
}

/// The path `mkstemp` or `mkdtemp` makes: `<dir>/<prefix><?><suffix>`; without a prefix,
/// one that tells this call's files from another's (`tmp<at>`).
fn temporary_path(s: &mut Scanner<'_>, args: &Args<'_>, at: u32) -> Value {
    let part = |i, name, default: &str| {
        args.get(i, name)
            .and_then(Value::text)
            .map_or_else(|| default.to_string(), str::to_string)
    };
    let (suffix, prefix, dir) = (
        part(0, "suffix", ""),
        part(1, "prefix", &format!("tmp{at}")),
        part(2, "dir", "/tmp"),
    );
    let path = format!("{dir}/{prefix}{UNKNOWN_PART}{suffix}");
    text_value(s, &path, Taint::NONE)
}

/// Known data encoded as base64 or hex text, keeping its taint: a payload encoded in one
/// place and decoded in another is still that payload.
fn encode(s: &mut Scanner<'_>, args: &Args<'_>, hex: bool) -> Value {
    let Some(data) = args.get(0, "data") else {
        return Value::UNKNOWN;
    };
    match data.exact_text() {
        // Encoding shares the decompression budget: a payload, not a loop's worth.
        Some(text) if text.len() <= MAX_ENCODED_BYTES && text.len() < s.decompress_budget => {
            s.decompress_budget -= text.len();
            let encoded = match hex {
                true => fold::hex_encode(text.as_bytes()),
                false => fold::base64_encode(text.as_bytes()),
            };
            text_value(s, &encoded, data.deep_taint().data())
        }
        _ => Value::unknown(data.deep_taint().data()),
    }
}

/// Most bytes of known data encoded as text (a payload, not a file's worth).
const MAX_ENCODED_BYTES: usize = 64 * 1024;

/// A constant payload decompressed, while the program's decompression budget lasts.
fn decompress(s: &mut Scanner<'_>, format: fold::Compression, data: &str) -> Option<Vec<u8>> {
    if s.decompress_budget == 0 {
        return None;
    }
    let bytes = payload_bytes(data).find_map(|b| format.decompress(&b));
    let produced = bytes.as_ref().map_or(0, Vec::len);
    s.decompress_budget = s.decompress_budget.saturating_sub(produced.max(1));
    bytes
}

/// What a decoder or decompressor returns: the bytes it produced, as text, when known;
/// either way marked as decoded.
fn decoded_value(s: &mut Scanner<'_>, bytes: Option<Vec<u8>>, taint: Taint) -> Value {
    match bytes {
        Some(bytes) => {
            let text = bytes_text(&bytes).into_owned();
            text_value(s, &text, taint.with(Taint::DECODED))
        }
        None => Value::unknown(taint.with(Taint::DECODED)),
    }
}

pub(super) fn load_library(s: &mut Scanner<'_>, name: Option<&Value>, at: u32) -> Value {
    let libc = match name {
        None => true,
        Some(value) => {
            matches!(value.kind, Kind::NoneValue)
                || value
                    .text()
                    .is_some_and(|t| t.contains("libc.") || t == "libc")
        }
    };
    if name
        .and_then(Value::text)
        .is_some_and(|path| s.caps.is_downloaded(path))
    {
        // A native library fetched from the network, loaded: its code runs.
        hit(s, rules::DOWNLOAD_EXECUTE, at, Confidence::High);
    }
    if libc {
        // Judged once every call through it is seen (`combine::native_libc`); which
        // functions are called is read too (see `libc_call`).
        s.caps.libc_loaded.get_or_insert(at);
        return Value::unknown(Taint::LIBC.with(Taint::NATIVE_LIB));
    }
    Value::unknown(Taint::NATIVE_LIB)
}

/// libc functions that compute, format, sort, allocate or tell the time, and nothing
/// else: called through ctypes, they reach nothing Python could not.
const LIBC_HELPERS: &[&str] = &[
    "strlen",
    "strnlen",
    "strcmp",
    "strncmp",
    "strcasecmp",
    "strchr",
    "strrchr",
    "strstr",
    "memcmp",
    "memchr",
    "memcpy",
    "memmove",
    "memset",
    "qsort",
    "bsearch",
    "abs",
    "labs",
    "llabs",
    "div",
    "atoi",
    "atol",
    "atof",
    "strtol",
    "strtoul",
    "strtod",
    "toupper",
    "tolower",
    "isalpha",
    "isdigit",
    "isspace",
    "printf",
    "puts",
    "putchar",
    "sprintf",
    "snprintf",
    "time",
    "clock",
    "difftime",
    "localtime",
    "gmtime",
    "strftime",
    "mktime",
    "gettimeofday",
    "clock_gettime",
    "rand",
    "srand",
    "random",
    "srandom",
    "malloc",
    "calloc",
    "realloc",
    "free",
    "getpid",
    "getppid",
    "sysconf",
    "getpagesize",
    "strerror",
    "sqrt",
    "pow",
    "sin",
    "cos",
    "exp",
    "log",
    "floor",
    "ceil",
];

/// The name of an x86-64 system call the rules care about, by number.
fn syscall_name(number: i64) -> Option<&'static str> {
    Some(match number {
        62 => "kill",
        105 => "setuid",
        106 => "setgid",
        113 => "setreuid",
        114 => "setregid",
        117 => "setresuid",
        119 => "setresgid",
        155 => "pivot_root",
        157 => "prctl",
        161 => "chroot",
        165 => "mount",
        166 => "umount2",
        175 => "init_module",
        272 => "unshare",
        308 => "setns",
        313 => "finit_module",
        _ => return None,
    })
}

/// A call of libc's `function` through ctypes (by method, alias, subscript or
/// `getattr`): the rules of what it does (`system`, `setuid`, `mount`, `kill`, `fork`,
/// `unlink`...).
pub(super) fn libc_call(s: &mut Scanner<'_>, function: &str, args: &Args<'_>, at: u32) {
    s.caps.libc_called = true;
    s.caps.libc_beyond_helpers |= !LIBC_HELPERS.contains(&function);
    if function == "syscall" {
        // `libc.syscall(313, ...)`: the call by its x86-64 number.
        if let Some(name) = args
            .positional
            .first()
            .and_then(Value::as_int)
            .and_then(syscall_name)
        {
            libc_call(s, name, args, at);
        }
        return;
    }
    let rule = match function {
        "fork" | "vfork" => {
            s.note_call_in_loop("os.fork", at);
            return;
        }
        "unlink" | "remove" | "rmdir" | "unlinkat" => {
            if let Some(path) = args.positional.last() {
                file_access(s, path, Access::Delete, at);
            }
            return;
        }
        "chmod" | "fchmodat" | "lchmod" => {
            let (path, mode) = match function {
                "fchmodat" => (args.positional.get(1), args.positional.get(2)),
                _ => (args.positional.first(), args.positional.get(1)),
            };
            let path = path.cloned().unwrap_or(Value::UNKNOWN);
            super::files::chmod(s, &path, mode.and_then(Value::as_int), at);
            return;
        }
        "system" | "popen" => {
            // `CDLL("libc.so.6").system(b"...")` is `os.system` by another door.
            run_command(s, args.positional.first(), true, at);
            return;
        }
        "execv" | "execve" | "execvp" | "execl" | "execlp" | "posix_spawn" => {
            let command = exec_program_argv(s, args);
            run_command(s, Some(&command), false, at);
            return;
        }
        "setuid" | "setgid" | "seteuid" | "setegid" | "setreuid" | "setregid" | "setresuid"
        | "setresgid" | "setgroups" => rules::SET_ID,
        "prctl" | "capset" => rules::CAPABILITIES,
        "mount" | "umount" | "umount2" | "unshare" | "setns" | "init_module" | "finit_module"
        | "pivot_root" | "chroot" => rules::CONTAINER_ESCAPE,
        "kill" => rules::KILL_OTHERS,
        _ => return,
    };
    hit(s, rule, at, Confidence::High);
}
