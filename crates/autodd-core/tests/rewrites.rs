//! Snapshot tests of every rewrite: `tests/rewrites/NAME.py` lists, in
//! `NAME.expected`, each site of the rewrite NAME and the program with that one site
//! applied (then cleaned). A file whose name is no rewrite is checked against all of
//! them (used for frozen code, which must have no sites at all).

mod common;

use autodd_core::{apply_site, list_sites, rewrite_names};

fn render(rewrite: &str, source: &str) -> String {
    let mut out = String::new();
    for site in list_sites(source, rewrite).expect("input parses") {
        out.push_str(&format!(
            "# --- {} site {} at {}:{}\n",
            rewrite, site.index, site.start.line, site.start.column
        ));
        out.push_str(&apply_site(source, rewrite, site.index).expect("site applies"));
    }
    if out.is_empty() {
        out.push_str(&format!("# --- {rewrite}: no sites\n"));
    }
    out
}

#[test]
fn rewrite_snapshots() {
    common::check_snapshots("rewrites", |stem, source| {
        if rewrite_names().contains(&stem) {
            render(stem, source)
        } else {
            let normalized = autodd_core::normalize(source).expect("input parses");
            let mut out = format!("# --- normalized\n{normalized}");
            for name in rewrite_names() {
                let sites = list_sites(source, name).expect("input parses");
                let lines: Vec<String> = sites
                    .iter()
                    .map(|s| format!("{}:{}", s.start.line, s.start.column))
                    .collect();
                out.push_str(&format!("# {name}: {}\n", lines.join(" ")));
            }
            out
        }
    });
}

#[test]
fn every_rewrite_has_a_snapshot() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/rewrites");
    for name in rewrite_names() {
        let path = format!("{dir}/{name}.py");
        assert!(std::path::Path::new(&path).exists(), "missing {path}");
    }
}

#[test]
fn bad_arguments_are_errors() {
    assert_eq!(
        list_sites("x = 1\n", "nope").unwrap_err().code.as_str(),
        "unknown-rewrite"
    );
    assert_eq!(
        apply_site("x = 1\n", "stmt-remover", 5)
            .unwrap_err()
            .code
            .as_str(),
        "invalid-argument"
    );
    assert_eq!(
        apply_site("x = (\n", "stmt-remover", 0)
            .unwrap_err()
            .code
            .as_str(),
        "syntax-error"
    );
}
