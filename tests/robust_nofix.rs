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
                    ("T1", 9, "Get(gp_T1_9_x, x); Poll(2); Poll(2)"),
                    ("T2", 12, "Get(gp_T2_12_y, y); Poll(1); Poll(1)"),
                    ("T2", 13, "Get(gp_T2_13_y, y); Poll(1); Poll(1)")
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

/// G5_37398 (shard 1/40) was called unfixable by insertions when the candidates were
/// polls, rfences, mfences and `GP` blocks after a put: T2's put then read of x are not
/// in gb (Fig. 5 B1: poll the put), and a poll inserted between them left T2's own
/// Poll(2) nothing to complete. An unpolled get inserted with it gives that poll
/// something to complete: `Get(f, y); Poll(2)` after the put is an exact fix of two
/// insertions under both models, and a `GP` block after the put plus a get after the
/// read a syntactic one (`tests/robust_fix_space.rs` checks such sizes against brute
/// force).
#[test]
fn an_extra_get_gives_the_programs_own_poll_something_to_complete() {
    let order = default_order();
    let text = program("G5_37398", 1, 1, 2, "Get(x, y); Rfence(2)", "Put(y, x); r0 = Read(x); Poll(2)");
    for model in [Model::Sc, Model::Tso] {
        for goal in [FixGoal::Exact, FixGoal::Syntactic] {
            let f =
                robust::fix("<t>", &text, &order, &Catalogue::builtins(), model, goal).expect("runs").expect("a fix");
            let got: Vec<(&str, usize, &str)> =
                f.insertions.iter().map(|i| (i.thread.as_str(), i.after_line, i.instr.as_str())).collect();
            let want: &[(&str, usize, &str)] = match goal {
                FixGoal::Exact => &[("T2", 12, "Get(g_T2_12_y, y)"), ("T2", 12, "Poll(2)")],
                FixGoal::Syntactic => {
                    &[("T2", 12, "Get(gp_T2_12_y, y); Poll(2); Poll(2)"), ("T2", 13, "Get(g_T2_13_y, y)")]
                }
            };
            assert_eq!(got, want, "{model:?} {goal:?}");
            assert!(verified(&f.text, model, goal), "{model:?} {goal:?}\n{}", f.text);
        }
    }
}

/// G6_300877 (shard 0/40): both threads put, then CAS the put's source, then poll; the
/// put must be polled before the CAS (B1) in each thread. It was called unfixable by
/// insertions; now both goals have a fix of four insertions (a `GP` block after each
/// put and an unpolled get before each thread's own poll), and none of at most two
/// exists (the fixer checks every such set before taking a larger fix). Moving both
/// polls up ([`robust::explain`], still offered when the search ends without a fix)
/// needs two insertions only.
#[test]
fn the_programs_own_poll_in_the_way() {
    let order = default_order();
    let text =
        program("G6_300877", 2, 2, 1, "Put(x, y); r0 = CAS(y, 1, 1); Poll(2)", "Put(y, x); r0 = CAS(x, 1, 1); Poll(1)");
    for model in [Model::Sc, Model::Tso] {
        for goal in [FixGoal::Exact, FixGoal::Syntactic] {
            let f =
                robust::fix("<t>", &text, &order, &Catalogue::builtins(), model, goal).expect("runs").expect("a fix");
            assert_eq!(f.insertions.len(), 4, "{model:?} {goal:?} {:?}", f.insertions);
            assert!(verified(&f.text, model, goal), "{model:?} {goal:?}\n{}", f.text);
        }
        let search = robust::NoFix::Exhausted { tried: 0, complete: 2 };
        let r = robust::explain("<t>", &text, &order, &Catalogue::builtins(), model, FixGoal::Syntactic, search)
            .expect("runs");
        let NoFixReason::PollInTheWay { moved, fix, complete } = r else { panic!("{model:?}: {r:?}\n{text}") };
        assert_eq!(complete, Some(2));
        let got: Vec<(&str, usize, usize)> = moved.iter().map(|m| (m.thread.as_str(), m.line, m.after_line)).collect();
        assert_eq!(got, [("T1", 11, 9), ("T2", 15, 13)], "{model:?}");
        assert_eq!(fix.insertions.len(), 2, "{model:?} {:?}", fix.insertions);
        assert!(verified(&fix.text, model, FixGoal::Syntactic), "{model:?}\n{}", fix.text);
    }
}
