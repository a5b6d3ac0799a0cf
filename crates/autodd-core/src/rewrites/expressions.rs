//! Expression rewrites: `assign-rhs-1`, `call-fwd-arg1`, `binop-fwd-arg-left/right`,
//! `int-reduce-2`, and autodd's `attribute-fwd` (`a.b` → `a`), `subscript-fwd`
//! (`a[i]` → `a`), `ifexp-fwd-body/else` (`a if c else b` → `a` / `b`) and `unary-fwd`
//! (`not x`, `-x`, `~x` → `x`) and `expr-to-const` (any value → `0`).

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
        (_, expr) => expr,
    }
}
