//! The one module that talks to the parser: parsing a module, finding its comments,
//! and turning byte offsets into line/column positions.
//!
//! Programs are read by ruff's parser (`ruff_python_parser`, Python 3.7 to 3.14) and
//! its tree is converted (`convert.rs`) into the rustpython AST, CPython's `ast`,
//! which the rest of the core works on (the types are re-exported from here as
//! [`ast`]). docs/parser.md says why.

mod convert;

pub use rustpython_ast as ast;
use std::borrow::Cow;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::PySourceType;
use rustpython_ast::text_size::{TextRange, TextSize};
use rustpython_ast::Fold;

use crate::error::{Error, ErrorCode};
use crate::hash::FastMap;

/// Where lone surrogates (`'\ud800'`) live inside parsed strings. A Rust string
/// cannot hold a surrogate, and the parser would turn one into U+FFFD, so before
/// parsing, a surrogate escape in a string literal is rewritten to the escape of
/// `SURROGATE_BASE + (s - 0xD800)`, a private-use character; the printer writes
/// characters of that range back as `\uXXXX` surrogate escapes. (A program that
/// holds these exact private-use characters literally would print them as
/// surrogates: none is known.)
pub const SURROGATE_BASE: u32 = 0xF_5800;

/// The surrogate a character of the private-use range stands for, if it is one.
pub fn surrogate_of(c: char) -> Option<u32> {
    let c = c as u32;
    (SURROGATE_BASE..SURROGATE_BASE + 0x800)
        .contains(&c)
        .then(|| 0xD800 + (c - SURROGATE_BASE))
}

/// Where a text handed to the parser and the text it was made from differ in length:
/// from each offset on (in the new text), how many bytes the new text is ahead.
#[derive(Debug, Default)]
struct Shifts(Vec<(u32, i64)>);

impl Shifts {
    /// Records that from `at` on (new text) the new text is `ahead` bytes ahead.
    fn push(&mut self, at: usize, ahead: i64) {
        self.0.push((at as u32, ahead));
    }

    /// The offset in the old text of offset `at` of the new one.
    fn back(&self, at: u32) -> u32 {
        match self.0.partition_point(|&(from, _)| from <= at) {
            0 => at,
            i => (i64::from(at) - self.0[i - 1].1).max(0) as u32,
        }
    }
}

/// The text the parser reads, made from the user's source in two steps, each with
/// the shifts that map its offsets back, so that every range in the tree counts in
/// the user's source (the freeze pass and the playground read lines and columns
/// there).
struct Prepared<'a> {
    text: Cow<'a, str>,
    /// Newlines, then surrogates: applied backwards to go back to the source.
    steps: [Shifts; 2],
}

impl Prepared<'_> {
    fn to_source(&self, at: u32) -> u32 {
        self.steps.iter().rev().fold(at, |at, step| step.back(at))
    }
}

/// Whether [`prepare`] may rewrite `source`, which moves its offsets.
fn needs_preparing(source: &str) -> bool {
    source.contains('\r') || may_hold_surrogates(source)
}

/// Whether `source` may hold a surrogate escape (`\ud800`, `\U0000d800`).
fn may_hold_surrogates(source: &str) -> bool {
    source.contains("\\ud") || source.contains("\\uD") || source.contains("\\U0000")
}

fn prepare(source: &str) -> Prepared<'_> {
    let (text, newlines) = normalize_newlines(source);
    let (text, surrogates) = match text {
        Cow::Borrowed(text) => protect_surrogates(text),
        Cow::Owned(text) => {
            let (protected, shifts) = protect_surrogates(&text);
            let protected = match protected {
                Cow::Borrowed(_) => text,
                Cow::Owned(protected) => protected,
            };
            (Cow::Owned(protected), shifts)
        }
    };
    Prepared {
        text,
        steps: [newlines, surrogates],
    }
}

/// `source` with its line breaks as Python reads them: `\r\n` and a lone `\r` become
/// `\n`, also inside strings (CPython translates them before tokenizing; ruff's parser
/// keeps them, and a triple-quoted string would keep a `\r`).
fn normalize_newlines(source: &str) -> (Cow<'_, str>, Shifts) {
    let mut shifts = Shifts::default();
    if !source.contains('\r') {
        return (Cow::Borrowed(source), shifts);
    }
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'\r' {
            i += 1;
            continue;
        }
        out.push_str(&source[copied..i]);
        out.push('\n');
        if bytes.get(i + 1) == Some(&b'\n') {
            i += 2;
            shifts.push(out.len(), out.len() as i64 - i as i64);
        } else {
            i += 1;
        }
        copied = i;
    }
    out.push_str(&source[copied..]);
    (Cow::Owned(out), shifts)
}

