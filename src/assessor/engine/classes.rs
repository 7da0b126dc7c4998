//! The program's classes: what each binds in its body, its own bases and metaclass (and
//! whether it is a thread or process class), and
//! the code Python runs when a class is created (the metaclass's `__new__`/`__init__`,
//! the bases' `__init_subclass__`, `__set_name__` of its attributes, class decorators).
//!
//! Part of `Scanner` (called from `scan` for `class` statements and from `calls` for
//! attributes of classes and instances). Invariant: base chains only point at classes
//! defined earlier, so every lookup ends; each lookup is bounded by `MAX_BASE_DEPTH`.

use std::rc::Rc;

use super::calls::{call_indirect, is_callable, Args};
use super::catalog::{self, Api};
use super::input_limits::MAX_FOLDED_ITEMS;
use super::parser::{Block, Stmt};
use super::scan::{Scanner, Scope};
use super::value::{Kind, Taint, Value};

/// One class of the program.
pub(super) struct Class<'a> {
    /// Names bound in the class body (methods are `Kind::Function`).
    members: Vec<(&'a str, Value)>,
    /// Its bases that are classes of the program.
    bases: Vec<u32>,
    /// `metaclass=` (or a base's metaclass): a class or a function of the program.
    metaclass: Option<Value>,
    /// The library class it extends (or a base extends) whose `start()` runs `run` in a
    /// new thread or process (`threading.Thread`, `multiprocessing.Process`).
    starts_run: Option<Rc<str>>,
    /// The library server class it extends (or a base extends), whose instances serve
    /// clients with a handler (`socketserver.TCPServer`).
    serves: Option<Api>,
    /// A record class (`@dataclass`, a `NamedTuple`): its fields in the order its
    /// constructor takes them, its bases' first.
    fields: Option<Vec<&'a str>>,
    /// The builtin type it extends (or a base extends): `builtins.str`, `builtins.list`...
    builtin: Option<Rc<str>>,
    /// It extends (or a base extends) a class from outside the program, whose methods
    /// (`__len__`, `__bool__`...) are not known.
    library_base: bool,
    /// Members set after the class statement (`setattr(cls, "do_GET", handle)` in a class
    /// decorator, `Cls.run = f`).
    set_later: Vec<(Rc<str>, Value)>,
    /// It extends (or a base extends) `code.InteractiveConsole`: `interact()` runs, as
    /// Python, each line its `raw_input` returns.
    console: bool,
}

/// Most members set on one class after its statement.
const MAX_SET_LATER: usize = 64;

/// Library classes whose `interact()` runs the lines `raw_input` returns as Python.
const CONSOLES: &[&str] = &["code.InteractiveConsole", "code.InteractiveInterpreter"];

/// Builtin types a class may extend whose instances are their value (`class Argv(list)`).
const VALUE_TYPES: &[&str] = &[
    "builtins.str",
    "builtins.bytes",
    "builtins.bytearray",
    "builtins.list",
    "builtins.tuple",
    "builtins.dict",
];

/// The field an instance of a builtin type's subclass keeps its value in.
/// (Not a Python identifier, so no attribute of the program's can be it.)
pub(super) const BUILTIN_VALUE: &str = "<builtin value>";

/// Most fields of a record class followed.
const MAX_FIELDS: usize = 64;

/// Most base classes followed up one chain.
const MAX_BASE_DEPTH: usize = 16;

/// Most classes remembered per program.
const MAX_CLASSES: usize = 4096;

