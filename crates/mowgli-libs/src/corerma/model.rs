//! The coreRMA model itself ("Modeling and Analysis of Remote Memory Access
//! Programming", Dan, Lam, Hoefler, Vechev, OOPSLA 2016): actions (§4, Table 3), the
//! rules of Fig. 4 as named axioms that can be switched off one at a time, and the
//! consistency check of one candidate execution.
//!
//! An execution is `⟨Action, po, hb, rf, r_val, w_val⟩` (Table 5). The rules of
//! Fig. 4 *require* hb edges; hb is any strict partial order that contains them
//! (the paper's Alloy encoding constrains hb by the rules, it does not define it as
//! their least fixpoint). A larger hb only removes conflicts (`a ∥ b`, §5.2), so a
//! candidate execution here chooses, besides rf, the order of the atomic writes of
//! each location (rule WS) and, for every pair of accesses that could conflict and
//! that the rules do not order, whether hb orders it one way, the other, or not at
//! all. The check then closes the chosen edges under the rules (R1 is the only rule
//! whose premise mentions hb: a fixpoint), requires hb to be acyclic, every read to
//! read a write that hb leaves visible to it (R1 and R2, below: "valid reads-from
//! relations must not induce cycles in hb", §5.1), rf with the value dependencies
//! inside statements to be acyclic (§5), the pairs chosen parallel to stay parallel
//! (so each hb is found once), and computes
//! the values (no-C, C, PG, GA, CAS-F, CAS-T). Initial values are atomic write
//! actions hb-before every program action (§5, after Table 5).
//!
//! Readings of the text recorded here:
//! - CAS-F leaves `w_val(erw)` unconstrained in Fig. 4; §3.2 says a failed
//!   compare-and-swap "leaves the value of z^dst unchanged", so `w_val(erw) =
//!   r_val(erw)` here.
//! - **R1 and R2 hold for non-atomic accesses as visibility constraints.** Fig. 4
//!   states R1 and R2 for atomic reads and writes only, so as printed a non-atomic
//!   read ordered by hb after two writes of its location could read the overwritten
//!   one (`X =n 1; a =n X` with a = 0: LO orders the write before the read, no
//!   conflict, no-C gives the initial 0), and one ordered before a write could read
//!   it (`a =n X; X =n 1` with a = 1). The paper rules both out elsewhere: hb means
//!   "the effects of a1 are guaranteed visible to a2" (Table 5, for every action);
//!   "valid reads-from relations must not induce cycles in hb" (§5.1); F1, LO, R1
//!   and R2 "assume that local actions of a CPU are sequentially consistent" (§5.3);
//!   and §2.3 c) says that with in-order routing "the get statement will read the
//!   value written by the previous put statement", for the non-atomic accesses that
//!   make c = ⊤ possible (the example has no outcome set matching its prose
//!   otherwise: `specs/litmus/corerma/CRMA-Fig3c-*`). So, for every read r of a
//!   write w (atomic or not): under R1, no writer w2 of the location has
//!   `w hb w2 hb r`; under R2, not `r hb w` ([`Model::visible`]). These are
//!   constraints, not hb edges: non-atomic rf still orders nothing (R2's edge stays
//!   atomic-only, as printed), so a non-atomic read may still read a po-later write
//!   that hb does not order after it (Fig. 3b). They belong to R1 and R2 (switched
//!   off with them), not to hb itself: with every access atomic they follow from the
//!   two rules' edges, and Table 6 has R1 tests, which an always-on visibility axiom
//!   would leave without any (every hb cycle through an R1 edge `r hb w2` is a read
//!   of an hb-overwritten write). Programs whose accesses are all atomic have exactly
//!   the outcomes they had before, under every set of rules.
//! - ⊤ (`Value::Top`) is the undefined value: `⊤ + v = ⊤`. A CAS comparing ⊤ (its
//!   compared value or the value its erw read) may succeed or fail: ⊤ stands for
//!   "any value" (§2.1: non-atomic accesses "can return any value"; rule C: "the
//!   value read by r is undefined"), so both premises `r_val(er1) = r_val(erw)`
//!   (CAS-T) and `≠` (CAS-F) can hold, ⊤ against ⊤ included (two undefined values
//!   need not be the same value). Defined values compare as written. A failed CAS
//!   that read ⊤ writes ⊤ back; a successful one writes `r_val(er2)`.
//! - Switching a rule off removes its hb edges; the value equations of PG, GA and
//!   CAS-F/T stay (they define what the statements compute). Switching off C makes a
//!   conflicting read return the written value (no undefined values); switching off
//!   no-C leaves a conflict-free read unconstrained, which ⊤ ("any value") stands for.

