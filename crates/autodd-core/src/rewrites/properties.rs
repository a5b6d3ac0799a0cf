//! `property-inline`: a `@property` whose body is one `return value` is removed, and
//! every read `x.name` becomes that value with `self` read as `x`
//! (`def rows(self): return len(self.data)` goes, and `self.rows, self.cols`
//! becomes `len(self.data), self.cols`). A reduced program's classes keep such
//! one-line accessors long after the logic around them went: `def-to-expr` inlines
//! functions, this inlines what a method reads as an attribute.
//!
//! Attributes are matched by name, as calls are (see [`super::calls`]): offered only
//! where the module defines no other function of that name and never assigns an
//! attribute of that name; a wrong match only makes a candidate that fails.

use crate::freeze;
use crate::hash::FastMap;
use crate::parse::ast::{self, Expr, Stmt};
use crate::rewrites::calls::{substitutable, substitute};
use crate::walk::{self, VisitorMut};

/// The getter `stmt` defines, when `property-inline` may inline it: its name, its
/// `self` parameter's name and the value it returns.
pub fn getter(stmt: &Stmt) -> Option<(&str, &str, &Expr)> {
    let Stmt::FunctionDef(def) = stmt else {
        return None;
    };
    let a = &def.args;
    let [self_param] = &a.args[..] else {
        return None;
    };
    let plain = a.posonlyargs.is_empty()
        && a.kwonlyargs.is_empty()
        && a.vararg.is_none()
        && a.kwarg.is_none()
        && self_param.default.is_none()
        && def.type_params.is_empty();
    let property = matches!(&def.decorator_list[..],
        [Expr::Name(n)] if n.id.as_str() == "property");
    match &def.body[..] {
        [Stmt::Return(ast::StmtReturn {
            value: Some(value), ..
        })] if plain && property && substitutable(value, a) => {
            Some((def.name.as_str(), self_param.def.arg.as_str(), value))
        }
        _ => None,
    }
}

/// How the module uses each attribute name, and which names its functions have.
#[derive(Debug, Default)]
pub struct AttrIndex {
    reads: FastMap<String, u32>,
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

    /// Whether a getter named `name` may go with its reads: read somewhere, never
    /// assigned, the only function of that name, and not read by frozen code.
    pub fn inlinable(&self, name: &str) -> bool {
        self.reads.contains_key(name)
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
        if let Expr::Attribute(a) = &*expr {
            let name = a.attr.to_string();
            if a.ctx != ast::ExprContext::Load || self.frozen > 0 {
                self.pinned.insert(name, ());
            } else {
                *self.reads.entry(name).or_default() += 1;
            }
        }
        walk::walk_expr(self, expr);
        self.frozen -= u32::from(frozen);
    }
}

/// Replaces every read `x.name` of a removed getter of `getters` (name and `def`) by
/// its value, `self` read as `x`, where `x` is a name or a chain of attributes of a
/// name (anything else would be evaluated once per read of `self`; it stays, and the
/// candidate fails). A value that reads a getter being inlined, in turn, gets it too.
pub fn inline_getters(body: &mut Vec<Stmt>, getters: &[(String, Stmt)]) {
    let mut inliner = GetterInliner {
        getters,
        active: Vec::new(),
    };
    inliner.body(body);
}

struct GetterInliner<'a> {
    getters: &'a [(String, Stmt)],
    active: Vec<usize>,
}

impl VisitorMut for GetterInliner<'_> {
    fn expr(&mut self, expr: &mut Expr) {
        walk::walk_expr(self, expr);
        let Expr::Attribute(a) = &*expr else { return };
        if a.ctx != ast::ExprContext::Load || !plain_path(&a.value) {
            return;
        }
        let found = self
            .getters
            .iter()
            .position(|(n, _)| n == a.attr.as_str())
            .filter(|i| !self.active.contains(i));
        let Some((i, (self_name, value))) = found.and_then(|i| {
            getter(&self.getters[i].1).map(|(_, s, v)| (i, (s.to_string(), v.clone())))
        }) else {
            return;
        };
        let mut value = value;
        substitute(&mut value, &[(self_name, (*a.value).clone())]);
        *expr = value;
        self.active.push(i);
        self.expr(expr);
        self.active.pop();
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
