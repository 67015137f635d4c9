//! coreRMA (Dan et al., OOPSLA 2016): pivot generation checked against an independent
//! computation, and the paper's generated tests (Figs. 6, 8) through the generator's
//! own evaluation.
//!
//! The independent computation: programs enumerated here by a naive enumerator of
//! labelled programs, deduplicated by the least litmus text over renamings (not the
//! generator's canonical check), each run by the Mowgli engine (the `corerma`
//! library's witness search) under `corerma` and `corerma_no<rule>`; and the
//! generator's pruned search against the model's brute-force enumeration.

use std::collections::{BTreeMap, BTreeSet};

use mowgli_check::analyses::litmus::outcomes_of_text;
use mowgli_check::analyses::pivot::{self, Instr, PivotOptions, Program};
use mowgli_libs::corerma::model::{Model, Rule};
use mowgli_libs::corerma::Stmt;
use mowgli_libs::orders::default_order;

fn ins(stmt: Stmt, a: &[u8]) -> Instr {
    let mut args = [0u8; 4];
    args[..a.len()].copy_from_slice(a);
    Instr { stmt, args, na: 0 }
}

/// Every labelled program of `procs` processes and exactly `size` actions (every
/// location read locally; with two processes both non-empty and one accessing the
/// other's memory), written as litmus text with its locations renamed by `perm`.
/// With `non_atomic`, every atomicity of every access.
fn naive_with(procs: usize, size: usize, max_locs: usize, non_atomic: bool) -> Vec<Program> {
    let mut out = Vec::new();
    for nlocs in 1..=max_locs.min(size) {
        for n0 in if procs == 1 { nlocs..=nlocs } else { 0..=nlocs } {
            let homes: Vec<u8> = (0..nlocs).map(|l| u8::from(l >= n0)).collect();
            let stmts = |p: u8| -> Vec<Instr> {
                let local: Vec<u8> = (0..nlocs as u8).filter(|&l| homes[l as usize] == p).collect();
                let mut v = Vec::new();
                for &x in &local {
                    v.push(ins(Stmt::Read, &[x]));
                    v.push(ins(Stmt::Write, &[x]));
                    for z in 0..nlocs as u8 {
                        v.push(ins(Stmt::Get, &[x, z]));
                        v.push(ins(Stmt::Put, &[z, x]));
                        for &y in &local {
                            v.push(ins(Stmt::Rga, &[x, z, y]));
                            for &w in &local {
                                v.push(ins(Stmt::Cas, &[x, z, y, w]));
                            }
                        }
                    }
                }
                if non_atomic {
                    let accesses = |i: &Instr| match i.stmt {
                        Stmt::Read | Stmt::Write => 1,
                        Stmt::Get | Stmt::Put => 2,
                        Stmt::Rga => 3,
                        _ => 4,
                    };
                    v = v.iter().flat_map(|i| (0..1u8 << accesses(i)).map(move |na| Instr { na, ..*i })).collect();
                }
                for q in 0..procs as u8 {
                    v.push(ins(Stmt::Flush, &[q]));
                }
                v
            };
            let alpha: Vec<Vec<Instr>> = (0..procs as u8).map(stmts).collect();
            // all bodies, process by process, of total weight size - nlocs
            let mut bodies: Vec<(Vec<Vec<Instr>>, usize)> = vec![(vec![], size - nlocs)];
            for a in alpha.iter() {
                let mut next = Vec::new();
                for (b, left) in bodies {
                    let mut stack = vec![(Vec::<Instr>::new(), left)];
                    while let Some((seq, l)) = stack.pop() {
                        let mut bb = b.clone();
                        bb.push(seq.clone());
                        next.push((bb, l));
                        for i in a {
                            if i.weight() <= l {
                                let mut s2 = seq.clone();
                                s2.push(*i);
                                stack.push((s2, l - i.weight()));
                            }
                        }
                    }
                }
                bodies = next;
            }
            for (body, left) in bodies {
                if left != 0 {
                    continue;
                }
                let p = Program { procs, homes: homes.clone(), body };
                let read: BTreeSet<u8> =
                    p.body.iter().flatten().filter(|i| i.stmt == Stmt::Read).map(|i| i.args[0]).collect();
                if read.len() != nlocs {
                    continue;
                }
                if procs == 2 {
                    if p.body.iter().any(Vec::is_empty) {
                        continue;
                    }
                    let cross = p.body.iter().enumerate().any(|(q, b)| {
                        b.iter().any(|i| {
                            let z = match i.stmt {
                                Stmt::Put => i.args[0],
                                Stmt::Get | Stmt::Rga | Stmt::Cas => i.args[1],
                                _ => return false,
                            };
                            homes[z as usize] as usize != q
                        })
                    });
                    if !cross {
                        continue;
                    }
                }
                out.push(p);
            }
        }
    }
    out
}

