//! Pivot generation for coreRMA (`mowgli pivot`): the test-generation methodology of
//! "Modeling and Analysis of Remote Memory Access Programming" (OOPSLA 2016, §6.1,
//! Table 6), with Mowgli's explicit model in place of Alloy.
//!
//! The paper asks Alloy for every instance, up to a bound on the number of actions,
//! whose hb has a cycle through a *pivot* edge induced by one rule of Fig. 4 and
//! becomes acyclic without it; each instance is turned into a test program,
//! deduplicated, and given all its expected outputs. Here, for each rule X, a test
//! is a program up to the size bound with an outcome that coreRMA without X allows
//! and stock coreRMA forbids (the outcome *needs* X); the programs are enumerated
//! directly, one per renaming class, and each is run under both models.
//!
//! The program space (the paper's constraints, §6.1): 1 or 2 processes (with 2,
//! both have statements and one accesses the other's memory); every location has
//! at least one local read ("each test must contain at least one local read (stored
//! in a unique register)"); initial values and local writes are distinct ("local
//! writes should have distinct values": location i starts at i, the k-th local
//! write writes L+k); every access atomic (the generated tests of Figs. 6-9 carry no
//! annotation and their printed outputs are exactly those of the all-atomic model,
//! see `specs/litmus/corerma/`). The size of a test is its number of actions,
//! initial writes included (Fig. 6: "The size of the test is 9").
//! Programs are kept once up to renaming of locations (within a process) and, with
//! two processes, swapping them.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use mowgli_core::Value;
use mowgli_libs::corerma::model::{Cand, Graph, Model, Row, Rule, Rules};
use serde::Serialize;

mod space;
pub use space::{has_shape, programs, programs_needing, programs_with_memory, Instr, Need, Program};

/// Outcomes (local reads' values, in order) of a program under stock coreRMA and
/// under coreRMA without each rule of `rules`.
#[derive(Clone, Debug, Default)]
pub struct Outcomes {
    pub stock: BTreeSet<Vec<Value>>,
    pub without: BTreeMap<Rule, BTreeSet<Vec<Value>>>,
    /// Candidate executions visited (complete and partial).
    pub visited: u64,
}

/// The rules whose removal can change something in `g`.
fn relevant(g: &Graph, rules: &[Rule]) -> Vec<Rule> {
    rules
        .iter()
        .copied()
        .filter(|r| match r {
            Rule::R1 | Rule::R2 | Rule::WS => true,
            Rule::CasF | Rule::CasT => !g.cas.is_empty(),
            Rule::NoC | Rule::C => false,
            r => g.static_edges.iter().any(|e| e.0 == *r),
        })
        .collect()
}

/// Outcomes of `p` under stock coreRMA and without each of `rules` (every access
/// atomic, so values depend on rf and the CAS outcomes only).
pub fn outcomes(p: &Program, rules: &[Rule]) -> Outcomes {
    let (g, regs) = p.graph();
    let rules = relevant(&g, rules);
    if p.body.iter().flatten().any(|i| i.na != 0) {
        return outcomes_non_atomic(&g, &regs, &rules);
    }
    let models: Vec<Model> =
        std::iter::once(Model::stock()).chain(rules.iter().map(|r| Model::without(Rules::of(&[*r])))).collect();
    let fixed: Vec<Vec<Row>> = models.iter().map(|m| m.fixed(&g)).collect();
    let mut st = Dfs {
        g: &g,
        models: &models,
        fixed: &fixed,
        regs: &regs,
        sets: vec![BTreeSet::new(); models.len()],
        visited: 0,
        perms: g.ws_writers.iter().map(|w| mowgli_libs::corerma::model::permutations(w)).collect(),
    };
    let mut c = Cand {
        rf: vec![None; g.readers.len()],
        ws: vec![Vec::new(); g.ws_writers.len()],
        cas_ok: vec![None; g.cas.len()],
        pairs: Vec::new(),
    };
    st.go(&mut c, 0, (1u32 << models.len()) - 1);
    let mut out = Outcomes { visited: st.visited, ..Default::default() };
    let mut sets = st.sets.into_iter();
    out.stock = sets.next().unwrap_or_default();
    // a variant allows what stock allows, and the outcomes of the candidates only it admits
    for (r, s) in rules.iter().zip(sets) {
        let mut all = out.stock.clone();
        all.extend(s);
        out.without.insert(*r, all);
    }
    out
}

