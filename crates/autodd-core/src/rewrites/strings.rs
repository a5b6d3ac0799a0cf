//! `str-part-remover`: removes one part of a string literal, a line of a multi-line
//! string or else a word of a one-line one. The programs of a DSL often live in
//! strings (a template, a query, an assembly listing, a script of commands); once a
//! line of one is gone, the code that handled it can go too.
//!
//! The parts of a string are sites of their own, numbered as children of the string's
//! node, so the traversal that finds sites and the one that applies them must cut a
//! string the same way: both call [`parts`].

/// Strings with more parts than this are cut into this many runs of parts.
pub const MAX_PARTS: usize = 64;

/// The byte ranges of the parts of `s`, which cover it exactly: its lines (each with
/// its line break) when it has several, else its words (each with the whitespace
/// after it, the first also with any whitespace before it). Fewer than two parts:
/// nothing to remove.
pub fn parts(s: &str) -> Vec<(usize, usize)> {
    let mut cuts = Vec::new();
    let lines: Vec<usize> = s.match_indices('\n').map(|(i, _)| i + 1).collect();
    if lines.iter().filter(|&&end| end < s.len()).count() >= 1 {
        let mut start = 0;
        for end in lines.into_iter().chain(std::iter::once(s.len())) {
            if end > start {
                cuts.push((start, end));
                start = end;
            }
        }
    } else {
        let mut start = 0;
        let mut seen_word = false;
        let mut in_space = false;
        for (i, ch) in s.char_indices() {
            let space = ch.is_whitespace();
            if !space && in_space && seen_word {
                cuts.push((start, i));
                start = i;
            }
            seen_word |= !space;
            in_space = space;
        }
        if start < s.len() {
            cuts.push((start, s.len()));
        }
    }
    if cuts.len() < 2 {
        return Vec::new();
    }
    if cuts.len() > MAX_PARTS {
        let per = cuts.len().div_ceil(MAX_PARTS);
        cuts = cuts
            .chunks(per)
            .map(|run| (run[0].0, run[run.len() - 1].1))
            .collect();
    }
    cuts
}

/// `s` without the parts whose `drop` entry is set.
pub fn without(s: &str, cuts: &[(usize, usize)], drop: &[bool]) -> String {
    cuts.iter()
        .zip(drop)
        .filter(|(_, &d)| !d)
        .map(|(&(a, b), _)| &s[a..b])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<&str> {
        parts(s).into_iter().map(|(a, b)| &s[a..b]).collect()
    }

    #[test]
    fn lines_then_words() {
        assert_eq!(texts("add a 1\nmove b 2\n"), ["add a 1\n", "move b 2\n"]);
        assert_eq!(texts("\nadd a\nmove b"), ["\n", "add a\n", "move b"]);
        assert_eq!(texts("SELECT a  FROM t"), ["SELECT ", "a  ", "FROM ", "t"]);
        assert_eq!(texts("  lead trail "), ["  lead ", "trail "]);
        assert!(texts("word").is_empty());
        assert_eq!(texts("one line\n"), ["one ", "line\n"]);
        assert!(texts("").is_empty());
    }

    #[test]
    fn parts_cover_the_string_and_removal_keeps_the_rest() {
        for s in ["a b c", "x\ny\nz", " é  ü\tö ", "a\n\nb"] {
            let cuts = parts(s);
            assert_eq!(without(s, &cuts, &vec![false; cuts.len()]), s);
        }
        let s = "a b c";
        let cuts = parts(s);
        assert_eq!(without(s, &cuts, &[false, true, false]), "a c");
    }

    #[test]
    fn long_strings_are_cut_into_at_most_max_parts() {
        let s = "w ".repeat(500);
        let cuts = parts(&s);
        assert!(cuts.len() <= MAX_PARTS && cuts.len() >= 2);
        assert_eq!(without(&s, &cuts, &vec![false; cuts.len()]), s);
    }
}
