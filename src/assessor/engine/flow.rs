//! Control flow the scanner follows beyond one straight walk: `for` loops over known lists
//! are unrolled, comprehensions over known lists are folded, and calls to the program's
//! own functions and lambdas are followed into their bodies with the arguments bound.
//!
//! Part of `Scanner` (called from `scan` and `calls`). Invariant: every repetition is
//! gated by `limits` (items per loop, inline depth, a per-program node budget), so the
//! work stays proportional to the program; past the budget the plain walk still runs.

use super::input_limits::{
    MAX_FOLDED_ITEMS, MAX_INLINE_DEPTH, MAX_UNROLLED_ITEMS, WORK_BUDGET_NODES,
};
use super::parser::{Block, Child, Clause, Expr, ExprKind, Param, ParamKind, Stmt};
use super::scan::{Scanner, Scope};
use super::value::{Kind, Taint, Value, UNKNOWN_PART};

/// A function or lambda of the program, as the scanner keeps it for later calls.
#[derive(Clone)]
pub struct Function<'a> {
    params: Vec<(&'a str, ParamKind)>,
    /// Each parameter's default value, evaluated where the function was defined.
    defaults: Vec<Option<Value>>,
    body: Body<'a>,
    /// How many scopes were open where it was defined (its lexical environment).
    scope_depth: usize,
    /// For a function defined inside another: the enclosing functions' bindings as they
    /// were when it was defined (a closure).
    captured: Option<std::rc::Rc<Scope<'a>>>,
}

impl<'a> Function<'a> {
    /// Whether its body may stop an iteration: it raises, or it takes items from
    /// something that runs out (`next(it)`, `xs[i]`, `xs.pop()`, `q.get_nowait()`), which
    /// raises `StopIteration`, `IndexError` and the like at the end.
    pub(super) fn may_run_out(&self) -> bool {
        let mut found = false;
        match self.body {
            Body::Block(block) => block
                .iter()
                .for_each(|stmt| runs_out_stmt(stmt, &mut found)),
            Body::Expr(expr) => runs_out_expr(expr, &mut found),
        }
        found
    }

    /// Its docstring (`f.__doc__`); a lambda has none.
    pub(super) fn docstring(&self) -> Option<&'a str> {
        match self.body {
            Body::Block(block) => block.docstring(),
            Body::Expr(_) => None,
        }
    }
}

