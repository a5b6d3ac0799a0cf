//! WebAssembly bindings of autodd-core: the step API as a JS `Reducer` class and the
//! one-shot helpers as free functions. This crate only converts values; every
//! decision is the core's. Errors reach JS as `Error`s carrying a stable `code`
//! (and `line`/`column` for a syntax error), never as panics.

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

mod types;

use types::{JsCandidate, JsReducerOptions, JsSites, JsStats};

/// Installs the panic hook so that a bug in the engine shows its message on the
/// console instead of a bare `unreachable` trap.
#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// A reduction in progress. Drive it with `nextCandidate()` → run the program →
/// `report(id, interesting, hung)` until `isDone()`; call `free()` when finished.
#[wasm_bindgen]
pub struct Reducer {
    inner: autodd_core::Reducer,
}

#[wasm_bindgen]
impl Reducer {
    /// Parses and freeze-preprocesses `source`. Throws an `AutoddError` for a syntax
    /// error, an empty program or bad options.
    #[wasm_bindgen(constructor)]
    pub fn new(source: &str, options: Option<JsReducerOptions>) -> Result<Reducer, JsValue> {
        let options = match options {
            Some(value) if !value.is_null() && !value.is_undefined() => {
                serde_wasm_bindgen::from_value(value.into()).map_err(|e| {
                    code_error("invalid-argument", &format!("invalid reducer options: {e}"))
                })?
            }
            _ => autodd_core::Options::default(),
        };
        let inner = autodd_core::Reducer::new(source, options).map_err(core_error)?;
        Ok(Reducer { inner })
    }

    /// The next program to try, or `undefined` when nothing is left to propose until
    /// the candidates in flight are reported.
    #[wasm_bindgen(js_name = nextCandidate)]
    pub fn next_candidate(&mut self) -> Result<Option<JsCandidate>, JsValue> {
        match self.inner.next_candidate() {
            Some(candidate) => Ok(Some(
                to_js::<types::Candidate>(candidate.into())?.unchecked_into(),
            )),
            None => Ok(None),
        }
    }

    /// The verdict for candidate `id`; returns whether it was accepted (it is the new
    /// best). `hung`: an uninteresting run that ran out of time or was stuck (the
    /// engine then avoids that rewrite in later rounds). Reports of stale or unknown
    /// ids are ignored (and return false); an id that is not a non-negative integer
    /// throws `invalid-argument`.
    pub fn report(
        &mut self,
        id: f64,
        interesting: bool,
        hung: Option<bool>,
    ) -> Result<bool, JsValue> {
        let id = candidate_id(id)?;
        if hung == Some(true) && !interesting {
            self.inner.report_hung(id);
            return Ok(false);
        }
        Ok(self.inner.report(id, interesting))
    }

    /// A copy of this reduction as it will be once the candidates `failed` are
    /// reported uninteresting and then `accepted` (if given) interesting: propose
    /// from it while one of `failed` still runs (behind a success, or at a phase's
    /// end, where `nextCandidate` waits for every verdict). If they all fail, `adopt`
    /// the copy; if one succeeds, free the copy and report here as usual. Ids never
    /// repeat between the two. `undefined` if `accepted` is not out.
    pub fn speculate(
        &mut self,
        failed: Vec<f64>,
        accepted: Option<f64>,
    ) -> Result<Option<Reducer>, JsValue> {
        let failed = failed
            .into_iter()
            .map(candidate_id)
            .collect::<Result<Vec<_>, _>>()?;
        let accepted = accepted.map(candidate_id).transpose()?;
        let copy = self.inner.speculate(&failed, accepted);
        Ok(copy.map(|inner| Reducer { inner }))
    }

    /// Goes on as `copy`, a copy from `speculate` whose assumptions all held; `copy`
    /// is consumed.
    pub fn adopt(&mut self, copy: Reducer) {
        self.inner.adopt(copy.inner);
    }

    /// The current best program (the smallest interesting one once done).
    pub fn best(&self) -> String {
        self.inner.best().to_string()
    }

