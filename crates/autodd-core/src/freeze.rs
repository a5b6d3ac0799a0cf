//! Frozen code: what users mark as untouchable, in four forms.
//!
//! - `with __freeze__:` protects its body;
//! - `__freeze__(expr)` protects the expression;
//! - `# autodd: freeze` protects the statement it is on (any line of it), or, alone on
//!   a line, the statement that follows;
//! - `# autodd: freeze-start` … `# autodd: end-freeze` protects the statements between.
//!
//! Comment markers become `with __freeze__:` blocks before reduction, so they survive
//! printing, and `from autodd import __freeze__` is added where it is missing.

use std::collections::HashSet;

use rustpython_ast::Ranged;

use crate::error::Error;
use crate::parse::ast::{Expr, Stmt};
use crate::parse::{self, ast, LineIndex};
use crate::rewrites::make;
use crate::walk::{self, ListKind, VisitorMut};

const FREEZE: &str = "__freeze__";
/// Modules whose `__freeze__` import is recognized (ours and the earlier tool's).
const FREEZE_MODULES: [&str; 2] = ["autodd", "tilelang.autodd"];

/// `with __freeze__:` with a single item and no `as`.
pub fn is_freeze_with(stmt: &Stmt) -> bool {
    matches!(stmt, Stmt::With(w) if w.items.len() == 1
        && w.items[0].optional_vars.is_none()
        && matches!(&w.items[0].context_expr, Expr::Name(n) if n.id.as_str() == FREEZE))
}

/// A call `__freeze__(...)`.
pub fn is_freeze_call(expr: &Expr) -> bool {
    matches!(expr, Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == FREEZE))
}

/// `from autodd import __freeze__` or `from tilelang.autodd import __freeze__`.
pub fn is_freeze_import(stmt: &Stmt) -> bool {
    matches!(stmt, Stmt::ImportFrom(i)
        if i.level.is_none_or(|l| l.to_u32() == 0)
        && i.module.as_ref().is_some_and(|m| FREEZE_MODULES.contains(&m.as_str()))
        && i.names.iter().any(|a| a.name.as_str() == FREEZE))
}

/// Parses `source` and turns its freeze comments into `with __freeze__:` blocks.
/// Returns the module and warnings about markers that could not be honoured as written.
pub fn preprocess(source: &str) -> Result<(Vec<Stmt>, Vec<String>), Error> {
    let mut body = parse::parse_module(source)?;
    let mut warnings = Vec::new();
    let index = LineIndex::new(source);
    let lines = Lines {
        index: &index,
        source,
    };
    let mut marks = HashSet::new();
    let mut open: Vec<(u32, u32)> = Vec::new();

    // Finding comments takes a second pass of the parser: only when a marker may be there.
    let comments = if source.to_ascii_lowercase().contains("autodd") {
        parse::comments(source)
    } else {
        Vec::new()
    };
    for comment in comments {
        let line = comment.line;
        let Some(marker) = Marker::parse(&comment.text) else {
            if Marker::near_miss(&comment.text) {
                warnings.push(format!(
                    "line {line}: `{}` is not a freeze marker (`# autodd: freeze`, \
                     `# autodd: freeze-start`, `# autodd: end-freeze`); ignored",
                    comment.text.trim()
                ));
            }
            continue;
        };
        match marker {
            Marker::Line => {
                let line_text = source.lines().nth(line as usize - 1).unwrap_or("");
                let standalone = line_text.trim_start().starts_with('#');
                let target = if standalone {
                    lines.first_after(&body, line, None)
                } else {
                    lines.innermost(&body, line, &mut marks);
                    continue;
                };
                match target {
                    Some(offset) => {
                        marks.insert(offset);
                    }
                    None => warnings.push(format!(
                        "line {line}: `# autodd: freeze` is followed by no statement; ignored"
                    )),
                }
            }
            Marker::Start => open.push((line, comment.column)),
            Marker::End => match open.pop() {
                Some((start, _)) => lines.between(&body, start, line, &mut marks),
                None => warnings.push(format!(
                    "line {line}: `# autodd: end-freeze` has no `# autodd: freeze-start`; ignored"
                )),
            },
        }
    }
    for (start, column) in open {
        let target = lines
            .first_after(&body, start, Some(column))
            .or_else(|| lines.first_after(&body, start, None));
        match target {
            Some(offset) => {
                rest_of_block(&body, offset, &mut marks);
                warnings.push(format!(
                    "line {start}: `# autodd: freeze-start` has no `# autodd: end-freeze`; \
                     frozen to the end of its block"
                ));
            }
            None => warnings.push(format!(
                "line {start}: `# autodd: freeze-start` is followed by no statement; ignored"
            )),
        }
    }
    if !marks.is_empty() {
        for (offset, what) in unwrappable(&body, &marks) {
            marks.remove(&offset);
            let line = index.line(offset as usize);
            warnings.push(format!(
                "line {line}: {what} cannot be frozen (inside `with __freeze__:` it {}); \
                 it is reduced like unmarked code",
                if what == DOCSTRING {
                    "would be a plain string"
                } else {
                    "would no longer come first, a SyntaxError"
                }
            ));
        }
        wrap_marked(&mut body, &marks);
    }
    if uses_freeze(&mut body) && !body.iter().any(is_freeze_import) {
        insert_import(&mut body);
    }
    Ok((body, warnings))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Line,
    Start,
    End,
}