/// [`outcomes`] of a program with non-atomic accesses: values depend on hb (conflicts
/// give ⊤), so every model's consistent executions are enumerated by the model's
/// brute force (`Model::executions`, which also orients the pairs that could
/// conflict).
fn outcomes_non_atomic(g: &Graph, regs: &[usize], rules: &[Rule]) -> Outcomes {
    let of = |m: Model| -> BTreeSet<Vec<Value>> {
        m.executions(g).into_iter().map(|e| regs.iter().map(|&a| e.rval[a].clone()).collect()).collect()
    };
    let stock = of(Model::stock());
    let without = rules.iter().map(|&r| (r, of(Model::without(Rules::of(&[r]))))).collect();
    Outcomes { stock, without, visited: 0 }
}

struct Dfs<'a> {
    g: &'a Graph,
    models: &'a [Model],
    fixed: &'a [Vec<Row>],
    regs: &'a [usize],
    /// Per model: the outcomes it allows (for the variants, only those of candidates
    /// stock coreRMA rejects: a candidate stock admits every variant admits, since
    /// removing a rule only removes hb edges (and, for R1 and R2, their constraints
    /// on non-atomic reads, which have nothing to check here) and, every access being
    /// atomic, values do not depend on hb).
    sets: Vec<BTreeSet<Vec<Value>>>,
    visited: u64,
    perms: Vec<Vec<Vec<usize>>>,
}

impl Dfs<'_> {
    /// The models (bit set, model 0 = stock) that admit the partial candidate, among `alive`.
    fn alive(&self, c: &Cand, alive: u32) -> u32 {
        if alive & 1 != 0 && self.models[0].hb(self.g, &self.fixed[0], &[], c).is_some() {
            return alive; // stock admits it: so does every variant
        }
        let mut out = 0;
        for m in 1..self.models.len() {
            if alive & (1 << m) != 0 && self.models[m].hb(self.g, &self.fixed[m], &[], c).is_some() {
                out |= 1 << m;
            }
        }
        out
    }

    fn go(&mut self, c: &mut Cand, k: usize, alive: u32) {
        self.visited += 1;
        let nr = self.g.readers.len();
        let nl = self.g.ws_writers.len();
        let nc = self.g.cas.len();
        let alive = if k > 0 { self.alive(c, alive) } else { alive };
        if alive == 0 {
            return;
        }
        if k < nr {
            for si in 0..self.g.sources[k].len() {
                c.rf[k] = Some(self.g.sources[k][si]);
                self.go(c, k + 1, alive);
            }
            c.rf[k] = None;
        } else if k < nr + nl {
            let l = k - nr;
            for pi in 0..self.perms[l].len() {
                c.ws[l] = self.perms[l][pi].clone();
                self.go(c, k + 1, alive);
            }
            c.ws[l].clear();
        } else if k < nr + nl + nc {
            for ok in [false, true] {
                c.cas_ok[k - nr - nl] = Some(ok);
                self.go(c, k + 1, alive);
            }
            c.cas_ok[k - nr - nl] = None;
        } else {
            // every access atomic: no conflicts, so the values do not depend on hb
            let Some(e) = self.models[0].values(self.g, &vec![0; self.g.len()], c) else { return };
            let vals: Vec<Value> = self.regs.iter().map(|&a| e.rval[a].clone()).collect();
            if alive & 1 != 0 {
                self.sets[0].insert(vals);
                return;
            }
            for m in 1..self.models.len() {
                if alive & (1 << m) != 0 && !self.sets[0].contains(&vals) {
                    self.sets[m].insert(vals.clone());
                }
            }
        }
    }
}

/// A row of Table 6: a rule, a number of processes and a size bound, with the
/// paper's figures.
#[derive(Clone, Debug, Serialize)]
pub struct Row6 {
    pub rule: String,
    pub procs: usize,
    pub size: usize,
    pub paper_tests: usize,
    pub paper_ms_per_test: f64,
    pub paper_outputs: usize,
}

