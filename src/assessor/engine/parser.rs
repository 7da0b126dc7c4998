//! The only file that touches ruff: parses Python with ruff's recovering parser and lends
//! the rest of the assessor small, copyable views (`Stmt`, `Expr`, `Call`, ...) over it.
//!
//! Called by `scan` (walking the tree) and `limits` (the token shape scanned before
//! parsing). Invariant: no ruff type appears in a public signature here, so a new ruff
//! release changes this file and nothing else.

use std::borrow::Cow;

use ruff_python_ast as ast;
use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_parser::{lexer, Mode};
use ruff_text_size::Ranged;

/// A parsed module: the recovered tree plus the first syntax error, if any.
pub struct Module {
    parsed: ruff_python_parser::Parsed<ast::ModModule>,
}

/// Where and why the source failed to parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: u32,
    pub message: String,
}

/// Parses `source`, recovering from errors so that later statements are still present.
/// ruff's parser grows its stack on the heap, so any nesting parses; the tree it builds
/// is dropped recursively, so the caller checks [`Module::shapes`] before
/// dropping it on an ordinary stack (or checks [`shape_tokens`] before parsing at all).
pub fn parse(source: &str) -> Module {
    let parsed = ruff_python_parser::parse_unchecked_source(source, ast::PySourceType::Python);
    Module { parsed }
}

impl Module {
    pub fn body(&self) -> Block<'_> {
        Block(&self.parsed.syntax().body)
    }

    /// The code without its formatting, one piece per token: comments, indentation and
    /// line continuations left out, a logical line end as `"\n"`, other tokens as written.
    pub fn for_each_normalised_token(&self, source: &str, mut each: impl FnMut(&str)) {
        use TokenKind as T;
        for token in self.parsed.tokens().iter() {
            match token.kind() {
                T::Comment | T::NonLogicalNewline | T::Indent | T::Dedent | T::EndOfFile => {}
                T::Newline => each("\n"),
                _ => each(source.get(token.range().to_std_range()).unwrap_or("")),
            }
        }
    }

    /// The shape of every token the parser read: the same shapes [`shape_tokens`] gives,
    /// without lexing again.
    pub fn shapes(&self) -> impl Iterator<Item = Shape> + '_ {
        self.shaped_tokens().map(|(shape, _)| shape)
    }

    /// `shapes` with each token's byte range.
    pub fn shaped_tokens(&self) -> impl Iterator<Item = (Shape, std::ops::Range<u32>)> + '_ {
        self.parsed
            .tokens()
            .iter()
            .take_while(|token| token.kind() != TokenKind::EndOfFile)
            .map(|token| {
                let range = token.range();
                (
                    shape_of(token.kind()),
                    range.start().to_u32()..range.end().to_u32(),
                )
            })
    }

    pub fn first_syntax_error(&self) -> Option<SyntaxError> {
        self.parsed.errors().first().map(|error| SyntaxError {
            offset: error.location.start().to_u32(),
            message: error.error.to_string(),
        })
    }
}

/// What the nesting scan needs to know about one token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Open,
    Close,
    /// Separates siblings: `,` inside brackets.
    Comma,
    /// Ends a logical line: newline or `;`.
    LineEnd,
    Indent,
    Dedent,
    /// An operator or keyword that can nest one expression inside another.
    Chain,
    /// `+ - * / // % @ | & ^ << >> not`: left-associative (a flat left-deep chain) after an
    /// operand, unary (nesting) otherwise.
    Arith,
    /// Comparisons, `and`, `or`, `in`, `is`: the tree keeps these as flat lists.
    Flat,
    /// A name, number, string or constant.
    Operand,
    Other,
}

/// Feeds the shape of every token of `source` to `each` (lexing only, no recursion)
/// until `each` returns `false` or the input ends.
pub fn shape_tokens(source: &str, mut each: impl FnMut(Shape) -> bool) {
    let mut lexer = lexer::lex(source, Mode::Module);
    loop {
        let kind = lexer.next_token();
        if kind == TokenKind::EndOfFile || !each(shape_of(kind)) {
            return;
        }
    }
}

