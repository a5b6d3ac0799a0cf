//! WebAssembly bindings of autodd-core: the step API as a JS `Reducer` class and the
//! one-shot helpers as free functions. This crate only converts values; every
//! decision is the core's. Errors reach JS as `Error`s carrying a stable `code`
//! (and `line`/`column` for a syntax error), never as panics.

use serde::de::DeserializeOwned;
use serde::Serialize;
use tsify::Tsify;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use autodd_core::{Candidate, ErrorCode, Stats, Verdict};

mod types;

use types::{JsActions, JsSites};

/// Installs the panic hook so that a bug in the engine shows its message on the
/// console instead of a bare `unreachable` trap.
#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[wasm_bindgen]
extern "C" {
    /// `ReducerOptions | undefined` on the JS side.
    #[wasm_bindgen(typescript_type = "ReducerOptions")]
    pub type JsReducerOptions;

    #[wasm_bindgen(typescript_type = "ScheduleOptions")]
    pub type JsScheduleOptions;

    #[wasm_bindgen(typescript_type = "Verdict")]
    pub type JsVerdict;
}

/// A reduction in progress, one candidate at a time. Drive it with
/// `nextCandidate()` → run the program → `report(id, interesting, hung)` until
/// `isDone()`, or hand it to a `Scheduler` to run several at once; call `free()`
/// when finished.
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
        let options = from_js(options.map(Into::into), "reducer options")?;
        let inner = autodd_core::Reducer::new(source, options).map_err(core_error)?;
        Ok(Reducer { inner })
    }

    /// The next program to try, or `undefined` when nothing is left to propose until
    /// the candidates in flight are reported.
    #[wasm_bindgen(js_name = nextCandidate)]
    pub fn next_candidate(&mut self) -> Result<Option<JsCandidate>, JsValue> {
        self.inner.next_candidate().map(|c| typed(&c)).transpose()
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
        typed(&self.inner.stats())
    }

    /// Messages for the user about the input (e.g. an unterminated freeze block).
    pub fn warnings(&self) -> Vec<String> {
        self.inner.warnings().to_vec()
    }
}

/// Runs a reduction with several candidates out at once, following the search of one
/// at a time: `fill()` says what to run, `finished(id, verdict)` takes each run's end
/// and says which verdicts to report to the user (and which runs to cancel). The
/// reduction is over when `fill()` returns nothing and `running()` is 0.
#[wasm_bindgen]
pub struct Scheduler {
    inner: autodd_core::Scheduler,
}

#[wasm_bindgen]
impl Scheduler {
    /// A scheduler for a copy of `reducer` (which stays usable and unchanged).
    #[wasm_bindgen(constructor)]
    pub fn new(
        reducer: &Reducer,
        options: Option<JsScheduleOptions>,
    ) -> Result<Scheduler, JsValue> {
        let options = from_js(options.map(Into::into), "schedule options")?;
        Ok(Scheduler {
            inner: autodd_core::Scheduler::new(reducer.inner.clone(), options),
        })
    }

    /// Candidates to run now, one `run` action each.
    pub fn fill(&mut self) -> Result<JsActions, JsValue> {
        actions(self.inner.fill())
    }

    /// The candidate that will most likely run next, proposed while the current ones
    /// run (a host may get ready to run it); `undefined` if none.
    #[wasm_bindgen(js_name = proposeAhead)]
    pub fn propose_ahead(&mut self) -> Result<Option<JsCandidate>, JsValue> {
        self.inner.propose_ahead().map(|c| typed(&c)).transpose()
    }

    /// The run of candidate `id` ended with `verdict`: the reports it releases, in
    /// order, and the runs to cancel.
    pub fn finished(&mut self, id: f64, verdict: JsVerdict) -> Result<JsActions, JsValue> {
        let id = candidate_id(id)?;
        let verdict: Verdict = serde_wasm_bindgen::from_value(verdict.into()).map_err(|e| {
            code_error(ErrorCode::InvalidArgument, &format!("invalid verdict: {e}"))
        })?;
        actions(self.inner.finished(id, verdict))
    }

    /// Cancels every run going: the reduction stops, keeping the best so far.
    #[wasm_bindgen(js_name = cancelAll)]
    pub fn cancel_all(&mut self) -> Result<JsActions, JsValue> {
        actions(self.inner.cancel_all())
    }

    /// How many runs are going (cancelled ones included, until they end).
    pub fn running(&self) -> u32 {
        u32::try_from(self.inner.running()).unwrap_or(u32::MAX)
    }

    /// The best program so far (the smallest interesting one once done).
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
        typed(&self.inner.stats())
    }
}

fn actions(actions: Vec<autodd_core::Action>) -> Result<JsActions, JsValue> {
    Ok(to_js(&actions)?.unchecked_into())
}

type JsCandidate = <Candidate as Tsify>::JsType;
type JsStats = <Stats as Tsify>::JsType;

/// `value` as JS, typed with its generated TypeScript declaration.
fn typed<T: Tsify + Serialize>(value: &T) -> Result<T::JsType, JsValue> {
    Ok(to_js(value)?.unchecked_into())
}

/// A value from JS (`undefined` and `null` give the default), or `invalid-argument`.
fn from_js<T: DeserializeOwned + Default>(
    value: Option<JsValue>,
    what: &str,
) -> Result<T, JsValue> {
    match value {
        Some(value) if !value.is_null() && !value.is_undefined() => {
            serde_wasm_bindgen::from_value(value).map_err(|e| {
                code_error(ErrorCode::InvalidArgument, &format!("invalid {what}: {e}"))
            })
        }
        _ => Ok(T::default()),
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
    Ok(to_js(&sites)?.unchecked_into())
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
            ErrorCode::InvalidArgument,
            &format!("invalid candidate id {id}"),
        ))
    }
}

fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    serde_wasm_bindgen::to_value(value).map_err(|e| {
        code_error(
            ErrorCode::Internal,
            &format!("cannot convert a value for JS: {e}"),
        )
    })
}

/// A core error as a JS `Error` with `code`, and `line`/`column` (UTF-16) when known.
fn core_error(e: autodd_core::Error) -> JsValue {
    let message = match (e.line, e.column_utf16) {
        (Some(line), Some(column)) => format!("{} at line {line}, column {column}", e.message),
        _ => e.message.clone(),
    };
    let err = code_error(e.code, &message);
    if let Some(line) = e.line {
        set(&err, "line", line.into());
    }
    if let Some(column) = e.column_utf16 {
        set(&err, "column", column.into());
    }
    err
}

fn code_error(code: ErrorCode, message: &str) -> JsValue {
    let err: JsValue = js_sys::Error::new(message).into();
    set(&err, "code", code.as_str().into());
    err
}

fn set(target: &JsValue, key: &str, value: JsValue) {
    // Setting a property on a fresh, unfrozen Error cannot fail; if it somehow did,
    // the error is still thrown, just with less detail.
    let _ = js_sys::Reflect::set(target, &key.into(), &value);
}
