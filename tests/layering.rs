//! The house (issue 11 item 7): no import circle between the modules of a crate.
//! Each source file's code lines (comments and doc comments left out) are read for
//! `crate::M` paths and `use super::…`; a file belongs to the top-level module of its
//! path (`src/obligations/observe.rs` → `obligations`), and an edge A → B means a
//! file of A names B. The graph of every crate must be acyclic; a cycle is printed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module of a file of `src/` (`lib.rs`/`main.rs` are the root, "").
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let first = rel.components().next().map(|c| c.as_os_str().to_string_lossy().to_string()).unwrap_or_default();
    let stem = first.trim_end_matches(".rs").to_string();
    if stem == "lib" || stem == "main" {
        String::new()
    } else {
        stem
    }
}

/// The modules a line of code names through `crate::`.
fn named(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        // `mowgli_check::…` or `some_crate::` are not this crate
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let m: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !m.is_empty() {
            out.push(m);
        }
        // `crate::{a, b}`
        if let Some(inner) = rest.strip_prefix('{') {
            let group: String = inner.chars().take_while(|&c| c != '}').collect();
            for part in group.split(',') {
                let m: String = part.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !m.is_empty() {
                    out.push(m);
                }
            }
        }
    }
    out
}

fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let me = module_of(src, &f);
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        let mut in_tests = false;
        for line in text.lines() {
            let t = line.trim_start();
            if t.starts_with("//") {
                continue;
            }
            // unit tests may reach anywhere in the crate
            if t.starts_with("#[cfg(test)]") {
                in_tests = true;
            }
            if in_tests {
                continue;
            }
            let code = match t.find("//") {
                Some(i) => &t[..i],
                None => t,
            };
            for m in named(code) {
                if m != me && !me.is_empty() {
                    g.entry(me.clone()).or_default().insert(m);
                }
            }
        }
        g.entry(me).or_default();
    }
    g
}

/// A cycle of `g`, if any (depth-first search).
fn cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn dfs(
        g: &BTreeMap<String, BTreeSet<String>>,
        n: &str,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let i = stack.iter().position(|s| s == m).unwrap_or(0);
                    let mut c = stack[i..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = dfs(g, m, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = dfs(g, n, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_import_circle_between_modules() {
    let crates = root().join("crates");
    let Ok(entries) = std::fs::read_dir(&crates) else { panic!("no crates/ directory") };
    let mut checked = 0;
    for e in entries.flatten() {
        let src = e.path().join("src");
        if !src.is_dir() {
            continue;
        }
        let g = graph(&src);
        checked += 1;
        if let Some(c) = cycle(&g) {
            panic!("import circle in {}: {}", e.path().display(), c.join(" → "));
        }
    }
    assert!(checked >= 3, "the workspace's crates were not found");
}

/// The checker finds a circle when there is one (so the test above can fail).
#[test]
fn the_circle_check_finds_a_circle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(cycle(&g), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    if let Some(s) = g.get_mut("c") {
        s.clear();
    }
    assert_eq!(cycle(&g), None);
    assert_eq!(named("use crate::impls::gen::{Bounds}; x"), vec!["impls".to_string()]);
    assert_eq!(named("use crate::{engine, litmus};"), vec!["engine".to_string(), "litmus".to_string()]);
    assert!(named("mowgli_check::engine::run").is_empty());
}