fn shape_of(kind: TokenKind) -> Shape {
    use TokenKind as T;
    match kind {
        T::Lpar | T::Lsqb | T::Lbrace | T::FStringStart | T::TStringStart => Shape::Open,
        T::Rpar | T::Rsqb | T::Rbrace | T::FStringEnd | T::TStringEnd => Shape::Close,
        T::Comma => Shape::Comma,
        T::Newline | T::Semi => Shape::LineEnd,
        T::Indent => Shape::Indent,
        T::Dedent => Shape::Dedent,
        T::Plus
        | T::Minus
        | T::Star
        | T::Slash
        | T::DoubleSlash
        | T::Percent
        | T::At
        | T::Vbar
        | T::Amper
        | T::CircumFlex
        | T::LeftShift
        | T::RightShift
        | T::Not => Shape::Arith,
        T::EqEqual
        | T::NotEqual
        | T::Less
        | T::Greater
        | T::LessEqual
        | T::GreaterEqual
        | T::And
        | T::Or
        | T::In
        | T::Is => Shape::Flat,
        T::Name
        | T::Int
        | T::Float
        | T::Complex
        | T::String
        | T::True
        | T::False
        | T::None
        | T::Ellipsis => Shape::Operand,
        T::FStringMiddle
        | T::TStringMiddle
        | T::Comment
        | T::NonLogicalNewline
        | T::EndOfFile
        | T::Unknown => Shape::Other,
        _ => Shape::Chain,
    }
}

/// A run of statements (a module body, a function body, a branch).
#[derive(Clone, Copy)]
pub struct Block<'a>(&'a [ast::Stmt]);

impl<'a> Block<'a> {
    pub fn iter(self) -> impl Iterator<Item = Stmt<'a>> {
        self.0.iter().map(Stmt)
    }

    /// The text of a string standing first in the block: a function's docstring.
    pub fn docstring(self) -> Option<&'a str> {
        match self.0.first()? {
            ast::Stmt::Expr(s) => match &*s.value {
                ast::Expr::StringLiteral(text) => Some(text.value.to_str()),
                _ => None,
            },
            _ => None,
        }
    }

    /// The names annotated in this block (`name: str`, `name: int = 0`), in order: a
    /// dataclass's fields.
    pub fn annotated_names(self) -> impl Iterator<Item = &'a str> {
        self.0.iter().filter_map(|stmt| match stmt {
            ast::Stmt::AnnAssign(s) => match &*s.target {
                ast::Expr::Name(name) => Some(name.id.as_str()),
                _ => None,
            },
            _ => None,
        })
    }
}

/// Anything below a node, handed out by `for_each_child`.
pub enum Child<'a> {
    Expr(Expr<'a>),
    Stmt(Stmt<'a>),
}

#[derive(Clone, Copy)]
pub struct Stmt<'a>(&'a ast::Stmt);

/// One `name` or `name as alias` of an import.
#[derive(Clone, Copy)]
pub struct ImportName<'a> {
    pub name: &'a str,
    pub alias: Option<&'a str>,
}

