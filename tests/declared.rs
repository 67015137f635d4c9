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

/// The string literals of Rust source `src` (escapes kept as written), with their
/// lines; comments and character literals left out.
fn rust_literals(src: &str) -> Vec<(usize, String)> {
    let (mut out, mut line) = (Vec::new(), 1);
    let c: Vec<char> = src.chars().collect();
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '\n' => line += 1,
            '/' if c.get(i + 1) == Some(&'/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            // a character literal ('"', '\'', 'a'); lifetimes have no closing quote
            '\'' if c.get(i + 2) == Some(&'\'') => i += 2,
            '\'' if c.get(i + 1) == Some(&'\\') && c.get(i + 3) == Some(&'\'') => i += 3,
            '"' => {
                let (start, mut s) = (line, String::new());
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' {
                        s.push(c[i]);
                        i += 1;
                    }
                    if c[i] == '\n' {
                        line += 1;
                    }
                    s.push(c[i]);
                    i += 1;
                }
                out.push((start, s));
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The literals naming a library or a method that the analyses and engines may
/// hold, (file, literal, why it is not a name test).
const NAME_EXCEPTIONS: &[(&str, &str, &str)] = &[
    ("analyses/robust/mod.rs", "rdmasc", "the `--model` values (user input) and the model's label in reports"),
    ("analyses/robust/mod.rs", "rdmatso", "the `--model` values (user input) and the model's label in reports"),
    ("analyses/robust/preexec.rs", "CAS", "the robustness paper's name of an event type (a label)"),
    ("analyses/sensitivity/checks.rs", "sv", "a row of the paper suite naming a shipped file (data)"),
    ("analyses/sensitivity/checks.rs", "bal", "a row of the paper suite naming a shipped file (data)"),
    ("analyses/sensitivity/checks.rs", "bal_all", "a row of the paper suite naming a shipped file (data)"),
    ("analyses/sensitivity/checks.rs", "rbl", "a row of the paper suite naming a shipped file (data)"),
    ("analyses/sensitivity/checks.rs", "msw", "a row of the paper suite naming a shipped file (data)"),
    ("analyses/sensitivity/checks.rs", "rdmawait", "a row of the paper suite naming a shipped file (data)"),
];

/// Issue 30 item 1: no analysis or engine tests a library or method name. Every
/// string literal of `crates/mowgli-check/src/analyses` and `…/engines` (unit
/// tests and comments left out) that equals the name of a built-in library, of a
/// library file of `specs/libs` or of one of their methods is reported, except
/// the ones of [`NAME_EXCEPTIONS`].
#[test]
fn no_analysis_tests_a_library_or_method_name() {
    let order = mowgli_libs::orders::default_order();
    let mut names: BTreeSet<String> = registry::KNOWN.iter().map(|s| s.to_string()).collect();
    names.insert("corerma_vpi".into());
    for lib in names.clone() {
        if let Ok(l) = registry::builtin(&lib, &order) {
            names.extend(l.methods().iter().map(|m| m.name.to_string()));
        }
    }
    for e in std::fs::read_dir(root().join("specs/libs")).expect("dir") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "lib") {
            let (lib, methods) = names_of(&p.file_name().expect("name").to_string_lossy());
            names.insert(lib);
            names.extend(methods);
        }
    }
    assert!(names.contains("Poll") && names.contains("Raise") && names.contains("rdmatso_nopcie"));
    let mut paths = Vec::new();
    for d in ["analyses", "engines"] {
        sources(&root().join("crates/mowgli-check/src").join(d), &mut paths);
    }
    let mut bad = Vec::new();
    let mut used = BTreeSet::new();
    for p in &paths {
        let src = std::fs::read_to_string(p).expect("source");
        // unit tests may name what they test
        let src = src.split("#[cfg(test)]").next().unwrap_or("");
        let rel = p.to_string_lossy().replace('\\', "/");
        for (line, lit) in rust_literals(src) {
            if !names.contains(&lit) {
                continue;
            }
            match NAME_EXCEPTIONS.iter().position(|(f, l, _)| rel.ends_with(f) && *l == lit) {
                Some(i) => {
                    used.insert(i);
                }
                None => bad.push(format!("{}:{line}: \"{lit}\"", p.display())),
            }
        }
    }
    assert!(paths.len() > 50, "the analyses and engines were not found");
    assert!(bad.is_empty(), "names tested instead of declarations:\n{}", bad.join("\n"));
    let stale: Vec<_> = (0..NAME_EXCEPTIONS.len()).filter(|i| !used.contains(i)).map(|i| NAME_EXCEPTIONS[i]).collect();
    assert!(stale.is_empty(), "exceptions that no longer occur: {stale:?}");
}

