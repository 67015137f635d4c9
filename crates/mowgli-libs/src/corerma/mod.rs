//! coreRMA ("Modeling and Analysis of Remote Memory Access Programming", Dan, Lam,
//! Hoefler, Vechev, OOPSLA 2016) as a Mowgli library: the statements of Table 1 as
//! methods, their translation into actions (Table 3) as subevents, and the rules of
//! Fig. 4 ([`model`]) as the consistency predicate, each rule a named axiom that a
//! model can switch off ([`CoreRma::without`]).
//!
//! Methods (one per statement and choice of atomicities, `*` ∈ {a, n} per memory
//! access, in argument order; no suffix = every access atomic):
//!
//! | method | statement | actions (Table 3) |
//! |---|---|---|
//! | `r = Read(x)`, `Read_a`, `Read_n` | `r =* x` | r* |
//! | `Write(x, v)`, `Write_a`, `Write_n` | `x =* v` | w* |
//! | `Get(x, z)`, `Get_an`, … | `x* = get(z*^dst)` | er*(z) (remote); ew*(x) |
//! | `Put(z, x)`, `Put_na`, … | `put(z*^dst, x*)` | er*(x); ew*(z) (remote) |
//! | `Rga(x, z, y)`, `Rga_nnn`, … | `x* = rga(z*^dst, y*)` | er*(y); erw*(z) (remote); ew*(x) |
//! | `Cas(x, z, y, w)`, `Cas_nnnn`, … | `x* = cas(z*^dst, y*, w*)` | er*(y); er*(w); erw*(z) (remote); ew*(x) |
//! | `Flush(n)` | `flush(n)` | flush |
//!
//! A process is a thread, `dst` the node of the location accessed; `x`, `y`, `w`
//! are the caller's locations, `z` any node's (the caller's included: the paper's
//! one-process tests, Fig. 7, access their own memory through the NIC).
//! Local reads return what they read, ⊤ (`top`) included.
//!
//! Variables of the witness search, in order: the rf source of each reader; the
//! order of each location's atomic writes (WS); each CAS's outcome (CAS-T or
//! CAS-F); each pair of accesses that could conflict and that no rule orders (hb
//! one way, the other, or parallel). See [`model`] for why hb is chosen and not
//! only derived.

pub mod model;
mod rules;

use std::collections::BTreeSet;

use mowgli_core::model::LibId;
use mowgli_core::{
    BitRel, Event, ExecGraph, FinalValue, Library, MethodSig, Ret, Role, Stamp, StampOrder, StampTable, Value,
    ValueDomain, WitnessSearch, World, Written,
};

use crate::rdma::Kinds;
use crate::LibError;
pub use model::{Action, Cand, Graph, Kind, Model, Rule, Rules, Stmt, WVal};

/// One method: the statement and the atomicity of each memory access, in argument order.
#[derive(Clone, Debug)]
struct MethodInfo {
    stmt: Stmt,
    atoms: Vec<bool>,
}

pub struct CoreRma {
    name: String,
    model: Model,
    kinds: Kinds,
    methods: Vec<MethodSig>,
    info: Vec<MethodInfo>,
}

/// Every atomicity suffix of `k` accesses (`aa`, `an`, …).
fn suffixes(k: usize) -> Vec<String> {
    (0..1usize << k)
        .map(|bits| (0..k).map(|i| if bits & (1 << (k - 1 - i)) != 0 { 'n' } else { 'a' }).collect())
        .collect()
}

impl CoreRma {
    /// Stock coreRMA: every rule of Fig. 4 (in-order routing included).
    pub fn new(order: &StampOrder) -> Result<Self, LibError> {
        Self::without(order, Rules::none())
    }

    /// coreRMA without the rules in `off` (e.g. `IR` for networks without in-order routing).
    pub fn without(order: &StampOrder, off: Rules) -> Result<Self, LibError> {
        Self::of_model(order, Model::without(off), Self::name_without(off))
    }

