//! Finding where rewrites apply: numbers every statement, expression, parameter and
//! keyword in pre-order, and lists the (node, rewrite) sites of a set of rewrites.
//! Frozen code has no sites, and neither has a node that encloses frozen code
//! (its children outside the frozen part keep theirs).

use rustpython_ast::text_size::TextRange;
use rustpython_ast::Ranged;

use crate::freeze;
use crate::hash::{FastMap, FastSet};
use crate::parse::ast::{self, Expr, Stmt};

use crate::rewrites::calls::{self, def_context, CallIndex, DefContext, LocalNames, ParamTarget};
use crate::rewrites::fields::{self, ClassIndex};
use crate::rewrites::properties::{self, AttrIndex};
use crate::rewrites::uses::{self, UseIndex};
use crate::rewrites::{expressions, functions, lists, statements, strings, Rewrite, RewriteSet};
use crate::walk::{self, ListKind, VisitorMut};

/// A place where one rewrite applies: the node's pre-order id and the rewrite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site {
    pub node: u32,
    pub rewrite: Rewrite,
}

/// The sites of a module plus what applying them needs: for every node id, the id
/// just past its subtree, and its source range (for the playground).
#[derive(Debug, Clone, Default)]
pub struct SiteMap {
    pub sites: Vec<Site>,
    pub ends: Vec<u32>,
    pub ranges: Vec<TextRange>,
    /// For every node id, the id of the innermost statement holding it (itself for a
    /// statement): what tells apart two `x` parameters of different functions.
    pub owners: Vec<u32>,
    /// For each parameter with a `param-with-args-remover` site, what goes at the calls.
    pub param_targets: FastMap<u32, ParamTarget>,
    /// The `assign-inline` sites whose name is used once in its function only: the
    /// read they replace is in that function.
    pub local_inlines: FastSet<u32>,
    /// For each statement with a `hoist-stmt` site, the compound statement it replaces.
    pub hoist_targets: FastMap<u32, u32>,
    /// For each item with a `general-expr-remover` site in a long list (at least
    /// [`LONG_LIST`] items), the list's length (see [`SiteMap::prior`]).
    pub long_lists: FastMap<u32, u32>,
    /// How many `int-reduce-2` sites there are.
    pub int_sites: usize,
    /// For each statement with a `remove-with-uses` site, what goes with it: the
    /// statements, display items and dict entries that read its name (ids in order).
    pub uses: FastMap<u32, Vec<u32>>,
}

/// A list of at least this many items is long: its items start grouped (see
/// [`SiteMap::prior`]).
pub const LONG_LIST: usize = 16;

impl SiteMap {
    /// The probability a fresh search starts `site` at: its rewrite's prior, but
    /// `1 − 1/n` for an item of a long list of `n` (data tables, long literal lists),
    /// so the search first tries dropping the whole list's items at once and then ever
    /// smaller groups, as delta debugging halves, instead of one item at a time.
    ///
    /// The same goes for `int-reduce-2` when a program has at least [`LONG_LIST`]
    /// integers to halve (`n` of them): one at a time, a data table's thousands of
    /// numbers took a candidate, and an accepted one at that, per halving of a handful.
    pub fn prior(&self, site: &Site) -> f64 {
        match self.long_lists.get(&site.node) {
            Some(&n)
                if matches!(
                    site.rewrite,
                    Rewrite::GeneralExprRemover | Rewrite::LongListRemover
                ) =>
            {
                1.0 - 1.0 / f64::from(n)
            }
            _ if site.rewrite == Rewrite::IntReduce2 && self.int_sites >= LONG_LIST => {
                1.0 - 1.0 / self.int_sites as f64
            }
            _ => site.rewrite.prior(),
        }
    }
}

fn no_params(args: &ast::Arguments) -> bool {
    args.posonlyargs.is_empty() && args.args.is_empty()
}

/// Statement rewrites, in priority order when several are chosen on one statement.
const STMT_REWRITES: [Rewrite; 15] = [
    Rewrite::IfRemover1,
    Rewrite::IfRemover2,
    Rewrite::IfRemover3,
    Rewrite::ForBind0,
    Rewrite::ForBindFirst,
    Rewrite::WithRemover,
    Rewrite::TryRemover,
    Rewrite::WhileRemover,
    Rewrite::StmtRemover,
    Rewrite::WithBind0,
    Rewrite::AttachFullFuncArgs,
    Rewrite::AssignToExpr,
    Rewrite::AugAssignToAssign,
    Rewrite::AnnAssignToAssign,
    Rewrite::TypeParamsRemover,
];

