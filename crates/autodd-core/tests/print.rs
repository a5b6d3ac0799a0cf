//! Snapshot tests of the printer.
//!
//! Each `tests/print/NAME.py` is parsed and printed; the result must equal
//! `tests/print/NAME.expected.py`, and printing that again must give it back
//! unchanged (idempotence). `UPDATE_SNAPSHOTS=1 cargo test --test print` rewrites the
//! expected files. An expected file without its input fails the test, so renamed or
//! deleted inputs do not leave stale snapshots behind.
//!
//! Whether a printed file means the same as its input is checked against CPython by
//! `python3 tests/roundtrip_stdlib.py --dir crates/autodd-core/tests/print`.
//! The rest of this file covers ASTs only the engine can build.

use std::fs;
use std::path::{Path, PathBuf};

use autodd_core::parse::{ast, parse_module};
use autodd_core::unparse::{unparse_expr, unparse_module, unparse_stmt};

const EXPECTED: &str = ".expected.py";

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/print")
}

fn print(source: &str) -> Result<String, String> {
    parse_module(source)
        .map(|body| unparse_module(&body))
        .map_err(|e| e.to_string())
}

#[test]
fn snapshots() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1");
    let dir = snapshot_dir();
    let mut names: Vec<String> = fs::read_dir(&dir)
        .expect("tests/print exists")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    let mut failures = Vec::new();
    let mut inputs = 0;
    for name in &names {
        if let Some(stem) = name.strip_suffix(EXPECTED) {
            if !names.iter().any(|n| *n == format!("{stem}.py")) {
                failures.push(format!("{name}: unreferenced snapshot (no {stem}.py)"));
            }
            continue;
        }
        let Some(stem) = name.strip_suffix(".py") else {
            continue;
        };
        inputs += 1;
        let source = fs::read_to_string(dir.join(name)).expect("input is UTF-8");
        let printed = match print(&source) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}: does not parse: {e}"));
                continue;
            }
        };
        let expected_path = dir.join(format!("{stem}{EXPECTED}"));
        if update {
            fs::write(&expected_path, &printed).expect("can write snapshot");
        } else {
            match fs::read_to_string(&expected_path) {
                Ok(expected) if expected == printed => {}
                Ok(expected) => failures.push(format!(
                    "{name}: output differs from {stem}{EXPECTED}\n{}",
                    first_difference(&expected, &printed)
                )),
                Err(_) => failures.push(format!(
                    "{name}: no {stem}{EXPECTED} (run with UPDATE_SNAPSHOTS=1)"
                )),
            }
        }
        match print(&printed) {
            Ok(again) if again == printed => {}
            Ok(again) => failures.push(format!(
                "{name}: printing is not idempotent\n{}",
                first_difference(&printed, &again)
            )),
            Err(e) => failures.push(format!("{name}: printed text does not parse: {e}")),
        }
    }
    assert!(inputs > 0, "no inputs in {}", dir.display());
    assert!(failures.is_empty(), "\n{}\n", failures.join("\n\n"));
}

/// The first line where two texts differ, for a readable failure.
fn first_difference(expected: &str, actual: &str) -> String {
    let mut e = expected.lines();
    let mut a = actual.lines();
    for line in 1.. {
        match (e.next(), a.next()) {
            (None, None) => return "(differ only in line endings)".to_owned(),
            (x, y) if x == y => {}
            (x, y) => {
                return format!(
                    "  line {line}:\n  expected: {}\n  actual:   {}",
                    x.unwrap_or("<end>"),
                    y.unwrap_or("<end>")
                )
            }
        }
    }
    String::new()
}

fn parse(source: &str) -> Vec<ast::Stmt> {
    parse_module(source).expect("test source parses")
}

/// The value of the first expression statement of `source`.
fn expr_of(source: &str) -> ast::Expr {
    match parse(source).into_iter().next() {
        Some(ast::Stmt::Expr(e)) => *e.value,
        other => panic!("not an expression statement: {other:?}"),
    }
}

fn constant(value: ast::Constant) -> ast::Expr {
    ast::Expr::Constant(ast::ExprConstant {
        value,
        kind: None,
        range: Default::default(),
    })
}

#[test]
fn empty_module_prints_nothing() {
    assert_eq!(unparse_module(&[]), "");
    assert_eq!(print("# only a comment\n").as_deref(), Ok(""));
}

#[test]
fn empty_set_stays_a_set() {
    let mut e = expr_of("{1}");
    if let ast::Expr::Set(s) = &mut e {
        s.elts.clear();
    }
    assert_eq!(unparse_expr(&e), "{*()}");
}

