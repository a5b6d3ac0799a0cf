//! Statements: one per line, blocks indented by four spaces.

use super::expr::prec;
use super::Printer;
use crate::parse::ast::{self, Expr, Stmt};

impl Printer<'_> {
    pub(super) fn stmts(&mut self, body: &[Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    /// Writes `:` and the indented block. An empty body (only the engine produces
    /// one) prints `pass` so the output stays valid.
    fn block(&mut self, body: &[Stmt]) {
        self.push(":\n");
        self.indent += 1;
        if body.is_empty() {
            self.line();
            self.push("pass\n");
        } else {
            self.stmts(body);
        }
        self.indent -= 1;
    }

    /// Writes an `else:`/`finally:` clause when its body is not empty.
    fn clause(&mut self, keyword: &str, body: &[Stmt]) {
        if !body.is_empty() {
            self.line();
            self.push(keyword);
            self.block(body);
        }
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::FunctionDef(f) => self.function_def(
                false,
                &f.name,
                &f.args,
                &f.body,
                &f.decorator_list,
                f.returns.as_deref(),
                &f.type_params,
            ),
            Stmt::AsyncFunctionDef(f) => self.function_def(
                true,
                &f.name,
                &f.args,
                &f.body,
                &f.decorator_list,
                f.returns.as_deref(),
                &f.type_params,
            ),
            Stmt::ClassDef(c) => {
                self.decorators(&c.decorator_list);
                self.line();
                self.push("class ");
                self.push(&c.name);
                self.type_params(&c.type_params);
                if !c.bases.is_empty() || !c.keywords.is_empty() {
                    self.push("(");
                    self.call_args(&c.bases, &c.keywords);
                    self.push(")");
                }
                self.block(&c.body);
            }
            Stmt::Return(r) => {
                self.line();
                self.push("return");
                if let Some(v) = &r.value {
                    self.push(" ");
                    self.expr(v, prec::TUPLE);
                }
                self.push("\n");
            }
            Stmt::Delete(d) => {
                self.line();
                self.push("del ");
                // Each target is separate: `del a, b` has two targets, so a tuple target
                // keeps its parentheses.
                self.comma_list(&d.targets, |p, t| p.expr(t, prec::TEST));
                self.push("\n");
            }
            Stmt::Assign(a) => {
                self.line();
                for t in &a.targets {
                    self.expr(t, prec::TUPLE);
                    self.push(" = ");
                }
                self.expr(&a.value, prec::YIELD);
                self.push("\n");
            }
            Stmt::TypeAlias(t) => {
                self.line();
                self.push("type ");
                self.expr(&t.name, prec::ATOM);
                self.type_params(&t.type_params);
                self.push(" = ");
                self.expr(&t.value, prec::TEST);
                self.push("\n");
            }
            Stmt::AugAssign(a) => {
                self.line();
                self.expr(&a.target, prec::TEST);
                self.push(" ");
                self.push(super::expr::operator_str(a.op));
                self.push("= ");
                self.expr(&a.value, prec::YIELD);
                self.push("\n");
            }
            Stmt::AnnAssign(a) => {
                self.line();
                // `simple` is false for a parenthesized name, which is how it comes back.
                let paren = !a.simple && a.target.is_name_expr();
                if paren {
                    self.push("(");
                }
                self.expr(&a.target, prec::TEST);
                if paren {
                    self.push(")");
                }
                self.push(": ");
                self.expr(&a.annotation, prec::TEST);
                if let Some(v) = &a.value {
                    self.push(" = ");
                    self.expr(v, prec::YIELD);
                }
                self.push("\n");
            }
            Stmt::For(f) => self.for_stmt(false, &f.target, &f.iter, &f.body, &f.orelse),
            Stmt::AsyncFor(f) => self.for_stmt(true, &f.target, &f.iter, &f.body, &f.orelse),
            Stmt::While(w) => {
                self.line();
                self.push("while ");
                self.condition(&w.test);
                self.block(&w.body);
                self.clause("else", &w.orelse);
            }
            Stmt::If(i) => {
                self.line();
                self.push("if ");
                self.if_rest(i);
            }
            Stmt::With(w) => self.with_stmt(false, &w.items, &w.body),
            Stmt::AsyncWith(w) => self.with_stmt(true, &w.items, &w.body),
            Stmt::Match(m) => {
                self.line();
                self.push("match ");
                // A tuple subject keeps its parentheses: the parser reads `match x,:`
                // as `match x:`.
                self.expr(&m.subject, prec::TEST);
                self.push(":\n");
                self.indent += 1;
                for c in &m.cases {
                    self.line();
                    self.push("case ");
                    self.pattern(&c.pattern, 0);
                    if let Some(g) = &c.guard {
                        self.push(" if ");
                        self.expr(g, prec::TEST);
                    }
                    self.block(&c.body);
                }
                self.indent -= 1;
            }
            Stmt::Raise(r) => {
                self.line();
                self.push("raise");
                if let Some(e) = &r.exc {
                    self.push(" ");
                    self.expr(e, prec::TEST);
                }
                if let Some(c) = &r.cause {
                    self.push(" from ");
                    self.expr(c, prec::TEST);
                }
                self.push("\n");
            }
            Stmt::Try(t) => self.try_stmt(false, &t.body, &t.handlers, &t.orelse, &t.finalbody),
            Stmt::TryStar(t) => self.try_stmt(true, &t.body, &t.handlers, &t.orelse, &t.finalbody),
            Stmt::Assert(a) => {
                self.line();
                self.push("assert ");
                self.expr(&a.test, prec::TEST);
                if let Some(m) = &a.msg {
                    self.push(", ");
                    self.expr(m, prec::TEST);
                }
                self.push("\n");
            }
            Stmt::Import(i) => {
                self.line();
                self.push("import ");
                self.comma_list(&i.names, Self::alias);
                self.push("\n");
            }
            Stmt::ImportFrom(i) => {
                self.line();
                self.push("from ");
                for _ in 0..i.level.map_or(0, |l| l.to_u32()) {
                    self.push(".");
                }
                if let Some(m) = &i.module {
                    self.push(m);
                }
                self.push(" import ");
                self.comma_list(&i.names, Self::alias);
                self.push("\n");
            }
            Stmt::Global(g) => self.names_stmt("global ", &g.names),
            Stmt::Nonlocal(n) => self.names_stmt("nonlocal ", &n.names),
            Stmt::Expr(e) => {
                self.line();
                self.expr(&e.value, prec::YIELD);
                self.push("\n");
            }
            Stmt::Pass(_) => self.simple("pass"),
            Stmt::Break(_) => self.simple("break"),
            Stmt::Continue(_) => self.simple("continue"),
        }
    }

    /// An `if`/`while` condition: a bare walrus is allowed there, a bare tuple or
    /// `yield` is not, which no single precedence level expresses.
    fn condition(&mut self, test: &Expr) {
        if test.is_named_expr_expr() {
            self.expr(test, prec::NAMED);
        } else {
            self.expr(test, prec::TEST);
        }
    }

    fn simple(&mut self, keyword: &str) {
        self.line();
        self.push(keyword);
        self.push("\n");
    }

    fn names_stmt(&mut self, keyword: &str, names: &[ast::Identifier]) {
        self.line();
        self.push(keyword);
        self.comma_list(names, |p, n| p.push(n));
        self.push("\n");
    }

    fn alias(&mut self, a: &ast::Alias) {
        self.push(&a.name);
        if let Some(n) = &a.asname {
            self.push(" as ");
            self.push(n);
        }
    }

    fn decorators(&mut self, list: &[Expr]) {
        for d in list {
            self.line();
            self.push("@");
            self.expr(d, prec::TEST);
            self.push("\n");
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn function_def(
        &mut self,
        is_async: bool,
        name: &str,
        args: &ast::Arguments,
        body: &[Stmt],
        decorators: &[Expr],
        returns: Option<&Expr>,
        type_params: &[ast::TypeParam],
    ) {
        self.decorators(decorators);
        self.line();
        self.push(if is_async { "async def " } else { "def " });
        self.push(name);
        self.type_params(type_params);
        self.push("(");
        self.arguments(args, true);
        self.push(")");
        if let Some(r) = returns {
            self.push(" -> ");
            self.expr(r, prec::TEST);
        }
        self.block(body);
    }

    fn type_params(&mut self, params: &[ast::TypeParam]) {
        if params.is_empty() {
            return;
        }
        self.push("[");
        self.comma_list(params, |p, tp| match tp {
            ast::TypeParam::TypeVar(t) => {
                p.push(&t.name);
                if let Some(b) = &t.bound {
                    p.push(": ");
                    p.expr(b, prec::TEST);
                }
            }
            ast::TypeParam::ParamSpec(t) => {
                p.push("**");
                p.push(&t.name);
            }
            ast::TypeParam::TypeVarTuple(t) => {
                p.push("*");
                p.push(&t.name);
            }
        });
        self.push("]");
    }

    fn for_stmt(
        &mut self,
        is_async: bool,
        target: &Expr,
        iter: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
    ) {
        self.line();
        self.push(if is_async { "async for " } else { "for " });
        self.expr(target, prec::TUPLE);
        self.push(" in ");
        self.expr(iter, prec::TUPLE);
        self.block(body);
        self.clause("else", orelse);
    }

    /// The part of an `if` after the keyword; an `else` holding just another `if`
    /// becomes `elif` (the AST is the same either way).
    fn if_rest(&mut self, i: &ast::StmtIf) {
        self.condition(&i.test);
        self.block(&i.body);
        match i.orelse.as_slice() {
            [Stmt::If(inner)] => {
                self.line();
                self.push("elif ");
                self.if_rest(inner);
            }
            orelse => self.clause("else", orelse),
        }
    }

    fn with_stmt(&mut self, is_async: bool, items: &[ast::WithItem], body: &[Stmt]) {
        self.line();
        self.push(if is_async { "async with " } else { "with " });
        // `with (a, b):` means two items since Python 3.9, so a lone tuple item needs
        // a second pair of parentheses.
        let lone_tuple = matches!(items, [ast::WithItem { context_expr: Expr::Tuple(t), optional_vars: None, .. }] if !t.elts.is_empty());
        self.comma_list(items, |p, item| {
            if lone_tuple {
                p.push("(");
            }
            p.expr(&item.context_expr, prec::TEST);
            if lone_tuple {
                p.push(")");
            }
            if let Some(v) = &item.optional_vars {
                p.push(" as ");
                p.expr(v, prec::TEST);
            }
        });
        self.block(body);
    }

    fn try_stmt(
        &mut self,
        star: bool,
        body: &[Stmt],
        handlers: &[ast::ExceptHandler],
        orelse: &[Stmt],
        finalbody: &[Stmt],
    ) {
        self.line();
        self.push("try");
        self.block(body);
        for ast::ExceptHandler::ExceptHandler(h) in handlers {
            self.line();
            self.push(if star { "except*" } else { "except" });
            if let Some(t) = &h.type_ {
                self.push(" ");
                self.expr(t, prec::TEST);
            }
            if let Some(n) = &h.name {
                self.push(" as ");
                self.push(n);
            }
            self.block(&h.body);
        }
        self.clause("else", orelse);
        if handlers.is_empty() && finalbody.is_empty() {
            // A `try` needs a handler or a `finally`; keep the output valid.
            self.line();
            self.push("finally");
            self.block(&[]);
        } else {
            self.clause("finally", finalbody);
        }
    }
}
