//! Counterexample minimisation (`mowgli refine IMPL … --minimise DIR`,
//! `impls::minimise`), and the litmus printer it writes its clients with
//! (`litmus::print`).

use std::path::{Path, PathBuf};

use mowgli_check::litmus::{self, print, syntax};
use mowgli_libs::orders::default_order;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every test the project ships: the papers' tests (and herd7's x86 tests, printed
/// as tests of the Mowgli format), the refinement clients, the observed clients.
fn shipped() -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = ["specs/litmus", "specs/clients", "observed"].iter().map(|d| root().join(d)).collect();
    litmus::collect(&dirs).expect("the test directories exist")
}

/// `parse(print(t)) == t` (up to positions and the spelling of conditions) on every
/// shipped test, and the printed test has the outcomes and verdicts of the original.
#[test]
fn printing_a_parsed_test_gives_it_back() {
    let order = default_order();
    let files = shipped();
    assert!(files.len() > 200, "{} files", files.len());
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let t = syntax::parse(&text).unwrap_or_else(|e| panic!("{}: {e:?}", f.display()));
        let printed = print::print(&t);
        let back = syntax::parse(&printed).unwrap_or_else(|e| panic!("{}: {e:?} in\n{printed}", f.display()));
        assert_eq!(print::normalised(&back), print::normalised(&t), "{}:\n{printed}", f.display());
        // printing is a fixpoint from then on
        assert_eq!(print::print(&back), printed, "{}", f.display());
        let name = f.display().to_string();
        let a = litmus::check_text(&name, &text, &order).unwrap_or_else(|e| panic!("{e}"));
        let b = litmus::check_text(&name, &printed, &order).unwrap_or_else(|e| panic!("{e}\n{printed}"));
        if t.herd.is_none() {
            assert_eq!(a.outcomes, b.outcomes, "{name}");
        }
        let ok = |r: &litmus::TestReport| r.expectations.iter().map(|e| e.ok).collect::<Vec<_>>();
        assert_eq!(ok(&a), ok(&b), "{name}");
    }
}
