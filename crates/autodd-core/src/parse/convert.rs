//! ruff's syntax tree turned into the rustpython AST the rest of the core works on.
//!
//! ruff's parser reads Python 3.7 to 3.14; its tree keeps more of the source than
//! CPython's `ast` (an `elif` clause, the quotes of each piece of a concatenated
//! string, a debug `=` in an f-string). The rustpython AST is CPython's `ast`, which
//! is what the printer, the site finder and the rewrites were written for, so the
//! tree is turned into it here, as CPython would build it: an `elif` becomes an `if`
//! in the `else`, a concatenation one constant or one `JoinedStr`, `f"{x=}"` the text
//! `x=` followed by `{x!r}`.
//!
//! A construct CPython's 3.13 `ast` has no node for in rustpython's (a default of a
//! type parameter, a template string) is refused by name.

use std::borrow::Cow;

use num_bigint::BigInt;
use ruff_python_ast as r;
use ruff_text_size::Ranged;
use rustpython_ast as ast;
use rustpython_ast::text_size::{TextRange, TextSize};

/// A construct the converted tree cannot hold: what it is, and its byte offset.
#[derive(Debug)]
pub(super) struct Unsupported {
    pub what: &'static str,
    pub at: u32,
}

type Res<T> = Result<T, Unsupported>;

/// One of two statements that CPython's AST tells apart by node type and ruff's by a
/// flag (`async def` and `def`, `try` with `except*` and without): the same fields,
/// written once.
macro_rules! either {
    ($flag:expr, $yes:ident($yes_node:ident), $no:ident($no_node:ident) { $($field:ident),* $(,)? }) => {
        if $flag {
            ast::Stmt::$yes(ast::$yes_node { $($field),* })
        } else {
            ast::Stmt::$no(ast::$no_node { $($field),* })
        }
    };
}

/// Converts nodes whose ranges count from `base` (the offset where the parsed text
/// starts in the whole source).
pub(super) struct Converter<'a> {
    /// The parsed text.
    pub text: &'a str,
    pub base: u32,
    /// An offset of the larger text (`base` added) as an offset of the user's source.
    pub to_source: &'a dyn Fn(u32) -> u32,
}

