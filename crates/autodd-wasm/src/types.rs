//! The values that cross the JS boundary: serde DTOs shaped for JavaScript (ids and
//! counters as numbers, columns in UTF-16 code units) and the TypeScript declarations
//! that describe them, so the generated `.d.ts` is precise.

use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Options of a reduction. */
export interface ReducerOptions {
  /** Restrict the reduction to these rewrites (names from `rewriteNames()`); all by default. */
  rewrites?: string[];
  /** Restart the search with fresh probabilities after every accepted candidate
   *  (plain PDD) instead of keeping what was learned about unchanged sites. */
  forget?: boolean;
  /** Also propose candidates CPython would refuse to compile. */
  allowInvalid?: boolean;
  /** Only the rewrites of the tool autodd replaces (for comparisons). */
  referenceOnly?: boolean;
  /** Run the canonicalizing phase in every round (by default only in the first). */
  canonicalizeEveryRound?: boolean;
  /** Start each phase with fresh probabilities instead of what the round's earlier
   *  phases learned about the sites they share. */
  freshPhases?: boolean;
  /** Start every site of a fresh search at probability 0.93 (plain PDD) instead of
   *  starting the value-replacing rewrites low. */
  uniformPriors?: boolean;
  /** Start a later round with the sites whose rewrite alone hung at the usual prior
   *  (plain PDD) instead of low (tried alone, after the other sites). */
  forgetHangs?: boolean;
  /** Classes that `class-to-base` never replaces by their base (the exception types
   *  a reduction with `sameError` keeps). */
  keepClasses?: string[];
}

/** A program proposed by the engine; run it and pass `id` back to `Reducer.report`. */
export interface Candidate {
  /** Unique within one reduction. */
  id: number;
  /** The full program text. */
  source: string;
  /** Name of the phase that proposed it. */
  phase: string;
  /** Distinct names of the rewrites applied, in the order of their first site. */
  rewrites: string[];
  /** How many rewrite sites were applied at once. */
  sites: number;
}

/** Counters and sizes of a reduction so far. */
export interface Stats {
  proposed: number;
  reported: number;
  accepted: number;
  stale: number;
  cacheHits: number;
  /** Candidates not proposed because they could not be accepted (no change, or too long). */
  skipped: number;
  /** Candidates not proposed because CPython would refuse to compile them. */
  invalid: number;
  phase: string;
  round: number;
  originalBytes: number;
  originalLines: number;
  bestBytes: number;
  bestLines: number;
}

/** A 1-based source position; `column` counts UTF-16 code units, as JS strings do. */
export interface Position {
  line: number;
  column: number;
}

/** A place where one rewrite applies. */
export interface Site {
  /** Index to pass to `applySite`. */
  index: number;
  rewrite: string;
  /** Start and end (exclusive) of the node the rewrite replaces. */
  start: Position;
  end: Position;
}

/** Stable codes of the errors the engine throws. */
export type ErrorCode =
  | "syntax-error"
  | "empty-source"
  | "unknown-rewrite"
  | "invalid-argument"
  | "internal";

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
    /// `ReducerOptions | undefined` on the JS side.
    #[wasm_bindgen(typescript_type = "ReducerOptions")]
    pub type JsReducerOptions;

    #[wasm_bindgen(typescript_type = "Candidate")]
    pub type JsCandidate;

    #[wasm_bindgen(typescript_type = "Stats")]
    pub type JsStats;

    #[wasm_bindgen(typescript_type = "Site[]")]
    pub type JsSites;
}

/// A candidate as JS sees it. Ids stay below 2^53 in any reduction a host can run,
/// so a JS number holds them exactly.
#[derive(Debug, Serialize)]
pub struct Candidate {
    pub id: f64,
    pub source: String,
    pub phase: String,
    pub rewrites: Vec<String>,
    pub sites: u32,
}

impl From<autodd_core::Candidate> for Candidate {
    fn from(c: autodd_core::Candidate) -> Self {
        Candidate {
            id: c.id as f64,
            source: c.source,
            phase: c.phase,
            rewrites: c.rewrites,
            sites: saturating_u32(c.sites),
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub proposed: f64,
    pub reported: f64,
    pub accepted: f64,
    pub stale: f64,
    pub cache_hits: f64,
    pub skipped: f64,
    pub invalid: f64,
    pub phase: String,
    pub round: u32,
    pub original_bytes: f64,
    pub original_lines: f64,
    pub best_bytes: f64,
    pub best_lines: f64,
}

impl From<autodd_core::Stats> for Stats {
    fn from(s: autodd_core::Stats) -> Self {
        Stats {
            proposed: s.proposed as f64,
            reported: s.reported as f64,
            accepted: s.accepted as f64,
            stale: s.stale as f64,
            cache_hits: s.cache_hits as f64,
            skipped: s.skipped as f64,
            invalid: s.invalid as f64,
            phase: s.phase,
            round: s.round,
            original_bytes: s.original_bytes as f64,
            original_lines: s.original_lines as f64,
            best_bytes: s.best_bytes as f64,
            best_lines: s.best_lines as f64,
        }
    }
}

#[derive(Debug, Serialize)]
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

#[derive(Debug, Serialize)]
pub struct Site {
    pub index: u32,
    pub rewrite: String,
    pub start: Position,
    pub end: Position,
}

impl From<autodd_core::SiteInfo> for Site {
    fn from(s: autodd_core::SiteInfo) -> Self {
        Site {
            index: saturating_u32(s.index),
            rewrite: s.rewrite,
            start: s.start.into(),
            end: s.end.into(),
        }
    }
}

fn saturating_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