/// `source` with surrogate escapes in (non-raw, non-bytes) string literals
/// rewritten as described at [`SURROGATE_BASE`]; borrowed when there are none.
fn protect_surrogates(source: &str) -> (Cow<'_, str>, Shifts) {
    let mut shifts = Shifts::default();
    if !may_hold_surrogates(source) {
        return (Cow::Borrowed(source), shifts);
    }
    let mut out = String::with_capacity(source.len() + 16);
    let mut copied = 0;
    let parsed = ruff_python_parser::parse_unchecked_source(source, PySourceType::Python);
    for token in parsed.tokens().iter() {
        if !matches!(token.kind(), TokenKind::String | TokenKind::FStringMiddle) {
            continue;
        }
        let flags = token.unwrap_string_flags();
        if flags.is_raw_string() || flags.is_byte_string() {
            continue;
        }
        let range = ruff_text_size::Ranged::range(token);
        let (start, end) = (
            u32::from(range.start()) as usize,
            u32::from(range.end()) as usize,
        );
        let Some(text) = source.get(start..end) else {
            continue;
        };
        out.push_str(&source[copied..start]);
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] != b'\\' || i + 1 >= bytes.len() {
                let ch_len = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..i + ch_len]);
                i += ch_len;
                continue;
            }
            let digits = match bytes[i + 1] {
                b'u' => 4,
                b'U' => 8,
                _ => 0,
            };
            let value = text
                .get(i + 2..i + 2 + digits)
                .filter(|h| digits > 0 && h.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|h| u32::from_str_radix(h, 16).ok());
            match value {
                Some(v) if (0xD800..0xE000).contains(&v) => {
                    out.push_str(&format!("\\U{:08x}", SURROGATE_BASE + (v - 0xD800)));
                    i += 2 + digits;
                    shifts.push(out.len(), out.len() as i64 - (start + i) as i64);
                }
                _ => {
                    // Copy the backslash and the character it escapes (so `\\ud800`
                    // stays a backslash followed by text).
                    out.push('\\');
                    let next_len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    out.push_str(&text[i + 1..i + 1 + next_len]);
                    i += 1 + next_len;
                }
            }
        }
        copied = end;
    }
    out.push_str(&source[copied..]);
    (Cow::Owned(out), shifts)
}

