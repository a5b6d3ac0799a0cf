//! The values that cross the JS boundary. Their TypeScript declarations are generated
//! from the Rust types (by `tsify`): the core's `ReducerOptions`, `Candidate`,
//! `Stats`, `ScheduleOptions`, `Verdict`, `Action` and `ErrorCode`, and the
//! playground's `Site` below. Only the shape of a thrown error is written by hand,
//! as it is a JS `Error`, not a Rust value.

use serde::Serialize;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_ERROR: &'static str = r#"
/** Every error thrown by these bindings is an `Error` with these properties. */
export interface AutoddError extends Error {
  code: ErrorCode;
  /** 1-based line of a syntax error. */
  line?: number;
  /** 1-based column of a syntax error, in UTF-16 code units. */
  column?: number;
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "Site[]")]
    pub type JsSites;

    #[wasm_bindgen(typescript_type = "Action[]")]
    pub type JsActions;
}

/// A 1-based source position; `column` counts UTF-16 code units, as JS strings do.
#[derive(Debug, Serialize, Tsify)]
pub struct Position {
    pub line: u32,
    /// UTF-16 code units: what JS editors and `String.prototype` count.
    pub column: u32,
}

impl From<autodd_core::parse::Position> for Position {
    fn from(p: autodd_core::parse::Position) -> Self {
        Position {
            line: p.line,
            column: p.column_utf16,
        }
    }
}

/// A place where one rewrite applies.
#[derive(Debug, Serialize, Tsify)]
pub struct Site {
    /// Index to pass to `applySite`.
    pub index: u32,
    pub rewrite: String,
    /// Start of the node the rewrite replaces.
    pub start: Position,
    /// End of that node (exclusive).
    pub end: Position,
}

impl From<autodd_core::SiteInfo> for Site {
    fn from(s: autodd_core::SiteInfo) -> Self {
        Site {
            index: u32::try_from(s.index).unwrap_or(u32::MAX),
            rewrite: s.rewrite,
            start: s.start.into(),
            end: s.end.into(),
        }
    }
}
