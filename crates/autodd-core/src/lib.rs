//! autodd-core: the reduction engine of autodd.
//!
//! It parses a Python program, protects frozen code, proposes smaller candidate
//! programs by rewriting the AST, and prints them. It does no I/O: a host drives it
//! through the step API of [`Reducer`] (`next_candidate` → run it → `report`), or
//! through [`Scheduler`], which runs several candidates at once in the order of one.

pub mod api;
mod apply;
mod clean;
pub mod error;
pub mod freeze;
pub mod hash;
pub mod parse;
pub mod phase;
pub mod reducer;
pub mod rewrites;
pub mod schedule;
pub mod search;
pub mod sites;
pub mod unparse;
pub mod validity;
pub mod walk;

pub use api::{
    apply_site, list_sites, normalize, rewrite_names, strip_freeze, top_level_imports, SiteInfo,
};
pub use error::{Error, ErrorCode};
pub use reducer::{Candidate, Options, Reducer, Stats};
pub use schedule::{Accepted, Action, ScheduleOptions, Scheduler, Verdict};