/// A surrogate escape as the user wrote it (`\\ud800`) in `text`, copied from the
/// parsed text, where [`protect_surrogates`] wrote its stand-in (`\\U000f5800`).
fn restore_surrogate_escapes(text: &str) -> Cow<'_, str> {
    const STAND_IN: &str = "\\U000f5";
    if !text.contains(STAND_IN) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(STAND_IN) {
        out.push_str(&rest[..at]);
        let digits = rest.get(at + STAND_IN.len()..at + STAND_IN.len() + 3);
        let value = digits
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .and_then(|low| char::from_u32(0xF_5000 + low))
            .and_then(surrogate_of);
        match value {
            Some(surrogate) => {
                out.push_str(&format!("\\u{surrogate:04x}"));
                rest = &rest[at + STAND_IN.len() + 3..];
            }
            None => {
                out.push_str(STAND_IN);
                rest = &rest[at + STAND_IN.len()..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Parses a whole module. A syntax error comes back as an [`Error`] with the line and
/// column where the parser gave up; a construct the AST cannot hold, with its name.
pub fn parse_module(source: &str) -> Result<Vec<ast::Stmt>, Error> {
    let prepared = prepare(source);
    parse_at(&prepared.text, 0, &|at| prepared.to_source(at)).map_err(|(message, offset)| {
        let pos = LineIndex::new(source).position(source, offset as usize);
        Error {
            code: ErrorCode::SyntaxError,
            message,
            line: Some(pos.line),
            column: Some(pos.column),
            column_utf16: Some(pos.column_utf16),
        }
    })
}

/// `text`, which starts at byte `base` of a larger text, parsed into statements whose
/// ranges count in the source `to_source` maps that larger text's offsets to; an
/// error is its message and offset there.
fn parse_at(
    text: &str,
    base: u32,
    to_source: &dyn Fn(u32) -> u32,
) -> Result<Vec<ast::Stmt>, (String, u32)> {
    let parsed = ruff_python_parser::parse_module(text).map_err(|e| {
        (
            format!("syntax error: {}", e.error),
            to_source(u32::from(e.location.start()) + base),
        )
    })?;
    convert::Converter {
        text,
        base,
        to_source,
    }
    .stmts(parsed.into_syntax().body)
    .map_err(|u| {
        let message = format!("autodd cannot reduce {} yet", u.what);
        (message, u.at)
    })
}

/// A module printed by autodd, whose top-level statements start at `starts`, parsed
/// again, as [`parse_module`] would: the statements whose text is that of a statement
/// of `old` (printed as `old_source` with starts `old_starts`) are copied from `old`
/// with their ranges moved, and only the others are parsed. An accepted candidate
/// usually changes one or two top-level statements, and parsing the whole program
/// again was a third of the engine's time. Anything unusual (a surrogate escape, which
/// [`parse_module`] rewrites before parsing; a piece that is not one statement) is
/// parsed whole.
pub fn reparse_module(
    source: &str,
    starts: &[usize],
    old_source: &str,
    old_starts: &[usize],
    old: &[ast::Stmt],
) -> Result<Vec<ast::Stmt>, Error> {
    let whole = || parse_module(source);
    let (Some(pieces), Some(old_pieces)) = (pieces(source, starts), pieces(old_source, old_starts))
    else {
        return whole();
    };
    if old_pieces.len() != old.len() || needs_preparing(source) {
        return whole();
    }
    let known: FastMap<&str, usize> = old_pieces
        .iter()
        .enumerate()
        .map(|(i, &(_, text))| (text, i))
        .collect();
    let mut body = Vec::with_capacity(pieces.len());
    for (start, text) in pieces {
        if let Some(&i) = known.get(text) {
            let from = old_pieces[i].0;
            let mut shift = Shift { from, to: start };
            let Ok(stmt) = shift.fold_stmt(old[i].clone());
            body.push(stmt);
            continue;
        }
        let Ok(offset) = u32::try_from(start) else {
            return whole();
        };
        match parse_at(text, offset, &|at| at) {
            Ok(stmts) if stmts.len() == 1 => body.extend(stmts),
            _ => return whole(),
        }
    }
    Ok(body)
}

/// `text` cut at `starts` into (start, piece) pairs; None unless the starts are
/// increasing offsets at character boundaries beginning with 0.
fn pieces<'a>(text: &'a str, starts: &[usize]) -> Option<Vec<(usize, &'a str)>> {
    if starts.first() != Some(&0) {
        return None;
    }
    let mut out = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        out.push((start, text.get(start..end)?));
    }
    Some(out)
}

/// Moves every range of a node from where its text started (`from`) to where it
/// starts now (`to`).
struct Shift {
    from: usize,
    to: usize,
}

impl Fold<TextRange> for Shift {
    type TargetU = TextRange;
    type Error = std::convert::Infallible;
    type UserContext = ();

    fn will_map_user(&mut self, _: &TextRange) {}

    fn map_user(&mut self, range: TextRange, _: ()) -> Result<TextRange, Self::Error> {
        let moved = |at: TextSize| {
            (usize::from(at) + self.to)
                .checked_sub(self.from)
                .and_then(|at| u32::try_from(at).ok())
                .map_or(at, TextSize::from)
        };
        Ok(TextRange::new(moved(range.start()), moved(range.end())))
    }
}

/// A `#` comment of the source, with the 1-based line and column where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    pub line: u32,
    pub column: u32,
    /// The comment text including its `#`.
    pub text: String,
}

/// All comments of a source that lexes. Comments inside strings are not comments,
/// which is why this asks the lexer instead of scanning lines.
pub fn comments(source: &str) -> Vec<Comment> {
    let parsed = ruff_python_parser::parse_unchecked_source(source, PySourceType::Python);
    let index = LineIndex::new(source);
    let mut out = Vec::new();
    for token in parsed.tokens().iter() {
        if token.kind() != TokenKind::Comment {
            continue;
        }
        let range = ruff_text_size::Ranged::range(token);
        let (start, end) = (usize::from(range.start()), usize::from(range.end()));
        let pos = index.position(source, start);
        out.push(Comment {
            line: pos.line,
            column: pos.column,
            text: source.get(start..end).unwrap_or("").to_owned(),
        });
    }
    out
}

/// A 1-based position in a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Position {
    pub line: u32,
    /// 1-based, in Unicode scalar values.
    pub column: u32,
    /// 1-based, in UTF-16 code units, as JavaScript strings count.
    pub column_utf16: u32,
}

