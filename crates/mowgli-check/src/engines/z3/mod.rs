//! The Z3 engine: the witnesses of one plain execution as an SMT problem.
//!
//! The explicit engine (`engine::dfs`) enumerates witness assignments and asks each
//! library to `check` them. This engine encodes, from each library's predicate as
//! data ([`mowgli_core::symbolic::RelSpec`]), the same variables symbolically and
//! lets Z3 find assignments:
//!
//! * an rf variable is an integer `rf_r ∈ [0, |candidates(r)|)`; an mo variable is
//!   read off integer clocks `mo_w`, distinct within a cell (mo = the clock order);
//! * values: each write has an integer `val_w` (values numbered), a known write is
//!   its constant, a copying write (a put's remote write) equals what its read reads;
//!   a read reads `ite(rf_r = i, value of candidate i, …)`, constrained by its label;
//! * rf, mo and rb are a Boolean per possible pair; rb(r, w) = r reads the initial
//!   value, or a write whose clock is below w's;
//! * the rest of each library's predicate — its declared witnesses (orientations
//!   are Booleans), derived relations, named axioms and so terms — is its
//!   relational program ([`mowgli_core::symbolic::RelProgram`], from its library
//!   file), compiled by [`rel`];
//! * acyclicity of ppo ∪ so by integer clocks (an edge forces a smaller clock: a
//!   relation is acyclic iff such clocks exist).
//!
//! The engine then enumerates models, blocking each one's values of the variables
//! that matter (all of them when every execution is wanted). Every model is handed
//! back to the explicit searches as an assignment and checked by them before it
//! counts: a model the explicit predicate rejects is reported as a disagreement of
//! the two engines, never silently dropped. The other direction (an execution the
//! explicit engine finds and Z3 does not) is what the agreement tests compare.

use std::collections::HashMap;

use mowgli_core::memory::{ReadVal, WriteVal};
use mowgli_core::symbolic::RelSpec;
use mowgli_core::{ExecGraph, Value};
use z3::ast::{Bool, Int};
use z3::{SatResult, Solver};

mod facts;
pub mod goal;
mod readback;
pub use goal::{Cond, Separation};
pub use readback::{ReadBack, TreeChild, TreeNode, WitnessTree};

/// How far (ms) the time limit a solver carries may exceed the one asked for
/// before [`Encoding::set_timeout`] sets it again: a query may then run this much
/// past its limit.
pub const TIMEOUT_SLACK_MS: u32 = 200;

/// A solver kept from an earlier encoding ([`Encoding::release`]), for the next,
/// with the time limit it carries (ms; `None`: not set).
pub struct Spare(Solver, Option<u32>);
mod rel;

/// How a search variable is read off a model.
enum VarTerm {
    /// An rf variable: the candidate index.
    Rf(Int),
    /// An mo variable: how many of the cell's earlier-declared writes are mo-before.
    Mo(Int),
    /// An orientation: true is value 0.
    Orient(Bool),
    /// A variable with a single value.
    Fixed,
}

/// A sparse relation of symbolic pairs.
#[derive(Default)]
struct SymRel {
    pairs: HashMap<(usize, usize), Vec<Bool>>,
}

impl SymRel {
    fn add(&mut self, a: usize, b: usize, cond: Bool) {
        self.pairs.entry((a, b)).or_default().push(cond);
    }
    fn edges(&self) -> impl Iterator<Item = ((usize, usize), Bool)> + '_ {
        self.pairs.iter().map(|(&k, v)| (k, rel::or_all(v.clone())))
    }
}