impl Marker {
    fn parse(comment: &str) -> Option<Marker> {
        let at = comment.find("autodd:")?;
        let word = comment[at + "autodd:".len()..].split_whitespace().next()?;
        match word {
            "freeze" => Some(Marker::Line),
            "freeze-start" => Some(Marker::Start),
            "end-freeze" => Some(Marker::End),
            _ => None,
        }
    }

    /// A comment that looks meant as a marker but is none: `# AUTODD: FREEZE`,
    /// `# autodd: freeze-end`, `# autodd : freeze`.
    fn near_miss(comment: &str) -> bool {
        let lower = comment.to_ascii_lowercase();
        lower
            .find("autodd")
            .is_some_and(|at| lower[at..].contains("freez") || lower[at..].contains("froz"))
    }
}

/// Line arithmetic over statements. Statements are keyed by their start offset,
/// which no two statements share.
struct Lines<'a> {
    index: &'a LineIndex,
    source: &'a str,
}

impl Lines<'_> {
    fn span(&self, stmt: &Stmt) -> (u32, u32) {
        let decorators = match stmt {
            Stmt::FunctionDef(s) => s.decorator_list.first(),
            Stmt::AsyncFunctionDef(s) => s.decorator_list.first(),
            Stmt::ClassDef(s) => s.decorator_list.first(),
            _ => None,
        };
        let start = decorators.map_or(stmt.start(), |d| d.start().min(stmt.start()));
        let end = stmt.end();
        let end = if end > start {
            end - rustpython_ast::text_size::TextSize::from(1)
        } else {
            end
        };
        (
            self.index.line(u32::from(start) as usize),
            self.index.line(u32::from(end) as usize),
        )
    }

    fn column(&self, stmt: &Stmt) -> u32 {
        self.index
            .position(self.source, u32::from(stmt.start()) as usize)
            .column
    }

    /// Marks the innermost statements on `line` (all of them, for `a; b  # ...`); on a
    /// compound statement's header, the compound statement, even when its body is on
    /// that line too (`if c: f()  # ...`).
    fn innermost(&self, body: &[Stmt], line: u32, marks: &mut HashSet<u32>) -> bool {
        let mut found = false;
        for stmt in body {
            let (start, end) = self.span(stmt);
            if start <= line && line <= end {
                found = true;
                let header = self.index.line(u32::from(stmt.start()) as usize) == line;
                let inner = !header
                    && child_bodies(stmt)
                        .into_iter()
                        .any(|b| self.innermost(b, line, marks));
                if !inner {
                    marks.insert(u32::from(stmt.start()));
                }
            }
        }
        found
    }

    /// The first statement, in source order, that starts on a line after `line`
    /// (and at `column`, when given).
    fn first_after(&self, body: &[Stmt], line: u32, column: Option<u32>) -> Option<u32> {
        for stmt in body {
            let (start, end) = self.span(stmt);
            if start > line && column.is_none_or(|c| self.column(stmt) == c) {
                return Some(u32::from(stmt.start()));
            }
            if end > line {
                for b in child_bodies(stmt) {
                    if let Some(found) = self.first_after(b, line, column) {
                        return Some(found);
                    }
                }
            }
        }
        None
    }

    /// Marks the outermost statements lying wholly between lines `after` and `before`.
    fn between(&self, body: &[Stmt], after: u32, before: u32, marks: &mut HashSet<u32>) {
        for stmt in body {
            let (start, end) = self.span(stmt);
            if start > after && end < before {
                marks.insert(u32::from(stmt.start()));
            } else if start <= before && end >= after {
                for b in child_bodies(stmt) {
                    self.between(b, after, before, marks);
                }
            }
        }
    }
}