impl<'a> Scanner<'a> {
    /// `class name(bases, **keywords): body` with its decorators: the body is walked in
    /// its own scope, then the creation hooks run with what the class holds.
    pub(super) fn define_class(&mut self, stmt: Stmt<'a>, name: &'a str, body: Block<'a>) {
        let at = stmt.start();
        let header = stmt.header();
        let decorators: Vec<Value> = header.decorators.iter().map(|e| self.eval(*e)).collect();
        let bases: Vec<Value> = header.bases.iter().map(|e| self.eval(*e)).collect();
        let keywords: Vec<(Option<&'a str>, Value)> = header
            .keywords
            .iter()
            .map(|(k, e)| (*k, self.eval(*e)))
            .collect();
        self.bind(name, Value::UNKNOWN);
        self.scopes.push(Scope::default());
        self.scan_block(body);
        let scope = self.scopes.pop().unwrap_or_default();
        let record = decorators
            .iter()
            .any(|d| d.qualified_name() == Some("dataclasses.dataclass"))
            || bases
                .iter()
                .any(|b| b.qualified_name() == Some("typing.NamedTuple"));
        let fields = record.then(|| self.record_field_names(&bases, body));
        let explicit = keywords
            .iter()
            .find(|(k, _)| *k == Some("metaclass"))
            .map(|(_, v)| v.clone());
        let class = self.remember_class(scope, &bases, explicit, fields);
        self.bind(name, class.clone());
        if let Kind::Class(index) = class.kind {
            self.creation_hooks(index, name, &bases, &keywords, at);
        }
        // `@decorator` is called with the class, innermost first.
        for decorator in decorators.iter().rev().filter(|d| is_callable(d)) {
            call_indirect(self, decorator, vec![class.clone()], at);
        }
    }

    fn remember_class(
        &mut self,
        scope: Scope<'a>,
        bases: &[Value],
        explicit_metaclass: Option<Value>,
        fields: Option<Vec<&'a str>>,
    ) -> Value {
        let library_bases = bases;
        let bases: Vec<u32> = bases
            .iter()
            .filter_map(|b| match b.kind {
                Kind::Class(index) => Some(index),
                _ => None,
            })
            .collect();
        let starts_run = library_bases
            .iter()
            .find_map(
                |b| match (&b.kind, b.qualified_name().and_then(catalog::api)) {
                    (Kind::Name(name), Some(Api::CallsTarget { starts: true, .. })) => {
                        Some(name.clone())
                    }
                    _ => None,
                },
            )
            .or_else(|| {
                bases
                    .iter()
                    .find_map(|b| self.class(*b)?.starts_run.clone())
            });
        let serves = library_bases
            .iter()
            .find_map(|b| match b.qualified_name().and_then(catalog::api) {
                Some(api @ Api::Serves { .. }) => Some(api),
                _ => None,
            })
            .or_else(|| bases.iter().find_map(|b| self.class(*b)?.serves));
        let builtin = library_bases
            .iter()
            .find_map(|b| b.qualified_name().filter(|n| VALUE_TYPES.contains(n)))
            .map(Rc::from)
            .or_else(|| bases.iter().find_map(|b| self.class(*b)?.builtin.clone()));
        let library_base = library_bases.iter().any(|b| {
            !matches!(b.kind, Kind::Class(_)) && b.qualified_name() != Some("builtins.object")
        }) || bases
            .iter()
            .any(|b| self.class(*b).is_some_and(|c| c.library_base));
        let console = library_bases
            .iter()
            .any(|b| b.qualified_name().is_some_and(|n| CONSOLES.contains(&n)))
            || bases
                .iter()
                .any(|b| self.class(*b).is_some_and(|c| c.console));
        let metaclass = explicit_metaclass
            .filter(is_callable)
            .or_else(|| bases.iter().find_map(|b| self.class(*b)?.metaclass.clone()));
        let index = match u32::try_from(self.classes.len()) {
            Ok(index) if self.classes.len() < MAX_CLASSES => index,
            _ => return Value::UNKNOWN,
        };
        self.classes.push(Class {
            members: scope.into_iter().collect(),
            bases,
            metaclass,
            starts_run,
            serves,
            fields,
            builtin,
            console,
            library_base,
            set_later: Vec::new(),
        });
        Value {
            kind: Kind::Class(index),
            taint: Taint::NONE,
        }
    }

    fn class(&self, index: u32) -> Option<&Class<'a>> {
        self.classes.get(index as usize)
    }