const EXPR_REWRITES: [Rewrite; 13] = [
    Rewrite::CallFwdArg1,
    Rewrite::BinopFwdArgLeft,
    Rewrite::BinopFwdArgRight,
    Rewrite::IntReduce2,
    // After `int-reduce-2`: where both are chosen on one integer, it halves.
    Rewrite::IntStepDown,
    Rewrite::AttributeFwd,
    Rewrite::SubscriptFwd,
    Rewrite::IfExpFwdBody,
    Rewrite::IfExpFwdElse,
    Rewrite::UnaryFwd,
    Rewrite::BoolopFwdFirst,
    Rewrite::BoolopFwdLast,
    Rewrite::StrConcatMerge,
];

/// The rewrites whose sites depend on the module's calls and name uses.
const NEED_CALLS: [Rewrite; 6] = [
    Rewrite::ParamWithArgsRemover,
    Rewrite::FieldWithArgsRemover,
    Rewrite::DefToBody,
    Rewrite::DefToExpr,
    Rewrite::ClassToBase,
    Rewrite::AssignInline,
];

/// Lists the sites of `kinds` in `body`. The body is only read; the traversal is
/// shared with the applier, which needs `&mut`, so it walks a scratch copy.
/// `reference_lists` limits `general-expr-remover` to the lists the reference tool
/// removes from (no comprehension filters, assignment targets, ...).
/// `keep_classes` are classes that `class-to-base` must leave in place.
pub fn find_sites(
    body: &[Stmt],
    kinds: RewriteSet,
    reference_lists: bool,
    keep_classes: &[String],
) -> SiteMap {
    let mut scratch = body.to_vec();
    let mut finder = Finder {
        kinds,
        reference_lists,
        map: SiteMap::default(),
        frozen_depth: 0,
        saw_frozen: false,
        list_ctx: None,
        rhs: false,
        optional: false,
        statements: Vec::new(),
        calls: if !kinds.intersect(RewriteSet::of(&NEED_CALLS)).is_empty() {
            CallIndex::of(&mut scratch)
        } else {
            CallIndex::default()
        },
        attrs: if kinds.contains(Rewrite::PropertyInline) || kinds.contains(Rewrite::MethodInline) {
            AttrIndex::of(&mut scratch)
        } else {
            AttrIndex::default()
        },
        classes: if kinds.contains(Rewrite::FieldWithArgsRemover)
            || kinds.contains(Rewrite::ParamWithArgsRemover)
        {
            ClassIndex::of(&mut scratch)
        } else {
            ClassIndex::default()
        },
        class: None,
        def_args: None,
        param_target: None,
        keep_classes: keep_classes.to_vec(),
        hoist: Hoist::default(),
        names: kinds
            .contains(Rewrite::RemoveWithUses)
            .then(UseIndex::default),
        items: Vec::new(),
        no_const: Vec::new(),
        in_pattern: 0,
        locals: Vec::new(),
        pairs: None,
        pair_item: false,
    };
    finder.body(&mut scratch);
    let mut map = finder.map;
    if let Some(names) = finder.names {
        for (node, uses) in names.closures() {
            map.sites.push(Site {
                node,
                rewrite: Rewrite::RemoveWithUses,
            });
            map.uses.insert(node, uses);
        }
        // In node order, before the other sites of the same statement: where a
        // group of sites ends inside a statement, it then holds the removal that
        // takes the statement's uses along, not a `stmt-remover` that leaves them
        // reading a deleted name. Cut the other way, every group over a run of
        // small functions failed at its end, and the failures kept the groups
        // from growing.
        map.sites
            .sort_by_key(|site| (site.node, site.rewrite != Rewrite::RemoveWithUses));
    }
    map.int_sites = map
        .sites
        .iter()
        .filter(|s| s.rewrite == Rewrite::IntReduce2)
        .count();
    if map.int_sites >= LONG_LIST {
        // With 16 or more integers anywhere (a data table, typically), numbers go
        // by halves only: stepping each down as well would double the phase's
        // sites for numbers that rarely matter one by one.
        map.sites.retain(|s| s.rewrite != Rewrite::IntStepDown);
    }
    map
}

