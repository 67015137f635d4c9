//! Retry loops (`Prog::Retry`, issue 31 item 1): a loop whose iterations that do
//! not break leave no trace in the registers and call only methods that may be
//! read-only as made (RDMA^WAIT's CAS: `readonly if ret != e`, a failed CAS). The
//! unfolding drops an iteration that did not break and made only read-only calls,
//! so a CAS-retry loop has no unrolling bound to reach and no unfolding per failed
//! attempt.
//!
//! The independent side: the same programs under a copy of rdmawait whose CAS does
//! not declare `readonly if` (the loops are then plain loops unrolled to the loop
//! bound, every iteration kept). The plain unrolling under-approximates only by the
//! runs it cuts at the bound, and each program here needs fewer failed attempts than
//! the bound allows (one per competing thread's success), so the two outcome sets
//! must be equal; they are also checked against outcomes computed by hand.

use std::collections::{BTreeMap, BTreeSet};

use mowgli_check::analyses::litmus;
use mowgli_libs::catalogue::{Catalogue, SpecFactory};
use mowgli_libs::orders::default_order;
use mowgli_libs::registry;

fn outcomes(text: &str, cat: &Catalogue) -> BTreeSet<String> {
    let outs: Vec<BTreeMap<String, String>> =
        litmus::outcomes_of_text(text, &default_order(), cat, true).unwrap_or_else(|e| panic!("{}\n{text}", e.msg));
    // (a register no run binds, `z` of the hand-unrolled blocking loop, shows `?`)
    outs.iter()
        .map(|o| o.iter().filter(|(_, v)| *v != "?").map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "))
        .collect()
}

/// rdmawait whose CAS makes no claim to be read-only when it fails.
fn plain_loops() -> Catalogue {
    let mut spec = registry::builtin_spec("rdmawait").expect("rdmawait is a built-in file").clone();
    let cas = spec.methods.iter_mut().find(|m| m.readonly_if.is_some()).expect("one method is `readonly if`");
    cas.readonly_if = None;
    Catalogue::builtins().with("rdmawait", spec.factory())
}

fn agree(text: &str, expected: &[&str]) {
    let plain = outcomes(text, &plain_loops());
    agree_with(text, &plain, expected);
}

fn agree_with(text: &str, plain: &BTreeSet<String>, expected: &[&str]) {
    let reduced = outcomes(text, &Catalogue::builtins());
    assert_eq!(&reduced, plain, "retry-loop reduction against plain unrolling\n{text}");
    let want: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
    assert_eq!(reduced, want, "{text}");
}

/// Two threads increment x with a CAS-retry loop, then read it: no increment is
/// lost (x ends at 2; each read sees at least its own). Unrolled by plain loops to
/// the litmus bound the values of x would not settle (every attempt reads a new
/// value), so the plain side is the loops unrolled by hand: with one competitor a
/// thread fails at most once, a third attempt blocks (a loop that never breaks).
#[test]
fn cas_increments_lose_nothing() {
    let attempt = |t: &str, r: &str| format!("  {t} = Read(x)\n  {r} = CAS(x, {t}, {t} + 1)\n");
    let unrolled = |th: &str, t: &str, r: &str, out: &str| {
        format!(
            "{th}:\n{}  if {r} != {t} {{\n{}    if {r} != {t} {{ loop {{ z = Read(x) }} }}\n  }}\n  {out} = Read(x)\n",
            attempt(t, r),
            attempt(t, r).replace("\n  ", "\n    ").replacen("  ", "    ", 1)
        )
    };
    let by_hand = format!(
        "test inc\nlibraries rdmawait\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\n{}{}",
        unrolled("T1", "t", "r", "a"),
        unrolled("T2", "u", "s", "b")
    );
    let plain = outcomes(&by_hand, &Catalogue::builtins());
    let text = "test inc\nlibraries rdmawait\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\n\
T1:\n  loop {\n    t = Read(x)\n    r = CAS(x, t, t + 1)\n    if r == t { break }\n  }\n  a = Read(x)\n\
T2:\n  loop {\n    u = Read(x)\n    s = CAS(x, u, u + 1)\n    if s == u { break }\n  }\n  b = Read(x)\n";
    // T1's increment first: t=0, a ∈ {1, 2}, then T2's: u=1, b=2; or the other
    // way round
    agree_with(
        text,
        &plain,
        &[
            "T1:a=1 T1:r=0 T1:t=0 T2:b=2 T2:s=1 T2:u=1 x=2",
            "T1:a=2 T1:r=0 T1:t=0 T2:b=2 T2:s=1 T2:u=1 x=2",
            "T1:a=2 T1:r=1 T1:t=1 T2:b=1 T2:s=0 T2:u=0 x=2",
            "T1:a=2 T1:r=1 T1:t=1 T2:b=2 T2:s=0 T2:u=0 x=2",
        ],
    );
}

/// A test-and-set lock around a read and a write of a counter: the two critical
/// sections never both read 0.
#[test]
fn test_and_set_critical_sections_exclude() {
    let text = "test tas\nlibraries rdmawait\nthread T1 @ 1\nthread T2 @ 1\nloc l @ 1\nloc c @ 1\n\
T1:\n  loop {\n    r = CAS(l, 0, 1)\n    if r == 0 { break }\n  }\n  a = Read(c)\n  Write(c, 1)\n  Write(l, 0)\n\
T2:\n  loop {\n    s = CAS(l, 0, 1)\n    if s == 0 { break }\n  }\n  b = Read(c)\n  Write(c, 1)\n  Write(l, 0)\n";
    agree(text, &["T1:a=0 T1:r=0 T2:b=1 T2:s=0 c=1 l=0", "T1:a=1 T1:r=0 T2:b=0 T2:s=0 c=1 l=0"]);
}

/// A loop whose CAS can succeed without breaking (it swaps 0 for 0 and goes on
/// until it reads 1): the successful attempts are writes and stay in the unfolding
/// (they count against the bound), the failed ones are dropped.
#[test]
fn a_successful_attempt_that_does_not_break_is_kept() {
    let text = "test keep\nlibraries rdmawait\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\n\
T1:\n  loop {\n    r = CAS(x, 0, 0)\n    if r == 1 { break }\n  }\n\
T2:\n  Write(x, 1)\n";
    agree(text, &["T1:r=1 x=1"]);
}
