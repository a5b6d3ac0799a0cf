//! Statement rewrites: `stmt-remover`, `if-remover-1/2/3`, `for-bind-0`, `with-bind-0`.

use super::{make, Rewrite};
use crate::parse::ast::{self, Stmt};

/// Whether `rewrite` (a statement rewrite of this family) applies to `stmt`.
pub fn matches(rewrite: Rewrite, stmt: &Stmt) -> bool {
    match rewrite {
        // Turning `pass` into `pass` is no change.
        Rewrite::StmtRemover => !matches!(stmt, Stmt::Pass(_)),
        Rewrite::IfRemover1 => matches!(stmt, Stmt::If(s) if s.orelse.is_empty()),
        Rewrite::IfRemover2 | Rewrite::IfRemover3 => {
            matches!(stmt, Stmt::If(s) if !s.orelse.is_empty())
        }
        Rewrite::ForBind0 => matches!(stmt, Stmt::For(_) | Stmt::AsyncFor(_)),
        Rewrite::WithBind0 => match stmt {
            Stmt::With(s) => s.items.iter().any(|i| i.optional_vars.is_some()),
            Stmt::AsyncWith(s) => s.items.iter().any(|i| i.optional_vars.is_some()),
            _ => false,
        },
        _ => false,
    }
}

/// Replaces `stmt` by what `rewrite` makes of it (a [`super::Shape::ReplaceStmt`] rewrite).
pub fn replace(rewrite: Rewrite, stmt: Stmt) -> Vec<Stmt> {
    match (rewrite, stmt) {
        (Rewrite::IfRemover1 | Rewrite::IfRemover2, Stmt::If(s)) => s.body,
        (Rewrite::IfRemover3, Stmt::If(s)) => s.orelse,
        (Rewrite::ForBind0, Stmt::For(s)) => bind_zero(&s.target, s.body, s.orelse),
        (Rewrite::ForBind0, Stmt::AsyncFor(s)) => bind_zero(&s.target, s.body, s.orelse),
        _ => vec![make::pass()],
    }
}

/// `for V in E: B else: O` becomes `V = 0; B; O`: the loop body runs once with a
/// stand-in value, and the `else` runs as it would after a loop without `break`.
fn bind_zero(target: &ast::Expr, body: Vec<Stmt>, orelse: Vec<Stmt>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(1 + body.len() + orelse.len());
    out.push(make::assign(target.clone(), make::zeros_like(target)));
    out.extend(body);
    out.extend(orelse);
    out
}

/// `with E as V: B` becomes `with E: V = 0; B` (every item with `as` at once).
pub fn edit_with(stmt: &mut Stmt) {
    let (items, body) = match stmt {
        Stmt::With(s) => (&mut s.items, &mut s.body),
        Stmt::AsyncWith(s) => (&mut s.items, &mut s.body),
        _ => return,
    };
    let binds: Vec<Stmt> = items
        .iter_mut()
        .filter_map(|item| item.optional_vars.take())
        .map(|target| {
            let zeros = make::zeros_like(&target);
            make::assign(*target, zeros)
        })
        .collect();
    body.splice(0..0, binds);
}
