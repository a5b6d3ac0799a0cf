//! `field-with-args-remover`: removes a field of a dataclass (or `NamedTuple`) together with the
//! argument every construction passes for it, in one candidate. A reduced program's
//! records keep fields nothing reads any more (`Token(kind, text, pos)` where only
//! `text` is read) because `stmt-remover` alone leaves the calls passing three
//! arguments to a class that takes two.
//!
//! The `__init__` a dataclass gets takes its fields in order, after those of a
//! dataclass it derives from; a subclass without an `__init__` of its own is
//! constructed the same way. Classes are matched by name, as calls are (see
//! [`super::calls`]): a wrong match only makes a candidate that fails.

use std::rc::Rc;

use crate::hash::{FastMap, FastSet};
use crate::parse::ast::{self, Expr, Stmt};
use crate::rewrites::calls::{Callee, ParamTarget, Receiver};
use crate::walk::{self, VisitorMut};

/// What the module's classes tell about their constructors and methods: read by
/// this rewrite (a dataclass's fields) and by `param-with-args-remover` (which
/// classes inherit a method, [`ClassIndex::family`]), one index for both.
#[derive(Debug, Default)]
pub struct ClassIndex {
    classes: FastMap<String, ClassInfo>,
    /// For each base name, the classes that name it as a base.
    subclasses: FastMap<String, Vec<String>>,
    /// The classes' names, sorted.
    class_names: Rc<[String]>,
}

#[derive(Debug, Default)]
struct ClassInfo {
    /// Defined more than once: never matched.
    repeated: bool,
    /// `@dataclass` (or `@dataclasses.dataclass`), without `init=False`, or a
    /// `NamedTuple`: built from its fields.
    dataclass: bool,
    /// `@dataclass(kw_only=True)`: its fields are passed by keyword only.
    kw_only: bool,
    /// Defines `__init__` in its body.
    own_init: bool,
    /// Its bases in order: the names, `None` for another expression (`mod.Base`).
    bases: Vec<Option<String>>,
    /// The names its body binds (`def`, assignments, imports, also under `if`, `for`,
    /// `while`, `with` and `try`).
    defines: FastSet<String>,
    /// Whether it is decorated: a decorator may make methods of its own
    /// (`@dataclass` makes `__init__`).
    decorated: bool,
    /// Its fields that `__init__` takes, in order.
    fields: Vec<String>,
}

impl ClassIndex {
    /// Indexes every class of `body` (nested ones too).
    pub fn of(body: &mut Vec<Stmt>) -> ClassIndex {
        let mut index = ClassIndex::default();
        index.body(body);
        for (name, info) in &index.classes {
            for base in info.bases.iter().flatten() {
                let entry = index.subclasses.entry(base.clone()).or_default();
                entry.push(name.clone());
            }
        }
        let mut names: Vec<String> = index.classes.keys().cloned().collect();
        names.sort_unstable();
        index.class_names = names.into();
        index
    }

    /// `class` and the classes that inherit its `method` from it, by the order
    /// Python looks up a method in: undecorated, defining no `method` of their own,
    /// and whose first base that may hold it is of the family. A base that is not a
    /// class of the module (`Exception`, `mod.Base`) may hold it, `object` does not; a
    /// class of the module holds it when it defines it or one of its bases may hold
    /// it. `Sub.method(obj, …)` and `Sub(…)` call `class`'s method (or `__init__`)
    /// then. Sorted, `class` included.
    pub fn family(&self, class: &str, method: &str) -> Rc<[String]> {
        let mut family = vec![class.to_string()];
        loop {
            let before = family.len();
            for (name, info) in &self.classes {
                if info.repeated
                    || info.decorated
                    || info.defines.contains(method)
                    || family.contains(name)
                {
                    continue;
                }
                let first = info
                    .bases
                    .iter()
                    .find(|b| self.may_hold(b.as_deref(), method, &mut Vec::new()));
                if first.is_some_and(|b| b.as_ref().is_some_and(|b| family.contains(b))) {
                    family.push(name.clone());
                }
            }
            if family.len() == before {
                family.sort_unstable();
                return family.into();
            }
        }
    }

    /// Whether the base `base` may hold `method` (see [`ClassIndex::family`]);
    /// `seen` guards against classes that name each other as bases.
    fn may_hold(&self, base: Option<&str>, method: &str, seen: &mut Vec<String>) -> bool {
        let Some(base) = base else {
            return true;
        };
        if base == "object" {
            return false;
        }
        let Some(info) = self.classes.get(base) else {
            return true;
        };
        if info.repeated || info.defines.contains(method) || info.decorated {
            return true;
        }
        if seen.iter().any(|s| s == base) {
            return false;
        }
        seen.push(base.to_string());
        info.bases
            .iter()
            .any(|b| self.may_hold(b.as_deref(), method, seen))
    }

