//! A library's predicate in relational form ([`RelProgram`], what a library file of
//! `docs/spec-language.md` becomes over one plain execution) compiled to SMT, in
//! general: nothing here knows a library.
//!
//! * the memory's rf, mo, rb are [`Encoding`](super::Encoding)'s (one Boolean per
//!   possible pair, exact); a declared witness has its own variables: an
//!   orientation a Boolean per pair (true: value 0, the pair as given), a pick an
//!   integer per target (the candidate's index);
//! * a set is a Boolean per subevent that may be in it, a relation a Boolean per
//!   pair that may be in it (absent: never); constants are `true`;
//! * the operators build terms pairwise (`;` joins on the middle subevent,
//!   `\` conjoins a negation, …);
//! * axioms and so are only ever *bounded above* (an axiom says a relation is
//!   small; so enters hb = (ppo ∪ so)⁺, which must be acyclic). So an expression
//!   is compiled *over*: its term may be true where the relation is not, as long
//!   as the least choice of the fresh variables gives the relation exactly (a
//!   model is then a consistent execution, and every consistent execution has a
//!   model). This is what lets `r⁺` be reachability Booleans forced by the edges
//!   (as the hb encoding does) instead of a closure built out: only the sources
//!   that are used ([S]; r⁺) get them, and `acyclic r⁺` / `irreflexive r⁺` are
//!   `acyclic r`, by integer ranks. Under a `\` the subtrahend must be exact,
//!   and there `r⁺` is built out (Floyd–Warshall over the pairs that may be in r).

use std::collections::BTreeMap;

use mowgli_core::symbolic::{RelExpr, RelProgram, SymAxiomKind, SymWitness};
use mowgli_core::BitRel;
use z3::ast::{Bool, Int};
use z3::Solver;

use super::facts::Closure;
use super::{SymRel, VarTerm};

type Members = BTreeMap<usize, Bool>;
type Pairs = BTreeMap<(usize, usize), Bool>;

/// A compiled expression.
#[derive(Clone)]
enum Val {
    Set(Members),
    Rel(Pairs),
    /// The transitive closure of these pairs, not built out yet (over mode).
    Closure(Pairs),
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    /// The term may be true where the relation is not (the least model is exact).
    Over,
    /// The term is the relation.
    Exact,
}

pub(super) fn and2(a: &Bool, b: &Bool) -> Bool {
    match (a.as_bool(), b.as_bool()) {
        (Some(true), _) => b.clone(),
        (_, Some(true)) => a.clone(),
        (Some(false), _) | (_, Some(false)) => Bool::from_bool(false),
        _ => Bool::and(&[a.clone(), b.clone()]),
    }
}

/// ⋁ ts (`absorbing` = true) or ⋀ ts (`absorbing` = false), folding constants: one
/// absorbing constant decides it, neutral ones are dropped.
fn fold_all(ts: Vec<Bool>, absorbing: bool, op: fn(&[Bool]) -> Bool) -> Bool {
    if ts.iter().any(|t| t.as_bool() == Some(absorbing)) {
        return Bool::from_bool(absorbing);
    }
    let mut ts: Vec<Bool> = ts.into_iter().filter(|t| t.as_bool() != Some(!absorbing)).collect();
    match ts.len() {
        0 => Bool::from_bool(!absorbing),
        1 => ts.pop().unwrap_or_else(|| Bool::from_bool(!absorbing)),
        _ => op(&ts),
    }
}

pub(super) fn or_all(ts: Vec<Bool>) -> Bool {
    fold_all(ts, true, Bool::or)
}

pub(super) fn and_all(ts: Vec<Bool>) -> Bool {
    fold_all(ts, false, Bool::and)
}

pub(super) fn not(a: &Bool) -> Bool {
    match a.as_bool() {
        Some(b) => Bool::from_bool(!b),
        None => a.not(),
    }
}

fn pairs_of(r: &BitRel) -> Pairs {
    r.pairs().map(|p| (p, Bool::from_bool(true))).collect()
}

fn sym_pairs(r: &SymRel) -> Pairs {
    r.edges().collect()
}

/// Adds `t` to `m[k]` (a disjunction).
fn add<K: Ord>(m: &mut BTreeMap<K, Vec<Bool>>, k: K, t: Bool) {
    if t.as_bool() != Some(false) {
        m.entry(k).or_default().push(t);
    }
}

fn collect<K: Ord>(m: BTreeMap<K, Vec<Bool>>) -> BTreeMap<K, Bool> {
    m.into_iter().map(|(k, ts)| (k, or_all(ts))).filter(|(_, t)| t.as_bool() != Some(false)).collect()
}

