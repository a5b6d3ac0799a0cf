//! `param-with-args-remover`: removes a parameter together with the argument every
//! call passes for it, in one candidate. Plain `func-arg-remover` cannot remove a
//! parameter that calls still pass (the calls fail with a `TypeError`) unless the
//! function first got `*args, **kwargs`; this one removes `nargs` from
//! `def command(name, nargs)` and the `1` from every `command('add', 1)`.
//!
//! Calls are matched by name, without resolving them: a function's calls are the
//! calls of that bare name; a method's are attribute calls of that name (the
//! argument index shifts by one for `self`) except calls through its class's name
//! (`Class.method(…)` passes every parameter, `self` too; a `@classmethod`'s still
//! shift, a `@staticmethod`'s never do); `__init__`'s are calls of
//! its class's name and `….__init__(…)`. A class of the module that inherits the
//! method counts as its class (`Sub(…)`, `Sub.method(obj, …)`; see
//! [`ClassIndex::family`]), `cls` in a class's body reads as that class, and a call
//! through another class of the module is not an instance method's. A wrong match
//! only makes a candidate that fails.

use std::rc::Rc;

use crate::hash::{FastMap, FastSet};

use crate::freeze;
use crate::parse::ast::{self, Expr, Stmt};
use crate::rewrites::fields::ClassIndex;
use crate::walk::{self, ListKind, VisitorMut};

/// How calls name their callee.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Callee {
    /// `name(…)`
    Name(String),
    /// `….attr(…)`
    Attr(String),
}

/// Which of a callee's attribute calls an entry of a [`ParamTarget`] covers, by the
/// name the attribute is read on (`T` in `T.gemm(…)`): any, or only or all but those
/// through a class of a [`ClassIndex::family`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Receiver {
    Any,
    Only(Rc<[String]>),
    Except(Rc<[String]>),
}

impl Receiver {
    fn covers(&self, receiver: Option<&str>) -> bool {
        match self {
            Receiver::Any => true,
            Receiver::Only(family) => names_class(receiver, family),
            Receiver::Except(family) => !names_class(receiver, family),
        }
    }
}

/// Whether a call's receiver is a class of `family`, by its name (`cls` in a class's
/// body reads as that class: `cls.method(obj, …)` passes an instance method's first
/// parameter as `Class.method(obj, …)` does).
fn names_class(receiver: Option<&str>, family: &[String]) -> bool {
    receiver.is_some_and(|r| family.iter().any(|c| c == r))
}

/// What removing one parameter removes at the calls: per callee and receiver, the
/// argument's position (`None`: keyword only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamTarget {
    pub callees: Vec<(Callee, Receiver, Option<usize>)>,
    /// The parameter's name, as a keyword argument.
    pub name: String,
}

/// The shape of one call: how many positional arguments it passes before any
/// `*iterable`, and its keyword names.
#[derive(Debug, Clone)]
struct CallShape {
    /// `T` of `T.attr(…)`: the name an attribute callee is read on.
    receiver: Option<String>,
    positional: usize,
    keywords: Vec<String>,
    /// Whether it passes `*iterable` or `**mapping`.
    spread: bool,
    frozen: bool,
}

/// The calls of a module by callee.
#[derive(Debug, Default)]
pub struct CallIndex {
    calls: FastMap<Callee, Vec<CallShape>>,
    /// Call statements `name(…)`: how many, and whether one is frozen.
    bare: FastMap<String, (u32, bool)>,
    /// Names read inside frozen code.
    frozen_reads: FastSet<String>,
    /// How many times each name is read, and bound by a name target.
    reads: FastMap<String, u32>,
    stores: FastMap<String, u32>,
}

impl CallIndex {
    /// Indexes `body`; it is only read (the traversal needs `&mut`, so callers
    /// pass the scratch copy they walk anyway).
    pub fn of(body: &mut Vec<Stmt>) -> CallIndex {
        let mut collector = Collector {
            index: CallIndex::default(),
            frozen: 0,
            class: Vec::new(),
        };
        collector.body(body);
        collector.index
    }

    /// Whether some call passes an argument for `target` (so plain parameter
    /// removal would break it) and no frozen call does (its arguments must stay).
    pub fn passes(&self, target: &ParamTarget) -> bool {
        let mut some = false;
        for (callee, receiver, index) in &target.callees {
            let calls = self.calls.get(callee).into_iter().flatten();
            for call in calls.filter(|c| receiver.covers(c.receiver.as_deref())) {
                let hit = index.is_some_and(|i| i < call.positional)
                    || call.keywords.contains(&target.name);
                if hit && call.frozen {
                    return false;
                }
                some |= hit;
            }
        }
        some
    }
}

