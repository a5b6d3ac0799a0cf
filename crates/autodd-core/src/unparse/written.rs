//! How the literals of a text were written, so that a tree parsed from it prints them
//! the same way.
//!
//! The table maps each literal's range to its value and its text. The printer looks a
//! constant up by its range and writes the text only if the constant still holds the
//! value it had there: a rewrite that changed it, or moved another node to that
//! range, gets the printer's own spelling. Only a literal that is one token is kept:
//! `'a' 'b'` may hold a comment or a line break between its parts. A string may span
//! lines (`"""..."""`): what it holds between them is its value, whatever the
//! indentation of the statement around it.

use super::literal::{needs_escape, push_escape};
use crate::hash::FastMap;
use crate::parse::ast::{self, Constant, Expr, Stmt};
use crate::walk::{walk_expr, VisitorMut};

/// The literals of a text, by where they start.
#[derive(Debug, Clone, Default)]
pub struct Written {
    at: FastMap<u32, Spelled>,
    /// Strings written in double quotes, less those in single quotes.
    double_over_single: i64,
}

#[derive(Debug, Clone)]
struct Spelled {
    end: u32,
    value: Constant,
    kind: Option<String>,
    text: Box<str>,
    /// How a string was written; `None` for anything else.
    form: Option<StrForm>,
}

/// The prefix and quote of a string literal, and what its escapes were.
#[derive(Debug, Clone)]
struct StrForm {
    prefix_len: usize,
    quote: char,
    triple: bool,
    raw: bool,
    /// Whether it writes a backslash before a character that starts no escape
    /// (`\d`), which Python reads as the backslash and the character.
    unknown_escapes: bool,
}

/// The characters that start an escape after a backslash in a string, the line break
/// included (`"""\` at the end of a line joins the next; `\r\n` is read as `\n`).
const KNOWN_ESCAPES: &str = "\\'\"abfnrtv01234567xNuU\n";

impl StrForm {
    /// The form of `text`, a string literal of one token.
    fn of(text: &str) -> Option<StrForm> {
        let (prefix_len, q_len) = one_string(text)?;
        let quote = text[prefix_len..].chars().next()?;
        let body = &text[prefix_len..];
        let triple = q_len == 3;
        let raw = text[..prefix_len].contains(['r', 'R']);
        let mut unknown_escapes = false;
        let mut chars = body.get(q_len..body.len() - q_len)?.chars();
        while let Some(ch) = chars.next() {
            if ch == '\\' {
                unknown_escapes |= chars
                    .next()
                    .is_some_and(|next| !KNOWN_ESCAPES.contains(next));
            }
        }
        Some(StrForm {
            prefix_len,
            quote,
            triple,
            raw,
            unknown_escapes: unknown_escapes && !raw,
        })
    }
}

impl Written {
    /// The literals of `body`, which was parsed from `text` (its ranges count there).
    pub fn of(text: &str, body: &mut [Stmt]) -> Written {
        let mut collect = Collect {
            text,
            written: Written::default(),
        };
        for stmt in body.iter_mut() {
            collect.stmt(stmt);
        }
        collect.written
    }

    /// How `c` was written, if it holds the value it had there.
    pub fn spelling(&self, c: &ast::ExprConstant) -> Option<&str> {
        let spelled = self.entry(c)?;
        (same_value(&spelled.value, &c.value) && spelled.kind == c.kind).then_some(&*spelled.text)
    }

    /// `c`, a string whose value a rewrite changed, written in its literal's prefix
    /// and quotes when that keeps what the program's spelling shows: a raw string
    /// stays raw (`r'\d+'` cut to `r'\d'`, not `'\\d'`) if its new value can be
    /// written so; a triple-quoted one keeps its line breaks (a docstring cut by lines
    /// spans lines still); a plain string that wrote an escape Python does not know
    /// (`"\d"`, which Python 3.12 warns about) writes such escapes single again.
    pub fn respelling(&self, c: &ast::ExprConstant) -> Option<String> {
        let Constant::Str(value) = &c.value else {
            return None;
        };
        let spelled = self.entry(c)?;
        let form = spelled.form.as_ref().filter(|_| spelled.kind == c.kind)?;
        let prefix = &spelled.text[..form.prefix_len];
        let q = form.quote;
        let quotes = q.to_string().repeat(if form.triple { 3 } else { 1 });
        if form.raw {
            // Nothing can be escaped: the value must hold no quote of its kind, no
            // character that needs an escape (a line break only in a triple-quoted
            // string), and no backslash at its end.
            let writable =
                |ch: char| ch == '\\' || (ch == '\n' && form.triple) || !needs_escape(ch, q);
            if value.ends_with('\\') || value.contains(q) || !value.chars().all(writable) {
                return None;
            }
            return Some(format!("{prefix}{quotes}{value}{quotes}"));
        }
        if !form.unknown_escapes && !form.triple {
            return None;
        }
        let mut out = format!("{prefix}{quotes}");
        let mut chars = value.chars().peekable();
        while let Some(ch) = chars.next() {
            let next = chars.peek().copied();
            let unknown = |n: char| (' '..='~').contains(&n) && !KNOWN_ESCAPES.contains(n);
            if ch == '\\' && form.unknown_escapes && next.is_some_and(unknown) {
                out.push('\\');
            } else if form.triple && (ch == '\n' || (ch == q && next.is_some_and(|n| n != q))) {
                // Inside triple quotes a line break or a lone quote is itself.
                out.push(ch);
            } else if needs_escape(ch, q) {
                push_escape(&mut out, ch);
            } else {
                out.push(ch);
            }
        }
        out.push_str(&quotes);
        Some(out)
    }

