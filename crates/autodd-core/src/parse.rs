//! The one module that talks to rustpython-parser: parsing a module, lexing its
//! comments, and turning byte offsets into line/column positions. Swapping the
//! parser means rewriting this file only (the AST types are re-exported from here).

pub use rustpython_ast as ast;
use rustpython_parser::{lexer::lex, Mode, Tok};

use crate::error::{Error, ErrorCode};

/// Parses a whole module. A syntax error comes back as an [`Error`] with the line and
/// column where the parser gave up.
pub fn parse_module(source: &str) -> Result<Vec<ast::Stmt>, Error> {
    match rustpython_parser::parse(source, Mode::Module, "<input>") {
        Ok(ast::Mod::Module(m)) => Ok(m.body),
        Ok(_) => Err(Error::new(ErrorCode::SyntaxError, "expected a module")),
        Err(e) => {
            let index = LineIndex::new(source);
            let offset = u32::from(e.offset) as usize;
            let pos = index.position(source, offset);
            Err(Error {
                code: ErrorCode::SyntaxError,
                message: format!("syntax error: {}", e.error),
                line: Some(pos.line),
                column: Some(pos.column),
                column_utf16: Some(pos.column_utf16),
            })
        }
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
    let index = LineIndex::new(source);
    let mut out = Vec::new();
    for (tok, range) in lex(source, Mode::Module).flatten() {
        if let Tok::Comment(text) = tok {
            let pos = index.position(source, u32::from(range.start()) as usize);
            out.push(Comment {
                line: pos.line,
                column: pos.column,
                text,
            });
        }
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

    #[test]
    fn syntax_error_has_position() {
        let err = parse_module("x = 1\ny = (\n").unwrap_err();
        assert_eq!(err.code, ErrorCode::SyntaxError);
        assert!(err.line.is_some());
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
