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
    /// `int-reduce-2`: halving often keeps the length (`128` → `64`), so any accepted
    /// change is progress here.
    IntReduce,
    /// `func-arg-remover`, `general-expr-remover`, `general-keyword-remover`, plus the fast set.
    Slow,
}

/// One round of the schedule.
pub const SCHEDULE: [Phase; 5] = [
    Phase::Fast,
    Phase::Canonicalize,
    Phase::Simplify,
    Phase::IntReduce,
    Phase::Slow,
];

const FAST: [Rewrite; 9] = [
    Rewrite::IfRemover1,
    Rewrite::IfRemover2,
    Rewrite::IfRemover3,
    Rewrite::ForBind0,
    Rewrite::StmtRemover,
    Rewrite::WithRemover,
    Rewrite::TryRemover,
    Rewrite::WhileRemover,
    Rewrite::CaseRemover,
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
        }
    }

    pub fn rewrites(self) -> RewriteSet {
        let extra: &[Rewrite] = match self {
            Phase::Fast => &[],
            Phase::Canonicalize => {
                return RewriteSet::of(&[Rewrite::WithBind0, Rewrite::AttachFullFuncArgs])
            }
            Phase::Simplify => &[
                Rewrite::ForBindFirst,
                Rewrite::AssignRhs1,
                Rewrite::CallFwdArg1,
                Rewrite::BinopFwdArgLeft,
                Rewrite::BinopFwdArgRight,
                Rewrite::FuncArgRemover,
                Rewrite::ParamWithArgsRemover,
                Rewrite::DefToBody,
                Rewrite::ClassToBase,
                Rewrite::AssignInline,
                Rewrite::AssignToExpr,
                Rewrite::AugAssignToAssign,
                Rewrite::AnnAssignToAssign,
                Rewrite::AttributeFwd,
                Rewrite::SubscriptFwd,
                Rewrite::IfExpFwdBody,
                Rewrite::IfExpFwdElse,
                Rewrite::UnaryFwd,
            ],
            Phase::IntReduce => return RewriteSet::of(&[Rewrite::IntReduce2]),
            Phase::Slow => &[
                Rewrite::FuncArgRemover,
                Rewrite::ParamWithArgsRemover,
                Rewrite::GeneralExprRemover,
                Rewrite::GeneralKeywordRemover,
                Rewrite::ImportNameRemover,
                Rewrite::OptionalExprRemover,
                Rewrite::StrPartRemover,
            ],
        };
        let mut all = FAST.to_vec();
        all.extend_from_slice(extra);
        RewriteSet::of(&all)
    }

    /// Whether an interesting candidate is accepted even when it is longer than the best.
    pub fn accepts_any_size(self) -> bool {
        matches!(self, Phase::Canonicalize | Phase::IntReduce)
    }
}
