//! Statement rewrites: `stmt-remover`, `if-remover-1/2/3`, `for-bind-0`, `with-bind-0`,
//! and autodd's own block collapses (`with-remover`, `try-remover`, `while-remover`),
//! `for-bind-first`, and assignment simplifications (`assign-to-expr`,
//! `aug-assign-to-assign`, `ann-assign-to-assign`), and `type-params-remover`.

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
        Rewrite::ForBindFirst => matches!(stmt, Stmt::For(s) if first_item(&s.iter).is_some()),
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
        Rewrite::TypeParamsRemover => match stmt {
            Stmt::FunctionDef(s) => !s.type_params.is_empty(),
            Stmt::AsyncFunctionDef(s) => !s.type_params.is_empty(),
            Stmt::ClassDef(s) => !s.type_params.is_empty(),
            Stmt::TypeAlias(s) => !s.type_params.is_empty(),
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
        (Rewrite::ForBindFirst, Stmt::For(s)) => match first_item(&s.iter) {
            Some(first) => [vec![make::assign(*s.target, first)], s.body, s.orelse].concat(),
            None => vec![make::pass()],
        },
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
        (Rewrite::TypeParamsRemover, mut stmt) => {
            match &mut stmt {
                Stmt::FunctionDef(s) => s.type_params.clear(),
                Stmt::AsyncFunctionDef(s) => s.type_params.clear(),
                Stmt::ClassDef(s) => s.type_params.clear(),
                Stmt::TypeAlias(s) => s.type_params.clear(),
                _ => {}
            }
            vec![stmt]
        }
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

/// The first item a `for` loop over `iter` binds, where the program spells it out: the
/// first element of a list, tuple or set display (`[a, b]` gives `a`; a set's order
/// may differ, but any of its items is a fair stand-in), the first key of a dict
/// display, the first `(key, value)`, key or value of a dict display's `.items()`,
/// `.keys()` or `.values()`, the first word or line of a string literal's `.split()` or
/// `.splitlines()` (after any `.strip()`s), and `start` of `range(start, stop[, step])`.
/// None for anything else, an empty display, or a first item that is unpacked (`*xs`,
/// `**d`).
fn first_item(iter: &ast::Expr) -> Option<ast::Expr> {
    use ast::Expr;
    let first_of = |elts: &[Expr]| match elts.first() {
        Some(Expr::Starred(_)) | None => None,
        Some(first) => Some(first.clone()),
    };
    match iter {
        Expr::List(e) => first_of(&e.elts),
        Expr::Tuple(e) => first_of(&e.elts),
        Expr::Set(e) => first_of(&e.elts),
        Expr::Dict(d) => d.keys.first().cloned().flatten(),
        Expr::Call(call) if call.args.len() >= 2 && call.keywords.is_empty() => match &*call.func {
            Expr::Name(name) if name.id.as_str() == "range" => first_of(&call.args),
            _ => None,
        },
        Expr::Call(call) if call.args.is_empty() && call.keywords.is_empty() => {
            let Expr::Attribute(attr) = &*call.func else {
                return None;
            };
            match attr.attr.as_str() {
                "split" => {
                    let word = literal_text(&attr.value)?
                        .split(py_isspace)
                        .find(|w| !w.is_empty())?;
                    Some(make::str(word))
                }
                "splitlines" => {
                    let text = literal_text(&attr.value)?;
                    let line = text.split(LINE_BREAKS).next().unwrap_or("");
                    (!text.is_empty()).then(|| make::str(line))
                }
                "items" | "keys" | "values" => {
                    let Expr::Dict(d) = &*attr.value else {
                        return None;
                    };
                    let key = d.keys.first().cloned().flatten()?;
                    let value = d.values.first()?.clone();
                    Some(match attr.attr.as_str() {
                        "items" => make::tuple(vec![key, value]),
                        "keys" => key,
                        _ => value,
                    })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// What Python's `str.splitlines()` splits at (`\r\n` ends a line at its `\r`, so the
/// first line is the same).
const LINE_BREAKS: &[char] = &[
    '\n', '\r', '\x0b', '\x0c', '\x1c', '\x1d', '\x1e', '\u{85}', '\u{2028}', '\u{2029}',
];

/// Python's `str.isspace()` for one character: Unicode's White_Space, plus the
/// information separators U+001C to U+001F. What `split()` and `strip()` without
/// arguments split at and strip.
fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// The value of a string literal, after any `.strip()`, `.lstrip()` or `.rstrip()`
/// without arguments called on it.
fn literal_text(expr: &ast::Expr) -> Option<&str> {
    match expr {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Str(s) => Some(s),
            _ => None,
        },
        ast::Expr::Call(call) if call.args.is_empty() && call.keywords.is_empty() => {
            let ast::Expr::Attribute(attr) = &*call.func else {
                return None;
            };
            let text = literal_text(&attr.value)?;
            match attr.attr.as_str() {
                "strip" => Some(text.trim_matches(py_isspace)),
                "lstrip" => Some(text.trim_start_matches(py_isspace)),
                "rstrip" => Some(text.trim_end_matches(py_isspace)),
                _ => None,
            }
        }
        _ => None,
    }
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

/// `unpack-pair-remover`: `a, b, c = x, y, z` loses a target together with the value
/// it takes (`tokens, pos, line = [], 0, 1` → `tokens, pos = [], 0`, where `line` was
/// read nowhere). Offered on each target of a tuple or list target that a display of
/// as many values, neither with a `*` item, is assigned to; one pair always stays.
/// Returns the targets, whose items are the sites.
pub fn unpackable_pairs(stmt: &Stmt) -> Option<&Vec<ast::Expr>> {
    let Stmt::Assign(assign) = stmt else {
        return None;
    };
    let [target] = &assign.targets[..] else {
        return None;
    };
    let (targets, values) = (display_items(target)?, display_items(&assign.value)?);
    let starred = |items: &[ast::Expr]| items.iter().any(|e| matches!(e, ast::Expr::Starred(_)));
    (targets.len() == values.len() && targets.len() > 1 && !starred(targets) && !starred(values))
        .then_some(targets)
}

fn display_items(expr: &ast::Expr) -> Option<&Vec<ast::Expr>> {
    match expr {
        ast::Expr::Tuple(t) => Some(&t.elts),
        ast::Expr::List(l) => Some(&l.elts),
        _ => None,
    }
}

fn display_items_mut(expr: &mut ast::Expr) -> Option<&mut Vec<ast::Expr>> {
    match expr {
        ast::Expr::Tuple(t) => Some(&mut t.elts),
        ast::Expr::List(l) => Some(&mut l.elts),
        _ => None,
    }
}

/// Removes the pairs `drop` marks from an assignment [`unpackable_pairs`] accepts
/// (keeping the last marked one if all are): `a, b = x, y` without its second pair
/// becomes `a = x`. An assignment whose targets or values other rewrites of the same
/// candidate changed in number (or replaced) is left as it is.
pub fn remove_pairs(stmt: &mut Stmt, drop: &[bool]) {
    if unpackable_pairs(stmt).is_none_or(|targets| targets.len() != drop.len()) {
        return;
    }
    let Stmt::Assign(assign) = stmt else { return };
    let [target] = &mut assign.targets[..] else {
        return;
    };
    let all = drop.iter().all(|d| *d);
    let keep = |i: usize| !drop.get(i).copied().unwrap_or(false) || (all && i + 1 == drop.len());
    for items in [
        display_items_mut(target),
        display_items_mut(&mut assign.value),
    ]
    .into_iter()
    .flatten()
    {
        let mut i = 0;
        items.retain(|_| {
            i += 1;
            keep(i - 1)
        });
    }
    let single = |e: &mut ast::Expr| match display_items_mut(e) {
        Some(items) if items.len() == 1 => items.pop(),
        _ => None,
    };
    if let (Some(t), Some(v)) = (single(target), single(&mut assign.value)) {
        *target = t;
        *assign.value = v;
    }
}