fn callee(func: &Expr) -> Option<Callee> {
    match func {
        Expr::Name(n) => Some(Callee::Name(n.id.to_string())),
        Expr::Attribute(a) => Some(Callee::Attr(a.attr.to_string())),
        _ => None,
    }
}

/// `T` of `T.attr`: the name an attribute callee is read on; `cls` in the body of
/// a class (a classmethod's first parameter) reads as that class.
fn receiver(func: &Expr, class: Option<&String>) -> Option<String> {
    match func {
        Expr::Attribute(a) => match &*a.value {
            Expr::Name(n) if n.id.as_str() == "cls" => {
                Some(class.map_or("cls", String::as_str).to_string())
            }
            Expr::Name(n) => Some(n.id.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// Positional arguments before the first `*iterable`: the ones whose index is known.
fn positional(args: &[Expr]) -> usize {
    args.iter()
        .position(|a| matches!(a, Expr::Starred(_)))
        .unwrap_or(args.len())
}

/// Whether `call` passes `*iterable` or `**mapping`: arguments no parameter list can
/// be matched against by reading the call.
pub fn spreads(call: &ast::ExprCall) -> bool {
    positional(&call.args) < call.args.len() || call.keywords.iter().any(|k| k.arg.is_none())
}

struct Collector {
    index: CallIndex,
    frozen: u32,
    /// The classes whose bodies hold the statement, innermost last.
    class: Vec<String>,
}

impl VisitorMut for Collector {
    fn stmt(&mut self, stmt: &mut Stmt) {
        let frozen = freeze::is_freeze_with(stmt);
        self.frozen += u32::from(frozen);
        if let Some((name, _)) = call_statement(stmt) {
            let entry = self.index.bare.entry(name.to_string()).or_default();
            entry.0 += 1;
            entry.1 |= self.frozen > 0;
        }
        if let Stmt::ClassDef(c) = &*stmt {
            self.class.push(c.name.to_string());
            walk::walk_stmt(self, stmt);
            self.class.pop();
        } else {
            walk::walk_stmt(self, stmt);
        }
        self.frozen -= u32::from(frozen);
    }

    fn expr(&mut self, expr: &mut Expr) {
        let frozen = freeze::is_freeze_call(expr);
        self.frozen += u32::from(frozen);
        if let Expr::Name(n) = &*expr {
            if self.frozen > 0 && n.ctx == ast::ExprContext::Load {
                self.index.frozen_reads.insert(n.id.to_string());
            }
            let counts = match n.ctx {
                ast::ExprContext::Load => &mut self.index.reads,
                _ => &mut self.index.stores,
            };
            *counts.entry(n.id.to_string()).or_default() += 1;
        }
        if let Expr::Call(call) = &*expr {
            if let Some(callee) = callee(&call.func) {
                let shape = CallShape {
                    receiver: receiver(&call.func, self.class.last()),
                    positional: positional(&call.args),
                    keywords: call
                        .keywords
                        .iter()
                        .filter_map(|k| k.arg.as_ref().map(|a| a.to_string()))
                        .collect(),
                    spread: spreads(call),
                    frozen: self.frozen > 0,
                };
                self.index.calls.entry(callee).or_default().push(shape);
            }
        }
        walk::walk_expr(self, expr);
        self.frozen -= u32::from(frozen);
    }
}

/// Where a `def` stands, for working out how its calls look.
#[derive(Debug, Clone)]
pub struct DefContext {
    pub name: String,
    /// The class whose body holds the `def` directly.
    pub class: Option<String>,
    /// `class` and the classes that inherit this method from it
    /// ([`ClassIndex::family`]; empty outside a class).
    pub family: Rc<[String]>,
    /// Every class of the module, the family's too: a call through one outside the
    /// family calls another class's method.
    pub classes: Rc<[String]>,
    /// How a method in `class` binds its first parameter.
    pub kind: MethodKind,
}

/// How calls bind a method's first parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    /// To the receiver, except in calls through the class (`Class.method(obj, …)`).
    Instance,
    /// `@classmethod`: always to the class.
    Class,
    /// `@staticmethod`: never.
    Static,
}

impl DefContext {
    /// The calls' view of the parameter at positional `index` (`None`: keyword-only)
    /// named `name`. A method's first parameter is passed only by calls through its
    /// class (`Class.method(first, …)`); the other calls bind it to their receiver,
    /// so one named `self` (and `__init__`'s) stays.
    pub fn target(&self, index: Option<usize>, name: &str) -> Option<ParamTarget> {
        let attr = Callee::Attr(self.name.clone());
        if let (Some(class), "__new__") = (&self.class, self.name.as_str()) {
            // Static without a decorator: explicit calls (`super().__new__(cls, …)`)
            // pass every parameter, and a construction (`Class(…)`) binds the first
            // to the class, which so stays.
            let constructions = |index| self.constructions(class, index);
            let callees = match index {
                Some(0) => return None,
                Some(i) => [
                    vec![(attr, Receiver::Any, Some(i))],
                    constructions(Some(i - 1)),
                ]
                .concat(),
                None => [vec![(attr, Receiver::Any, None)], constructions(None)].concat(),
            };
            return Some(ParamTarget {
                callees,
                name: name.to_string(),
            });
        }
        let callees = match &self.class {
            None => vec![(Callee::Name(self.name.clone()), Receiver::Any, index)],
            Some(_) if self.kind == MethodKind::Static => vec![(attr, Receiver::Any, index)],
            Some(class) => {
                // Calls through the class pass an instance method's first parameter.
                let (others, through_class) = match self.kind {
                    MethodKind::Instance => (
                        Receiver::Except(Rc::clone(&self.classes)),
                        Some((attr.clone(), Receiver::Only(Rc::clone(&self.family)), index)),
                    ),
                    _ => (Receiver::Any, None),
                };
                let Some(shifted) = index.map(|i| i.checked_sub(1)) else {
                    let mut callees = vec![(attr, Receiver::Any, None)];
                    if self.name == "__init__" {
                        callees.extend(self.constructions(class, None));
                    }
                    return Some(ParamTarget {
                        callees,
                        name: name.to_string(),
                    });
                };
                let Some(shifted) = shifted else {
                    let through_class =
                        through_class.filter(|_| self.name != "__init__" && name != "self")?;
                    return Some(ParamTarget {
                        callees: vec![through_class],
                        name: name.to_string(),
                    });
                };
                let mut callees = vec![(attr, others, Some(shifted))];
                callees.extend(through_class);
                if self.name == "__init__" {
                    callees.extend(self.constructions(class, Some(shifted)));
                }
                callees
            }
        };
        Some(ParamTarget {
            callees,
            name: name.to_string(),
        })
    }
}

impl DefContext {
    /// The calls that construct `class` or a class of the family (`Class(…)`), which
    /// pass the parameter at `index` of its `__init__` or `__new__`.
    fn constructions(
        &self,
        class: &str,
        index: Option<usize>,
    ) -> Vec<(Callee, Receiver, Option<usize>)> {
        if self.family.is_empty() {
            return vec![(Callee::Name(class.to_string()), Receiver::Any, index)];
        }
        self.family
            .iter()
            .map(|name| (Callee::Name(name.clone()), Receiver::Any, index))
            .collect()
    }
}

/// The `def` context of a statement directly in the body of `class` (if any);
/// `classes` gives the classes that inherit the method.
pub fn def_context(stmt: &Stmt, class: Option<&str>, classes: &ClassIndex) -> Option<DefContext> {
    let (name, decorators) = match stmt {
        Stmt::FunctionDef(s) => (s.name.as_str(), &s.decorator_list),
        Stmt::AsyncFunctionDef(s) => (s.name.as_str(), &s.decorator_list),
        _ => return None,
    };
    let decorated = |what: &str| {
        decorators
            .iter()
            .any(|d| matches!(d, Expr::Name(n) if n.id.as_str() == what))
    };
    let kind = if decorated("staticmethod") {
        MethodKind::Static
    } else if decorated("classmethod") {
        MethodKind::Class
    } else {
        MethodKind::Instance
    };
    Some(DefContext {
        name: name.to_string(),
        class: class.map(str::to_string),
        family: class.map_or_else(|| Rc::from([]), |c| classes.family(c, name)),
        classes: class.map_or_else(|| Rc::from([]), |c| classes.classes_and(c)),
        kind,
    })
}

/// Removes, at every call, the arguments `targets` name.
pub fn remove_call_args(body: &mut Vec<Stmt>, targets: &[ParamTarget]) {
    let mut remover = Remover {
        targets,
        class: Vec::new(),
    };
    remover.body(body);
}

struct Remover<'a> {
    targets: &'a [ParamTarget],
    /// The classes whose bodies hold the statement, innermost last.
    class: Vec<String>,
}

impl VisitorMut for Remover<'_> {
    fn stmt(&mut self, stmt: &mut Stmt) {
        if let Stmt::ClassDef(c) = &*stmt {
            self.class.push(c.name.to_string());
            walk::walk_stmt(self, stmt);
            self.class.pop();
        } else {
            walk::walk_stmt(self, stmt);
        }
    }

    fn expr(&mut self, expr: &mut Expr) {
        if let Expr::Call(call) = expr {
            if let Some(callee) = callee(&call.func) {
                let receiver = receiver(&call.func, self.class.last());
                edit_call(call, &callee, receiver.as_deref(), self.targets);
            }
        }
        walk::walk_expr(self, expr);
    }

    fn expr_list(&mut self, list: &mut Vec<Expr>, _kind: ListKind) {
        for e in list.iter_mut() {
            self.expr(e);
        }
    }
}

fn edit_call(
    call: &mut ast::ExprCall,
    callee: &Callee,
    receiver: Option<&str>,
    targets: &[ParamTarget],
) {
    let known = positional(&call.args);
    let mut drop = vec![false; call.args.len()];
    for target in targets {
        for (c, covered, index) in &target.callees {
            if c != callee || !covered.covers(receiver) {
                continue;
            }
            if let Some(i) = index.filter(|&i| i < known) {
                drop[i] = true;
            }
            call.keywords
                .retain(|k| k.arg.as_ref().map(|a| a.as_str()) != Some(target.name.as_str()));
        }
    }
    let mut i = 0;
    call.args.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
}

/// `def-to-body`: a `def` without decorators, `*` or keyword-only parameters that one
/// statement calls, `name(…)`, is removed and its body takes the place of that
/// statement, after an assignment to each parameter of what the call passes for it
/// (or its default): `def main(): …` and `main()` become the body of `main`,
/// `def run(n): …` and `run(3)` become `n = 3` and the body. Its local names become
/// globals; a `return` left at its top level makes a candidate CPython refuses, which
/// is never run. Returns the name and the parameters.
pub fn inlinable(stmt: &Stmt) -> Option<(&str, &ast::Arguments)> {
    plain_def(stmt).map(|def| (def.name.as_str(), &*def.args))
}

/// A `def` without decorators, type parameters, `*` or keyword-only parameters: one
/// whose calls bind parameters as [`bind_params`] does.
fn plain_def(stmt: &Stmt) -> Option<&ast::StmtFunctionDef> {
    let Stmt::FunctionDef(def) = stmt else {
        return None;
    };
    let a = &def.args;
    let simple = a.kwonlyargs.is_empty() && a.vararg.is_none() && a.kwarg.is_none();
    (simple && def.decorator_list.is_empty() && def.type_params.is_empty()).then_some(def)
}

/// The name `stmt` calls, and the call, when it is a call statement `name(…)`.
pub fn call_statement(stmt: &Stmt) -> Option<(&str, &ast::ExprCall)> {
    let Stmt::Expr(e) = stmt else { return None };
    let Expr::Call(call) = &*e.value else {
        return None;
    };
    let Expr::Name(name) = &*call.func else {
        return None;
    };
    Some((name.id.as_str(), call))
}

impl CallIndex {
    /// Whether exactly one statement calls `name(…)`, outside frozen code.
    pub fn one_call_statement(&self, name: &str) -> bool {
        matches!(self.bare.get(name), Some(&(1, false)))
    }
}

/// What `call` binds each parameter of `args` to: the argument it passes by position
/// or keyword, else the default; parameters bound to neither are left out.
pub(crate) fn bind_params(args: &ast::Arguments, call: &ast::ExprCall) -> Vec<(String, Expr)> {
    let mut bound = Vec::new();
    for (i, p) in params(args).enumerate() {
        let name = p.def.arg.as_str();
        let passed = call.args.get(i).or_else(|| {
            call.keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name))
                .map(|k| &k.value)
        });
        if let Some(value) = passed.or(p.default.as_deref()) {
            bound.push((name.to_string(), value.clone()));
        }
    }
    bound
}

