//! Literals: numbers, strings, bytes and f-strings.
//!
//! A literal not kept as written ([`super::Written`]) is printed like Python's `repr`:
//! single quotes unless the text has a single quote and no double quote (the mirror of
//! that in a program that mostly writes double quotes), escapes for backslashes, the
//! quote, control and non-printable characters. A `u` prefix is kept (it is the `kind`
//! of the constant).
//!
//! F-strings must parse under CPython 3.11, which tokenizes an f-string as a plain
//! string first: a replacement field may not contain the f-string's own quote
//! character (its triple, for a triple-quoted one) nor any backslash, even inside a
//! nested string. So a replacement field is printed with [`Printer::fquotes`] and
//! [`Printer::fsoft`] set, nested literals pick a quote outside them, and when that is
//! impossible they raise [`Printer::fstring_failed`] and the f-string tries its next
//! quote: `'`, `"`, `'''`, `"""`.

use std::fmt::Write;

use num_bigint::Sign;

use super::expr::prec;
use super::{quote_bit, Printer};
use crate::parse::ast::{self, Constant, ConversionFlag, Expr};

/// The longest decimal integer literal CPython's default `int_max_str_digits` reads.
const MAX_DECIMAL_DIGITS: usize = 4300;

/// The precedence of a constant as printed: negative numbers (only the engine makes
/// them; the parser gives a unary minus) print with a sign, like a unary operation.
pub(super) fn constant_prec(c: &Constant) -> u8 {
    match c {
        Constant::Int(i) if i.sign() == Sign::Minus => prec::FACTOR,
        Constant::Float(f) if f.is_sign_negative() && !f.is_nan() => prec::FACTOR,
        Constant::Complex { real, imag }
            if *real == 0.0 && real.is_sign_positive() && imag.is_sign_negative() =>
        {
            prec::FACTOR
        }
        _ => prec::ATOM,
    }
}

/// The quote `repr` would choose for a text containing these quote characters.
fn preferred_quote(has_single: bool, has_double: bool) -> char {
    if has_single && !has_double {
        '"'
    } else {
        '\''
    }
}

/// Whether a non-ASCII character can appear as itself in a literal. Rust's notion of
/// printable is close to Python's; either way the result is valid and reads the same.
fn printable(c: char) -> bool {
    c.escape_debug().next() != Some('\\')
}

/// Whether `c` must be escaped in a string literal quoted with `q`.
pub(super) fn needs_escape(c: char, q: char) -> bool {
    if crate::parse::surrogate_of(c).is_some() {
        return true;
    }
    if (' '..='~').contains(&c) {
        c == '\\' || c == q
    } else {
        c.is_ascii() || !printable(c)
    }
}

/// Writes the escape sequence of `c` (one that [`needs_escape`] flagged).
pub(super) fn push_escape(out: &mut String, c: char) {
    let _ = match c {
        '\\' => out.write_str("\\\\"),
        '\n' => out.write_str("\\n"),
        '\r' => out.write_str("\\r"),
        '\t' => out.write_str("\\t"),
        '\'' | '"' => {
            out.push('\\');
            out.write_char(c)
        }
        c if crate::parse::surrogate_of(c).is_some() => {
            write!(
                out,
                "\\u{:04x}",
                crate::parse::surrogate_of(c).unwrap_or(0xFFFD)
            )
        }
        c if (c as u32) < 0x100 => write!(out, "\\x{:02x}", c as u32),
        c if (c as u32) < 0x10000 => write!(out, "\\u{:04x}", c as u32),
        c => write!(out, "\\U{:08x}", c as u32),
    };
}

/// Writes the body of a string literal quoted with `q`, escaping what needs it and,
/// for an f-string, doubling braces. Runs that need nothing are copied in one go.
/// With `escape` false nothing is escaped (inside a replacement field, where the
/// caller has checked that the text needs no escape).
fn push_body(out: &mut String, s: &str, q: char, fstring: bool, escape: bool) {
    let mut run = 0;
    for (i, c) in s.char_indices() {
        let brace = fstring && (c == '{' || c == '}');
        if brace || (escape && needs_escape(c, q)) {
            out.push_str(&s[run..i]);
            if brace {
                out.push(c);
                out.push(c);
            } else {
                push_escape(out, c);
            }
            run = i + c.len_utf8();
        }
    }
    out.push_str(&s[run..]);
}

