//! A library not in the papers, from files alone (docs/user-guide.md, "Verify your
//! own library"): the lock of `specs/libs/lock.lib`, its implementation over
//! RDMA^WAIT `specs/impls/ilock.impl`, its clients `specs/clients/lock`, and two
//! mutants that must be refuted. Also the axiom sensitivity command on it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `mowgli` from the repository root: (exit status, stdout).
fn mowgli(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mowgli")).current_dir(root()).args(args).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), stdout + &String::from_utf8_lossy(&out.stderr))
}

const LIB: [&str; 2] = ["--lib", "specs/libs/lock.lib"];

#[test]
fn the_clients_expectations_hold_under_the_lock_specification() {
    let (code, out) = mowgli(&[&LIB[..], &["litmus", "specs/clients/lock"]].concat());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("3 tests, 8 expectations: 8 ok"), "{out}");
}

#[test]
fn ilock_refines_the_lock_on_the_given_clients() {
    let (code, out) =
        mowgli(&[&LIB[..], &["refine", "specs/impls/ilock.impl", "--clients", "specs/clients/lock"]].concat());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("3 clients, 3 ok, 0 FAIL"), "{out}");
}

#[test]
fn ilock_refines_the_lock_on_generated_clients() {
    // 2 threads on 1 node (a lock is local to its node), 2 calls each, observed
    // through RDMA^WAIT reads and writes
    let args = ["refine", "specs/impls/ilock.impl", "--calls", "2", "--nodes", "1", "--observer", "rdmawait"];
    let (code, out) = mowgli(&[&LIB[..], &args].concat());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(" 0 FAIL"), "{out}");
}

#[test]
fn ilock_meets_its_obligations() {
    let args = ["obligations", "specs/impls/ilock.impl", "--calls", "2", "--nodes", "1"];
    let (code, out) = mowgli(&[&LIB[..], &args].concat());
    assert_eq!(code, 0, "{out}");
}

#[test]
fn the_mutants_are_refuted() {
    for m in ["ilock_test_then_set", "ilock_trylock"] {
        let imp = format!("specs/impls/mutants/{m}.impl");
        let (code, out) = mowgli(&[&LIB[..], &["refine", &imp, "--clients", "specs/clients/lock"]].concat());
        assert_eq!(code, 1, "{m}: {out}");
        // mutual exclusion is what they break: the lost update of lock-counter
        assert!(out.contains("FAIL  lock-counter") || out.contains("FAIL lock-counter"), "{m}: {out}");
        // and at the default generated bound with no flags: the lock's methods return
        // nothing, so rdmawait observes the clients unasked
        let (code, out) = mowgli(&[&LIB[..], &["refine", &imp, "--first-fail"]].concat());
        assert_eq!(code, 1, "{m}: {out}");
        assert!(out.contains("`rdmawait` locations"), "{m}: {out}");
    }
}

#[test]
fn an_access_value_must_be_ret_copy_an_integer_or_a_parameter() {
    let text = "library l\nstamps aCW\nmemory located\nmethod W(x: loc) {\n  stamps aCW\n  aCW writes x = one\n}\n";
    let d = mowgli_spec::parse_text("l.lib", text, None).expect_err("`one` is no value");
    let msg = d.to_string();
    assert!(msg.contains("l.lib:6:"), "{msg}");
    assert!(msg.contains("unknown value `one`"), "{msg}");
}

#[test]
fn axiom_sensitivity_of_the_lock_finds_atomic_observable() {
    let (code, out) = mowgli(&["axioms", "specs/libs/lock.lib", "specs/clients/lock", "--no-search"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("== without atomic"), "{out}");
    assert!(out.contains("lock-counter"), "{out}");
}
