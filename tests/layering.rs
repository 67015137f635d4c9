//! The house (issue 11 item 7): no import circle between the modules of a crate,
//! and mowgli-check's layers used downwards only.
//!
//! Each source file's code lines (comments, doc comments and `#[cfg(test)]` parts
//! left out) are read for `crate::` paths. A file belongs to a module: in a layer
//! folder (`lang`, `engines`, `analyses`, `cli`) the layer and its first component
//! (`src/analyses/obligations/observe.rs` → `analyses::obligations`), elsewhere its
//! top-level module. An edge A → B means a file of A names B. Every crate's graph
//! must be acyclic (a cycle is printed), and in mowgli-check an edge may only go
//! down the layers: `analyses` → `lang`, `engines`; `lang` → `engines`; `engines` →
//! nothing above it. Files over 800 lines must be listed, with why they are one
//! cohesive thing, in [`LONG_FILES`].

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

/// The folders that are layers of a crate (mowgli-check's `lang`, `engines`,
/// `analyses`, `cli`): inside them a module is the layer plus its first
/// component (`analyses::litmus`), elsewhere the top-level module.
const LAYERS: [&str; 4] = ["lang", "engines", "analyses", "cli"];

/// The module key of a path of module names (`["analyses", "litmus", "lower"]` →
/// `analyses::litmus`).
fn key(path: &[String]) -> String {
    match path {
        [] => String::new(),
        [a, b, ..] if LAYERS.contains(&a.as_str()) => format!("{a}::{b}"),
        [a, ..] => a.clone(),
    }
}

/// The module of a file of `src/` (`lib.rs`/`main.rs` are the root, "").
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().to_string()).collect();
    if let Some(last) = parts.last_mut() {
        *last = last.trim_end_matches(".rs").to_string();
    }
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        return String::new();
    }
    key(&parts)
}

fn ident(s: &str) -> String {
    s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// The module paths a `crate::` path names: `a::b::c` → `[a, b]`, and a group
/// `a::{b, c::d}` → `[a, b]`, `[a, c]`.
fn paths_after(rest: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    if let Some(inner) = rest.strip_prefix('{') {
        let mut depth = 0;
        let mut part = String::new();
        let mut parts = Vec::new();
        for c in inner.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(std::mem::take(&mut part));
                    continue;
                }
                _ => {}
            }
            part.push(c);
        }
        parts.push(part);
        for p in parts {
            paths_after(p.trim(), prefix, out);
        }
        return;
    }
    let m = ident(rest);
    if m.is_empty() || m == "self" {
        if !prefix.is_empty() {
            out.push(prefix.to_vec());
        }
        return;
    }
    let mut path = prefix.to_vec();
    path.push(m.clone());
    let after = &rest[m.len()..];
    match after.strip_prefix("::") {
        Some(more) if path.len() < 2 => paths_after(more, &path, out),
        _ => out.push(path),
    }
}

/// The modules a line of code names through `crate::` (as module keys).
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
        let mut paths = Vec::new();
        paths_after(rest, &[], &mut paths);
        out.extend(paths.iter().map(|p| key(p)));
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
    assert_eq!(named("use crate::analyses::refine::gen::{Bounds}; x"), vec!["analyses::refine".to_string()]);
    assert_eq!(
        named("use crate::{engines::explicit, lang};"),
        vec!["engines::explicit".to_string(), "lang".to_string()]
    );
    assert_eq!(
        named("use crate::analyses::{litmus::{self, x}, refine};"),
        vec!["analyses::litmus".to_string(), "analyses::refine".to_string()]
    );
    assert!(named("mowgli_check::engines::explicit::run").is_empty());
}

/// The layer of a module key (`analyses::litmus` → `analyses`), if it is in one.
fn layer(m: &str) -> Option<usize> {
    let first = m.split("::").next().unwrap_or("");
    LAYERS.iter().position(|l| *l == first)
}

/// The layer edges that go up (an engine naming an analysis, …).
fn upward(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut bad = Vec::new();
    for (a, bs) in g {
        for b in bs {
            if let (Some(la), Some(lb)) = (layer(a), layer(b)) {
                // the order of LAYERS is bottom-up except that `lang` and
                // `engines` are ordered engines < lang
                let rank = |l: usize| match LAYERS[l] {
                    "engines" => 0,
                    "lang" => 1,
                    "analyses" => 2,
                    _ => 3,
                };
                if rank(lb) > rank(la) {
                    bad.push(format!("{a} → {b}"));
                }
            }
        }
    }
    bad
}

#[test]
fn mowgli_check_layers_point_down() {
    let src = root().join("crates/mowgli-check/src");
    let g = graph(&src);
    for l in ["lang", "engines", "analyses", "cli"] {
        assert!(src.join(l).is_dir(), "mowgli-check has no layer folder `{l}`");
    }
    let bad = upward(&g);
    assert!(bad.is_empty(), "mowgli-check: imports against the layering: {}", bad.join(", "));
    let mut g2: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g2.entry("engines::explicit".into()).or_default().insert("analyses::litmus".into());
    assert_eq!(upward(&g2), vec!["engines::explicit → analyses::litmus".to_string()]);
}

/// The files over 800 lines, each with why it is one thing.
const LONG_FILES: &[(&str, &str)] = &[];

/// Files over 800 lines still to be split (the restructuring of issue 11 item 7 in
/// progress); this list only shrinks.
const TO_SPLIT: &[&str] = &[];

#[test]
fn long_files_are_one_cohesive_thing() {
    let mut files = Vec::new();
    rust_files(&root().join("crates"), &mut files);
    let mut long = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        // unit tests at the end of a file do not count
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let n = code.lines().count();
        let rel = f.strip_prefix(root()).unwrap_or(&f).to_string_lossy().replace('\\', "/");
        let rel = rel.trim_start_matches("./").trim_start_matches("../").to_string();
        if n > 800 && !LONG_FILES.iter().any(|(p, _)| rel.ends_with(p)) && !TO_SPLIT.iter().any(|p| rel.ends_with(p)) {
            long.push(format!("{rel} ({n} lines)"));
        }
    }
    assert!(long.is_empty(), "files over 800 lines, not listed in LONG_FILES: {}", long.join(", "));
}