    /// The literal written at `c`'s range.
    fn entry(&self, c: &ast::ExprConstant) -> Option<&Spelled> {
        let spelled = self.at.get(&u32::from(c.range.start()))?;
        (spelled.end == u32::from(c.range.end())).then_some(spelled)
    }

    /// Whether the text writes more of its strings in double quotes than in single
    /// ones: strings printed anew then take double quotes too.
    pub fn prefers_double(&self) -> bool {
        self.double_over_single > 0
    }
}

struct Collect<'t> {
    text: &'t str,
    written: Written,
}

impl VisitorMut for Collect<'_> {
    fn expr(&mut self, expr: &mut Expr) {
        match expr {
            // Its parts are written by the f-string's own rules.
            Expr::JoinedStr(_) => {}
            Expr::Constant(c) => {
                let (start, end) = (u32::from(c.range.start()), u32::from(c.range.end()));
                let Some(text) = self.text.get(start as usize..end as usize) else {
                    return;
                };
                if one_token(text, &c.value) {
                    // Python reads `\r\n` and a lone `\r` in a string that spans
                    // lines as `\n`; so does the copy, in one style of line breaks.
                    let text = if text.contains('\r') {
                        text.replace("\r\n", "\n").replace('\r', "\n")
                    } else {
                        text.to_owned()
                    };
                    match text
                        .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                        .chars()
                        .next()
                    {
                        Some('"') => self.written.double_over_single += 1,
                        Some('\'') => self.written.double_over_single -= 1,
                        _ => {}
                    }
                    let form = match c.value {
                        Constant::Str(_) => StrForm::of(&text),
                        _ => None,
                    };
                    self.written.at.insert(
                        start,
                        Spelled {
                            end,
                            value: c.value.clone(),
                            kind: c.kind.clone(),
                            text: text.into(),
                            form,
                        },
                    );
                }
            }
            _ => walk_expr(self, expr),
        }
    }
}

/// Whether two constants are the same value: floats by their bits (`-0.0` is not
/// `0.0`, whatever `==` says).
fn same_value(a: &Constant, b: &Constant) -> bool {
    match (a, b) {
        (Constant::Float(x), Constant::Float(y)) => x.to_bits() == y.to_bits(),
        (
            Constant::Complex { real, imag },
            Constant::Complex {
                real: real2,
                imag: imag2,
            },
        ) => real.to_bits() == real2.to_bits() && imag.to_bits() == imag2.to_bits(),
        _ => a == b,
    }
}

/// Whether `text` is a single literal token of `value`'s sort (only a string's may
/// span lines).
fn one_token(text: &str, value: &Constant) -> bool {
    match value {
        Constant::Int(_) | Constant::Float(_) | Constant::Complex { .. } => {
            !text.is_empty()
                && text
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-'))
        }
        Constant::Str(_) | Constant::Bytes(_) => one_string(text).is_some(),
        _ => false,
    }
}

