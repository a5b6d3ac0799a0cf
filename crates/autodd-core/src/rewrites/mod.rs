//! The rewrites: each has a user-visible name, the nodes it matches, and what it
//! turns them into. One file per family; the traversal in `sites.rs` finds where
//! they apply and `apply.rs` applies a chosen set of sites.

pub mod calls;
pub mod expressions;
pub mod functions;
pub mod lists;
pub mod statements;
pub mod strings;

use crate::parse::ast;

/// A rewrite of the AST. The names returned by [`Rewrite::name`] are what users see
/// in progress output and in the playground.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rewrite {
    IfRemover1,
    IfRemover2,
    IfRemover3,
    ForBind0,
    StmtRemover,
    WithBind0,
    AttachFullFuncArgs,
    AssignRhs1,
    CallFwdArg1,
    BinopFwdArgLeft,
    BinopFwdArgRight,
    FuncArgRemover,
    GeneralExprRemover,
    GeneralKeywordRemover,
    IntReduce2,
    // Beyond the reference set:
    WithRemover,
    TryRemover,
    WhileRemover,
    AssignToExpr,
    AugAssignToAssign,
    AnnAssignToAssign,
    AttributeFwd,
    SubscriptFwd,
    ImportNameRemover,
    OptionalExprRemover,
    ParamWithArgsRemover,
    StrPartRemover,
    DefToBody,
    ClassToBase,
    AssignInline,
    CaseRemover,
    IfExpFwdBody,
    IfExpFwdElse,
    UnaryFwd,
    ForBindFirst,
}

/// How a rewrite changes the tree, which decides where the applier handles it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Replaces a statement by a list of statements; nested sites go with it.
    ReplaceStmt,
    /// Changes a statement after its children were visited; nested sites still apply.
    EditStmt,
    /// Replaces an expression; nested sites go with it.
    ReplaceExpr,
    /// Removes an item (expression, keyword, parameter) from the list holding it.
    RemoveItem,
}

impl Rewrite {
    /// Whether applying the rewrite changes statements other than the one its site is
    /// in: the calls of a function that loses a parameter, the reads of a name whose
    /// definition is inlined or forwarded.
    pub fn reaches_other_statements(self) -> bool {
        matches!(
            self,
            Rewrite::ParamWithArgsRemover
                | Rewrite::DefToBody
                | Rewrite::ClassToBase
                | Rewrite::AssignInline
        )
    }

    /// The rewrites of the tool autodd replaces (`python -m tilelang.autodd`).
    pub const REFERENCE: [Rewrite; 15] = [
        Rewrite::IfRemover1,
        Rewrite::IfRemover2,
        Rewrite::IfRemover3,
        Rewrite::ForBind0,
        Rewrite::StmtRemover,
        Rewrite::WithBind0,
        Rewrite::AttachFullFuncArgs,
        Rewrite::AssignRhs1,
        Rewrite::CallFwdArg1,
        Rewrite::BinopFwdArgLeft,
        Rewrite::BinopFwdArgRight,
        Rewrite::FuncArgRemover,
        Rewrite::GeneralExprRemover,
        Rewrite::GeneralKeywordRemover,
        Rewrite::IntReduce2,
    ];

    /// autodd's own rewrites, beyond the reference set.
    pub const OWN: [Rewrite; 20] = [
        Rewrite::WithRemover,
        Rewrite::TryRemover,
        Rewrite::WhileRemover,
        Rewrite::AssignToExpr,
        Rewrite::AugAssignToAssign,
        Rewrite::AnnAssignToAssign,
        Rewrite::AttributeFwd,
        Rewrite::SubscriptFwd,
        Rewrite::ImportNameRemover,
        Rewrite::OptionalExprRemover,
        Rewrite::ParamWithArgsRemover,
        Rewrite::StrPartRemover,
        Rewrite::DefToBody,
        Rewrite::ClassToBase,
        Rewrite::AssignInline,
        Rewrite::CaseRemover,
        Rewrite::IfExpFwdBody,
        Rewrite::IfExpFwdElse,
        Rewrite::UnaryFwd,
        Rewrite::ForBindFirst,
    ];

    /// Every rewrite: the reference set, then autodd's own.
    pub const ALL: [Rewrite; 35] = {
        let mut all = [Rewrite::IfRemover1; 35];
        let mut i = 0;
        while i < Self::REFERENCE.len() {
            all[i] = Self::REFERENCE[i];
            i += 1;
        }
        while i < all.len() {
            all[i] = Self::OWN[i - Self::REFERENCE.len()];
            i += 1;
        }
        all
    };