/// The statements the scanner treats specially; everything else is `Other`.
pub enum StmtKind<'a> {
    Import(Vec<ImportName<'a>>),
    ImportFrom {
        module: Option<&'a str>,
        level: u32,
        names: Vec<ImportName<'a>>,
    },
    Assign {
        targets: Exprs<'a>,
        value: Expr<'a>,
    },
    AugAssign {
        target: Expr<'a>,
        op: BinOp,
        value: Expr<'a>,
    },
    For {
        target: Expr<'a>,
        iter: Expr<'a>,
        body: Block<'a>,
        orelse: Block<'a>,
    },
    With {
        items: Vec<(Expr<'a>, Option<Expr<'a>>)>,
        body: Block<'a>,
    },
    /// `def` or `class`: the name is bound in the enclosing scope, the body runs in its own.
    Def {
        name: &'a str,
        params: Vec<Param<'a>>,
        body: Block<'a>,
        is_class: bool,
    },
    Return(Option<Expr<'a>>),
    While {
        test: Expr<'a>,
        body: Block<'a>,
        orelse: Block<'a>,
    },
    Break,
    /// `del targets`.
    Delete(Exprs<'a>),
    /// `try`: `body`, then each handler (its exception types and body), then `orelse` and
    /// `finalbody`. A handler runs only when something in `body` failed.
    Try {
        body: Block<'a>,
        handlers: Vec<(Option<Expr<'a>>, Block<'a>)>,
        orelse: Block<'a>,
        finalbody: Block<'a>,
    },
    Other,
}

impl<'a> Stmt<'a> {
    pub fn start(self) -> u32 {
        self.0.start().to_u32()
    }

    /// An `if` statement (walked as `StmtKind::Other`, both branches).
    pub fn is_if(self) -> bool {
        matches!(self.0, ast::Stmt::If(_))
    }

    /// The test of an `if` that has no `elif` or `else`: its body runs only where the
    /// test holds.
    pub fn lone_if_test(self) -> Option<Expr<'a>> {
        match self.0 {
            ast::Stmt::If(stmt) if stmt.elif_else_clauses.is_empty() => Some(Expr(&stmt.test)),
            _ => None,
        }
    }

    /// `match`: its cases run on conditions, like the branches of an `if`.
    pub fn is_other_branch(self) -> bool {
        matches!(self.0, ast::Stmt::Match(_))
    }

    /// `raise ...`: under a condition, a way the program's run can end there.
    pub fn is_raise(self) -> bool {
        matches!(self.0, ast::Stmt::Raise(_))
    }

    /// `if __name__ == "__main__":` (either way round): true whenever the file is run
    /// as a program, so no condition of the program's own.
    pub fn is_main_guard(self) -> bool {
        let ast::Stmt::If(stmt) = self.0 else {
            return false;
        };
        let ast::Expr::Compare(test) = &*stmt.test else {
            return false;
        };
        let [ast::CmpOp::Eq] = &*test.ops else {
            return false;
        };
        let sides = [&*test.left, &test.comparators[0]];
        let is_name =
            |e: &ast::Expr| matches!(e, ast::Expr::Name(n) if n.id.as_str() == "__name__");
        let is_main = |e: &ast::Expr| matches!(e, ast::Expr::StringLiteral(s) if s.value.to_str() == "__main__");
        (is_name(sides[0]) && is_main(sides[1])) || (is_main(sides[0]) && is_name(sides[1]))
    }

    pub fn kind(self) -> StmtKind<'a> {
        match self.0 {
            ast::Stmt::Import(s) => StmtKind::Import(s.names.iter().map(import_name).collect()),
            ast::Stmt::ImportFrom(s) => StmtKind::ImportFrom {
                module: s.module.as_ref().map(|m| m.id.as_str()),
                level: s.level,
                names: s.names.iter().map(import_name).collect(),
            },
            ast::Stmt::Assign(s) => StmtKind::Assign {
                targets: Exprs(&s.targets),
                value: Expr(&s.value),
            },
            ast::Stmt::AnnAssign(s) => match &s.value {
                Some(value) => StmtKind::Assign {
                    targets: Exprs(std::slice::from_ref(&*s.target)),
                    value: Expr(value),
                },
                None => StmtKind::Other,
            },
            ast::Stmt::AugAssign(s) => StmtKind::AugAssign {
                target: Expr(&s.target),
                op: bin_op(s.op),
                value: Expr(&s.value),
            },
            ast::Stmt::For(s) => StmtKind::For {
                target: Expr(&s.target),
                iter: Expr(&s.iter),
                body: Block(&s.body),
                orelse: Block(&s.orelse),
            },
            ast::Stmt::With(s) => StmtKind::With {
                items: s
                    .items
                    .iter()
                    .map(|i| (Expr(&i.context_expr), i.optional_vars.as_deref().map(Expr)))
                    .collect(),
                body: Block(&s.body),
            },
            ast::Stmt::FunctionDef(s) => StmtKind::Def {
                name: s.name.id.as_str(),
                params: params(&s.parameters),
                body: Block(&s.body),
                is_class: false,
            },
            ast::Stmt::ClassDef(s) => StmtKind::Def {
                name: s.name.id.as_str(),
                params: Vec::new(),
                body: Block(&s.body),
                is_class: true,
            },
            ast::Stmt::Return(s) => StmtKind::Return(s.value.as_deref().map(Expr)),
            ast::Stmt::While(s) => StmtKind::While {
                test: Expr(&s.test),
                body: Block(&s.body),
                orelse: Block(&s.orelse),
            },
            ast::Stmt::Break(_) => StmtKind::Break,
            ast::Stmt::Delete(s) => StmtKind::Delete(Exprs(&s.targets)),
            ast::Stmt::Try(s) => StmtKind::Try {
                body: Block(&s.body),
                handlers: s
                    .handlers
                    .iter()
                    .map(|ast::ExceptHandler::ExceptHandler(h)| {
                        (h.type_.as_deref().map(Expr), Block(&h.body))
                    })
                    .collect(),
                orelse: Block(&s.orelse),
                finalbody: Block(&s.finalbody),
            },
            _ => StmtKind::Other,
        }
    }

    /// Expressions of a `def`/`class` evaluated where it is defined, parameter defaults
    /// aside (they come with `StmtKind::Def`'s parameters): decorators, and a class's
    /// bases and keyword arguments (`metaclass=`, and what `__init_subclass__` receives).
    pub fn header(self) -> Header<'a> {
        let (decorators, arguments) = match self.0 {
            ast::Stmt::FunctionDef(s) => (&s.decorator_list, None),
            ast::Stmt::ClassDef(s) => (&s.decorator_list, s.arguments.as_deref()),
            _ => return Header::default(),
        };
        Header {
            decorators: decorators.iter().map(|d| Expr(&d.expression)).collect(),
            bases: arguments.map_or_else(Vec::new, |a| a.args.iter().map(Expr).collect()),
            keywords: arguments.map_or_else(Vec::new, |a| {
                a.keywords
                    .iter()
                    .map(|k| (k.arg.as_ref().map(|a| a.id.as_str()), Expr(&k.value)))
                    .collect()
            }),
        }
    }

    /// Direct children (expressions and nested statements) in source order.
    pub fn for_each_child(self, each: impl FnMut(Child<'a>)) {
        walk_stmt(&mut ChildVisitor { each }, self.0);
    }
}