    /// The library name of coreRMA without the rules in `off` (the inverse of
    /// [`CoreRma::parse_name`]).
    pub fn name_without(off: Rules) -> String {
        if off == Rules::none() {
            "corerma".to_string()
        } else {
            let mut s = "corerma".to_string();
            for r in off.iter() {
                s.push_str("_no");
                s.push_str(&r.name().to_ascii_lowercase().replace('-', ""));
            }
            s
        }
    }

    /// coreRMA for VPI Verbs (`corerma_vpi`, §7): no IR, put–put and get–get ordered
    /// ([`Model::vpi`]).
    pub fn vpi(order: &StampOrder) -> Result<Self, LibError> {
        Self::of_model(order, Model::vpi(), "corerma_vpi".into())
    }

    fn of_model(order: &StampOrder, model: Model, name: String) -> Result<Self, LibError> {
        let to = order.table("to").ok_or(LibError::MissingTable("to".into()))?;
        let kinds = Kinds::of(to)?;
        let mut methods = Vec::new();
        let mut info = Vec::new();
        let mut add = |base: &str, stmt: Stmt, roles: &[Role], returns: bool, accesses: usize| {
            let mut names = vec![(base.to_string(), vec![true; accesses])];
            for s in suffixes(accesses) {
                names.push((format!("{base}_{s}"), s.chars().map(|c| c == 'a').collect()));
            }
            for (i, (name, atoms)) in names.into_iter().enumerate() {
                let name: &'static str = Box::leak(name.into_boxed_str());
                let rets = if returns { vec![Ret::ValueOf(0), Ret::Top] } else { vec![] };
                let sig = MethodSig::new(name, roles.to_vec(), rets);
                // the common fragment with RDMA^TSO (RDMA paper App. A.10) is the
                // atomic read, write, put and get; per-access atomicity variants and
                // the remote atomics extend it
                let core = i == 0 && matches!(stmt, Stmt::Read | Stmt::Write | Stmt::Put | Stmt::Get);
                methods.push(if core { sig } else { sig.extension() });
                info.push(MethodInfo { stmt, atoms });
            }
        };
        // local sources (a put's x, an rga's y, a cas's y and w) may be literals, as in
        // the litmus format: an implicit location of the caller holding the value
        // the caller's own memory (`check_call`, §3.2: x, y, w ∈ Memory[p]) and the
        // locations each statement writes (a get's x, a put's, rga's, cas's z)
        let here = |written| Role::Loc { local: true, written, sized_like: None };
        let there = |written| Role::Loc { local: false, written, sized_like: None };
        use Role::{Src, Val};
        add("Read", Stmt::Read, &[here(false)], true, 1);
        add("Write", Stmt::Write, &[here(true), Val], false, 1);
        add("Get", Stmt::Get, &[here(true), there(false)], false, 2);
        add("Put", Stmt::Put, &[there(true), Src], false, 2);
        add("Rga", Stmt::Rga, &[here(true), there(true), Src], false, 3);
        add("Cas", Stmt::Cas, &[here(true), there(true), Src, Src], false, 4);
        // "flush(n) is tantamount to rfence(n) followed by mfence" (RDMA paper §6)
        methods.push(
            MethodSig::new("Flush", vec![Role::Node { completes: false }], vec![])
                .same_as(&[("Rfence", true), ("Mfence", false)]),
        );
        info.push(MethodInfo { stmt: Stmt::Flush, atoms: vec![] });
        Ok(CoreRma { name, model, kinds, methods, info })
    }

    /// A library name of the form `corerma`, `corerma_noir`, `corerma_nor1_nows`, …
    /// (the rules switched off, by their Fig. 4 names without `-`).
    pub fn parse_name(name: &str) -> Option<Rules> {
        let rest = name.strip_prefix("corerma")?;
        let mut off = Rules::none();
        if rest.is_empty() {
            return Some(off);
        }
        for part in rest.strip_prefix("_no")?.split("_no") {
            off = off.with(Rule::parse(part)?);
        }
        Some(off)
    }

    pub fn model(&self) -> Model {
        self.model
    }

    /// The coreRMA statement of a call, with its atomicities.
    pub fn statement(&self, method: usize) -> Option<(Stmt, &[bool])> {
        self.info.get(method).map(|i| (i.stmt, i.atoms.as_slice()))
    }
}

