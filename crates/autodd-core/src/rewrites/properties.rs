//! `property-inline`: a `@property` whose body is one `return value` is removed, and
//! every read `x.name` becomes that value with `self` read as `x`
//! (`def rows(self): return len(self.data)` goes, and `self.rows, self.cols`
//! becomes `len(self.data), self.cols`). `method-inline` does the same for a plain
//! method and its calls `x.name(args)`, each parameter read as what the call passes
//! (`def parse_expr(self): return self.parse_sum()` goes, and `self.parse_expr()`
//! becomes `self.parse_sum()`). A reduced program's classes keep such one-line
//! accessors and forwarders long after the logic around them went: `def-to-expr`
//! inlines functions, these inline methods.
//!
//! Attributes are matched by name, as calls are (see [`super::calls`]): offered only
//! where the module defines no other function of that name and never assigns an
//! attribute of that name; a wrong match only makes a candidate that fails.

use crate::freeze;
use crate::hash::FastMap;
use crate::parse::ast::{self, Expr, Stmt};
use crate::rewrites::calls::{bind_params, binds, spreads, substitutable, substitute};
use crate::walk::{self, VisitorMut};

/// A one-line method: its name, its parameters (`self` first) and the value it
/// returns, and whether it is a `@property` (read as `x.name`) or a plain method
/// (called as `x.name(…)`).
pub struct Accessor<'a> {
    pub name: &'a str,
    pub args: &'a ast::Arguments,
    pub value: &'a Expr,
    pub property: bool,
}

/// The accessor `stmt` defines, when `property-inline` or `method-inline` may inline
/// it: a `def` whose body is one `return value`, with `self` and (unless a property)
/// more plain parameters, no decorator but `@property`.
pub fn accessor(stmt: &Stmt) -> Option<Accessor<'_>> {
    let Stmt::FunctionDef(def) = stmt else {
        return None;
    };
    let a = &def.args;
    let property = match &def.decorator_list[..] {
        [] => false,
        [Expr::Name(n)] if n.id.as_str() == "property" => true,
        _ => return None,
    };
    let plain = a.posonlyargs.is_empty()
        && a.kwonlyargs.is_empty()
        && a.vararg.is_none()
        && a.kwarg.is_none()
        && a.args.first().is_some_and(|s| s.default.is_none())
        && (!property || a.args.len() == 1)
        && def.type_params.is_empty();
    match &def.body[..] {
        [Stmt::Return(ast::StmtReturn {
            value: Some(value), ..
        })] if plain && substitutable(value, a) => Some(Accessor {
            name: def.name.as_str(),
            args: a,
            value,
            property,
        }),
        _ => None,
    }
}

/// How the module uses each attribute name, and which names its functions have.
#[derive(Debug, Default)]
pub struct AttrIndex {
    reads: FastMap<String, u32>,
    /// Reads that are the callee of a call, `x.name(…)`.
    calls: FastMap<String, u32>,
    /// Assigned or deleted as an attribute, or read in frozen code: never inlined.
    pinned: FastMap<String, ()>,
    defs: FastMap<String, u32>,
    frozen: u32,
}

impl AttrIndex {
    pub fn of(body: &mut Vec<Stmt>) -> AttrIndex {
        let mut index = AttrIndex::default();
        index.body(body);
        index
    }

    /// Whether `accessor` may go with its reads: read somewhere (a plain method only
    /// by calls), never assigned, the only function of its name, and not read by
    /// frozen code.
    pub fn inlinable(&self, accessor: &Accessor) -> bool {
        let name = accessor.name;
        let reads = self.reads.get(name).copied().unwrap_or(0);
        reads > 0
            && (accessor.property || self.calls.get(name).copied().unwrap_or(0) == reads)
            && !self.pinned.contains_key(name)
            && self.defs.get(name) == Some(&1)
    }
}

impl VisitorMut for AttrIndex {
    fn stmt(&mut self, stmt: &mut Stmt) {
        let frozen = freeze::is_freeze_with(stmt);
        self.frozen += u32::from(frozen);
        if let Stmt::FunctionDef(ast::StmtFunctionDef { name, .. })
        | Stmt::AsyncFunctionDef(ast::StmtAsyncFunctionDef { name, .. }) = &*stmt
        {
            *self.defs.entry(name.to_string()).or_default() += 1;
        }
        walk::walk_stmt(self, stmt);
        self.frozen -= u32::from(frozen);
    }