/// The problem of one plain execution.
pub struct Encoding {
    solver: Solver,
    /// The time limit set on `solver` (ms; [`Encoding::set_timeout`]).
    timeout: std::cell::Cell<Option<u32>>,
    /// Per library, per witness variable.
    vars: Vec<Vec<VarTerm>>,
    /// The edges of ppo ∪ so, each with the condition under which it is one.
    hb_edges: Vec<((usize, usize), Bool)>,
    /// The relation analysis of hb ([`facts::Closure`]): paths of hb* in every
    /// execution, in some.
    hb: facts::Closure,
    n: usize,
    cuts: usize,
    /// The value each read subevent reads, as a value number ([`value_id`]).
    read_terms: HashMap<usize, Int>,
    ids: HashMap<Value, i64>,
    /// [`Encoding::closed_set`]'s sets, by source set.
    closed: HashMap<Vec<usize>, Vec<Bool>>,
    /// The model [`Encoding::next`] found last.
    last: std::cell::RefCell<Option<z3::Model>>,
    /// Per read subevent of a library's memory: its rf variable and its candidate
    /// sources (write subevents; `None`: the initial value), by value.
    rf_of: HashMap<usize, (Int, Vec<Option<usize>>)>,
    /// Per write subevent of a library's memory: (library, cell, mo clock).
    mo_clock: HashMap<usize, (usize, usize, Int)>,
}

/// Why the Z3 engine cannot take a problem.
#[derive(Debug, thiserror::Error)]
pub enum Z3Error {
    #[error("library `{0}` has no symbolic description of its consistency predicate; use the explicit engine")]
    Unsupported(String),
    #[error("Z3 answered `unknown` ({0})")]
    Unknown(String),
}

impl Z3Error {
    /// Whether a message is [`Z3Error::Unsupported`]'s: an engine's limit, not a
    /// verdict on the program (carried as text through the analyses).
    pub fn is_unsupported(msg: &str) -> bool {
        msg.contains("has no symbolic description of its consistency predicate")
    }
}

fn value_id(ids: &mut HashMap<Value, i64>, v: &Value) -> i64 {
    let n = ids.len() as i64;
    *ids.entry(v.clone()).or_insert(n)
}

impl Encoding {
    /// Encodes the Λ-consistent witnesses of `g` (LOCO Def. 3.6) for the libraries'
    /// predicates `specs` (in the order of the libraries).
    pub fn new(g: &ExecGraph, specs: &[RelSpec]) -> Encoding {
        // quantifier-free linear integer arithmetic with Booleans: the logic's own
        // solver, about twice as fast here as the default combined one
        // (measured on I_SV 2 × 2 × 2: QF_IDL, the default solver and a fresh
        // solver per group instead of push/pop were no faster, the default solver
        // about half as fast)
        Self::in_solver(Spare(Solver::new_for_logic("QF_LIA").unwrap_or_default(), None), g, specs)
    }

    /// [`Encoding::new`] in a solver kept from an earlier encoding ([`Encoding::release`]).
    pub fn in_solver(spare: Spare, g: &ExecGraph, specs: &[RelSpec]) -> Encoding {
        Self::guarded(spare, g, specs, None)
    }

    /// The witnesses of every plain execution of a whole program at once
    /// (`engines::explicit::WholeProgram`): `g` is the union of the threads'
    /// copies, `copy_of` each event's (thread, copy), `copies` each thread's
    /// number of copies. Per thread exactly one copy is taken, chosen by a
    /// selector (the constant true for a thread with one copy); an event exists
    /// iff its copy is taken ([`Encoding::guarded`]). Returns the selectors, per
    /// thread per copy.
    pub fn whole(
        g: &ExecGraph,
        specs: &[RelSpec],
        copy_of: &[(usize, usize)],
        copies: &[usize],
    ) -> (Encoding, Vec<Vec<Cond>>) {
        let solver = Solver::new_for_logic("QF_LIA").unwrap_or_default();
        let sel: Vec<Vec<Bool>> = copies
            .iter()
            .enumerate()
            .map(|(t, &n)| {
                if n == 1 {
                    vec![Bool::from_bool(true)]
                } else {
                    (0..n).map(|k| Bool::new_const(format!("path_t{t}_c{k}"))).collect()
                }
            })
            .collect();
        for s in sel.iter().filter(|s| s.len() > 1) {
            // exactly one copy per thread
            solver.assert(Bool::or(s));
            for (i, a) in s.iter().enumerate() {
                for b in &s[i + 1..] {
                    solver.assert(Bool::and(&[a.clone(), b.clone()]).not());
                }
            }
        }
        let exists: Vec<Bool> = g
            .subs
            .iter()
            .map(|sub| {
                let (t, k) = copy_of[sub.event];
                sel[t][k].clone()
            })
            .collect();
        let enc = Self::guarded(Spare(solver, None), g, specs, Some(&exists));
        (enc, sel.into_iter().map(|s| s.into_iter().map(Cond).collect()).collect())
    }