/// One parameter of a `def` or `lambda`, with its default value if it has one.
#[derive(Clone, Copy)]
pub struct Param<'a> {
    pub name: &'a str,
    pub default: Option<Expr<'a>>,
    pub kind: ParamKind,
}

/// How a parameter takes its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Positional,
    /// `*args`: the positional arguments left over.
    Rest,
    KeywordOnly,
    /// `**kwargs`.
    KeywordRest,
}

/// Parameters in binding order: positional-only, positional, `*args`, keyword-only,
/// `**kwargs`.
fn params(parameters: &ast::Parameters) -> Vec<Param<'_>> {
    fn star(p: &ast::Parameter, kind: ParamKind) -> Param<'_> {
        Param {
            name: p.name.id.as_str(),
            default: None,
            kind,
        }
    }
    fn plain(p: &ast::ParameterWithDefault, kind: ParamKind) -> Param<'_> {
        Param {
            name: p.parameter.name.id.as_str(),
            default: p.default.as_deref().map(Expr),
            kind,
        }
    }
    let mut all: Vec<Param<'_>> = parameters
        .posonlyargs
        .iter()
        .chain(&parameters.args)
        .map(|p| plain(p, ParamKind::Positional))
        .collect();
    all.extend(
        parameters
            .vararg
            .as_deref()
            .map(|p| star(p, ParamKind::Rest)),
    );
    all.extend(
        parameters
            .kwonlyargs
            .iter()
            .map(|p| plain(p, ParamKind::KeywordOnly)),
    );
    all.extend(
        parameters
            .kwarg
            .as_deref()
            .map(|p| star(p, ParamKind::KeywordRest)),
    );
    all
}

fn import_name(alias: &ast::Alias) -> ImportName<'_> {
    ImportName {
        name: alias.name.id.as_str(),
        alias: alias.asname.as_ref().map(|a| a.id.as_str()),
    }
}

/// Calls `each` for the direct children of a node and does not descend further; the
/// scanner recurses itself so that it can bound its depth.
struct ChildVisitor<F> {
    each: F,
}

impl<'a, F: FnMut(Child<'a>)> Visitor<'a> for ChildVisitor<F> {
    fn visit_stmt(&mut self, stmt: &'a ast::Stmt) {
        (self.each)(Child::Stmt(Stmt(stmt)));
    }

    fn visit_expr(&mut self, expr: &'a ast::Expr) {
        (self.each)(Child::Expr(Expr(expr)));
    }
}