/// The parameters' assignments: one each, which later rewrites can remove one by one,
/// unless an argument reads a parameter assigned before it; then one assignment of
/// them all at once (`a, b = b, a` binds as a call does, where `a = b` then `b = a`
/// would not). A parameter passed a name of its own (`run(x)` for `def run(x)`) needs
/// none, and would become local to the caller.
fn bind_statements(bound: Vec<(String, Expr)>) -> Vec<Stmt> {
    use super::make;
    let bound: Vec<(String, Expr)> = bound
        .into_iter()
        .filter(|(name, value)| !matches!(value, Expr::Name(n) if n.id.as_str() == name))
        .collect();
    let clash = bound.iter().enumerate().any(|(i, (_, value))| {
        let mut read = BoundNames::default();
        read.expr(&mut value.clone());
        read.0
            .iter()
            .any(|r| bound[..i].iter().any(|(name, _)| name == r))
    });
    let (targets, values): (Vec<Expr>, Vec<Expr>) = bound
        .into_iter()
        .map(|(name, value)| (make::name(&name, ast::ExprContext::Store), value))
        .unzip();
    if !clash {
        return targets
            .into_iter()
            .zip(values)
            .map(|(t, v)| make::assign(t, v))
            .collect();
    }
    vec![make::assign(
        Expr::Tuple(ast::ExprTuple {
            range: Default::default(),
            elts: targets,
            ctx: ast::ExprContext::Store,
        }),
        make::tuple(values),
    )]
}