/// The actions of one statement (Table 3), for process `proc` on node `src`;
/// `home(l)` is the node of location `l`; `first` is the index the first action
/// will have (for the value references).
#[allow(clippy::too_many_arguments)]
pub fn actions_of(
    stmt: Stmt,
    atoms: &[bool],
    args: &[Value],
    proc: usize,
    src: u32,
    stmt_id: usize,
    first: usize,
    home: &dyn Fn(usize) -> u32,
) -> Vec<Action> {
    let loc = |i: usize| args.get(i).and_then(Value::as_loc).unwrap_or(usize::MAX);
    let at = |i: usize| atoms.get(i).copied().unwrap_or(true);
    let act = |kind, atomic, l: usize, dst: u32, remote, val| Action {
        kind,
        atomic,
        proc,
        stmt: stmt_id,
        stmt_kind: Some(stmt),
        loc: l,
        src,
        dst,
        remote,
        val,
    };
    match stmt {
        Stmt::Read => vec![act(Kind::R, at(0), loc(0), src, false, WVal::None)],
        Stmt::Write => {
            let v = args.get(1).cloned().unwrap_or(Value::Top);
            vec![act(Kind::W, at(0), loc(0), src, false, WVal::Const(v))]
        }
        Stmt::Get => {
            let (x, z) = (loc(0), loc(1));
            vec![
                act(Kind::ER, at(1), z, home(z), true, WVal::None),
                act(Kind::EW, at(0), x, src, false, WVal::Copy(first)),
            ]
        }
        Stmt::Put => {
            let (z, x) = (loc(0), loc(1));
            vec![
                act(Kind::ER, at(1), x, src, false, WVal::None),
                act(Kind::EW, at(0), z, home(z), true, WVal::Copy(first)),
            ]
        }
        Stmt::Rga => {
            let (x, z, y) = (loc(0), loc(1), loc(2));
            vec![
                act(Kind::ER, at(2), y, src, false, WVal::None),
                act(Kind::ERW, at(1), z, home(z), true, WVal::Sum(first)),
                act(Kind::EW, at(0), x, src, false, WVal::Copy(first + 1)),
            ]
        }
        Stmt::Cas => {
            let (x, z, y, w) = (loc(0), loc(1), loc(2), loc(3));
            vec![
                act(Kind::ER, at(2), y, src, false, WVal::None),
                act(Kind::ER, at(3), w, src, false, WVal::None),
                act(Kind::ERW, at(1), z, home(z), true, WVal::Cas { cmp: first, new: first + 1 }),
                act(Kind::EW, at(0), x, src, false, WVal::Copy(first + 2)),
            ]
        }
        Stmt::Flush => {
            let n = args.first().and_then(Value::as_node).unwrap_or(u32::MAX);
            vec![act(Kind::Flush, true, usize::MAX, n, false, WVal::None)]
        }
    }
}

/// The initial write of location `l` (atomic, hb-before every program action).
pub fn init_action(l: usize, node: u32, init: Value) -> Action {
    Action {
        kind: Kind::Init,
        atomic: true,
        proc: usize::MAX,
        stmt: usize::MAX - l,
        stmt_kind: None,
        loc: l,
        src: node,
        dst: node,
        remote: false,
        val: WVal::Const(init),
    }
}

/// Values local reads may return: the domain's (which holds what puts, gets,
/// get-accumulates and CASes write: [`CoreRma::writes`]) and ⊤.
fn read_values(dom: &[Value]) -> Vec<Value> {
    let mut out: BTreeSet<Value> = dom.iter().cloned().collect();
    out.insert(Value::Top);
    out.into_iter().collect()
}

/// `a + b` as an accumulate computes it ([`model`]): ⊤ + v = ⊤.
fn acc_sum(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Int(x.wrapping_add(*y)),
        _ => Value::Top,
    }
}