/// A slice of expressions (list elements, call arguments, assignment targets).
#[derive(Clone, Copy)]
pub struct Exprs<'a>(&'a [ast::Expr]);

/// What a `def` or `class` line evaluates besides the body (see [`Stmt::header`]).
#[derive(Default)]
pub struct Header<'a> {
    pub decorators: Vec<Expr<'a>>,
    pub bases: Vec<Expr<'a>>,
    /// Keyword arguments; `None` as the name stands for `**mapping`.
    pub keywords: Vec<(Option<&'a str>, Expr<'a>)>,
}

impl<'a> Exprs<'a> {
    pub fn iter(self) -> impl Iterator<Item = Expr<'a>> {
        self.0.iter().map(Expr)
    }

    pub fn len(self) -> usize {
        self.0.len()
    }
}

/// The binary operators constant folding understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Mul,
    Mod,
    Div,
    BitOr,
    Sub,
    BitXor,
    BitAnd,
    Pow,
    LShift,
    RShift,
    Other,
}

fn bin_op(op: ast::Operator) -> BinOp {
    match op {
        ast::Operator::Add => BinOp::Add,
        ast::Operator::Mult => BinOp::Mul,
        ast::Operator::Mod => BinOp::Mod,
        ast::Operator::Div => BinOp::Div,
        ast::Operator::BitOr => BinOp::BitOr,
        ast::Operator::Sub => BinOp::Sub,
        ast::Operator::LShift => BinOp::LShift,
        ast::Operator::RShift => BinOp::RShift,
        ast::Operator::BitXor => BinOp::BitXor,
        ast::Operator::BitAnd => BinOp::BitAnd,
        ast::Operator::Pow => BinOp::Pow,
        _ => BinOp::Other,
    }
}

#[derive(Clone, Copy)]
pub struct Expr<'a>(&'a ast::Expr);