/// The least litmus text of `p` over renamings of its locations (within a process)
/// and of its processes: the renaming class.
fn class_key(p: &Program) -> String {
    let n = p.homes.len();
    let mut best: Option<String> = None;
    let procs: Vec<Vec<u8>> = if p.procs == 2 { vec![vec![0, 1], vec![1, 0]] } else { vec![vec![0]] };
    let loc_perms = mowgli_libs::corerma::model::permutations(&(0..n).collect::<Vec<_>>());
    for pm in &procs {
        for lp in &loc_perms {
            let homes: Vec<u8> =
                (0..n).map(|new| pm[p.homes[lp.iter().position(|&o| o == new).unwrap()] as usize]).collect();
            if homes.windows(2).any(|w| w[0] > w[1]) {
                continue; // keep process 0's locations first, as the generator does
            }
            let mut body = vec![Vec::new(); p.procs];
            for (q, b) in p.body.iter().enumerate() {
                body[pm[q] as usize] = b
                    .iter()
                    .map(|i| {
                        let mut j = *i;
                        let k = match i.stmt {
                            Stmt::Read | Stmt::Write | Stmt::Flush => 1,
                            Stmt::Get | Stmt::Put => 2,
                            Stmt::Rga => 3,
                            Stmt::Cas => 4,
                        };
                        for a in 0..k {
                            j.args[a] = if i.stmt == Stmt::Flush {
                                pm[i.args[a] as usize]
                            } else {
                                lp[i.args[a] as usize] as u8
                            };
                        }
                        j
                    })
                    .collect();
            }
            let text = Program { procs: p.procs, homes, body }.litmus("t", "", "corerma");
            if best.as_ref().is_none_or(|b| text < *b) {
                best = Some(text);
            }
        }
    }
    best.unwrap_or_default()
}