impl Library for CoreRma {
    fn name(&self) -> &str {
        &self.name
    }
    fn methods(&self) -> &[MethodSig] {
        &self.methods
    }
    fn check_call(&self, world: &World, thread: usize, method: usize, args: &[Value]) -> Result<(), String> {
        let Some(info) = self.info.get(method) else { return Err("unknown method".into()) };
        let here = world.thread_node(thread);
        // §3.2: "coreRMA supports a single process per computation node"
        if let Some(other) = world.threads.iter().enumerate().find(|(t, i)| *t != thread && i.node == here) {
            return Err(format!(
                "threads `{}` and `{}` both run on node {here}; coreRMA has one process per node",
                world.threads[thread].name, other.1.name
            ));
        }
        let lname = |l: usize| world.locs.get(l).map(|i| i.name.clone()).unwrap_or_else(|| "?".into());
        for a in args {
            if let Value::Loc(l) = a {
                if world.locs.get(*l).is_some_and(|i| i.home.is_none()) {
                    return Err(format!(
                        "location `{}` is replicated (declared without `@ N`); coreRMA locations live on one process",
                        lname(*l)
                    ));
                }
            }
        }
        // the arguments that must be the caller's own memory (§3.2: x, y, w ∈ Memory[p])
        let local: &[usize] = match info.stmt {
            Stmt::Read | Stmt::Write | Stmt::Get => &[0],
            Stmt::Put => &[1],
            Stmt::Rga => &[0, 2],
            Stmt::Cas => &[0, 2, 3],
            Stmt::Flush => &[],
        };
        for &i in local {
            if let Some(Value::Loc(l)) = args.get(i) {
                let n = world.loc_node(*l).unwrap_or(0);
                if n != here {
                    return Err(format!(
                        "location `{}` is on node {n}, but thread `{}` runs on node {here}; this argument must be local",
                        lname(*l),
                        world.threads[thread].name
                    ));
                }
            }
        }
        Ok(())
    }
    fn locs(&self, e: &Event) -> Vec<usize> {
        e.args.iter().filter_map(Value::as_loc).collect()
    }
    /// One stamp per action, from LOCO Fig. 10's kinds (they order nothing here:
    /// coreRMA orders its own actions, see [`Library::own_program_order`]).
    fn stamps(&self, world: &World, e: &Event) -> Vec<Stamp> {
        let k = &self.kinds;
        let Some(info) = self.info.get(e.method) else { return vec![] };
        let home = |l: usize| world.loc_node(l).unwrap_or(0);
        let acts = actions_of(info.stmt, &info.atoms, &e.args, e.thread, world.thread_node(e.thread), 0, 0, &home);
        acts.iter()
            .map(|a| match a.kind {
                Kind::R => k.single(k.cr),
                Kind::W => k.single(k.cw),
                Kind::ER if a.remote => k.fam(k.nrr, a.dst),
                Kind::ER => k.fam(k.nlr, a.dst),
                Kind::EW if a.remote => k.fam(k.nrw, a.dst),
                Kind::EW => k.fam(k.nlw, a.dst),
                Kind::ERW => k.fam(k.nrw, a.dst),
                Kind::Flush => k.fam(k.rf, a.dst),
                Kind::Init => k.single(k.cw),
            })
            .collect()
    }
    fn returns(&self, _w: &World, _t: usize, method: usize, args: &[Value], dom: &ValueDomain) -> Vec<Value> {
        match self.info.get(method).map(|i| i.stmt) {
            Some(Stmt::Read) => {
                let l = args.first().and_then(Value::as_loc).unwrap_or(usize::MAX);
                read_values(dom.at(l))
            }
            _ => vec![Value::Unit],
        }
    }
    /// Table 3's writes: `x =* v` writes v; a get or put copies what its er
    /// read; an rga writes the sum of z and y to z and z's old value to x; a CAS
    /// writes w to z (CAS-T, or z unchanged) and z's old value to x. Reads of ⊤
    /// are offered anyway ([`read_values`]).
    fn writes(&self, _w: &World, _t: usize, method: usize, args: &[Value], dom: &ValueDomain, out: &mut Vec<Written>) {
        let Some(info) = self.info.get(method) else { return };
        let loc = |i: usize| args.get(i).and_then(Value::as_loc);
        let vals = |i: usize| loc(i).map_or(&[][..], |l| dom.at(l));
        let copy = |to: Option<usize>, from: usize, out: &mut Vec<Written>| {
            if let Some(l) = to {
                out.extend(vals(from).iter().map(|v| Written {
                    loc: Some(l),
                    value: v.clone(),
                    derived: true,
                    copied: true,
                }));
            }
        };
        match info.stmt {
            Stmt::Write => {
                if let (Some(l), Some(v)) = (loc(0), args.get(1)) {
                    out.push(Written { loc: Some(l), value: v.clone(), derived: false, copied: false });
                }
            }
            Stmt::Get => copy(loc(0), 1, out),
            Stmt::Put => copy(loc(0), 1, out),
            Stmt::Rga => {
                if let Some(z) = loc(1) {
                    for a in vals(1) {
                        for b in vals(2) {
                            out.push(Written { loc: Some(z), value: acc_sum(a, b), derived: true, copied: false });
                        }
                    }
                }
                copy(loc(0), 1, out);
            }
            Stmt::Cas => {
                copy(loc(1), 3, out);
                copy(loc(0), 1, out);
            }
            Stmt::Read | Stmt::Flush => {}
        }
    }
    /// ⊤: a conflicting non-atomic access reads or leaves it (rule C).
    fn constants(&self) -> Vec<Value> {
        vec![Value::Top]
    }
    /// Get-accumulates compute sums.
    fn computes_values(&self) -> bool {
        true
    }
    fn own_program_order(&self) -> bool {
        true
    }
    fn symbolic_return(&self, method: usize) -> bool {
        self.info.get(method).is_some_and(|i| i.stmt == Stmt::Read)
    }
    fn read_only(&self, method: usize) -> bool {
        self.info.get(method).is_some_and(|i| i.stmt == Stmt::Read)
    }
    fn limit(&self, g: &ExecGraph, me: LibId) -> Option<String> {
        let n = action_count(self, g, me);
        (n > model::MAX_ACTIONS)
            .then(|| format!("coreRMA executions are limited to {} actions, this one has {n}", model::MAX_ACTIONS))
    }
    fn search<'a>(&'a self, g: &'a ExecGraph<'a>, _to: &'a StampTable, me: LibId) -> Box<dyn WitnessSearch + 'a> {
        Box::new(RmaSearch::new(self, g, me))
    }
}