impl Converter<'_> {
    /// Offset `offset` of the parsed text in the user's source.
    fn at(&self, offset: u32) -> TextSize {
        TextSize::from((self.to_source)(offset + self.base))
    }

    fn range(&self, node: &impl Ranged) -> TextRange {
        let r = node.range();
        TextRange::new(self.at(r.start().into()), self.at(r.end().into()))
    }

    /// The range of a decorated `def` or `class` from its keyword on (CPython's
    /// `lineno`), where ruff's starts at the first decorator: the keywords before
    /// `name`, back over the blanks between them.
    fn keyword_range(&self, range: TextRange, decorated: bool, name: &r::Identifier) -> TextRange {
        if !decorated {
            return range;
        }
        let bytes = self.text.as_bytes();
        let mut at = usize::from(name.range.start());
        // The parsed text's line breaks are `\n` (see `prepare`).
        let back_over_blanks = |at: &mut usize| {
            while *at > 0 {
                match bytes[*at - 1] {
                    b' ' | b'\t' | b'\x0c' => *at -= 1,
                    b'\n' if *at > 1 && bytes[*at - 2] == b'\\' => *at -= 2,
                    _ => break,
                }
            }
        };
        back_over_blanks(&mut at);
        for keyword in ["def", "class"] {
            if self.text[..at].ends_with(keyword) {
                at -= keyword.len();
                let mut before = at;
                back_over_blanks(&mut before);
                if keyword == "def" && self.text[..before].ends_with("async") {
                    at = before - "async".len();
                }
                let start = self.at(at as u32);
                return TextRange::new(start.max(range.start()), range.end());
            }
        }
        range
    }

    fn refuse<T>(&self, what: &'static str, node: &impl Ranged) -> Res<T> {
        Err(Unsupported {
            what,
            at: self.at(node.range().start().into()).into(),
        })
    }

    fn ident(id: &r::Identifier) -> ast::Identifier {
        ast::Identifier::new(id.id.as_str())
    }

    pub fn stmts(&self, body: impl IntoIterator<Item = r::Stmt>) -> Res<Vec<ast::Stmt>> {
        body.into_iter().map(|s| self.stmt(s)).collect()
    }

    fn exprs(&self, exprs: impl IntoIterator<Item = r::Expr>) -> Res<Vec<ast::Expr>> {
        exprs.into_iter().map(|e| self.expr(e)).collect()
    }

    fn boxed(&self, e: r::Expr) -> Res<Box<ast::Expr>> {
        self.expr(e).map(Box::new)
    }

    fn opt(&self, e: Option<Box<r::Expr>>) -> Res<Option<Box<ast::Expr>>> {
        e.map(|e| self.boxed(*e)).transpose()
    }

    fn stmt(&self, s: r::Stmt) -> Res<ast::Stmt> {
        use r::Stmt as S;
        let range = self.range(&s);
        Ok(match s {
            S::FunctionDef(f) => {
                let range = self.keyword_range(range, !f.decorator_list.is_empty(), &f.name);
                let name = Self::ident(&f.name);
                let args = Box::new(self.parameters(*f.parameters)?);
                let body = self.stmts(f.body)?;
                let decorator_list = self.decorators(f.decorator_list)?;
                let returns = self.opt(f.returns)?;
                let type_params = self.type_params(f.type_params)?;
                let type_comment = None;
                either!(f.is_async,
                    AsyncFunctionDef(StmtAsyncFunctionDef), FunctionDef(StmtFunctionDef) {
                        range, name, args, body, decorator_list, returns, type_comment, type_params,
                    }
                )
            }
            S::ClassDef(c) => {
                let range = self.keyword_range(range, !c.decorator_list.is_empty(), &c.name);
                let (bases, keywords) = match c.arguments {
                    Some(a) => self.arguments(*a)?,
                    None => (Vec::new(), Vec::new()),
                };
                ast::Stmt::ClassDef(ast::StmtClassDef {
                    range,
                    name: Self::ident(&c.name),
                    bases,
                    keywords,
                    body: self.stmts(c.body)?,
                    decorator_list: self.decorators(c.decorator_list)?,
                    type_params: self.type_params(c.type_params)?,
                })
            }
            S::Return(x) => ast::Stmt::Return(ast::StmtReturn {
                range,
                value: self.opt(x.value)?,
            }),
            S::Delete(x) => ast::Stmt::Delete(ast::StmtDelete {
                range,
                targets: self.exprs(x.targets)?,
            }),
            S::TypeAlias(x) => ast::Stmt::TypeAlias(ast::StmtTypeAlias {
                range,
                name: self.boxed(*x.name)?,
                type_params: self.type_params(x.type_params)?,
                value: self.boxed(*x.value)?,
            }),
            S::Assign(x) => ast::Stmt::Assign(ast::StmtAssign {
                range,
                targets: self.exprs(x.targets)?,
                value: self.boxed(*x.value)?,
                type_comment: None,
            }),
            S::AugAssign(x) => ast::Stmt::AugAssign(ast::StmtAugAssign {
                range,
                target: self.boxed(*x.target)?,
                op: operator(x.op),
                value: self.boxed(*x.value)?,
            }),
            S::AnnAssign(x) => ast::Stmt::AnnAssign(ast::StmtAnnAssign {
                range,
                target: self.boxed(*x.target)?,
                annotation: self.boxed(*x.annotation)?,
                value: self.opt(x.value)?,
                simple: x.simple,
            }),
            S::For(x) => {
                let target = self.boxed(*x.target)?;
                let iter = self.boxed(*x.iter)?;
                let body = self.stmts(x.body)?;
                let orelse = self.stmts(x.orelse)?;
                let type_comment = None;
                either!(x.is_async, AsyncFor(StmtAsyncFor), For(StmtFor) {
                    range, target, iter, body, orelse, type_comment,
                })
            }
            S::While(x) => ast::Stmt::While(ast::StmtWhile {
                range,
                test: self.boxed(*x.test)?,
                body: self.stmts(x.body)?,
                orelse: self.stmts(x.orelse)?,
            }),
            S::If(x) => ast::Stmt::If(ast::StmtIf {
                range,
                test: self.boxed(*x.test)?,
                body: self.stmts(x.body)?,
                orelse: self.elif_chain(x.elif_else_clauses, range.end())?,
            }),
            S::With(x) => {
                let items = x
                    .items
                    .into_iter()
                    .map(|w| {
                        Ok(ast::WithItem {
                            range: self.range(&w).into(),
                            context_expr: self.expr(w.context_expr)?,
                            optional_vars: self.opt(w.optional_vars)?,
                        })
                    })
                    .collect::<Res<Vec<_>>>()?;
                let body = self.stmts(x.body)?;
                let type_comment = None;
                either!(x.is_async, AsyncWith(StmtAsyncWith), With(StmtWith) {
                    range, items, body, type_comment,
                })
            }
            S::Match(x) => ast::Stmt::Match(ast::StmtMatch {
                range,
                subject: self.boxed(*x.subject)?,
                cases: x
                    .cases
                    .into_iter()
                    .map(|c| {
                        Ok(ast::MatchCase {
                            range: self.range(&c).into(),
                            pattern: self.pattern(c.pattern)?,
                            guard: self.opt(c.guard)?,
                            body: self.stmts(c.body)?,
                        })
                    })
                    .collect::<Res<_>>()?,
            }),
            S::Raise(x) => ast::Stmt::Raise(ast::StmtRaise {
                range,
                exc: self.opt(x.exc)?,
                cause: self.opt(x.cause)?,
            }),
            S::Try(x) => {
                let body = self.stmts(x.body)?;
                let handlers = x
                    .handlers
                    .into_iter()
                    .map(|h| {
                        let r::ExceptHandler::ExceptHandler(h) = h;
                        Ok(ast::ExceptHandler::ExceptHandler(
                            ast::ExceptHandlerExceptHandler {
                                range: self.range(&h),
                                type_: self.opt(h.type_)?,
                                name: h.name.as_ref().map(Self::ident),
                                body: self.stmts(h.body)?,
                            },
                        ))
                    })
                    .collect::<Res<Vec<_>>>()?;
                let orelse = self.stmts(x.orelse)?;
                let finalbody = self.stmts(x.finalbody)?;
                either!(x.is_star, TryStar(StmtTryStar), Try(StmtTry) {
                    range, body, handlers, orelse, finalbody,
                })
            }
            S::Assert(x) => ast::Stmt::Assert(ast::StmtAssert {
                range,
                test: self.boxed(*x.test)?,
                msg: self.opt(x.msg)?,
            }),
            S::Import(x) => {
                if x.is_lazy {
                    return self.refuse("a lazy import (PEP 810)", &x);
                }
                ast::Stmt::Import(ast::StmtImport {
                    range,
                    names: self.aliases(x.names),
                })
            }
            S::ImportFrom(x) => {
                if x.is_lazy {
                    return self.refuse("a lazy import (PEP 810)", &x);
                }
                ast::Stmt::ImportFrom(ast::StmtImportFrom {
                    range,
                    module: x.module.as_ref().map(Self::ident),
                    names: self.aliases(x.names),
                    level: Some(ast::Int::new(x.level)),
                })
            }
            S::Global(x) => ast::Stmt::Global(ast::StmtGlobal {
                range,
                names: x.names.iter().map(Self::ident).collect(),
            }),
            S::Nonlocal(x) => ast::Stmt::Nonlocal(ast::StmtNonlocal {
                range,
                names: x.names.iter().map(Self::ident).collect(),
            }),
            S::Expr(x) => ast::Stmt::Expr(ast::StmtExpr {
                range,
                value: self.boxed(*x.value)?,
            }),
            S::Pass(_) => ast::Stmt::Pass(ast::StmtPass { range }),
            S::Break(_) => ast::Stmt::Break(ast::StmtBreak { range }),
            S::Continue(_) => ast::Stmt::Continue(ast::StmtContinue { range }),
            S::IpyEscapeCommand(x) => return self.refuse("an IPython escape command", &x),
        })
    }

    /// `elif` and `else` clauses as CPython keeps them: an `elif` is an `if` alone in
    /// the `else` of the one before. Each such `if` ends where the whole statement ends.
    fn elif_chain(&self, clauses: Vec<r::ElifElseClause>, end: TextSize) -> Res<Vec<ast::Stmt>> {
        let mut orelse = Vec::new();
        for clause in clauses.into_iter().rev() {
            let start = self.range(&clause).start();
            let body = self.stmts(clause.body)?;
            orelse = match clause.test {
                None => body,
                Some(test) => vec![ast::Stmt::If(ast::StmtIf {
                    range: TextRange::new(start, end),
                    test: self.boxed(test)?,
                    body,
                    orelse,
                })],
            };
        }
        Ok(orelse)
    }

    fn aliases(&self, names: Vec<r::Alias>) -> Vec<ast::Alias> {
        names
            .iter()
            .map(|a| ast::Alias {
                range: self.range(a),
                name: Self::ident(&a.name),
                asname: a.asname.as_ref().map(Self::ident),
            })
            .collect()
    }

    fn decorators(&self, list: impl IntoIterator<Item = r::Decorator>) -> Res<Vec<ast::Expr>> {
        list.into_iter().map(|d| self.expr(d.expression)).collect()
    }

    fn type_params(&self, params: Option<Box<r::TypeParams>>) -> Res<Vec<ast::TypeParam>> {
        let Some(params) = params else {
            return Ok(Vec::new());
        };
        params
            .type_params
            .into_iter()
            .map(|p| {
                let range = self.range(&p);
                const DEFAULT: &str = "a default of a type parameter (PEP 696)";
                Ok(match p {
                    r::TypeParam::TypeVar(t) => {
                        if let Some(d) = &t.default {
                            return self.refuse(DEFAULT, &**d);
                        }
                        ast::TypeParam::TypeVar(ast::TypeParamTypeVar {
                            range,
                            name: Self::ident(&t.name),
                            bound: self.opt(t.bound)?,
                        })
                    }
                    r::TypeParam::ParamSpec(t) => {
                        if let Some(d) = &t.default {
                            return self.refuse(DEFAULT, &**d);
                        }
                        ast::TypeParam::ParamSpec(ast::TypeParamParamSpec {
                            range,
                            name: Self::ident(&t.name),
                        })
                    }
                    r::TypeParam::TypeVarTuple(t) => {
                        if let Some(d) = &t.default {
                            return self.refuse(DEFAULT, &**d);
                        }
                        ast::TypeParam::TypeVarTuple(ast::TypeParamTypeVarTuple {
                            range,
                            name: Self::ident(&t.name),
                        })
                    }
                })
            })
            .collect()
    }

    fn parameters(&self, p: r::Parameters) -> Res<ast::Arguments> {
        let range = self.range(&p);
        let single = |p: Option<Box<r::Parameter>>| -> Res<Option<Box<ast::Arg>>> {
            p.map(|p| self.parameter(*p).map(Box::new)).transpose()
        };
        Ok(ast::Arguments {
            range: range.into(),
            posonlyargs: self.with_defaults(p.posonlyargs)?,
            args: self.with_defaults(p.args)?,
            vararg: single(p.vararg)?,
            kwonlyargs: self.with_defaults(p.kwonlyargs)?,
            kwarg: single(p.kwarg)?,
        })
    }

    fn with_defaults(
        &self,
        list: impl IntoIterator<Item = r::ParameterWithDefault>,
    ) -> Res<Vec<ast::ArgWithDefault>> {
        list.into_iter()
            .map(|p| {
                Ok(ast::ArgWithDefault {
                    range: self.range(&p).into(),
                    def: self.parameter(p.parameter)?,
                    default: self.opt(p.default)?,
                })
            })
            .collect()
    }

    fn parameter(&self, p: r::Parameter) -> Res<ast::Arg> {
        // From the name on, as CPython's: ruff's range of `*args` starts at the `*`.
        let range = TextRange::new(self.range(&p.name).start(), self.range(&p).end());
        Ok(ast::Arg {
            range,
            arg: Self::ident(&p.name),
            annotation: self.opt(p.annotation)?,
            type_comment: None,
        })
    }

    /// A call's or a class's arguments: the positional ones and the keywords.
    fn arguments(&self, a: r::Arguments) -> Res<(Vec<ast::Expr>, Vec<ast::Keyword>)> {
        let range = self.range(&a);
        let bare_generator = matches!(
            &*a.args,
            [r::Expr::Generator(g)] if !g.parenthesized && a.keywords.is_empty()
        );
        let mut args = self.exprs(a.args.into_vec())?;
        if bare_generator {
            // `f(x for x in y)`: CPython's generator spans the call's parentheses.
            if let Some(ast::Expr::GeneratorExp(g)) = args.first_mut() {
                g.range = range;
            }
        }
        let keywords = a
            .keywords
            .into_iter()
            .map(|k| {
                Ok(ast::Keyword {
                    range: self.range(&k),
                    arg: k.arg.as_ref().map(Self::ident),
                    value: self.expr(k.value)?,
                })
            })
            .collect::<Res<Vec<_>>>()?;
        Ok((args, keywords))
    }

    fn comprehensions(&self, gens: Vec<r::Comprehension>) -> Res<Vec<ast::Comprehension>> {
        gens.into_iter()
            .map(|g| {
                Ok(ast::Comprehension {
                    range: self.range(&g).into(),
                    target: self.expr(g.target)?,
                    iter: self.expr(g.iter)?,
                    ifs: self.exprs(g.ifs)?,
                    is_async: g.is_async,
                })
            })
            .collect()
    }

    fn constant(range: TextRange, value: ast::Constant, kind: Option<String>) -> ast::Expr {
        ast::Expr::Constant(ast::ExprConstant { range, value, kind })
    }

    fn expr(&self, e: r::Expr) -> Res<ast::Expr> {
        use r::Expr as E;
        let range = self.range(&e);
        Ok(match e {
            E::BoolOp(x) => ast::Expr::BoolOp(ast::ExprBoolOp {
                range,
                op: match x.op {
                    r::BoolOp::And => ast::BoolOp::And,
                    r::BoolOp::Or => ast::BoolOp::Or,
                },
                values: self.exprs(x.values)?,
            }),
            E::Named(x) => ast::Expr::NamedExpr(ast::ExprNamedExpr {
                range,
                target: self.boxed(*x.target)?,
                value: self.boxed(*x.value)?,
            }),
            E::BinOp(x) => ast::Expr::BinOp(ast::ExprBinOp {
                range,
                left: self.boxed(*x.left)?,
                op: operator(x.op),
                right: self.boxed(*x.right)?,
            }),
            E::UnaryOp(x) => ast::Expr::UnaryOp(ast::ExprUnaryOp {
                range,
                op: match x.op {
                    r::UnaryOp::Invert => ast::UnaryOp::Invert,
                    r::UnaryOp::Not => ast::UnaryOp::Not,
                    r::UnaryOp::UAdd => ast::UnaryOp::UAdd,
                    r::UnaryOp::USub => ast::UnaryOp::USub,
                },
                operand: self.boxed(*x.operand)?,
            }),
            E::Lambda(x) => ast::Expr::Lambda(ast::ExprLambda {
                range,
                args: Box::new(match x.parameters {
                    Some(p) => self.parameters(*p)?,
                    None => ast::Arguments {
                        range: TextRange::empty(range.start()).into(),
                        posonlyargs: Vec::new(),
                        args: Vec::new(),
                        vararg: None,
                        kwonlyargs: Vec::new(),
                        kwarg: None,
                    },
                }),
                body: self.boxed(*x.body)?,
            }),
            E::If(x) => ast::Expr::IfExp(ast::ExprIfExp {
                range,
                test: self.boxed(*x.test)?,
                body: self.boxed(*x.body)?,
                orelse: self.boxed(*x.orelse)?,
            }),
            E::Dict(x) => {
                let mut keys = Vec::with_capacity(x.items.len());
                let mut values = Vec::with_capacity(x.items.len());
                for item in x.items {
                    keys.push(item.key.map(|k| self.expr(k)).transpose()?);
                    values.push(self.expr(item.value)?);
                }
                ast::Expr::Dict(ast::ExprDict {
                    range,
                    keys,
                    values,
                })
            }
            E::Set(x) => ast::Expr::Set(ast::ExprSet {
                range,
                elts: self.exprs(x.elts)?,
            }),
            E::ListComp(x) => ast::Expr::ListComp(ast::ExprListComp {
                range,
                elt: self.boxed(*x.elt)?,
                generators: self.comprehensions(x.generators)?,
            }),
            E::SetComp(x) => ast::Expr::SetComp(ast::ExprSetComp {
                range,
                elt: self.boxed(*x.elt)?,
                generators: self.comprehensions(x.generators)?,
            }),
            E::DictComp(x) => {
                let Some(key) = x.key else {
                    return self.refuse("unpacking in a dict comprehension (PEP 798)", &x);
                };
                ast::Expr::DictComp(ast::ExprDictComp {
                    range,
                    key: self.boxed(*key)?,
                    value: self.boxed(*x.value)?,
                    generators: self.comprehensions(x.generators)?,
                })
            }
            E::Generator(x) => ast::Expr::GeneratorExp(ast::ExprGeneratorExp {
                range,
                elt: self.boxed(*x.elt)?,
                generators: self.comprehensions(x.generators)?,
            }),
            E::Await(x) => ast::Expr::Await(ast::ExprAwait {
                range,
                value: self.boxed(*x.value)?,
            }),
            E::Yield(x) => ast::Expr::Yield(ast::ExprYield {
                range,
                value: self.opt(x.value)?,
            }),
            E::YieldFrom(x) => ast::Expr::YieldFrom(ast::ExprYieldFrom {
                range,
                value: self.boxed(*x.value)?,
            }),
            E::Compare(x) => ast::Expr::Compare(ast::ExprCompare {
                range,
                left: self.boxed(*x.left)?,
                ops: x.ops.iter().map(|&op| cmp_op(op)).collect(),
                comparators: self.exprs(x.comparators.into_vec())?,
            }),
            E::Call(x) => {
                let func = self.boxed(*x.func)?;
                let (args, keywords) = self.arguments(x.arguments)?;
                ast::Expr::Call(ast::ExprCall {
                    range,
                    func,
                    args,
                    keywords,
                })
            }
            E::FString(x) => self.fstring(range, x.value)?,
            E::TString(x) => return self.refuse("a template string (PEP 750)", &x),
            E::StringLiteral(x) => {
                let u = x.value.iter().next().is_some_and(|s| self.is_u_string(s));
                let kind = u.then(|| "u".to_owned());
                Self::constant(range, ast::Constant::Str(x.value.to_str().to_owned()), kind)
            }
            E::BytesLiteral(x) => {
                Self::constant(range, ast::Constant::Bytes(x.value.bytes().collect()), None)
            }
            E::NumberLiteral(x) => {
                let value = match &x.value {
                    r::Number::Int(i) => match int_value(&i.to_string()) {
                        Some(v) => ast::Constant::Int(v),
                        None => return self.refuse("an integer literal it cannot read", &x),
                    },
                    r::Number::Float(f) => ast::Constant::Float(*f),
                    r::Number::Complex { real, imag } => ast::Constant::Complex {
                        real: *real,
                        imag: *imag,
                    },
                };
                Self::constant(range, value, None)
            }
            E::BooleanLiteral(x) => Self::constant(range, ast::Constant::Bool(x.value), None),
            E::NoneLiteral(_) => Self::constant(range, ast::Constant::None, None),
            E::EllipsisLiteral(_) => Self::constant(range, ast::Constant::Ellipsis, None),
            E::Attribute(x) => ast::Expr::Attribute(ast::ExprAttribute {
                range,
                value: self.boxed(*x.value)?,
                attr: Self::ident(&x.attr),
                ctx: context(x.ctx),
            }),
            E::Subscript(x) => ast::Expr::Subscript(ast::ExprSubscript {
                range,
                value: self.boxed(*x.value)?,
                slice: self.boxed(*x.slice)?,
                ctx: context(x.ctx),
            }),
            E::Starred(x) => ast::Expr::Starred(ast::ExprStarred {
                range,
                value: self.boxed(*x.value)?,
                ctx: context(x.ctx),
            }),
            E::Name(x) => ast::Expr::Name(ast::ExprName {
                range,
                id: ast::Identifier::new(x.id.as_str()),
                ctx: context(x.ctx),
            }),
            E::List(x) => ast::Expr::List(ast::ExprList {
                range,
                elts: self.exprs(x.elts)?,
                ctx: context(x.ctx),
            }),
            E::Tuple(x) => ast::Expr::Tuple(ast::ExprTuple {
                range,
                elts: self.exprs(x.elts)?,
                ctx: context(x.ctx),
            }),
            E::Slice(x) => ast::Expr::Slice(ast::ExprSlice {
                range,
                lower: self.opt(x.lower)?,
                upper: self.opt(x.upper)?,
                step: self.opt(x.step)?,
            }),
            E::IpyEscapeCommand(x) => return self.refuse("an IPython escape command", &x),
        })
    }

    /// An f-string, with the plain strings concatenated to it, as one `JoinedStr`:
    /// adjacent text pieces merged into one constant, as CPython does, marked `u` when
    /// the first piece of the run is a `u` string (even an empty one).
    fn fstring(&self, range: TextRange, mut value: r::FStringValue) -> Res<ast::Expr> {
        let mut parts = FStringParts::default();
        // ruff lends the parts out only by reference: each field's expression is taken
        // out of its part rather than copied.
        for part in value.iter_mut() {
            match part {
                r::FStringPart::Literal(s) => {
                    parts.push_text(&s.value, self.range(s), self.is_u_string(s))
                }
                r::FStringPart::FString(f) => self.elements(&mut f.elements, &mut parts)?,
            }
        }
        parts.flush();
        Ok(ast::Expr::JoinedStr(ast::ExprJoinedStr {
            range,
            values: parts.values,
        }))
    }

    /// Whether a string literal is written `u'…'`: CPython marks it with kind `u`, but
    /// not one written `U'…'`.
    fn is_u_string(&self, s: &r::StringLiteral) -> bool {
        let start = usize::from(s.range.start());
        self.text.as_bytes().get(start) == Some(&b'u')
    }

    fn elements(
        &self,
        elements: &mut r::InterpolatedStringElements,
        parts: &mut FStringParts,
    ) -> Res<()> {
        for element in elements.iter_mut() {
            match element {
                r::InterpolatedStringElement::Literal(l) => {
                    parts.push_text(&l.value, self.range(l), false);
                }
                r::InterpolatedStringElement::Interpolation(i) => {
                    let range = self.range(i);
                    let mut conversion = conversion(i.conversion);
                    if let Some(debug) = &i.debug_text {
                        // CPython leaves out a comment after the `=` (PEP 701 allows
                        // one in a multi-line field).
                        let text = format!(
                            "{}{}{}",
                            without_comments(debug.leading()),
                            debug.expression(),
                            without_comments(debug.trailing())
                        );
                        let text = super::restore_surrogate_escapes(&text);
                        parts.push_text(&text, range, false);
                        if i.format_spec.is_none() && conversion == ast::ConversionFlag::None {
                            conversion = ast::ConversionFlag::Repr;
                        }
                    }
                    parts.flush();
                    let format_spec = match &mut i.format_spec {
                        Some(spec) => {
                            let mut inner = FStringParts::default();
                            self.elements(&mut spec.elements, &mut inner)?;
                            inner.flush();
                            Some(Box::new(ast::Expr::JoinedStr(ast::ExprJoinedStr {
                                range: self.range(&**spec),
                                values: inner.values,
                            })))
                        }
                        None => None,
                    };
                    parts
                        .values
                        .push(ast::Expr::FormattedValue(ast::ExprFormattedValue {
                            range,
                            value: self.boxed(std::mem::replace(
                                &mut i.expression,
                                r::Expr::NoneLiteral(Default::default()),
                            ))?,
                            conversion,
                            format_spec,
                        }));
                }
            }
        }
        Ok(())
    }

    fn pattern(&self, p: r::Pattern) -> Res<ast::Pattern> {
        use r::Pattern as P;
        let range = self.range(&p);
        let patterns = |list: Vec<r::Pattern>| -> Res<Vec<ast::Pattern>> {
            list.into_iter().map(|p| self.pattern(p)).collect()
        };
        Ok(match p {
            P::MatchValue(x) => ast::Pattern::MatchValue(ast::PatternMatchValue {
                range,
                value: self.boxed(*x.value)?,
            }),
            P::MatchSingleton(x) => ast::Pattern::MatchSingleton(ast::PatternMatchSingleton {
                range,
                value: match x.value {
                    r::Singleton::None => ast::Constant::None,
                    r::Singleton::True => ast::Constant::Bool(true),
                    r::Singleton::False => ast::Constant::Bool(false),
                },
            }),
            P::MatchSequence(x) => ast::Pattern::MatchSequence(ast::PatternMatchSequence {
                range,
                patterns: patterns(x.patterns)?,
            }),
            P::MatchMapping(x) => ast::Pattern::MatchMapping(ast::PatternMatchMapping {
                range,
                keys: self.exprs(x.keys)?,
                patterns: patterns(x.patterns.into_iter().collect())?,
                rest: x.rest.as_ref().map(Self::ident),
            }),
            P::MatchClass(x) => {
                let mut kwd_attrs = Vec::new();
                let mut kwd_patterns = Vec::new();
                for k in x.arguments.keywords {
                    kwd_attrs.push(Self::ident(&k.attr));
                    kwd_patterns.push(self.pattern(k.pattern)?);
                }
                ast::Pattern::MatchClass(ast::PatternMatchClass {
                    range,
                    cls: self.boxed(*x.cls)?,
                    patterns: patterns(x.arguments.patterns.into_iter().collect())?,
                    kwd_attrs,
                    kwd_patterns,
                })
            }
            P::MatchStar(x) => ast::Pattern::MatchStar(ast::PatternMatchStar {
                range,
                name: x.name.as_ref().map(Self::ident),
            }),
            P::MatchAs(x) => ast::Pattern::MatchAs(ast::PatternMatchAs {
                range,
                pattern: x
                    .pattern
                    .map(|p| self.pattern(*p).map(Box::new))
                    .transpose()?,
                name: x.name.as_ref().map(Self::ident),
            }),
            P::MatchOr(x) => ast::Pattern::MatchOr(ast::PatternMatchOr {
                range,
                patterns: patterns(x.patterns)?,
            }),
        })
    }
}