    /// Whether the reduction is over.
    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.inner.is_done()
    }

    /// Counters and sizes so far.
    pub fn stats(&self) -> Result<JsStats, JsValue> {
        Ok(to_js::<types::Stats>(self.inner.stats().into())?.unchecked_into())
    }

    /// Messages for the user about the input (e.g. an unterminated freeze block).
    pub fn warnings(&self) -> Vec<String> {
        self.inner.warnings().to_vec()
    }
}

/// Parses then prints `source`: how autodd prints the program.
#[wasm_bindgen]
pub fn normalize(source: &str) -> Result<String, JsValue> {
    autodd_core::normalize(source).map_err(core_error)
}

/// Module names of the module-level imports of `source`, deduplicated in order.
#[wasm_bindgen(js_name = topLevelImports)]
pub fn top_level_imports(source: &str) -> Result<Vec<String>, JsValue> {
    autodd_core::top_level_imports(source).map_err(core_error)
}

/// Removes freeze markers from a reduced program.
#[wasm_bindgen(js_name = stripFreeze)]
pub fn strip_freeze(source: &str) -> Result<String, JsValue> {
    autodd_core::strip_freeze(source).map_err(core_error)
}

/// The user-visible names of every rewrite, in schedule order.
#[wasm_bindgen(js_name = rewriteNames)]
pub fn rewrite_names() -> Vec<String> {
    autodd_core::rewrite_names()
        .into_iter()
        .map(String::from)
        .collect()
}

/// Every site of `rewrite` in `source`.
#[wasm_bindgen(js_name = listSites)]
pub fn list_sites(source: &str, rewrite: &str) -> Result<JsSites, JsValue> {
    let sites: Vec<types::Site> = autodd_core::list_sites(source, rewrite)
        .map_err(core_error)?
        .into_iter()
        .map(types::Site::from)
        .collect();
    Ok(to_js(sites)?.unchecked_into())
}

/// `source` with the single site `index` of `rewrite` applied.
#[wasm_bindgen(js_name = applySite)]
pub fn apply_site(source: &str, rewrite: &str, index: u32) -> Result<String, JsValue> {
    autodd_core::apply_site(source, rewrite, index as usize).map_err(core_error)
}

/// A candidate id from JS: a non-negative integer below 2^53 (beyond it a JS number
/// no longer names one id).
fn candidate_id(id: f64) -> Result<u64, JsValue> {
    const MAX_SAFE: f64 = 9_007_199_254_740_992.0;
    if (0.0..MAX_SAFE).contains(&id) && id.fract() == 0.0 {
        Ok(id as u64)
    } else {
        Err(code_error(
            "invalid-argument",
            &format!("invalid candidate id {id}"),
        ))
    }
}

fn to_js<T: Serialize>(value: T) -> Result<JsValue, JsValue> {
    serde_wasm_bindgen::to_value(&value)
        .map_err(|e| code_error("internal", &format!("cannot convert a value for JS: {e}")))
}

/// A core error as a JS `Error` with `code`, and `line`/`column` (UTF-16) when known.
fn core_error(e: autodd_core::Error) -> JsValue {
    let message = match (e.line, e.column_utf16) {
        (Some(line), Some(column)) => format!("{} at line {line}, column {column}", e.message),
        _ => e.message.clone(),
    };
    let err = code_error(e.code.as_str(), &message);
    if let Some(line) = e.line {
        set(&err, "line", line.into());
    }
    if let Some(column) = e.column_utf16 {
        set(&err, "column", column.into());
    }
    err
}

fn code_error(code: &str, message: &str) -> JsValue {
    let err: JsValue = js_sys::Error::new(message).into();
    set(&err, "code", code.into());
    err
}

fn set(target: &JsValue, key: &str, value: JsValue) {
    // Setting a property on a fresh, unfrozen Error cannot fail; if it somehow did,
    // the error is still thrown, just with less detail.
    let _ = js_sys::Reflect::set(target, &key.into(), &value);
}
