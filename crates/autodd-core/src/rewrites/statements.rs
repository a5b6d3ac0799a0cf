//! Statement rewrites: `stmt-remover`, `if-remover-1/2/3`, `for-bind-0`, `with-bind-0`,
//! and autodd's own block collapses (`with-remover`, `try-remover`, `while-remover`)
//! and assignment simplifications (`assign-to-expr`, `aug-assign-to-assign`,
//! `ann-assign-to-assign`).

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
        Rewrite::WithRemover => match stmt {
            Stmt::With(s) => s.items.iter().all(|i| i.optional_vars.is_none()),
            Stmt::AsyncWith(s) => s.items.iter().all(|i| i.optional_vars.is_none()),
            _ => false,
        },
        Rewrite::TryRemover => matches!(stmt, Stmt::Try(_) | Stmt::TryStar(_)),
        Rewrite::WhileRemover => matches!(stmt, Stmt::While(_)),
        Rewrite::AssignToExpr => matches!(stmt, Stmt::Assign(_)),
        Rewrite::AugAssignToAssign => matches!(stmt, Stmt::AugAssign(_)),
        Rewrite::AnnAssignToAssign => matches!(stmt, Stmt::AnnAssign(s) if s.value.is_some()),
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
        (Rewrite::WithRemover, Stmt::With(s)) => s.body,
        (Rewrite::WithRemover, Stmt::AsyncWith(s)) => s.body,
        (Rewrite::TryRemover, Stmt::Try(s)) => [s.body, s.orelse, s.finalbody].concat(),
        (Rewrite::TryRemover, Stmt::TryStar(s)) => [s.body, s.orelse, s.finalbody].concat(),
        (Rewrite::WhileRemover, Stmt::While(s)) => [s.body, s.orelse].concat(),
        (Rewrite::AssignToExpr, Stmt::Assign(s)) => vec![make::expr_stmt(*s.value)],
        (Rewrite::AugAssignToAssign, Stmt::AugAssign(s)) => vec![make::assign(*s.target, *s.value)],
        (Rewrite::AnnAssignToAssign, Stmt::AnnAssign(s)) => match s.value {
            Some(value) => vec![make::assign(*s.target, *value)],
            None => vec![make::pass()],
        },
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