    /// [`Encoding::in_solver`] where subevent s exists iff `exists[s]` (the path
    /// condition of its event, [`Encoding::whole`]): every base relation (rf, mo,
    /// rb, a declared witness's pairs, a constant of the library's program, ppo)
    /// is conjoined with the existence of the subevents it relates, a read that
    /// exists reads from a write that exists, and a read's value is constrained
    /// only when it exists. The library's program has no complement, so every
    /// relation built from guarded ones relates existing subevents only.
    fn guarded(spare: Spare, g: &ExecGraph, specs: &[RelSpec], exists: Option<&[Bool]>) -> Encoding {
        let Spare(solver, timeout) = spare;
        solver.push();
        let n = g.len();
        let ex = |s: usize| exists.map_or_else(|| Bool::from_bool(true), |e| e[s].clone());
        let both = |a: usize, b: usize| rel::and2(&ex(a), &ex(b));
        let mut ids: HashMap<Value, i64> = HashMap::new();
        let mut so = SymRel::default();
        let mut vars = Vec::with_capacity(specs.len());
        let mut read_terms: HashMap<usize, Int> = HashMap::new();
        let mut pending = Vec::new();
        let mut rf_of = HashMap::new();
        let mut mo_clock = HashMap::new();
        for (li, spec) in specs.iter().enumerate() {
            if !spec.possible {
                solver.assert(Bool::from_bool(false));
            }
            let mem = &spec.mem;
            let reads = &mem.reads;
            let writes = &mem.writes;
            let rf: Vec<Int> = (0..reads.len()).map(|r| Int::new_const(format!("l{li}_rf{r}"))).collect();
            let clock: Vec<Int> = (0..writes.len()).map(|w| Int::new_const(format!("l{li}_mo{w}"))).collect();
            let val: Vec<Int> = (0..writes.len()).map(|w| Int::new_const(format!("l{li}_val{w}"))).collect();
            for (r, rd) in reads.iter().enumerate() {
                let cands = mem.candidates(r).iter().map(|c| c.map(|w| writes[w].sub)).collect();
                rf_of.insert(rd.sub, (rf[r].clone(), cands));
            }
            for (w, ws) in writes.iter().enumerate() {
                mo_clock.insert(ws.sub, (li, ws.cell, clock[w].clone()));
            }
            for (r, x) in rf.iter().enumerate() {
                let k = mem.candidates(r).len() as i64;
                solver.assert(x.ge(Int::from_i64(0)));
                solver.assert(x.lt(Int::from_i64(k)));
                if exists.is_some() {
                    // an existing read reads from an existing write
                    for (i, c) in mem.candidates(r).iter().enumerate() {
                        if let Some(w) = c {
                            let w_ex = ex(writes[*w].sub);
                            if w_ex.as_bool() != Some(true) {
                                let chosen = rel::and2(&x.eq(Int::from_i64(i as i64)), &ex(reads[r].sub));
                                solver.assert(chosen.implies(&w_ex));
                            }
                        }
                    }
                }
            }
            for c in 0..mem.num_cells() {
                let ws = mem.writes_of_cell(c);
                for (i, &a) in ws.iter().enumerate() {
                    for &b in &ws[i + 1..] {
                        solver.assert(clock[a].eq(&clock[b]).not());
                    }
                }
            }
            // the value read by read r
            let read_value = |r: usize, ids: &mut HashMap<Value, i64>| -> Int {
                let cands = mem.candidates(r);
                let term = |c: &Option<usize>, ids: &mut HashMap<Value, i64>| match c {
                    None => Int::from_i64(value_id(ids, &mem.init[reads[r].cell])),
                    Some(w) => val[*w].clone(),
                };
                let mut t = match cands.last() {
                    Some(c) => term(c, ids),
                    None => Int::from_i64(-1),
                };
                for i in (0..cands.len().saturating_sub(1)).rev() {
                    let ti = term(&cands[i], ids);
                    t = rf[r].eq(Int::from_i64(i as i64)).ite(&ti, &t);
                }
                t
            };
            let read_values: Vec<Int> = (0..reads.len()).map(|r| read_value(r, &mut ids)).collect();
            for (r, t) in read_values.iter().enumerate() {
                read_terms.insert(reads[r].sub, t.clone());
            }
            for (w, ws) in writes.iter().enumerate() {
                match &ws.val {
                    WriteVal::Known(v) => solver.assert(val[w].eq(Int::from_i64(value_id(&mut ids, v)))),
                    WriteVal::CopyOf(r) => solver.assert(val[w].eq(&read_values[*r])),
                    // a write that may be absent (a remote RMW of RDMA^TSO_RMW) is not
                    // encoded: no library with such writes gives a `RelSpec` (only
                    // library files do, and their writes are known or copies), so
                    // this arm is never reached; it refuses rather than guess
                    WriteVal::Rmw { .. } => solver.assert(Bool::from_bool(false)),
                }
            }
            for (r, rd) in reads.iter().enumerate() {
                let label = match &rd.val {
                    ReadVal::Known(v) => read_values[r].eq(Int::from_i64(value_id(&mut ids, v))),
                    ReadVal::Among(vs) => {
                        let alts: Vec<Bool> =
                            vs.iter().map(|v| read_values[r].eq(Int::from_i64(value_id(&mut ids, v)))).collect();
                        Bool::or(&alts)
                    }
                    ReadVal::Free => continue,
                };
                let here = ex(rd.sub);
                solver.assert(if here.as_bool() == Some(true) { label } else { here.implies(&label) });
            }
            // rf, mo, rb
            let mut rf_rel = SymRel::default();
            let mut mo_rel = SymRel::default();
            let mut rb_rel = SymRel::default();
            for (r, rd) in reads.iter().enumerate() {
                for (i, c) in mem.candidates(r).iter().enumerate() {
                    if let Some(w) = c {
                        let chosen = rf[r].eq(Int::from_i64(i as i64));
                        rf_rel.add(writes[*w].sub, rd.sub, rel::and2(&chosen, &both(writes[*w].sub, rd.sub)));
                    }
                }
                for &w in mem.writes_of_cell(rd.cell) {
                    if writes[w].sub == rd.sub {
                        continue;
                    }
                    let mut alts = Vec::new();
                    for (i, c) in mem.candidates(r).iter().enumerate() {
                        let chosen = rf[r].eq(Int::from_i64(i as i64));
                        match c {
                            None => alts.push(chosen),
                            Some(src) if *src != w => alts.push(Bool::and(&[chosen, clock[*src].lt(&clock[w])])),
                            Some(_) => {}
                        }
                    }
                    if !alts.is_empty() {
                        rb_rel.add(rd.sub, writes[w].sub, rel::and2(&Bool::or(&alts), &both(rd.sub, writes[w].sub)));
                    }
                }
            }
            for c in 0..mem.num_cells() {
                let ws = mem.writes_of_cell(c);
                for &a in ws {
                    for &b in ws {
                        if a != b {
                            let (sa, sb) = (writes[a].sub, writes[b].sub);
                            mo_rel.add(sa, sb, rel::and2(&clock[a].lt(&clock[b]), &both(sa, sb)));
                        }
                    }
                }
            }
            // the search variables, in the search's order
            let mut vs: Vec<VarTerm> = rf.iter().cloned().map(VarTerm::Rf).collect();
            for &(c, j) in mem.mo_variables() {
                let ws = mem.writes_of_cell(c);
                let me = ws[j];
                let before: Vec<Int> = ws[..j]
                    .iter()
                    .map(|&o| clock[o].lt(&clock[me]).ite(&Int::from_i64(1), &Int::from_i64(0)))
                    .collect();
                vs.push(if before.is_empty() { VarTerm::Fixed } else { VarTerm::Mo(Int::add(&before)) });
            }
            let exists_all: Option<Vec<Bool>> = exists.map(|e| e.to_vec());
            pending.extend(rel::encode(
                &solver,
                li,
                n,
                &spec.program,
                [&rf_rel, &mo_rel, &rb_rel],
                &mut so,
                &mut vs,
                exists_all,
            ));
            vars.push(vs);
        }
        // Λ-consistency: ppo ∪ so acyclic
        // ppo enters hb only through its transitive closure, so its covering pairs
        // (the transitive reduction of ppo⁺, about n pairs instead of n²) generate
        // the same hb and the same closed sets
        let ppo_plus = g.ppo.transitive_closure();
        let cover = ppo_plus.minus(&ppo_plus.compose(&ppo_plus));
        let mut hb_edges: Vec<((usize, usize), Bool)> = cover.pairs().map(|(a, b)| ((a, b), both(a, b))).collect();
        hb_edges.extend(so.edges().filter(|(_, e)| e.as_bool() != Some(false)));
        // relation analysis: integer clocks only on the edges that can lie on a
        // cycle of may-hb (an acyclic may-graph needs none)
        let hb = facts::Closure::of(n, hb_edges.iter().map(|(p, e)| (*p, e)));
        if hb.must_cyclic() {
            solver.assert(Bool::from_bool(false));
        }
        let mut hbc: HashMap<usize, Int> = HashMap::new();
        let mut clock_of = |s: usize| hbc.entry(s).or_insert_with(|| Int::new_const(format!("hb{s}"))).clone();
        for ((a, b), e) in &hb_edges {
            if a == b {
                solver.assert(e.not());
            } else if hb.on_cycle(*a, *b) {
                let lt = clock_of(*a).lt(clock_of(*b));
                solver.assert(if e.as_bool() == Some(true) { lt } else { e.implies(lt) });
            }
        }
        for p in pending {
            p.finish(&hb_edges);
        }
        Encoding {
            solver,
            timeout: std::cell::Cell::new(timeout),
            vars,
            hb_edges,
            hb,
            n,
            cuts: 0,
            read_terms,
            ids,
            closed: HashMap::new(),
            last: Default::default(),
            rf_of,
            mo_clock,
        }
    }