/// Table 6 of the paper (rule, # proc, size, # tests, ms/test, # outputs).
///
/// Read from the text export, whose rows lost their rule names on the 2-process
/// lines (each follows its 1-process line, in Table 6's order). The transcription is
/// checked by three sums the paper states elsewhere: the tests add up to 7,441 (the
/// Summary row and §7, "We generated 7,441 tests"), the outputs to 19,937 (Summary
/// row), and the 2-process tests to 3,654 (§7: "Out of these tests, 3,654 have two
/// interacting processes"); `table6_matches_the_papers_totals` in tests/corerma.rs.
pub fn table6() -> Vec<Row6> {
    let rows: [(&str, usize, usize, usize, f64, usize); 24] = [
        ("R1", 1, 8, 863, 20.0, 1492),
        ("R1", 2, 9, 1040, 25.0, 3616),
        ("R2", 1, 7, 419, 15.0, 532),
        ("R2", 2, 8, 684, 22.0, 1514),
        ("F1", 1, 9, 326, 34.0, 338),
        ("F1", 2, 10, 172, 49.0, 452),
        ("F2", 1, 9, 350, 35.0, 374),
        ("F2", 2, 10, 188, 47.0, 492),
        ("F3", 1, 10, 810, 49.0, 1320),
        ("F3", 2, 11, 200, 52.0, 356),
        ("IR", 1, 10, 104, 55.0, 104),
        ("IR", 2, 11, 127, 120.0, 368),
        ("GA", 1, 10, 299, 27.0, 1091),
        ("GA", 2, 11, 48, 84.0, 624),
        ("PG", 1, 8, 164, 15.0, 276),
        ("PG", 2, 10, 260, 27.0, 1024),
        ("CAS-F", 1, 10, 12, 36.0, 12),
        ("CAS-F", 2, 12, 48, 75.0, 288),
        ("CAS-T", 1, 10, 12, 36.0, 12),
        ("CAS-T", 2, 12, 48, 75.0, 288),
        ("LO", 1, 7, 146, 21.0, 250),
        ("LO", 2, 8, 362, 19.0, 1004),
        ("WS", 1, 9, 282, 34.0, 934),
        ("WS", 2, 10, 477, 47.0, 3176),
    ];
    rows.iter()
        .map(|&(rule, procs, size, t, ms, o)| Row6 {
            rule: rule.into(),
            procs,
            size,
            paper_tests: t,
            paper_ms_per_test: ms,
            paper_outputs: o,
        })
        .collect()
}

/// A generated test.
#[derive(Clone, Debug, Serialize)]
pub struct PivotTest {
    pub rule: String,
    pub procs: usize,
    pub size: usize,
    /// The outcomes of stock coreRMA (the test's expected outputs).
    pub outputs: Vec<String>,
    /// The outcomes that need the rule (allowed without it, forbidden with it).
    pub needs_rule: Vec<String>,
    pub text: String,
}

