//! `str-part-remover`: removes one part of a string literal, a line of a multi-line
//! string or else a word of a one-line one. The programs of a DSL often live in
//! strings (a template, a query, an assembly listing, a script of commands); once a
//! line of one is gone, the code that handled it can go too.
//!
//! `str-char-remover`: removes a run of characters of a string (or of bytes of a
//! bytes literal), so what is left of a CSV text, a regular expression or a format
//! shrinks below its lines and words (`'quantity,price\n3,'` → `'quantity\n,'`).
//! A string is cut into at most [`MAX_CHAR_PARTS`] runs; each round cuts what is left
//! again, finer, as delta debugging refines its granularity.
//!
//! The parts of a string are sites of their own, numbered as children of the string's
//! node (its parts, then its runs of characters), so the traversal that finds sites
//! and the one that applies them must cut a string the same way: both call [`parts`]
//! and [`char_parts`] (or [`byte_parts`]).

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

/// A string or bytes literal is cut into at most this many runs of characters.
pub const MAX_CHAR_PARTS: usize = 8;

/// The byte ranges of the runs of characters of `s` (see `str-char-remover`): each
/// character, or [`MAX_CHAR_PARTS`] runs of about equal length.
pub fn char_parts(s: &str) -> Vec<(usize, usize)> {
    let starts: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
    runs(&starts, s.len())
}

/// [`char_parts`] of a bytes literal: runs of bytes.
pub fn byte_parts(b: &[u8]) -> Vec<(usize, usize)> {
    let starts: Vec<usize> = (0..b.len()).collect();
    runs(&starts, b.len())
}

/// Up to [`MAX_CHAR_PARTS`] runs of the units starting at `starts` (in order), the
/// last ending at `len`.
fn runs(starts: &[usize], len: usize) -> Vec<(usize, usize)> {
    if starts.is_empty() {
        return Vec::new();
    }
    let per = starts.len().div_ceil(MAX_CHAR_PARTS);
    starts
        .chunks(per)
        .enumerate()
        .map(|(k, run)| {
            let end = starts.get((k + 1) * per).copied().unwrap_or(len);
            (run[0], end)
        })
        .collect()
}

/// Whether byte `at` lies in one of the `cuts` whose `drop` entry is set.
fn dropped(at: usize, cuts: &[(usize, usize)], drop: &[bool]) -> bool {
    cuts.iter()
        .zip(drop)
        .any(|(&(a, b), &d)| d && a <= at && at < b)
}

/// `s` without the bytes that lie in a dropped part or a dropped run of characters
/// (both cut the same text, and may overlap).
pub fn without_parts(
    s: &str,
    (cuts, drop): (&[(usize, usize)], &[bool]),
    (chars, drop_chars): (&[(usize, usize)], &[bool]),
) -> String {
    s.char_indices()
        .filter(|&(i, _)| !dropped(i, cuts, drop) && !dropped(i, chars, drop_chars))
        .map(|(_, c)| c)
        .collect()
}

/// `b` without the runs whose `drop` entry is set.
pub fn without_bytes(b: &[u8], cuts: &[(usize, usize)], drop: &[bool]) -> Vec<u8> {
    (0..b.len())
        .filter(|&i| !dropped(i, cuts, drop))
        .map(|i| b[i])
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
            assert_eq!(
                without_parts(s, (&cuts, &vec![false; cuts.len()]), (&[], &[])),
                s
            );
        }
        let s = "a b c";
        let cuts = parts(s);
        assert_eq!(
            without_parts(s, (&cuts, &[false, true, false]), (&[], &[])),
            "a c"
        );
    }

    #[test]
    fn characters_are_cut_into_at_most_max_char_parts_runs() {
        let runs = |s: &str| -> Vec<String> {
            char_parts(s)
                .into_iter()
                .map(|(a, b)| s[a..b].to_string())
                .collect()
        };
        assert_eq!(runs("a,é"), ["a", ",", "é"]);
        assert!(runs("").is_empty());
        let long = "x".repeat(100);
        let cut = char_parts(&long);
        assert_eq!(cut.len(), 8, "runs of 13");
        assert_eq!(cut.last(), Some(&(91, 100)));
        assert_eq!(byte_parts(b"\x00ab"), [(0, 1), (1, 2), (2, 3)]);
    }

    #[test]
    fn parts_and_runs_of_characters_drop_together() {
        let s = "ab cd\nef";
        let cuts = parts(s);
        let chars = char_parts(s);
        let mut drop_chars = vec![false; chars.len()];
        drop_chars[1] = true; // `b`
        let mut drop = vec![false; cuts.len()];
        drop[1] = true; // the line `ef`
        assert_eq!(
            without_parts(s, (&cuts, &drop), (&chars, &drop_chars)),
            "a cd\n"
        );
        assert_eq!(
            without_bytes(b"abc", &[(0, 2), (2, 3)], &[true, false]),
            b"c"
        );
    }

    #[test]
    fn long_strings_are_cut_into_at_most_max_parts() {
        let s = "w ".repeat(500);
        let cuts = parts(&s);
        assert!(cuts.len() <= MAX_PARTS && cuts.len() >= 2);
        assert_eq!(
            without_parts(&s, (&cuts, &vec![false; cuts.len()]), (&[], &[])),
            s
        );
    }
}