/// Marks the statement starting at `offset` and all that follow it in its body.
fn rest_of_block(body: &[Stmt], offset: u32, marks: &mut HashSet<u32>) -> bool {
    if let Some(i) = body.iter().position(|s| u32::from(s.start()) == offset) {
        marks.extend(body[i..].iter().map(|s| u32::from(s.start())));
        return true;
    }
    body.iter().any(|s| {
        child_bodies(s)
            .into_iter()
            .any(|b| rest_of_block(b, offset, marks))
    })
}

/// The statement bodies directly inside a statement.
pub(crate) fn child_bodies(stmt: &Stmt) -> Vec<&Vec<Stmt>> {
    match stmt {
        Stmt::FunctionDef(s) => vec![&s.body],
        Stmt::AsyncFunctionDef(s) => vec![&s.body],
        Stmt::ClassDef(s) => vec![&s.body],
        Stmt::For(s) => vec![&s.body, &s.orelse],
        Stmt::AsyncFor(s) => vec![&s.body, &s.orelse],
        Stmt::While(s) => vec![&s.body, &s.orelse],
        Stmt::If(s) => vec![&s.body, &s.orelse],
        Stmt::With(s) => vec![&s.body],
        Stmt::AsyncWith(s) => vec![&s.body],
        Stmt::Match(s) => s.cases.iter().map(|c| &c.body).collect(),
        Stmt::Try(s) => {
            let mut v = vec![&s.body];
            v.extend(
                s.handlers
                    .iter()
                    .map(|ast::ExceptHandler::ExceptHandler(h)| &h.body),
            );
            v.push(&s.orelse);
            v.push(&s.finalbody);
            v
        }
        Stmt::TryStar(s) => {
            let mut v = vec![&s.body];
            v.extend(
                s.handlers
                    .iter()
                    .map(|ast::ExceptHandler::ExceptHandler(h)| &h.body),
            );
            v.push(&s.orelse);
            v.push(&s.finalbody);
            v
        }
        _ => Vec::new(),
    }
}

fn freeze_block(body: Vec<Stmt>) -> Stmt {
    Stmt::With(ast::StmtWith {
        range: Default::default(),
        items: vec![ast::WithItem {
            range: Default::default(),
            context_expr: make::name(FREEZE, ast::ExprContext::Load),
            optional_vars: None,
        }],
        body,
        type_comment: None,
    })
}

const DOCSTRING: &str = "a docstring";

/// The marked statements that a `with __freeze__:` would change the meaning of: a
/// docstring (a body's first string) and a `from __future__` import. Sorted by offset.
fn unwrappable(body: &[Stmt], marks: &HashSet<u32>) -> Vec<(u32, &'static str)> {
    /// `documented`: a module's, function's or class's body, whose first string is its
    /// docstring.
    fn visit(
        body: &[Stmt],
        documented: bool,
        marks: &HashSet<u32>,
        found: &mut Vec<(u32, &'static str)>,
    ) {
        for (i, stmt) in body.iter().enumerate() {
            let offset = u32::from(stmt.start());
            let docstring = documented
                && i == 0
                && matches!(stmt, Stmt::Expr(e)
                    if matches!(&*e.value, Expr::Constant(c) if matches!(c.value, ast::Constant::Str(_))));
            let future = matches!(stmt, Stmt::ImportFrom(f)
                if f.module.as_ref().is_some_and(|m| m.as_str() == "__future__"));
            if marks.contains(&offset) && (docstring || future) {
                let what = if docstring {
                    DOCSTRING
                } else {
                    "a `from __future__` import"
                };
                found.push((offset, what));
            }
            let defines = matches!(
                stmt,
                Stmt::FunctionDef(_) | Stmt::AsyncFunctionDef(_) | Stmt::ClassDef(_)
            );
            for inner in child_bodies(stmt) {
                visit(inner, defines, marks, found);
            }
        }
    }
    let mut found = Vec::new();
    visit(body, true, marks, &mut found);
    found.sort_unstable();
    found
}

/// Wraps each run of consecutive marked statements in one `with __freeze__:`.
fn wrap_marked(body: &mut Vec<Stmt>, marks: &HashSet<u32>) {
    struct Wrapper<'a>(&'a HashSet<u32>);
    impl VisitorMut for Wrapper<'_> {
        fn body(&mut self, body: &mut Vec<Stmt>) {
            let old = std::mem::take(body);
            let mut run = Vec::new();
            for mut stmt in old {
                let marked = stmt.range() != Default::default()
                    && self.0.contains(&u32::from(stmt.start()))
                    && !is_freeze_with(&stmt);
                if marked {
                    run.push(stmt);
                    continue;
                }
                if !run.is_empty() {
                    body.push(freeze_block(std::mem::take(&mut run)));
                }
                self.stmt(&mut stmt);
                body.push(stmt);
            }
            if !run.is_empty() {
                body.push(freeze_block(run));
            }
        }
        fn expr(&mut self, _: &mut Expr) {}
    }
    Wrapper(marks).body(body);
}

