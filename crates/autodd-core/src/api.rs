//! One-shot helpers for hosts: normalize a program, list its imports, strip freeze
//! markers from a result, and the pass playground's site listing and application.

use rustpython_ast::text_size::TextRange;
use serde::Serialize;

use crate::apply::apply_sites;
use crate::clean::clean_module;
use crate::error::{Error, ErrorCode};
use crate::freeze;
use crate::parse::{self, ast::Stmt, LineIndex, Position};
use crate::rewrites::{Rewrite, RewriteSet};
use crate::sites::{find_sites, SiteMap};
use crate::unparse::{unparse_module_written, Written};

/// A place where one rewrite applies, for the playground.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteInfo {
    /// Index to pass to [`apply_site`].
    pub index: usize,
    /// The rewrite's user-visible name.
    pub rewrite: String,
    /// Start of the node the rewrite changes, in the normalized program.
    pub start: Position,
    /// End of that node (exclusive).
    pub end: Position,
}

/// The program as autodd starts from it: parsed, freeze comments turned into
/// `with __freeze__:` blocks (with the import added), cleaned and printed.
pub fn normalize(source: &str) -> Result<String, Error> {
    let (mut body, _) = freeze::preprocess(source)?;
    clean_module(&mut body);
    Ok(print_as_written(source, &mut body))
}

/// `body`, parsed from `source`, printed with its literals as `source` writes them.
fn print_as_written(source: &str, body: &mut [Stmt]) -> String {
    let written = Written::of(source, body);
    unparse_module_written(body, &written)
}

/// Module names of the module-level imports of `source` (`import a.b` gives `a.b`,
/// `from x.y import z` gives `x.y`; relative imports are skipped), deduplicated in
/// order. Imports inside top-level `if` and `try` blocks count too (`try: import numpy`).
pub fn top_level_imports(source: &str) -> Result<Vec<String>, Error> {
    let body = parse::parse_module(source)?;
    let mut names = Vec::new();
    collect_imports(&body, &mut names);
    Ok(names)
}

fn collect_imports(body: &[Stmt], names: &mut Vec<String>) {
    let mut add = |name: &str| {
        if !name.is_empty() && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    };
    let mut nested = Vec::new();
    for stmt in body {
        match stmt {
            Stmt::Import(i) => i.names.iter().for_each(|a| add(a.name.as_str())),
            Stmt::ImportFrom(i) if i.level.is_none_or(|l| l.to_u32() == 0) => {
                if let Some(m) = &i.module {
                    add(m.as_str());
                }
            }
            Stmt::If(_) | Stmt::Try(_) => nested.push(stmt),
            _ => {}
        }
    }
    for stmt in nested {
        for b in freeze::child_bodies(stmt) {
            collect_imports(b, names);
        }
    }
}

/// Removes freeze markers from a reduced program: `with __freeze__:` becomes its body,
/// `__freeze__(x)` becomes `x`, and the `__freeze__` import goes.
pub fn strip_freeze(source: &str) -> Result<String, Error> {
    let mut body = parse::parse_module(source)?;
    freeze::strip(&mut body);
    clean_module(&mut body);
    Ok(print_as_written(source, &mut body))
}

/// The user-visible names of every rewrite, in schedule order.
pub fn rewrite_names() -> Vec<&'static str> {
    Rewrite::ALL.iter().map(|r| r.name()).collect()
}

fn rewrite_named(name: &str) -> Result<Rewrite, Error> {
    Rewrite::from_name(name).ok_or_else(|| {
        Error::new(
            ErrorCode::UnknownRewrite,
            format!("unknown rewrite `{name}`"),
        )
    })
}

/// The normalized program re-parsed (so node ranges point into it) and its sites.
fn normalized_sites(source: &str, rewrite: Rewrite) -> Result<(String, Vec<Stmt>, SiteMap), Error> {
    let text = normalize(source)?;
    let body = parse::parse_module(&text)?;
    let map = find_sites(&body, RewriteSet::of(&[rewrite]), false, &[]);
    Ok((text, body, map))
}

/// Every site of `rewrite` in the normalized form of `source` (see [`normalize`]);
/// positions refer to that normalized text. Frozen code has no sites.
pub fn list_sites(source: &str, rewrite: &str) -> Result<Vec<SiteInfo>, Error> {
    let rewrite = rewrite_named(rewrite)?;
    let (text, _, map) = normalized_sites(source, rewrite)?;
    let index = LineIndex::new(&text);
    let at = |range: TextRange| {
        (
            index.position(&text, u32::from(range.start()) as usize),
            index.position(&text, u32::from(range.end()) as usize),
        )
    };
    Ok(map
        .sites
        .iter()
        .enumerate()
        .map(|(i, site)| {
            let (start, end) = at(map.ranges[site.node as usize]);
            SiteInfo {
                index: i,
                rewrite: rewrite.name().to_string(),
                start,
                end,
            }
        })
        .collect())
}

/// The normalized form of `source` with the single site `index` of `rewrite`
/// applied, then cleaned and printed.
pub fn apply_site(source: &str, rewrite: &str, index: usize) -> Result<String, Error> {
    let rewrite = rewrite_named(rewrite)?;
    let (text, mut body, map) = normalized_sites(source, rewrite)?;
    let Some(site) = map.sites.get(index).copied() else {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "`{}` has {} sites; there is no site {index}",
                rewrite.name(),
                map.sites.len()
            ),
        ));
    };
    let written = Written::of(&text, &mut body);
    apply_sites(&mut body, &map, &[site]);
    clean_module(&mut body);
    Ok(unparse_module_written(&body, &written))
}