/// The constant pairs of `edges` replaced by the covering pairs of their closure
/// (same closure, about n pairs instead of n²), unless they are cyclic.
fn reduce(edges: &Pairs, n: usize) -> Pairs {
    let mut fixed = BitRel::new(n);
    let mut out = Pairs::new();
    for (&(a, b), t) in edges {
        if t.as_bool() == Some(true) {
            fixed.add(a, b);
        } else {
            out.insert((a, b), t.clone());
        }
    }
    let plus = fixed.transitive_closure();
    if !plus.is_irreflexive() {
        return edges.clone();
    }
    for p in plus.minus(&plus.compose(&plus)).pairs() {
        out.insert(p, Bool::from_bool(true));
    }
    out
}

struct Compiler<'a> {
    solver: &'a Solver,
    prog: &'a RelProgram,
    n: usize,
    li: usize,
    mem: [Pairs; 3],
    wits: Vec<Pairs>,
    /// The edges whose closure is hb (ppo's covering pairs and every library's
    /// so), once every library is encoded.
    hb: Option<Pairs>,
    memo: BTreeMap<(usize, Mode), Val>,
    fresh: usize,
    /// Per subevent, whether it exists (`None`: every one does): constants are
    /// conjoined with it (`Encoding::guarded`).
    exists: Option<Vec<Bool>>,
}