/// Whether a character cannot appear in a replacement field of CPython 3.11 whose
/// enclosing f-strings use the quotes in `fquotes`.
fn forbidden_in_field(c: char, fquotes: u8) -> bool {
    match c {
        '\\' | '\n' | '\r' | '\0' => true,
        '\'' | '"' => fquotes & quote_bit(c) != 0,
        // A surrogate is written only as an escape.
        c => crate::parse::surrogate_of(c).is_some(),
    }
}

impl Printer<'_> {
    pub(super) fn constant(&mut self, c: &Constant, kind: Option<&str>) {
        match c {
            Constant::None => self.push("None"),
            Constant::Bool(true) => self.push("True"),
            Constant::Bool(false) => self.push("False"),
            Constant::Ellipsis => self.push("..."),
            Constant::Str(s) => self.str_literal(s, kind == Some("u")),
            Constant::Bytes(b) => self.bytes_literal(b),
            Constant::Int(i) => {
                // CPython reads at most 4,300 digits of a decimal literal
                // (`sys.int_max_str_digits`); a longer number, written in hex, octal or
                // binary, or halved from one, is printed in hex.
                let decimal = i.to_string();
                if decimal.trim_start_matches('-').len() > MAX_DECIMAL_DIGITS {
                    let _ = write!(self.out, "{i:#x}");
                } else {
                    self.push(&decimal);
                }
            }
            Constant::Float(f) => self.float(*f, true),
            Constant::Complex { real, imag } => {
                if *real == 0.0 && real.is_sign_positive() {
                    self.float(*imag, false);
                    self.push("j");
                } else {
                    // Not a literal in Python; only the engine builds one.
                    self.push("(");
                    self.float(*real, true);
                    self.push(if imag.is_sign_negative() {
                        " - "
                    } else {
                        " + "
                    });
                    self.float(imag.abs(), false);
                    self.push("j)");
                }
            }
            Constant::Tuple(items) => {
                self.push("(");
                self.comma_list(items, |p, c| p.constant(c, None));
                if items.len() == 1 {
                    self.push(",");
                }
                self.push(")");
            }
        }
    }

    /// A float like Python's `repr` (shortest text that reads back the same value),
    /// with `.0` added when `point` asks for the text to stay a float literal.
    fn float(&mut self, f: f64, point: bool) {
        if f.is_nan() {
            // No literal is a NaN; only the engine could make one.
            self.push("(1e309 - 1e309)");
            return;
        }
        if f.is_infinite() {
            // The smallest decimal literal that overflows, as CPython's unparse does.
            self.push(if f < 0.0 { "-1e309" } else { "1e309" });
            return;
        }
        let start = self.out.len();
        let _ = write!(self.out, "{f:e}");
        let exp = self.out[start..]
            .rsplit('e')
            .next()
            .and_then(|e| e.parse::<i32>().ok())
            .unwrap_or(0);
        // Python switches to exponent notation outside 1e-4 <= |f| < 1e16.
        if (-4..16).contains(&exp) {
            self.out.truncate(start);
            let _ = write!(self.out, "{f}");
            if point && !self.out[start..].contains('.') {
                self.push(".0");
            }
        }
    }

    pub(super) fn str_literal(&mut self, s: &str, u: bool) {
        if u {
            self.push("u");
        }
        if self.in_field() {
            self.literal_in_field(s, |out, q, raw| push_body(out, s, q, false, !raw));
            return;
        }
        let q = self.quote(s.contains('\''), s.contains('"'));
        self.out.push(q);
        push_body(&mut self.out, s, q, false, true);
        self.out.push(q);
    }

    fn bytes_literal(&mut self, b: &[u8]) {
        self.push("b");
        let write = |out: &mut String, q: char, _raw: bool| {
            for &byte in b {
                match byte {
                    b'\\' => out.push_str("\\\\"),
                    b'\n' => out.push_str("\\n"),
                    b'\r' => out.push_str("\\r"),
                    b'\t' => out.push_str("\\t"),
                    b' '..=b'~' if byte as char == q => {
                        out.push('\\');
                        out.push(q);
                    }
                    b' '..=b'~' => out.push(byte as char),
                    _ => {
                        let _ = write!(out, "\\x{byte:02x}");
                    }
                }
            }
        };
        if self.in_field() {
            // Bytes other than printable ASCII need an escape; stand them in by a
            // backslash, which `literal_in_field` rejects. Rare, so the copy is fine.
            let text: String = b
                .iter()
                .map(|&c| match c {
                    b' '..=b'~' => c as char,
                    _ => '\\',
                })
                .collect();
            self.literal_in_field(&text, write);
            return;
        }
        let q = self.quote(b.contains(&b'\''), b.contains(&b'"'));
        self.out.push(q);
        write(&mut self.out, q, false);
        self.out.push(q);
    }

    /// The quote for a literal holding these quote characters: `repr`'s choice, or in a
    /// program whose strings are mostly written in double quotes, the mirror of it.
    fn quote(&self, has_single: bool, has_double: bool) -> char {
        if self.written.is_some_and(|w| w.prefers_double()) {
            if has_double && !has_single {
                '\''
            } else {
                '"'
            }
        } else {
            preferred_quote(has_single, has_double)
        }
    }

    /// Whether we are printing inside a replacement field of an f-string.
    pub(super) fn in_field(&self) -> bool {
        self.fquotes != 0 || self.fsoft != 0
    }

    /// Whether `text` can be written as is inside a replacement field, where
    /// `extra` quote bits are also off limits.
    fn field_text_ok(&self, text: &str, extra: u8) -> bool {
        let hard = self.fquotes | extra;
        !(text.chars().any(|c| forbidden_in_field(c, hard))
            || (self.fsoft & quote_bit('\'') != 0 && text.contains("'''"))
            || (self.fsoft & quote_bit('"') != 0 && text.contains("\"\"\"")))
    }

    /// A string or bytes literal inside a replacement field: its quote must not end
    /// an enclosing f-string, and it can have no escapes. `write` writes the body,
    /// as is when its last argument says so.
    fn literal_in_field(&mut self, text: &str, write: impl Fn(&mut String, char, bool)) {
        let usable = |q: char| !text.contains(q) && self.fquotes & quote_bit(q) == 0;
        let q = ['\'', '"'].into_iter().find(|&q| usable(q));
        let ok = q.is_some() && self.field_text_ok(text, 0);
        if !ok && self.field_text_ok(text, 0) {
            // Both quotes in the text (`x'y"z`): a triple quote that no enclosing
            // f-string uses, neither inside the text nor ending it.
            let tripled = |q: char| {
                (self.fquotes | self.fsoft) & quote_bit(q) == 0
                    && !text.contains(&q.to_string().repeat(3))
                    && !text.ends_with(q)
            };
            if let Some(q) = ['\'', '"'].into_iter().find(|&q| tripled(q)) {
                for _ in 0..3 {
                    self.out.push(q);
                }
                write(&mut self.out, q, true);
                for _ in 0..3 {
                    self.out.push(q);
                }
                return;
            }
        }
        if !ok {
            self.fstring_failed = true;
        }
        // A failed attempt is written with escapes, which is what the last-resort
        // output (valid from Python 3.12 on) wants.
        let q = q.unwrap_or('\'');
        self.out.push(q);
        write(&mut self.out, q, ok);
        self.out.push(q);
    }

    /// An f-string (a `JoinedStr`, or a lone `FormattedValue` from the engine).
    ///
    /// It tries `'`, `"`, then their triple forms (inside which a replacement field
    /// may use the same quote character singly), keeping the first whose replacement
    /// fields all print under 3.11's rules.
    pub(super) fn joined_str(&mut self, values: &[Expr]) {
        let enclosing_failed = std::mem::replace(&mut self.fstring_failed, false);
        let (mut has_single, mut has_double) = (false, false);
        for v in values {
            if let Expr::Constant(ast::ExprConstant {
                value: Constant::Str(s),
                ..
            }) = v
            {
                has_single |= s.contains('\'');
                has_double |= s.contains('"');
            }
        }
        // Not the program's preference (`Printer::quote`): an f-string is printed anew
        // every time, and a copied statement must print as it did under the last table.
        let first = preferred_quote(has_single, has_double);
        let second = if first == '"' { '\'' } else { '"' };
        let attempts = [
            (first, false),
            (second, false),
            (first, true),
            (second, true),
        ];
        // A single quote may not end an enclosing f-string; a triple one may not even
        // appear in an enclosing triple-quoted one.
        let (hard, soft) = (self.fquotes, self.fsoft);
        let allowed = |&(q, triple): &(char, bool)| {
            let bits = if triple { hard | soft } else { hard };
            bits & quote_bit(q) == 0
        };
        let start = self.out.len();
        let mut written = false;
        for &(q, triple) in attempts.iter().filter(|a| allowed(a)) {
            self.out.truncate(start);
            self.fstring_failed = false;
            self.fstring_with(values, q, triple);
            if !self.fstring_failed {
                written = true;
                break;
            }
        }
        if !written {
            // No quote works under 3.11's rules. Print the first allowed choice anyway
            // (valid from Python 3.12 on) and let an enclosing f-string retry.
            self.out.truncate(start);
            let (q, triple) = attempts
                .iter()
                .copied()
                .find(allowed)
                .unwrap_or((first, false));
            self.fstring_with(values, q, triple);
        }
        self.fstring_failed = enclosing_failed || !written;
    }

    fn fstring_with(&mut self, values: &[Expr], q: char, triple: bool) {
        let u = matches!(
            values.first(),
            Some(Expr::Constant(ast::ExprConstant { kind: Some(k), .. })) if k == "u"
        );
        if u {
            // CPython marks a run of text `u` when its first piece was a u-string; an
            // empty one in front does that for the first run. (A later run marked `u`
            // would need the f-string cut there; it is printed without the mark.)
            self.push("u");
            self.out.push(q);
            self.out.push(q);
            self.push(" ");
        }
        self.push("f");
        let delimiter = |p: &mut Self| {
            for _ in 0..if triple { 3 } else { 1 } {
                p.out.push(q);
            }
        };
        delimiter(self);
        self.fstring_parts(values, q, triple);
        delimiter(self);
    }

    fn fstring_parts(&mut self, values: &[Expr], q: char, triple: bool) {
        for v in values {
            match v {
                Expr::Constant(ast::ExprConstant {
                    value: Constant::Str(s),
                    ..
                }) => {
                    // Inside a replacement field no escape is possible: write the text
                    // as is, or fail so the enclosing f-string tries another quote.
                    let mut escape = true;
                    if self.in_field() {
                        escape = !self.field_text_ok(s, quote_bit(q));
                        self.fstring_failed |= escape;
                    }
                    push_body(&mut self.out, s, q, true, escape);
                }
                // Only the engine nests these directly; the text is the same.
                Expr::JoinedStr(j) => self.fstring_parts(&j.values, q, triple),
                Expr::FormattedValue(f) => self.replacement_field(
                    &f.value,
                    f.conversion,
                    f.format_spec.as_deref(),
                    q,
                    triple,
                ),
                other => self.replacement_field(other, ConversionFlag::None, None, q, triple),
            }
        }
    }

    /// `{value!c:spec}` inside an f-string quoted with `q` (tripled or not).
    fn replacement_field(
        &mut self,
        value: &Expr,
        conversion: ConversionFlag,
        spec: Option<&Expr>,
        q: char,
        triple: bool,
    ) {
        let saved = (self.fquotes, self.fsoft);
        let nested = self.in_field();
        if triple {
            self.fsoft |= quote_bit(q);
        } else {
            self.fquotes |= quote_bit(q);
        }
        self.push("{");
        let start = self.out.len();
        // From `or` up: a bare lambda's or walrus's colon would start the format spec.
        self.expr(value, prec::OR);
        if self.out[start..].starts_with('{') {
            // `{{` would be an escaped brace.
            self.out.insert(start, ' ');
        }
        match conversion {
            ConversionFlag::None => {}
            ConversionFlag::Str => self.push("!s"),
            ConversionFlag::Ascii => self.push("!a"),
            ConversionFlag::Repr => self.push("!r"),
        }
        if let Some(spec) = spec {
            self.push(":");
            match spec {
                Expr::JoinedStr(j) => {
                    for v in &j.values {
                        self.format_spec_part(v, nested, q, triple);
                    }
                }
                other => self.format_spec_part(other, nested, q, triple),
            }
        }
        self.push("}");
        (self.fquotes, self.fsoft) = saved;
    }

    /// A piece of a format spec. Its text is decoded, as CPython keeps it, so escapes
    /// are written back; `nested` says the f-string is itself inside a replacement
    /// field, where 3.11 allows no backslash.
    fn format_spec_part(&mut self, part: &Expr, nested: bool, q: char, triple: bool) {
        match part {
            Expr::Constant(ast::ExprConstant {
                value: Constant::Str(s),
                ..
            }) => {
                let (hard, soft) = (self.fquotes, self.fsoft);
                let bad = s.chars().any(|c| match c {
                    '{' | '}' => true,
                    '\'' | '"' => (hard | soft) & quote_bit(c) != 0,
                    _ => nested && needs_escape(c, q),
                });
                if bad {
                    self.fstring_failed = true;
                }
                push_body(&mut self.out, s, q, false, true);
            }
            Expr::FormattedValue(f) => {
                self.replacement_field(&f.value, f.conversion, f.format_spec.as_deref(), q, triple)
            }
            other => self.replacement_field(other, ConversionFlag::None, None, q, triple),
        }
    }
}