/// How many actions the execution of `eg`'s coreRMA events (those of library
/// `me`) has: each statement's actions and one initial write per location used.
fn action_count(lib: &CoreRma, eg: &ExecGraph, me: LibId) -> usize {
    let w = eg.world;
    let home = |l: usize| w.loc_node(l).unwrap_or(0);
    let mut used = vec![false; w.locs.len()];
    let mut n = 0;
    for (ei, e) in eg.events.iter().enumerate() {
        let Some(info) = lib.info.get(e.method).filter(|_| e.lib == me) else { continue };
        let node = w.thread_node(e.thread);
        for a in actions_of(info.stmt, &info.atoms, &e.args, e.thread, node, ei, n, &home) {
            if let Some(u) = used.get_mut(a.loc) {
                *u = true;
            }
            n += 1;
        }
    }
    n + used.iter().filter(|u| **u).count()
}

/// The witness search of one plain execution.
struct RmaSearch<'a> {
    model: Model,
    eg: &'a ExecGraph<'a>,
    g: Graph,
    /// Action → subevent (`usize::MAX` for initial writes).
    sub_of: Vec<usize>,
    /// Event → its local read action, if it is one.
    read_act: Vec<Option<usize>>,
    fixed: Vec<model::Row>,
    pairs: Vec<(usize, usize)>,
    cand: Cand,
    /// Per location with ≥ 2 atomic program writers: its insertion variables.
    ws_vars: Vec<(usize, usize)>,
    ws_pos: Vec<Option<usize>>,
    /// Values of the last complete, consistent assignment.
    last: Option<model::Eval>,
    /// Whether the current leaf's returns are decided.
    nlocs: usize,
}