    /// The probability a fresh search starts this rewrite's sites at, from the
    /// benchmark's traces. The rewrites that replace a value by something else
    /// (`x = f(a)` → `x = 1`, `a.b` → `a`, `f(a)` → `a`, ...) and the removals of
    /// list items, parameters with their arguments and string parts seldom keep the
    /// failure once the statements that did not matter are gone (1 to 7% of their
    /// sites), so they start low enough to be tried one at a time rather than in
    /// groups that almost always fail. The rewrites that forward a definition to its
    /// one use almost always keep it, so they start high: first, in groups of their
    /// own. The rest start at PDD's usual 0.93.
    pub fn prior(self) -> f64 {
        match self {
            Rewrite::AssignRhs1
            | Rewrite::CallFwdArg1
            | Rewrite::BinopFwdArgLeft
            | Rewrite::BinopFwdArgRight
            | Rewrite::AttributeFwd
            | Rewrite::SubscriptFwd
            | Rewrite::IfExpFwdBody
            | Rewrite::IfExpFwdElse
            | Rewrite::UnaryFwd
            | Rewrite::AssignToExpr
            | Rewrite::ParamWithArgsRemover
            | Rewrite::StrPartRemover
            | Rewrite::GeneralExprRemover => LOW_PRIOR,
            Rewrite::AssignInline | Rewrite::ClassToBase | Rewrite::DefToBody => HIGH_PRIOR,
            _ => crate::search::INITIAL_P,
        }
    }

    /// The user-visible name, e.g. `if-remover-1`.
    pub fn name(self) -> &'static str {
        match self {
            Rewrite::IfRemover1 => "if-remover-1",
            Rewrite::IfRemover2 => "if-remover-2",
            Rewrite::IfRemover3 => "if-remover-3",
            Rewrite::ForBind0 => "for-bind-0",
            Rewrite::StmtRemover => "stmt-remover",
            Rewrite::WithBind0 => "with-bind-0",
            Rewrite::AttachFullFuncArgs => "attach-full-func-args",
            Rewrite::AssignRhs1 => "assign-rhs-1",
            Rewrite::CallFwdArg1 => "call-fwd-arg1",
            Rewrite::BinopFwdArgLeft => "binop-fwd-arg-left",
            Rewrite::BinopFwdArgRight => "binop-fwd-arg-right",
            Rewrite::FuncArgRemover => "func-arg-remover",
            Rewrite::GeneralExprRemover => "general-expr-remover",
            Rewrite::GeneralKeywordRemover => "general-keyword-remover",
            Rewrite::IntReduce2 => "int-reduce-2",
            Rewrite::WithRemover => "with-remover",
            Rewrite::TryRemover => "try-remover",
            Rewrite::WhileRemover => "while-remover",
            Rewrite::AssignToExpr => "assign-to-expr",
            Rewrite::AugAssignToAssign => "aug-assign-to-assign",
            Rewrite::AnnAssignToAssign => "ann-assign-to-assign",
            Rewrite::AttributeFwd => "attribute-fwd",
            Rewrite::SubscriptFwd => "subscript-fwd",
            Rewrite::ImportNameRemover => "import-name-remover",
            Rewrite::OptionalExprRemover => "optional-expr-remover",
            Rewrite::ParamWithArgsRemover => "param-with-args-remover",
            Rewrite::StrPartRemover => "str-part-remover",
            Rewrite::DefToBody => "def-to-body",
            Rewrite::ClassToBase => "class-to-base",
            Rewrite::AssignInline => "assign-inline",
            Rewrite::CaseRemover => "case-remover",
            Rewrite::IfExpFwdBody => "ifexp-fwd-body",
            Rewrite::IfExpFwdElse => "ifexp-fwd-else",
            Rewrite::UnaryFwd => "unary-fwd",
            Rewrite::ForBindFirst => "for-bind-first",
        }
    }

    /// The rewrite with this user-visible name.
    pub fn from_name(name: &str) -> Option<Rewrite> {
        Rewrite::ALL.into_iter().find(|r| r.name() == name)
    }

    pub fn shape(self) -> Shape {
        match self {
            Rewrite::IfRemover1
            | Rewrite::IfRemover2
            | Rewrite::IfRemover3
            | Rewrite::ForBind0
            | Rewrite::ForBindFirst
            | Rewrite::StmtRemover
            | Rewrite::WithRemover
            | Rewrite::TryRemover
            | Rewrite::WhileRemover
            | Rewrite::AssignToExpr
            | Rewrite::AugAssignToAssign
            | Rewrite::AnnAssignToAssign
            | Rewrite::DefToBody
            | Rewrite::ClassToBase
            | Rewrite::AssignInline => Shape::ReplaceStmt,
            Rewrite::WithBind0 | Rewrite::AttachFullFuncArgs => Shape::EditStmt,
            Rewrite::AssignRhs1
            | Rewrite::CallFwdArg1
            | Rewrite::BinopFwdArgLeft
            | Rewrite::BinopFwdArgRight
            | Rewrite::IntReduce2
            | Rewrite::AttributeFwd
            | Rewrite::SubscriptFwd
            | Rewrite::IfExpFwdBody
            | Rewrite::IfExpFwdElse
            | Rewrite::UnaryFwd => Shape::ReplaceExpr,
            Rewrite::FuncArgRemover
            | Rewrite::GeneralExprRemover
            | Rewrite::GeneralKeywordRemover
            | Rewrite::ImportNameRemover
            | Rewrite::OptionalExprRemover
            | Rewrite::ParamWithArgsRemover
            | Rewrite::StrPartRemover
            | Rewrite::CaseRemover => Shape::RemoveItem,
        }
    }
}

