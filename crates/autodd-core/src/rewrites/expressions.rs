//! Expression rewrites: `assign-rhs-1`, `call-fwd-arg1`, `binop-fwd-arg-left/right`,
//! `int-reduce-2`, and autodd's `int-step-down` (`40` → `35`: down by an eighth, at
//! least 1), `attribute-fwd` (`a.b` → `a`), `subscript-fwd`
//! (`a[i]` → `a`), `ifexp-fwd-body/else` (`a if c else b` → `a` / `b`) and `unary-fwd`
//! (`not x`, `-x`, `~x` → `x`), `boolop-fwd-first/last` (`a or b` → `a` / `b`), `expr-to-const` (any value → `0`) and `str-concat-merge`
//! (`'a ' + f'{b}'` → `f'a {b}'`).

use num_bigint::BigInt;
use num_traits::One;

use super::{make, Rewrite};
use crate::parse::ast::{self, Expr};

/// Whether `rewrite` applies to `expr`. `assign-rhs-1` is matched by the traversal,
/// which knows whether the expression is an assignment's value.
pub fn matches(rewrite: Rewrite, expr: &Expr) -> bool {
    match rewrite {
        Rewrite::AssignRhs1 => !is_int(expr, &BigInt::one()),
        // `f(*xs)` cannot become `*xs` outside a call.
        Rewrite::CallFwdArg1 => {
            matches!(expr, Expr::Call(c) if c.args.first().is_some_and(|a| !matches!(a, Expr::Starred(_))))
        }
        Rewrite::BinopFwdArgLeft | Rewrite::BinopFwdArgRight => matches!(expr, Expr::BinOp(_)),
        Rewrite::IntReduce2 | Rewrite::IntStepDown => matches!(
            expr,
            Expr::Constant(ast::ExprConstant { value: ast::Constant::Int(v), .. }) if *v > BigInt::one()
        ),
        // Only reads: `a.b = x` cannot become `a = x`.
        Rewrite::AttributeFwd => {
            matches!(expr, Expr::Attribute(a) if a.ctx == ast::ExprContext::Load)
        }
        Rewrite::SubscriptFwd => {
            matches!(expr, Expr::Subscript(a) if a.ctx == ast::ExprContext::Load)
        }
        Rewrite::IfExpFwdBody | Rewrite::IfExpFwdElse => matches!(expr, Expr::IfExp(_)),
        Rewrite::BoolopFwdFirst | Rewrite::BoolopFwdLast => matches!(expr, Expr::BoolOp(_)),
        Rewrite::StrConcatMerge => is_literal_concat(expr),
        // `-1` is how a negative number is written: `int-reduce-2` shrinks it instead.
        Rewrite::UnaryFwd => {
            matches!(expr, Expr::UnaryOp(u) if !matches!(*u.operand, Expr::Constant(_)))
        }
        _ => false,
    }
}

/// Whether `expr-to-const` may replace `expr`, once the traversal has ruled out the
/// places where `0` would be refused or only warned about (a call's callee, the value
/// of `a.b` and `a[i]`, an operand of `is`, a pattern, an assignment's value, an
/// expression statement, a decorator or base). Reads only: a target cannot become `0`.
/// A one-letter name is as short as `0`.
pub fn constant_replaceable(expr: &Expr) -> bool {
    use ast::ExprContext::Load;
    match expr {
        Expr::Constant(_) | Expr::FormattedValue(_) => false,
        Expr::Name(n) => n.ctx == Load && n.id.as_str().len() > 1,
        Expr::Attribute(a) => a.ctx == Load,
        Expr::Subscript(a) => a.ctx == Load,
        Expr::Starred(a) => a.ctx == Load,
        Expr::List(a) => a.ctx == Load,
        Expr::Tuple(a) => a.ctx == Load && !a.elts.is_empty(),
        _ => true,
    }
}

fn is_int(expr: &Expr, value: &BigInt) -> bool {
    matches!(expr, Expr::Constant(ast::ExprConstant { value: ast::Constant::Int(v), .. }) if v == value)
}