use mowgli_core::Value;

pub use super::rules::{Rule, Rules};

/// Action types (§4): local read/write, external read/write/read-write, flush, and
/// the initial writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Init,
    R,
    W,
    ER,
    EW,
    ERW,
    Flush,
}

impl Kind {
    pub fn reader(self) -> bool {
        matches!(self, Kind::R | Kind::ER | Kind::ERW)
    }
    pub fn writer(self) -> bool {
        matches!(self, Kind::Init | Kind::W | Kind::EW | Kind::ERW)
    }
    pub fn local(self) -> bool {
        matches!(self, Kind::R | Kind::W)
    }
    pub fn external(self) -> bool {
        matches!(self, Kind::ER | Kind::EW | Kind::ERW)
    }
}

/// The statements of Table 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stmt {
    Read,
    Write,
    Get,
    Put,
    Rga,
    Cas,
    Flush,
}

/// The value a writer writes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WVal {
    None,
    Const(Value),
    /// `r_val` of that action (PG: put/get; GA, CAS: the final ew).
    Copy(usize),
    /// GA: `r_val(er) + r_val(self)`.
    Sum(usize),
    /// CAS-T/F: `r_val(er2)` if `r_val(er1) = r_val(self)`, else `r_val(self)`.
    Cas {
        cmp: usize,
        new: usize,
    },
}

/// An action (§4, Table 3) with its attributes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Action {
    pub kind: Kind,
    pub atomic: bool,
    /// The process (thread); `usize::MAX` for an initial write.
    pub proc: usize,
    /// The statement the action belongs to (global numbering; initial writes have their own).
    pub stmt: usize,
    pub stmt_kind: Option<Stmt>,
    /// Location accessed (`usize::MAX` for a flush).
    pub loc: usize,
    pub src: u32,
    pub dst: u32,
    /// In *Remote* (§5.3): the access of a put/get/rga/cas to the target's memory.
    pub remote: bool,
    pub val: WVal,
}

/// Relations over at most 128 actions: one bit row per action.
pub type Row = u128;
pub const MAX_ACTIONS: usize = 128;

fn close(rel: &mut [Row]) {
    let n = rel.len();
    for k in 0..n {
        let bk = 1u128 << k;
        let rk = rel[k];
        for r in rel.iter_mut() {
            if *r & bk != 0 {
                *r |= rk;
            }
        }
    }
}

fn irreflexive(rel: &[Row]) -> bool {
    rel.iter().enumerate().all(|(i, r)| r & (1u128 << i) == 0)
}

/// A program as actions, with program order and the hb edges of the rules that do not
/// depend on the execution.
#[derive(Clone, Debug)]
pub struct Graph {
    pub acts: Vec<Action>,
    /// `po` (transitive): statement order, then the order of the actions inside a statement.
    pub po: Vec<Row>,
    /// Per rule, the hb edges it requires whatever the execution (PG, GA, LO, IR, F1-F3).
    pub static_edges: Vec<(Rule, usize, usize)>,
    /// Per CAS statement: (er1, er2, erw, ew).
    pub cas: Vec<[usize; 4]>,
    /// Readers and their candidate rf sources (writers of the same location, itself excluded).
    pub readers: Vec<usize>,
    pub sources: Vec<Vec<usize>>,
    /// Per location: its atomic program writers (WS orders them; the initial write is first).
    pub ws_writers: Vec<Vec<usize>>,
    /// The initial write of each location (`usize::MAX` when the location is not accessed).
    pub init_of: Vec<usize>,
    /// Value dependencies inside statements: a reader → a writer whose value it gives
    /// (PG, GA, CAS), transitively closed.
    pub dep: Vec<Row>,
    /// Whether some access is non-atomic (else [`Model::visible`] has nothing to check).
    pub non_atomic: bool,
}