struct Finder {
    kinds: RewriteSet,
    reference_lists: bool,
    map: SiteMap,
    frozen_depth: u32,
    saw_frozen: bool,
    /// Set by the holder of the next visited expression.
    list_ctx: Option<(ListKind, usize)>,
    /// The next visited expression is an assignment's value.
    rhs: bool,
    /// The next visited expression may be dropped (`return` value, annotation, ...).
    optional: bool,
    /// Ids of the statements enclosing the current node, innermost last.
    statements: Vec<u32>,
    calls: CallIndex,
    /// The module's classes, for `field-with-args-remover`.
    classes: ClassIndex,
    /// The module's attribute names, for `property-inline`.
    attrs: AttrIndex,
    /// The class whose body the current statement is directly in (for methods).
    class: Option<String>,
    /// The parameters of the `def` being visited (told apart from a lambda's by
    /// address) and where the `def` stands.
    def_args: Option<(*const ast::Arguments, DefContext)>,
    /// What the next visited parameter's calls pass, if it is a `def`'s.
    param_target: Option<ParamTarget>,
    /// Classes `class-to-base` leaves in place (see `Options::keep_classes`).
    keep_classes: Vec<String>,
    hoist: Hoist,
    /// The names bound and read, for `remove-with-uses` (when it is asked for).
    names: Option<UseIndex>,
    /// The items of list, tuple and set displays and the dict entries enclosing the
    /// current node, innermost last: where a read of a removed name is removed.
    items: Vec<u32>,
    /// Expressions being visited whose children listed here must not become `0`
    /// (see [`expressions::constant_replaceable`]).
    no_const: Vec<*const Expr>,
    /// How many `case` patterns enclose the current node: their values stay.
    in_pattern: u32,
    /// The names of each `def` enclosing the current node, innermost last (only
    /// when `assign-inline` is asked for).
    locals: Vec<LocalNames>,
    /// The targets of the assignment being visited, when `unpack-pair-remover` may
    /// remove their items with the values they take; and whether the next visited
    /// expression is one of them.
    pairs: Option<*const Vec<Expr>>,
    pair_item: bool,
}

/// Where a `return` or `raise` could be hoisted to (see `hoist-stmt`).
#[derive(Debug, Clone, Copy, Default)]
struct Hoist {
    /// The outermost compound statement enclosing the current node within the body of
    /// its function (or the module): what a hoisted statement replaces.
    target: Option<u32>,
    /// Whether that body is a function's (a `return` may stand there).
    in_def: bool,
}

/// Book-keeping of one node between its entry and exit.
struct Open {
    id: u32,
    first_site: usize,
    saw_frozen: bool,
}

impl Finder {
    fn enter(&mut self, range: TextRange) -> Open {
        let id = self.map.ends.len() as u32;
        self.map.ends.push(0);
        self.map.ranges.push(range);
        self.map
            .owners
            .push(self.statements.last().copied().unwrap_or(id));
        let open = Open {
            id,
            first_site: self.map.sites.len(),
            saw_frozen: self.saw_frozen,
        };
        self.saw_frozen = false;
        open
    }

    fn offer(&mut self, node: u32, rewrite: Rewrite) {
        if self.frozen_depth == 0 && self.kinds.contains(rewrite) {
            self.map.sites.push(Site { node, rewrite });
        }
    }

    /// Closes a node: `own` is how many of its sites were offered before its children.
    fn exit(&mut self, open: Open, own: usize, frozen_here: bool) {
        self.map.ends[open.id as usize] = self.map.ends.len() as u32;
        let inner = self.saw_frozen;
        if inner {
            // Rewriting a node that encloses frozen code could drop or move it.
            self.map.sites.drain(open.first_site..open.first_site + own);
        }
        self.saw_frozen = open.saw_frozen || inner || frozen_here;
    }
}