    /// "Event `event` of `g` returns `v`" for an event whose return value is open
    /// (`ExecGraph::sym_ret`: it returns what its read subevent reads); `v` may be
    /// `Value::OneOf` alternatives. `None` for an event without a read.
    pub fn returns(&mut self, g: &ExecGraph, event: usize, v: &Value) -> Option<Cond> {
        let t = g.subs_of[event].iter().find_map(|s| self.read_terms.get(s)).cloned()?;
        let alts: Vec<Value> = match v {
            Value::OneOf(vs) => vs.clone(),
            v => vec![v.clone()],
        };
        let eqs: Vec<Bool> = alts.iter().map(|a| t.eq(Int::from_i64(value_id(&mut self.ids, a)))).collect();
        Some(Cond(Bool::or(&eqs)))
    }

    /// The set S of subevents closed under hb = (ppo ∪ so)⁺ (if a ∈ S and a hb b
    /// then b ∈ S) that contains `from`, as one Boolean per subevent. "No hb* path
    /// from any of X to any of Y" holds iff some such S for X misses Y (take S = what
    /// X reaches), which is how the negation of a reachability is asserted. One set
    /// per source set serves every fact about it: the least S (what X reaches) is a
    /// model of all of them at once. Relation analysis: `from` and what it reaches
    /// along must edges are the constant true, what it cannot reach along may edges
    /// the constant false (the least S has none of it); only the rest are Booleans.
    pub(crate) fn closed_set(&mut self, from: &[usize]) -> Vec<Bool> {
        let mut key = from.to_vec();
        key.sort_unstable();
        key.dedup();
        if let Some(set) = self.closed.get(&key) {
            return set.clone();
        }
        self.cuts += 1;
        let inside = self.hb.may_from(&key);
        let set: Vec<Bool> = (0..self.n)
            .map(|v| {
                if key.iter().any(|&x| self.hb.must_path(x, v)) {
                    Bool::from_bool(true)
                } else if inside[v] {
                    Bool::new_const(format!("cut{}_{v}", self.cuts))
                } else {
                    Bool::from_bool(false)
                }
            })
            .collect();
        for ((a, b), e) in &self.hb_edges {
            if inside[*a] && set[*b].as_bool().is_none() {
                self.solver.assert(rel::and2(&set[*a], e).implies(&set[*b]));
            }
        }
        self.closed.insert(key, set.clone());
        set
    }