/// Replaces the statement `name(…)` by the parameters' assignments and the body of
/// the `def`, for each `(name, def)` of `inlines` (see [`inlinable`]).
pub fn inline_calls(body: &mut Vec<Stmt>, inlines: &mut Vec<(String, ast::StmtFunctionDef)>) {
    let mut inliner = Inliner { inlines };
    inliner.body(body);
}

struct Inliner<'a> {
    inlines: &'a mut Vec<(String, ast::StmtFunctionDef)>,
}

impl VisitorMut for Inliner<'_> {
    fn body(&mut self, body: &mut Vec<Stmt>) {
        let old = std::mem::take(body);
        for mut stmt in old {
            let found = call_statement(&stmt).and_then(|(name, call)| {
                let i = self.inlines.iter().position(|(n, _)| n == name)?;
                Some((i, bind_params(&self.inlines[i].1.args, call)))
            });
            match found {
                Some((i, bound)) => {
                    body.extend(bind_statements(bound));
                    body.extend(self.inlines.swap_remove(i).1.body);
                }
                None => {
                    self.stmt(&mut stmt);
                    body.push(stmt);
                }
            }
        }
    }
}

/// `def-to-expr`: a `def` whose body is one `return value`, without decorators, `*`
/// or keyword-only parameters, that one call reads, `name(…)`, is removed and that
/// call becomes `value` with each parameter read replaced by what the call passes for
/// it (or its default): `Scheduler(make_pipeline())` becomes `Scheduler([…])`.
/// Returns the name, the parameters and the value.
pub fn returning_def(stmt: &Stmt) -> Option<(&str, &ast::Arguments, &Expr)> {
    let def = plain_def(stmt)?;
    match &def.body[..] {
        [Stmt::Return(ast::StmtReturn {
            value: Some(value), ..
        })] if substitutable(value, &def.args) => Some((def.name.as_str(), &def.args, value)),
        _ => None,
    }
}