/// Byte offsets of line starts, for turning offsets into [`Position`]s.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(source: &str) -> Self {
        let mut starts = vec![0];
        let bytes = source.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        LineIndex { starts }
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> u32 {
        let idx = self.starts.partition_point(|&s| s <= offset);
        idx.max(1) as u32
    }

    /// Byte offset where 1-based `line` starts.
    pub fn line_start(&self, line: u32) -> usize {
        self.starts
            .get(line.saturating_sub(1) as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Line and columns of a byte offset; offsets past the end clamp to the end.
    pub fn position(&self, source: &str, offset: usize) -> Position {
        let offset = offset.min(source.len());
        let line = self.line(offset);
        let start = self.starts[(line - 1) as usize];
        let prefix = source.get(start..offset).unwrap_or("");
        Position {
            line,
            column: prefix.chars().count() as u32 + 1,
            column_utf16: prefix.encode_utf16().count() as u32 + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `new` parsed by reparse_module from `old`, both printed by autodd.
    fn reparsed(old: &str, new: &str) -> Vec<ast::Stmt> {
        use crate::unparse::unparse_module_starts;
        let (old, old_starts) = unparse_module_starts(&parse_module(old).unwrap(), None);
        let old_body = parse_module(&old).unwrap();
        let (new, starts) = unparse_module_starts(&parse_module(new).unwrap(), None);
        let body = reparse_module(&new, &starts, &old, &old_starts, &old_body).unwrap();
        assert!(body == parse_module(&new).unwrap(), "reparse of {new:?}");
        body
    }

    #[test]
    fn reparse_copies_unchanged_statements_with_their_ranges_moved() {
        let old = "import os\n@deco(1)\ndef f(a, b=2):\n    return [a + x for x in b]\nx = f(1)\nx = f(1)\nclass C:\n    y: int = 3\n";
        // A statement changed, one removed, one repeated: the rest moves.
        reparsed(old, "@deco(1)\ndef f(a, b=2):\n    return [a for x in b]\nx = f(1)\nclass C:\n    y: int = 3\nx = f(1)\n");
        reparsed(old, "x = f(1)\n");
        reparsed(old, "print('new')\n");
    }

    #[test]
    fn reparse_falls_back_to_a_whole_parse() {
        // Surrogate escapes are rewritten before parsing, which moves offsets.
        let body = reparsed("s = 1\n", "s = '\\ud800'\nt = 2\n");
        assert_eq!(body.len(), 2);
        // Starts that do not cut the text into statements.
        let old = "a = 1\nb = 2\n";
        let old_body = parse_module(old).unwrap();
        let new = "a = 1\nb = 3\n";
        let body = reparse_module(new, &[0, 2], old, &[0, 6], &old_body).unwrap();
        assert!(body == parse_module(new).unwrap());
        assert!(reparse_module("a = (\n", &[0], old, &[0, 6], &old_body).is_err());
    }

    /// The text of each top-level statement, cut from `source` at its range.
    fn statement_texts(source: &str) -> Vec<&str> {
        use rustpython_ast::Ranged;
        parse_module(source)
            .unwrap()
            .iter()
            .map(|s| &source[usize::from(s.start())..usize::from(s.end())])
            .collect()
    }

    fn first_value(source: &str) -> ast::Expr {
        match parse_module(source).unwrap().remove(0) {
            ast::Stmt::Assign(a) => *a.value,
            ast::Stmt::Expr(e) => *e.value,
            other => panic!("not an assignment: {other:?}"),
        }
    }

    #[test]
    fn line_breaks_are_read_as_python_reads_them() {
        // Inside a string too, and ranges still count in the user's source.
        let src = "x = '''a\r\nb\rc'''\r\ndef f():\r\n    pass\r\ny = 1\r\n";
        let ast::Expr::Constant(c) = first_value(src) else {
            panic!("not a constant")
        };
        assert_eq!(c.value, ast::Constant::Str("a\nb\nc".to_owned()));
        assert_eq!(
            statement_texts(src),
            ["x = '''a\r\nb\rc'''", "def f():\r\n    pass", "y = 1"]
        );
    }

    #[test]
    fn ranges_after_a_surrogate_escape_count_in_the_source() {
        let src = "s = '\\ud800' + f'{\"\\udc00\"=}'\n@d\ndef f(): pass\n";
        assert_eq!(statement_texts(src)[1], "def f(): pass");
        // A debug field's text is the source's, escape and all.
        let ast::Expr::BinOp(op) = first_value(src) else {
            panic!("not a binop")
        };
        let ast::Expr::JoinedStr(j) = *op.right else {
            panic!("not an f-string")
        };
        let ast::Expr::Constant(text) = &j.values[0] else {
            panic!("no text")
        };
        assert_eq!(text.value, ast::Constant::Str("\"\\udc00\"=".to_owned()));
    }

    #[test]
    fn a_run_of_text_is_u_when_its_first_piece_is() {
        let kinds = |src: &str| -> Vec<Option<String>> {
            let ast::Expr::JoinedStr(j) = first_value(src) else {
                panic!("not an f-string")
            };
            j.values
                .iter()
                .filter_map(|v| match v {
                    ast::Expr::Constant(c) => Some(c.kind.clone()),
                    _ => None,
                })
                .collect()
        };
        let u = || Some("u".to_owned());
        assert_eq!(kinds("u'a' f'{x}' 'b'\n"), [u(), None]);
        assert_eq!(kinds("f'{x}' u'a'\n"), [u()]);
        assert_eq!(kinds("f'{x}' u'' 'b'\n"), [u()]);
        assert_eq!(kinds("U'a' f'{x}'\n"), [None]);
        let ast::Expr::Constant(c) = first_value("U'a' 'b'\n") else {
            panic!("not a constant")
        };
        assert_eq!(c.kind, None);
    }

    #[test]
    fn constructs_without_a_node_are_refused_by_name() {
        let err = parse_module("x = 1\nname = t'hi {x}'\n").unwrap_err();
        assert_eq!(err.code, ErrorCode::SyntaxError);
        assert_eq!(
            err.message,
            "autodd cannot reduce a template string (PEP 750) yet"
        );
        assert_eq!((err.line, err.column), (Some(2), Some(8)));
        let err = parse_module("def f[T = int](x: T) -> T:\n    return x\n").unwrap_err();
        assert!(err
            .message
            .contains("a default of a type parameter (PEP 696)"));
        assert_eq!((err.line, err.column), (Some(1), Some(11)));
    }

    #[test]
    fn decorated_definitions_start_at_their_keyword() {
        use rustpython_ast::Ranged;
        let lf = "@dec\nasync \\\n  def f():\n    pass\n@dec\nclass C: pass\n";
        for src in [lf.to_owned(), lf.replace('\n', "\r\n")] {
            let body = parse_module(&src).unwrap();
            let at = |i: usize| usize::from(body[i].range().start());
            assert_eq!(&src[at(0)..at(0) + 5], "async");
            assert_eq!(&src[at(1)..at(1) + 5], "class");
        }
    }

    #[test]
    fn syntax_error_has_position() {
        let err = parse_module("x = 1\ny = (\n").unwrap_err();
        assert_eq!(err.code, ErrorCode::SyntaxError);
        assert!(err.line.is_some());
    }

    #[test]
    fn surrogate_escapes_survive_parsing() {
        let body = parse_module("s = '\\ud800x\\\\ud800' + r'\\udc00'\n").unwrap();
        let ast::Stmt::Assign(assign) = &body[0] else {
            panic!("not an assignment")
        };
        let ast::Expr::BinOp(op) = &*assign.value else {
            panic!("not a binop")
        };
        let text = |e: &ast::Expr| match e {
            ast::Expr::Constant(c) => match &c.value {
                ast::Constant::Str(s) => s.clone(),
                _ => panic!("not a str"),
            },
            _ => panic!("not a constant"),
        };
        // The escaped surrogate became its private-use stand-in; the escaped
        // backslash and the raw string did not change.
        assert_eq!(text(&op.left), "\u{f5800}x\\ud800");
        assert_eq!(text(&op.right), "\\udc00");
        assert_eq!(surrogate_of('\u{f5800}'), Some(0xD800));
        assert_eq!(surrogate_of('a'), None);
    }

    #[test]
    fn comments_skip_strings() {
        let src = "s = '''\n# not a comment\n'''\nx = 1  # real\n";
        let c = comments(src);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].line, 4);
        assert_eq!(c[0].text, "# real");
    }

    #[test]
    fn positions_count_utf16() {
        let src = "a = '😀'; b";
        let idx = LineIndex::new(src);
        let off = src.find("; b").unwrap();
        let p = idx.position(src, off);
        assert_eq!(p.column, 8);
        assert_eq!(p.column_utf16, 9);
    }
}
