//! Function rewrites: `attach-full-func-args` and the parameter removal of
//! `func-arg-remover`.

use super::Rewrite;
use crate::parse::ast::{self, Stmt};

fn arguments(stmt: &Stmt) -> Option<&ast::Arguments> {
    match stmt {
        Stmt::FunctionDef(s) => Some(&s.args),
        Stmt::AsyncFunctionDef(s) => Some(&s.args),
        _ => None,
    }
}

/// Whether `rewrite` (a statement rewrite of this family) applies to `stmt`.
pub fn matches(rewrite: Rewrite, stmt: &Stmt) -> bool {
    match rewrite {
        Rewrite::AttachFullFuncArgs => {
            arguments(stmt).is_some_and(|a| a.vararg.is_none() || a.kwarg.is_none())
        }
        _ => false,
    }
}

/// Gives a `def` the `*args` and `**kwargs` it lacks, so that removing arguments
/// from its calls later still leaves valid calls.
pub fn attach_full_args(stmt: &mut Stmt) {
    let args = match stmt {
        Stmt::FunctionDef(s) => &mut s.args,
        Stmt::AsyncFunctionDef(s) => &mut s.args,
        _ => return,
    };
    if args.vararg.is_none() {
        let name = unused_name(args, "args");
        args.vararg = Some(Box::new(param(&name)));
    }
    if args.kwarg.is_none() {
        let name = unused_name(args, "kwargs");
        args.kwarg = Some(Box::new(param(&name)));
    }
}

fn param(name: &str) -> ast::Arg {
    ast::Arg {
        range: Default::default(),
        arg: ast::Identifier::new(name),
        annotation: None,
        type_comment: None,
    }
}

/// The names of every parameter, `*args` and `**kwargs` included.
pub fn param_names(args: &ast::Arguments) -> impl Iterator<Item = &str> {
    args.posonlyargs
        .iter()
        .chain(&args.args)
        .chain(&args.kwonlyargs)
        .map(|p| &p.def)
        .chain(args.vararg.as_deref())
        .chain(args.kwarg.as_deref())
        .map(|a| a.arg.as_str())
}

/// `base`, or `base` with underscores appended, whichever no parameter uses yet.
fn unused_name(args: &ast::Arguments, base: &str) -> String {
    let taken = |n: &str| param_names(args).any(|a| a == n);
    let mut name = base.to_string();
    while taken(&name) {
        name.push('_');
    }
    name
}