/// What `rewrite` makes of `expr`; an expression it does not match comes back unchanged.
pub fn replace(rewrite: Rewrite, expr: Expr) -> Expr {
    match (rewrite, expr) {
        (Rewrite::AssignRhs1, _) => make::int(1),
        (Rewrite::CallFwdArg1, Expr::Call(mut c)) if !c.args.is_empty() => c.args.swap_remove(0),
        (Rewrite::BinopFwdArgLeft, Expr::BinOp(b)) => *b.left,
        (Rewrite::BinopFwdArgRight, Expr::BinOp(b)) => *b.right,
        (Rewrite::IntReduce2, Expr::Constant(mut c)) => {
            if let ast::Constant::Int(v) = &mut c.value {
                *v = &*v / 2;
            }
            Expr::Constant(c)
        }
        (Rewrite::IntStepDown, Expr::Constant(mut c)) => {
            if let ast::Constant::Int(v) = &mut c.value {
                let step = (&*v / 8u32).max(BigInt::one());
                *v -= step;
            }
            Expr::Constant(c)
        }
        (Rewrite::AttributeFwd, Expr::Attribute(a)) => *a.value,
        (Rewrite::SubscriptFwd, Expr::Subscript(a)) => *a.value,
        (Rewrite::IfExpFwdBody, Expr::IfExp(e)) => *e.body,
        (Rewrite::IfExpFwdElse, Expr::IfExp(e)) => *e.orelse,
        (Rewrite::UnaryFwd, Expr::UnaryOp(u)) => *u.operand,
        (Rewrite::BoolopFwdFirst, Expr::BoolOp(mut b)) if !b.values.is_empty() => {
            b.values.swap_remove(0)
        }
        (Rewrite::BoolopFwdLast, Expr::BoolOp(mut b)) if !b.values.is_empty() => {
            let last = b.values.len() - 1;
            b.values.swap_remove(last)
        }
        (Rewrite::ExprToConst, _) => make::int(0),
        (Rewrite::StrConcatMerge, expr) => merged_literal(expr),
        (_, expr) => expr,
    }
}

fn is_bytes(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Constant(ast::ExprConstant {
            value: ast::Constant::Bytes(_),
            ..
        })
    )
}

fn is_str(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Constant(ast::ExprConstant {
            value: ast::Constant::Str(_),
            ..
        }) | Expr::JoinedStr(_)
    )
}

/// Whether `expr` is a `+` of two string literals (f-strings included) or of two
/// bytes literals.
fn is_literal_concat(expr: &Expr) -> bool {
    matches!(expr, Expr::BinOp(b) if b.op == ast::Operator::Add
        && ((is_str(&b.left) && is_str(&b.right)) || (is_bytes(&b.left) && is_bytes(&b.right))))
}

/// The one literal that `expr`, a [`is_literal_concat`] `+`, evaluates to:
/// `'a ' + f'{b}'` is `f'a {b}'`, `b'x' + b'y'` is `b'xy'`. The same value in one
/// token instead of three. Any other expression comes back unchanged.
fn merged_literal(expr: Expr) -> Expr {
    if !is_literal_concat(&expr) {
        return expr;
    }
    let Expr::BinOp(b) = expr else {
        return expr;
    };
    let range = b.range;
    // The pieces of a literal: itself, or an f-string's values.
    let pieces = |e: Expr| match e {
        Expr::JoinedStr(j) => j.values,
        other => vec![other],
    };
    let mut values: Vec<Expr> = Vec::new();
    for piece in pieces(*b.left).into_iter().chain(pieces(*b.right)) {
        // Adjacent text (or bytes) joins the piece before it; empty text goes.
        let Expr::Constant(c) = piece else {
            values.push(piece);
            continue;
        };
        match (values.last_mut(), c.value) {
            (_, ast::Constant::Str(t)) if t.is_empty() => {}
            (Some(Expr::Constant(last)), value) => match (&mut last.value, value) {
                (ast::Constant::Str(s), ast::Constant::Str(t)) => s.push_str(&t),
                (ast::Constant::Bytes(s), ast::Constant::Bytes(t)) => s.extend(t),
                (_, value) => values.push(Expr::Constant(ast::ExprConstant { value, ..c })),
            },
            (_, value) => values.push(Expr::Constant(ast::ExprConstant { value, ..c })),
        }
    }
    if values.iter().all(|v| matches!(v, Expr::Constant(_))) {
        // No field left: the pieces were joined into one literal (or none: `'' + ''`).
        let mut one = values.pop().unwrap_or_else(|| make::str(""));
        if let Expr::Constant(c) = &mut one {
            c.range = range;
        }
        return one;
    }
    Expr::JoinedStr(ast::ExprJoinedStr { range, values })
}