impl Graph {
    /// `acts` in program order per process (initial writes anywhere); `po` is
    /// derived from (proc, position in `acts`).
    pub fn new(acts: Vec<Action>, nlocs: usize) -> Graph {
        assert!(acts.len() <= MAX_ACTIONS, "coreRMA executions are limited to {MAX_ACTIONS} actions");
        let n = acts.len();
        let mut po = vec![0 as Row; n];
        for a in 0..n {
            for b in a + 1..n {
                if acts[a].proc == acts[b].proc && acts[a].proc != usize::MAX {
                    po[a] |= 1 << b;
                }
            }
        }
        let mut g = Graph {
            acts,
            po,
            static_edges: Vec::new(),
            cas: Vec::new(),
            readers: Vec::new(),
            sources: Vec::new(),
            ws_writers: vec![Vec::new(); nlocs],
            init_of: vec![usize::MAX; nlocs],
            dep: vec![0; n],
            non_atomic: false,
        };
        g.non_atomic = g.acts.iter().any(|a| a.kind != Kind::Flush && !a.atomic);
        for (w, act) in g.acts.iter().enumerate() {
            let from: Vec<usize> = match &act.val {
                WVal::Copy(r) => vec![*r],
                WVal::Sum(r) => vec![*r],
                WVal::Cas { cmp, new } => vec![*cmp, *new],
                _ => vec![],
            };
            for r in from {
                if r < n && r != w {
                    g.dep[r] |= 1 << w;
                }
            }
        }
        close(&mut g.dep);
        g.derive();
        g
    }

    fn derive(&mut self) {
        let n = self.acts.len();
        let a = &self.acts;
        let po = |x: usize, y: usize| self.po[x] & (1 << y) != 0;
        let eactions =
            |e: usize| -> Vec<usize> { (0..n).filter(|&x| a[x].stmt == a[e].stmt && a[x].kind.external()).collect() };
        let mut edges = Vec::new();
        for x in 0..n {
            if a[x].kind == Kind::Init {
                if a[x].loc < self.init_of.len() {
                    self.init_of[a[x].loc] = x;
                }
                continue;
            }
            if a[x].kind.reader() {
                self.readers.push(x);
                self.sources.push((0..n).filter(|&w| w != x && a[w].kind.writer() && a[w].loc == a[x].loc).collect());
            }
            if a[x].kind.writer() && a[x].atomic && a[x].loc < self.ws_writers.len() {
                self.ws_writers[a[x].loc].push(x);
            }
            for y in 0..n {
                if !po(x, y) {
                    continue;
                }
                let same_stmt = a[x].stmt == a[y].stmt;
                // PG: a put's / get's er before its ew
                if same_stmt && matches!(a[x].stmt_kind, Some(Stmt::Put | Stmt::Get)) {
                    edges.push((Rule::PG, x, y));
                }
                // GA: er before erw before ew
                if same_stmt && a[x].stmt_kind == Some(Stmt::Rga) {
                    edges.push((Rule::GA, x, y));
                }
                // LO: a local action before everything after it
                if a[x].kind.local() {
                    edges.push((Rule::LO, x, y));
                }
                // IR: remote actions to the same (other) process, in po
                if a[x].remote && a[y].remote && a[x].dst == a[y].dst && a[x].dst != a[x].src && !same_stmt {
                    edges.push((Rule::IR, x, y));
                }
                // F1: a flush before later local actions
                if a[x].kind == Kind::Flush && a[y].kind.local() {
                    edges.push((Rule::F1, x, y));
                }
                // F2: every external action of a statement whose remote action is
                // po-before a flush to the same process, before the flush
                if a[x].remote && a[y].kind == Kind::Flush && a[x].dst == a[y].dst {
                    for e in eactions(x) {
                        edges.push((Rule::F2, e, y));
                    }
                }
                // F3: a flush before every external action of a later statement whose
                // remote action goes to the same process
                if a[x].kind == Kind::Flush && a[y].remote && a[x].dst == a[y].dst {
                    for e in eactions(y) {
                        edges.push((Rule::F3, x, e));
                    }
                }
            }
        }
        // CAS statements: their actions in order er1, er2, erw, ew
        let mut stmts: Vec<usize> = (0..n).filter(|&x| a[x].stmt_kind == Some(Stmt::Cas)).map(|x| a[x].stmt).collect();
        stmts.dedup();
        for s in stmts {
            let xs: Vec<usize> = (0..n).filter(|&x| a[x].stmt == s).collect();
            if xs.len() == 4 {
                self.cas.push([xs[0], xs[1], xs[2], xs[3]]);
            }
        }
        edges.sort();
        edges.dedup();
        self.static_edges = edges;
    }