/// Whether the module uses `__freeze__` in any form.
fn uses_freeze(body: &mut Vec<Stmt>) -> bool {
    struct Finder(bool);
    impl VisitorMut for Finder {
        fn stmt(&mut self, stmt: &mut Stmt) {
            self.0 |= is_freeze_with(stmt);
            walk::walk_stmt(self, stmt);
        }
        fn expr(&mut self, expr: &mut Expr) {
            self.0 |= is_freeze_call(expr);
            walk::walk_expr(self, expr);
        }
    }
    let mut f = Finder(false);
    f.body(body);
    f.0
}

/// Adds `from autodd import __freeze__` after the docstring and `__future__` imports.
fn insert_import(body: &mut Vec<Stmt>) {
    let mut at = 0;
    if matches!(body.first(), Some(Stmt::Expr(e))
        if matches!(&*e.value, Expr::Constant(c) if matches!(c.value, ast::Constant::Str(_))))
    {
        at = 1;
    }
    while matches!(body.get(at), Some(Stmt::ImportFrom(i))
        if i.module.as_ref().is_some_and(|m| m.as_str() == "__future__"))
    {
        at += 1;
    }
    let import = Stmt::ImportFrom(ast::StmtImportFrom {
        range: Default::default(),
        module: Some(ast::Identifier::new("autodd")),
        names: vec![ast::Alias {
            range: Default::default(),
            name: ast::Identifier::new(FREEZE),
            asname: None,
        }],
        level: Some(ast::Int::new(0)),
    });
    body.insert(at, import);
}

/// Removes freeze markers: `with __freeze__:` becomes its body, `__freeze__(x)`
/// becomes `x`, and the `__freeze__` import goes.
pub fn strip(body: &mut Vec<Stmt>) {
    struct Stripper;
    impl VisitorMut for Stripper {
        fn body(&mut self, body: &mut Vec<Stmt>) {
            let old = std::mem::take(body);
            for mut stmt in old {
                if is_freeze_import(&stmt) {
                    if let Stmt::ImportFrom(i) = &mut stmt {
                        i.names.retain(|a| a.name.as_str() != FREEZE);
                        if i.names.is_empty() {
                            continue;
                        }
                    }
                }
                self.stmt(&mut stmt);
                let unwrap = is_freeze_with(&stmt);
                match stmt {
                    Stmt::With(w) if unwrap => body.extend(w.body),
                    other => body.push(other),
                }
            }
        }
        fn expr(&mut self, expr: &mut Expr) {
            walk::walk_expr(self, expr);
            let unwrap = is_freeze_call(expr);
            if let Expr::Call(c) = expr {
                if unwrap && c.args.len() == 1 && c.keywords.is_empty() {
                    let inner = c.args.remove(0);
                    *expr = inner;
                }
            }
        }
        fn expr_list(&mut self, list: &mut Vec<Expr>, _: ListKind) {
            list.iter_mut().for_each(|e| self.expr(e));
        }
    }
    Stripper.body(body);
}
