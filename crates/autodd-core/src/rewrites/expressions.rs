//! Expression rewrites: `assign-rhs-1`, `call-fwd-arg1`, `binop-fwd-arg-left/right`,
//! `int-reduce-2`, and autodd's `attribute-fwd` (`a.b` → `a`), `subscript-fwd`
//! (`a[i]` → `a`), `ifexp-fwd-body/else` (`a if c else b` → `a` / `b`) and `unary-fwd`
//! (`not x`, `-x`, `~x` → `x`), `expr-to-const` (any value → `0`) and `str-concat-merge`
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
        Rewrite::IntReduce2 => matches!(
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
        Rewrite::StrConcatMerge => merged_literal(expr).is_some(),
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
        (Rewrite::AttributeFwd, Expr::Attribute(a)) => *a.value,
        (Rewrite::SubscriptFwd, Expr::Subscript(a)) => *a.value,
        (Rewrite::IfExpFwdBody, Expr::IfExp(e)) => *e.body,
        (Rewrite::IfExpFwdElse, Expr::IfExp(e)) => *e.orelse,
        (Rewrite::UnaryFwd, Expr::UnaryOp(u)) => *u.operand,
        (Rewrite::ExprToConst, _) => make::int(0),
        (Rewrite::StrConcatMerge, expr) => merged_literal(&expr).unwrap_or(expr),
        (_, expr) => expr,
    }
}

/// The one literal that `expr`, a `+` of two string literals (f-strings included) or
/// of two bytes literals, evaluates to: `'a ' + f'{b}'` is `f'a {b}'`, `b'x' + b'y'`
/// is `b'xy'`. The same value in one token instead of three.
fn merged_literal(expr: &Expr) -> Option<Expr> {
    let Expr::BinOp(b) = expr else {
        return None;
    };
    if b.op != ast::Operator::Add {
        return None;
    }
    let bytes = |e: &Expr| match e {
        Expr::Constant(ast::ExprConstant {
            value: ast::Constant::Bytes(v),
            ..
        }) => Some(v.clone()),
        _ => None,
    };
    if let (Some(mut left), Some(right)) = (bytes(&b.left), bytes(&b.right)) {
        left.extend(right);
        return Some(Expr::Constant(ast::ExprConstant {
            range: b.range,
            value: ast::Constant::Bytes(left),
            kind: None,
        }));
    }
    // The pieces of a string literal: its text, or an f-string's values.
    let pieces = |e: &Expr| -> Option<Vec<Expr>> {
        match e {
            Expr::Constant(ast::ExprConstant {
                value: ast::Constant::Str(_),
                ..
            }) => Some(vec![e.clone()]),
            Expr::JoinedStr(j) => Some(j.values.clone()),
            _ => None,
        }
    };
    let (left, right) = (pieces(&b.left)?, pieces(&b.right)?);
    let mut values: Vec<Expr> = Vec::with_capacity(left.len() + right.len());
    for piece in left.into_iter().chain(right) {
        let text = |e: &Expr| match e {
            Expr::Constant(ast::ExprConstant {
                value: ast::Constant::Str(s),
                ..
            }) => Some(s.clone()),
            _ => None,
        };
        match (values.last_mut(), text(&piece)) {
            (_, Some(t)) if t.is_empty() => {}
            (Some(Expr::Constant(last)), Some(t)) => {
                if let ast::Constant::Str(s) = &mut last.value {
                    s.push_str(&t);
                }
            }
            _ => values.push(piece),
        }
    }
    if !values.iter().any(|v| matches!(v, Expr::FormattedValue(_))) {
        // No field: a plain string.
        let text = values
            .iter()
            .filter_map(|v| match v {
                Expr::Constant(ast::ExprConstant {
                    value: ast::Constant::Str(s),
                    ..
                }) => Some(s.as_str()),
                _ => None,
            })
            .collect::<String>();
        let kind = match &*b.left {
            Expr::Constant(c) => c.kind.clone(),
            _ => None,
        };
        return Some(Expr::Constant(ast::ExprConstant {
            range: b.range,
            value: ast::Constant::Str(text),
            kind,
        }));
    }
    Some(Expr::JoinedStr(ast::ExprJoinedStr {
        range: b.range,
        values,
    }))
}
