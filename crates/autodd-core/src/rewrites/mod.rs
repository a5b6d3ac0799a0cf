//! The rewrites: each has a user-visible name, the nodes it matches, and what it
//! turns them into. One file per family; the traversal in `sites.rs` finds where
//! they apply and `apply.rs` applies a chosen set of sites.

pub mod calls;
pub mod expressions;
pub mod fields;
pub mod functions;
pub mod lists;
pub mod properties;
pub mod statements;
pub mod strings;
pub mod uses;

use crate::parse::ast;
use crate::phase::Phase;

/// Declares the rewrites, one row each: the variant, the user-visible name (what
/// progress output, reports and the playground show), whose rewrite it is, how it
/// changes the tree, the prior its sites start at (see [`Rewrite::prior`]), the phases
/// that run it, and whether applying it changes statements other than its own (see
/// [`Rewrite::reaches_other_statements`]). Adding a rewrite is a row here and its
/// matching and rewriting in a family file.
macro_rules! rewrite_table {
    ($($variant:ident => $name:literal, $origin:ident, $shape:ident, $prior:ident,
       [$($phase:ident),*], $reaches:literal;)*) => {
        /// A rewrite of the AST (see `rewrite_table!`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rewrite {
            $($variant,)*
        }

        const COUNT: usize = [$($name),*].len();

        impl Rewrite {
            /// Every rewrite, in the table's order: the reference set, then autodd's own.
            pub const ALL: [Rewrite; COUNT] = [$(Rewrite::$variant),*];

            /// The user-visible name, e.g. `if-remover-1`.
            pub fn name(self) -> &'static str {
                match self { $(Rewrite::$variant => $name,)* }
            }

            /// Whose rewrite it is: the reference tool's, or autodd's own.
            pub fn origin(self) -> Origin {
                match self { $(Rewrite::$variant => Origin::$origin,)* }
            }

            pub fn shape(self) -> Shape {
                match self { $(Rewrite::$variant => Shape::$shape,)* }
            }

            /// The probability a fresh search starts this rewrite's sites at, from the
            /// benchmark's traces. The rewrites that replace a value by something else
            /// (`x = f(a)` → `x = 1`, `a.b` → `a`, `f(a)` → `a`, ...) and the removals of
            /// list items, parameters with their arguments and string parts seldom keep
            /// the failure once the statements that did not matter are gone (1 to 7% of
            /// their sites), so they start low enough to be tried one at a time rather
            /// than in groups that almost always fail. The rewrites that forward a
            /// definition to its one use almost always keep it, so they start high:
            /// first, in groups of their own. The rest start at PDD's usual 0.93.
            pub fn prior(self) -> f64 {
                match self { $(Rewrite::$variant => Prior::$prior.value(),)* }
            }

            /// The phases of a round that run this rewrite.
            pub fn phases(self) -> &'static [Phase] {
                match self { $(Rewrite::$variant => &[$(Phase::$phase),*],)* }
            }

            /// Whether applying the rewrite changes statements other than the one its
            /// site is in, found only by walking the whole module: the calls of a
            /// function that loses a parameter, the reads of a name whose definition is
            /// inlined or forwarded. (`remove-with-uses` reaches others too, but its
            /// site map lists them, see [`crate::sites::SiteMap::uses`].)
            pub fn reaches_other_statements(self) -> bool {
                match self { $(Rewrite::$variant => $reaches,)* }
            }
        }
    };
}