impl Compiler<'_> {
    fn fresh(&mut self, what: &str) -> String {
        self.fresh += 1;
        format!("l{}_{what}{}", self.li, self.fresh)
    }

    /// Whether subevent `x` exists.
    fn ex(&self, x: usize) -> Bool {
        self.exists.as_ref().map_or_else(|| Bool::from_bool(true), |e| e[x].clone())
    }

    fn rel(&mut self, e: &RelExpr, mode: Mode) -> Pairs {
        match self.val(e, mode) {
            Val::Rel(p) => p,
            Val::Closure(edges) => self.reach(&edges, None),
            Val::Set(_) => Pairs::new(),
        }
    }

    fn set(&mut self, e: &RelExpr, mode: Mode) -> Members {
        match self.val(e, mode) {
            Val::Set(s) => s,
            _ => Members::new(),
        }
    }

    fn val(&mut self, e: &RelExpr, mode: Mode) -> Val {
        let bx = |x: &RelExpr| x.clone();
        match e {
            RelExpr::Set(s) => {
                Val::Set(s.iter().enumerate().filter(|(_, b)| **b).map(|(x, _)| (x, self.ex(x))).collect())
            }
            RelExpr::Rel(r) => Val::Rel(match &self.exists {
                None => pairs_of(r),
                Some(_) => r.pairs().map(|(a, b)| ((a, b), and2(&self.ex(a), &self.ex(b)))).collect(),
            }),
            RelExpr::Rf => Val::Rel(self.mem[0].clone()),
            RelExpr::Mo => Val::Rel(self.mem[1].clone()),
            RelExpr::Rb => Val::Rel(self.mem[2].clone()),
            RelExpr::Wit(i) => Val::Rel(self.wits.get(*i).cloned().unwrap_or_default()),
            RelExpr::Hb => {
                let edges = self.hb.clone().unwrap_or_default();
                match mode {
                    Mode::Over => Val::Closure(edges),
                    Mode::Exact => Val::Rel(closure_exact(edges)),
                }
            }
            RelExpr::Let(i) => {
                if let Some(v) = self.memo.get(&(*i, mode)) {
                    return v.clone();
                }
                let def = self.prog.lets.get(*i).map(bx).unwrap_or(RelExpr::Rel(BitRel::new(self.n)));
                let v = self.val(&def, mode);
                self.memo.insert((*i, mode), v.clone());
                v
            }
            RelExpr::Ident(s) => Val::Rel(self.set(s, mode).into_iter().map(|(x, t)| ((x, x), t)).collect()),
            RelExpr::Prod(a, b) => {
                let (x, y) = (self.set(a, mode), self.set(b, mode));
                let mut out = Pairs::new();
                for (&i, ti) in &x {
                    for (&j, tj) in &y {
                        out.insert((i, j), and2(ti, tj));
                    }
                }
                Val::Rel(out)
            }
            RelExpr::Domain(r) | RelExpr::Range(r) => {
                let dom = matches!(e, RelExpr::Domain(_));
                let mut m = BTreeMap::new();
                for ((a, b), t) in self.rel(r, mode) {
                    add(&mut m, if dom { a } else { b }, t);
                }
                Val::Set(collect(m))
            }
            RelExpr::Inv(r) => match self.val(r, mode) {
                Val::Closure(p) => Val::Closure(p.into_iter().map(|((a, b), t)| ((b, a), t)).collect()),
                Val::Rel(p) => Val::Rel(p.into_iter().map(|((a, b), t)| ((b, a), t)).collect()),
                s => s,
            },
            RelExpr::Plus(r) => {
                let edges = self.rel(r, mode);
                match mode {
                    Mode::Over => Val::Closure(reduce(&edges, self.n)),
                    Mode::Exact => Val::Rel(closure_exact(edges)),
                }
            }
            RelExpr::Seq(a, b) => {
                // x; r⁺: reachability from the range of x only
                let x = self.rel(a, mode);
                let y = match self.val(b, mode) {
                    Val::Closure(edges) => {
                        let from: Members = x.keys().map(|&(_, q)| (q, Bool::from_bool(true))).collect();
                        self.reach(&edges, Some(&from))
                    }
                    vb => self.built(vb),
                };
                let mut by_first: BTreeMap<usize, Vec<(usize, &Bool)>> = BTreeMap::new();
                for ((c, d), t) in &y {
                    by_first.entry(*c).or_default().push((*d, t));
                }
                let mut m = BTreeMap::new();
                for ((p, q), t1) in &x {
                    for (d, t2) in by_first.get(q).map(Vec::as_slice).unwrap_or(&[]) {
                        add(&mut m, (*p, *d), and2(t1, t2));
                    }
                }
                Val::Rel(collect(m))
            }
            RelExpr::Union(a, b) => match (self.val(a, mode), self.val(b, mode)) {
                (Val::Set(x), Val::Set(y)) => Val::Set(merge(x, y, or_all)),
                (x, y) => {
                    let (x, y) = (self.built(x), self.built(y));
                    Val::Rel(merge(x, y, or_all))
                }
            },
            RelExpr::Inter(a, b) => match (self.val(a, mode), self.val(b, mode)) {
                (Val::Set(x), Val::Set(y)) => Val::Set(inter(x, &y)),
                (x, y) => {
                    let (x, y) = (self.built(x), self.built(y));
                    Val::Rel(inter(x, &y))
                }
            },
            RelExpr::Diff(a, b) => match (self.val(a, mode), self.val(b, Mode::Exact)) {
                (Val::Set(x), Val::Set(y)) => Val::Set(minus(x, &y)),
                (x, y) => {
                    let (x, y) = (self.built(x), self.built(y));
                    Val::Rel(minus(x, &y))
                }
            },
        }
    }

    fn built(&mut self, v: Val) -> Pairs {
        match v {
            Val::Rel(p) => p,
            Val::Closure(edges) => self.reach(&edges, None),
            Val::Set(_) => Pairs::new(),
        }
    }

    /// The pairs (a, v) of the closure of `edges` with a in `from` (every source
    /// when `None`), over: per source a, Booleans `reach_a(v)` forced by the edges
    /// out of a and closed under the edges (the least such is reachability).
    /// Relation analysis ([`Closure`]): a pair joined by a path of must edges is the
    /// constant true, and only the subevents a may reach get a Boolean.
    fn reach(&mut self, edges: &Pairs, from: Option<&Members>) -> Pairs {
        let facts = Closure::of(self.n, edges.iter().map(|(p, t)| (*p, t)));
        let mut out_of: BTreeMap<usize, Vec<(usize, &Bool)>> = BTreeMap::new();
        for ((x, y), t) in edges {
            out_of.entry(*x).or_default().push((*y, t));
        }
        let sources: Vec<(usize, Bool)> = match from {
            Some(f) => f.iter().filter(|(a, _)| out_of.contains_key(a)).map(|(a, t)| (*a, t.clone())).collect(),
            None => out_of.keys().map(|&a| (a, Bool::from_bool(true))).collect(),
        };
        let mut out = Pairs::new();
        for (a, ta) in sources {
            // what a reaches in r⁺: a's successors, and what they reach
            let mut within = vec![false; self.n];
            for (y, _) in out_of.get(&a).map(Vec::as_slice).unwrap_or(&[]) {
                for v in facts.may.successors(*y) {
                    within[v] = true;
                }
            }
            let must_from: Vec<bool> = (0..self.n)
                .map(|v| {
                    out_of
                        .get(&a)
                        .is_some_and(|ys| ys.iter().any(|(y, t)| t.as_bool() == Some(true) && facts.must_path(*y, v)))
                })
                .collect();
            let name = self.fresh("reach");
            let reach: BTreeMap<usize, Bool> = (0..self.n)
                .filter(|&v| within[v])
                .map(|v| {
                    let t = if must_from[v] { Bool::from_bool(true) } else { Bool::new_const(format!("{name}_{v}")) };
                    (v, t)
                })
                .collect();
            // (a target outside `within` is one only a constant-false edge leads to)
            let open = |y: &usize| reach.get(y).filter(|r| r.as_bool().is_none());
            for (y, t) in out_of.get(&a).map(Vec::as_slice).unwrap_or(&[]) {
                if let Some(ry) = open(y) {
                    self.solver.assert(t.implies(ry));
                }
            }
            for ((x, y), t) in edges {
                if let (Some(rx), Some(ry)) = (reach.get(x), open(y)) {
                    self.solver.assert(and2(rx, t).implies(ry));
                }
            }
            for (v, r) in reach {
                out.insert((a, v), and2(&ta, &r));
            }
        }
        out
    }

    /// `acyclic` of these pairs: an integer rank per subevent, increasing along
    /// every pair that is present and can lie on a cycle (relation analysis: an
    /// edge no may-path closes needs no rank).
    fn acyclic(&mut self, edges: &Pairs) {
        let facts = Closure::of(self.n, edges.iter().map(|(p, t)| (*p, t)));
        if facts.must_cyclic() {
            self.solver.assert(Bool::from_bool(false));
            return;
        }
        let name = self.fresh("rank");
        let mut rank: BTreeMap<usize, Int> = BTreeMap::new();
        for ((a, b), t) in edges {
            if a == b {
                self.solver.assert(not(t));
            } else if facts.on_cycle(*a, *b) {
                for x in [*a, *b] {
                    rank.entry(x).or_insert_with(|| Int::new_const(format!("{name}_{x}")));
                }
                let lt = rank[a].lt(&rank[b]);
                self.solver.assert(if t.as_bool() == Some(true) { lt } else { t.implies(lt) });
            }
        }
    }

    fn axiom(&mut self, kind: SymAxiomKind, e: &RelExpr) {
        match (kind, self.val(e, Mode::Over)) {
            (SymAxiomKind::Acyclic | SymAxiomKind::Irreflexive, Val::Closure(edges)) => self.acyclic(&edges),
            (SymAxiomKind::Acyclic, Val::Rel(p)) => self.acyclic(&p),
            (SymAxiomKind::Irreflexive, Val::Rel(p)) => {
                for ((a, b), t) in p {
                    if a == b {
                        self.solver.assert(not(&t));
                    }
                }
            }
            (SymAxiomKind::Empty, Val::Set(s)) => {
                for t in s.values() {
                    self.solver.assert(not(t));
                }
            }
            (SymAxiomKind::Empty, v) => {
                for t in self.built(v).values() {
                    self.solver.assert(not(t));
                }
            }
            (_, Val::Set(_)) => {}
        }
    }
}