fn regs_only(os: Vec<BTreeMap<String, String>>) -> BTreeSet<String> {
    os.into_iter()
        .map(|o| {
            o.into_iter()
                .filter(|(k, _)| k.contains(':'))
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Per rule, the number of programs (one per class) up to `size` actions whose
/// outcomes under `corerma_no<rule>` are not all outcomes of `corerma`, by the engine.
fn independent_counts(procs: usize, size: usize, max_locs: usize) -> (BTreeMap<Rule, usize>, usize) {
    independent_counts_with(procs, size, max_locs, false)
}

fn independent_counts_with(
    procs: usize,
    size: usize,
    max_locs: usize,
    non_atomic: bool,
) -> (BTreeMap<Rule, usize>, usize) {
    let order = default_order();
    let mut classes: BTreeMap<String, Program> = BTreeMap::new();
    for s in 1..=size {
        for p in naive_with(procs, s, max_locs, non_atomic) {
            classes.entry(class_key(&p)).or_insert(p);
        }
    }
    let mut counts = BTreeMap::new();
    for p in classes.values() {
        let stock = regs_only(outcomes_of_text(&p.litmus("t", "", "corerma"), &order, true).expect("runs"));
        for r in Rule::PIVOTS {
            let lib = format!("corerma_no{}", r.name().to_ascii_lowercase().replace('-', ""));
            let v = regs_only(outcomes_of_text(&p.litmus("t", "", &lib), &order, true).expect("runs"));
            if !v.is_subset(&stock) {
                *counts.entry(r).or_insert(0) += 1;
            }
        }
    }
    (counts, classes.len())
}

fn generator_counts(procs: usize, size: usize, max_locs: usize) -> (BTreeMap<Rule, usize>, u64) {
    let rows = pivot::table6().into_iter().filter(|r| r.procs == procs).collect();
    let rep = pivot::generate(&PivotOptions {
        rows,
        max_size: Some(size),
        max_locs,
        jobs: 2,
        keep: false,
        plain: false,
        non_atomic: false,
    });
    let counts =
        rep.rows.iter().filter(|r| r.tests > 0).map(|r| (Rule::parse(&r.row.rule).expect("a rule"), r.tests)).collect();
    (counts, rep.programs)
}

/// Per rule, (tests, outputs) of the rows of `procs` processes up to `size` actions,
/// each rule run alone (so the per-rule enumeration visits only that rule's shapes),
/// or all rules over the plain enumeration.
fn row_counts(procs: usize, size: usize, plain: bool) -> BTreeMap<Rule, (usize, usize)> {
    let mut out = BTreeMap::new();
    let rows: Vec<_> = pivot::table6().into_iter().filter(|r| r.procs == procs).collect();
    let runs: Vec<Vec<_>> = if plain { vec![rows] } else { rows.into_iter().map(|r| vec![r]).collect() };
    for rows in runs {
        let rep = pivot::generate(&PivotOptions {
            rows,
            max_size: Some(size),
            max_locs: 3,
            jobs: 2,
            keep: false,
            plain,
            non_atomic: false,
        });
        for r in rep.rows {
            out.insert(Rule::parse(&r.row.rule).expect("a rule"), (r.tests, r.outputs));
        }
    }
    out
}

#[test]
fn pivot_counts_match_an_independent_computation_one_process() {
    let (gen, programs) = generator_counts(1, 6, 2);
    let (ind, classes) = independent_counts(1, 6, 2);
    assert_eq!(programs as usize, classes, "programs per renaming class");
    assert_eq!(gen, ind);
    // the bound is large enough to exercise several rules
    assert!(gen.len() >= 6, "{gen:?}");
}

#[test]
fn pivot_counts_match_an_independent_computation_two_processes() {
    let (gen, programs) = generator_counts(2, 6, 2);
    let (ind, classes) = independent_counts(2, 6, 2);
    assert_eq!(programs as usize, classes, "programs per renaming class");
    assert_eq!(gen, ind);
    // at 6 actions two processes only leave room for R2 and LO tests (IR needs 8: two
    // remote statements towards the other process, two locations, two reads)
    assert!(gen.contains_key(&Rule::R2) && gen.contains_key(&Rule::LO), "{gen:?}");
}

/// With non-atomic accesses (`--non-atomic`: outcomes may be ⊤, each program searched
/// by the model's brute force), the counts equal the independent computation's too.
#[test]
fn non_atomic_pivot_counts_match_an_independent_computation() {
    for (procs, size) in [(1, 5), (2, 6)] {
        let rows = pivot::table6().into_iter().filter(|r| r.procs == procs).collect();
        let rep = pivot::generate(&PivotOptions {
            rows,
            max_size: Some(size),
            max_locs: 2,
            jobs: 2,
            keep: false,
            plain: false,
            non_atomic: true,
        });
        let gen: BTreeMap<Rule, usize> = rep
            .rows
            .iter()
            .filter(|r| r.tests > 0)
            .map(|r| (Rule::parse(&r.row.rule).expect("a rule"), r.tests))
            .collect();
        let (ind, classes) = independent_counts_with(procs, size, 2, true);
        assert_eq!(rep.programs as usize, classes, "programs per renaming class");
        assert_eq!(gen, ind, "{procs} processes up to {size} actions");
        assert!(!gen.is_empty());
    }
}

/// The per-rule enumeration (each row only over the programs with its rule's shape)
/// finds exactly the tests of the plain one (every program, every rule), which the
/// two tests above tie to the independent computation.
#[test]
fn per_rule_counts_equal_the_plain_enumerations() {
    for (procs, size) in [(1, 8), (2, 8)] {
        let plain = row_counts(procs, size, true);
        let per_rule = row_counts(procs, size, false);
        assert_eq!(per_rule, plain, "{procs} processes up to {size} actions");
        assert!(plain.values().filter(|c| c.0 > 0).count() >= 6, "{plain:?}");
    }
}

/// `has_shape` is exactly "the rule puts a static edge (or, for CAS, the program has
/// a cas)", and the per-rule enumeration is the plain one filtered by it.
#[test]
fn shapes_are_the_rules_static_edges_and_filter_the_plain_enumeration() {
    for (procs, size) in [(1, 7), (2, 7)] {
        let mut plain = Vec::new();
        for s in 1..=size {
            pivot::programs(procs, s, 3, &mut |p| plain.push(p));
        }
        for r in Rule::PIVOTS {
            let mut shaped = BTreeSet::new();
            for p in &plain {
                let (g, _) = p.graph();
                let edge = match r {
                    Rule::R1 | Rule::R2 | Rule::WS => true,
                    Rule::CasF | Rule::CasT => !g.cas.is_empty(),
                    _ => g.static_edges.iter().any(|e| e.0 == r),
                };
                assert_eq!(pivot::has_shape(p, r), edge, "{} {}", r.name(), p.litmus("t", "", "corerma"));
                if edge {
                    shaped.insert(p.litmus("t", "", "corerma"));
                }
            }
            let mut needing = BTreeSet::new();
            for s in 1..=size {
                pivot::programs_needing(procs, s, 3, &pivot::Need::any_of(&[r]), false, &mut |p| {
                    assert!(needing.insert(p.litmus("t", "", "corerma")), "enumerated twice");
                });
            }
            assert_eq!(needing, shaped, "{} with {procs} processes", r.name());
        }
        // a union of shapes: programs with one of the rules' shapes
        let two = [Rule::F3, Rule::CasT];
        let want: BTreeSet<String> = plain
            .iter()
            .filter(|p| two.iter().any(|&r| pivot::has_shape(p, r)))
            .map(|p| p.litmus("t", "", "corerma"))
            .collect();
        let mut got = BTreeSet::new();
        for s in 1..=size {
            pivot::programs_needing(procs, s, 3, &pivot::Need::any_of(&two), false, &mut |p| {
                got.insert(p.litmus("t", "", "corerma"));
            });
        }
        assert_eq!(got, want);
    }
}

#[test]
fn generator_search_equals_brute_force_enumeration() {
    for s in 1..=6 {
        pivot::programs(1, s, 2, &mut |p| {
            let (g, regs) = p.graph();
            let brute: BTreeSet<Vec<_>> = Model::stock()
                .executions(&g)
                .into_iter()
                .map(|e| regs.iter().map(|&a| e.rval[a].clone()).collect())
                .collect();
            assert_eq!(pivot::outcomes(&p, &[]).stock, brute, "{}", p.litmus("t", "", "corerma"));
        });
    }
}

/// Table 6 as transcribed against the totals the paper states in its prose and
/// Summary row (7,441 tests, 3,654 of them with two processes; 19,937 outputs).
#[test]
fn table6_matches_the_papers_totals() {
    let t = pivot::table6();
    assert_eq!(t.len(), 24);
    assert_eq!(t.iter().map(|r| r.paper_tests).sum::<usize>(), 7441);
    assert_eq!(t.iter().filter(|r| r.procs == 2).map(|r| r.paper_tests).sum::<usize>(), 3654);
    assert_eq!(t.iter().map(|r| r.paper_outputs).sum::<usize>(), 19937);
}

/// coreRMA Fig. 6, "Test generated automatically with IR rule as pivot": the outcomes
/// that need IR are the two observed on Cray DMAPP, "<a = 0, b = 1> and <a = 1, b = 1>".
#[test]
fn fig6_is_an_ir_pivot_test() {
    // x0 = X on P0 (init 0 here: the generator's values), x1 = Y on P1
    let p = Program {
        procs: 2,
        homes: vec![0, 1],
        body: vec![
            vec![ins(Stmt::Read, &[0])],
            vec![ins(Stmt::Put, &[0, 1]), ins(Stmt::Get, &[1, 0]), ins(Stmt::Flush, &[0]), ins(Stmt::Read, &[1])],
        ],
    };
    assert_eq!(p.size(), 9, "Fig. 6: \"The size of the test is 9\"");
    let o = pivot::outcomes(&p, &Rule::PIVOTS);
    let needs: Vec<_> = o.without[&Rule::IR].difference(&o.stock).cloned().collect();
    // generator values: X starts at 0 and Y at 1 (Fig. 6 has X = 1, Y = 0: swap them)
    let int = mowgli_core::Value::Int;
    assert_eq!(needs, vec![vec![int(0), int(0)], vec![int(1), int(0)]]);
    assert_eq!(o.stock, BTreeSet::from([vec![int(0), int(1)], vec![int(1), int(1)]]));
}