/// Whether `value` means the same once its parameters' reads are replaced by the
/// arguments, in the caller's scope: no `yield` (it would make the caller a
/// generator), no `await` or `:=`, and no lambda or comprehension that binds a
/// parameter's name (its reads are not the parameter's).
pub(crate) fn substitutable(value: &Expr, args: &ast::Arguments) -> bool {
    let names: Vec<&str> = params(args).map(|p| p.def.arg.as_str()).collect();
    let mut check = Substitutable {
        params: &names,
        ok: true,
    };
    check.expr(&mut value.clone());
    check.ok
}

struct Substitutable<'a> {
    params: &'a [&'a str],
    ok: bool,
}

impl VisitorMut for Substitutable<'_> {
    fn expr(&mut self, expr: &mut Expr) {
        let binds_param = |targets: &mut dyn Iterator<Item = &Expr>| {
            let mut bound = BoundNames::default();
            for t in targets {
                bound.expr(&mut t.clone());
            }
            bound.0.iter().any(|n| self.params.contains(&n.as_str()))
        };
        let bad = match &*expr {
            Expr::Yield(_) | Expr::YieldFrom(_) | Expr::Await(_) | Expr::NamedExpr(_) => true,
            Expr::Lambda(l) => {
                super::functions::param_names(&l.args).any(|n| self.params.contains(&n))
            }
            Expr::ListComp(ast::ExprListComp { generators, .. })
            | Expr::SetComp(ast::ExprSetComp { generators, .. })
            | Expr::DictComp(ast::ExprDictComp { generators, .. })
            | Expr::GeneratorExp(ast::ExprGeneratorExp { generators, .. }) => {
                binds_param(&mut generators.iter().map(|g| &g.target))
            }
            _ => false,
        };
        if bad {
            self.ok = false;
        } else {
            walk::walk_expr(self, expr);
        }
    }
}