impl<'a> RmaSearch<'a> {
    fn new(lib: &'a CoreRma, eg: &'a ExecGraph<'a>, me: LibId) -> Self {
        let w = eg.world;
        let nlocs = w.locs.len();
        let mut acts = Vec::new();
        let mut sub_of = Vec::new();
        let mut read_act = vec![None; eg.events.len()];
        let home = |l: usize| w.loc_node(l).unwrap_or(0);
        let mut used = vec![false; nlocs];
        for (ei, e) in eg.events.iter().enumerate() {
            if e.lib != me {
                continue;
            }
            let Some(info) = lib.info.get(e.method) else { continue };
            let node = w.thread_node(e.thread);
            let first = acts.len();
            let xs = actions_of(info.stmt, &info.atoms, &e.args, e.thread, node, ei, first, &home);
            let subs = &eg.subs_of[ei];
            for (i, a) in xs.into_iter().enumerate() {
                if a.loc < nlocs {
                    used[a.loc] = true;
                }
                if a.kind == Kind::R {
                    read_act[ei] = Some(acts.len());
                }
                sub_of.push(subs.get(i).copied().unwrap_or(usize::MAX));
                acts.push(a);
            }
        }
        for (l, u) in used.iter().enumerate() {
            if *u {
                acts.push(init_action(l, home(l), w.locs[l].init.clone()));
                sub_of.push(usize::MAX);
            }
        }
        let g = Graph::new(acts, nlocs);
        let fixed = lib.model.fixed(&g);
        let pairs = g.conflict_pairs(&fixed);
        let mut ws_vars = Vec::new();
        for (l, ws) in g.ws_writers.iter().enumerate() {
            for j in 1..ws.len() {
                ws_vars.push((l, j));
            }
        }
        let cand = Cand {
            rf: vec![None; g.readers.len()],
            ws: vec![Vec::new(); nlocs],
            cas_ok: vec![None; g.cas.len()],
            pairs: vec![None; pairs.len()],
        };
        let ws_pos = vec![None; ws_vars.len()];
        RmaSearch { model: lib.model, eg, g, sub_of, read_act, fixed, pairs, cand, ws_vars, ws_pos, last: None, nlocs }
    }

    /// The WS orders of the assigned prefixes of the insertion variables.
    fn ws_orders(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.nlocs];
        for (l, ws) in self.g.ws_writers.iter().enumerate() {
            if ws.len() == 1 {
                out[l] = ws.clone();
            }
        }
        let mut open = vec![true; self.nlocs];
        for (i, &(l, j)) in self.ws_vars.iter().enumerate() {
            if !open[l] {
                continue;
            }
            match self.ws_pos[i] {
                Some(p) => {
                    if j == 1 {
                        out[l] = vec![self.g.ws_writers[l][0]];
                    }
                    out[l].insert(p.min(j), self.g.ws_writers[l][j]);
                }
                None => open[l] = false,
            }
        }
        out
    }

    fn var_kind(&self, var: usize) -> (u8, usize) {
        let nr = self.g.readers.len();
        let nw = self.ws_vars.len();
        let nc = self.g.cas.len();
        if var < nr {
            (0, var)
        } else if var < nr + nw {
            (1, var - nr)
        } else if var < nr + nw + nc {
            (2, var - nr - nw)
        } else {
            (3, var - nr - nw - nc)
        }
    }

    fn complete(&self) -> bool {
        self.cand.rf.iter().all(Option::is_some)
            && self.ws_pos.iter().all(Option::is_some)
            && self.cand.cas_ok.iter().all(Option::is_some)
            && self.cand.pairs.iter().all(Option::is_some)
    }
}

