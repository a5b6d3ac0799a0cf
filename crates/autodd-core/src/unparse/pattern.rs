//! `match` patterns.

use super::expr::prec;
use super::Printer;
use crate::parse::ast::{self, Pattern};

/// Pattern precedence: an `as` pattern binds loosest, then `|`, then the rest.
fn pattern_prec(p: &Pattern) -> u8 {
    match p {
        Pattern::MatchAs(ast::PatternMatchAs {
            pattern: Some(_),
            name: Some(_),
            ..
        }) => 0,
        // Degenerate shapes print as their inner pattern.
        Pattern::MatchAs(ast::PatternMatchAs {
            pattern: Some(inner),
            name: None,
            ..
        }) => pattern_prec(inner),
        Pattern::MatchOr(o) => match o.patterns.as_slice() {
            [single] => pattern_prec(single),
            [] => 2,
            _ => 1,
        },
        _ => 2,
    }
}

impl Printer<'_> {
    /// Prints `p` where precedence `level` is needed (0: any pattern, 1: no bare
    /// `as`, 2: no bare `|` either).
    pub(super) fn pattern(&mut self, p: &Pattern, level: u8) {
        if pattern_prec(p) < level {
            self.push("(");
            self.pattern_bare(p);
            self.push(")");
        } else {
            self.pattern_bare(p);
        }
    }

    fn pattern_bare(&mut self, p: &Pattern) {
        match p {
            Pattern::MatchValue(v) => self.expr(&v.value, prec::BOR),
            Pattern::MatchSingleton(s) => self.constant(&s.value, None),
            Pattern::MatchSequence(s) => {
                // Brackets always: `case a, b:` and `case [a, b]:` are the same
                // pattern, and brackets also work for one element or none.
                self.push("[");
                self.comma_list(&s.patterns, |p, x| p.pattern(x, 0));
                self.push("]");
            }
            Pattern::MatchMapping(m) => {
                self.push("{");
                self.comma_list_pairs(&m.keys, &m.patterns);
                if let Some(rest) = &m.rest {
                    if !m.keys.is_empty() {
                        self.push(", ");
                    }
                    self.push("**");
                    self.push(rest);
                }
                self.push("}");
            }
            Pattern::MatchClass(c) => {
                self.expr(&c.cls, prec::ATOM);
                self.push("(");
                self.comma_list(&c.patterns, |p, x| p.pattern(x, 0));
                let kw = c.kwd_attrs.iter().zip(&c.kwd_patterns);
                for (i, (name, pat)) in kw.enumerate() {
                    if i > 0 || !c.patterns.is_empty() {
                        self.push(", ");
                    }
                    self.push(name);
                    self.push("=");
                    self.pattern(pat, 0);
                }
                self.push(")");
            }
            Pattern::MatchStar(s) => {
                self.push("*");
                self.push(s.name.as_deref().unwrap_or("_"));
            }
            Pattern::MatchAs(a) => match (&a.pattern, &a.name) {
                (Some(inner), Some(name)) => {
                    self.pattern(inner, 1);
                    self.push(" as ");
                    self.push(name);
                }
                (Some(inner), None) => self.pattern_bare(inner),
                (None, Some(name)) => self.push(name),
                (None, None) => self.push("_"),
            },
            Pattern::MatchOr(o) => match o.patterns.as_slice() {
                [] => self.push("_"),
                [single] => self.pattern_bare(single),
                many => {
                    for (i, alt) in many.iter().enumerate() {
                        if i > 0 {
                            self.push(" | ");
                        }
                        self.pattern(alt, 2);
                    }
                }
            },
        }
    }

    fn comma_list_pairs(&mut self, keys: &[ast::Expr], patterns: &[Pattern]) {
        for (i, (k, p)) in keys.iter().zip(patterns).enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.expr(k, prec::BOR);
            self.push(": ");
            self.pattern(p, 0);
        }
    }
}