/// The names an expression holds (those an assignment target binds, or those a value
/// reads).
#[derive(Default)]
struct BoundNames(Vec<String>);

impl VisitorMut for BoundNames {
    fn expr(&mut self, expr: &mut Expr) {
        if let Expr::Name(n) = &*expr {
            self.0.push(n.id.to_string());
        }
        walk::walk_expr(self, expr);
    }
}

/// Whether a call that passes `positional` arguments by position and `keywords` by
/// name binds to `args` as Python binds it: no more positional arguments than
/// parameters, each keyword names a parameter (not a positional-only one) that no
/// other argument fills, and each parameter left out has a default.
pub fn binds<'a>(
    args: &ast::Arguments,
    positional: usize,
    keywords: impl IntoIterator<Item = &'a str>,
) -> bool {
    let mut given = vec![false; args.posonlyargs.len() + args.args.len()];
    if positional > given.len() {
        return false;
    }
    given[..positional].fill(true);
    for keyword in keywords {
        let at = args.args.iter().position(|p| p.def.arg.as_str() == keyword);
        match at.map(|i| i + args.posonlyargs.len()) {
            Some(i) if !given[i] => given[i] = true,
            _ => return false,
        }
    }
    params(args)
        .zip(given)
        .all(|(p, g)| g || p.default.is_some())
}

fn params(args: &ast::Arguments) -> impl Iterator<Item = &ast::ArgWithDefault> {
    args.posonlyargs.iter().chain(&args.args)
}

impl CallIndex {
    /// Whether the only read of `name` is one call, outside frozen code, that passes
    /// each parameter of `args` at most once, by position or (not positional-only) by
    /// keyword, or leaves it to its default, and `name` is bound by no name target.
    pub fn one_call(&self, name: &str, args: &ast::Arguments) -> bool {
        let once = self.reads.get(name) == Some(&1)
            && !self.stores.contains_key(name)
            && !self.frozen_reads.contains(name);
        let Some([call]) = self
            .calls
            .get(&Callee::Name(name.to_string()))
            .map(Vec::as_slice)
        else {
            return false;
        };
        once && !call.spread
            && !call.frozen
            && binds(
                args,
                call.positional,
                call.keywords.iter().map(String::as_str),
            )
    }
}

/// Replaces the one call of each `(name, def)` of `inlines` by the value the `def`
/// returns, its parameters bound to the call's arguments (see [`returning_def`]).
pub fn inline_returns(body: &mut Vec<Stmt>, inlines: &[(String, Stmt)]) {
    let mut inliner = ReturnInliner {
        inlines,
        active: Vec::new(),
    };
    inliner.body(body);
}

struct ReturnInliner<'a> {
    inlines: &'a [(String, Stmt)],
    /// The inlines whose value is being visited: a value that calls its own function
    /// keeps that call.
    active: Vec<usize>,
}

impl VisitorMut for ReturnInliner<'_> {
    fn expr(&mut self, expr: &mut Expr) {
        walk::walk_expr(self, expr);
        let Expr::Call(call) = &*expr else { return };
        let Expr::Name(callee) = &*call.func else {
            return;
        };
        let found = self
            .inlines
            .iter()
            .position(|(n, _)| n == callee.id.as_str())
            .filter(|i| !self.active.contains(i));
        let Some((i, (args, value))) =
            found.and_then(|i| returning_def(&self.inlines[i].1).map(|(_, a, v)| (i, (a, v))))
        else {
            return;
        };
        let mut value = value.clone();
        substitute(&mut value, &bind_params(args, call));
        *expr = value;
        // What the value calls may be inlined too.
        self.active.push(i);
        self.expr(expr);
        self.active.pop();
    }
}