/// See [`Rewrite::prior`]: below 0.5, PDD tries a site alone.
pub const LOW_PRIOR: f64 = 0.4;
/// See [`Rewrite::prior`]: above the usual 0.93, so these sites are tried first, in
/// groups of their own.
pub const HIGH_PRIOR: f64 = 0.97;

/// A set of rewrites, as a bit mask over [`Rewrite`]'s discriminants.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RewriteSet(u64);

impl RewriteSet {
    pub fn of(rewrites: &[Rewrite]) -> Self {
        RewriteSet(rewrites.iter().fold(0, |m, r| m | (1 << *r as u64)))
    }
    pub fn all() -> Self {
        RewriteSet::of(&Rewrite::ALL)
    }
    pub fn reference() -> Self {
        RewriteSet::of(&Rewrite::REFERENCE)
    }
    pub fn contains(self, r: Rewrite) -> bool {
        self.0 & (1 << r as u64) != 0
    }
    pub fn intersect(self, other: RewriteSet) -> Self {
        RewriteSet(self.0 & other.0)
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// Node constructors shared by the rewrite families. Synthesized nodes carry an
/// empty range: they are printed, never located.
pub(crate) mod make {
    use super::ast;
    use crate::parse::ast::{Expr, Stmt};

    pub fn str(value: &str) -> Expr {
        Expr::Constant(ast::ExprConstant {
            range: Default::default(),
            value: ast::Constant::Str(value.to_string()),
            kind: None,
        })
    }

    pub fn int(value: impl Into<num_bigint::BigInt>) -> Expr {
        Expr::Constant(ast::ExprConstant {
            range: Default::default(),
            value: ast::Constant::Int(value.into()),
            kind: None,
        })
    }

    pub fn name(id: &str, ctx: ast::ExprContext) -> Expr {
        Expr::Name(ast::ExprName {
            range: Default::default(),
            id: ast::Identifier::new(id),
            ctx,
        })
    }

    pub fn expr_stmt(value: Expr) -> Stmt {
        Stmt::Expr(ast::StmtExpr {
            range: Default::default(),
            value: Box::new(value),
        })
    }

    pub fn pass() -> Stmt {
        Stmt::Pass(ast::StmtPass {
            range: Default::default(),
        })
    }

    pub fn assign(target: Expr, value: Expr) -> Stmt {
        Stmt::Assign(ast::StmtAssign {
            range: Default::default(),
            targets: vec![target],
            value: Box::new(value),
            type_comment: None,
        })
    }

    /// A value shaped like an assignment target, made of zeros: `0` for a name,
    /// `(0, 0)` for `a, b`, nested for nested tuples.
    pub fn zeros_like(target: &Expr) -> Expr {
        match target {
            Expr::Tuple(t) => tuple(t.elts.iter().map(zeros_like).collect()),
            Expr::List(t) => tuple(t.elts.iter().map(zeros_like).collect()),
            _ => int(0),
        }
    }

    pub fn tuple(elts: Vec<Expr>) -> Expr {
        Expr::Tuple(ast::ExprTuple {
            range: Default::default(),
            elts,
            ctx: ast::ExprContext::Load,
        })
    }
}