#[derive(Clone, Copy)]
enum Body<'a> {
    Block(Block<'a>),
    Expr(Expr<'a>),
}

impl<'a> Scanner<'a> {
    pub(super) fn has_budget(&self) -> bool {
        self.work < WORK_BUDGET_NODES
    }

    /// `for target in iter: body`: once per item of a short known list, else once with
    /// the target bound to what iterating yields.
    pub(super) fn scan_for(&mut self, target: Expr<'a>, items: Value, body: Block<'a>) {
        let unrolled = items
            .iterated()
            .filter(|list| !list.is_empty() && list.len() <= MAX_UNROLLED_ITEMS);
        match unrolled {
            Some(list) if self.has_budget() => {
                self.loop_unrolled();
                for item in list {
                    self.bind_target(target, item);
                    self.scan_block(body);
                    if !self.has_budget() {
                        break;
                    }
                }
            }
            _ => {
                self.bind_target(target, items.element());
                self.scan_block(body);
            }
        }
    }

    /// A list, set or generator comprehension, in its own scope.
    pub(super) fn comprehension(&mut self, element: Expr<'a>, clauses: &[Clause<'a>]) -> Value {
        self.scopes.push(Scope::default());
        let value = match clauses {
            // Conditions are evaluated per item but not decided: every item is kept.
            [only] => self.fold_comprehension(element, *only),
            _ => self.walk_comprehension(element, clauses),
        };
        self.scopes.pop();
        value
    }

    /// `{k: v for ...}`: keys and values are evaluated like a list comprehension's
    /// elements (what the dict holds is kept as its data taint).
    pub(super) fn dict_comprehension(
        &mut self,
        key: Option<Expr<'a>>,
        value: Expr<'a>,
        clauses: &[Clause<'a>],
    ) -> Value {
        let keys = key.map_or(Value::UNKNOWN, |key| self.comprehension(key, clauses));
        let values = self.comprehension(value, clauses);
        // Folded item by item with constant keys: a dict like any other.
        if let (Some(keys), Some(values)) = (keys.items(), values.items()) {
            let constant = |k: &Value| k.exact_text().is_some() || k.as_int().is_some();
            if keys.len() == values.len() && keys.iter().all(constant) {
                let pairs: Vec<(Value, Value)> =
                    keys.iter().cloned().zip(values.iter().cloned()).collect();
                return Value::bounded_dict(pairs);
            }
        }
        Value::unknown(keys.deep_taint().data().with(values.deep_taint().data()))
    }

    /// `[f(x) for x in <known list or text>]` evaluates `f` per item into a list. The
    /// clause is a loop like `for` (for what its element starts).
    fn fold_comprehension(&mut self, element: Expr<'a>, clause: Clause<'a>) -> Value {
        let iter = self.eval(clause.iter);
        let iter = self.iterator_of(iter, clause.iter.start());
        self.enter_loop(iter.length());
        let value = self.fold_items(element, clause, iter);
        self.leave_loop();
        value
    }

    fn fold_items(&mut self, element: Expr<'a>, clause: Clause<'a>, iter: Value) -> Value {
        let items: Option<Vec<Value>> = match (&iter.kind, iter.exact_text()) {
            (Kind::Seq(_) | Kind::Dict(_), _) => iter.iterated(),
            (_, Some(text)) if text.chars().count() <= MAX_FOLDED_ITEMS => {
                Some(text.chars().map(|c| self.char_value(c)).collect())
            }
            _ => None,
        };
        match items {
            Some(items) if self.has_budget() => {
                self.loop_unrolled();
                let mut results = Vec::with_capacity(items.len());
                for item in items {
                    if !self.has_budget() {
                        // Out of budget mid-way: what was folded so far only lends its taint.
                        let taint = results
                            .iter()
                            .fold(Taint::NONE, |t, v: &Value| t.with(v.deep_taint().data()));
                        return Value::unknown(taint);
                    }
                    self.bind_target(clause.target, item);
                    for condition in clause.conditions.iter() {
                        self.eval(condition);
                        self.narrow(condition);
                    }
                    results.push(self.eval(element));
                }
                self.folder.seq(results)
            }
            _ => {
                self.bind_target(clause.target, iter.element());
                for condition in clause.conditions.iter() {
                    self.eval(condition);
                    self.narrow(condition);
                }
                let value = self.eval(element);
                // `[Node(d + 1) for _ in range(2)]`: as many of the element as the clause
                // goes round, when they are few and none is filtered out.
                let unfiltered = clause.conditions.iter().next().is_none();
                match iter.length().and_then(|n| usize::try_from(n).ok()) {
                    Some(n @ 1..=MAX_UNROLLED_ITEMS) if unfiltered => {
                        Value::bounded_seq(vec![value; n])
                    }
                    _ => collection_of(value),
                }
            }
        }
    }

    /// What a name found at run time is, where a test on it holds: `f.startswith(".env")`
    /// makes a wholly unknown file name `.env<?>`, `f.endswith(".pem")` makes it `<?>.pem`.
    /// `None` when the test narrows nothing; else the name, its value before and within.
    pub(super) fn narrow(&mut self, test: Expr<'a>) -> Option<(&'a str, Value, Value)> {
        // `a and b`: both hold inside, so the first that narrows does. `a or b`: one of
        // them holds, and the first that narrows stands for them (`name == ".env" or
        // name.startswith(".env.")` is a `.env` file).
        if let ExprKind::BoolOp { values, .. } = test.kind() {
            return values.iter().find_map(|value| self.narrow(value));
        }
        let (name, narrowed_file) = match test.name_equals_text() {
            Some((name, None | Some("name"), text)) => (name, text.to_string()),
            Some((name, Some("suffix"), text)) => (name, format!("{UNKNOWN_PART}{text}")),
            Some((name, Some("stem"), text)) => (name, format!("{text}{UNKNOWN_PART}")),
            Some(_) => return None,
            None => self.narrowed_by_affix(test)?,
        };
        let before = self.lookup(name);
        let text = before.text()?;
        let (dir, file) = match text.rsplit_once('/') {
            Some((dir, file)) => (Some(dir), file),
            None => (None, text),
        };
        let found = !file.is_empty() && file.chars().all(|c| c == UNKNOWN_PART);
        if !found || narrowed_file.contains('/') {
            return None;
        }
        let file = narrowed_file;
        let narrowed = match dir {
            Some(dir) => format!("{dir}/{file}"),
            None => file,
        };
        let within =
            super::calls::text_value(self, &narrowed, before.taint.without(Taint::LISTING));
        self.rebind(name, within.clone());
        Some((name, before, within))
    }

    /// `name.startswith(".env")` or `name.endswith(".pem")`: the name, and what a wholly
    /// unknown file name is where the test holds (`.env<?>`, `<?>.pem`).
    fn narrowed_by_affix(&mut self, test: Expr<'a>) -> Option<(&'a str, String)> {
        let ExprKind::Call(call) = test.kind() else {
            return None;
        };
        let ExprKind::Attribute { value, attr } = call.func().kind() else {
            return None;
        };
        // `name.endswith(...)`, or `path.name.endswith(...)` of a path.
        let name = match value.kind() {
            ExprKind::Name(name) => name,
            ExprKind::Attribute {
                value,
                attr: "name",
            } => match value.kind() {
                ExprKind::Name(name) => name,
                _ => return None,
            },
            _ => return None,
        };
        let affix = call.args().iter().next().map(|a| self.eval(a))?;
        let affix = affix.exact_text()?;
        match attr {
            "startswith" => Some((name, format!("{affix}{UNKNOWN_PART}"))),
            "endswith" => Some((name, format!("{UNKNOWN_PART}{affix}"))),
            _ => None,
        }
    }

    /// Several `for` clauses: nested loops, walked once each.
    fn walk_comprehension(&mut self, element: Expr<'a>, clauses: &[Clause<'a>]) -> Value {
        if let [first, rest @ ..] = clauses {
            let iter = self.eval(first.iter);
            let iter = self.iterator_of(iter, first.iter.start());
            return match iter.iterated() {
                // As many items as a `for` loop is unrolled over (each walks every clause
                // inside it).
                Some(items) if items.len() <= MAX_UNROLLED_ITEMS && self.has_budget() => {
                    self.unroll_outer_clause(element, *first, items, rest)
                }
                _ => self.walk_clauses(element, iter, clauses),
            };
        }
        self.walk_clauses(element, Value::UNKNOWN, clauses)
    }

    /// `[f for p in PATHS for f in read(p)]` with `PATHS` a short known list: the inner
    /// clauses are walked once per item of the outer one, with the item bound. Out of
    /// budget part-way, the result is no longer a known list.
    fn unroll_outer_clause(
        &mut self,
        element: Expr<'a>,
        outer: Clause<'a>,
        items: Vec<Value>,
        inner: &[Clause<'a>],
    ) -> Value {
        self.enter_loop(Some(items.len() as i64));
        self.loop_unrolled();
        let mut parts = Vec::with_capacity(items.len());
        for item in items {
            if !self.has_budget() {
                parts.push(Value::UNKNOWN);
                break;
            }
            self.bind_target(outer.target, item);
            for condition in outer.conditions.iter() {
                self.eval(condition);
            }
            parts.push(match inner {
                [only] => self.fold_comprehension(element, *only),
                _ => self.walk_comprehension(element, inner),
            });
        }
        self.leave_loop();
        match parts.iter().map(Value::items).collect::<Option<Vec<_>>>() {
            Some(lists) => Value::bounded_seq(lists.into_iter().flatten().cloned().collect()),
            None => Value::unknown(
                parts
                    .iter()
                    .fold(Taint::NONE, |t, v| t.with(v.deep_taint().data())),
            ),
        }
    }

    /// The clauses walked once each; `first_iter` is the first clause's, evaluated.
    fn walk_clauses(
        &mut self,
        element: Expr<'a>,
        first_iter: Value,
        clauses: &[Clause<'a>],
    ) -> Value {
        for (i, clause) in clauses.iter().enumerate() {
            let iter = match i {
                0 => first_iter.clone(),
                _ => {
                    let iter = self.eval(clause.iter);
                    self.iterator_of(iter, clause.iter.start())
                }
            };
            self.enter_loop(iter.length());
            self.bind_target(clause.target, iter.element());
            for condition in clause.conditions.iter() {
                self.eval(condition);
                self.narrow(condition);
            }
        }
        let value = self.eval(element);
        for _ in clauses {
            self.leave_loop();
        }
        collection_of(value)
    }

    fn char_value(&mut self, c: char) -> Value {
        self.folder.literal(c.encode_utf8(&mut [0; 4]))
    }

    /// Records `def name` (its body is walked now, each parameter bound to its default or
    /// unknown) and returns the value its name is bound to, and what the body returns.
    /// The name is bound first: when the body runs, the name is the function itself.
    pub(super) fn define_function(
        &mut self,
        name: &'a str,
        params: Vec<Param<'a>>,
        body: Block<'a>,
    ) -> (Value, Vec<Value>) {
        let (value, scope) = self.remember(params, Body::Block(body));
        self.bind(name, value.clone());
        self.scopes.push(scope);
        self.returns.push(Vec::new());
        self.yields.push(Yields::default());
        let index = match value.kind {
            Kind::Function(index) => Some(index),
            _ => None, // past the function table's size: walked all the same
        };
        if let Some(index) = index {
            self.enter_function(index, Some(name));
        }
        self.scan_block(body);
        if index.is_some() {
            self.leave_function();
        }
        self.yields.pop();
        let returned = self.returns.pop().unwrap_or_default();
        self.scopes.pop();
        (value, returned)
    }

    /// A `lambda`: its body is evaluated now with its parameters' defaults or unknown.
    pub(super) fn define_lambda(&mut self, params: Vec<Param<'a>>, body: Expr<'a>) -> Value {
        let (value, scope) = self.remember(params, Body::Expr(body));
        self.scopes.push(scope);
        self.eval(body);
        self.scopes.pop();
        value
    }

    /// Evaluates the defaults, records the function, and returns its value and the scope
    /// its body is first walked in.
    fn remember(&mut self, params: Vec<Param<'a>>, body: Body<'a>) -> (Value, Scope<'a>) {
        let defaults: Vec<Option<Value>> = params
            .iter()
            .map(|p| p.default.map(|d| self.eval(d)))
            .collect();
        let names: Vec<(&'a str, ParamKind)> = params.iter().map(|p| (p.name, p.kind)).collect();
        let scope = names
            .iter()
            .zip(&defaults)
            .map(|((name, _), default)| (*name, default.clone().unwrap_or(Value::UNKNOWN)))
            .collect();
        let Ok(index) = u32::try_from(self.functions.len()) else {
            return (Value::UNKNOWN, scope);
        };
        let captured = (self.scopes.len() > 1).then(|| {
            let mut merged = Scope::default();
            for scope in &self.scopes[1..] {
                merged.extend(scope.iter().map(|(k, v)| (*k, v.clone())));
            }
            std::rc::Rc::new(merged)
        });
        self.functions.push(Function {
            params: names,
            defaults,
            captured,
            body,
            scope_depth: self.scopes.len(),
        });
        let value = Value {
            kind: Kind::Function(index),
            taint: Taint::NONE,
        };
        (value, scope)
    }

    /// The name of the first parameter of the program's function `index` (a method's
    /// `self`).
    pub(super) fn first_parameter(&self, index: u32) -> Option<&'a str> {
        let function = self.functions.get(index as usize)?;
        function.params.first().map(|(name, _)| *name)
    }

    /// `return value` inside a function being followed.
    pub(super) fn note_return(&mut self, value: Value) {
        if let Some(frame) = self.returns.last_mut() {
            frame.push(value);
        }
    }

    /// `yield value` inside a function being followed: calling it gives what it yields.
    pub(super) fn note_yield(&mut self, value: Value) {
        self.note_yield_in_loop();
        if let Some(frame) = self.yields.last_mut() {
            if frame.values.len() < MAX_YIELDED {
                frame.values.push(value);
            }
        }
    }

    /// Follows a call to the program's own function with its arguments bound; returns what
    /// it returns. Too deep or past the budget, the result only carries the arguments' taint.
    pub(super) fn call_function(
        &mut self,
        index: u32,
        positional: &[Value],
        keywords: &[(Option<&'a str>, Value)],
    ) -> Value {
        let taint = positional
            .iter()
            .chain(keywords.iter().map(|(_, v)| v))
            .fold(Taint::NONE, |t, v| t.with(v.deep_taint().data()));
        if self.started_again(index) {
            return Value::unknown(taint);
        }
        // A generic function (`singledispatch`) runs the handler for the argument's type:
        // any of those registered, as far as the analysis can tell.
        if let Some(handlers) = self.dispatch_handlers.get(&index).cloned() {
            return (handlers.iter()).fold(Value::unknown(taint), |one, handler| {
                let result = self.call_function(*handler, positional, keywords);
                super::scan::either(Value::UNKNOWN, one, result)
            });
        }
        let function = match self.functions.get(index as usize) {
            Some(f)
                if self.inline_depth < MAX_INLINE_DEPTH
                    && self.has_budget()
                    && !self.is_being_defined(index) =>
            {
                f.clone()
            }
            _ => return Value::unknown(taint),
        };
        self.followed.insert(index);
        let scope = bind_arguments(&function, positional, keywords);
        // The lists and dicts given by position, with where: a call that fills one fills
        // the caller's (`step(ctx)`); one it rebinds (`ctx = {}`) it does not.
        let containers: Vec<(usize, &'a str, Value)> = (function.params.iter())
            .take_while(|(_, kind)| *kind == ParamKind::Positional)
            .enumerate()
            .filter_map(|(i, (name, _))| {
                let given = positional.get(i)?;
                matches!(given.kind, Kind::Seq(_) | Kind::Dict(_))
                    .then(|| (i, *name, given.clone()))
            })
            .collect();
        let assigned_from = self.assigned.len();
        let outer = self
            .scopes
            .split_off(function.scope_depth.min(self.scopes.len()));
        let base = self.scopes.len();
        // A closure sees what it captured before the scopes of wherever it is called
        // from (a decorator's wrapper called from another function still has its `f`);
        // names it captured nothing for are still looked up in the live scopes.
        if let Some(captured) = &function.captured {
            self.scopes.push((**captured).clone());
        }
        self.scopes.push(scope);
        // A method of a record instance sees its fields as attributes of `self`.
        let this = function.params.first().map(|(name, _)| *name);
        let fields = match (this, positional.first()) {
            (Some(this), Some(first)) => self
                .fields_of(first)
                .into_iter()
                .map(|(field, value)| (this, field, self.set_attribute(this, field, value)))
                .collect(),
            _ => Vec::new(),
        };
        self.inline_depth += 1;
        self.enter_function(index, None);
        let result = match function.body {
            Body::Expr(body) => self.eval(body),
            Body::Block(body) => {
                self.returns.push(Vec::new());
                self.yields.push(Yields::default());
                self.scan_block(body);
                let yielded = self.yields.pop().unwrap_or_default();
                let returned = merge_returns(self.returns.pop().unwrap_or_default());
                match (yielded.values.is_empty(), yielded.endless) {
                    (true, _) => returned,
                    // A generator: what it yields, one element each (for ever, when it
                    // yields in a loop that never ends).
                    (false, false) => Value::bounded_seq(yielded.values),
                    (false, true) => {
                        Value::bounded_seq(yielded.values).tainted(Taint::ENDLESS_ITERATOR)
                    }
                }
            }
        };
        self.leave_function();
        self.inline_depth -= 1;
        for (this, field, before) in fields {
            self.restore_attribute(this, field, before);
        }
        let scope_at = base + usize::from(function.captured.is_some());
        self.note_filled_arguments(containers, scope_at, assigned_from, positional.len());
        self.scopes.truncate(base);
        self.scopes.extend(outer);
        result
    }
}

impl<'a> Scanner<'a> {
    /// The lists and dicts a followed call was given by position (of `arity`), as its
    /// parameters hold them now (in the scope at `scope`), unless it assigned the parameter
    /// anew (since `assigned_from`): those it filled are the caller's to see.
    fn note_filled_arguments(
        &mut self,
        given: Vec<(usize, &'a str, Value)>,
        scope: usize,
        assigned_from: usize,
        arity: usize,
    ) {
        self.filled_arguments.clear();
        self.filled_arity = arity;
        let assigned = self
            .assigned
            .split_off(assigned_from.min(self.assigned.len()));
        let Some(scope) = self.scopes.get(scope) else {
            return;
        };
        for (at, name, before) in given {
            if assigned.contains(&name) {
                continue;
            }
            match scope.get(name) {
                Some(now) if *now != before && matches!(now.kind, Kind::Seq(_) | Kind::Dict(_)) => {
                    self.filled_arguments.push((at, before, now.clone()));
                }
                _ => {}
            }
        }
    }
}

/// Arguments by position, then by keyword, then the parameter's default; `*args` takes
/// the positional arguments left over as a list.
fn bind_arguments<'a>(
    function: &Function<'a>,
    positional: &[Value],
    keywords: &[(Option<&'a str>, Value)],
) -> Scope<'a> {
    let mut next = 0;
    let mut scope = Scope::default();
    for ((name, kind), default) in function.params.iter().zip(&function.defaults) {
        let by_keyword = || {
            keywords
                .iter()
                .find(|(k, _)| *k == Some(*name))
                .map(|(_, v)| v.clone())
        };
        let value = match kind {
            ParamKind::Positional => {
                let given = positional.get(next).cloned();
                next += 1;
                given.or_else(by_keyword)
            }
            ParamKind::Rest => {
                let rest = positional.get(next..).unwrap_or(&[]).to_vec();
                next = positional.len();
                Some(Value::bounded_seq(rest))
            }
            ParamKind::KeywordOnly => by_keyword(),
            ParamKind::KeywordRest => None,
        };
        let value = value.or_else(|| default.clone()).unwrap_or(Value::UNKNOWN);
        scope.insert(*name, value);
    }
    scope
}

/// One return value is the result; several merge as the branches of an `if` do (the one
/// that can be followed is kept, `None` drops out).
fn merge_returns(values: Vec<Value>) -> Value {
    values
        .into_iter()
        .reduce(|a, b| super::scan::either(Value::UNKNOWN, a, b))
        .unwrap_or(Value {
            kind: Kind::NoneValue,
            taint: Taint::NONE,
        })
}

/// What a generator being followed has yielded so far.
#[derive(Default)]
pub(super) struct Yields {
    pub(super) values: Vec<Value>,
    /// Some of it inside a loop that never ends, waits for nothing and has no way out.
    pub(super) endless: bool,
}

/// Most values a generator's yields are remembered as.
const MAX_YIELDED: usize = 64;

/// A comprehension whose items are not known one by one: a listing when the element is
/// path-like text, otherwise an unknown collection carrying the element's taint.
pub(super) fn collection_of(element: Value) -> Value {
    let taint = element.deep_taint();
    match element.kind {
        Kind::Text { .. } => element.tainted(Taint::LISTING),
        // Objects of the program's own (`[Rule(r) for r in fetched]`): each element is
        // like the one walked, so the list is kept as that one, methods and fields.
        Kind::Instance(..) | Kind::Function(_) | Kind::Partial(_) => Value {
            kind: Kind::Seq(std::rc::Rc::new([element])),
            taint: Taint::NONE,
        },
        _ if taint.has(Taint::PROCESSES) => {
            Value::unknown(taint.data().with(taint.only(Taint::PROCESSES)))
        }
        _ => Value::unknown(taint.data()),
    }
}

/// Methods whose call raises once what they take items from is empty.
const TAKES_ITEMS: &[&str] = &[
    "pop",
    "popleft",
    "popitem",
    "get_nowait",
    "__next__",
    "next",
];

fn runs_out_stmt(stmt: Stmt<'_>, found: &mut bool) {
    if *found || stmt.is_raise() {
        *found = true;
        return;
    }
    stmt.for_each_child(|child| match child {
        Child::Stmt(inner) => runs_out_stmt(inner, found),
        Child::Expr(expr) => runs_out_expr(expr, found),
    });
}

fn runs_out_expr(expr: Expr<'_>, found: &mut bool) {
    if *found {
        return;
    }
    let takes = match expr.kind() {
        ExprKind::Subscript { index, .. } => !matches!(index.kind(), ExprKind::Slice { .. }),
        ExprKind::Call(call) => match call.func().kind() {
            ExprKind::Name(name) => name == "next",
            ExprKind::Attribute { attr, .. } => TAKES_ITEMS.contains(&attr),
            _ => false,
        },
        _ => false,
    };
    if takes {
        *found = true;
        return;
    }
    expr.for_each_child(|child| match child {
        Child::Stmt(inner) => runs_out_stmt(inner, found),
        Child::Expr(inner) => runs_out_expr(inner, found),
    });
}