    fn expr(&mut self, expr: &mut Expr) {
        let frozen = freeze::is_freeze_call(expr);
        self.frozen += u32::from(frozen);
        if let Expr::Call(call) = &*expr {
            if let Expr::Attribute(a) = &*call.func {
                *self.calls.entry(a.attr.to_string()).or_default() += 1;
                // A call the inliner cannot bind stays, and would fail.
                if spreads(call) {
                    self.pinned.insert(a.attr.to_string(), ());
                }
            }
        }
        if let Expr::Attribute(a) = &*expr {
            let name = a.attr.to_string();
            // So would a read of `P().name`, which would build a `P` per read of `self`.
            if a.ctx != ast::ExprContext::Load || self.frozen > 0 || !plain_path(&a.value) {
                self.pinned.insert(name, ());
            } else {
                *self.reads.entry(name).or_default() += 1;
            }
        }
        walk::walk_expr(self, expr);
        self.frozen -= u32::from(frozen);
    }
}

/// Replaces every read `x.name` of a removed property of `accessors` (name and `def`)
/// by its value, and every call `x.name(…)` of a removed method by its value, `self`
/// read as `x` and each parameter as what the call passes (or its default). Only
/// where `x` is a name or a chain of attributes of a name (anything else would be
/// evaluated once per read of `self`) and the call passes every parameter plainly;
/// elsewhere the read stays, and the candidate fails. A value that reads an accessor
/// being inlined, in turn, gets it too.
pub fn inline_accessors(body: &mut Vec<Stmt>, accessors: &[(String, Stmt)]) {
    let mut inliner = AccessorInliner {
        accessors,
        active: Vec::new(),
    };
    inliner.body(body);
}

struct AccessorInliner<'a> {
    accessors: &'a [(String, Stmt)],
    active: Vec<usize>,
}

impl AccessorInliner<'_> {
    /// The value that replaces `expr`, and which accessor it came from.
    fn inlined(&self, expr: &Expr) -> Option<(usize, Expr)> {
        let (attr, call) = match expr {
            Expr::Attribute(a) => (a, None),
            Expr::Call(c) => match &*c.func {
                Expr::Attribute(a) => (a, Some(c)),
                _ => return None,
            },
            _ => return None,
        };
        if attr.ctx != ast::ExprContext::Load || !plain_path(&attr.value) {
            return None;
        }
        let i = self
            .accessors
            .iter()
            .position(|(n, _)| n == attr.attr.as_str())
            .filter(|i| !self.active.contains(i))?;
        let accessor = accessor(&self.accessors[i].1)?;
        let bound = match call {
            None if accessor.property => {
                let this = accessor.args.args[0].def.arg.to_string();
                vec![(this, (*attr.value).clone())]
            }
            Some(call) if !accessor.property => {
                if spreads(call) {
                    return None;
                }
                let mut with_self = call.clone();
                with_self.args.insert(0, (*attr.value).clone());
                let keywords = with_self.keywords.iter().filter_map(|k| k.arg.as_ref());
                if !binds(
                    accessor.args,
                    with_self.args.len(),
                    keywords.map(|a| a.as_str()),
                ) {
                    return None;
                }
                let bound = bind_params(accessor.args, &with_self);
                if bound.len() != accessor.args.args.len() {
                    return None;
                }
                bound
            }
            _ => return None,
        };
        let mut value = accessor.value.clone();
        substitute(&mut value, &bound);
        Some((i, value))
    }
}

impl VisitorMut for AccessorInliner<'_> {
    fn expr(&mut self, expr: &mut Expr) {
        walk::walk_expr(self, expr);
        if let Some((i, value)) = self.inlined(expr) {
            *expr = value;
            self.active.push(i);
            self.expr(expr);
            self.active.pop();
        }
    }
}

/// `x`, `x.y`, `x.y.z`: read again, the same object.
fn plain_path(expr: &Expr) -> bool {
    match expr {
        Expr::Name(_) => true,
        Expr::Attribute(a) => plain_path(&a.value),
        _ => false,
    }
}