/// `class-to-base`: a class whose body is only `pass`, with one base and no keywords
/// or decorators (`class PriceError(Exception): pass`), is removed and every name
/// that reads it reads its base instead (`raise PriceError(…)` becomes
/// `raise Exception(…)`). Returns the class's name and base.
pub fn forwardable(stmt: &Stmt) -> Option<(&str, &Expr)> {
    let Stmt::ClassDef(class) = stmt else {
        return None;
    };
    let empty = class.body.iter().all(|s| matches!(s, Stmt::Pass(_)));
    match &class.bases[..] {
        [base] if empty && class.keywords.is_empty() && class.decorator_list.is_empty() => {
            Some((class.name.as_str(), base))
        }
        _ => None,
    }
}

impl CallIndex {
    /// Whether no frozen code reads `name`.
    pub fn unfrozen_reads(&self, name: &str) -> bool {
        !self.frozen_reads.contains(name)
    }
}

/// Replaces every read of each name of `forwards` by its value, and the reads of those
/// names in the values it puts in, in turn (`class B(A)` and `class A(Exception)`
/// both forwarded make `B` read `Exception`); a value that reads its own name keeps it.
pub fn forward_names(body: &mut Vec<Stmt>, forwards: &[(String, Expr)]) {
    Forwarder::chained(forwards).body(body);
}

/// [`forward_names`] within the body of a `def` (whose local is inlined).
pub fn forward_names_in(def: &mut Stmt, forwards: &[(String, Expr)]) {
    if let Stmt::FunctionDef(ast::StmtFunctionDef { body, .. })
    | Stmt::AsyncFunctionDef(ast::StmtAsyncFunctionDef { body, .. }) = def
    {
        Forwarder::chained(forwards).body(body);
    }
}

/// [`forward_names`] in a removed `def`, except over the names of its parameters.
pub fn forward_into_def(def: &mut Stmt, forwards: &[(String, Expr)]) {
    let Stmt::FunctionDef(f) = &*def else { return };
    let own: Vec<(String, Expr)> = forwards
        .iter()
        .filter(|(name, _)| !params(&f.args).any(|p| p.def.arg.as_str() == name))
        .cloned()
        .collect();
    Forwarder::chained(&own).stmt(def);
}

/// Replaces every read of each name of `bound` in `value` by its value, all at once,
/// as a call binds its parameters: what is put in is not looked at again.
pub(crate) fn substitute(value: &mut Expr, bound: &[(String, Expr)]) {
    let mut forwarder = Forwarder {
        forwards: bound,
        chain: false,
        active: Vec::new(),
    };
    forwarder.expr(value);
}

struct Forwarder<'a> {
    forwards: &'a [(String, Expr)],
    chain: bool,
    active: Vec<usize>,
}

impl<'a> Forwarder<'a> {
    fn chained(forwards: &'a [(String, Expr)]) -> Self {
        Forwarder {
            forwards,
            chain: true,
            active: Vec::new(),
        }
    }
}

impl VisitorMut for Forwarder<'_> {
    fn expr(&mut self, expr: &mut Expr) {
        if let Expr::Name(n) = &*expr {
            if n.ctx == ast::ExprContext::Load {
                let found = self
                    .forwards
                    .iter()
                    .position(|(name, _)| *name == n.id.as_str())
                    .filter(|i| !self.active.contains(i));
                if let Some(i) = found {
                    *expr = self.forwards[i].1.clone();
                    if self.chain {
                        self.active.push(i);
                        self.expr(expr);
                        self.active.pop();
                    }
                    return;
                }
            }
        }
        walk::walk_expr(self, expr);
    }
}

/// `assign-inline`: `name = value`, where the program binds `name` by a name target
/// only here and reads it exactly once, is removed and that read becomes `value`
/// (`graph = build(EDGES)` and `plan(graph)` become `plan(build(EDGES))`). Returns the
/// name and value.
pub fn inlinable_assign(stmt: &Stmt) -> Option<(&str, &Expr)> {
    let Stmt::Assign(assign) = stmt else {
        return None;
    };
    match &assign.targets[..] {
        [Expr::Name(n)] => Some((n.id.as_str(), &assign.value)),
        _ => None,
    }
}

impl CallIndex {
    /// Whether `name` is bound by a name target once and read exactly once, outside
    /// frozen code.
    pub fn single_use(&self, name: &str) -> bool {
        self.reads.get(name) == Some(&1)
            && self.stores.get(name) == Some(&1)
            && !self.frozen_reads.contains(name)
    }
}