/// The values of a `JoinedStr` being built: text waits in `text` until a replacement
/// field or the end, so adjacent pieces become one constant.
#[derive(Default)]
struct FStringParts {
    values: Vec<ast::Expr>,
    text: String,
    text_range: Option<TextRange>,
    /// Whether the run of text being gathered started with a `u` string; `None` when
    /// no run is open.
    run_is_u: Option<bool>,
}

impl FStringParts {
    fn push_text(&mut self, text: &str, range: TextRange, u: bool) {
        self.run_is_u.get_or_insert(u);
        if text.is_empty() {
            return;
        }
        self.text.push_str(text);
        self.text_range = Some(self.text_range.map_or(range, |r| r.cover(range)));
    }

    fn flush(&mut self) {
        let u = self.run_is_u.take() == Some(true);
        if let Some(range) = self.text_range.take() {
            let text = std::mem::take(&mut self.text);
            let kind = u.then(|| "u".to_owned());
            self.values
                .push(Converter::constant(range, ast::Constant::Str(text), kind));
        }
    }
}

/// `text`, blanks and comments only, without its comments.
fn without_comments(text: &str) -> Cow<'_, str> {
    if !text.contains('#') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line.find('#') {
            Some(at) => {
                out.push_str(&line[..at]);
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            None => out.push_str(line),
        }
    }
    Cow::Owned(out)
}