impl VisitorMut for Finder {
    fn stmt(&mut self, stmt: &mut Stmt) {
        let open = self.enter(stmt.range());
        let frozen_here = freeze::is_freeze_with(stmt) || freeze::is_freeze_import(stmt);
        if frozen_here {
            self.frozen_depth += 1;
        } else {
            for r in STMT_REWRITES {
                if statements::matches(r, stmt) || functions::matches(r, stmt) {
                    self.offer(open.id, r);
                }
            }
            let inlinable = calls::inlinable(stmt).filter(|_| self.class.is_none());
            // Without parameters, the call statement is all that matters (names are
            // matched by text: a nested `def main()` read elsewhere must not stop it).
            if inlinable.is_some_and(|(name, args)| {
                self.calls.one_call_statement(name)
                    && (no_params(args) || self.calls.one_call(name, args))
            }) {
                self.offer(open.id, Rewrite::DefToBody);
            }
            let returning = calls::returning_def(stmt).filter(|_| self.class.is_none());
            if returning.is_some_and(|(name, args, _)| self.calls.one_call(name, args)) {
                self.offer(open.id, Rewrite::DefToExpr);
            }
            if calls::forwardable(stmt).is_some_and(|(name, _)| {
                self.calls.unfrozen_reads(name) && !self.keep_classes.iter().any(|k| k == name)
            }) {
                self.offer(open.id, Rewrite::ClassToBase);
            }
            let field = match (&*stmt, self.class.as_deref()) {
                (Stmt::AnnAssign(a), Some(class)) => fields::init_field(a)
                    .and_then(|f| self.classes.field_target(class, f))
                    .filter(|t| self.calls.passes(t)),
                _ => None,
            };
            if let Some(target) = field {
                let before = self.map.sites.len();
                self.offer(open.id, Rewrite::FieldWithArgsRemover);
                if self.map.sites.len() > before {
                    self.map.param_targets.insert(open.id, target);
                }
            }
            if let Some(accessor) = properties::accessor(stmt)
                .filter(|a| self.class.is_some() && self.attrs.inlinable(a))
            {
                let rewrite = if accessor.property {
                    Rewrite::PropertyInline
                } else {
                    Rewrite::MethodInline
                };
                self.offer(open.id, rewrite);
            }
            // A function's own assignment is matched within the function: the
            // `node = …; return node` of one method, whatever other methods call
            // their own `node`.
            let local = self.class.is_none().then(|| self.locals.last()).flatten();
            if let Some((name, _)) = calls::inlinable_assign(stmt) {
                // Used once in the module: forwarded over the module (a `global`
                // assigned in a function and read outside). Used once in its
                // function only: forwarded there.
                if self.calls.single_use(name) {
                    self.offer(open.id, Rewrite::AssignInline);
                } else if local
                    .is_some_and(|l| l.single_use(name) && self.calls.unfrozen_reads(name))
                {
                    self.offer(open.id, Rewrite::AssignInline);
                    self.map.local_inlines.insert(open.id);
                }
            }
        }
        if let Some(names) = self.names.as_mut() {
            if self.frozen_depth > 0 {
                names.keep(open.id);
            }
            if let Some(name) = uses::bound_name(stmt) {
                names.define(open.id, name, self.class.is_some());
            }
            if let Stmt::FunctionDef(ast::StmtFunctionDef { name, .. })
            | Stmt::AsyncFunctionDef(ast::StmtAsyncFunctionDef { name, .. })
            | Stmt::ClassDef(ast::StmtClassDef { name, .. }) = stmt
            {
                names.bind(name.as_str());
            }
        }
        if let Some(target) = self.hoist.target {
            let hoistable = match stmt {
                Stmt::Raise(_) => true,
                Stmt::Return(_) => self.hoist.in_def,
                _ => false,
            };
            if hoistable && self.kinds.contains(Rewrite::HoistStmt) {
                self.offer(open.id, Rewrite::HoistStmt);
                self.map.hoist_targets.insert(open.id, target);
            }
        }
        let own = self.map.sites.len() - open.first_site;
        self.statements.push(open.id);
        let outer_class = self.class.take();
        let outer_hoist = self.hoist;
        match stmt {
            Stmt::FunctionDef(_) | Stmt::AsyncFunctionDef(_) => {
                self.hoist = Hoist {
                    target: None,
                    in_def: true,
                }
            }
            Stmt::ClassDef(_) => self.hoist = Hoist::default(),
            Stmt::If(_)
            | Stmt::For(_)
            | Stmt::AsyncFor(_)
            | Stmt::While(_)
            | Stmt::With(_)
            | Stmt::AsyncWith(_)
            | Stmt::Try(_)
            | Stmt::TryStar(_)
            | Stmt::Match(_)
                if self.hoist.target.is_none() =>
            {
                self.hoist.target = Some(open.id)
            }
            _ => {}
        }
        match stmt {
            Stmt::FunctionDef(ast::StmtFunctionDef { args, .. })
            | Stmt::AsyncFunctionDef(ast::StmtAsyncFunctionDef { args, .. }) => {
                let args: *const ast::Arguments = &**args;
                self.def_args =
                    def_context(stmt, outer_class.as_deref(), &self.classes).map(|ctx| (args, ctx));
            }
            Stmt::ClassDef(c) => self.class = Some(c.name.to_string()),
            // A `def` under an `if` in a class body is still a method.
            _ => self.class.clone_from(&outer_class),
        }
        let scope = matches!(stmt, Stmt::FunctionDef(_) | Stmt::AsyncFunctionDef(_))
            && self.kinds.contains(Rewrite::AssignInline);
        if scope {
            self.locals.push(LocalNames::of(stmt));
        }
        if self.kinds.contains(Rewrite::UnpackPairRemover) {
            self.pairs = statements::unpackable_pairs(stmt).map(|t| t as *const _);
        }
        match stmt {
            Stmt::Assign(s) => {
                self.expr_list(&mut s.targets, ListKind::AssignTargets);
                self.pairs = None;
                self.rhs = true;
                self.expr(&mut s.value);
            }
            Stmt::AnnAssign(s) => {
                self.expr(&mut s.target);
                self.expr(&mut s.annotation);
                if let Some(value) = s.value.as_deref_mut() {
                    self.rhs = true;
                    self.expr(value);
                }
            }
            // `stmt-remover` removes what `0` would replace.
            Stmt::Expr(s) => {
                self.no_const.push(&*s.value);
                self.expr(&mut s.value);
                self.no_const.pop();
            }
            _ => walk::walk_stmt(self, stmt),
        }
        if scope {
            self.locals.pop();
        }
        self.class = outer_class;
        self.hoist = outer_hoist;
        self.statements.pop();
        if frozen_here {
            self.frozen_depth -= 1;
        }
        if self.saw_frozen || frozen_here {
            if let Some(names) = self.names.as_mut() {
                names.keep(open.id);
            }
            // A pair would go with the frozen value it holds (the nodes after an
            // assignment's are its own: it holds no statement).
            if matches!(stmt, Stmt::Assign(_)) {
                let id = open.id;
                self.map
                    .sites
                    .retain(|site| site.rewrite != Rewrite::UnpackPairRemover || site.node <= id);
            }
            // Hoisting a statement out of this one would drop the frozen code in it.
            let targets = &self.map.hoist_targets;
            self.map.sites.retain(|site| {
                site.rewrite != Rewrite::HoistStmt || targets.get(&site.node) != Some(&open.id)
            });
        }
        self.exit(open, own, frozen_here);
    }