/// How often a function binds and reads each name, counted over its whole `def`:
/// parameters, name targets, nested `def`, `class`, import, `except … as` and `case`
/// names bind; a `global` or `nonlocal` name counts as bound twice, so it is never
/// taken for a local. Nested functions and lambdas are counted in (a closure reads the
/// enclosing local), which can only make a name look used more than it is.
#[derive(Debug, Default)]
pub struct LocalNames {
    reads: FastMap<String, u32>,
    stores: FastMap<String, u32>,
}

impl LocalNames {
    /// Counts the names of `def` (a `def` or `async def`; anything else counts
    /// nothing).
    pub fn of(def: &mut Stmt) -> LocalNames {
        let mut names = LocalNames::default();
        if matches!(def, Stmt::FunctionDef(_) | Stmt::AsyncFunctionDef(_)) {
            walk::walk_stmt(&mut names, def);
        }
        names
    }

    /// Whether `name` is bound once, by a name target, and read once in the
    /// function: what `assign-inline` needs of a local.
    pub fn single_use(&self, name: &str) -> bool {
        self.reads.get(name) == Some(&1) && self.stores.get(name) == Some(&1)
    }

    fn bind(&mut self, name: &str, times: u32) {
        *self.stores.entry(name.to_string()).or_default() += times;
    }
}

impl VisitorMut for LocalNames {
    fn stmt(&mut self, stmt: &mut Stmt) {
        match stmt {
            Stmt::FunctionDef(ast::StmtFunctionDef { name, .. })
            | Stmt::AsyncFunctionDef(ast::StmtAsyncFunctionDef { name, .. })
            | Stmt::ClassDef(ast::StmtClassDef { name, .. }) => self.bind(name.as_str(), 1),
            Stmt::Global(ast::StmtGlobal { names, .. })
            | Stmt::Nonlocal(ast::StmtNonlocal { names, .. }) => {
                for name in names {
                    self.bind(name.as_str(), 2);
                }
            }
            Stmt::Try(ast::StmtTry { handlers, .. })
            | Stmt::TryStar(ast::StmtTryStar { handlers, .. }) => {
                for ast::ExceptHandler::ExceptHandler(h) in handlers.iter() {
                    if let Some(name) = &h.name {
                        self.bind(name.as_str(), 1);
                    }
                }
            }
            Stmt::Match(ast::StmtMatch { cases, .. }) => {
                for case in cases.iter() {
                    pattern_names(&case.pattern, &mut |name| self.bind(name, 1));
                }
            }
            _ => {}
        }
        walk::walk_stmt(self, stmt);
    }

    fn expr(&mut self, expr: &mut Expr) {
        if let Expr::Name(n) = &*expr {
            let counts = match n.ctx {
                ast::ExprContext::Load => &mut self.reads,
                _ => &mut self.stores,
            };
            *counts.entry(n.id.to_string()).or_default() += 1;
        }
        walk::walk_expr(self, expr);
    }

    fn aliases(&mut self, aliases: &mut Vec<ast::Alias>) {
        for alias in aliases.iter() {
            self.bind(super::uses::alias_name(alias), 1);
        }
    }

    fn param(&mut self, arg: &mut ast::Arg, default: Option<&mut Expr>) {
        self.bind(arg.arg.as_str(), 1);
        walk::walk_param(self, arg, default);
    }
}

/// Calls `bind` with each name a `case` pattern captures.
fn pattern_names(pattern: &ast::Pattern, bind: &mut impl FnMut(&str)) {
    let mut capture = |name: &Option<ast::Identifier>| {
        if let Some(name) = name {
            bind(name.as_str());
        }
    };
    match pattern {
        ast::Pattern::MatchValue(_) | ast::Pattern::MatchSingleton(_) => {}
        ast::Pattern::MatchStar(p) => capture(&p.name),
        ast::Pattern::MatchAs(p) => {
            capture(&p.name);
            if let Some(inner) = p.pattern.as_deref() {
                pattern_names(inner, bind);
            }
        }
        ast::Pattern::MatchMapping(p) => {
            capture(&p.rest);
            for inner in &p.patterns {
                pattern_names(inner, bind);
            }
        }
        ast::Pattern::MatchSequence(ast::PatternMatchSequence { patterns, .. })
        | ast::Pattern::MatchOr(ast::PatternMatchOr { patterns, .. }) => {
            for inner in patterns {
                pattern_names(inner, bind);
            }
        }
        ast::Pattern::MatchClass(p) => {
            for inner in p.patterns.iter().chain(&p.kwd_patterns) {
                pattern_names(inner, bind);
            }
        }
    }
}