    pub fn len(&self) -> usize {
        self.acts.len()
    }

    /// Whether rf (of the assigned readers) with the value dependencies has no cycle:
    /// no value is read from a write whose value depends on that read (no value out
    /// of thin air; with PG, GA and CAS on, these dependencies are hb edges anyway).
    pub fn rf_dep_acyclic(&self, c: &Cand) -> bool {
        let mut r = self.dep.clone();
        for (i, &x) in self.readers.iter().enumerate() {
            if let Some(Some(w)) = c.rf.get(i) {
                r[*w] |= 1 << x;
            }
        }
        close(&mut r);
        irreflexive(&r)
    }

    pub fn is_empty(&self) -> bool {
        self.acts.is_empty()
    }

    /// Pairs of actions that may conflict (§5.2: same location, a writer among them,
    /// a non-atomic one among them) and that `fixed` (hb edges present in every
    /// execution) does not order.
    pub fn conflict_pairs(&self, fixed: &[Row]) -> Vec<(usize, usize)> {
        let a = &self.acts;
        let mut out = Vec::new();
        for x in 0..a.len() {
            for y in x + 1..a.len() {
                if a[x].loc == usize::MAX || a[x].loc != a[y].loc {
                    continue;
                }
                if !(a[x].kind.writer() || a[y].kind.writer()) || (a[x].atomic && a[y].atomic) {
                    continue;
                }
                if fixed[x] & (1 << y) != 0 || fixed[y] & (1 << x) != 0 {
                    continue;
                }
                out.push((x, y));
            }
        }
        out
    }

    /// The hb edges every execution has under `off` (initial writes first, then the
    /// static rules still on), closed transitively; CAS edges left out.
    pub fn fixed_hb(&self, off: Rules) -> Vec<Row> {
        let n = self.len();
        let mut hb = vec![0 as Row; n];
        let program: Row = (0..n).filter(|&y| self.acts[y].kind != Kind::Init).fold(0, |m, y| m | 1 << y);
        for (x, row) in hb.iter_mut().enumerate() {
            if self.acts[x].kind == Kind::Init {
                *row |= program;
            }
        }
        for &(r, x, y) in &self.static_edges {
            if !off.contains(r) {
                hb[x] |= 1 << y;
            }
        }
        close(&mut hb);
        hb
    }
}

/// A candidate execution (possibly partial): the choices besides the program.
#[derive(Clone, Debug, Default)]
pub struct Cand {
    /// Per reader (index into `Graph::readers`): its rf source.
    pub rf: Vec<Option<usize>>,
    /// Per location: the order of its atomic writers (a permutation of
    /// `Graph::ws_writers[loc]`); `None` while unknown. A prefix may be given.
    pub ws: Vec<Vec<usize>>,
    /// Per CAS statement: whether it succeeds (CAS-T) or fails (CAS-F).
    pub cas_ok: Vec<Option<bool>>,
    /// Per conflict pair: 0 = x hb y, 1 = y hb x, 2 = parallel.
    pub pairs: Vec<Option<u8>>,
}

/// The outcome of a consistent candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eval {
    pub hb: Vec<Row>,
    /// `r_val` per action (readers) and `w_val` (writers); `Unit` for flushes.
    pub rval: Vec<Value>,
    pub wval: Vec<Value>,
}