/// `u_` before a library or method name of the RDMA^TSO family.
fn u_name(n: &str) -> String {
    format!("u_{n}")
}

/// `mowgli robust` reads the test's library by its declaration: RDMA^TSO and
/// RDMA^sc renamed (every library and method name, and the variants they declare
/// of each other) give the same verdicts, fixes (up to the renaming) and
/// single-server translation as the originals.
#[test]
fn a_renamed_rdmatso_gets_the_same_robustness_verdicts_and_fixes() {
    use mowgli_check::analyses::robust::{self, FixGoal, Model};
    use mowgli_libs::rdmatso::RdmaTso;
    let order = mowgli_libs::orders::default_order();
    let tso: Factory = Arc::new(|o: &mowgli_core::StampOrder| {
        Ok(Box::new(RdmaTso::new(o, true)?.renamed(&u_name)) as Box<dyn Library>)
    });
    let sc: Factory =
        Arc::new(|o: &mowgli_core::StampOrder| Ok(Box::new(RdmaTso::sc(o)?.renamed(&u_name)) as Box<dyn Library>));
    let cat = Catalogue::builtins().with("u_rdmatso", tso).with("u_rdmasc", sc);
    let original = registry::builtin("rdmatso", &order).expect("builds");
    let mut names: BTreeSet<String> = original.methods().iter().map(|m| m.name.to_string()).collect();
    names.extend(["rdmatso".to_string(), "rdmasc".to_string()]);
    let dir = root().join("specs/litmus/robustness");
    let mut inserted = 0;
    for file in ["ROB-Fig2a-SB-put.litmus", "ROB-Fig2d-SB-put-poll.litmus", "ROB-AppB1-SB-TSO.litmus"] {
        let text = std::fs::read_to_string(dir.join(file)).expect("test");
        let ours = renamed(&text, &names);
        assert!(ours.contains("libraries u_rdmatso"), "{file}: not renamed");
        for model in [None, Some(Model::Sc), Some(Model::Tso)] {
            let a = robust::check_text(file, &text, &order, &cat, model).expect("checks");
            let b = robust::check_text(file, &ours, &order, &cat, model).expect("checks the renamed copy");
            assert_eq!((a.robust, a.model, a.executions, a.cyclic), (b.robust, b.model, b.executions, b.cyclic));
            assert_eq!(a.outcomes, b.outcomes, "{file} {model:?}: outcomes differ");
        }
        for model in [Model::Sc, Model::Tso] {
            let a = robust::fix_why(file, &text, &order, &cat, model, FixGoal::Exact).expect("runs");
            let b = robust::fix_why(file, &ours, &order, &cat, model, FixGoal::Exact).expect("runs on the copy");
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(renamed(&a.text, &names), b.text, "{file} {model:?}: fixes differ");
                    inserted += a.insertions.len();
                }
                (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
                (a, b) => panic!("{file} {model:?}: {a:?} but {b:?} for the renamed copy"),
            }
        }
    }
    assert!(inserted > 0, "no fix inserted anything: the renaming of insertions is untested");
    let file = "ROB-AppB1-SB-TSO.litmus";
    let text = std::fs::read_to_string(dir.join(file)).expect("test");
    let a = robust::to_star(file, &text, &order, &cat).expect("translates");
    let b = robust::to_star(file, &renamed(&text, &names), &order, &cat).expect("translates the copy");
    assert_eq!(renamed(&a.text, &names), b.text);
    assert!(a.ok() && b.ok());
}