    /// What the relation analysis knows of x hb* y: `Some(true)` in every
    /// execution (a path of must edges), `Some(false)` in none (no path of may
    /// edges), `None` undecided.
    pub fn path_fact(&self, x: usize, y: usize) -> Option<bool> {
        if self.hb.must_path(x, y) {
            Some(true)
        } else if !self.hb.may_path(x, y) {
            Some(false)
        } else {
            None
        }
    }

    /// "No hb* path from `x` to `y`": outside [`Encoding::closed_set`] of x; a
    /// constant when the relation analysis decides it (a path of must edges: false;
    /// no path of may edges: true).
    pub(crate) fn no_path(&mut self, x: usize, y: usize) -> Bool {
        if self.hb.must_path(x, y) {
            return Bool::from_bool(false);
        }
        if !self.hb.may_path(x, y) {
            return Bool::from_bool(true);
        }
        rel::not(&self.closed_set(&[x])[y])
    }

    /// A fresh Boolean constant (a selector), named after `prefix`.
    pub(crate) fn fresh_bool(&mut self, prefix: &str) -> Bool {
        self.cuts += 1;
        Bool::new_const(format!("{prefix}_{}", self.cuts))
    }

    /// Gives the solver back without this encoding's constraints, for the next one.
    pub fn release(self) -> Spare {
        self.solver.pop(1);
        Spare(self.solver, self.timeout.get())
    }

