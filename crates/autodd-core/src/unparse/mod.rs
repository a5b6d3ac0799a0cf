//! Prints an AST back to Python source.
//!
//! The reducer edits the AST and needs every candidate as text, so this printer is
//! built to be *faithful*: for any program `P` that CPython 3.11 accepts, parsing the
//! printed text gives the same AST as parsing `P` (`ast.dump` equality, including
//! `Constant.kind`), and printing is idempotent. It is not a formatter: comments and
//! blank lines are gone, parentheses are the minimum a precedence table asks for,
//! strings are printed like Python's `repr`, and every statement gets its own line
//! (which a string kept as written, over several lines, may span).
//!
//! Output must also parse under CPython 3.11, whose f-strings cannot reuse the
//! enclosing quote or contain a backslash inside a replacement field; the f-string code
//! in `literal.rs` picks quotes accordingly.
//!
//! The printer writes into one `String` and never panics, whatever AST it is handed
//! (the engine may produce shapes the parser never would, such as an empty set).
//!
//! Given the text a tree was parsed from ([`Written`]), the printer writes each literal
//! that still holds its value as it was written there (`"x"`, `r'\d'`, `0x1F`), so a
//! candidate keeps the user's spelling and what hangs on it (a `SyntaxWarning` about
//! an escape, a DSL that echoes its source).
//!
//! `tests/roundtrip_stdlib.py` checks faithfulness against the CPython standard
//! library; `crates/autodd-core/tests/print.rs` holds the snapshot tests.

mod expr;
mod literal;
mod pattern;
mod stmt;
mod written;

pub use written::Written;

use crate::parse::ast;

/// Prints a module body as Python source: one statement per line, 4-space indents,
/// ending with a newline. An empty body prints as the empty string.
pub fn unparse_module(body: &[ast::Stmt]) -> String {
    let mut p = Printer::new(None);
    p.stmts(body);
    p.out
}

/// [`unparse_module`] of a tree parsed from a text, its literals as written there.
pub fn unparse_module_written(body: &[ast::Stmt], written: &Written) -> String {
    let mut p = Printer::new(Some(written));
    p.stmts(body);
    p.out
}

/// [`unparse_module`], and where each top-level statement starts in the text (for
/// [`crate::parse::reparse_module`]); literals as `written` has them, if given.
pub fn unparse_module_starts(
    body: &[ast::Stmt],
    written: Option<&Written>,
) -> (String, Vec<usize>) {
    let pieces: Vec<Piece> = body.iter().map(Piece::Stmt).collect();
    unparse_pieces(&pieces, written)
}

/// A top-level statement of a module to print: one to print, or one whose printed
/// text is at hand (a statement kept unchanged from a program printed before).
#[derive(Debug, Clone, Copy)]
pub enum Piece<'a> {
    Stmt(&'a ast::Stmt),
    Printed(&'a str),
}

/// [`unparse_module_starts`] of a module given as pieces. Top-level statements print
/// the same whatever surrounds them, so the text of a statement printed before can be
/// copied instead of printed again.
pub fn unparse_pieces(pieces: &[Piece], written: Option<&Written>) -> (String, Vec<usize>) {
    let mut p = Printer::new(written);
    let mut starts = Vec::with_capacity(pieces.len());
    for piece in pieces {
        starts.push(p.out.len());
        match piece {
            Piece::Stmt(stmt) => p.stmt(stmt),
            Piece::Printed(text) => p.out.push_str(text),
        }
    }
    (p.out, starts)
}

/// Prints one statement (and its nested blocks) at indentation level 0, ending with
/// a newline.
pub fn unparse_stmt(stmt: &ast::Stmt) -> String {
    let mut p = Printer::new(None);
    p.stmt(stmt);
    p.out
}

/// Prints one expression as it would appear as an expression statement (a bare tuple
/// is printed without parentheses), with no trailing newline.
pub fn unparse_expr(e: &ast::Expr) -> String {
    let mut p = Printer::new(None);
    p.expr(e, expr::prec::YIELD);
    p.out
}

/// Bit of a quote character in [`Printer::fquotes`].
const fn quote_bit(q: char) -> u8 {
    if q == '"' {
        2
    } else {
        1
    }
}

/// The printing state shared by statements, expressions and literals.
struct Printer<'a> {
    out: String,
    /// How the literals were written in the text the tree was parsed from.
    written: Option<&'a Written>,
    /// Current indentation level (4 spaces each).
    indent: usize,
    /// Quote characters of the single-quoted f-strings whose replacement field we
    /// are printing in (bit 1: `'`, bit 2: `"`). CPython 3.11 forbids those quotes and
    /// any backslash there, so literals nested in a replacement field avoid them.
    fquotes: u8,
    /// The same for triple-quoted f-strings: there the quote character may appear,
    /// just not three in a row.
    fsoft: u8,
    /// Set when something inside a replacement field could not be written under the
    /// current quote choice; the enclosing f-string then retries with another quote.
    fstring_failed: bool,
}

impl<'a> Printer<'a> {
    fn new(written: Option<&'a Written>) -> Self {
        Printer {
            out: String::with_capacity(1024),
            written,
            indent: 0,
            fquotes: 0,
            fsoft: 0,
            fstring_failed: false,
        }
    }

    /// Starts a new line at the current indentation.
    fn line(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
    }

    fn push(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// Calls `each` on the items, writing `, ` between them.
    fn comma_list<T>(&mut self, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            each(self, item);
        }
    }
}
