//! Walks the parsed program in source order, binding names the way Python would (imports,
//! aliases, rebinding, function scopes, star imports, builtins) and evaluating
//! expressions to `Value`s; calls are handed to `calls`, which applies the rules.
//!
//! Called by `engine`. Invariant: recursion is bounded by `MAX_WALK_DEPTH`; past it the
//! walk stops descending and flags the program as too deep.

use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;
use std::sync::Arc;

use super::catalog::{self, canonical_module, canonical_name};
use super::combine::Capabilities;
use super::command_objects;
use super::findings::{Confidence, Hits};
use super::flow::Function;
use super::input_limits::{
    DECOMPRESS_BUDGET_BYTES, MAX_FOLDED_ITEMS, MAX_UNROLLED_ITEMS, MAX_WALK_DEPTH,
    SHELL_BUDGET_BYTES,
};
use super::parser::{BinOp, Block, Child, Expr, ExprKind, Exprs, FPart, Stmt, StmtKind};
use super::paths::mining_and_escape;
use super::policy::{CompiledSignatures, ThreatMatch};
use super::rules;
use super::value::{
    own_pid_parts, piece, Folder, Kind, Piece, Taint, Value, BIG_BYTES, UNKNOWN_PART,
};

/// Bindings of one scope. SipHash stays: names are attacker-chosen, so a weak hash
/// would let a program make every lookup collide.
pub(super) type Scope<'a> = HashMap<&'a str, Value>;

/// Scanner state for one program.
#[derive(Default)]
pub struct Scanner<'a> {
    pub(super) scopes: Vec<Scope<'a>>,
    star_modules: Vec<Rc<str>>,
    pub folder: Folder,
    pub hits: Hits,
    pub caps: Capabilities,
    /// Constant code strings passed to `exec`/`eval` (true) or to `python -c` (false),
    /// and where.
    pub nested_sources: Vec<(Rc<str>, u32, bool)>,
    depth: u32,
    pub too_deep: Option<u32>,
    /// Bytes of command lines still to be read by `shell::analyse`.
    pub shell_budget: usize,
    /// Evaluating the items of a list or tuple of constant strings only (patterns).
    in_pattern_list: bool,
    /// The program's text (to tell a name spelled out somewhere from one only assembled).
    pub source: &'a str,
    /// Decompressed bytes this program's payloads may still produce.
    pub decompress_budget: usize,
    /// `name.attr = value` bindings by `(name, attr)`; instance attributes (`self.sock`)
    /// are shared by all methods, which is how a class uses them.
    attributes: HashMap<(&'a str, &'a str), Value>,
    /// The same by the class of the instance they were set on (`self.path = p` in a
    /// method of class 3 is `(3, "path")`).
    instance_attributes: HashMap<(u32, &'a str), Value>,
    /// The program's functions and lambdas, indexed by `Kind::Function`.
    pub(super) functions: Vec<Function<'a>>,
    /// Values returned by the functions being followed, innermost last.
    pub(super) returns: Vec<Vec<Value>>,
    /// Values yielded by the functions being followed (generators), innermost last.
    pub(super) yields: Vec<super::flow::Yields>,
    pub(super) inline_depth: u32,
    /// Tree nodes visited so far (gates unrolling, inlining and folding).
    pub(super) work: usize,
    signatures: Arc<CompiledSignatures>,
    /// The loops and definitions being walked, for fork bombs.
    pub(super) forks: super::forks::Forks<'a>,
    /// The program's classes (indexed by `Kind::Class`).
    pub(super) classes: Vec<super::classes::Class<'a>>,
    /// The handlers registered on a generic function of the program's (`@f.register`),
    /// by the generic's index: a call of it runs them.
    pub(super) dispatch_handlers: rustc_hash::FxHashMap<u32, Vec<u32>>,
    /// The program's functions decorated with `@property`: reading the attribute runs them.
    pub(super) properties: rustc_hash::FxHashSet<u32>,
    /// Methods decorated with `@classmethod` (bound to the class) and `@staticmethod`
    /// (bound to nothing), by function index.
    pub(super) classmethods: rustc_hash::FxHashSet<u32>,
    pub(super) staticmethods: rustc_hash::FxHashSet<u32>,
    /// Command-line options' defaults by destination (`add_argument("--dir",
    /// default=...)`): what `args.dir` is when the option is not given.
    argument_defaults: Vec<(String, Value)>,
    /// `parse_args(argv)` was given a command line by the program itself.
    arguments_given: bool,
    /// What the program puts in its queues and the workers that get it.
    pub(super) queues: super::queues::Queues,
    /// Instances whose class has `__del__`, with that method: run as the program ends.
    pub(super) finalizers: Vec<(u32, Value)>,
    /// Signals to unknown pids where functions were defined, by function: judged at the
    /// end unless a call into that function was followed (`process_calls::kill`).
    pub(super) pending_kills: Vec<(u32, u32)>,
    /// The program's functions that some call was followed into.
    pub(super) followed: rustc_hash::FxHashSet<u32>,
    /// Lists and dicts the last followed call was given and filled (`def step(st):
    /// st["s"] = sock`), as (given, filled): the caller's names for them see the change.
    pub(super) filled_arguments: Vec<(usize, Value, Value)>,
    /// How many positional arguments that call was given (a bound method's `self` too).
    pub(super) filled_arity: usize,
    /// Names assigned (`x = ...`) in the calls being followed, innermost last.
    pub(super) assigned: Vec<&'a str>,
}

/// Most handlers followed for one generic function (`@f.register`).
const MAX_DISPATCH_HANDLERS: usize = 8;

/// Most names remembered as assigned in the calls being followed.
const MAX_ASSIGNED: usize = 4096;

/// Most command-line option defaults remembered.
const MAX_ARGUMENT_DEFAULTS: usize = 64;

/// `add_argument("--name", ...)` storing the value given (no `action` other than
/// `store`): an option, not a positional argument, so it may be left out.
fn is_stored_option(args: &super::calls::Args<'_>) -> bool {
    let option = args
        .positional
        .iter()
        .filter_map(Value::exact_text)
        .any(|name| name.starts_with('-'));
    let stores = args
        .keyword("action")
        .is_none_or(|action| action.exact_text() == Some("store"));
    option && stores && args.keyword("required").and_then(Value::as_int) != Some(1)
}