    /// Bounds the next [`Encoding::next`] calls to `limit` (the solver then answers
    /// [`Z3Error::Unknown`] when it runs out). The solver's parameters are set
    /// again only when the limit in force is not within [`TIMEOUT_SLACK_MS`] above
    /// `limit` (setting them on every query took 5 % of a Z3 run on I_MSW).
    pub fn set_timeout(&self, limit: std::time::Duration) {
        let ms = limit.as_millis().clamp(1, u128::from(u32::MAX - 1)) as u32;
        if self.timeout.get().is_some_and(|set| set >= ms && set - ms <= TIMEOUT_SLACK_MS) {
            return;
        }
        let mut p = z3::Params::new();
        p.set_u32("timeout", ms);
        self.solver.set_params(&p);
        self.timeout.set(Some(ms));
    }

    /// The next model, as a value per search variable (per library), or `None` when
    /// there is none left.
    pub fn next(&self) -> Result<Option<Vec<Vec<usize>>>, Z3Error> {
        match self.solver.check() {
            SatResult::Unsat => Ok(None),
            SatResult::Unknown => Err(Z3Error::Unknown(self.solver.get_reason_unknown().unwrap_or_default())),
            SatResult::Sat => {
                let Some(m) = self.solver.get_model() else {
                    return Err(Z3Error::Unknown("no model".into()));
                };
                let int = |t: &Int| m.eval(t, true).and_then(|v| v.as_i64()).unwrap_or(0).max(0) as usize;
                let vals = self
                    .vars
                    .iter()
                    .map(|vs| {
                        vs.iter()
                            .map(|v| match v {
                                VarTerm::Rf(t) | VarTerm::Mo(t) => int(t),
                                VarTerm::Orient(b) => {
                                    usize::from(!m.eval(b, true).and_then(|b| b.as_bool()).unwrap_or(true))
                                }
                                VarTerm::Fixed => 0,
                            })
                            .collect()
                    })
                    .collect();
                *self.last.borrow_mut() = Some(m);
                Ok(Some(vals))
            }
        }
    }

    /// Excludes every model that gives the variables `which` (library, variable)
    /// the values of `vals`.
    pub fn block(&self, vals: &[Vec<usize>], which: &[(usize, usize)]) {
        let mut same = Vec::new();
        for &(l, v) in which {
            let x = vals[l][v];
            match &self.vars[l][v] {
                VarTerm::Rf(t) | VarTerm::Mo(t) => same.push(t.eq(Int::from_i64(x as i64))),
                VarTerm::Orient(b) => same.push(if x == 0 { b.clone() } else { b.not() }),
                VarTerm::Fixed => {}
            }
        }
        self.solver.assert(Bool::and(&same).not());
    }
}
