//! `mowgli explore`: model comparison on a corpus (issue 5, part 2a).

use std::path::PathBuf;

use mowgli_check::analyses::explore::{self, Model};
use mowgli_libs::catalogue::Catalogue;
use mowgli_libs::orders::default_order;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// RDMA paper §2 (Fig. 3e) and the end of §4: without the PCIe guarantee a get may
/// overtake an earlier put's remote write, which is what lets both store-buffering
/// reads of Fig. 3e see 0. The comparison must find that test, with exactly that
/// outcome on the variant side only.
#[test]
fn pcie_guarantee_is_what_fig3e_shows() {
    let order = default_order();
    let base = Model::parse("rdmatso", &order, &mut Catalogue::builtins()).expect("library");
    let variant = Model::parse("rdmatso_nopcie", &order, &mut Catalogue::builtins()).expect("library");
    let cmp = explore::compare(&[root().join("specs/litmus")], &base, &variant, &order, &Catalogue::builtins())
        .expect("runs");
    assert!(cmp.errors.is_empty(), "{:?}", cmp.errors);
    let d = cmp.differences.iter().find(|d| d.name == "RDMA-Fig3e-SB-poll-get-prose").unwrap_or_else(|| {
        panic!("Fig. 3e not distinguished: {:?}", cmp.differences.iter().map(|d| &d.name).collect::<Vec<_>>())
    });
    assert!(d.only_base.is_empty(), "{:?}", d.only_base);
    assert_eq!(d.only_variant, vec!["T1:a=0 T2:b=0".to_string()]);
    // the PCIe guarantee only forbids: no test gains an outcome with it
    assert!(cmp.differences.iter().all(|d| d.only_base.is_empty()));
    assert!(cmp.skipped > 0 && cmp.same > 0);
}

#[test]
fn a_model_against_itself_differs_nowhere() {
    let order = default_order();
    let m = Model::parse(
        root().join("specs/stamp-orders/loco-fig10.to").to_str().expect("utf-8"),
        &order,
        &mut Catalogue::builtins(),
    )
    .expect("order");
    let cmp =
        explore::compare(&[root().join("specs/litmus/loco")], &m, &m, &order, &Catalogue::builtins()).expect("runs");
    assert!(cmp.differences.is_empty() && cmp.tests > 10 && cmp.errors.is_empty());
}

#[test]
fn renaming_a_library_touches_only_whole_names() {
    let t = "test R\nlibraries rdmatso, rdmawait # rdmatso here\nthread T1 @ 1\nloc x @ 2\nloc y @ 1\nT1:\n  \
             rdmatso.Put(x, y)\n  rdmatso_x = Read(y)\n";
    let mut p = mowgli_check::lang::syntax::parse(t).expect("parses");
    explore::translate_program(&mut p, "rdmatso", "rdmatso_nopcie", &default_order(), &Catalogue::builtins());
    let r = mowgli_check::lang::print::print(&p);
    assert!(r.contains("libraries rdmatso_nopcie, rdmawait\n"), "{r}");
    assert!(r.contains("  rdmatso_nopcie.Put(x, y)\n  rdmatso_x = Read(y)\n"), "{r}");
}

#[test]
fn bad_models_are_reported() {
    let order = default_order();
    let e = Model::parse("no-such-model", &order, &mut Catalogue::builtins()).expect_err("rejected");
    assert!(e.contains("no-such-model") && e.contains("rdmatso_nopcie"), "{e}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mowgli"))
        .current_dir(root())
        .args(["explore", "--base", "rdmatso", "--variant", "specs/stamp-orders/loco-fig10.to", "specs/litmus/loco"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
}

/// coreRMA's `Flush(n)` is `Rfence(n); Mfence()` over RDMA^TSO (its declaration's
/// `same_as`): the translation rewrites the parsed test's calls, in nested blocks and
/// qualified ones too, and keeps the others.
#[test]
fn translating_to_rdmatso_expands_flushes() {
    let t = "test T\nlibraries corerma\nthread P0 @ 1\nthread P1 @ 2\nloc X @ 1 = 1\nloc Y @ 2\nP0:\n  a = Read(X)\n\
             P1:\n  Put(X, Y)\n  Flush(1)\n  c = Read(Y)\n  if c == 0 { corerma.Flush(1) }\n  b = Read(Y)\n";
    let mut p = mowgli_check::lang::syntax::parse(t).expect("parses");
    explore::translate_program(&mut p, "corerma", "rdmatso", &default_order(), &Catalogue::builtins());
    let r = mowgli_check::lang::print::print(&p);
    assert!(r.contains("libraries rdmatso\n"), "{r}");
    assert!(r.contains("  Put(X, Y)\n  Rfence(1)\n  Mfence()\n"), "{r}");
    assert!(r.contains("rdmatso.Rfence(1)") && r.contains("rdmatso.Mfence()"), "{r}");
    assert!(!r.contains("Flush") && r.contains("  b = Read(Y)\n"), "{r}");
    let back = mowgli_check::lang::syntax::parse(&r).expect("the translation parses");
    assert_eq!(mowgli_check::lang::print::print(&back), r);
}