rewrite_table! {
    IfRemover1 => "if-remover-1", Reference, ReplaceStmt, Usual, [Fast, Simplify, Slow], false;
    IfRemover2 => "if-remover-2", Reference, ReplaceStmt, Usual, [Fast, Simplify, Slow], false;
    IfRemover3 => "if-remover-3", Reference, ReplaceStmt, Usual, [Fast, Simplify, Slow], false;
    ForBind0 => "for-bind-0", Reference, ReplaceStmt, Usual, [Fast, Simplify, Slow], false;
    StmtRemover => "stmt-remover", Reference, ReplaceStmt, Usual, [Fast, Simplify, Slow], false;
    WithBind0 => "with-bind-0", Reference, EditStmt, Usual, [Canonicalize], false;
    AttachFullFuncArgs => "attach-full-func-args", Reference, EditStmt, Usual, [Canonicalize], false;
    AssignRhs1 => "assign-rhs-1", Reference, ReplaceExpr, Low, [Simplify], false;
    CallFwdArg1 => "call-fwd-arg1", Reference, ReplaceExpr, Low, [Simplify], false;
    BinopFwdArgLeft => "binop-fwd-arg-left", Reference, ReplaceExpr, Low, [Simplify], false;
    BinopFwdArgRight => "binop-fwd-arg-right", Reference, ReplaceExpr, Low, [Simplify], false;
    FuncArgRemover => "func-arg-remover", Reference, RemoveItem, Usual, [Simplify, Slow], false;
    GeneralExprRemover => "general-expr-remover", Reference, RemoveItem, Low, [Slow], false;
    GeneralKeywordRemover => "general-keyword-remover", Reference, RemoveItem, Usual, [Slow], false;
    IntReduce2 => "int-reduce-2", Reference, ReplaceExpr, Usual, [IntReduce], false;
    WithRemover => "with-remover", Own, ReplaceStmt, Usual, [Fast, Simplify, Slow], false;
    TryRemover => "try-remover", Own, ReplaceStmt, Usual, [Fast, Simplify, Slow], false;
    WhileRemover => "while-remover", Own, ReplaceStmt, Usual, [Fast, Simplify, Slow], false;
    AssignToExpr => "assign-to-expr", Own, ReplaceStmt, Low, [Simplify], false;
    AugAssignToAssign => "aug-assign-to-assign", Own, ReplaceStmt, Usual, [Simplify], false;
    AnnAssignToAssign => "ann-assign-to-assign", Own, ReplaceStmt, Usual, [Simplify], false;
    AttributeFwd => "attribute-fwd", Own, ReplaceExpr, Low, [Simplify], false;
    SubscriptFwd => "subscript-fwd", Own, ReplaceExpr, Low, [Simplify], false;
    ImportNameRemover => "import-name-remover", Own, RemoveItem, Usual, [Slow], false;
    OptionalExprRemover => "optional-expr-remover", Own, RemoveItem, Usual, [Slow], false;
    ParamWithArgsRemover => "param-with-args-remover", Own, RemoveItem, Low, [Simplify, Slow], true;
    StrPartRemover => "str-part-remover", Own, RemoveItem, Low, [Slow], false;
    DefToBody => "def-to-body", Own, ReplaceStmt, High, [Simplify], true;
    ClassToBase => "class-to-base", Own, ReplaceStmt, High, [Simplify], true;
    AssignInline => "assign-inline", Own, ReplaceStmt, High, [Simplify], true;
    CaseRemover => "case-remover", Own, RemoveItem, Usual, [Fast, Simplify, Slow], false;
    IfExpFwdBody => "ifexp-fwd-body", Own, ReplaceExpr, Low, [Simplify], false;
    IfExpFwdElse => "ifexp-fwd-else", Own, ReplaceExpr, Low, [Simplify], false;
    UnaryFwd => "unary-fwd", Own, ReplaceExpr, Low, [Simplify], false;
    ForBindFirst => "for-bind-first", Own, ReplaceStmt, Usual, [Simplify], false;
    StrCharRemover => "str-char-remover", Own, RemoveItem, Usual, [Polish], false;
    HoistStmt => "hoist-stmt", Own, Hoist, Low, [Simplify, Polish], false;
    LongListRemover => "long-list-remover", Own, RemoveItem, Usual, [Fast, Simplify], false;
    RemoveWithUses => "remove-with-uses", Own, RemoveWithUses, Usual, [Fast, Simplify, Slow], false;
    DefToExpr => "def-to-expr", Own, ReplaceStmt, High, [Simplify], true;
    ExprToConst => "expr-to-const", Own, ReplaceExpr, Low, [Polish], false;
    TypeParamsRemover => "type-params-remover", Own, ReplaceStmt, Usual, [Slow], false;
    StrConcatMerge => "str-concat-merge", Own, ReplaceExpr, High, [Polish], false;
    IntStepDown => "int-step-down", Own, ReplaceExpr, Usual, [IntReduce], false;
    BoolopFwdFirst => "boolop-fwd-first", Own, ReplaceExpr, Low, [Polish], false;
    BoolopFwdLast => "boolop-fwd-last", Own, ReplaceExpr, Low, [Polish], false;
    UnpackPairRemover => "unpack-pair-remover", Own, RemoveItem, Usual, [Simplify, Slow], false;
    FieldWithArgsRemover => "field-with-args-remover", Own, ReplaceStmt, Low, [Slow], true;
    PropertyInline => "property-inline", Own, ReplaceStmt, High, [Polish], true;
    MethodInline => "method-inline", Own, ReplaceStmt, High, [Polish], true;
}

/// Whose rewrite it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// One of the tool autodd replaces (`python -m tilelang.autodd`).
    Reference,
    /// autodd's own.
    Own,
}

/// The probability a rewrite's sites start at (see [`Rewrite::prior`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prior {
    Low,
    Usual,
    High,
}

impl Prior {
    fn value(self) -> f64 {
        match self {
            Prior::Low => LOW_PRIOR,
            Prior::Usual => crate::search::INITIAL_P,
            Prior::High => HIGH_PRIOR,
        }
    }
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
    /// Replaces the outermost compound statement enclosing the site's statement (within
    /// its function's or module's body) by that statement (`hoist-stmt`).
    Hoist,
    /// Removes a statement and the statements [`crate::sites::SiteMap::uses`] lists for
    /// it (`remove-with-uses`).
    RemoveWithUses,
}

impl Rewrite {
    /// The rewrite with this user-visible name.
    pub fn from_name(name: &str) -> Option<Rewrite> {
        Rewrite::ALL.into_iter().find(|r| r.name() == name)
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
    /// The rewrites of the tool autodd replaces.
    pub fn reference() -> Self {
        let reference: Vec<Rewrite> = Rewrite::ALL
            .into_iter()
            .filter(|r| r.origin() == Origin::Reference)
            .collect();
        RewriteSet::of(&reference)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phase::SCHEDULE;

    #[test]
    fn every_rewrite_has_its_own_name_and_a_phase_that_runs_it() {
        let mut names: Vec<&str> = Rewrite::ALL.iter().map(|r| r.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Rewrite::ALL.len(), "names are unique");
        for r in Rewrite::ALL {
            assert_eq!(Rewrite::from_name(r.name()), Some(r));
            assert!(
                SCHEDULE.iter().any(|phase| phase.rewrites().contains(r)),
                "{} is run by no phase",
                r.name()
            );
        }
    }

    #[test]
    fn the_reference_set_comes_first() {
        let reference = Rewrite::ALL
            .iter()
            .take_while(|r| r.origin() == Origin::Reference)
            .count();
        assert!(Rewrite::ALL[reference..]
            .iter()
            .all(|r| r.origin() == Origin::Own));
        assert_eq!(reference, 15, "python -m tilelang.autodd has 15 rewrites");
    }
}