/// Results of one row.
#[derive(Clone, Debug, Serialize)]
pub struct RowReport {
    pub row: Row6,
    /// The size bound used (the row's, or the `--size` override).
    pub size: usize,
    pub tests: usize,
    pub outputs: usize,
    /// Time to enumerate and run every program up to the row's size, per test found.
    pub ms_per_test: f64,
    /// The same in CPU time of the process (all worker threads; 0 where the
    /// platform does not give it): independent of the machine's load.
    pub cpu_ms_per_test: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct PivotReport {
    pub rows: Vec<RowReport>,
    /// Programs enumerated (one per renaming class) and candidate executions visited.
    pub programs: u64,
    pub visited: u64,
    pub tests: usize,
    pub millis: f64,
    /// CPU time of the run (user + system, all threads; 0 where unknown).
    pub cpu_millis: f64,
    #[serde(skip)]
    pub generated: Vec<PivotTest>,
}

/// Options of a pivot-generation run.
#[derive(Clone, Debug)]
pub struct PivotOptions {
    /// The rows to generate (Table 6's by default).
    pub rows: Vec<Row6>,
    /// Replaces every row's size bound by `min(size, row's)` when set; otherwise each
    /// row runs at its own size (Table 6's).
    pub max_size: Option<usize>,
    /// Most locations in a program.
    pub max_locs: usize,
    pub jobs: usize,
    /// Keep the tests' texts (for `--out`).
    pub keep: bool,
    /// Enumerate every program of every size and search it for every rule (the
    /// reference for the per-rule enumeration; much slower at Table 6's sizes).
    pub plain: bool,
    /// Programs with non-atomic accesses too (outcomes may be ⊤); not with `plain`.
    pub non_atomic: bool,
    /// The one-process rows also count programs whose locations may live on a second
    /// process that holds memory only ([`space::programs_with_memory`]).
    pub memory: bool,
}

fn show(regs: &[String], o: &[Value]) -> String {
    regs.iter().zip(o).map(|(r, v)| format!("{r} = {v}")).collect::<Vec<_>>().join(" /\\ ")
}

/// Programs searched together (bounds the memory of a run).
const CHUNK: usize = 20_000;

/// What a run accumulates: tests per (rule, processes, size) with their stock
/// outputs, the tests' texts, candidate executions visited.
struct Acc<'a> {
    found: &'a mut BTreeMap<(Rule, usize, usize), (usize, usize)>,
    generated: &'a mut Vec<PivotTest>,
    visited: &'a mut u64,
}

/// Searches `batch` (programs of `procs` processes and `size` actions) on `opts.jobs`
/// threads and records its tests in `acc`.
fn run_chunk(acc: &mut Acc, batch: &[Program], rules: &[Rule], procs: usize, size: usize, opts: &PivotOptions) {
    // per test program: its index, the stock outputs, and per rule the outcomes needing it
    type Found = (usize, Vec<Vec<Value>>, Vec<(Rule, Vec<Vec<Value>>)>);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Found>> = Mutex::new(Vec::new());
    let seen = AtomicU64::new(0);
    std::thread::scope(|sc| {
        for _ in 0..opts.jobs.max(1) {
            sc.spawn(|| {
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= batch.len() {
                        break;
                    }
                    let o = outcomes(&batch[i], rules);
                    seen.fetch_add(o.visited, Ordering::Relaxed);
                    let needs: Vec<(Rule, Vec<Vec<Value>>)> = o
                        .without
                        .iter()
                        .map(|(r, s)| (*r, s.difference(&o.stock).cloned().collect::<Vec<_>>()))
                        .filter(|(_, n)| !n.is_empty())
                        .collect();
                    if !needs.is_empty() {
                        mine.push((i, o.stock.into_iter().collect(), needs));
                    }
                }
                results.lock().expect("results").extend(mine);
            });
        }
    });
    let mut res = results.into_inner().expect("results");
    res.sort_by_key(|r| r.0);
    *acc.visited += seen.load(Ordering::Relaxed);
    for (i, stock, needs) in res {
        let p = &batch[i];
        let regs = p.registers();
        for (r, needs) in needs {
            let e = acc.found.entry((r, procs, size)).or_default();
            e.0 += 1;
            e.1 += stock.len();
            if opts.keep {
                let name = format!("PIVOT-{}-{}p-s{}-{}", r.name(), procs, size, e.0);
                let mut text = p.litmus(
                    &name,
                    &format!(
                        "pivot {}: outcomes allowed without {} and forbidden by stock coreRMA",
                        r.name(),
                        r.name()
                    ),
                    &mowgli_libs::corerma::CoreRma::name_without(Rules::none()),
                );
                for out in &stock {
                    text += &format!("expect allowed {}\n", show(&regs, out));
                }
                for n in &needs {
                    text += &format!("expect forbidden {}\n", show(&regs, n));
                }
                acc.generated.push(PivotTest {
                    rule: r.name().into(),
                    procs,
                    size,
                    outputs: stock.iter().map(|v| show(&regs, v)).collect(),
                    needs_rule: needs.iter().map(|v| show(&regs, v)).collect(),
                    text,
                });
            }
        }
    }
}