/// The value of an integer literal as ruff prints it: its decimal value, or, when it
/// does not fit 64 bits, its text as written (`0xFFFF_FFFF_FFFF_FFFF_FF`).
fn int_value(text: &str) -> Option<BigInt> {
    let digits: String = text.chars().filter(|&c| c != '_').collect();
    let lower = digits.to_ascii_lowercase();
    let (radix, body) = match lower.get(..2) {
        Some("0x") => (16, &lower[2..]),
        Some("0o") => (8, &lower[2..]),
        Some("0b") => (2, &lower[2..]),
        _ => (10, &lower[..]),
    };
    BigInt::parse_bytes(body.as_bytes(), radix)
}

fn operator(op: r::Operator) -> ast::Operator {
    use r::Operator as O;
    match op {
        O::Add => ast::Operator::Add,
        O::Sub => ast::Operator::Sub,
        O::Mult => ast::Operator::Mult,
        O::MatMult => ast::Operator::MatMult,
        O::Div => ast::Operator::Div,
        O::Mod => ast::Operator::Mod,
        O::Pow => ast::Operator::Pow,
        O::LShift => ast::Operator::LShift,
        O::RShift => ast::Operator::RShift,
        O::BitOr => ast::Operator::BitOr,
        O::BitXor => ast::Operator::BitXor,
        O::BitAnd => ast::Operator::BitAnd,
        O::FloorDiv => ast::Operator::FloorDiv,
    }
}

