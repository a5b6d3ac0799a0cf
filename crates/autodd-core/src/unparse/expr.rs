//! Expressions, with the fewest parentheses a precedence table allows.
//!
//! Every expression has a precedence ([`precedence`]); every place an expression
//! goes asks for a minimum one, and the expression is parenthesized when its own is
//! lower. Parentheses never change the AST (except around a lone `with` tuple, handled
//! in `stmt.rs`), so an extra pair is only ever a matter of looks.

use super::Printer;
use crate::parse::ast::{self, BoolOp, CmpOp, Expr, Operator, UnaryOp};

/// Precedence levels, lowest first (the same order as Python's grammar).
pub(super) mod prec {
    /// `x := y`: bare only in an `if`/`while` condition.
    pub const NAMED: u8 = 1;
    /// `yield`: bare only as a statement or the right side of an assignment.
    pub const YIELD: u8 = 2;
    /// A tuple without parentheses: `a, b`.
    pub const TUPLE: u8 = 3;
    /// `lambda` and `a if b else c`; what a plain expression slot accepts.
    pub const TEST: u8 = 4;
    pub const OR: u8 = 5;
    pub const AND: u8 = 6;
    pub const NOT: u8 = 7;
    pub const CMP: u8 = 8;
    pub const BOR: u8 = 9;
    pub const BXOR: u8 = 10;
    pub const BAND: u8 = 11;
    pub const SHIFT: u8 = 12;
    pub const ARITH: u8 = 13;
    pub const TERM: u8 = 14;
    /// Unary `+`, `-`, `~`.
    pub const FACTOR: u8 = 15;
    pub const POWER: u8 = 16;
    pub const AWAIT: u8 = 17;
    /// Names, literals, displays, calls, attributes, subscripts.
    pub const ATOM: u8 = 18;
}

/// The precedence an expression has when printed bare.
pub(super) fn precedence(e: &Expr) -> u8 {
    match e {
        Expr::NamedExpr(_) => prec::NAMED,
        // `()` and `(x,)` carry their own parentheses (a bare `x,` is easy to miss).
        Expr::Tuple(t) if t.elts.len() > 1 => prec::TUPLE,
        Expr::Yield(_) | Expr::YieldFrom(_) => prec::YIELD,
        Expr::Lambda(_) | Expr::IfExp(_) => prec::TEST,
        Expr::BoolOp(b) => match b.op {
            BoolOp::And => prec::AND,
            BoolOp::Or => prec::OR,
        },
        Expr::UnaryOp(u) => match u.op {
            UnaryOp::Not => prec::NOT,
            _ => prec::FACTOR,
        },
        Expr::Compare(_) => prec::CMP,
        Expr::BinOp(b) => operator_prec(b.op),
        Expr::Await(_) => prec::AWAIT,
        Expr::Constant(c) => super::literal::constant_prec(&c.value),
        _ => prec::ATOM,
    }
}

fn operator_prec(op: Operator) -> u8 {
    match op {
        Operator::BitOr => prec::BOR,
        Operator::BitXor => prec::BXOR,
        Operator::BitAnd => prec::BAND,
        Operator::LShift | Operator::RShift => prec::SHIFT,
        Operator::Add | Operator::Sub => prec::ARITH,
        Operator::Mult | Operator::MatMult | Operator::Div | Operator::Mod | Operator::FloorDiv => {
            prec::TERM
        }
        Operator::Pow => prec::POWER,
    }
}

/// The spelling of a binary operator (also used by augmented assignment).
pub(super) fn operator_str(op: Operator) -> &'static str {
    match op {
        Operator::Add => "+",
        Operator::Sub => "-",
        Operator::Mult => "*",
        Operator::MatMult => "@",
        Operator::Div => "/",
        Operator::Mod => "%",
        Operator::Pow => "**",
        Operator::LShift => "<<",
        Operator::RShift => ">>",
        Operator::BitOr => "|",
        Operator::BitXor => "^",
        Operator::BitAnd => "&",
        Operator::FloorDiv => "//",
    }
}

