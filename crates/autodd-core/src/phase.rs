//! The schedule: groups of rewrites run in phases, in rounds, until a whole round
//! no longer shrinks the program.

use crate::rewrites::{Rewrite, RewriteSet};

/// A phase of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// `if-remover-1/2/3`, `for-bind-0`, `stmt-remover` (and autodd's
    /// `with-remover`, `try-remover`, `while-remover`).
    Fast,
    /// `with-bind-0`, `attach-full-func-args`: may grow the program, to enable later removals.
    Canonicalize,
    /// `for-bind-first`, `assign-rhs-1`, `call-fwd-arg1`, `binop-fwd-arg-*`, `func-arg-remover`,
    /// `param-with-args-remover`, plus the fast set.
    Simplify,
    /// `int-reduce-2` and `int-step-down`: halving often keeps the length (`128` →
    /// `64`), so any accepted change is progress here. Where half is too little
    /// (`n=40` must stay in 32..38), stepping down by an eighth still gets there.
    IntReduce,
    /// `func-arg-remover`, `general-expr-remover`, `general-keyword-remover`, plus the fast set.
    Slow,
    /// `str-char-remover`, `hoist-stmt`, `expr-to-const`, `str-concat-merge`: the fine
    /// rewrites, with sites in nearly every string and expression. A round runs it only
    /// when its other phases no longer shrank the program, so their many candidates are
    /// tried on what is left at the end, and once it shrinks, a new round starts.
    Polish,
}

/// One round of the schedule.
pub const SCHEDULE: [Phase; 6] = [
    Phase::Fast,
    Phase::Canonicalize,
    Phase::Simplify,
    Phase::IntReduce,
    Phase::Slow,
    Phase::Polish,
];

impl Phase {
    /// The user-visible name.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Fast => "fast",
            Phase::Canonicalize => "canonicalize",
            Phase::Simplify => "simplify",
            Phase::IntReduce => "int-reduce",
            Phase::Slow => "slow",
            Phase::Polish => "polish",
        }
    }

    /// The rewrites this phase runs (the `phases` column of `rewrite_table!`).
    pub fn rewrites(self) -> RewriteSet {
        let mine: Vec<Rewrite> = Rewrite::ALL
            .into_iter()
            .filter(|r| r.phases().contains(&self))
            .collect();
        RewriteSet::of(&mine)
    }

    /// Whether an interesting candidate is accepted even when it is longer than the best.
    pub fn accepts_any_size(self) -> bool {
        matches!(self, Phase::Canonicalize | Phase::IntReduce)
    }
}