/// Runs pivot generation for the rows of `opts`.
///
/// Each row runs up to its own size. Programs of a size are enumerated once for
/// every row that reaches that size, and only those where some process has the shape
/// of one of those rows' rules ([`Need`], a necessary condition for being a test);
/// each is searched for those rules only. A row's count is therefore that of the
/// plain enumeration (`opts.plain`), at a fraction of its cost above the sizes of
/// the R1, R2 and WS rows (which need no shape).
pub fn generate(opts: &PivotOptions) -> PivotReport {
    let start = Instant::now();
    let bound = |r: &Row6| opts.max_size.map_or(r.size, |m| r.size.min(m));
    // the rules of the rows with `procs` processes reaching `size`
    let rules_of = |procs: usize, size: usize| -> Vec<Rule> {
        let mut v: Vec<Rule> = opts
            .rows
            .iter()
            .filter(|r| r.procs == procs && (opts.plain || bound(r) >= size))
            .filter_map(|r| Rule::parse(&r.rule))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    // per (rule, procs, size): tests and outputs; per (procs, size): cumulative time
    let mut found: BTreeMap<(Rule, usize, usize), (usize, usize)> = BTreeMap::new();
    let mut time_upto: BTreeMap<(usize, usize), (f64, f64)> = BTreeMap::new();
    let cpu0 = cpu_millis();
    let mut generated = Vec::new();
    let mut programs_n = 0u64;
    let mut visited = 0u64;
    for procs in [1usize, 2] {
        let max = opts.rows.iter().filter(|r| r.procs == procs).map(bound).max().unwrap_or(0);
        let t0 = Instant::now();
        let c0 = cpu_millis();
        for size in 1..=max {
            let rules = rules_of(procs, size);
            if rules.is_empty() {
                continue;
            }
            let need = if opts.plain { Need::all() } else { Need::any_of(&rules) };
            let mut batch = Vec::new();
            let mut acc = Acc { found: &mut found, generated: &mut generated, visited: &mut visited };
            let mut each = |p: Program| {
                batch.push(p);
                if batch.len() >= CHUNK {
                    run_chunk(&mut acc, &batch, &rules, procs, size, opts);
                    programs_n += batch.len() as u64;
                    batch.clear();
                }
            };
            if opts.plain {
                programs(procs, size, opts.max_locs, &mut each);
            } else {
                programs_needing(procs, size, opts.max_locs, &need, opts.non_atomic, &mut each);
            }
            if procs == 1 && opts.memory {
                programs_with_memory(size, opts.max_locs, &need, opts.non_atomic, &mut each);
            }
            run_chunk(&mut acc, &batch, &rules, procs, size, opts);
            programs_n += batch.len() as u64;
            time_upto.insert((procs, size), (t0.elapsed().as_secs_f64() * 1e3, cpu_millis() - c0));
        }
    }
    let rows: Vec<RowReport> = opts
        .rows
        .iter()
        .map(|r| {
            let size = bound(r);
            let rule = Rule::parse(&r.rule);
            let (tests, outputs) = found
                .iter()
                .filter(|((ru, p, s), _)| Some(*ru) == rule && *p == r.procs && *s <= size)
                .fold((0, 0), |acc, (_, v)| (acc.0 + v.0, acc.1 + v.1));
            let (t, c) = time_upto.get(&(r.procs, size)).copied().unwrap_or((0.0, 0.0));
            let per = |t: f64| if tests > 0 { t / tests as f64 } else { 0.0 };
            RowReport { row: r.clone(), size, tests, outputs, ms_per_test: per(t), cpu_ms_per_test: per(c) }
        })
        .collect();
    let tests = generated.len();
    PivotReport {
        tests: if opts.keep { tests } else { found.values().map(|v| v.0).sum() },
        rows,
        programs: programs_n,
        visited,
        millis: start.elapsed().as_secs_f64() * 1e3,
        cpu_millis: cpu_millis() - cpu0,
        generated,
    }
}

/// CPU time (user + system) of this process so far, in ms, from `/proc/self/stat`
/// (Linux; fields 14 and 15, in clock ticks of 1/100 s); 0 elsewhere.
fn cpu_millis() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // the command name (field 2) is in parentheses and may hold spaces
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return 0.0 };
    let f: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3: utime is field 14, stime field 15
    let tick = |i: usize| f.get(i - 3).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(14) + tick(15)) * 10.0
}