fn merge<K: Ord + Copy>(
    x: BTreeMap<K, Bool>,
    y: BTreeMap<K, Bool>,
    f: impl Fn(Vec<Bool>) -> Bool,
) -> BTreeMap<K, Bool> {
    let mut m: BTreeMap<K, Vec<Bool>> = BTreeMap::new();
    for (k, t) in x.into_iter().chain(y) {
        m.entry(k).or_default().push(t);
    }
    m.into_iter().map(|(k, ts)| (k, f(ts))).collect()
}

fn inter<K: Ord + Copy>(x: BTreeMap<K, Bool>, y: &BTreeMap<K, Bool>) -> BTreeMap<K, Bool> {
    x.into_iter().filter_map(|(k, t)| y.get(&k).map(|u| (k, and2(&t, u)))).collect()
}

fn minus<K: Ord + Copy>(x: BTreeMap<K, Bool>, y: &BTreeMap<K, Bool>) -> BTreeMap<K, Bool> {
    x.into_iter()
        .map(|(k, t)| match y.get(&k) {
            Some(u) => (k, and2(&t, &not(u))),
            None => (k, t),
        })
        .filter(|(_, t)| t.as_bool() != Some(false))
        .collect()
}

/// The transitive closure, exact: Floyd–Warshall over the pairs that may be present.
fn closure_exact(mut r: Pairs) -> Pairs {
    let mut nodes: Vec<usize> = r.keys().flat_map(|&(a, b)| [a, b]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    for &k in &nodes {
        let into: Vec<(usize, Bool)> =
            r.iter().filter(|((_, b), _)| *b == k).map(|(&(a, _), t)| (a, t.clone())).collect();
        let outof: Vec<(usize, Bool)> =
            r.iter().filter(|((a, _), _)| *a == k).map(|(&(_, b), t)| (b, t.clone())).collect();
        for (i, ti) in &into {
            for (j, tj) in &outof {
                let path = and2(ti, tj);
                let t = match r.get(&(*i, *j)) {
                    Some(old) => or_all(vec![old.clone(), path]),
                    None => path,
                };
                r.insert((*i, *j), t);
            }
        }
    }
    r
}

/// A library's axioms that mention hb, to be encoded once hb's edges are known.
pub(super) struct Pending<'a>(Compiler<'a>);