    /// The names of the module's classes and `class`, sorted.
    pub fn classes_and(&self, class: &str) -> Rc<[String]> {
        if self.classes.contains_key(class) {
            return Rc::clone(&self.class_names);
        }
        let mut names = self.class_names.to_vec();
        names.push(class.to_string());
        names.sort_unstable();
        names.into()
    }

    /// How `class` is constructed with `field`: at which position (`None`: by
    /// keyword only) in calls of the class and of every subclass. `None` when the
    /// class is no dataclass of this module, the field is no parameter of its
    /// `__init__`, or a class on the way has an `__init__` of its own.
    pub fn field_target(&self, class: &str, field: &str) -> Option<ParamTarget> {
        let info = self.get(class)?;
        if !info.dataclass || info.own_init {
            return None;
        }
        let own = info.fields.iter().position(|f| f == field)?;
        let inherited = self.inherited_fields(class, 0)?;
        if inherited.iter().any(|f| f == field) {
            return None;
        }
        let index = (!info.kw_only).then_some(inherited.len() + own);
        let mut callees = Vec::new();
        for name in self.with_subclasses(class)? {
            callees.push((Callee::Name(name.clone()), Receiver::Any, index));
        }
        Some(ParamTarget {
            callees,
            name: field.to_string(),
        })
    }

    fn get(&self, class: &str) -> Option<&ClassInfo> {
        self.classes.get(class).filter(|c| !c.repeated)
    }

    /// The fields `class`'s dataclass bases give its `__init__` first; `None` when
    /// that cannot be told (two dataclass bases, a base with its own `__init__` or
    /// keyword-only fields, a plain class of the module between two dataclasses, a
    /// cycle of names).
    fn inherited_fields(&self, class: &str, depth: usize) -> Option<Vec<String>> {
        let info = self.get(class)?;
        if depth > 32 {
            return None;
        }
        let mut found: Option<Vec<String>> = None;
        for base in info.bases.iter().flatten() {
            let Some(base_info) = self.classes.get(base) else {
                continue;
            };
            let mut fields = self.inherited_fields(base, depth + 1)?;
            if base_info.repeated || (base_info.dataclass && base_info.own_init) {
                return None;
            }
            if base_info.dataclass {
                if base_info.kw_only {
                    return None;
                }
                fields.extend(base_info.fields.iter().cloned());
            }
            if fields.is_empty() {
                continue;
            }
            if found.is_some() {
                return None;
            }
            found = Some(fields);
        }
        Some(found.unwrap_or_default())
    }

    /// `class` and every class deriving from it, in turn; `None` if one of them
    /// defines its own `__init__` or is defined twice.
    fn with_subclasses(&self, class: &str) -> Option<Vec<String>> {
        let mut found = vec![class.to_string()];
        let mut i = 0;
        while i < found.len() {
            for name in self.subclasses.get(&found[i]).into_iter().flatten() {
                let info = &self.classes[name];
                if info.repeated || info.own_init {
                    return None;
                }
                if !found.contains(name) {
                    found.push(name.clone());
                }
            }
            i += 1;
        }
        Some(found)
    }
}

impl VisitorMut for ClassIndex {
    fn stmt(&mut self, stmt: &mut Stmt) {
        if let Stmt::ClassDef(class) = &*stmt {
            let info = class_info(class);
            match self.classes.get_mut(class.name.as_str()) {
                Some(existing) => existing.repeated = true,
                None => {
                    self.classes.insert(class.name.to_string(), info);
                }
            }
        }
        walk::walk_stmt(self, stmt);
    }
}

fn class_info(class: &ast::StmtClassDef) -> ClassInfo {
    let mut info = ClassInfo::default();
    for decorator in &class.decorator_list {
        let (callee, keywords) = match decorator {
            Expr::Call(call) => (&*call.func, &call.keywords[..]),
            other => (other, &[][..]),
        };
        if !is_dataclass_name(callee) {
            continue;
        }
        let flag = |name: &str| {
            keywords.iter().find_map(|k| {
                let value = matches!(&k.value, Expr::Constant(c) if matches!(c.value, ast::Constant::Bool(true)));
                (k.arg.as_ref().map(|a| a.as_str()) == Some(name)).then_some(value)
            })
        };
        info.dataclass = flag("init") != Some(false);
        info.kw_only = flag("kw_only") == Some(true);
    }
    // A `typing.NamedTuple` class is constructed from its fields in order, too.
    info.dataclass |= class.bases.iter().any(|b| names(b, "NamedTuple"));
    info.decorated = !class.decorator_list.is_empty();
    info.bases = class
        .bases
        .iter()
        .map(|b| match b {
            Expr::Name(n) => Some(n.id.to_string()),
            _ => None,
        })
        .collect();
    bound_in(&class.body, &mut info.defines);
    for stmt in &class.body {
        match stmt {
            Stmt::FunctionDef(f) if f.name.as_str() == "__init__" => info.own_init = true,
            // Fields after `_: KW_ONLY` are keyword-only: left unplaced.
            Stmt::AnnAssign(a) if names(&a.annotation, "KW_ONLY") => break,
            Stmt::AnnAssign(a) => {
                if let Some(name) = init_field(a) {
                    info.fields.push(name.to_string());
                }
            }
            _ => {}
        }
    }
    info
}

