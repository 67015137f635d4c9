//! The bounded tools read a library's declaration, never its name (issue 30):
//!
//! - every library file of the project, copied under another library name with
//!   every method renamed, gets the same default bounds and the same generated
//!   clients (up to the renaming) as the original;
//! - the modules that build clients contain no method name and compare no
//!   library name.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use mowgli_check::analyses::refine::gen::{self, Bounds};
use mowgli_core::Library;
use mowgli_libs::catalogue::{Catalogue, Factory, SpecFactory};
use mowgli_libs::registry;

/// The repository's root.
fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The text of `specs/libs/FILE` with its includes inlined.
fn inlined(file: &str) -> String {
    let text = std::fs::read_to_string(root().join("specs/libs").join(file)).expect("library file");
    text.lines()
        .map(|l| match l.trim().strip_prefix("include \"").and_then(|r| r.strip_suffix('"')) {
            Some(inc) => inlined(inc),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` with each whole word of `names` prefixed by `u_`.
fn renamed(text: &str, names: &BTreeSet<String>) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if names.contains(word.as_str()) {
            out.push_str("u_");
        }
        out.push_str(word);
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The library of `file` and its methods' names.
fn names_of(file: &str) -> (String, BTreeSet<String>) {
    let spec = mowgli_spec::parse_text(file, &inlined(file), None).expect("parses");
    (spec.name.clone(), spec.methods.iter().map(|m| m.name.clone()).collect())
}

#[test]
fn a_renamed_library_gets_the_same_bounds_and_clients() {
    let order = mowgli_libs::orders::default_order();
    // (file, calls per thread): small bounds, every shape of memory and object
    let cases = [("sv.lib", 2), ("rdmawait.lib", 1), ("msw.lib", 1), ("bal.lib", 2), ("rbl.lib", 2), ("lock.lib", 2)];
    for (file, calls) in cases {
        let (lib, methods) = names_of(file);
        let mut names = methods.clone();
        names.insert(lib.clone());
        let text = renamed(&inlined(file), &names);
        let spec = mowgli_spec::parse_text(file, &text, None).expect("the renamed copy parses");
        let new = format!("u_{lib}");
        let mut overrides: Vec<(String, Factory)> = vec![(new.clone(), spec.factory())];
        if file == "lock.lib" {
            let original = mowgli_spec::parse_text(file, &inlined(file), None).expect("parses");
            overrides.push((lib.clone(), original.factory()));
        }
        {
            let cat: Catalogue = overrides.into_iter().collect();
            let (mut a, mut b) =
                (Bounds::in_catalogue(&lib, &cat, 2, 2, calls), Bounds::in_catalogue(&new, &cat, 2, 2, calls));
            assert_eq!(
                serde_json::to_value(&a).expect("json"),
                serde_json::to_value(&b).expect("json"),
                "{file}: the default bounds depend on the library's name"
            );
            if file == "lock.lib" {
                // a library whose methods return nothing (the lock) is observed
                // through a base library (`refine` picks its implementation's)
                a.observer = Some("rdmawait".into());
                b.observer = a.observer.clone();
            }
            let theirs = gen::generate_in(&lib, &order, &cat, &a).expect("generates");
            let ours = gen::generate_in(&new, &order, &cat, &b).expect("generates the renamed copy");
            assert!(!theirs.clients.is_empty(), "{file}: no client");
            assert_eq!(theirs.generated, ours.generated, "{file}: labelled clients differ");
            assert_eq!(theirs.clients.len(), ours.clients.len(), "{file}: distinct clients differ");
            for (t, o) in theirs.clients.iter().zip(&ours.clients) {
                let expected = renamed(&t.text, &names).replace(&format!("gen-u_{lib}-"), &format!("gen-{new}-"));
                let got = o.text.replace(&format!("gen-u_{lib}-"), &format!("gen-{new}-"));
                assert_eq!(expected, got, "{file}: client {} differs from the original's", t.index);
            }
            let l: Arc<dyn Library> = cat.library(&new, &order).expect("builds").into();
            assert_eq!(l.methods().len(), methods.len());
        };
    }
}

/// String literals of a Rust source, comments left out.
fn literals(src: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for (n, line) in src.lines().enumerate() {
        let code = match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        let mut rest = code;
        while let Some(i) = rest.find('"') {
            let after = &rest[i + 1..];
            let Some(j) = after.find('"') else { break };
            out.push((n + 1, after[..j].to_string(), code.to_string()));
            rest = &after[j + 1..];
        }
    }
    out
}

#[test]
fn the_client_builders_test_no_library_or_method_name() {
    let order = mowgli_libs::orders::default_order();
    let mut methods = BTreeSet::new();
    for lib in registry::KNOWN {
        if let Ok(l) = registry::builtin(lib, &order) {
            methods.extend(l.methods().iter().map(|m| m.name.to_string()));
        }
    }
    let libs: BTreeSet<String> = registry::KNOWN.iter().map(|s| s.to_string()).collect();
    let dirs = ["crates/mowgli-check/src/analyses/refine/gen"];
    let files = ["crates/mowgli-check/src/analyses/generate.rs"];
    let mut paths: Vec<std::path::PathBuf> = files.iter().map(|f| root().join(f)).collect();
    for d in dirs {
        for e in std::fs::read_dir(root().join(d)).expect("dir") {
            paths.push(e.expect("entry").path());
        }
    }
    let mut bad = Vec::new();
    for p in paths {
        let src = std::fs::read_to_string(&p).expect("source");
        // unit tests may name what they test
        let src = src.split("#[cfg(test)]").next().unwrap_or("");
        for (line, lit, code) in literals(src) {
            let compared = ["== \"", "!= \"", "| \""].iter().any(|c| code.contains(&format!("{c}{lit}\"")))
                || code.contains(&format!("\"{lit}\" =>"))
                || code.contains(&format!("\"{lit}\" |"))
                || code.contains("matches!(");
            if methods.contains(&lit) || (libs.contains(&lit) && compared) {
                bad.push(format!("{}:{line}: {}", p.display(), code.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "names tested instead of declarations:\n{}", bad.join("\n"));
}

/// Observers may wait (issue 30 item 3): with work identifiers of its own, the
/// observer's calls name them and its waiting methods (RDMA^WAIT's `Wait`) wait
/// for them; without, every observer identifier is `_` and no observer call
/// waits. Checked on the generated text against the declarations: in every
/// thread, each work identifier a waiting call names was started by an earlier
/// call of the same library in that thread, and no identifier is named by calls
/// of two libraries.
#[test]
fn observers_wait_for_their_own_work_identifiers() {
    use mowgli_core::Role;
    let order = mowgli_libs::orders::default_order();
    let cat = Catalogue::builtins();
    let libs: Vec<(String, Arc<dyn Library>)> = ["sv", "rdmawait"]
        .iter()
        .map(|l| (l.to_string(), Arc::from(cat.library(l, &order).expect("builds"))))
        .collect();
    let sig = |lib: &str, m: &str| {
        let l = &libs.iter().find(|(n, _)| n == lib).expect("a library of the client").1;
        l.methods().iter().find(|s| s.name == m).cloned().expect("a method of the library")
    };
    let clients = |owids: usize| {
        let mut b = Bounds::in_catalogue("sv", &cat, 1, 2, 3);
        b.observer = Some("rdmawait".into());
        b.observer_locs = 1;
        b.observer_wids = owids;
        b.need_register = false;
        gen::generate_in("sv", &order, &cat, &b).expect("generates").clients
    };
    // (library, method, arguments) of a line `r = lib.M(a, b)` or `M(a, b)` (an
    // unqualified method belongs to the one library of the two that has it)
    let owner = |m: &str| {
        let mut ls = libs.iter().filter(|(_, l)| l.methods().iter().any(|s| s.name == m));
        ls.next().filter(|_| ls.next().is_none()).map(|(n, _)| n.clone())
    };
    let call = |line: &str| -> Option<(String, String, Vec<String>)> {
        let rhs = line.split_once(" = ").map_or(line, |(_, r)| r).trim();
        let (lm, rest) = rhs.split_once('(')?;
        let (l, m) = match lm.split_once('.') {
            Some((l, m)) => (l.to_string(), m),
            None => (owner(lm)?, lm),
        };
        // top-level commas only (node sets `{1, 2}` and tuples hold commas)
        let inner = rest.trim_end().strip_suffix(')').unwrap_or(rest);
        let (mut args, mut cur, mut depth) = (Vec::new(), String::new(), 0);
        for ch in inner.chars() {
            match ch {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    args.push(std::mem::take(&mut cur).trim().to_string());
                    continue;
                }
                _ => {}
            }
            cur.push(ch);
        }
        if !cur.trim().is_empty() {
            args.push(cur.trim().to_string());
        }
        Some((l, m.to_string(), args))
    };
    let observer_waits = |owids: usize| {
        let mut waits = 0;
        for c in clients(owids) {
            for body in c.text.split("\nT").skip(1) {
                let calls: Vec<_> = body.lines().skip(1).filter_map(call).collect();
                let mut started: Vec<(String, String)> = Vec::new();
                for (l, m, args) in &calls {
                    let s = sig(l, m);
                    for (i, a) in args.iter().enumerate() {
                        if !matches!(s.role(i), Role::Wid { .. }) || a == "_" {
                            continue;
                        }
                        assert!(
                            started.iter().all(|(l2, a2)| a2 != a || l2 == l),
                            "{}: `{a}` named by two libraries",
                            c.text
                        );
                        if s.awaits() {
                            assert!(started.contains(&(l.clone(), a.clone())), "{}: {l}.{m} waits for nothing", c.text);
                            waits += usize::from(l == "rdmawait");
                        } else {
                            started.push((l.clone(), a.clone()));
                        }
                    }
                }
            }
        }
        waits
    };
    assert_eq!(observer_waits(0), 0, "an observer without work identifiers waits");
    assert!(observer_waits(1) > 0, "no observer call waits with one observer work identifier");
}