fn add_val(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Int(x.wrapping_add(*y)),
        _ => Value::Top,
    }
}

/// The model: the rules of Fig. 4 minus `off`, and, for VPI Verbs, in-order routing
/// of put–put and get–get pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Model {
    pub off: Rules,
    /// The IR edges between two puts or between two gets (IR's premise, both remote
    /// statements of the same kind), whether or not IR is on.
    pub put_put_get_get: bool,
}

impl Model {
    pub fn stock() -> Model {
        Model { off: Rules::none(), put_put_get_get: false }
    }

    pub fn without(off: Rules) -> Model {
        Model { off, put_put_get_get: false }
    }

    /// coreRMA customised for VPI Verbs on InfiniBand (§7, RQ1): "removing rule IR
    /// and imposing ordering between put - put and get - get". The ordering is read
    /// as IR restricted to pairs of puts and pairs of gets: remote actions of two
    /// such statements of a process towards the same other process, in po.
    pub fn vpi() -> Model {
        Model { off: Rules::of(&[Rule::IR]), put_put_get_get: true }
    }

    /// The hb edges every execution has under this model ([`Graph::fixed_hb`] with
    /// the put–put/get–get edges of [`Model::vpi`]), closed transitively.
    pub fn fixed(&self, g: &Graph) -> Vec<Row> {
        let mut hb = g.fixed_hb(self.off);
        if self.put_put_get_get {
            for &(r, x, y) in &g.static_edges {
                let (kx, ky) = (g.acts[x].stmt_kind, g.acts[y].stmt_kind);
                if r == Rule::IR && kx == ky && matches!(kx, Some(Stmt::Put | Stmt::Get)) {
                    hb[x] |= 1 << y;
                }
            }
            close(&mut hb);
        }
        hb
    }