fn cmp_op(op: r::CmpOp) -> ast::CmpOp {
    use r::CmpOp as C;
    match op {
        C::Eq => ast::CmpOp::Eq,
        C::NotEq => ast::CmpOp::NotEq,
        C::Lt => ast::CmpOp::Lt,
        C::LtE => ast::CmpOp::LtE,
        C::Gt => ast::CmpOp::Gt,
        C::GtE => ast::CmpOp::GtE,
        C::Is => ast::CmpOp::Is,
        C::IsNot => ast::CmpOp::IsNot,
        C::In => ast::CmpOp::In,
        C::NotIn => ast::CmpOp::NotIn,
    }
}

fn context(ctx: r::ExprContext) -> ast::ExprContext {
    match ctx {
        r::ExprContext::Store => ast::ExprContext::Store,
        r::ExprContext::Del => ast::ExprContext::Del,
        r::ExprContext::Load | r::ExprContext::Invalid => ast::ExprContext::Load,
    }
}

fn conversion(flag: r::ConversionFlag) -> ast::ConversionFlag {
    match flag {
        r::ConversionFlag::None => ast::ConversionFlag::None,
        r::ConversionFlag::Str => ast::ConversionFlag::Str,
        r::ConversionFlag::Ascii => ast::ConversionFlag::Ascii,
        r::ConversionFlag::Repr => ast::ConversionFlag::Repr,
    }
}

#[cfg(test)]
mod tests {
    use super::int_value;
    use num_bigint::BigInt;

    #[test]
    fn integers_of_every_base() {
        assert_eq!(int_value("42"), Some(BigInt::from(42)));
        assert_eq!(
            int_value("0xFFFF_FFFF_FFFF_FFFF_FF"),
            Some(BigInt::from(0xFF_FFFF_FFFF_FFFF_FFFFu128))
        );
        assert_eq!(int_value("0o17"), Some(BigInt::from(15)));
        assert_eq!(int_value("0B101"), Some(BigInt::from(5)));
        assert_eq!(int_value("1_000"), Some(BigInt::from(1000)));
        assert_eq!(int_value("x"), None);
    }
}
