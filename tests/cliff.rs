//! Issue 31: where a bound stops a run, the message names the limit, the thread and
//! the implementation method whose unfolding grew, and the knobs, and the verdict is
//! `inconclusive` (exit 3); and given clients are screened by default, with the
//! verdicts of an unscreened run.

use std::process::Command;

fn mowgli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mowgli")).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

// (A CAS-retry loop such as ilock's Acquire no longer grows with the loop bound:
// its failed attempts are dropped, `Prog::Retry`; nor, since the failed rounds
// that only refill the thread's own buffers are dropped too, does a seqlock
// reader on another node. Under a copy of RDMA^WAIT whose Wait claims no
// completion (`--lib`) those rounds are unrolled again, and the reader grows.)

#[path = "common/libraries.rs"]
mod libraries;

/// rdmawait.lib without its `completes` claim (replaces the built-in with `--lib`).
fn without_completion() -> std::path::PathBuf {
    libraries::without_completion(std::path::Path::new("../.."), "rdmawait")
}

fn names_the_cut(msg: &str, thread: &str, bound: &str) {
    assert!(msg.contains("more than 2000000 calls in all"), "the limit: {msg}");
    assert!(msg.contains(&format!("thread {thread}")), "the thread: {msg}");
    assert!(msg.contains("`rtuple.TryRead`"), "the method: {msg}");
    assert!(msg.contains(&format!("`--loop-bound` (now {bound})")), "the knob: {msg}");
    assert!(msg.contains("`--values`") && msg.contains("`--calls`"), "the knobs: {msg}");
    assert!(msg.contains("iseqlock.impl:40:8"), "the method's position: {msg}");
}

#[test]
fn refine_cut_by_an_unfolding_limit_is_inconclusive_and_names_the_method() {
    let c = "../../specs/clients/rtuple/rtuple-torn-remote.litmus";
    let lib = without_completion();
    let lib = lib.to_str().expect("utf-8");
    let (code, out, err) = mowgli(&["refine", "../../specs/impls/iseqlock.impl", "--clients", c, "--lib", lib, "-q"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("INCONCLUSIVE  rtuple-torn-remote"), "{out}");
    names_the_cut(&out, "T2", "4");
    assert!(out.contains("verdict: inconclusive"), "{out}");
}

#[test]
fn obligations_cut_by_an_unfolding_limit_is_inconclusive_at_the_method() {
    let lib = without_completion();
    let lib = lib.to_str().expect("utf-8");
    let (code, out, err) =
        mowgli(&["obligations", "../../specs/impls/iseqlock.impl", "--loop-bound", "5", "--lib", lib, "-q"]);
    assert_eq!(code, 3, "{out}{err}");
    names_the_cut(&err, "T1", "5");
    // the diagnostic shows the method's line of the implementation
    assert!(err.contains("method TryRead(x)"), "{err}");
    assert!(out.contains("verdict: inconclusive"), "{out}");
}

/// Each client's verdict word and name (`ok    NAME`), in order.
fn verdicts(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| ["ok ", "FAIL ", "INCONCLUSIVE ", "ERROR "].iter().any(|p| l.starts_with(p)))
        .map(|l| l.split(" (").next().unwrap_or(l).to_string())
        .collect()
}

#[test]
fn given_clients_are_screened_by_default_with_the_verdicts_of_whole_runs() {
    let cases: [(&str, &[&str]); 4] = [
        ("../../specs/impls/isv.impl", &["../../specs/litmus/loco-libs", "../../specs/clients/sv"]),
        ("../../specs/impls/ibal.impl", &["../../specs/clients/bal", "../../specs/clients/bal-revert"]),
        ("../../specs/impls/irbl.impl", &["../../specs/litmus/loco-libs", "../../specs/clients/rbl"]),
        ("../../specs/impls/mutants/irbl_nowait.impl", &["../../specs/clients/rbl"]),
    ];
    for (imp, clients) in cases {
        let mut args = vec!["refine", imp, "--clients"];
        args.extend_from_slice(clients);
        let (dcode, dout, derr) = mowgli(&args);
        args.extend_from_slice(&["--screen", "off"]);
        let (ocode, oout, oerr) = mowgli(&args);
        assert_eq!(dcode, ocode, "{imp}: {dout}{derr}\n---\n{oout}{oerr}");
        assert!(dcode == 0 || dcode == 1, "{imp}: {dout}{derr}");
        assert_eq!(verdicts(&dout), verdicts(&oout), "{imp}");
        assert!(!verdicts(&dout).is_empty(), "{imp}: {dout}");
        // the default screens (its counts say they are partial); `off` does not
        assert!(dout.contains("(screened: partial counts"), "{imp}: {dout}");
        assert!(!oout.contains("(screened:"), "{imp}: {oout}");
    }
}