fn cmpop_str(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => " == ",
        CmpOp::NotEq => " != ",
        CmpOp::Lt => " < ",
        CmpOp::LtE => " <= ",
        CmpOp::Gt => " > ",
        CmpOp::GtE => " >= ",
        CmpOp::Is => " is ",
        CmpOp::IsNot => " is not ",
        CmpOp::In => " in ",
        CmpOp::NotIn => " not in ",
    }
}

impl Printer<'_> {
    /// Prints `e` in a place that accepts precedence `level` or higher,
    /// parenthesizing it if its own precedence is lower.
    pub(super) fn expr(&mut self, e: &Expr, level: u8) {
        // Operators with fewer than two operands only come from the engine; print
        // them as what they reduce to so the output stays valid.
        match e {
            Expr::BoolOp(b) if b.values.len() < 2 => {
                match b.values.first() {
                    Some(v) => self.expr(v, level),
                    None => self.push(if b.op == BoolOp::And { "True" } else { "False" }),
                }
                return;
            }
            Expr::Compare(c) if c.ops.is_empty() || c.comparators.is_empty() => {
                self.expr(&c.left, level);
                return;
            }
            _ => {}
        }
        if precedence(e) < level {
            self.push("(");
            self.expr_bare(e);
            self.push(")");
        } else {
            self.expr_bare(e);
        }
    }

    /// Prints `e` without parentheses around it.
    fn expr_bare(&mut self, e: &Expr) {
        match e {
            Expr::BoolOp(b) => {
                let (sep, inner) = match b.op {
                    BoolOp::And => (" and ", prec::AND + 1),
                    BoolOp::Or => (" or ", prec::OR + 1),
                };
                for (i, v) in b.values.iter().enumerate() {
                    if i > 0 {
                        self.push(sep);
                    }
                    self.expr(v, inner);
                }
            }
            Expr::NamedExpr(n) => {
                self.expr(&n.target, prec::ATOM);
                self.push(" := ");
                self.expr(&n.value, prec::TEST);
            }
            Expr::BinOp(b) => {
                let own = operator_prec(b.op);
                // `**` groups to the right and binds tighter than a unary operator on
                // its left but not on its right: `-x**2` is `-(x**2)`, `2**-1` is valid.
                let (left, right) = if b.op == Operator::Pow {
                    (prec::AWAIT, prec::FACTOR)
                } else {
                    (own, own + 1)
                };
                self.expr(&b.left, left);
                self.push(" ");
                self.push(operator_str(b.op));
                self.push(" ");
                self.expr(&b.right, right);
            }
            Expr::UnaryOp(u) => {
                let (op, level) = match u.op {
                    UnaryOp::Not => ("not ", prec::NOT),
                    UnaryOp::Invert => ("~", prec::FACTOR),
                    UnaryOp::UAdd => ("+", prec::FACTOR),
                    UnaryOp::USub => ("-", prec::FACTOR),
                };
                self.push(op);
                self.expr(&u.operand, level);
            }
            Expr::Lambda(l) => {
                self.push("lambda");
                let a = &l.args;
                if !(a.posonlyargs.is_empty()
                    && a.args.is_empty()
                    && a.vararg.is_none()
                    && a.kwonlyargs.is_empty()
                    && a.kwarg.is_none())
                {
                    self.push(" ");
                    self.arguments(a, false);
                }
                self.push(": ");
                self.expr(&l.body, prec::TEST);
            }
            Expr::IfExp(i) => {
                self.expr(&i.body, prec::OR);
                self.push(" if ");
                self.expr(&i.test, prec::OR);
                self.push(" else ");
                self.expr(&i.orelse, prec::TEST);
            }
            Expr::Dict(d) => {
                self.push("{");
                for (i, (k, v)) in d.keys.iter().zip(&d.values).enumerate() {
                    if i > 0 {
                        self.push(", ");
                    }
                    match k {
                        Some(k) => {
                            self.expr(k, prec::TEST);
                            self.push(": ");
                            self.expr(v, prec::TEST);
                        }
                        None => {
                            self.push("**");
                            self.expr(v, prec::BOR);
                        }
                    }
                }
                self.push("}");
            }
            Expr::Set(s) => {
                if s.elts.is_empty() {
                    // `{}` is a dict; this is the shortest empty set that is a display.
                    self.push("{*()}");
                } else {
                    self.push("{");
                    self.elements(&s.elts);
                    self.push("}");
                }
            }
            Expr::ListComp(c) => {
                self.push("[");
                self.expr(&c.elt, prec::TEST);
                self.generators(&c.generators);
                self.push("]");
            }
            Expr::SetComp(c) => {
                self.push("{");
                self.expr(&c.elt, prec::TEST);
                self.generators(&c.generators);
                self.push("}");
            }
            Expr::DictComp(c) => {
                self.push("{");
                self.expr(&c.key, prec::TEST);
                self.push(": ");
                self.expr(&c.value, prec::TEST);
                self.generators(&c.generators);
                self.push("}");
            }
            Expr::GeneratorExp(g) => {
                self.push("(");
                self.expr(&g.elt, prec::TEST);
                self.generators(&g.generators);
                self.push(")");
            }
            Expr::Await(a) => {
                self.push("await ");
                self.expr(&a.value, prec::ATOM);
            }
            Expr::Yield(y) => {
                self.push("yield");
                if let Some(v) = &y.value {
                    self.push(" ");
                    self.expr(v, prec::TUPLE);
                }
            }
            Expr::YieldFrom(y) => {
                self.push("yield from ");
                self.expr(&y.value, prec::TEST);
            }
            Expr::Compare(c) => {
                self.expr(&c.left, prec::CMP + 1);
                for (op, right) in c.ops.iter().zip(&c.comparators) {
                    self.push(cmpop_str(*op));
                    self.expr(right, prec::CMP + 1);
                }
            }
            Expr::Call(c) => {
                self.expr(&c.func, prec::ATOM);
                self.push("(");
                match (c.args.as_slice(), c.keywords.is_empty()) {
                    // A lone generator argument needs no parentheses of its own.
                    ([Expr::GeneratorExp(g)], true) => {
                        self.expr(&g.elt, prec::TEST);
                        self.generators(&g.generators);
                    }
                    _ => self.call_args(&c.args, &c.keywords),
                }
                self.push(")");
            }
            Expr::FormattedValue(_) => self.joined_str(std::slice::from_ref(e)),
            Expr::JoinedStr(j) => self.joined_str(&j.values),
            Expr::Constant(c) => {
                // Inside a replacement field CPython 3.11 restricts quotes and
                // backslashes: the literal is written the printer's way there.
                let written = self.written.filter(|_| !self.in_field());
                if let Some(text) = written.and_then(|w| w.spelling(c)) {
                    self.push(text);
                } else if let Some(text) = written.and_then(|w| w.respelling(c)) {
                    self.push(&text);
                } else {
                    self.constant(&c.value, c.kind.as_deref());
                }
            }
            Expr::Attribute(a) => {
                self.expr(&a.value, prec::ATOM);
                // `1.real` would lex as the float `1.` followed by a name.
                if let Expr::Constant(ast::ExprConstant {
                    value: ast::Constant::Int(_),
                    ..
                }) = &*a.value
                {
                    self.push(" ");
                }
                self.push(".");
                self.push(&a.attr);
            }
            Expr::Subscript(s) => {
                self.expr(&s.value, prec::ATOM);
                self.push("[");
                match &*s.slice {
                    // `a[1, 2]` needs no parentheses; `a[x,]` keeps its comma.
                    Expr::Tuple(t) if !t.elts.is_empty() => {
                        self.comma_list(&t.elts, Self::slice_part);
                        // `a[*b]` is already a tuple (PEP 646).
                        if t.elts.len() == 1 && !matches!(t.elts[0], Expr::Starred(_)) {
                            self.push(",");
                        }
                    }
                    other => self.slice_part(other),
                }
                self.push("]");
            }
            Expr::Starred(s) => {
                self.push("*");
                self.expr(&s.value, prec::BOR);
            }
            Expr::Name(n) => self.push(&n.id),
            Expr::List(l) => {
                self.push("[");
                self.elements(&l.elts);
                self.push("]");
            }
            Expr::Tuple(t) => match t.elts.as_slice() {
                [] => self.push("()"),
                [single] => {
                    self.push("(");
                    self.expr(single, prec::TEST);
                    self.push(",)");
                }
                // The caller parenthesizes a longer tuple when the place needs it.
                elts => self.elements(elts),
            },
            Expr::Slice(s) => self.slice(s),
        }
    }

    /// Comma-separated elements of a list, set or tuple display.
    fn elements(&mut self, elts: &[Expr]) {
        self.comma_list(elts, |p, e| p.expr(e, prec::TEST));
    }

    fn slice_part(&mut self, e: &Expr) {
        match e {
            Expr::Slice(s) => self.slice(s),
            other => self.expr(other, prec::TEST),
        }
    }

    fn slice(&mut self, s: &ast::ExprSlice) {
        // Bounds are parenthesized from `or` down so that a lambda's own colon is
        // never next to the slice colon.
        if let Some(l) = &s.lower {
            self.expr(l, prec::OR);
        }
        self.push(":");
        if let Some(u) = &s.upper {
            self.expr(u, prec::OR);
        }
        if let Some(st) = &s.step {
            self.push(":");
            self.expr(st, prec::OR);
        }
    }

    /// The ` for x in y if z` clauses of a comprehension.
    fn generators(&mut self, gens: &[ast::Comprehension]) {
        for g in gens {
            self.push(if g.is_async { " async for " } else { " for " });
            self.expr(&g.target, prec::TUPLE);
            self.push(" in ");
            self.expr(&g.iter, prec::OR);
            for cond in &g.ifs {
                self.push(" if ");
                self.expr(cond, prec::OR);
            }
        }
    }

    /// Arguments of a call or class bases: positional ones first (starred included),
    /// then keywords, which gives the same AST whatever the source order was.
    pub(super) fn call_args(&mut self, args: &[Expr], keywords: &[ast::Keyword]) {
        self.comma_list(args, |p, a| p.expr(a, prec::TEST));
        if !args.is_empty() && !keywords.is_empty() {
            self.push(", ");
        }
        self.comma_list(keywords, |p, k| match &k.arg {
            Some(name) => {
                p.push(name);
                p.push("=");
                p.expr(&k.value, prec::TEST);
            }
            None => {
                p.push("**");
                p.expr(&k.value, prec::BOR);
            }
        });
    }

    /// A parameter list, of a `def` (with annotations) or a `lambda` (without).
    pub(super) fn arguments(&mut self, a: &ast::Arguments, annotate: bool) {
        let mut first = true;
        let mut sep = |p: &mut Self| {
            if !first {
                p.push(", ");
            }
            first = false;
        };
        for arg in &a.posonlyargs {
            sep(self);
            self.arg_with_default(arg, annotate);
        }
        if !a.posonlyargs.is_empty() {
            sep(self);
            self.push("/");
        }
        for arg in &a.args {
            sep(self);
            self.arg_with_default(arg, annotate);
        }
        if let Some(v) = &a.vararg {
            sep(self);
            self.push("*");
            self.arg(v, annotate);
        } else if !a.kwonlyargs.is_empty() {
            sep(self);
            self.push("*");
        }
        for arg in &a.kwonlyargs {
            sep(self);
            self.arg_with_default(arg, annotate);
        }
        if let Some(k) = &a.kwarg {
            sep(self);
            self.push("**");
            self.arg(k, annotate);
        }
    }

    fn arg(&mut self, a: &ast::Arg, annotate: bool) {
        self.push(&a.arg);
        if let (true, Some(ann)) = (annotate, &a.annotation) {
            self.push(": ");
            self.expr(ann, prec::TEST);
        }
    }

    fn arg_with_default(&mut self, a: &ast::ArgWithDefault, annotate: bool) {
        self.arg(&a.def, annotate);
        if let Some(d) = &a.default {
            // PEP 8 spacing, which also keeps `x: int=1` from looking odd.
            if annotate && a.def.annotation.is_some() {
                self.push(" = ");
            } else {
                self.push("=");
            }
            self.expr(d, prec::TEST);
        }
    }
}