    /// A new instance of a class that extends a builtin type without an `__init__` or
    /// `__new__` of its own is the builtin's value made from the arguments
    /// (`Argv(table[i] for i in keys)` is that list), kept as its `BUILTIN_VALUE` field.
    pub(super) fn builtin_value(&mut self, class: u32, args: &Args<'a>, at: u32) -> Option<Value> {
        let builtin = self.class(class)?.builtin.clone()?;
        if self.method_of(class, "__init__").is_some() || self.method_of(class, "__new__").is_some()
        {
            return None;
        }
        Some(super::calls::call_value(
            self,
            &Value::name(&builtin),
            args.clone(),
            at,
        ))
    }

    /// A record class's fields: those of its record bases, then the names annotated in
    /// its body.
    fn record_field_names(&self, bases: &[Value], body: Block<'a>) -> Vec<&'a str> {
        let mut names: Vec<&'a str> = bases
            .iter()
            .filter_map(|b| match b.kind {
                Kind::Class(index) => self.class(index)?.fields.clone(),
                _ => None,
            })
            .flatten()
            .collect();
        names.truncate(MAX_FIELDS);
        for name in body.annotated_names() {
            if names.len() >= MAX_FIELDS {
                break;
            }
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }

    /// The fields a new instance of the record class `class` is given: arguments by
    /// position in field order, then by keyword (the rest keep the class's defaults).
    pub(super) fn record_fields(&self, class: u32, args: &Args<'_>) -> Vec<(Rc<str>, Value)> {
        let Some(names) = self.class(class).and_then(|c| c.fields.as_ref()) else {
            return Vec::new();
        };
        let by_position = names.iter().zip(&args.positional);
        let by_keyword = args.keywords.iter().filter_map(|(name, value)| {
            let name = names.iter().find(|n| Some(**n) == *name)?;
            Some((name, value))
        });
        by_position
            .chain(by_keyword)
            .map(|(name, value)| (Rc::from(*name), value.clone()))
            .collect()
    }

    /// `dataclasses.asdict(record)`: its fields by name, as given or as the class's
    /// defaults (`field(default_factory=...)`).
    pub(super) fn record_as_dict(&mut self, record: &Value) -> Option<Value> {
        let Kind::Instance(class, _) = record.kind else {
            return None;
        };
        let names = self.class(class)?.fields.clone()?;
        let pairs = names
            .into_iter()
            .map(|name| (self.folder.literal(name), self.attribute(record, name)))
            .collect();
        Some(Value::bounded_dict(pairs))
    }

    /// The fields of a record instance, by the names its class's methods see them as
    /// (`self.path`).
    pub(super) fn fields_of(&self, value: &Value) -> Vec<(&'a str, Value)> {
        let Kind::Instance(class, Some(fields)) = &value.kind else {
            return Vec::new();
        };
        let Some(names) = self.class(*class).and_then(|c| c.fields.as_ref()) else {
            // A plain class's instance: what its `__init__` set on `self`.
            return fields
                .iter()
                .filter_map(|(name, v)| {
                    Some((self.instance_attribute_name(*class, name)?, v.clone()))
                })
                .collect();
        };
        names
            .iter()
            .filter_map(|name| Some((*name, value.field(name)?.clone())))
            .collect()
    }

    /// What `class.name` finds: the class's own binding, else its bases' (depth first).
    pub(super) fn class_member(&self, class: u32, name: &str) -> Option<Value> {
        let mut stack = vec![class];
        let mut visited = 0;
        while let Some(index) = stack.pop() {
            visited += 1;
            if visited > MAX_BASE_DEPTH {
                return None;
            }
            let class = self.class(index)?;
            if let Some((_, value)) = class.set_later.iter().rev().find(|(n, _)| &**n == name) {
                return Some(value.clone());
            }
            if let Some((_, value)) = class.members.iter().find(|(n, _)| *n == name) {
                return Some(value.clone());
            }
            stack.extend(class.bases.iter().rev());
        }
        None
    }

    /// `setattr(cls, name, value)` or `Cls.name = value` on a class of the program: its
    /// instances have that member from then on.
    pub(super) fn set_class_member(&mut self, class: u32, name: &str, value: Value) {
        if let Some(class) = self.classes.get_mut(class as usize) {
            if class.set_later.len() < MAX_SET_LATER {
                class.set_later.push((name.into(), value));
            }
        }
    }

    /// The method `name` of the program's class `class` (or of one of its bases).
    pub(super) fn method_of(&self, class: u32, name: &str) -> Option<u32> {
        match self.class_member(class, name)?.kind {
            Kind::Function(index) => Some(index),
            _ => None,
        }
    }

    /// `obj[key]` or `obj[key] = value` of an instance whose class defines the item
    /// method `dunder` (`__getitem__`, `__setitem__`): what the method returns. `None`
    /// for anything else.
    pub(super) fn item_method(
        &mut self,
        object: &Value,
        dunder: &str,
        args: &[Value],
    ) -> Option<Value> {
        let Kind::Instance(class, _) = object.kind else {
            return None;
        };
        let index = self.method_of(class, dunder)?;
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(object.clone());
        all.extend_from_slice(args);
        Some(self.call_function(index, &all, &[]))
    }

    /// For the program's subclass of a server class: what creating one does (serve
    /// clients with the handler it is given).
    pub(super) fn server_api_of(&self, class: u32) -> Option<Api> {
        self.class(class)?.serves
    }

    /// For an instance of a `Thread` or `Process` subclass: the library class, whose
    /// `start()` runs the instance's `run` in a new thread or process.
    pub(super) fn thread_class_of(&self, value: &Value) -> Option<Rc<str>> {
        match value.kind {
            Kind::Instance(class, _) => self.class(class)?.starts_run.clone(),
            _ => None,
        }
    }

    /// `console.interact()` of an instance of an `InteractiveConsole` subclass: each line
    /// its own `raw_input` returns is run as Python (a console served over a socket runs
    /// whatever the other end sends).
    pub(super) fn interact(&mut self, console: &Value, at: u32) {
        let Kind::Instance(class, _) = console.kind else {
            return;
        };
        if !self.class(class).is_some_and(|c| c.console) {
            return;
        }
        if let Some(raw_input) = self.method_of(class, "raw_input") {
            let prompt = self.folder.literal(">>> ");
            let line = self.call_function(raw_input, &[console.clone(), prompt], &[]);
            super::calls::run_console_line(self, line, at);
        }
    }

    /// An instance of a class of the program that says nothing of its truth (no
    /// `__bool__`, no `__len__`, no builtin value): `while sink:` never ends on it.
    pub(super) fn always_true(&self, value: &Value) -> bool {
        let Kind::Instance(class, _) = value.kind else {
            return false;
        };
        value.field(BUILTIN_VALUE).is_none()
            && self.class(class).is_some_and(|c| !c.library_base)
            && self.method_of(class, "__bool__").is_none()
            && self.method_of(class, "__len__").is_none()
    }

    /// `value.attr` for a class or an instance of one: the member, a method of an
    /// instance bound to it (`obj.run` is `run` with `self` given).
    pub(super) fn member_of(&self, value: &Value, attr: &str) -> Option<Value> {
        let (class, instance) = match value.kind {
            Kind::Class(class) => (class, false),
            Kind::Instance(class, _) => (class, true),
            _ => return None,
        };
        let member = self.class_member(class, attr)?;
        if let Kind::Function(index) = member.kind {
            // `@classmethod`: bound to the class, through the class or an instance.
            if self.classmethods.contains(&index) {
                let class = Value {
                    kind: Kind::Class(class),
                    taint: Taint::NONE,
                };
                return Some(Value {
                    kind: Kind::Partial(std::rc::Rc::new((member, vec![class]))),
                    taint: Taint::NONE,
                });
            }
            if self.staticmethods.contains(&index) {
                return Some(member);
            }
        }
        if instance && matches!(member.kind, Kind::Function(_)) {
            return Some(Value {
                kind: Kind::Partial(std::rc::Rc::new((member, vec![value.clone()]))),
                taint: Taint::NONE,
            });
        }
        Some(member)
    }

    /// What iterating over `value` goes through: for an instance of a class with
    /// `__iter__`, what that returns (`for part in Harvest(env)`); otherwise the value.
    pub(super) fn iterator_of(&mut self, value: Value, at: u32) -> Value {
        if !matches!(value.kind, Kind::Instance(..)) {
            return value;
        }
        match self.member_of(&value, "__iter__") {
            Some(method) => super::calls::call_indirect(self, &method, Vec::new(), at),
            None => value.field(BUILTIN_VALUE).cloned().unwrap_or(value),
        }
    }

    /// One pass of a `for` over an iterator of the program's own (a class with
    /// `__next__`): its `__next__` runs at the start of every pass and gives the item, and
    /// the loop never ends unless `__next__` may raise (`StopIteration`) or takes items
    /// from something that runs out. Returns what the
    /// loop's target is bound to; other iterators are returned as they are.
    pub(super) fn own_iterator_pass(&mut self, iterator: Value, at: u32) -> Value {
        if !matches!(iterator.kind, Kind::Instance(..)) {
            return iterator;
        }
        let Some(next) = self.member_of(&iterator, "__next__") else {
            return iterator;
        };
        let item = super::calls::call_indirect(self, &next, Vec::new(), at);
        let runs_out = super::forks::function_of(&next)
            .and_then(|index| self.functions.get(index as usize))
            .is_none_or(|f| f.may_run_out());
        if !runs_out {
            self.loop_never_ends(true);
        }
        self.folder.seq(vec![item])
    }

    /// `obj.name` where the class does not define `name` but defines `__getattr__` (or
    /// `__getattribute__`): what that returns for the name (`ctl.stop` built by a
    /// `__getattr__` dispatcher).
    pub(super) fn dynamic_attribute(&mut self, value: &Value, attr: &str) -> Option<Value> {
        let Kind::Instance(class, _) = value.kind else {
            return None;
        };
        if attr.starts_with("__") {
            return None;
        }
        // `__getattribute__` runs for every name; for those the class defines, it is
        // taken to give what the class defines (as it does when it defers to `object`).
        let hook = (self.method_of(class, "__getattr__"))
            .or_else(|| self.method_of(class, "__getattribute__"))?;
        let name = self.folder.literal(attr);
        Some(self.call_function(hook, &[value.clone(), name], &[]))
    }

    /// A server of `socketserver` or `http.server` answers each client with a new instance
    /// of the program's handler class: its `setup`, `handle` and `do_*` methods run with
    /// the connection (`self.request`, `self.rfile`, `self.wfile`) and what the client
    /// sent (`self.path`, `self.headers`) as the remote party's.
    pub(super) fn serve_with_handler_class(&mut self, class: u32, stream: &Value) {
        const HANDLERS: &[&str] = &[
            "setup",
            "handle",
            "do_GET",
            "do_POST",
            "do_PUT",
            "do_DELETE",
            "do_HEAD",
            "do_PATCH",
        ];
        const FROM_CLIENT: &[&str] = &[
            "request",
            "rfile",
            "wfile",
            "connection",
            "path",
            "headers",
            "requestline",
        ];
        let instance = Value::instance(class, Vec::new());
        for method in HANDLERS {
            let Some(function) = self.method_of(class, method) else {
                continue;
            };
            let Some(this) = self.first_parameter(function) else {
                continue;
            };
            let bound: Vec<_> = FROM_CLIENT
                .iter()
                .map(|attr| (*attr, self.set_attribute(this, attr, stream.clone())))
                .collect();
            self.call_function(function, std::slice::from_ref(&instance), &[]);
            for (attr, before) in bound {
                self.restore_attribute(this, attr, before);
            }
        }
    }

    /// What Python runs as the class is created: the metaclass makes it from its name,
    /// bases and namespace; the nearest base's `__init_subclass__` gets the class's
    /// keywords; each attribute with `__set_name__` learns its owner and name.
    fn creation_hooks(
        &mut self,
        class: u32,
        name: &'a str,
        bases: &[Value],
        keywords: &[(Option<&'a str>, Value)],
        at: u32,
    ) {
        let value = Value {
            kind: Kind::Class(class),
            taint: Taint::NONE,
        };
        let members = self
            .class(class)
            .map_or_else(Vec::new, |c| c.members.clone());
        let metaclass = self.class(class).and_then(|c| c.metaclass.clone());
        if let Some(metaclass) = metaclass {
            let name = self.folder.literal(name);
            let bases = self.folder.seq(bases.to_vec());
            let namespace = self.namespace(&members);
            self.run_metaclass(&metaclass, &value, vec![name, bases, namespace], at);
        }
        let own_bases = self.class(class).map_or_else(Vec::new, |c| c.bases.clone());
        let init_subclass = own_bases
            .iter()
            .find_map(|b| self.method_of(*b, "__init_subclass__"));
        if let Some(hook) = init_subclass {
            let passed: Vec<(Option<&'a str>, Value)> = keywords
                .iter()
                .filter(|(k, _)| *k != Some("metaclass"))
                .cloned()
                .collect();
            self.call_function(hook, std::slice::from_ref(&value), &passed);
        }
        for (attr, member) in members {
            let Kind::Instance(owner, _) = member.kind else {
                continue;
            };
            if let Some(hook) = self.method_of(owner, "__set_name__") {
                let attr = self.folder.literal(attr);
                self.call_function(hook, &[member, value.clone(), attr], &[]);
            }
        }
    }

    /// `Meta.__new__(Meta, name, bases, ns)` then `Meta.__init__(cls, name, bases, ns)`;
    /// a function given as `metaclass=` is called with `(name, bases, ns)`.
    fn run_metaclass(&mut self, metaclass: &Value, class: &Value, args: Vec<Value>, at: u32) {
        let Kind::Class(meta) = metaclass.kind else {
            call_indirect(self, metaclass, args, at);
            return;
        };
        for (hook, first) in [("__new__", metaclass), ("__init__", class)] {
            if let Some(function) = self.method_of(meta, hook) {
                let mut positional = vec![first.clone()];
                positional.extend(args.iter().cloned());
                self.call_function(function, &positional, &[]);
            }
        }
    }

    /// The class body's bindings as the dict a metaclass receives.
    fn namespace(&mut self, members: &[(&'a str, Value)]) -> Value {
        if members.len() > MAX_FOLDED_ITEMS {
            return Value::UNKNOWN;
        }
        let pairs: Vec<(Value, Value)> = members
            .iter()
            .map(|(name, value)| (self.folder.literal(name), value.clone()))
            .collect();
        Value::bounded_dict(pairs)
    }
}
/// Most instances whose `__del__` is run at the end of the program.
const MAX_FINALIZERS: usize = 8;

impl<'a> Scanner<'a> {
    /// `with value as name:` enters `value`: an instance of the program's class runs its
    /// `__enter__`, whose result is what `name` is bound to; anything else is itself.
    pub(super) fn enter_context(&mut self, value: &Value) -> Value {
        let Kind::Instance(class, _) = value.kind else {
            return value.clone();
        };
        match self.method_of(class, "__enter__") {
            Some(enter) => self.call_function(enter, std::slice::from_ref(value), &[]),
            None => value.clone(),
        }
    }

    /// The `with` block around `value` ends: its class's `__exit__` runs.
    pub(super) fn exit_context(&mut self, value: &Value) {
        if let Kind::Instance(class, _) = value.kind {
            if let Some(exit) = self.method_of(class, "__exit__") {
                let none = Value {
                    kind: Kind::NoneValue,
                    taint: super::value::Taint::NONE,
                };
                let arguments = [value.clone(), none.clone(), none.clone(), none];
                self.call_function(exit, &arguments, &[]);
            }
        }
    }

    /// An instance of `class` was made: when the class has `__del__`, it runs as the
    /// instance goes away, at the latest as the program ends.
    pub(super) fn note_finalizer(&mut self, class: u32, instance: &Value) {
        if self.finalizers.len() < MAX_FINALIZERS {
            if let Some(finalizer) = self.method_of(class, "__del__") {
                self.finalizers.push((finalizer, instance.clone()));
            }
        }
    }

    /// The program ends: the `__del__` of each instance noted runs, with the attributes
    /// the program gave it by then.
    pub(super) fn run_finalizers(&mut self) {
        for (finalizer, instance) in std::mem::take(&mut self.finalizers) {
            self.call_function(finalizer, std::slice::from_ref(&instance), &[]);
        }
    }
}
