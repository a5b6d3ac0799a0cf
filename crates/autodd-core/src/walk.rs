//! A mutable pre-order traversal of the AST, in source order.
//!
//! Site enumeration and site application both run on this one traversal, so the
//! node ids they count (one per statement, expression, parameter and keyword, in
//! pre-order) always agree. Every `Vec<Expr>` goes through [`VisitorMut::expr_list`]
//! with its [`ListKind`], every body through [`VisitorMut::body`], so a visitor can
//! remove items from the lists that hold them.

use crate::parse::ast::{self, Expr, Stmt};

/// What an expression list is, for rewrites that remove items from some lists only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    /// Positional arguments of a call.
    CallArgs,
    /// Elements of a tuple or list display.
    Elts,
    /// Elements of a set display (never emptied).
    SetElts,
    Decorators,
    Bases,
    /// The `if` filters of one comprehension clause.
    ComprehensionIfs,
    /// Targets of `a = b = value` (at least one stays).
    AssignTargets,
    /// Operands of `and`/`or` (at least two stay).
    BoolOperands,
    /// Targets of `del` (at least one stays).
    DeleteTargets,
    /// Entries of a dict display (a key and its value, or a `**mapping`).
    DictItems,
    /// The literal parts and `{…}` fields of an f-string.
    FStringParts,
    /// Any other list (comparators, ...).
    Other,
}

/// Hooks of the traversal. Each default walks the node's children.
pub trait VisitorMut {
    fn body(&mut self, body: &mut Vec<Stmt>) {
        for stmt in body.iter_mut() {
            self.stmt(stmt);
        }
    }
    fn stmt(&mut self, stmt: &mut Stmt) {
        walk_stmt(self, stmt);
    }
    fn expr(&mut self, expr: &mut Expr) {
        walk_expr(self, expr);
    }
    fn expr_list(&mut self, list: &mut Vec<Expr>, kind: ListKind) {
        let _ = kind;
        for expr in list.iter_mut() {
            self.expr(expr);
        }
    }
    fn keywords(&mut self, keywords: &mut Vec<ast::Keyword>) {
        for kw in keywords.iter_mut() {
            self.keyword(kw);
        }
    }
    fn keyword(&mut self, keyword: &mut ast::Keyword) {
        self.expr(&mut keyword.value);
    }
    fn arguments(&mut self, args: &mut ast::Arguments) {
        walk_arguments(self, args);
    }
    /// An optional expression; `removable` says whether the program stays valid
    /// without it (a `return` value, an annotation, an `assert` message, ...).
    fn optional(&mut self, expr: &mut Option<Box<Expr>>, removable: bool) {
        let _ = removable;
        if let Some(e) = expr.as_deref_mut() {
            self.expr(e);
        }
    }
    /// The entries of a dict display: each key (absent for `**mapping`), then its value.
    fn dict(&mut self, keys: &mut Vec<Option<Expr>>, values: &mut Vec<Expr>) {
        for (key, value) in keys.iter_mut().zip(values.iter_mut()) {
            if let Some(key) = key {
                self.expr(key);
            }
            self.expr(value);
        }
    }
    /// The names of an `import` or `from ... import`.
    fn aliases(&mut self, aliases: &mut Vec<ast::Alias>) {
        let _ = aliases;
    }
    /// One parameter: its annotation, then its default.
    fn param(&mut self, arg: &mut ast::Arg, default: Option<&mut Expr>) {
        walk_param(self, arg, default);
    }
    /// The `case` arms of a `match`.
    fn match_cases(&mut self, cases: &mut Vec<ast::MatchCase>) {
        for case in cases.iter_mut() {
            walk_case(self, case);
        }
    }
}

pub fn walk_case<V: VisitorMut + ?Sized>(v: &mut V, case: &mut ast::MatchCase) {
    walk_pattern(v, &mut case.pattern);
    opt(v, &mut case.guard);
    v.body(&mut case.body);
}

pub fn walk_param<V: VisitorMut + ?Sized>(
    v: &mut V,
    arg: &mut ast::Arg,
    default: Option<&mut Expr>,
) {
    v.optional(&mut arg.annotation, true);
    if let Some(d) = default {
        v.expr(d);
    }
}

pub fn walk_arguments<V: VisitorMut + ?Sized>(v: &mut V, args: &mut ast::Arguments) {
    for p in args.posonlyargs.iter_mut().chain(args.args.iter_mut()) {
        v.param(&mut p.def, p.default.as_deref_mut());
    }
    if let Some(arg) = args.vararg.as_deref_mut() {
        v.param(arg, None);
    }
    for p in args.kwonlyargs.iter_mut() {
        v.param(&mut p.def, p.default.as_deref_mut());
    }
    if let Some(arg) = args.kwarg.as_deref_mut() {
        v.param(arg, None);
    }
}