/// One piece of an f-string: literal text or an interpolated expression.
pub enum FPart<'a> {
    Text(&'a str),
    Value(Expr<'a>),
}

/// The expressions the evaluator understands; everything else is `Other` and is only
/// walked for its children.
pub enum ExprKind<'a> {
    Name(&'a str),
    Attribute {
        value: Expr<'a>,
        attr: &'a str,
    },
    Call(Call<'a>),
    Str(&'a str),
    Bytes(Cow<'a, [u8]>),
    Int(Option<i64>),
    Bool(bool),
    NoneLiteral,
    BinOp {
        left: Expr<'a>,
        op: BinOp,
        right: Expr<'a>,
    },
    Subscript {
        value: Expr<'a>,
        index: Expr<'a>,
    },
    Slice {
        lower: Option<Expr<'a>>,
        upper: Option<Expr<'a>>,
        step: Option<Expr<'a>>,
    },
    Negative(Expr<'a>),
    /// `~operand`.
    Invert(Expr<'a>),
    Sequence(Exprs<'a>),
    FString(Vec<FPart<'a>>),
    Named {
        target: Expr<'a>,
        value: Expr<'a>,
    },
    /// A list, set or generator comprehension: `element for target in iter if ...`.
    Comprehension {
        element: Expr<'a>,
        clauses: Vec<Clause<'a>>,
    },
    Lambda {
        params: Vec<Param<'a>>,
        body: Expr<'a>,
    },
    /// `a or b or ...` (`or`), `a and b and ...` (not `or`).
    BoolOp {
        values: Exprs<'a>,
        or: bool,
    },
    /// `yield value` inside a generator function.
    Yield(Option<Expr<'a>>),
    /// `yield from items`: yields each of the items.
    YieldFrom(Expr<'a>),
    /// `await value`: the value, once what it waits for is done.
    Await(Expr<'a>),
    /// `*items` in a call's arguments or a list.
    Starred(Expr<'a>),
    /// `body if test else orelse`.
    IfElse {
        test: Expr<'a>,
        body: Expr<'a>,
        orelse: Expr<'a>,
    },
    /// `{key: value for target in iter if ...}`.
    DictComprehension {
        key: Option<Expr<'a>>,
        value: Expr<'a>,
        clauses: Vec<Clause<'a>>,
    },
    /// `{key: value, **mapping}`: `None` as the key stands for `**mapping`.
    Dict(Vec<(Option<Expr<'a>>, Expr<'a>)>),
    Other,
}

/// One `for target in iter if condition...` clause of a comprehension.
#[derive(Clone, Copy)]
pub struct Clause<'a> {
    pub target: Expr<'a>,
    pub iter: Expr<'a>,
    pub conditions: Exprs<'a>,
}

fn clauses(generators: &[ast::Comprehension]) -> Vec<Clause<'_>> {
    generators
        .iter()
        .map(|g| Clause {
            target: Expr(&g.target),
            iter: Expr(&g.iter),
            conditions: Exprs(&g.ifs),
        })
        .collect()
}

impl<'a> Expr<'a> {
    /// `name == "text"` or `name.attr == "text"` (`p.suffix == ".log"`): the name, the
    /// attribute and the text it is compared with.
    pub fn name_equals_text(self) -> Option<(&'a str, Option<&'a str>, &'a str)> {
        let ast::Expr::Compare(test) = self.0 else {
            return None;
        };
        let ([ast::CmpOp::Eq], [ast::Expr::StringLiteral(text)]) = (&*test.ops, &*test.comparators)
        else {
            return None;
        };
        let text = text.value.to_str();
        match &*test.left {
            ast::Expr::Name(name) => Some((name.id.as_str(), None, text)),
            ast::Expr::Attribute(a) => match &*a.value {
                ast::Expr::Name(name) => Some((name.id.as_str(), Some(a.attr.as_str()), text)),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn start(self) -> u32 {
        self.0.start().to_u32()
    }

    pub fn kind(self) -> ExprKind<'a> {
        match self.0 {
            ast::Expr::Name(e) => ExprKind::Name(e.id.as_str()),
            ast::Expr::Attribute(e) => ExprKind::Attribute {
                value: Expr(&e.value),
                attr: e.attr.id.as_str(),
            },
            ast::Expr::Call(e) => ExprKind::Call(Call(e)),
            ast::Expr::StringLiteral(e) => ExprKind::Str(e.value.to_str()),
            ast::Expr::BytesLiteral(e) => ExprKind::Bytes(bytes_value(&e.value)),
            ast::Expr::NumberLiteral(e) => match &e.value {
                ast::Number::Int(i) => ExprKind::Int(i.as_i64()),
                _ => ExprKind::Other,
            },
            ast::Expr::BooleanLiteral(e) => ExprKind::Bool(e.value),
            ast::Expr::NoneLiteral(_) => ExprKind::NoneLiteral,
            ast::Expr::BinOp(e) => ExprKind::BinOp {
                left: Expr(&e.left),
                op: bin_op(e.op),
                right: Expr(&e.right),
            },
            ast::Expr::UnaryOp(e) if e.op == ast::UnaryOp::USub => {
                ExprKind::Negative(Expr(&e.operand))
            }
            ast::Expr::UnaryOp(e) if e.op == ast::UnaryOp::Invert => {
                ExprKind::Invert(Expr(&e.operand))
            }
            ast::Expr::Subscript(e) => ExprKind::Subscript {
                value: Expr(&e.value),
                index: Expr(&e.slice),
            },
            ast::Expr::Slice(e) => ExprKind::Slice {
                lower: e.lower.as_deref().map(Expr),
                upper: e.upper.as_deref().map(Expr),
                step: e.step.as_deref().map(Expr),
            },
            ast::Expr::List(e) => ExprKind::Sequence(Exprs(&e.elts)),
            ast::Expr::Tuple(e) => ExprKind::Sequence(Exprs(&e.elts)),
            ast::Expr::FString(e) => ExprKind::FString(f_parts(&e.value)),
            ast::Expr::Named(e) => ExprKind::Named {
                target: Expr(&e.target),
                value: Expr(&e.value),
            },
            ast::Expr::ListComp(e) => ExprKind::Comprehension {
                element: Expr(&e.elt),
                clauses: clauses(&e.generators),
            },
            ast::Expr::SetComp(e) => ExprKind::Comprehension {
                element: Expr(&e.elt),
                clauses: clauses(&e.generators),
            },
            // `{k: v for ...}`: the pair as a tuple, so both are evaluated per item.
            ast::Expr::DictComp(e) => ExprKind::DictComprehension {
                key: e.key.as_deref().map(Expr),
                value: Expr(&e.value),
                clauses: clauses(&e.generators),
            },
            ast::Expr::Generator(e) => ExprKind::Comprehension {
                element: Expr(&e.elt),
                clauses: clauses(&e.generators),
            },
            ast::Expr::Lambda(e) => ExprKind::Lambda {
                params: e.parameters.as_deref().map(params).unwrap_or_default(),
                body: Expr(&e.body),
            },
            ast::Expr::BoolOp(e) => ExprKind::BoolOp {
                values: Exprs(&e.values),
                or: e.op == ast::BoolOp::Or,
            },
            ast::Expr::Yield(e) => ExprKind::Yield(e.value.as_deref().map(Expr)),
            ast::Expr::YieldFrom(e) => ExprKind::YieldFrom(Expr(&e.value)),
            ast::Expr::Starred(e) => ExprKind::Starred(Expr(&e.value)),
            ast::Expr::Await(e) => ExprKind::Await(Expr(&e.value)),
            ast::Expr::If(e) => ExprKind::IfElse {
                test: Expr(&e.test),
                body: Expr(&e.body),
                orelse: Expr(&e.orelse),
            },
            ast::Expr::Dict(e) => ExprKind::Dict(
                e.items
                    .iter()
                    .map(|item| (item.key.as_ref().map(Expr), Expr(&item.value)))
                    .collect(),
            ),
            _ => ExprKind::Other,
        }
    }

    /// Direct children in source order (comprehension clauses, lambda bodies, ...).
    pub fn for_each_child(self, each: impl FnMut(Child<'a>)) {
        walk_expr(&mut ChildVisitor { each }, self.0);
    }
}

fn bytes_value(value: &ast::BytesLiteralValue) -> Cow<'_, [u8]> {
    match value.as_slice() {
        [single] => Cow::Borrowed(&single.value),
        parts => Cow::Owned(parts.iter().flat_map(|p| p.value.iter().copied()).collect()),
    }
}

fn f_parts(value: &ast::FStringValue) -> Vec<FPart<'_>> {
    let mut parts = Vec::new();
    for part in value.iter() {
        match part {
            ast::FStringPart::Literal(literal) => parts.push(FPart::Text(&literal.value)),
            ast::FStringPart::FString(f) => {
                for element in f.elements.iter() {
                    parts.push(match element {
                        ast::InterpolatedStringElement::Literal(l) => FPart::Text(&l.value),
                        ast::InterpolatedStringElement::Interpolation(i) => {
                            FPart::Value(Expr(&i.expression))
                        }
                    });
                }
            }
        }
    }
    parts
}

/// A call: `func(args..., keyword=value...)`.
#[derive(Clone, Copy)]
pub struct Call<'a>(&'a ast::ExprCall);

impl<'a> Call<'a> {
    pub fn func(self) -> Expr<'a> {
        Expr(&self.0.func)
    }

    pub fn args(self) -> Exprs<'a> {
        Exprs(&self.0.arguments.args)
    }

    /// Keyword arguments; `None` as the name stands for `**mapping`.
    pub fn keywords(self) -> impl Iterator<Item = (Option<&'a str>, Expr<'a>)> {
        self.0
            .arguments
            .keywords
            .iter()
            .map(|k| (k.arg.as_ref().map(|a| a.id.as_str()), Expr(&k.value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovering_parse_keeps_statements_after_an_error() {
        // The parser recovers, so the call after the broken line is still in the tree.
        let module = parse("x = (\nimport os\nos.system('id')\n");
        assert!(module.first_syntax_error().is_some());
        assert!(module.body().iter().count() >= 2);
    }

    #[test]
    fn shapes_follow_brackets_and_strings() {
        // Brackets inside plain strings are not brackets; f-string starts are.
        let mut shapes = Vec::new();
        shape_tokens("x = ('(((' , f'{a}')\n", |s| {
            shapes.push(s);
            true
        });
        let opens = shapes.iter().filter(|s| **s == Shape::Open).count();
        let closes = shapes.iter().filter(|s| **s == Shape::Close).count();
        assert_eq!((opens, closes), (3, 3)); // `(`, f-string start, `{`
    }
}
