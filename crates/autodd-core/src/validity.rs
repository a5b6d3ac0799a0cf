//! Rejects, before they reach Python, candidates that CPython would refuse to
//! compile: `return`/`yield` outside a function, `await`/`async for`/`async with`
//! outside an `async def`, `break`/`continue` outside a loop, `nonlocal` outside a
//! nested function. Rewrites such as `for-bind-0` (a loop body with `break` left
//! behind) produce these often, and each would cost a Python run. The check is
//! conservative: it rejects only what is certainly invalid.

use crate::parse::ast::{self, Expr, Stmt};
use crate::walk::{self, ListKind, VisitorMut};

/// Whether `body` would pass CPython's compiler checks listed above.
pub fn compiles(body: &mut Vec<Stmt>) -> bool {
    let mut checker = Checker {
        scope: Scope::Module,
        loops: 0,
        valid: true,
    };
    checker.body(body);
    checker.valid
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Module,
    Class,
    Function { is_async: bool, nested: bool },
    Lambda,
}

struct Checker {
    scope: Scope,
    loops: u32,
    valid: bool,
}

impl Checker {
    fn in_function(&self) -> bool {
        matches!(self.scope, Scope::Function { .. })
    }

    fn in_async(&self) -> bool {
        matches!(self.scope, Scope::Function { is_async: true, .. })
    }

    /// Visits `f` in a new scope with no enclosing loop.
    fn scoped(&mut self, scope: Scope, f: impl FnOnce(&mut Self)) {
        let saved = (self.scope, self.loops);
        self.scope = scope;
        self.loops = 0;
        f(self);
        (self.scope, self.loops) = saved;
    }

    fn in_loop(&mut self, body: &mut Vec<Stmt>) {
        self.loops += 1;
        self.body(body);
        self.loops -= 1;
    }

    fn function(
        &mut self,
        decorators: &mut Vec<Expr>,
        args: &mut ast::Arguments,
        returns: &mut Option<Box<Expr>>,
        body: &mut Vec<Stmt>,
        is_async: bool,
    ) {
        self.expr_list(decorators, ListKind::Decorators);
        self.arguments(args);
        if let Some(r) = returns.as_deref_mut() {
            self.expr(r);
        }
        let nested = self.in_function();
        self.scoped(Scope::Function { is_async, nested }, |c| c.body(body));
    }
}

impl VisitorMut for Checker {
    fn body(&mut self, body: &mut Vec<Stmt>) {
        for stmt in body.iter_mut() {
            if !self.valid {
                return;
            }
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &mut Stmt) {
        match stmt {
            Stmt::Return(_) if !self.in_function() => self.valid = false,
            Stmt::Break(_) | Stmt::Continue(_) if self.loops == 0 => self.valid = false,
            Stmt::Nonlocal(_) if !matches!(self.scope, Scope::Function { nested: true, .. }) => {
                self.valid = false
            }
            Stmt::AsyncFor(_) | Stmt::AsyncWith(_) if !self.in_async() => self.valid = false,
            Stmt::FunctionDef(s) => self.function(
                &mut s.decorator_list,
                &mut s.args,
                &mut s.returns,
                &mut s.body,
                false,
            ),
            Stmt::AsyncFunctionDef(s) => self.function(
                &mut s.decorator_list,
                &mut s.args,
                &mut s.returns,
                &mut s.body,
                true,
            ),
            Stmt::ClassDef(s) => {
                self.expr_list(&mut s.decorator_list, ListKind::Decorators);
                self.expr_list(&mut s.bases, ListKind::Bases);
                self.keywords(&mut s.keywords);
                self.scoped(Scope::Class, |c| c.body(&mut s.body));
            }
            Stmt::For(s) => {
                self.expr(&mut s.target);
                self.expr(&mut s.iter);
                self.in_loop(&mut s.body);
                self.body(&mut s.orelse);
            }
            Stmt::AsyncFor(s) => {
                self.expr(&mut s.target);
                self.expr(&mut s.iter);
                self.in_loop(&mut s.body);
                self.body(&mut s.orelse);
            }
            Stmt::While(s) => {
                self.expr(&mut s.test);
                self.in_loop(&mut s.body);
                self.body(&mut s.orelse);
            }
            _ => walk::walk_stmt(self, stmt),
        }
    }

    fn expr(&mut self, expr: &mut Expr) {
        if !self.valid {
            return;
        }
        match expr {
            Expr::Yield(_) | Expr::YieldFrom(_)
                if !matches!(self.scope, Scope::Function { .. } | Scope::Lambda) =>
            {
                self.valid = false
            }
            Expr::Await(_) if !self.in_async() => self.valid = false,
            Expr::Lambda(e) => {
                self.arguments(&mut e.args);
                self.scoped(Scope::Lambda, |c| c.expr(&mut e.body));
            }
            _ => walk::walk_expr(self, expr),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_module;

    fn ok(src: &str) -> bool {
        let mut body = parse_module(src).expect("parses");
        compiles(&mut body)
    }

    #[test]
    fn accepts_valid_programs() {
        assert!(ok("def f():\n    return 1\n"));
        assert!(ok("for x in y:\n    if x:\n        break\n    continue\n"));
        assert!(ok(
            "async def f():\n    await g()\n    async for x in y:\n        pass\n"
        ));
        assert!(ok(
            "def f():\n    x = 1\n    def g():\n        nonlocal x\n"
        ));
        assert!(ok("g = lambda: (yield)\n"));
        assert!(ok(
            "while True:\n    def f():\n        return 1\n    break\n"
        ));
    }

    #[test]
    fn rejects_what_cpython_refuses() {
        assert!(!ok("return 1\n"));
        assert!(!ok("x = 1\nbreak\n"));
        assert!(!ok("for x in y:\n    pass\nelse:\n    continue\n"));
        assert!(!ok("while x:\n    def f():\n        break\n"));
        assert!(!ok("class C:\n    return 1\n"));
        assert!(!ok("yield 1\n"));
        assert!(!ok("def f():\n    await g()\n"));
        assert!(!ok("async def f():\n    h = lambda: await g()\n"));
        assert!(!ok("def f():\n    nonlocal x\n"));
        assert!(!ok("async with a:\n    pass\n"));
    }
}