fn opt<V: VisitorMut + ?Sized>(v: &mut V, e: &mut Option<Box<Expr>>) {
    if let Some(e) = e.as_deref_mut() {
        v.expr(e);
    }
}

fn type_params<V: VisitorMut + ?Sized>(v: &mut V, params: &mut [ast::TypeParam]) {
    for p in params {
        if let ast::TypeParam::TypeVar(t) = p {
            opt(v, &mut t.bound);
        }
    }
}

fn with_items<V: VisitorMut + ?Sized>(v: &mut V, items: &mut [ast::WithItem]) {
    for item in items {
        v.expr(&mut item.context_expr);
        opt(v, &mut item.optional_vars);
    }
}

/// `star`: the handlers of `except*`, which always name a type.
fn handlers<V: VisitorMut + ?Sized>(v: &mut V, handlers: &mut [ast::ExceptHandler], star: bool) {
    let last = handlers.len().saturating_sub(1);
    for (i, ast::ExceptHandler::ExceptHandler(h)) in handlers.iter_mut().enumerate() {
        // A bare `except:` must be the last handler and binds no name.
        let removable = !star && i == last && h.name.is_none();
        v.optional(&mut h.type_, removable);
        v.body(&mut h.body);
    }
}

pub fn walk_stmt<V: VisitorMut + ?Sized>(v: &mut V, stmt: &mut Stmt) {
    match stmt {
        Stmt::FunctionDef(s) => {
            v.expr_list(&mut s.decorator_list, ListKind::Decorators);
            type_params(v, &mut s.type_params);
            v.arguments(&mut s.args);
            v.optional(&mut s.returns, true);
            v.body(&mut s.body);
        }
        Stmt::AsyncFunctionDef(s) => {
            v.expr_list(&mut s.decorator_list, ListKind::Decorators);
            type_params(v, &mut s.type_params);
            v.arguments(&mut s.args);
            v.optional(&mut s.returns, true);
            v.body(&mut s.body);
        }
        Stmt::ClassDef(s) => {
            v.expr_list(&mut s.decorator_list, ListKind::Decorators);
            type_params(v, &mut s.type_params);
            v.expr_list(&mut s.bases, ListKind::Bases);
            v.keywords(&mut s.keywords);
            v.body(&mut s.body);
        }
        Stmt::Return(s) => v.optional(&mut s.value, true),
        Stmt::Delete(s) => v.expr_list(&mut s.targets, ListKind::DeleteTargets),
        Stmt::Assign(s) => {
            v.expr_list(&mut s.targets, ListKind::AssignTargets);
            v.expr(&mut s.value);
        }
        Stmt::TypeAlias(s) => {
            v.expr(&mut s.name);
            type_params(v, &mut s.type_params);
            v.expr(&mut s.value);
        }
        Stmt::AugAssign(s) => {
            v.expr(&mut s.target);
            v.expr(&mut s.value);
        }
        Stmt::AnnAssign(s) => {
            v.expr(&mut s.target);
            v.expr(&mut s.annotation);
            opt(v, &mut s.value);
        }
        Stmt::For(s) => {
            v.expr(&mut s.target);
            v.expr(&mut s.iter);
            v.body(&mut s.body);
            v.body(&mut s.orelse);
        }
        Stmt::AsyncFor(s) => {
            v.expr(&mut s.target);
            v.expr(&mut s.iter);
            v.body(&mut s.body);
            v.body(&mut s.orelse);
        }
        Stmt::While(s) => {
            v.expr(&mut s.test);
            v.body(&mut s.body);
            v.body(&mut s.orelse);
        }
        Stmt::If(s) => {
            v.expr(&mut s.test);
            v.body(&mut s.body);
            v.body(&mut s.orelse);
        }
        Stmt::With(s) => {
            with_items(v, &mut s.items);
            v.body(&mut s.body);
        }
        Stmt::AsyncWith(s) => {
            with_items(v, &mut s.items);
            v.body(&mut s.body);
        }
        Stmt::Match(s) => {
            v.expr(&mut s.subject);
            v.match_cases(&mut s.cases);
        }
        Stmt::Raise(s) => {
            opt(v, &mut s.exc);
            v.optional(&mut s.cause, true);
        }
        Stmt::Try(s) => {
            v.body(&mut s.body);
            handlers(v, &mut s.handlers, false);
            v.body(&mut s.orelse);
            v.body(&mut s.finalbody);
        }
        Stmt::TryStar(s) => {
            v.body(&mut s.body);
            handlers(v, &mut s.handlers, true);
            v.body(&mut s.orelse);
            v.body(&mut s.finalbody);
        }
        Stmt::Assert(s) => {
            v.expr(&mut s.test);
            v.optional(&mut s.msg, true);
        }
        Stmt::Expr(s) => v.expr(&mut s.value),
        Stmt::Import(s) => v.aliases(&mut s.names),
        Stmt::ImportFrom(s) => v.aliases(&mut s.names),
        Stmt::Global(_)
        | Stmt::Nonlocal(_)
        | Stmt::Pass(_)
        | Stmt::Break(_)
        | Stmt::Continue(_) => {}
    }
}

