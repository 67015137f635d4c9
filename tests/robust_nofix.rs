//! `mowgli robust --fix` on programs of the 2 × 3 bound that once had no fix: why, and
//! what works instead (docs/robustness.md, "Programs with no fix").

use mowgli_check::analyses::robust::{self, FixGoal, Model, NoFixReason};
use mowgli_libs::catalogue::Catalogue;
use mowgli_libs::orders::default_order;

/// The test `name` with the threads `t1` and `t2` (lines joined by `;`), T1 on node 1
/// and T2 on node `n2`, x on node `x` and y on node `y`.
fn program(name: &str, n2: u32, x: u32, y: u32, t1: &str, t2: &str) -> String {
    let body = |t: &str| t.split(';').map(|l| format!("  {}\n", l.trim())).collect::<String>();
    format!(
        "test {name}\n\"generated\"\nlibraries rdmatso\nthread T1 @ 1\nthread T2 @ {n2}\nloc x @ {x}\nloc y @ {y}\n\
         T1:\n{}T2:\n{}",
        body(t1),
        body(t2)
    )
}

/// Robust by the exact check, with an execution; for the syntactic goal also LDRF ∧
/// fenced.
fn verified(text: &str, model: Model, goal: FixGoal) -> bool {
    let r = robust::check_text("<fixed>", text, &default_order(), &Catalogue::builtins(), Some(model)).expect("runs");
    r.executions > 0 && r.robust && (goal == FixGoal::Exact || r.syntactic.sufficient())
}

/// G5_29157 (shard 0/40 under RDMA^sc) had no fix: T2's two puts towards node 1 each
/// need Fig. 5's GP before the next instruction (C6: the put's nrW, then the next put's
/// nlR; C1: then the write of x), and the second block polled the operations the first
/// had already completed, so the set blocked. Now a block polls up to its get, counting
/// the insertions before it: three blocks fix the program under both models and for
/// both goals, and the exhaustive search finds the same.
#[test]
fn two_gp_blocks_on_one_queue_pair() {
    let order = default_order();
    let text = program("G5_29157", 2, 2, 1, "Put(x, y); r0 = Read(y)", "Put(y, 1); Put(y, x); Write(x, 1)");
    for model in [Model::Sc, Model::Tso] {
        for goal in [FixGoal::Exact, FixGoal::Syntactic] {
            let f =
                robust::fix("<t>", &text, &order, &Catalogue::builtins(), model, goal).expect("runs").expect("a fix");
            let got: Vec<(&str, usize, &str)> =
                f.insertions.iter().map(|i| (i.thread.as_str(), i.after_line, i.instr.as_str())).collect();
            assert_eq!(
                got,
                [
                    ("T1", 9, "Get(gp_T1_9, x); Poll(2); Poll(2)"),
                    ("T2", 12, "Get(gp_T2_12, y); Poll(1); Poll(1)"),
                    ("T2", 13, "Get(gp_T2_13, y); Poll(1); Poll(1)")
                ],
                "{model:?} {goal:?}"
            );
            assert!(verified(&f.text, model, goal), "{model:?} {goal:?}\n{}", f.text);
            let ex = robust::fix_exhaustive("<t>", &text, &order, &Catalogue::builtins(), model, goal)
                .expect("runs")
                .expect("a fix");
            assert_eq!(ex.insertions, f.insertions, "{model:?} {goal:?}");
        }
    }
}

/// The programs whose own poll is in the way: no insertion-only fix (the guided search
/// and the exhaustive one agree), and moving the poll up works (verified).
/// G5_37398 (shard 1/40): T2's put then read of x are not in gb (Fig. 5 B1: poll the
/// put); a poll inserted between them leaves T2's own Poll(2) nothing to complete. Moving
/// that poll up is the fix, with nothing inserted for the exact goal. G6_300877 (shard
/// 0/40): the same in both threads (a put, then a CAS the put must be polled before).
#[test]
fn the_programs_own_poll_in_the_way() {
    let order = default_order();
    let cases = [
        (
            program("G5_37398", 1, 1, 2, "Get(x, y); Rfence(2)", "Put(y, x); r0 = Read(x); Poll(2)"),
            vec![("T2", 14, 12)],
        ),
        (
            program(
                "G6_300877",
                2,
                2,
                1,
                "Put(x, y); r0 = CAS(y, 1, 1); Poll(2)",
                "Put(y, x); r0 = CAS(x, 1, 1); Poll(1)",
            ),
            vec![("T1", 11, 9), ("T2", 15, 13)],
        ),
    ];
    for (text, moves) in &cases {
        for model in [Model::Sc, Model::Tso] {
            for goal in [FixGoal::Exact, FixGoal::Syntactic] {
                let why = robust::fix_why("<t>", text, &order, &Catalogue::builtins(), model, goal)
                    .expect("runs")
                    .expect_err("no fix");
                assert!(robust::fix_exhaustive("<t>", text, &order, &Catalogue::builtins(), model, goal)
                    .expect("runs")
                    .is_none());
                let r = robust::explain("<t>", text, &order, &Catalogue::builtins(), model, goal, why).expect("runs");
                let NoFixReason::PollInTheWay { moved, fix } = r else { panic!("{model:?} {goal:?}: {r:?}\n{text}") };
                let got: Vec<(&str, usize, usize)> =
                    moved.iter().map(|m| (m.thread.as_str(), m.line, m.after_line)).collect();
                assert_eq!(&got, moves, "{model:?} {goal:?}");
                assert!(verified(&fix.text, model, goal), "{model:?} {goal:?}\n{}", fix.text);
                if goal == FixGoal::Exact && moves.len() == 1 {
                    assert!(fix.insertions.is_empty(), "{:?}", fix.insertions);
                }
            }
        }
    }
}
