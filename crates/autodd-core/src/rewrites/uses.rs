//! `remove-with-uses`: removes a definition together with every statement that reads
//! the name it binds, and, in turn, the readers of what those statements define. A
//! read in an item of a list, tuple or set display or in a dict entry takes only that
//! item: `shapes = [Square(2), Circle(1)]` loses `Square(2)` with `class Square`.
//!
//! `stmt-remover` alone cannot remove a `def` whose call is still there (the call
//! fails with a `NameError`), nor the call before the `def` (each is a candidate of
//! its own): on a program of 2,000 functions, each called once, groups of removed
//! statements almost always held a `def` without its call and failed, and the search
//! fell back to one statement per candidate. A `def` with its calls, a class with
//! its subclasses and their instances, a method with the calls of it go in one.
//!
//! Names are matched by their text, without resolving scopes: a name bound more than
//! once anywhere in the module has no site, and a read of a different variable of the
//! same name only makes the candidate remove more, which the oracle then judges.

use crate::hash::{FastMap, FastSet};
use crate::parse::ast::{self, Expr, Stmt};

/// A statement's reads can take along at most this many statements: beyond that a
/// definition is used all over the program, and removing it with them is a
/// candidate that almost surely fails.
pub const MAX_USES: usize = 64;

/// What the traversal learns about names, for [`UseIndex::closures`].
#[derive(Debug, Default)]
pub struct UseIndex {
    /// How many times each name is bound: `def`/`class` names, name targets,
    /// imports, parameters.
    bindings: FastMap<String, u32>,
    /// For each name, where it is read: the innermost display item or dict entry, or
    /// else statement, holding the read (one entry per read).
    name_reads: FastMap<String, Vec<u32>>,
    /// For each attribute name, the innermost statements reading `….attr`.
    attr_reads: FastMap<String, Vec<u32>>,
    /// Attribute names assigned somewhere (`self.attr = …`).
    attr_stores: FastSet<String>,
    /// Names and attribute names read inside frozen code.
    frozen_reads: FastSet<String>,
    /// Statements that define one name, in order: (id, name, whether in a class body).
    definitions: Vec<(u32, String, bool)>,
    /// The name each defining statement binds, by id.
    defines: FastMap<u32, (String, bool)>,
    /// Statements that must stay: frozen ones and those enclosing frozen code.
    untouchable: FastSet<u32>,
}

impl UseIndex {
    pub fn bind(&mut self, name: &str) {
        *self.bindings.entry(name.to_string()).or_default() += 1;
    }

    pub fn read(&mut self, name: &str, statement: u32, frozen: bool) {
        Self::note(
            &mut self.name_reads,
            &mut self.frozen_reads,
            name,
            statement,
            frozen,
        );
    }

    pub fn read_attr(&mut self, attr: &str, statement: u32, frozen: bool) {
        Self::note(
            &mut self.attr_reads,
            &mut self.frozen_reads,
            attr,
            statement,
            frozen,
        );
    }

    /// Records a read of `name` in `reads`, and in `frozen_reads` when it is in frozen code.
    fn note(
        reads: &mut FastMap<String, Vec<u32>>,
        frozen_reads: &mut FastSet<String>,
        name: &str,
        statement: u32,
        frozen: bool,
    ) {
        if frozen {
            frozen_reads.insert(name.to_string());
        }
        reads.entry(name.to_string()).or_default().push(statement);
    }

    pub fn store_attr(&mut self, attr: &str) {
        self.attr_stores.insert(attr.to_string());
    }

    /// Statement `id` defines `name` (directly in a class body when `member`).
    pub fn define(&mut self, id: u32, name: &str, member: bool) {
        self.definitions.push((id, name.to_string(), member));
        self.defines.insert(id, (name.to_string(), member));
    }

    pub fn keep(&mut self, id: u32) {
        self.untouchable.insert(id);
    }

    /// The statements that read what `name` binds, or `None` when the name cannot go
    /// with its reads: bound more than once, read in frozen code, or (a class
    /// member) a dunder the language calls implicitly or an attribute also assigned.
    fn readers(&self, name: &str, member: bool) -> Option<Vec<u32>> {
        if self.bindings.get(name).copied().unwrap_or(0) != 1 || self.frozen_reads.contains(name) {
            return None;
        }
        let mut readers = self.name_reads.get(name).cloned().unwrap_or_default();
        if member {
            if name.starts_with("__") && name.ends_with("__") || self.attr_stores.contains(name) {
                return None;
            }
            readers.extend(self.attr_reads.get(name).into_iter().flatten());
        }
        Some(readers)
    }