/// Adds the names `body` binds in its own scope to `names`: those of `def`, `class`,
/// assignments and imports, also in the blocks of `if`, `for`, `while`, `with` and
/// `try` (not in nested functions or classes).
fn bound_in(body: &[Stmt], names: &mut FastSet<String>) {
    fn target(expr: &Expr, names: &mut FastSet<String>) {
        match expr {
            Expr::Name(n) => {
                names.insert(n.id.to_string());
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| target(e, names)),
            Expr::List(l) => l.elts.iter().for_each(|e| target(e, names)),
            Expr::Starred(s) => target(&s.value, names),
            _ => {}
        }
    }
    for stmt in body {
        match stmt {
            Stmt::FunctionDef(f) => {
                names.insert(f.name.to_string());
            }
            Stmt::AsyncFunctionDef(f) => {
                names.insert(f.name.to_string());
            }
            Stmt::ClassDef(c) => {
                names.insert(c.name.to_string());
            }
            Stmt::Assign(a) => a.targets.iter().for_each(|t| target(t, names)),
            Stmt::AnnAssign(a) => target(&a.target, names),
            Stmt::Import(i) => names.extend(i.names.iter().map(|a| {
                let name = a.asname.as_ref().unwrap_or(&a.name);
                name.split('.').next().unwrap_or_default().to_string()
            })),
            Stmt::ImportFrom(i) => names.extend(
                i.names
                    .iter()
                    .map(|a| a.asname.as_ref().unwrap_or(&a.name).to_string()),
            ),
            Stmt::If(s) => {
                bound_in(&s.body, names);
                bound_in(&s.orelse, names);
            }
            Stmt::For(s) => {
                target(&s.target, names);
                bound_in(&s.body, names);
                bound_in(&s.orelse, names);
            }
            Stmt::AsyncFor(s) => {
                target(&s.target, names);
                bound_in(&s.body, names);
                bound_in(&s.orelse, names);
            }
            Stmt::While(s) => {
                bound_in(&s.body, names);
                bound_in(&s.orelse, names);
            }
            Stmt::With(s) => bound_in(&s.body, names),
            Stmt::AsyncWith(s) => bound_in(&s.body, names),
            Stmt::Try(s) => {
                bound_in(&s.body, names);
                s.handlers.iter().for_each(|h| {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    bound_in(&h.body, names);
                });
                bound_in(&s.orelse, names);
                bound_in(&s.finalbody, names);
            }
            _ => {}
        }
    }
}

/// `dataclass` or `dataclasses.dataclass`.
fn is_dataclass_name(expr: &Expr) -> bool {
    match expr {
        Expr::Name(n) => n.id.as_str() == "dataclass",
        Expr::Attribute(a) => {
            a.attr.as_str() == "dataclass"
                && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "dataclasses")
        }
        _ => false,
    }
}

/// The name of the `__init__` parameter a class-body annotation makes in a dataclass:
/// not a `ClassVar`, nor `field(init=False)`.
pub fn init_field(ann: &ast::StmtAnnAssign) -> Option<&str> {
    let Expr::Name(target) = &*ann.target else {
        return None;
    };
    if names(&ann.annotation, "ClassVar") || names(&ann.annotation, "KW_ONLY") {
        return None;
    }
    let no_init = matches!(ann.value.as_deref(), Some(Expr::Call(call))
        if call.keywords.iter().any(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "init")
            && matches!(&k.value, Expr::Constant(c) if matches!(c.value, ast::Constant::Bool(false)))));
    (!no_init).then_some(target.id.as_str())
}

/// Whether an annotation is `name`, `….name` or either subscripted (`ClassVar[int]`).
fn names(annotation: &Expr, name: &str) -> bool {
    let named = |e: &Expr| match e {
        Expr::Name(n) => n.id.as_str() == name,
        Expr::Attribute(a) => a.attr.as_str() == name,
        _ => false,
    };
    match annotation {
        Expr::Subscript(s) => named(&s.value),
        other => named(other),
    }
}