#[test]
fn empty_bodies_print_pass() {
    let mut body = parse("def f():\n    x\nclass C:\n    x\nif a:\n    x\n");
    for stmt in &mut body {
        match stmt {
            ast::Stmt::FunctionDef(f) => f.body.clear(),
            ast::Stmt::ClassDef(c) => c.body.clear(),
            ast::Stmt::If(i) => i.body.clear(),
            _ => {}
        }
    }
    assert_eq!(
        unparse_module(&body),
        "def f():\n    pass\nclass C:\n    pass\nif a:\n    pass\n"
    );
}

#[test]
fn try_without_handlers_stays_valid() {
    let mut body = parse("try:\n    x\nexcept E:\n    y\n");
    if let Some(ast::Stmt::Try(t)) = body.first_mut() {
        t.handlers.clear();
    }
    assert_eq!(unparse_module(&body), "try:\n    x\nfinally:\n    pass\n");
}

#[test]
fn degenerate_operators() {
    let mut e = expr_of("a and b");
    if let ast::Expr::BoolOp(b) = &mut e {
        b.values.truncate(1);
    }
    assert_eq!(unparse_expr(&e), "a");
    let mut e = expr_of("x == y");
    if let ast::Expr::Compare(c) = &mut e {
        c.ops.clear();
        c.comparators.clear();
    }
    assert_eq!(unparse_expr(&e), "x");
}

#[test]
fn negative_constants_get_parentheses() {
    let mut e = expr_of("x ** 2");
    if let ast::Expr::BinOp(b) = &mut e {
        *b.left = constant(ast::Constant::Int((-5).into()));
    }
    assert_eq!(unparse_expr(&e), "(-5) ** 2");
    let mut e = expr_of("x.real");
    if let ast::Expr::Attribute(a) = &mut e {
        *a.value = constant(ast::Constant::Float(-0.0));
    }
    assert_eq!(unparse_expr(&e), "(-0.0).real");
}

#[test]
fn integers_too_long_for_a_decimal_literal_stay_hex() {
    // 4,300 decimal digits are the most CPython reads; 0x + 4,000 f's has 4,817.
    let big = format!("0x{}", "f".repeat(4000));
    assert_eq!(unparse_expr(&expr_of(&big)), big);
    let mut minus = expr_of("x ** 2");
    if let (ast::Expr::BinOp(b), ast::Expr::Constant(c)) = (&mut minus, expr_of(&big)) {
        if let ast::Constant::Int(i) = c.value {
            *b.left = constant(ast::Constant::Int(-i));
        }
    }
    assert_eq!(unparse_expr(&minus), format!("(-{big}) ** 2"));
    let limit = "9".repeat(4300);
    assert_eq!(unparse_expr(&expr_of(&limit)), limit);
    assert_eq!(unparse_expr(&expr_of("0xff")), "255");
}

#[test]
fn constants_the_parser_never_makes() {
    let tuple = ast::Constant::Tuple(vec![ast::Constant::Int(1.into()), ast::Constant::None]);
    assert_eq!(unparse_expr(&constant(tuple)), "(1, None)");
    let one = ast::Constant::Tuple(vec![ast::Constant::Bool(true)]);
    assert_eq!(unparse_expr(&constant(one)), "(True,)");
    let complex = ast::Constant::Complex {
        real: 1.0,
        imag: -2.0,
    };
    assert_eq!(unparse_expr(&constant(complex)), "(1.0 - 2j)");
    assert_eq!(
        unparse_expr(&constant(ast::Constant::Float(f64::NEG_INFINITY))),
        "-1e309"
    );
    assert_eq!(
        unparse_expr(&constant(ast::Constant::Float(f64::NAN))),
        "(1e309 - 1e309)"
    );
}

#[test]
fn unrepresentable_fstring_does_not_panic() {
    // A replacement field holding a string with both quote kinds, a backslash and a
    // newline cannot be written for Python 3.11; the printer still writes its best
    // attempt (valid from 3.12 on) instead of failing.
    let mut e = expr_of("f'{x}'");
    if let ast::Expr::JoinedStr(j) = &mut e {
        if let Some(ast::Expr::FormattedValue(f)) = j.values.first_mut() {
            *f.value = constant(ast::Constant::Str("both ' and \" \\ \n".into()));
        }
    }
    assert_eq!(unparse_expr(&e), r#"f'{'both \' and " \\ \n'}'"#);
}

#[test]
fn statement_and_expression_entry_points() {
    let body = parse("if a:\n    b = 1, 2\n");
    let first = body.first().expect("one statement");
    assert_eq!(unparse_stmt(first), "if a:\n    b = 1, 2\n");
    assert_eq!(unparse_expr(&expr_of("(1, 2)")), "1, 2");
    assert_eq!(unparse_expr(&expr_of("(yield x)")), "yield x");
}
