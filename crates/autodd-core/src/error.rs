//! Errors are data: a stable code the hosts can switch on, a message for people,
//! and the position of a syntax error. No input-dependent path in the core panics.

use std::fmt;

/// Stable machine-readable error codes. Hosts (CLI, JS API, playground) switch on
/// [`ErrorCode::as_str`]; the strings never change once released.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCode {
    /// The source is not valid Python.
    SyntaxError,
    /// The source holds no statements at all.
    EmptySource,
    /// An option names a rewrite that does not exist.
    UnknownRewrite,
    /// A site index or another argument is out of range.
    InvalidArgument,
    /// A bug in autodd (a value the bindings could not convert); never the user's.
    Internal,
}

impl ErrorCode {
    /// The stable string form, e.g. `syntax-error`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::SyntaxError => "syntax-error",
            ErrorCode::EmptySource => "empty-source",
            ErrorCode::UnknownRewrite => "unknown-rewrite",
            ErrorCode::InvalidArgument => "invalid-argument",
            ErrorCode::Internal => "internal",
        }
    }
}

/// An error from the engine. `line` and `column` are 1-based; `column` counts
/// Unicode scalar values, `column_utf16` counts UTF-16 code units (for JS editors).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub column_utf16: Option<u32>,
}

impl Error {
    /// An error without a source position.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            line: None,
            column: None,
            column_utf16: None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(col)) => write!(f, "{} at line {line}, column {col}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}