    fn expr(&mut self, expr: &mut Expr) {
        let list = self.list_ctx.take();
        let pair = std::mem::take(&mut self.pair_item);
        let rhs = std::mem::take(&mut self.rhs);
        let optional = std::mem::take(&mut self.optional);
        let to_const = !rhs
            && self.in_pattern == 0
            && !matches!(list, Some((ListKind::Decorators | ListKind::Bases, _)))
            && !self.no_const.contains(&(&*expr as *const Expr))
            && expressions::constant_replaceable(expr);
        let open = self.enter(expr.range());
        let frozen_here = freeze::is_freeze_call(expr);
        if frozen_here {
            self.frozen_depth += 1;
        } else {
            if let Some((kind, len)) = list {
                if lists::removable(kind, len, self.reference_lists) {
                    self.offer(open.id, Rewrite::GeneralExprRemover);
                    if len >= LONG_LIST {
                        self.offer(open.id, Rewrite::LongListRemover);
                        self.map.long_lists.insert(open.id, len as u32);
                    }
                }
            }
            if optional {
                self.offer(open.id, Rewrite::OptionalExprRemover);
            }
            if pair {
                self.offer(open.id, Rewrite::UnpackPairRemover);
            }
            if rhs && expressions::matches(Rewrite::AssignRhs1, expr) {
                self.offer(open.id, Rewrite::AssignRhs1);
            }
            for r in EXPR_REWRITES {
                if expressions::matches(r, expr) {
                    self.offer(open.id, r);
                }
            }
            if to_const {
                self.offer(open.id, Rewrite::ExprToConst);
            }
        }
        let own = self.map.sites.len() - open.first_site;
        let item =
            self.names.is_some() && matches!(list, Some((ListKind::Elts | ListKind::SetElts, _)));
        if item {
            self.items.push(open.id);
        }
        if let Some(names) = self.names.as_mut() {
            // A read in an item of a display goes with that item (`shapes = [Square(2),
            // Circle(1)]` loses `Square(2)` with `class Square`), elsewhere with its
            // statement.
            let statement = self.statements.last().copied().unwrap_or(open.id);
            let statement = self.items.last().copied().unwrap_or(statement);
            let frozen = self.frozen_depth > 0;
            match &*expr {
                Expr::Name(n) if n.ctx == ast::ExprContext::Load => {
                    names.read(n.id.as_str(), statement, frozen)
                }
                Expr::Name(n) => names.bind(n.id.as_str()),
                Expr::Attribute(a) if a.ctx == ast::ExprContext::Load => {
                    names.read_attr(a.attr.as_str(), statement, frozen)
                }
                Expr::Attribute(a) => names.store_attr(a.attr.as_str()),
                _ => {}
            }
        }
        let blocked = self.no_const.len();
        match &*expr {
            Expr::Call(c) => self.no_const.push(&*c.func),
            Expr::Attribute(a) => self.no_const.push(&*a.value),
            Expr::Subscript(a) => self.no_const.push(&*a.value),
            // `0 is None` compiles with a SyntaxWarning.
            Expr::Compare(c)
                if c.ops
                    .iter()
                    .any(|op| matches!(op, ast::CmpOp::Is | ast::CmpOp::IsNot)) =>
            {
                self.no_const.push(&*c.left);
                self.no_const
                    .extend(c.comparators.iter().map(|e| e as *const Expr));
            }
            Expr::FormattedValue(f) => self
                .no_const
                .extend(f.format_spec.as_deref().map(|e| e as *const Expr)),
            _ => {}
        }
        walk::walk_expr(self, expr);
        self.no_const.truncate(blocked);
        if let Expr::Constant(ast::ExprConstant { value, range, .. }) = &*expr {
            // Each part of the string, then each run of its characters, is a child
            // node with a site of its own.
            let (parts, chars) = match value {
                ast::Constant::Str(text) => {
                    (strings::parts(text).len(), strings::char_parts(text).len())
                }
                ast::Constant::Bytes(bytes) => (0, strings::byte_parts(bytes).len()),
                _ => (0, 0),
            };
            for k in 0..parts + chars {
                let part = self.enter(*range);
                let rewrite = if k < parts {
                    Rewrite::StrPartRemover
                } else {
                    Rewrite::StrCharRemover
                };
                self.offer(part.id, rewrite);
                let own = self.map.sites.len() - part.first_site;
                self.exit(part, own, false);
            }
        }
        if frozen_here {
            self.frozen_depth -= 1;
        }
        if item {
            self.items.pop();
        }
        if let Some(names) = self.names.as_mut() {
            if self.saw_frozen || frozen_here {
                names.keep(open.id);
            }
        }
        self.exit(open, own, frozen_here);
    }

