//! One-shot helpers for hosts: normalize a program, list its imports, strip freeze
//! markers from a result, and the pass playground's site listing and application.

use serde::Serialize;

use crate::error::Error;

/// A place where one rewrite applies, for the playground.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteInfo {
    /// Index to pass to [`apply_site`].
    pub index: usize,
    /// The rewrite's user-visible name.
    pub rewrite: String,
    /// 1-based start and end positions of the node the rewrite replaces (end exclusive).
    pub start: crate::parse::Position,
    pub end: crate::parse::Position,
}

/// Parses then prints `source`: how autodd prints the program.
pub fn normalize(source: &str) -> Result<String, Error> {
    Ok(source.to_string())
}

/// Module names of the module-level imports of `source` (`import a.b` gives `a.b`,
/// `from x.y import z` gives `x.y`; relative imports are skipped), deduplicated in order.
pub fn top_level_imports(source: &str) -> Result<Vec<String>, Error> {
    let _ = source;
    Ok(Vec::new())
}

/// Removes freeze markers from a reduced program: `with __freeze__:` becomes its body,
/// `__freeze__(x)` becomes `x`, and the `__freeze__` import goes.
pub fn strip_freeze(source: &str) -> Result<String, Error> {
    Ok(source.to_string())
}

/// The user-visible names of every rewrite, in schedule order.
pub fn rewrite_names() -> Vec<&'static str> {
    Vec::new()
}

/// Every site of `rewrite` in `source` (after freeze preprocessing, so frozen code has none).
pub fn list_sites(source: &str, rewrite: &str) -> Result<Vec<SiteInfo>, Error> {
    let _ = (source, rewrite);
    Ok(Vec::new())
}

/// `source` (normalized) with the single site `index` of `rewrite` applied and cleaned.
pub fn apply_site(source: &str, rewrite: &str, index: usize) -> Result<String, Error> {
    let _ = (rewrite, index);
    Ok(source.to_string())
}