/// Whether `text` is one string or bytes literal: a prefix without `f` or `t`, an
/// opening quote, and its closing quote at the very end. If so, the prefix's length
/// and the quotes' (1, or 3 for a triple-quoted literal).
fn one_string(text: &str) -> Option<(usize, usize)> {
    let at = text
        .find(['\'', '"'])
        .filter(|&at| at <= 2 && text[..at].chars().all(|c| "rRbBuU".contains(c)))?;
    let rest = &text[at..];
    let q = &rest[..1];
    let quote = if rest.len() >= 6 && rest.starts_with(&q.repeat(3)) {
        q.repeat(3)
    } else {
        q.to_string()
    };
    let body = &rest[quote.len()..];
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if body[i..].starts_with(&quote) {
            return (i + quote.len() == body.len()).then_some((at, quote.len()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_module;
    use crate::unparse::{unparse_module, unparse_module_written};

    fn printed(source: &str) -> String {
        let mut body = parse_module(source).expect("parses");
        let written = Written::of(source, &mut body);
        unparse_module_written(&body, &written)
    }

    #[test]
    fn literals_keep_their_spelling() {
        let source =
            "a = \"x\" + r'\\d+' + u'y' + b\"\\x00\" + '''q'''\nb = 0x1F, 1_000, 1e-3, 2J, 0o17\n";
        assert_eq!(printed(source), source);
    }

    #[test]
    fn what_is_not_one_token_is_printed_the_printers_way() {
        let source = "a = ('x'  # c\n     \"y\")\nc = 'p' 'q'\n";
        assert_eq!(
            printed(source),
            unparse_module(&parse_module(source).unwrap())
        );
    }

    #[test]
    fn a_changed_value_is_printed_anew() {
        let source = "a = \"x\"\n";
        let mut body = parse_module(source).unwrap();
        let written = Written::of(source, &mut body);
        if let Stmt::Assign(a) = &mut body[0] {
            if let Expr::Constant(c) = &mut *a.value {
                c.value = Constant::Str("y".into());
            }
        }
        assert_eq!(unparse_module_written(&body, &written), "a = \"y\"\n");
    }

    #[test]
    fn literals_in_replacement_fields_keep_the_printers_rules() {
        // `'\x41'` written in a field is Python 3.12's; 3.11 allows no backslash there.
        let source = "a = f\"{'\\x41' + y}\"\nb = \"z\"\n";
        assert_eq!(printed(source), "a = f'{\"A\" + y}'\nb = \"z\"\n");
    }

    #[test]
    fn new_strings_take_the_quotes_most_strings_have() {
        let source = "a = \"x\"\nb = \"y\"\nc = 'z'\n";
        let mut body = parse_module(source).unwrap();
        let written = Written::of(source, &mut body);
        assert!(written.prefers_double());
        if let Stmt::Assign(a) = &mut body[2] {
            if let Expr::Constant(c) = &mut *a.value {
                c.value = Constant::Str("it's".into());
            }
        }
        if let Stmt::Assign(a) = &mut body[0] {
            if let Expr::Constant(c) = &mut *a.value {
                c.value = Constant::Str("w".into());
            }
        }
        assert_eq!(
            unparse_module_written(&body, &written),
            "a = \"w\"\nb = \"y\"\nc = \"it's\"\n"
        );
        // Printed again, the same.
        let text = unparse_module_written(&body, &written);
        assert_eq!(printed(&text), text);
    }

    /// The constant of `body[i]`'s assignment.
    fn value_of(body: &mut [Stmt], i: usize) -> &mut ast::ExprConstant {
        match &mut body[i] {
            Stmt::Assign(a) => match &mut *a.value {
                Expr::Constant(c) => c,
                other => panic!("not a constant: {other:?}"),
            },
            other => panic!("not an assignment: {other:?}"),
        }
    }

    #[test]
    fn a_literal_moved_into_a_replacement_field_is_written_for_3_11() {
        // As `assign-inline` does: the constant, with its range, replaces `y`.
        let source = "x = 'a'\nprint(f\"{y}\")\n";
        let mut body = parse_module(source).unwrap();
        let written = Written::of(source, &mut body);
        let constant = Expr::Constant(value_of(&mut body, 0).clone());
        let Stmt::Expr(call) = &mut body[1] else {
            panic!("not an expression")
        };
        let Expr::Call(call) = &mut *call.value else {
            panic!("not a call")
        };
        let Expr::JoinedStr(f) = &mut call.args[0] else {
            panic!("not an f-string")
        };
        let Expr::FormattedValue(field) = &mut f.values[0] else {
            panic!("not a field")
        };
        *field.value = constant;
        // `f'{'a'}'`, the spelling as written, is refused by CPython 3.11.
        assert_eq!(
            unparse_module_written(&body, &written),
            "x = 'a'\nprint(f'{\"a\"}')\n"
        );
    }

    #[test]
    fn a_float_made_negative_zero_is_printed_anew() {
        let source = "a = 0.0\n";
        let mut body = parse_module(source).unwrap();
        let written = Written::of(source, &mut body);
        value_of(&mut body, 0).value = Constant::Float(-0.0);
        assert_eq!(unparse_module_written(&body, &written), "a = -0.0\n");
    }

    #[test]
    fn a_raw_string_cut_stays_raw_when_it_can() {
        let source = "a = r'\\d\\dX'\nb = R\"\\w\"\nc = 'plain'\n";
        let mut body = parse_module(source).unwrap();
        let written = Written::of(source, &mut body);
        value_of(&mut body, 0).value = Constant::Str("\\d\\d".into());
        value_of(&mut body, 1).value = Constant::Str("x\\".into());
        value_of(&mut body, 2).value = Constant::Str("p\\n".into());
        // Raw as written; not raw where it would end in a backslash; never made raw.
        assert_eq!(
            unparse_module_written(&body, &written),
            "a = r'\\d\\d'\nb = 'x\\\\'\nc = 'p\\\\n'\n"
        );
    }

    #[test]
    fn a_plain_string_cut_keeps_its_unknown_escapes_single() {
        let source = "a = \"(\\d+)x(\\d+)\"\nb = u'\\w\\n'\nc = '\\t'\n";
        let mut body = parse_module(source).unwrap();
        let written = Written::of(source, &mut body);
        // `\d` is read as a backslash and `d`; a known escape (`\n`), a backslash
        // before one (`\\n`), the quote and a backslash at the end are escaped.
        value_of(&mut body, 0).value = Constant::Str("\\d\\\\n\"\\".into());
        value_of(&mut body, 1).value = Constant::Str("\\w\t".into());
        // A string that wrote no unknown escape is printed anew, as before.
        value_of(&mut body, 2).value = Constant::Str("\\d".into());
        let text = unparse_module_written(&body, &written);
        assert_eq!(
            text,
            "a = \"\\d\\\\\\\\n\\\"\\\\\"\nb = u'\\w\\t'\nc = '\\\\d'\n"
        );
        // What is printed reads back as the values it was given.
        let mut reparsed = parse_module(&text).unwrap();
        assert_eq!(
            value_of(&mut reparsed, 0).value,
            Constant::Str("\\d\\\\n\"\\".into())
        );
        assert_eq!(
            value_of(&mut reparsed, 1).value,
            Constant::Str("\\w\t".into())
        );
        // Printed again, the same.
        assert_eq!(printed(&text), text);
    }

    #[test]
    fn strings_over_several_lines_keep_their_lines() {
        let source = "def f():\n    '''Doc.\n\n    More.\n    '''\n    return 'a\\\n b'\n";
        assert_eq!(printed(source), source);
        // Python reads `\r\n` in a string as `\n`: the copy writes `\n`.
        let crlf = source.replace('\n', "\r\n");
        assert_eq!(printed(&crlf), source);
    }

    #[test]
    fn a_triple_quoted_string_cut_keeps_its_line_breaks() {
        let source = "q = \"\"\"SELECT a,\n  b\n  FROM t\n\"\"\"\nr = r'''\\d\n'''\n";
        let mut body = parse_module(source).unwrap();
        let written = Written::of(source, &mut body);
        // A lone quote is itself; two in a row and one at the end are escaped, as is
        // a carriage return, which Python would read as a line break.
        let cut = "SELECT a,\n \"b\"\"\n\r\"";
        value_of(&mut body, 0).value = Constant::Str(cut.into());
        // Raw: a line break is itself.
        value_of(&mut body, 1).value = Constant::Str("\\d\n\\w\n".into());
        let text = unparse_module_written(&body, &written);
        assert_eq!(
            text,
            "q = \"\"\"SELECT a,\n \"b\\\"\"\n\\r\\\"\"\"\"\nr = r'''\\d\n\\w\n'''\n"
        );
        let mut reparsed = parse_module(&text).unwrap();
        assert_eq!(value_of(&mut reparsed, 0).value, Constant::Str(cut.into()));
        assert_eq!(printed(&text), text);
        // A quote of its kind cannot be written raw: printed anew.
        value_of(&mut body, 1).value = Constant::Str("'\n".into());
        let text = unparse_module_written(&body, &written);
        assert!(text.ends_with("r = \"'\\n\"\n"), "{text}");
    }

    #[test]
    fn a_line_joined_by_a_backslash_is_no_unknown_escape() {
        // `"""\` starts the text on the next line; `\\d` is an escaped backslash. Cut,
        // the string must not gain an escape Python does not know (`\d`).
        let source = "u = \"\"\"\\\nUsage: grep \\\\d+ FILE\nmore\n\"\"\"\n";
        let mut body = parse_module(source).unwrap();
        let written = Written::of(source, &mut body);
        value_of(&mut body, 0).value = Constant::Str("Usage: grep \\d+ FILE".into());
        assert_eq!(
            unparse_module_written(&body, &written),
            "u = \"\"\"Usage: grep \\\\d+ FILE\"\"\"\n"
        );
    }

    #[test]
    fn one_string_finds_the_closing_quote() {
        assert!(one_string("'a\\'b'").is_some());
        assert!(one_string("rb'\\''").is_some());
        assert!(one_string("''").is_some());
        assert!(one_string("''''''").is_some());
        assert!(one_string("'a' 'b'").is_none());
        assert!(one_string("f'a'").is_none());
        assert!(one_string("'''a''' 'b'").is_none());
    }
}