pub fn walk_pattern<V: VisitorMut + ?Sized>(v: &mut V, pattern: &mut ast::Pattern) {
    match pattern {
        ast::Pattern::MatchValue(p) => v.expr(&mut p.value),
        ast::Pattern::MatchSingleton(_) | ast::Pattern::MatchStar(_) => {}
        ast::Pattern::MatchSequence(p) => p.patterns.iter_mut().for_each(|p| walk_pattern(v, p)),
        ast::Pattern::MatchMapping(p) => {
            for (key, pat) in p.keys.iter_mut().zip(p.patterns.iter_mut()) {
                v.expr(key);
                walk_pattern(v, pat);
            }
        }
        ast::Pattern::MatchClass(p) => {
            v.expr(&mut p.cls);
            p.patterns.iter_mut().for_each(|p| walk_pattern(v, p));
            p.kwd_patterns.iter_mut().for_each(|p| walk_pattern(v, p));
        }
        ast::Pattern::MatchAs(p) => {
            if let Some(p) = p.pattern.as_deref_mut() {
                walk_pattern(v, p);
            }
        }
        ast::Pattern::MatchOr(p) => p.patterns.iter_mut().for_each(|p| walk_pattern(v, p)),
    }
}

fn comprehensions<V: VisitorMut + ?Sized>(v: &mut V, generators: &mut [ast::Comprehension]) {
    for g in generators {
        v.expr(&mut g.target);
        v.expr(&mut g.iter);
        v.expr_list(&mut g.ifs, ListKind::ComprehensionIfs);
    }
}

pub fn walk_expr<V: VisitorMut + ?Sized>(v: &mut V, expr: &mut Expr) {
    match expr {
        Expr::BoolOp(e) => v.expr_list(&mut e.values, ListKind::BoolOperands),
        Expr::NamedExpr(e) => {
            v.expr(&mut e.target);
            v.expr(&mut e.value);
        }
        Expr::BinOp(e) => {
            v.expr(&mut e.left);
            v.expr(&mut e.right);
        }
        Expr::UnaryOp(e) => v.expr(&mut e.operand),
        Expr::Lambda(e) => {
            v.arguments(&mut e.args);
            v.expr(&mut e.body);
        }
        Expr::IfExp(e) => {
            v.expr(&mut e.body);
            v.expr(&mut e.test);
            v.expr(&mut e.orelse);
        }
        Expr::Dict(e) => v.dict(&mut e.keys, &mut e.values),
        Expr::Set(e) => v.expr_list(&mut e.elts, ListKind::SetElts),
        Expr::ListComp(e) => {
            v.expr(&mut e.elt);
            comprehensions(v, &mut e.generators);
        }
        Expr::SetComp(e) => {
            v.expr(&mut e.elt);
            comprehensions(v, &mut e.generators);
        }
        Expr::DictComp(e) => {
            v.expr(&mut e.key);
            v.expr(&mut e.value);
            comprehensions(v, &mut e.generators);
        }
        Expr::GeneratorExp(e) => {
            v.expr(&mut e.elt);
            comprehensions(v, &mut e.generators);
        }
        Expr::Await(e) => v.expr(&mut e.value),
        Expr::Yield(e) => opt(v, &mut e.value),
        Expr::YieldFrom(e) => v.expr(&mut e.value),
        Expr::Compare(e) => {
            v.expr(&mut e.left);
            v.expr_list(&mut e.comparators, ListKind::Other);
        }
        Expr::Call(e) => {
            v.expr(&mut e.func);
            v.expr_list(&mut e.args, ListKind::CallArgs);
            v.keywords(&mut e.keywords);
        }
        Expr::FormattedValue(e) => {
            v.expr(&mut e.value);
            opt(v, &mut e.format_spec);
        }
        Expr::JoinedStr(e) => v.expr_list(&mut e.values, ListKind::FStringParts),
        Expr::Attribute(e) => v.expr(&mut e.value),
        Expr::Subscript(e) => {
            v.expr(&mut e.value);
            v.expr(&mut e.slice);
        }
        Expr::Starred(e) => v.expr(&mut e.value),
        Expr::List(e) => v.expr_list(&mut e.elts, ListKind::Elts),
        Expr::Tuple(e) => v.expr_list(&mut e.elts, ListKind::Elts),
        Expr::Slice(e) => {
            opt(v, &mut e.lower);
            opt(v, &mut e.upper);
            opt(v, &mut e.step);
        }
        Expr::Constant(_) | Expr::Name(_) => {}
    }
}