    fn expr_list(&mut self, list: &mut Vec<Expr>, kind: ListKind) {
        let len = list.len();
        let pairs = self.pairs == Some(&*list as *const _);
        for expr in list.iter_mut() {
            self.list_ctx = Some((kind, len));
            self.pair_item = pairs;
            self.expr(expr);
        }
    }

    fn optional(&mut self, expr: &mut Option<Box<Expr>>, removable: bool) {
        if let Some(e) = expr.as_deref_mut() {
            self.optional = removable;
            self.expr(e);
        }
    }

    fn dict(&mut self, keys: &mut Vec<Option<Expr>>, values: &mut Vec<Expr>) {
        let len = values.len();
        for (key, value) in keys.iter_mut().zip(values.iter_mut()) {
            // The entry's first node stands for the whole entry.
            self.list_ctx = Some((ListKind::DictItems, len));
            let entry = self.names.is_some();
            if entry {
                self.items.push(self.map.ends.len() as u32);
            }
            if let Some(key) = key {
                self.expr(key);
            }
            // For `**mapping` the value is the entry's first node and takes the context.
            self.expr(value);
            if entry {
                self.items.pop();
            }
        }
    }

    fn aliases(&mut self, aliases: &mut Vec<ast::Alias>) {
        let len = aliases.len();
        for alias in aliases.iter() {
            if let Some(names) = self.names.as_mut() {
                names.bind(uses::alias_name(alias));
            }
            let open = self.enter(alias.range);
            if len > 1 {
                self.offer(open.id, Rewrite::ImportNameRemover);
            }
            let own = self.map.sites.len() - open.first_site;
            self.exit(open, own, false);
        }
    }