impl Pending<'_> {
    /// Encodes the axioms over hb = the closure of `hb_edges` (ppo's covering
    /// pairs and every library's so edges, as [`super::Encoding`] has them).
    pub(super) fn finish(mut self, hb_edges: &[((usize, usize), Bool)]) {
        let mut m = BTreeMap::new();
        for ((a, b), t) in hb_edges {
            add(&mut m, (*a, *b), t.clone());
        }
        let c = &mut self.0;
        c.hb = Some(reduce(&collect(m), c.n));
        for (_, kind, e) in &c.prog.hb_axioms {
            c.axiom(*kind, e);
        }
    }
}

/// Encodes library `li`'s [`RelProgram`] into `solver`: its declared witnesses'
/// variables (appended to `vars`, after the memory's, in the search's order), its
/// axioms, and its so (added to `so`). `mem` is the memory's rf, mo, rb. The
/// axioms that mention hb come back as a [`Pending`], for when every library's
/// so is known.
#[allow(clippy::too_many_arguments)]
pub(super) fn encode<'a>(
    solver: &'a Solver,
    li: usize,
    n: usize,
    prog: &'a RelProgram,
    mem: [&SymRel; 3],
    so: &mut SymRel,
    vars: &mut Vec<VarTerm>,
    exists: Option<Vec<Bool>>,
) -> Option<Pending<'a>> {
    let ex = |x: usize| exists.as_ref().map_or_else(|| Bool::from_bool(true), |e| e[x].clone());
    let mut wits = Vec::with_capacity(prog.witnesses.len());
    for (i, w) in prog.witnesses.iter().enumerate() {
        let mut pairs = Pairs::new();
        match w {
            SymWitness::Orients(ps) => {
                for (k, &(a, b)) in ps.iter().enumerate() {
                    let o = Bool::new_const(format!("l{li}_w{i}_{k}"));
                    let mut m = BTreeMap::new();
                    let here = and2(&ex(a), &ex(b));
                    add(&mut m, (a, b), and2(&o, &here));
                    add(&mut m, (b, a), and2(&o.not(), &here));
                    for (p, t) in collect(m) {
                        let old = pairs.remove(&p);
                        pairs.insert(p, or_all(old.into_iter().chain([t]).collect()));
                    }
                    vars.push(VarTerm::Orient(o));
                }
            }
            SymWitness::Picks(targets) => {
                for (k, (b, cands)) in targets.iter().enumerate() {
                    let x = Int::new_const(format!("l{li}_w{i}_{k}"));
                    solver.assert(x.ge(Int::from_i64(0)));
                    solver.assert(x.lt(Int::from_i64(cands.len() as i64)));
                    for (j, &a) in cands.iter().enumerate() {
                        let t = and2(&x.eq(Int::from_i64(j as i64)), &ex(*b));
                        // an existing target picks an existing candidate
                        let a_ex = ex(a);
                        if a_ex.as_bool() != Some(true) {
                            solver.assert(t.implies(&a_ex));
                        }
                        let old = pairs.remove(&(a, *b));
                        pairs.insert((a, *b), or_all(old.into_iter().chain([t]).collect()));
                    }
                    vars.push(VarTerm::Rf(x));
                }
            }
        }
        wits.push(pairs);
    }
    let mut c = Compiler {
        solver,
        prog,
        n,
        li,
        mem: [sym_pairs(mem[0]), sym_pairs(mem[1]), sym_pairs(mem[2])],
        wits,
        hb: None,
        memo: BTreeMap::new(),
        fresh: 0,
        exists,
    };
    for (_, kind, e) in &prog.axioms {
        c.axiom(*kind, e);
    }
    for e in &prog.so {
        for ((a, b), t) in c.rel(e, Mode::Over) {
            so.add(a, b, t);
        }
    }
    (!prog.hb_axioms.is_empty()).then_some(Pending(c))
}