    /// For each definition that some statement reads, the statements removed with it:
    /// its readers, the readers of the names those define, and so on, at most
    /// [`MAX_USES`]. Definitions that are read nowhere have none (`stmt-remover`
    /// removes them alone).
    pub fn closures(&self) -> Vec<(u32, Vec<u32>)> {
        let mut out = Vec::new();
        for (id, name, member) in &self.definitions {
            if self.untouchable.contains(id) {
                continue;
            }
            match self.readers(name, *member) {
                Some(first) if !first.is_empty() => {
                    if let Some(uses) = self.closure(*id, first) {
                        out.push((*id, uses));
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn closure(&self, id: u32, first: Vec<u32>) -> Option<Vec<u32>> {
        let mut seen: FastSet<u32> = FastSet::default();
        seen.insert(id);
        let mut queue = first;
        let mut uses = Vec::new();
        while let Some(statement) = queue.pop() {
            if !seen.insert(statement) {
                continue;
            }
            if self.untouchable.contains(&statement) || uses.len() == MAX_USES {
                return None;
            }
            uses.push(statement);
            if let Some((name, member)) = self.defines.get(&statement) {
                // What a removed statement defines goes too; a name bound elsewhere
                // as well stays bound, and its reads stay; frozen code must keep
                // what it reads.
                if self.frozen_reads.contains(name) {
                    return None;
                }
                if let Some(more) = self.readers(name, *member) {
                    queue.extend(more);
                }
            }
        }
        uses.sort_unstable();
        Some(uses)
    }
}

/// The one name `stmt` defines, if it defines exactly one: a `def` or `class`, an
/// assignment to a single name, an import of a single name.
pub fn bound_name(stmt: &Stmt) -> Option<&str> {
    match stmt {
        Stmt::FunctionDef(s) => Some(s.name.as_str()),
        Stmt::AsyncFunctionDef(s) => Some(s.name.as_str()),
        Stmt::ClassDef(s) => Some(s.name.as_str()),
        Stmt::Assign(s) => match &s.targets[..] {
            [Expr::Name(n)] => Some(n.id.as_str()),
            _ => None,
        },
        Stmt::AnnAssign(s) => match &*s.target {
            Expr::Name(n) => Some(n.id.as_str()),
            _ => None,
        },
        Stmt::Import(ast::StmtImport { names, .. })
        | Stmt::ImportFrom(ast::StmtImportFrom { names, .. }) => match &names[..] {
            [alias] if alias.name.as_str() != "*" => Some(alias_name(alias)),
            _ => None,
        },
        _ => None,
    }
}

/// The name an import binds: `np` for `import numpy as np`, `os` for `import os.path`.
pub fn alias_name(alias: &ast::Alias) -> &str {
    match &alias.asname {
        Some(asname) => asname.as_str(),
        None => alias.name.as_str().split('.').next().unwrap_or(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_takes_its_readers_and_theirs() {
        let mut index = UseIndex::default();
        // class A (1), class B(A) (2), b = B() (3), print(b) (4)
        for (id, name) in [(1, "A"), (2, "B"), (3, "b")] {
            index.bind(name);
            index.define(id, name, false);
        }
        index.read("A", 2, false);
        index.read("B", 3, false);
        index.read("b", 4, false);
        let closures: FastMap<u32, Vec<u32>> = index.closures().into_iter().collect();
        assert_eq!(closures[&1], vec![2, 3, 4]);
        assert_eq!(closures[&3], vec![4]);
    }

    #[test]
    fn no_site_for_names_bound_twice_read_when_frozen_or_used_everywhere() {
        let mut index = UseIndex::default();
        index.bind("f");
        index.bind("f");
        index.define(1, "f", false);
        index.read("f", 2, false);
        index.bind("g");
        index.define(3, "g", false);
        index.read("g", 4, true);
        index.bind("h");
        index.define(5, "h", false);
        for id in 0..=MAX_USES as u32 {
            index.read("h", 100 + id, false);
        }
        index.bind("k");
        index.define(6, "k", false);
        index.read("k", 7, false);
        index.keep(7);
        // `m`'s reader defines `n`, which frozen code reads.
        index.bind("m");
        index.define(8, "m", false);
        index.read("m", 9, false);
        index.bind("n");
        index.define(9, "n", false);
        index.read("n", 10, true);
        assert!(index.closures().is_empty());
    }

    #[test]
    fn members_are_read_as_attributes_but_dunders_and_assigned_ones_stay() {
        let mut index = UseIndex::default();
        for (id, name) in [(1, "area"), (2, "__len__"), (3, "size")] {
            index.bind(name);
            index.define(id, name, true);
            index.read_attr(name, 10 + id, false);
        }
        index.store_attr("size");
        assert_eq!(index.closures(), vec![(1, vec![11])]);
    }
}