    fn keyword(&mut self, keyword: &mut ast::Keyword) {
        let open = self.enter(keyword.range);
        self.offer(open.id, Rewrite::GeneralKeywordRemover);
        let own = self.map.sites.len() - open.first_site;
        self.expr(&mut keyword.value);
        self.exit(open, own, false);
    }

    fn match_cases(&mut self, cases: &mut Vec<ast::MatchCase>) {
        let len = cases.len();
        for case in cases.iter_mut() {
            let start = case.pattern.range().start();
            let end = case
                .body
                .last()
                .map_or(case.pattern.range().end(), |s| s.range().end());
            let open = self.enter(TextRange::new(start, end.max(start)));
            if len > 1 {
                self.offer(open.id, Rewrite::CaseRemover);
            }
            let own = self.map.sites.len() - open.first_site;
            self.in_pattern += 1;
            walk::walk_pattern(self, &mut case.pattern);
            self.in_pattern -= 1;
            if let Some(guard) = case.guard.as_deref_mut() {
                self.expr(guard);
            }
            self.body(&mut case.body);
            self.exit(open, own, false);
        }
    }

    fn arguments(&mut self, args: &mut ast::Arguments) {
        let ours = match &self.def_args {
            Some((ptr, _)) => std::ptr::eq(*ptr, &*args),
            None => false,
        };
        let Some((_, ctx)) = self.def_args.take().filter(|_| ours) else {
            return walk::walk_arguments(self, args);
        };
        for (i, p) in args
            .posonlyargs
            .iter_mut()
            .chain(args.args.iter_mut())
            .enumerate()
        {
            self.param_target = ctx.target(Some(i), p.def.arg.as_str());
            self.param(&mut p.def, p.default.as_deref_mut());
        }
        if let Some(arg) = args.vararg.as_deref_mut() {
            self.param(arg, None);
        }
        for p in args.kwonlyargs.iter_mut() {
            self.param_target = ctx.target(None, p.def.arg.as_str());
            self.param(&mut p.def, p.default.as_deref_mut());
        }
        if let Some(arg) = args.kwarg.as_deref_mut() {
            self.param(arg, None);
        }
    }

    fn param(&mut self, arg: &mut ast::Arg, default: Option<&mut Expr>) {
        let target = self.param_target.take();
        if let Some(names) = self.names.as_mut() {
            names.bind(arg.arg.as_str());
        }
        let end = default
            .as_deref()
            .map_or(arg.range.end(), |d| d.range().end());
        let open = self.enter(TextRange::new(
            arg.range.start(),
            end.max(arg.range.start()),
        ));
        self.offer(open.id, Rewrite::FuncArgRemover);
        if let Some(target) = target.filter(|t| self.calls.passes(t)) {
            let before = self.map.sites.len();
            self.offer(open.id, Rewrite::ParamWithArgsRemover);
            if self.map.sites.len() > before {
                self.map.param_targets.insert(open.id, target);
            }
        }
        let own = self.map.sites.len() - open.first_site;
        walk::walk_param(self, arg, default);
        self.exit(open, own, false);
    }
}