    /// hb of a (partial) candidate: `fixed` (see [`Graph::fixed_hb`] with the same
    /// rules) with the CAS, R2, WS and chosen pair edges, closed under R1 and
    /// transitivity. `None` when hb has a cycle, a read reads a write hb does not
    /// leave visible to it ([`Model::visible`]), a pair chosen parallel is ordered,
    /// or rf with the value dependencies has a cycle.
    pub fn hb(&self, g: &Graph, fixed: &[Row], pairs: &[(usize, usize)], c: &Cand) -> Option<Vec<Row>> {
        let a = &g.acts;
        let mut hb = fixed.to_vec();
        for (i, cas) in g.cas.iter().enumerate() {
            let rule = match c.cas_ok.get(i).copied().flatten() {
                Some(true) => Rule::CasT,
                Some(false) => Rule::CasF,
                None => continue,
            };
            if !self.off.contains(rule) {
                let [er1, er2, erw, ew] = *cas;
                hb[er2] |= 1 << erw;
                hb[erw] |= 1 << ew;
                hb[er1] |= 1 << erw;
            }
        }
        let mut atomic_rf = Vec::new();
        for (i, &r) in g.readers.iter().enumerate() {
            if let Some(Some(w)) = c.rf.get(i) {
                if a[r].atomic && a[*w].atomic {
                    atomic_rf.push((r, *w));
                    if !self.off.contains(Rule::R2) {
                        hb[*w] |= 1 << r;
                    }
                }
            }
        }
        if !self.off.contains(Rule::WS) {
            for (l, order) in c.ws.iter().enumerate() {
                let init = g.init_of.get(l).copied().unwrap_or(usize::MAX);
                let mut prev = init;
                for &w in order {
                    if prev != usize::MAX {
                        hb[prev] |= 1 << w;
                    }
                    prev = w;
                }
            }
        }
        for (i, &(x, y)) in pairs.iter().enumerate() {
            match c.pairs.get(i).copied().flatten() {
                Some(0) => hb[x] |= 1 << y,
                Some(1) => hb[y] |= 1 << x,
                _ => {}
            }
        }
        loop {
            close(&mut hb);
            if !irreflexive(&hb) {
                return None;
            }
            if self.off.contains(Rule::R1) {
                break;
            }
            // R1: an atomic read of w1, w1 hb w2 (atomic, same location) ⇒ r hb w2
            let mut changed = false;
            for &(r, w1) in &atomic_rf {
                let mut later = hb[w1] & !hb[r];
                while later != 0 {
                    let w2 = later.trailing_zeros() as usize;
                    later &= later - 1;
                    if w2 != r && a[w2].atomic && a[w2].kind.writer() && a[w2].loc == a[w1].loc {
                        hb[r] |= 1 << w2;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        if !self.visible(g, &hb, c) {
            return None;
        }
        for (i, &(x, y)) in pairs.iter().enumerate() {
            if c.pairs.get(i).copied().flatten() == Some(2) && (hb[x] & (1 << y) != 0 || hb[y] & (1 << x) != 0) {
                return None;
            }
        }
        // rf (with the value dependencies inside statements) acyclic: "each of the three
        // relations po, hb, and rf is acyclic in a valid RMA program execution" (§5)
        if !g.rf_dep_acyclic(c) {
            return None;
        }
        Some(hb)
    }

    /// Whether every assigned read reads a write that hb leaves visible to it, for
    /// non-atomic accesses too (the reading of R1 and R2 recorded in the module
    /// documentation): under R1 no read reads a write `w` with `w hb w2 hb r` for
    /// another writer `w2` of its location (`w` is overwritten before the read), under
    /// R2 no read reads a write it is hb-before. With every access atomic both
    /// follow from R1's and R2's edges and the acyclicity of hb, so this only
    /// constrains candidates with a non-atomic access. Monotone in hb: a violation
    /// stays when hb grows, so partial candidates may be pruned by it.
    fn visible(&self, g: &Graph, hb: &[Row], c: &Cand) -> bool {
        let (r1, r2) = (!self.off.contains(Rule::R1), !self.off.contains(Rule::R2));
        if !g.non_atomic || (!r1 && !r2) {
            return true;
        }
        let a = &g.acts;
        for (i, &r) in g.readers.iter().enumerate() {
            let Some(Some(w)) = c.rf.get(i).copied() else { continue };
            // R2: not r hb w
            if r2 && hb[r] & (1 << w) != 0 {
                return false;
            }
            // R1: no writer w2 of the location with w hb w2 hb r
            if r1 {
                let mut later = hb[w];
                while later != 0 {
                    let w2 = later.trailing_zeros() as usize;
                    later &= later - 1;
                    if a[w2].kind.writer() && a[w2].loc == a[r].loc && hb[w2] & (1 << r) != 0 {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// The values of a complete candidate whose hb is `hb` (no-C, C, PG, GA, CAS):
    /// `None` when a CAS's outcome differs from the candidate's choice.
    pub fn values(&self, g: &Graph, hb: &[Row], c: &Cand) -> Option<Eval> {
        let a = &g.acts;
        let n = a.len();
        let par = |x: usize, y: usize| hb[x] & (1 << y) == 0 && hb[y] & (1 << x) == 0;
        let conflict =
            |x: usize, y: usize| x != y && a[x].loc == a[y].loc && par(x, y) && (!a[x].atomic || !a[y].atomic);
        let wconflict = |w: usize| (0..n).any(|w2| a[w2].kind.writer() && conflict(w, w2));
        let rconflict = |r: usize| (0..n).any(|w| a[w].kind.writer() && conflict(r, w));
        // a topological order of rf ∪ dep (the order values flow in)
        let mut hr = g.dep.clone();
        let mut src = vec![usize::MAX; n];
        for (i, &r) in g.readers.iter().enumerate() {
            let w = c.rf.get(i).copied().flatten()?;
            hr[w] |= 1 << r;
            src[r] = w;
        }
        close(&mut hr);
        let mut order: Vec<usize> = (0..n).collect();
        let preds: Vec<u32> = (0..n).map(|y| (0..n).filter(|&x| hr[x] & (1 << y) != 0).count() as u32).collect();
        order.sort_by_key(|&x| preds[x]);
        let mut rval = vec![Value::Unit; n];
        let mut wval = vec![Value::Unit; n];
        let cas_of = |x: usize| g.cas.iter().position(|c| c[2] == x);
        for &x in &order {
            let act = &a[x];
            if act.kind.reader() {
                let w = src[x];
                let bad = rconflict(x) || wconflict(w);
                rval[x] = match (bad, self.off.contains(Rule::C), self.off.contains(Rule::NoC)) {
                    (true, false, _) => Value::Top,
                    (false, _, true) => Value::Top,
                    _ => wval[w].clone(),
                };
            }
            if act.kind.writer() {
                wval[x] = match &act.val {
                    WVal::None => Value::Top,
                    WVal::Const(v) => v.clone(),
                    WVal::Copy(r) => rval[*r].clone(),
                    WVal::Sum(r) => add_val(&rval[*r], &rval[x]),
                    WVal::Cas { cmp, new } => {
                        let chosen = cas_of(x).and_then(|i| c.cas_ok.get(i).copied().flatten());
                        // ⊤ is an undefined value ("any value", §2.1): compared with
                        // anything, ⊤ included, it may be equal or not, so CAS-T and
                        // CAS-F are both possible; defined values compare as written
                        let ok = if rval[*cmp] == Value::Top || rval[x] == Value::Top {
                            chosen.unwrap_or(true)
                        } else {
                            rval[*cmp] == rval[x]
                        };
                        if cas_of(x).is_some() && chosen != Some(ok) {
                            return None;
                        }
                        if ok {
                            rval[*new].clone()
                        } else {
                            rval[x].clone()
                        }
                    }
                };
            }
        }
        Some(Eval { hb: hb.to_vec(), rval, wval })
    }

    /// Every consistent complete candidate of `g`, by brute force over rf, WS orders,
    /// CAS outcomes and conflict-pair orientations (a reference enumeration: the
    /// library's witness search and the pivot generator prune, this does not).
    pub fn executions(&self, g: &Graph) -> Vec<Eval> {
        let fixed = self.fixed(g);
        let pairs = g.conflict_pairs(&fixed);
        let mut out = Vec::new();
        let mut c = Cand {
            rf: vec![None; g.readers.len()],
            ws: vec![Vec::new(); g.ws_writers.len()],
            cas_ok: vec![None; g.cas.len()],
            pairs: vec![None; pairs.len()],
        };
        self.brute(g, &fixed, &pairs, &mut c, 0, &mut out);
        out
    }

    fn brute(&self, g: &Graph, fixed: &[Row], pairs: &[(usize, usize)], c: &mut Cand, k: usize, out: &mut Vec<Eval>) {
        let nr = g.readers.len();
        let nl = g.ws_writers.len();
        let nc = g.cas.len();
        if k < nr {
            for &w in &g.sources[k] {
                c.rf[k] = Some(w);
                self.brute(g, fixed, pairs, c, k + 1, out);
            }
            c.rf[k] = None;
        } else if k < nr + nl {
            let l = k - nr;
            let ws = g.ws_writers[l].clone();
            for p in permutations(&ws) {
                c.ws[l] = p;
                self.brute(g, fixed, pairs, c, k + 1, out);
            }
            c.ws[l].clear();
        } else if k < nr + nl + nc {
            for ok in [false, true] {
                c.cas_ok[k - nr - nl] = Some(ok);
                self.brute(g, fixed, pairs, c, k + 1, out);
            }
            c.cas_ok[k - nr - nl] = None;
        } else if k < nr + nl + nc + pairs.len() {
            for o in 0..3 {
                c.pairs[k - nr - nl - nc] = Some(o);
                self.brute(g, fixed, pairs, c, k + 1, out);
            }
            c.pairs[k - nr - nl - nc] = None;
        } else if let Some(hb) = self.hb(g, fixed, pairs, c) {
            if let Some(e) = self.values(g, &hb, c) {
                out.push(e);
            }
        }
    }
}

/// Every permutation of `xs`.
pub fn permutations(xs: &[usize]) -> Vec<Vec<usize>> {
    if xs.is_empty() {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for i in 0..xs.len() {
        let mut rest = xs.to_vec();
        let x = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}