impl WitnessSearch for RmaSearch<'_> {
    fn num_vars(&self) -> usize {
        self.g.readers.len() + self.ws_vars.len() + self.g.cas.len() + self.pairs.len()
    }
    fn domain(&self, var: usize) -> usize {
        match self.var_kind(var) {
            (0, i) => self.g.sources[i].len(),
            (1, i) => self.ws_vars[i].1 + 1,
            (2, _) => 2,
            _ => 3,
        }
    }
    fn assign(&mut self, var: usize, val: Option<usize>) {
        match self.var_kind(var) {
            (0, i) => self.cand.rf[i] = val.map(|v| self.g.sources[i][v]),
            (1, i) => self.ws_pos[i] = val,
            (2, i) => self.cand.cas_ok[i] = val.map(|v| v == 1),
            (_, i) => self.cand.pairs[i] = val.map(|v| v as u8),
        }
    }
    fn check(&mut self, _hb: &BitRel, so: &mut BitRel) -> bool {
        self.last = None;
        self.cand.ws = self.ws_orders();
        let Some(hb) = self.model.hb(&self.g, &self.fixed, &self.pairs, &self.cand) else { return false };
        if self.complete() {
            let Some(ev) = self.model.values(&self.g, &hb, &self.cand) else { return false };
            // known return values (a plain execution that fixed them) must match
            for (ei, ra) in self.read_act.iter().enumerate() {
                if let Some(a) = ra {
                    if !self.eg.sym_ret[ei] && !self.eg.events[ei].ret.admits(&ev.rval[*a]) {
                        return false;
                    }
                    if self.eg.sym_ret[ei] {
                        if let Some(Some(vs)) = self.eg.sym_vals.get(ei) {
                            if !vs.contains(&ev.rval[*a]) {
                                return false;
                            }
                        }
                    }
                }
            }
            self.last = Some(ev);
        }
        for (x, row) in hb.iter().enumerate() {
            let sx = self.sub_of[x];
            if sx == usize::MAX {
                continue;
            }
            let mut r = *row;
            while r != 0 {
                let y = r.trailing_zeros() as usize;
                r &= r - 1;
                let sy = self.sub_of[y];
                if sy != usize::MAX {
                    so.add(sx, sy);
                }
            }
        }
        true
    }
    fn returned(&self, event: usize) -> Option<Value> {
        let a = self.read_act.get(event).copied().flatten()?;
        self.last.as_ref().map(|e| e.rval[a].clone())
    }
    fn var_subevents(&self, var: usize) -> Vec<usize> {
        match self.var_kind(var) {
            (0, i) => vec![self.sub_of[self.g.readers[i]]].into_iter().filter(|&s| s != usize::MAX).collect(),
            _ => Vec::new(),
        }
    }
    fn finals(&self, out: &mut Vec<FinalValue>) {
        let Some(ev) = &self.last else { return };
        let a = &self.g.acts;
        for l in 0..self.nlocs {
            let ws: Vec<usize> = (0..a.len()).filter(|&w| a[w].kind.writer() && a[w].loc == l).collect();
            if ws.is_empty() {
                continue;
            }
            let maximal: Vec<usize> =
                ws.iter().copied().filter(|&w| ws.iter().all(|&w2| ev.hb[w] & (1 << w2) == 0)).collect();
            let value = match maximal.as_slice() {
                [w] => {
                    let conflicting = ws.iter().any(|&w2| {
                        w2 != *w
                            && ev.hb[*w] & (1 << w2) == 0
                            && ev.hb[w2] & (1 << *w) == 0
                            && (!a[*w].atomic || !a[w2].atomic)
                    });
                    if conflicting {
                        Value::Top
                    } else {
                        ev.wval[*w].clone()
                    }
                }
                _ => Value::Top,
            };
            out.push(FinalValue { loc: l, node: None, value });
        }
    }
    fn relations(&self) -> Vec<(String, BitRel)> {
        let n = self.eg.len();
        let mut rf = BitRel::new(n);
        let mut hb = BitRel::new(n);
        for (i, &r) in self.g.readers.iter().enumerate() {
            if let Some(w) = self.cand.rf[i] {
                if self.sub_of[w] != usize::MAX && self.sub_of[r] != usize::MAX {
                    rf.add(self.sub_of[w], self.sub_of[r]);
                }
            }
        }
        if let Some(ev) = &self.last {
            for (x, row) in ev.hb.iter().enumerate() {
                for y in 0..self.g.len() {
                    if row & (1 << y) != 0 && self.sub_of[x] != usize::MAX && self.sub_of[y] != usize::MAX {
                        hb.add(self.sub_of[x], self.sub_of[y]);
                    }
                }
            }
        }
        vec![("rf".into(), rf), ("hb".into(), hb)]
    }
}

#[cfg(test)]
mod tests;
