//! Cleaning after a rewrite: drop `pass` from bodies that have other statements,
//! keep one `pass` where a body would be empty, drop an `else`/`finally` that holds
//! only `pass`, and unwrap a `try` that is left with nothing but its body. Every
//! change here keeps the program's meaning.

use crate::parse::ast::Stmt;
use crate::rewrites::make;

/// Cleans every body of the module, innermost first.
pub fn clean_module(body: &mut Vec<Stmt>) {
    clean_body(body, false);
}

fn is_pass(body: &[Stmt]) -> bool {
    body.iter().all(|s| matches!(s, Stmt::Pass(_)))
}

/// Cleans the statements of a body, each on its own (a `try` left with nothing but its
/// body becomes that body), without the rules for the body as a whole (`pass` only
/// where it would be empty): what cleaning does to some top-level statements of a
/// module whose others are already clean.
pub fn clean_statements(body: &mut Vec<Stmt>) {
    let mut i = 0;
    while i < body.len() {
        clean_stmt(&mut body[i]);
        // `try: B finally: pass` with no handlers is just `B`.
        if let Stmt::Try(t) = &mut body[i] {
            if t.handlers.is_empty() && t.finalbody.is_empty() {
                let inner = std::mem::take(&mut t.body);
                let n = inner.len();
                body.splice(i..=i, inner);
                i += n;
                continue;
            }
        }
        i += 1;
    }
}

/// Cleans a body; `may_be_empty` is true for `else`/`finally` bodies, which may vanish.
fn clean_body(body: &mut Vec<Stmt>, may_be_empty: bool) {
    clean_statements(body);
    if body.len() > 1 {
        body.retain(|s| !matches!(s, Stmt::Pass(_)));
    }
    if body.is_empty() {
        if !may_be_empty {
            body.push(make::pass());
        }
    } else if may_be_empty && is_pass(body) {
        body.clear();
    }
}

fn clean_stmt(stmt: &mut Stmt) {
    match stmt {
        Stmt::FunctionDef(s) => clean_body(&mut s.body, false),
        Stmt::AsyncFunctionDef(s) => clean_body(&mut s.body, false),
        Stmt::ClassDef(s) => clean_body(&mut s.body, false),
        Stmt::For(s) => {
            clean_body(&mut s.body, false);
            clean_body(&mut s.orelse, true);
        }
        Stmt::AsyncFor(s) => {
            clean_body(&mut s.body, false);
            clean_body(&mut s.orelse, true);
        }
        Stmt::While(s) => {
            clean_body(&mut s.body, false);
            clean_body(&mut s.orelse, true);
        }
        Stmt::If(s) => {
            clean_body(&mut s.body, false);
            clean_body(&mut s.orelse, true);
        }
        Stmt::With(s) => clean_body(&mut s.body, false),
        Stmt::AsyncWith(s) => clean_body(&mut s.body, false),
        Stmt::Match(s) => s
            .cases
            .iter_mut()
            .for_each(|c| clean_body(&mut c.body, false)),
        Stmt::Try(s) => {
            clean_body(&mut s.body, false);
            s.handlers.iter_mut().for_each(|h| {
                let crate::parse::ast::ExceptHandler::ExceptHandler(h) = h;
                clean_body(&mut h.body, false);
            });
            clean_body(&mut s.orelse, true);
            // A `try` needs an `except` or a `finally`; an empty one is unwrapped by the caller.
            clean_body(&mut s.finalbody, true);
            if s.handlers.is_empty() && !s.orelse.is_empty() && s.finalbody.is_empty() {
                s.finalbody.push(make::pass());
            }
        }
        Stmt::TryStar(s) => {
            clean_body(&mut s.body, false);
            s.handlers.iter_mut().for_each(|h| {
                let crate::parse::ast::ExceptHandler::ExceptHandler(h) = h;
                clean_body(&mut h.body, false);
            });
            clean_body(&mut s.orelse, true);
            clean_body(&mut s.finalbody, !s.handlers.is_empty());
        }
        _ => {}
    }
}
