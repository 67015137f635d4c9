//! Libraries reach every analysis as a catalogue value (issue 30, item 2): two
//! catalogues that give one name different libraries are used at the same time,
//! on several threads, and each check answers with its own catalogue's library.

use std::collections::BTreeMap;

use mowgli_check::analyses::litmus;
use mowgli_libs::catalogue::{Catalogue, SpecFactory};
use mowgli_libs::orders::default_order;
use mowgli_libs::registry;
use mowgli_spec::Change;

/// A thread writes its copy of `x`, then reads it. Under sv (LOCO Def. 3.8, the
/// axiom `cr_rb_cw`) the read cannot be rb-before the po-earlier write, so it
/// reads 1; without that axiom nothing orders the CPU write before the CPU read
/// (LOCO Fig. 10: `to` leaves aCW→aCR unordered, as TSO does), so 0 is allowed too.
const OWN_WRITE: &str = "test own-write\nlibraries mine\nthread T1 @ 1\nloc x\nT1:\n  Write(x, 1)\n  r = Read(x)\n";

fn reads(cat: &Catalogue) -> Vec<String> {
    let outs: Vec<BTreeMap<String, String>> =
        litmus::outcomes_of_text(OWN_WRITE, &default_order(), cat, true).expect("the test runs");
    let mut r: Vec<String> = outs.iter().filter_map(|o| o.get("T1:r").cloned()).collect();
    r.sort();
    r.dedup();
    r
}

#[test]
fn two_catalogues_side_by_side() {
    let mut sv = registry::builtin_spec("sv").expect("sv is a built-in file").clone();
    sv.name = "mine".into();
    let weak = sv
        .weakenings()
        .into_iter()
        .find(|w| w.change == Change::DropAxiom && w.axiom.as_deref() == Some("cr_rb_cw"))
        .expect("sv states cr_rb_cw")
        .spec;
    let strong = Catalogue::builtins().with("mine", sv.factory());
    let weakened = Catalogue::builtins().with("mine", weak.factory());
    assert_eq!(reads(&strong), vec!["1"]);
    assert_eq!(reads(&weakened), vec!["0", "1"]);
    // at the same time, interleaved on several threads
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let cat = if i % 2 == 0 { &strong } else { &weakened };
                s.spawn(move || (i, (0..10).map(|_| reads(cat)).collect::<Vec<_>>()))
            })
            .collect();
        for h in handles {
            let (i, got) = h.join().expect("the thread ends");
            let want: Vec<String> = if i % 2 == 0 { vec!["1".into()] } else { vec!["0".into(), "1".into()] };
            assert!(got.iter().all(|g| *g == want), "thread {i}: {got:?}");
        }
    });
    // a catalogue without the name does not know it
    let err = litmus::outcomes_of_text(OWN_WRITE, &default_order(), &Catalogue::builtins(), true)
        .expect_err("`mine` is not a built-in");
    assert!(err.msg.contains("unknown library `mine`"), "{}", err.msg);
}