impl<'a> Scanner<'a> {
    pub fn new(signatures: Arc<CompiledSignatures>) -> Scanner<'a> {
        Scanner {
            signatures,
            scopes: vec![Scope::default()],
            shell_budget: SHELL_BUDGET_BYTES,
            decompress_budget: DECOMPRESS_BUDGET_BYTES,
            ..Default::default()
        }
    }

    pub fn scan_block(&mut self, block: Block<'a>) {
        for stmt in block.iter() {
            self.scan_stmt(stmt);
        }
    }

    /// Runs `f` one level deeper, or records the program as too deep and skips it.
    fn deeper<T>(&mut self, at: u32, fallback: T, f: impl FnOnce(&mut Self) -> T) -> T {
        if self.depth >= MAX_WALK_DEPTH {
            self.too_deep.get_or_insert(at);
            return fallback;
        }
        self.depth += 1;
        self.work += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    fn scan_stmt(&mut self, stmt: Stmt<'a>) {
        self.deeper(stmt.start(), (), |s| s.scan_stmt_kind(stmt));
    }

    fn scan_stmt_kind(&mut self, stmt: Stmt<'a>) {
        match stmt.kind() {
            StmtKind::Import(names) => {
                for name in names {
                    self.caps.note_import(name.name, stmt.start());
                    let module = canonical_name(name.name);
                    match name.alias {
                        Some(alias) => self.bind(alias, Value::name(&module)),
                        None => {
                            let top = name.name.split('.').next().unwrap_or(name.name);
                            self.bind(top, Value::name(canonical_module(top)));
                        }
                    }
                }
            }
            StmtKind::ImportFrom {
                module,
                level,
                names,
            } => {
                if let Some(module) = module {
                    self.caps.note_import(module, stmt.start());
                }
                self.import_from(module, level, &names)
            }
            StmtKind::Assign { targets, value } => {
                let value = self.eval(value);
                for target in targets.iter() {
                    self.bind_target(target, value.clone());
                }
            }
            StmtKind::AugAssign { target, op, value } => {
                let current = self.eval(target);
                let value = self.eval(value);
                // `store += item` runs the class's `__iadd__` when it defines one.
                match self.in_place(&current, op, &value) {
                    // An `__iadd__` returning the object itself changed it in place.
                    Some(result) if result == current => {}
                    Some(result) => self.bind_target(target, result),
                    None => {
                        let combined = self.binary(current, op, value);
                        self.bind_target(target, combined);
                    }
                }
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                let items = self.eval(iter);
                let items = self.iterator_of(items, iter.start());
                self.enter_loop(items.length());
                let items = self.own_iterator_pass(items, iter.start());
                self.scan_for(target, items, body);
                self.leave_loop();
                self.scan_block(orelse);
            }
            StmtKind::With { items, body } => {
                let mut contexts = Vec::new();
                for (context, var) in items {
                    let value = self.eval(context);
                    let entered = self.enter_context(&value);
                    if let Some(var) = var {
                        self.bind_target(var, entered);
                    }
                    contexts.push(value);
                }
                self.scan_block(body);
                for context in contexts.iter().rev() {
                    self.exit_context(context);
                }
            }
            StmtKind::Def {
                name,
                body,
                is_class: true,
                ..
            } => self.define_class(stmt, name, body),
            StmtKind::Def {
                name, params, body, ..
            } => {
                let header = stmt.header();
                let is_property = header.decorators.iter().any(|e| is_property_decorator(*e));
                let decorators: Vec<Value> = header
                    .decorators
                    .iter()
                    .map(|e| self.eval(*e))
                    .filter(super::calls::is_callable)
                    .collect();
                let (value, returned) = self.define_function(name, params, body);
                if let (true, Kind::Function(index)) = (is_property, &value.kind) {
                    self.properties.insert(*index);
                }
                if let Kind::Function(index) = value.kind {
                    for decorator in header.decorators.iter() {
                        match decorator.kind() {
                            ExprKind::Name("classmethod") => self.classmethods.insert(index),
                            ExprKind::Name("staticmethod") => self.staticmethods.insert(index),
                            _ => false,
                        };
                        self.register_dispatch_handler(*decorator, index);
                    }
                }
                if name == "__reduce__" || name == "__reduce_ex__" {
                    self.reduce_gadget(&returned, stmt.start());
                }
                // `@decorator` is called with the function (innermost first). The name
                // takes the wrapper a decorator returns (which runs around the function,
                // or a `@contextmanager`'s generator);
                // anything else keeps the function, so later calls are still followed.
                let mut bound = value;
                for decorator in decorators.iter().rev() {
                    let wrapped = super::calls::call_indirect(
                        self,
                        decorator,
                        vec![bound.clone()],
                        stmt.start(),
                    );
                    if matches!(wrapped.kind, Kind::Function(_) | Kind::Partial(_)) {
                        bound = wrapped;
                    }
                }
                self.bind(name, bound);
            }
            StmtKind::Return(value) => {
                let value = value.map_or(Value::UNKNOWN, |v| self.eval(v));
                self.note_return(value);
                self.note_function_returns();
                self.loop_exits();
            }
            StmtKind::Break => self.loop_exits(),
            // `del obj[key]` runs the class's `__delitem__` when it defines one.
            StmtKind::Delete(targets) => {
                for target in targets.iter() {
                    match target.kind() {
                        ExprKind::Subscript { value, index } => {
                            let object = self.eval(value);
                            let key = self.eval(index);
                            self.item_method(&object, "__delitem__", &[key]);
                        }
                        _ => {
                            self.eval(target);
                        }
                    }
                }
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                self.scan_block(body);
                for (types, handler) in handlers {
                    if let Some(types) = types {
                        self.eval(types);
                    }
                    self.enter_handler();
                    self.scan_block(handler);
                    self.leave_handler();
                }
                self.scan_block(orelse);
                self.scan_block(finalbody);
            }
            StmtKind::While { test, body, orelse } => {
                // The test runs on every pass (`while step():`), so it is walked inside.
                self.enter_loop(None);
                let certain = matches!(
                    test.kind(),
                    ExprKind::Bool(_) | ExprKind::Int(_) | ExprKind::Str(_) | ExprKind::Call(_)
                );
                let name = match test.kind() {
                    ExprKind::Name(name) => Some(name),
                    _ => None,
                };
                let test = self.eval(test);
                let forever = test.as_int().is_some_and(|n| n != 0)
                    || test.exact_text().is_some_and(|t| !t.is_empty());
                if forever {
                    self.loop_never_ends(certain);
                }
                let always_true = self.always_true(&test);
                self.scan_block(body);
                // `while sink:` of an object that is always true, never rebound in the loop
                // (`sink += block` through an `__iadd__` that returns it is no rebinding).
                if let (Some(name), true) = (name, always_true) {
                    if !self.is_bound_in_loop(name) {
                        self.loop_never_ends(false);
                    }
                }
                self.leave_loop();
                self.scan_block(orelse);
            }
            StmtKind::Other if stmt.is_main_guard() => self.scan_children(stmt),
            StmtKind::Other if stmt.is_if() || stmt.is_other_branch() => {
                self.enter_branch();
                let narrowed = stmt.lone_if_test().and_then(|test| self.narrow(test));
                self.scan_children(stmt);
                if let Some((name, before, within)) = narrowed {
                    // The narrowing held inside the body only; a value the body bound stays.
                    if self.lookup(name) == within {
                        self.rebind(name, before);
                    }
                }
                self.leave_branch();
            }
            StmtKind::Other if stmt.is_raise() => {
                self.note_end_of_run();
                self.note_may_end();
                // An exception ends the loop it is raised in, as `break` does.
                self.loop_exits();
                self.scan_children(stmt);
            }
            StmtKind::Other => self.scan_children(stmt),
        }
    }

    /// The expressions and blocks of a statement the scanner has no special case for.
    fn scan_children(&mut self, stmt: Stmt<'a>) {
        stmt.for_each_child(|child| match child {
            Child::Expr(e) => {
                self.eval(e);
            }
            Child::Stmt(s) => self.scan_stmt(s),
        });
    }

    fn import_from(
        &mut self,
        module: Option<&'a str>,
        level: u32,
        names: &[super::parser::ImportName<'a>],
    ) {
        let module = match module {
            Some(m) if level == 0 => canonical_name(m).into_owned(),
            _ => String::new(), // relative imports are the program's own modules
        };
        for name in names {
            let bound = name.alias.unwrap_or(name.name);
            if name.name == "*" {
                if !module.is_empty() {
                    self.star_modules.push(module.as_str().into());
                }
            } else if module.is_empty() {
                self.bind(bound, Value::UNKNOWN);
            } else {
                let full = canonical_name(&format!("{module}.{}", name.name)).into_owned();
                self.bind(bound, self.attribute_of_name(&full));
            }
        }
    }

    pub fn bind(&mut self, name: &'a str, value: Value) {
        self.note_bound_in_loop(name);
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name, value);
        }
    }

    pub(super) fn bind_target(&mut self, target: Expr<'a>, value: Value) {
        match target.kind() {
            ExprKind::Name(name) => {
                if self.inline_depth > 0 && self.assigned.len() < MAX_ASSIGNED {
                    self.assigned.push(name);
                }
                self.bind(name, value)
            }
            ExprKind::Sequence(targets) => {
                let items = value
                    .items()
                    .filter(|i| i.len() == targets.len())
                    .map(<[Value]>::to_vec);
                for (i, target) in targets.iter().enumerate() {
                    let item = match &items {
                        Some(items) => items[i].clone(),
                        None => Value::unknown(value.deep_taint().data()),
                    };
                    self.bind_target(target, item);
                }
            }
            ExprKind::Attribute { value: owner, attr } => {
                if let ExprKind::Name(owner) = owner.kind() {
                    self.assign_attribute(owner, attr, value);
                }
            }
            ExprKind::Subscript {
                value: container,
                index,
            } if matches!(container.kind(), ExprKind::Name(_)) => {
                // `handlers["run"] = os.system`: the dict now holds it.
                let ExprKind::Name(name) = container.kind() else {
                    return;
                };
                let current = self.lookup(name);
                let key = self.eval(index);
                if self
                    .item_method(&current, "__setitem__", &[key.clone(), value.clone()])
                    .is_some()
                {
                    return;
                }
                self.note_dict_growth((container, &current), (index, &key), &value, target.start());
                let stored = self.store_item(&current, &key, value);
                self.rebind(name, stored);
            }
            // `self.table[key] = v`: the dict held in an attribute grows the same way.
            ExprKind::Subscript {
                value: container,
                index,
            } => {
                let current = self.eval(container);
                let key = self.eval(index);
                if self
                    .item_method(&current, "__setitem__", &[key.clone(), value.clone()])
                    .is_some()
                {
                    return;
                }
                self.note_dict_growth((container, &current), (index, &key), &value, target.start());
                // It keeps what is stored (`self.handlers[kind] = fn`, a dispatch table).
                if let ExprKind::Attribute { value: owner, attr } = container.kind() {
                    if let (ExprKind::Name(owner), Kind::Dict(_) | Kind::Seq(_)) =
                        (owner.kind(), &current.kind)
                    {
                        let stored = self.store_item(&current, &key, value);
                        if self.attributes.len() < MAX_TRACKED_ATTRIBUTES {
                            self.attributes.insert((owner, attr), stored);
                        }
                    }
                }
            }
            _ => {
                // `f()[k] = v`, `f().x = v`: evaluate the target's parts for their calls.
                target.for_each_child(|child| {
                    if let Child::Expr(e) = child {
                        self.eval(e);
                    }
                });
            }
        }
    }

    /// `table[key] = value` with a key known only at run time adds an entry each time.
    /// The key is computed (`str(self.n)`, `f"{i}"`), so a loop walked once may see it
    /// constant where each pass makes a new one; a literal or a constant name stays.
    /// A dict bound in the loop itself is a new one each pass.
    fn note_dict_growth(
        &mut self,
        (container, dict): (Expr<'a>, &Value),
        (expr, key): (Expr<'a>, &Value),
        value: &Value,
        at: u32,
    ) {
        if !matches!(dict.kind, Kind::Dict(_)) {
            return;
        }
        if let ExprKind::Name(name) = container.kind() {
            if self.is_bound_in_loop(name) {
                return;
            }
        }
        let same_each_pass = match expr.kind() {
            ExprKind::Str(_) | ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::NoneLiteral => true,
            ExprKind::Name(name) => key.is_constant() && !self.is_bound_in_loop(name),
            _ => false,
        };
        if !same_each_pass {
            self.note_growth(at, value.deep_taint().has(Taint::BIG));
        }
    }

    /// Gives `name` a new value where it is bound (an object changed in place, such as a
    /// global dict filled inside a function), or here when it is not bound yet.
    pub(super) fn rebind(&mut self, name: &'a str, value: Value) {
        match self.scopes.iter_mut().rev().find(|s| s.contains_key(name)) {
            Some(scope) => {
                scope.insert(name, value);
            }
            None => self.bind(name, value),
        }
    }

    pub(super) fn lookup(&self, name: &str) -> Value {
        for scope in self.scopes.iter().rev() {
            if let Some(value) = scope.get(name) {
                return value.clone();
            }
        }
        for module in self.star_modules.iter().rev() {
            if catalog::star_exports(module, name) {
                return self.attribute_of_name(&format!("{module}.{name}"));
            }
        }
        builtin(name)
    }

    pub fn eval(&mut self, expr: Expr<'a>) -> Value {
        self.deeper(expr.start(), Value::UNKNOWN, |s| s.eval_kind(expr))
    }

    fn eval_kind(&mut self, expr: Expr<'a>) -> Value {
        match expr.kind() {
            ExprKind::Name(name) => self.lookup(name),
            ExprKind::Attribute { value, attr } => {
                if let Some(bound) = self.bound_attribute(value, attr) {
                    return bound;
                }
                let value = self.eval(value);
                self.attribute(&value, attr)
            }
            ExprKind::Call(call) => super::calls::eval_call(self, call, expr.start()),
            ExprKind::Str(text) => self.literal(text, expr.start()),
            ExprKind::Bytes(bytes) => self.literal(&super::calls::bytes_text(&bytes), expr.start()),
            ExprKind::Int(Some(value)) => Value::int(value),
            ExprKind::Int(None) => Value::UNKNOWN,
            ExprKind::Bool(value) => Value::int(value as i64),
            ExprKind::NoneLiteral => Value {
                kind: Kind::NoneValue,
                taint: Taint::NONE,
            },
            ExprKind::BinOp { left, op, right } => self.binary_chain(left, op, right),
            ExprKind::Negative(operand) => {
                let value = self.eval(operand);
                match value.as_int() {
                    Some(value) => Value::int(value.wrapping_neg()),
                    None => self.unary(value, "__neg__"),
                }
            }
            ExprKind::Invert(operand) => {
                let value = self.eval(operand);
                match value.as_int() {
                    Some(value) => Value::int(!value),
                    None => self.unary(value, "__invert__"),
                }
            }
            ExprKind::Subscript { value, index } => self.subscript(value, index),
            ExprKind::Sequence(items) => {
                let patterns = items.iter().count() > 1
                    && items
                        .iter()
                        .all(|item| matches!(item.kind(), ExprKind::Str(_)));
                let outer = std::mem::replace(&mut self.in_pattern_list, patterns);
                let items = self.eval_spread(items);
                self.in_pattern_list = outer;
                self.folder.seq(items)
            }
            ExprKind::Starred(inner) => self.eval(inner),
            ExprKind::FString(parts) => self.f_string(parts, expr.start()),
            ExprKind::Named { target, value } => {
                let value = self.eval(value);
                self.bind_target(target, value.clone());
                value
            }
            ExprKind::Comprehension { element, clauses } => self.comprehension(element, &clauses),
            ExprKind::DictComprehension {
                key,
                value,
                clauses,
            } => self.dict_comprehension(key, value, &clauses),
            ExprKind::Lambda { params, body } => self.define_lambda(params, body),
            ExprKind::Await(value) => {
                let value = self.eval(value);
                self.note_may_wait();
                value
            }
            ExprKind::Dict(items) => {
                let dict = self.dict(items);
                if super::paths::is_stratum_message(&dict) {
                    // Mining when the program also talks to the network (a pool).
                    self.caps.stratum_message.get_or_insert(expr.start());
                }
                dict
            }
            ExprKind::BoolOp { values, or } => {
                let mut values = values.iter().map(|e| self.eval(e)).collect::<Vec<_>>();
                let first = values.remove(0);
                values.into_iter().fold(first, |left, right| match or {
                    // `a or b` is `a` when `a` is true, else `b`; `a and b` the reverse.
                    true => either(left.clone(), left, right),
                    false => either(left.clone(), right, left),
                })
            }
            ExprKind::Yield(value) => {
                let value = value.map_or(Value::UNKNOWN, |v| self.eval(v));
                self.note_yield(value);
                Value::UNKNOWN
            }
            ExprKind::YieldFrom(items) => {
                let items = self.eval(items);
                // Going through a long list costs as much as walking it.
                let length = items.items().map_or(0, <[Value]>::len);
                self.work = self.work.saturating_add(length);
                match items
                    .items()
                    .filter(|each| each.len() <= MAX_UNROLLED_ITEMS)
                {
                    Some(each) => each.iter().for_each(|item| self.note_yield(item.clone())),
                    None => self.note_yield(items.element()),
                }
                Value::UNKNOWN
            }
            ExprKind::IfElse { test, body, orelse } => {
                let test = self.eval(test);
                let body = self.eval(body);
                let orelse = self.eval(orelse);
                either(test, body, orelse)
            }
            ExprKind::Slice { .. } | ExprKind::Other => self.eval_children(expr),
        }
    }

    /// `__reduce__` returning `(callable, args)`: unpickling the object makes that call, so
    /// it is followed as a call, and a dangerous callable is a payload in disguise.
    fn reduce_gadget(&mut self, returned: &[Value], at: u32) {
        for value in returned {
            let Some([callee, args, ..]) = value.items() else {
                continue;
            };
            if !super::calls::is_callable(callee) {
                continue;
            }
            let positional = args
                .items()
                .map_or_else(|| vec![args.clone()], <[Value]>::to_vec);
            let runs_code = callee
                .qualified_name()
                .and_then(catalog::api)
                .is_some_and(|api| {
                    use catalog::Api::*;
                    matches!(
                        api,
                        Shell | Process | ExecProgram { .. } | PtySpawn | CodeExec | RunPath
                    )
                });
            if runs_code {
                self.hits.add(rules::DECODE_EXECUTE, at, Confidence::Medium);
            }
            super::calls::call_indirect(self, callee, positional, at);
        }
    }

    /// `{key: value}` with known keys folds (up to the fold limits); `**mapping` or a
    /// computed key leaves an unknown value with the data taint of everything in it.
    fn dict(&mut self, items: Vec<(Option<Expr<'a>>, Expr<'a>)>) -> Value {
        let mut pairs = Vec::with_capacity(items.len());
        let mut known = items.len() <= MAX_FOLDED_ITEMS;
        let mut taint = Taint::NONE;
        for (key, value) in items {
            let key = key.map(|k| self.eval(k));
            let value = self.eval(value);
            taint = taint.with(value.deep_taint().data());
            match key {
                Some(key) if key.is_known_key() => pairs.push((key, value)),
                _ => known = false,
            }
        }
        if !known {
            return Value::unknown(taint);
        }
        Value::bounded_dict(pairs)
    }

    /// `a + b + c ...`: a left-deep chain of binary operators, folded left to right
    /// without recursing down its spine (a long flat sum is not deep code).
    fn binary_chain(&mut self, left: Expr<'a>, op: BinOp, right: Expr<'a>) -> Value {
        let mut spine = vec![(op, right)];
        let mut leftmost = left;
        while let ExprKind::BinOp { left, op, right } = leftmost.kind() {
            spine.push((op, right));
            leftmost = left;
        }
        let mut value = self.eval(leftmost);
        for (op, right) in spine.into_iter().rev() {
            let at = right.start();
            let right = self.eval(right);
            value = match command_objects::binary(self, &value, op, &right, at) {
                Some(result) => result,
                None => self.binary(value, op, right),
            };
        }
        value
    }

    /// The value last assigned to `name.attr` (`self.sock = socket.socket()`), if any.
    /// Binds `owner.attr` (an instance's attribute as its methods see it through their
    /// first parameter) and returns what it was bound to before.
    /// `owner.attr = value`, or `setattr(owner, "attr", value)`: a descriptor's `__set__`
    /// runs, a class of the program has the member, and the name's attribute is remembered
    /// (for its class too, so the instance read through another name has it).
    pub(super) fn assign_attribute(&mut self, owner: &'a str, attr: &'a str, value: Value) {
        if self.write_descriptor(owner, attr, &value) {
            return;
        }
        if let Kind::Class(class) = self.lookup(owner).kind {
            self.set_class_member(class, attr, value.clone());
        }
        if self.attributes.len() >= MAX_TRACKED_ATTRIBUTES {
            return;
        }
        // `r.cmd = other` of an instance that keeps `cmd` as its own field: the field
        // changes.
        let instance = self.lookup(owner);
        if let Kind::Instance(class, Some(fields)) = &instance.kind {
            if fields.iter().any(|(name, _)| &**name == attr) {
                let fields = fields
                    .iter()
                    .map(|(name, v)| match &**name == attr {
                        true => (name.clone(), value.clone()),
                        false => (name.clone(), v.clone()),
                    })
                    .collect();
                self.rebind(owner, Value::instance(*class, fields));
            }
        }
        if let Kind::Instance(class, _) = self.lookup(owner).kind {
            if self.instance_attributes.len() < MAX_TRACKED_ATTRIBUTES {
                self.instance_attributes
                    .insert((class, attr), value.clone());
            }
        }
        self.attributes.insert((owner, attr), value);
    }

    /// Takes what methods set on instances of `class` (`self.x = v`) before its
    /// `__init__` runs for a new instance; `keep_init_attributes` puts it back.
    pub(super) fn take_instance_attributes(&mut self, class: u32) -> Vec<(&'a str, Value)> {
        let mut taken = Vec::new();
        self.instance_attributes.retain(|(owner, attr), value| {
            let keep = *owner != class;
            if !keep {
                taken.push((*attr, value.clone()));
            }
            keep
        });
        taken
    }

    /// A new instance of `class` with what its `__init__` set on `self` as its own
    /// fields, so that two instances of one class keep their own `self.tool`; what was
    /// set before on instances of the class is put back beside it.
    pub(super) fn keep_init_attributes(
        &mut self,
        class: u32,
        instance: Value,
        before: Vec<(&'a str, Value)>,
    ) -> Value {
        // Only values no method can change in place: known text, numbers and lists of
        // them (`self.tool = "curl"`); an object or an empty list to be filled later is
        // followed through the class, as before.
        let unchanging = |value: &Value| match &value.kind {
            Kind::Text { .. } | Kind::Int(_) => true,
            Kind::Seq(items) => !items.is_empty() && value.is_constant(),
            _ => false,
        };
        let mut set: Vec<(&'a str, Value)> = (self.instance_attributes.iter())
            .filter(|((owner, _), value)| *owner == class && unchanging(value))
            .map(|((_, attr), value)| (*attr, value.clone()))
            .collect();
        for (attr, value) in before {
            self.instance_attributes
                .entry((class, attr))
                .or_insert(value);
        }
        let Kind::Instance(_, fields) = &instance.kind else {
            return instance;
        };
        if set.is_empty() {
            return instance;
        }
        set.sort_by(|a, b| a.0.cmp(b.0));
        let mut all: Vec<(Rc<str>, Value)> = fields.as_deref().unwrap_or_default().to_vec();
        for (attr, value) in set {
            if !all.iter().any(|(name, _)| &**name == attr) {
                all.push((Rc::from(attr), value));
            }
        }
        Value::instance(class, all)
    }

    /// The name, as the program writes it, of an attribute its methods set on instances
    /// of `class`.
    pub(super) fn instance_attribute_name(&self, class: u32, name: &str) -> Option<&'a str> {
        (self.instance_attributes.keys())
            .find(|(owner, attr)| *owner == class && *attr == name)
            .map(|(_, attr)| *attr)
    }

    pub(super) fn set_attribute(
        &mut self,
        owner: &'a str,
        attr: &'a str,
        value: Value,
    ) -> Option<Value> {
        self.attributes.insert((owner, attr), value)
    }

    /// Puts back what `set_attribute` replaced.
    pub(super) fn restore_attribute(
        &mut self,
        owner: &'a str,
        attr: &'a str,
        before: Option<Value>,
    ) {
        match before {
            Some(value) => self.attributes.insert((owner, attr), value),
            None => self.attributes.remove(&(owner, attr)),
        };
    }

    pub(super) fn bound_attribute(&self, owner: Expr<'a>, attr: &'a str) -> Option<Value> {
        if self.attributes.is_empty() {
            return None;
        }
        let ExprKind::Name(owner) = owner.kind() else {
            return None;
        };
        self.attributes.get(&(owner, attr)).cloned()
    }

    /// Evaluates every child for its effects; the result carries the children's data taint.
    fn eval_children(&mut self, expr: Expr<'a>) -> Value {
        let mut taint = Taint::NONE;
        expr.for_each_child(|child| match child {
            Child::Expr(e) => taint = taint.with(self.eval(e).deep_taint().data()),
            Child::Stmt(s) => self.scan_stmt(s),
        });
        Value::unknown(taint)
    }

    /// A string literal; mining and escape indicators are flagged wherever they appear,
    /// except an escape path in a list of constant strings, flagged where a call is given it.
    fn literal(&mut self, text: &str, at: u32) -> Value {
        let deferred = self.check_indicators(text, at, self.in_pattern_list);
        if !self.in_pattern_list && names_cloud_credentials(text) {
            // The instance's cloud credentials, asked of the metadata service.
            self.hits.add(rules::SECRET_READ, at, Confidence::High);
            self.caps.note_secret(at);
        }
        let value = self.folder.literal(text);
        match deferred {
            true => value.tainted(Taint::ESCAPE_MARKER),
            false => value,
        }
    }

    /// Mining and escape markers and configured known-threat signatures in one string;
    /// with `defer_escape`, an escape marker is not flagged but said to be there.
    pub fn check_indicators(&mut self, text: &str, at: u32, defer_escape: bool) -> bool {
        let (mining, escape) = mining_and_escape(text);
        if mining {
            self.hits.add(rules::CRYPTO_MINING, at, Confidence::High);
        }
        if escape && !defer_escape {
            self.hits
                .add(rules::CONTAINER_ESCAPE, at, Confidence::Medium);
        }
        match self.signatures.check(text) {
            Some(ThreatMatch::KnownThreat) => {
                self.hits.add(rules::KNOWN_THREAT, at, Confidence::High)
            }
            Some(ThreatMatch::MiningPool) => {
                self.hits.add(rules::CRYPTO_MINING, at, Confidence::High)
            }
            None => {}
        }
        escape && defer_escape
    }

    fn f_string(&mut self, parts: Vec<FPart<'a>>, at: u32) -> Value {
        let values: Vec<Option<Value>> = parts
            .iter()
            .map(|p| match p {
                FPart::Text(_) => None,
                FPart::Value(e) => {
                    let value = self.eval(*e);
                    Some(self.as_text(value, "__format__"))
                }
            })
            .collect();
        let taint = values
            .iter()
            .flatten()
            .fold(Taint::NONE, |t, v| t.with(v.deep_taint().data()))
            .with(own_pid_parts(values.iter().flatten()));
        let pieces = parts
            .iter()
            .zip(&values)
            .map(|(part, value)| match (part, value) {
                (FPart::Text(text), _) => Piece::Known(text),
                (_, Some(value)) => piece(value),
                _ => Piece::Unknown,
            });
        let value = self.folder.join(pieces, taint);
        // A listed escape path put into a message stays a pattern until a call uses it.
        let marked = values
            .iter()
            .flatten()
            .any(|v| v.taint.has(Taint::ESCAPE_MARKER));
        match value.text().map(str::to_string) {
            Some(text) if self.check_indicators(&text, at, marked) => {
                value.tainted(Taint::ESCAPE_MARKER)
            }
            _ => value,
        }
    }

    /// `obj.attr = value` where the class of `obj` holds at `attr` an instance of a class
    /// with `__set__` (a data descriptor): that method runs instead. Whether it did.
    fn write_descriptor(&mut self, owner: &str, attr: &str, value: &Value) -> bool {
        let object = self.lookup(owner);
        let Kind::Instance(class, _) = object.kind else {
            return false;
        };
        let Some(member) = self.class_member(class, attr) else {
            return false;
        };
        let Kind::Instance(descriptor_class, _) = member.kind else {
            return false;
        };
        let Some(set) = self.method_of(descriptor_class, "__set__") else {
            return false;
        };
        self.call_function(set, &[member, object, value.clone()], &[]);
        true
    }

    /// An instance of a program class made text (`str(x)`, `f"{x}"`, `repr(x)`): what its
    /// `dunder` (or else `__str__`, then `__repr__`) returns. Anything else is itself.
    pub(super) fn as_text(&mut self, value: Value, dunder: &str) -> Value {
        let Kind::Instance(class, _) = value.kind else {
            return value;
        };
        let method = [dunder, "__str__", "__repr__"]
            .into_iter()
            .find_map(|name| self.method_of(class, name));
        match method {
            Some(index) => self.call_function(index, &[value], &[]),
            None => value,
        }
    }

    /// The `@property` function an instance's attribute reads run, if it is one.
    fn property_getter(&self, value: &Value, attr: &str) -> Option<u32> {
        let Kind::Instance(class, _) = value.kind else {
            return None;
        };
        match self.class_member(class, attr)?.kind {
            Kind::Function(index) if self.properties.contains(&index) => Some(index),
            _ => None,
        }
    }

    /// `a | b` where `a` (or, reflected, `b`) is an instance of a program class that
    /// defines the operator (`__or__`, `__lshift__`, `__radd__`...): what the method returns.
    fn overloaded(&mut self, left: &Value, op: BinOp, right: &Value) -> Option<Value> {
        let instance = |v: &Value| matches!(v.kind, Kind::Instance(..));
        if !instance(left) && !instance(right) {
            return None;
        }
        let name = operator_name(op)?;
        let method = |s: &Self, value: &Value, dunder: String| match value.kind {
            Kind::Instance(class, _) => s.method_of(class, &dunder),
            _ => None,
        };
        if let Some(index) = method(self, left, format!("__{name}__")) {
            return Some(self.call_function(index, &[left.clone(), right.clone()], &[]));
        }
        let index = method(self, right, format!("__r{name}__"))?;
        Some(self.call_function(index, &[right.clone(), left.clone()], &[]))
    }

    /// `@generic.register` or `@generic.register(T)` on the function `handler`, where
    /// `generic` is a function of the program's (`functools.singledispatch`,
    /// `singledispatchmethod`): a call of `generic` runs one of its handlers.
    fn register_dispatch_handler(&mut self, decorator: Expr<'a>, handler: u32) {
        let register = match decorator.kind() {
            ExprKind::Call(call) => call.func(),
            _ => decorator,
        };
        let ExprKind::Attribute {
            value,
            attr: "register",
        } = register.kind()
        else {
            return;
        };
        if let Kind::Function(generic) = self.eval(value).kind {
            let handlers = self.dispatch_handlers.entry(generic).or_default();
            if handlers.len() < MAX_DISPATCH_HANDLERS && generic != handler {
                handlers.push(handler);
            }
        }
    }

    /// `-x`, `~x` of an instance of a program class that defines the operator (`__neg__`,
    /// `__invert__`): what the method returns. Anything else keeps only its data's taint.
    fn unary(&mut self, value: Value, dunder: &str) -> Value {
        let method = match value.kind {
            Kind::Instance(class, _) => self.method_of(class, dunder),
            _ => None,
        };
        match method {
            Some(index) => self.call_function(index, &[value], &[]),
            None => Value::unknown(value.deep_taint().data()),
        }
    }

    /// `a += b` where `a` is an instance of a program class that defines the in-place
    /// operator (`__iadd__`, `__ior__`...): what the method returns.
    fn in_place(&mut self, left: &Value, op: BinOp, right: &Value) -> Option<Value> {
        let Kind::Instance(class, _) = left.kind else {
            return None;
        };
        let index = self.method_of(class, &format!("__i{}__", operator_name(op)?))?;
        Some(self.call_function(index, &[left.clone(), right.clone()], &[]))
    }

    /// A class attribute read through `owner` (an instance or the class): when it is an
    /// instance of a class with `__get__` (a descriptor), what `__get__` returns.
    pub(super) fn read_descriptor(&mut self, member: Value, owner: &Value) -> Value {
        let Kind::Instance(class, _) = member.kind else {
            return member;
        };
        match self.method_of(class, "__get__") {
            Some(get) => self.call_function(get, &[member, owner.clone(), Value::UNKNOWN], &[]),
            None => member,
        }
    }

    /// Evaluates a list of expressions, `*items` spread into its known elements
    /// (`os.path.join(*PARTS)`, `[*base, "-c", code]`).
    pub(super) fn eval_spread(&mut self, exprs: Exprs<'a>) -> Vec<Value> {
        let mut values = Vec::with_capacity(exprs.len());
        for expr in exprs.iter() {
            let ExprKind::Starred(inner) = expr.kind() else {
                values.push(self.eval(expr));
                continue;
            };
            let spread = self.eval(inner);
            match spread.items() {
                Some(items) if items.len() <= MAX_FOLDED_ITEMS => values.extend_from_slice(items),
                _ => values.push(spread),
            }
        }
        values
    }

    /// `value.attr` where `value` is not being called.
    /// `parser.add_argument("--out-dir", default=...)`: remembers the default of `out_dir`.
    pub(super) fn note_argument_default(&mut self, args: &super::calls::Args<'_>) {
        let none = Value {
            kind: Kind::NoneValue,
            taint: Taint::NONE,
        };
        let default = match args.keyword("default") {
            Some(default) => default,
            // An option (`--device`) stored as given is `None` when it is not: what the
            // program does without arguments, as cordon runs it.
            None if is_stored_option(args) => &none,
            None => return,
        };
        let dest = match args.keyword("dest").and_then(Value::exact_text) {
            Some(dest) => dest.to_string(),
            None => match args
                .positional
                .iter()
                .filter_map(Value::exact_text)
                .find(|n| n.starts_with("--"))
                .or_else(|| args.positional.first().and_then(Value::exact_text))
            {
                Some(flag) => flag.trim_start_matches('-').replace('-', "_"),
                None => return,
            },
        };
        if self.argument_defaults.len() < MAX_ARGUMENT_DEFAULTS {
            self.argument_defaults.push((dest, default.clone()));
        }
    }

    /// `parser.set_defaults(cmd=...)`: each keyword is its option's default.
    pub(super) fn note_parser_defaults(&mut self, args: &super::calls::Args<'_>) {
        for (dest, default) in &args.keywords {
            if let (Some(dest), true) = (dest, self.argument_defaults.len() < MAX_ARGUMENT_DEFAULTS)
            {
                self.argument_defaults
                    .push((dest.to_string(), default.clone()));
            }
        }
    }

    /// The program parses a command line of its own making: an option without a default
    /// may be given there, so it is not taken to be `None`.
    pub(super) fn note_arguments_given(&mut self) {
        self.arguments_given = true;
    }

    /// The default of the command-line option stored as `dest`, the latest given.
    fn argument_default(&self, dest: &str) -> Option<Value> {
        let (_, default) = self
            .argument_defaults
            .iter()
            .rev()
            .find(|(d, _)| d == dest)?;
        Some(default.clone())
    }

    pub fn attribute(&mut self, value: &Value, attr: &str) -> Value {
        if let Some(field) = value.field(attr) {
            return field.clone();
        }
        if let Some(getter) = self.property_getter(value, attr) {
            return self.call_function(getter, std::slice::from_ref(value), &[]);
        }
        if let Some(member) = self.member_of(value, attr) {
            return self.read_descriptor(member, value);
        }
        if let Some(member) = self.dynamic_attribute(value, attr) {
            return member;
        }
        if let Some(command) = command_objects::attribute(value, attr) {
            return command;
        }
        // `self.__class__`: the instance's class.
        if let (Kind::Instance(class, _), "__class__") = (&value.kind, attr) {
            return Value {
                kind: Kind::Class(*class),
                taint: Taint::NONE,
            };
        }
        // `obj.path` of an instance handed to a descriptor or a helper: what its class's
        // methods set as `self.path`.
        if let Kind::Instance(class, _) = value.kind {
            if let Some(set) = self.instance_attributes.get(&(class, attr)) {
                return set.clone();
            }
        }
        // A network's own addresses (`net.network_address + 10`) are single hosts.
        if value.taint.has(Taint::HOST_RANGE) && attr.ends_with("_address") {
            return super::calls::one_address(Value::unknown(value.taint.data()));
        }
        let default = match value.taint.has(Taint::EXTERNAL) {
            true => self.argument_default(attr),
            false => None,
        };
        match &value.kind {
            Kind::Function(index) if attr == "__doc__" => {
                match self
                    .functions
                    .get(*index as usize)
                    .and_then(|f| f.docstring())
                {
                    Some(doc) => self.folder.literal(doc),
                    None => Value::UNKNOWN,
                }
            }
            // `os.environ.copy` keeps the environment's taint.
            Kind::Name(name) => self
                .attribute_of_name(&format!("{name}.{attr}"))
                .tainted(value.taint.data()),
            _ if value.taint.has(Taint::CHILD) && attr == "pid" => Value::unknown(Taint::OWN_PID),
            // The stdin of an interpreter reading its program there: written code is run.
            _ if value.taint.has(Taint::CODE_STDIN) && attr == "stdin" => Value {
                kind: value.kind.clone(),
                taint: Taint::CODE_STDIN,
            },
            // An option with no default is `None` without arguments, as cordon runs it.
            _ if matches!(
                default,
                Some(Value {
                    kind: Kind::NoneValue,
                    ..
                })
            ) && !self.arguments_given =>
            {
                default.unwrap_or(Value::UNKNOWN)
            }
            // `args.dir` of parsed options: its default where the option is not given.
            _ if default.is_some() => either(
                Value::UNKNOWN,
                default.unwrap_or(Value::UNKNOWN),
                Value::unknown(value.taint.data()),
            ),
            // `path.write_bytes` taken as a value: the path's method, for when it is called.
            _ if value.taint.has(Taint::PATH) && PATH_METHODS.contains(&attr) => {
                super::calls::bound_method(value, attr)
            }
            // `"".join`, `sep.format`: the text's method, for when it is called.
            Kind::Text { .. } if TEXT_METHODS.contains(&attr) => {
                super::calls::bound_method(value, attr)
            }
            // `hoard.append`, `out.write` taken as a value (`map(hoard.append, blocks)`):
            // the list's or file's method, for when it grows it.
            Kind::Seq(_) if matches!(attr, "append" | "extend") => {
                super::calls::bound_method(value, attr)
            }
            _ if value.taint.has(Taint::FILE_WRITE) && matches!(attr, "write" | "writelines") => {
                super::calls::bound_method(value, attr)
            }
            // `libc.unlink`: the function, by name, for when it is called.
            _ if value.taint.has(Taint::LIBC) => super::calls::text_value(self, attr, value.taint),
            _ if value.taint.has(Taint::PATH) && attr == "parent" => {
                super::calls::parent_path(self, value)
            }
            _ if value.taint.has(Taint::PATH) && attr == "name" => {
                super::calls::path_file_name(self, value)
            }
            // An entry of `os.scandir(dir)` (kept as its path): `entry.path`, `entry.name`.
            Kind::Text { .. } if value.taint.has(Taint::BUILT) && attr == "path" => value.clone(),
            Kind::Text { .. } if value.taint.has(Taint::BUILT) && attr == "name" => {
                super::calls::path_file_name(self, value)
            }
            _ => Value::unknown(value.taint),
        }
    }

    /// A dotted name, with known constants replaced by their values.
    pub fn attribute_of_name(&self, name: &str) -> Value {
        // `os.system.__call__` is `os.system`; `eval.__self__` is the builtins module.
        let name = name.strip_suffix(".__call__").unwrap_or(name);
        let name = match name.strip_suffix(".__self__") {
            Some(function) if function.starts_with("builtins.") => "builtins",
            _ => name,
        };
        let name = canonical_name(name);
        if let Some(command) = command_objects::named(&name) {
            return command;
        }
        if let Some(value) = catalog::constant(&name) {
            return Value::int(value);
        }
        if name == "os.environ" || name == "os.environb" {
            // The whole environment holds whatever secrets the job was given.
            return Value::name(&name).tainted(Taint::SECRET.with(Taint::ENVIRONMENT));
        }
        // What a web request carries (`flask.request.args["cmd"]`) is the remote party's.
        if WEB_REQUESTS.iter().any(|r| {
            name.strip_prefix(r)
                .is_some_and(|rest| rest.starts_with('.'))
        }) {
            return named(&name).tainted(Taint::NETWORK);
        }
        if let Some(text) = catalog::text_constant(&name) {
            return Value {
                kind: Kind::Text {
                    text: text.into(),
                    exact: true,
                },
                taint: Taint::NONE,
            };
        }
        named(&name)
    }

    pub fn binary(&mut self, left: Value, op: BinOp, right: Value) -> Value {
        if let Some(result) = self.overloaded(&left, op, &right) {
            return result;
        }
        let taint = left.deep_taint().with(right.deep_taint()).data();
        let path = left.taint.has(Taint::PATH);
        match (op, &left.kind, &right.kind) {
            // Two listings added are a list of both kinds of element.
            (BinOp::Add, Kind::Text { .. }, Kind::Text { .. })
                if left.taint.has(Taint::LISTING) && right.taint.has(Taint::LISTING) =>
            {
                self.folder.seq(vec![left.clone(), right.clone()])
            }
            // `found += glob.glob(pattern)`: a list that now holds that kind of element too.
            (BinOp::Add, Kind::Seq(items), Kind::Text { .. })
                if right.taint.has(Taint::LISTING) =>
            {
                let mut items = items.to_vec();
                items.push(right.clone());
                self.folder.seq(items)
            }
            (BinOp::Add, Kind::Text { .. }, _) | (BinOp::Add, _, Kind::Text { .. }) => {
                let taint = taint.with(own_pid_parts([&left, &right]));
                self.folder.join([piece(&left), piece(&right)], taint)
            }
            (BinOp::Div, Kind::Text { .. }, _) if path => self
                .folder
                .join([piece(&left), Piece::Known("/"), piece(&right)], taint)
                .tainted(Taint::PATH),
            (BinOp::Mod, Kind::Text { text, .. }, _) => {
                let args = right
                    .items()
                    .map_or_else(|| vec![right.clone()], <[Value]>::to_vec);
                // `"%(cmd)s" % {"cmd": ...}`: named fields from a dict with known keys.
                let named: Vec<(&str, Value)> = match &right.kind {
                    Kind::Dict(pairs) => pairs
                        .iter()
                        .filter_map(|(k, v)| k.exact_text().map(|k| (k, v.clone())))
                        .collect(),
                    _ => Vec::new(),
                };
                let pieces = super::fold::substitute_named(text, &args, &named, false);
                let taint = taint.with(own_pid_parts(args.iter().chain([&left])));
                self.folder.join(pieces, taint)
            }
            // `"../" * 6`: repetition within the fold limits.
            (BinOp::Mul, Kind::Text { text, .. }, Kind::Int(n))
            | (BinOp::Mul, Kind::Int(n), Kind::Text { text, .. })
                if (0..=64).contains(n) && text.len() * (*n as usize) <= MAX_REPEATED_STR =>
            {
                let repeated = text.repeat(*n as usize);
                self.folder.join([Piece::Known(&repeated)], taint)
            }
            (BinOp::Add, Kind::Seq(a), Kind::Seq(b)) => {
                self.folder.seq(a.iter().chain(b.iter()).cloned().collect())
            }
            // `["sudo", "--"] + shlex.split(cmd)`: the known part of an argv still counts.
            (BinOp::Add, Kind::Seq(a), _) => {
                let rest = Value::unknown(right.deep_taint().data());
                self.folder.seq(a.iter().cloned().chain([rest]).collect())
            }
            (BinOp::Add, _, Kind::Seq(b)) => {
                let first = Value::unknown(left.deep_taint().data());
                self.folder
                    .seq([first].into_iter().chain(b.iter().cloned()).collect())
            }
            // `b"x" * (1 << 24)`: too long to fold, but known to be big.
            (BinOp::Mul, Kind::Text { .. }, Kind::Int(n))
            | (BinOp::Mul, Kind::Int(n), Kind::Text { .. })
                if *n >= BIG_BYTES =>
            {
                Value::unknown(taint.with(Taint::BIG))
            }
            (_, Kind::Int(a), Kind::Int(b)) => {
                int_op(*a, op, *b).map_or(Value::UNKNOWN, Value::int)
            }
            // `os.stat(p).st_mode | stat.S_ISUID`: the result has at least the known bits,
            // which is all the mode and flag rules ask.
            (BinOp::BitOr, Kind::Int(bits), Kind::Unknown)
            | (BinOp::BitOr, Kind::Unknown, Kind::Int(bits)) => Value::int(*bits),
            _ => Value::unknown(taint),
        }
    }

    fn subscript(&mut self, value: Expr<'a>, index: Expr<'a>) -> Value {
        let container = self.eval(value);
        if let ExprKind::Slice { lower, upper, step } = index.kind() {
            let mut bound = |e: Option<Expr<'a>>| e.map(|e| self.eval(e).as_int());
            let (lower, upper, step) = (bound(lower), bound(upper), bound(step));
            return self.slice(&container, lower, upper, step);
        }
        let key = self.eval(index);
        self.item(&container, &key)
    }

    /// `container[key]` of values already evaluated (a subscript, `itemgetter(key)`).
    pub(super) fn item(&mut self, container: &Value, key: &Value) -> Value {
        if let Some(command) = command_objects::item(container, key) {
            return command;
        }
        // A class's `__getitem__`, or a dict subclass's `__missing__` for a key it may lack.
        for dunder in ["__getitem__", "__missing__"] {
            if let Some(value) = self.item_method(container, dunder, std::slice::from_ref(key)) {
                return value;
            }
        }
        if let Kind::Dict(_) = container.kind {
            return match container.get(key) {
                Some(value) => value.clone(),
                None if key.is_constant() => Value::unknown(container.deep_taint().data()),
                None => super::containers::any_callable(container)
                    .or_else(|| super::containers::any_of_texts(self, container))
                    .unwrap_or_else(|| Value::unknown(container.deep_taint().data())),
            };
        }
        match (&container.kind, key.exact_text(), key.as_int()) {
            (Kind::Name(name), _, _) if name.starts_with("os.environ") => {
                super::calls::environment_value(Some(key))
            }
            (Kind::Name(name), Some(key), _) if &**name == "sys.modules" => {
                Value::name(&canonical_name(key))
            }
            (Kind::Name(_), Some("__builtins__"), _) => Value::name("builtins"),
            (_, Some(function), _) if container.taint.has(Taint::LIBC) => {
                super::calls::text_value(self, function, container.taint)
            }
            (Kind::Name(name), _, Some(0)) if &**name == "sys.argv" => Value::own_script(),
            // `__builtins__["exec"]` (a dict outside `__main__`).
            (Kind::Name(name), Some(key), _) if &**name == "builtins" => {
                self.attribute_of_name(&format!("builtins.{key}"))
            }
            (Kind::Name(name), Some(key), _) if name.ends_with(".__dict__") => {
                let owner = &name[..name.len() - ".__dict__".len()];
                self.attribute_of_name(&format!("{owner}.{key}"))
            }
            (Kind::Text { .. }, _, _) if container.taint.has(Taint::LISTING) => container.element(),
            (Kind::Seq(items), _, Some(i)) => usize::try_from(i)
                .ok()
                .and_then(|i| items.get(i).cloned())
                .unwrap_or(Value::UNKNOWN),
            _ => Value::unknown(container.deep_taint().data()),
        }
    }
}

impl Scanner<'_> {
    /// `container[lower:upper:step]` of known text or a known list, as Python slices; each
    /// bound is `None` when absent and `Some(None)` when not known. Any text reversed
    /// (`[::-1]`) reads backwards, its unknown parts too.
    fn slice(
        &mut self,
        container: &Value,
        lower: Option<Option<i64>>,
        upper: Option<Option<i64>>,
        step: Option<Option<i64>>,
    ) -> Value {
        let unknown = Value::unknown(container.deep_taint().data());
        // Folding copies what it keeps: only texts and lists short enough to fold at all.
        let short = match &container.kind {
            Kind::Text { text, .. } => text.len() <= MAX_SLICED_BYTES,
            Kind::Seq(items) => items.len() <= MAX_FOLDED_ITEMS,
            _ => false,
        };
        if !short || !self.has_budget() {
            return unknown;
        }
        // A slice copies up to the whole text or list: charged to the walk's budget.
        self.work += match &container.kind {
            Kind::Text { text, .. } => text.len() / 64,
            Kind::Seq(items) => items.len() / 4,
            _ => 0,
        };
        let (Some(lower), Some(upper), Some(step)) = (
            lower.map_or(Some(None), |b| b.map(Some)),
            upper.map_or(Some(None), |b| b.map(Some)),
            step.map_or(Some(1), |b| b),
        ) else {
            return unknown;
        };
        if let (Kind::Text { text, .. }, None, None, -1) = (&container.kind, lower, upper, step) {
            let reversed: String = text.chars().rev().collect();
            return self.folder.join([Piece::Known(&reversed)], container.taint);
        }
        match (&container.kind, container.exact_text()) {
            (Kind::Text { .. }, Some(text)) => {
                let chars: Vec<char> = text.chars().collect();
                match slice_indices(chars.len(), lower, upper, step) {
                    Some(picked) => {
                        let sliced: String = picked.into_iter().map(|i| chars[i]).collect();
                        self.folder.join([Piece::Known(&sliced)], container.taint)
                    }
                    None => unknown,
                }
            }
            (Kind::Seq(items), _) => match slice_indices(items.len(), lower, upper, step) {
                Some(picked) => self
                    .folder
                    .seq(picked.into_iter().map(|i| items[i].clone()).collect()),
                None => unknown,
            },
            _ => unknown,
        }
    }
}

/// The indices `[lower:upper:step]` picks from a sequence of `len` items, as Python
/// computes them (negative bounds count from the end, out-of-range ones are clamped).
fn slice_indices(
    len: usize,
    lower: Option<i64>,
    upper: Option<i64>,
    step: i64,
) -> Option<Vec<usize>> {
    let len = i64::try_from(len).ok()?;
    if step == 0 {
        return None;
    }
    let clamp = |bound: i64, low: i64, high: i64| {
        let bound = if bound < 0 { bound + len } else { bound };
        bound.clamp(low, high)
    };
    let (start, stop) = match step > 0 {
        true => (
            lower.map_or(0, |b| clamp(b, 0, len)),
            upper.map_or(len, |b| clamp(b, 0, len)),
        ),
        false => (
            lower.map_or(len - 1, |b| clamp(b, -1, len - 1)),
            upper.map_or(-1, |b| clamp(b, -1, len - 1)),
        ),
    };
    let mut picked = Vec::new();
    let mut at = start;
    while (step > 0 && at < stop) || (step < 0 && at > stop) {
        picked.push(usize::try_from(at).ok()?);
        match at.checked_add(step) {
            Some(next) => at = next,
            None => break,
        }
    }
    Some(picked)
}

/// `body if test else orelse`: the branch a constant test picks; otherwise the branch
/// that is something callable or text (the one the rules can follow), taints merged.
pub(super) fn either(test: Value, body: Value, orelse: Value) -> Value {
    let truth = match test.kind {
        Kind::NoneValue => Some(false),
        _ => test
            .as_int()
            .map(|n| n != 0)
            .or_else(|| test.exact_text().map(|t| !t.is_empty())),
    };
    match truth {
        Some(true) => return body,
        Some(false) => return orelse,
        None => {}
    }
    // `None` is no value to run or open: the other branch is what any use of it meets.
    match (&body.kind, &orelse.kind) {
        (Kind::NoneValue, _) => return orelse,
        (_, Kind::NoneValue) => return body,
        _ => {}
    }
    // Text with nothing known in it (`[Path(p) for p in env.split(":")]`) tells less
    // than a list or text that names something (`[Path.home() / ".kube/config"]`).
    let followable = |v: &Value| match &v.kind {
        Kind::Name(_) | Kind::Function(_) | Kind::Partial(_) => 3,
        Kind::Text { text, .. } if text.chars().all(|c| c == UNKNOWN_PART) => 1,
        Kind::Text { .. } | Kind::Seq(_) | Kind::Dict(_) => 2,
        _ => 0,
    };
    let taint = body.deep_taint().data().with(orelse.deep_taint().data());
    if body == orelse {
        return body;
    }
    let (mut pick, other) = if followable(&orelse) > followable(&body) {
        (orelse, body)
    } else {
        (body, orelse)
    };
    // The program's own file (or pickled bytes) only when both alternatives are.
    if !other.taint.has(Taint::OWN_FILE) {
        pick.taint = pick.taint.without(Taint::OWN_FILE);
    }
    // Text picked over something else is no longer known exactly (`x if c else "TODO"`).
    if let (Kind::Text { text, exact: true }, false) = (&pick.kind, other == pick) {
        pick.kind = Kind::Text {
            text: text.clone(),
            exact: false,
        };
    }
    pick.tainted(taint)
}

fn int_op(a: i64, op: BinOp, b: i64) -> Option<i64> {
    match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Mul => a.checked_mul(b),
        BinOp::BitOr => Some(a | b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::BitXor => Some(a ^ b),
        BinOp::BitAnd => Some(a & b),
        BinOp::Pow => u32::try_from(b).ok().and_then(|b| a.checked_pow(b)),
        BinOp::LShift => u32::try_from(b)
            .ok()
            .filter(|b| *b < 63)
            .and_then(|b| a.checked_mul(1 << b)),
        BinOp::RShift => u32::try_from(b).ok().map(|b| a >> b.min(63)),
        _ => None,
    }
}

/// Methods of paths that act on the file when taken as a value and called later
/// (`asyncio.to_thread(path.write_bytes, data)`).
const PATH_METHODS: &[&str] = &[
    "write_text",
    "write_bytes",
    "read_text",
    "read_bytes",
    "open",
    "unlink",
    "rmdir",
    "chmod",
];

/// Methods of text that fold when taken as a value and called later (`map("".join, xs)`).
const TEXT_METHODS: &[&str] = &["join", "format", "replace", "encode", "decode", "translate"];

/// Longest text sliced by folding (`s[1:]`, `s[::-1]`): each slice copies it.
const MAX_SLICED_BYTES: usize = 4096;

/// Longest string a repetition (`"ab" * n`) is folded to.
const MAX_REPEATED_STR: usize = 4096;

/// Most `name.attr` bindings remembered per program.
const MAX_TRACKED_ATTRIBUTES: usize = 4096;

/// Whether a text names where a cloud metadata service hands out the instance's
/// credentials (AWS, GCP, Azure), to whoever asks from the machine.
pub(super) fn names_cloud_credentials(text: &str) -> bool {
    const ENDPOINTS: &[&str] = &[
        "meta-data/iam/security-credentials",
        "instance/service-accounts/default/token",
        "metadata/identity/oauth2/token",
    ];
    // A URL or path, not prose (a docstring explaining the service).
    text.len() >= 24
        && !text.contains(char::is_whitespace)
        && ENDPOINTS.iter().any(|e| text.contains(e))
}

/// Builtins the rules care about, with their qualified names; other unbound names are
/// unknown.
const KNOWN_BUILTINS: &[(&str, &str)] = &[
    ("exec", "builtins.exec"),
    ("eval", "builtins.eval"),
    ("compile", "builtins.compile"),
    ("open", "builtins.open"),
    ("__import__", "builtins.__import__"),
    ("getattr", "builtins.getattr"),
    ("setattr", "builtins.setattr"),
    ("chr", "builtins.chr"),
    ("bytes", "builtins.bytes"),
    ("bytearray", "builtins.bytearray"),
    ("vars", "builtins.vars"),
    ("globals", "builtins.globals"),
    ("str", "builtins.str"),
    ("repr", "builtins.repr"),
    ("print", "builtins.print"),
    ("format", "builtins.format"),
    ("reversed", "builtins.reversed"),
    ("map", "builtins.map"),
    ("filter", "builtins.filter"),
    ("exit", "builtins.exit"),
    ("quit", "builtins.quit"),
    ("ord", "builtins.ord"),
    ("type", "builtins.type"),
    ("property", "builtins.property"),
    ("staticmethod", "builtins.staticmethod"),
    ("object", "builtins.object"),
    ("classmethod", "builtins.classmethod"),
    ("list", "builtins.list"),
    ("tuple", "builtins.tuple"),
    ("set", "builtins.set"),
    ("frozenset", "builtins.frozenset"),
    ("sorted", "builtins.sorted"),
    ("dict", "builtins.dict"),
    ("range", "builtins.range"),
    ("iter", "builtins.iter"),
    ("next", "builtins.next"),
    ("zip", "builtins.zip"),
    ("enumerate", "builtins.enumerate"),
    ("int", "builtins.int"),
    ("float", "builtins.float"),
    ("bool", "builtins.bool"),
    ("input", "builtins.input"),
];

/// `@property`, `@functools.cached_property`, `@cached_property`.
fn is_property_decorator(decorator: Expr<'_>) -> bool {
    match decorator.kind() {
        ExprKind::Name(name) => matches!(name, "property" | "cached_property"),
        ExprKind::Attribute { attr, .. } => attr == "cached_property",
        _ => false,
    }
}

/// An unbound name: a builtin the rules know, or unknown.
fn builtin(name: &str) -> Value {
    match name {
        "__builtins__" => return Value::name("builtins"),
        "__file__" => return Value::own_script(),
        _ => {}
    }
    match KNOWN_BUILTINS.iter().find(|(short, _)| *short == name) {
        Some((_, qualified)) => named(qualified),
        None => Value::UNKNOWN,
    }
}

/// A qualified name; one whose value comes from outside the program (`sys.argv`,
/// `input`) carries that, and so does what is read or called from it.
fn named(name: &str) -> Value {
    let value = Value::name(name);
    match catalog::from_outside(name) {
        true => value.tainted(Taint::EXTERNAL),
        false => value,
    }
}

/// The request objects of web frameworks: their attributes hold what a client sent.
const WEB_REQUESTS: &[&str] = &[
    "flask.request",
    "quart.request",
    "bottle.request",
    "werkzeug.local.request",
];

/// The name of `op`'s dunder methods, between `__` (or `__r`, `__i`) and `__`.
fn operator_name(op: BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add => "add",
        BinOp::Mul => "mul",
        BinOp::Mod => "mod",
        BinOp::Div => "truediv",
        BinOp::BitOr => "or",
        BinOp::Sub => "sub",
        BinOp::BitXor => "xor",
        BinOp::BitAnd => "and",
        BinOp::Pow => "pow",
        BinOp::LShift => "lshift",
        BinOp::RShift => "rshift",
        BinOp::Other => return None,
    })
}
