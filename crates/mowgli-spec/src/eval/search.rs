//! The witness search of a file library: folding the static parts, evaluating
//! the dynamic ones on (partial) witnesses.

use std::cell::OnceCell;
use std::collections::BTreeSet;

use mowgli_core::library::Cell as MemCell;
use mowgli_core::memory::{ReadSpec, ReadVal, RfMo, WriteSpec, WriteVal};
use mowgli_core::model::LibId;
use mowgli_core::{BitRel, ExecGraph, FinalValue, Value, WitnessSearch};

use crate::*;

use super::FileLibrary;

mod ev;
mod objects;
mod plan;
mod set;
mod symbolic;
mod values;

use ev::Ev;
pub(super) use plan::Plan;
use plan::Static;
use set::Set;
pub(super) use values::Values;

/// A value: a set of subevents or a relation.
#[derive(Clone, Debug)]
enum Val {
    Set(Set),
    Rel(BitRel),
}

impl Val {
    fn set(self) -> Set {
        match self {
            Val::Set(s) => s,
            Val::Rel(_) => Set::EMPTY,
        }
    }
    fn rel(self, n: usize) -> BitRel {
        match self {
            Val::Rel(r) => r,
            Val::Set(_) => BitRel::new(n),
        }
    }
}

enum WState {
    /// Pairs and the chosen orientation of each.
    Orients { pairs: Vec<(usize, usize)>, choice: Vec<Option<usize>> },
    /// Per picking subevent: candidates; the chosen one.
    Picks { targets: Vec<(usize, Vec<usize>)>, choice: Vec<Option<usize>> },
    /// Pairs and the chosen orientation of each: 0 as given, 1 inverse, 2 neither.
    OrientsOpt { pairs: Vec<(usize, usize)>, choice: Vec<Option<usize>> },
    /// Subevents and the chosen set of each: 1 the first, 0 the second.
    Splits { elems: Vec<usize>, choice: Vec<Option<usize>> },
}

pub(super) struct FileSearch<'a> {
    lib: &'a FileLibrary,
    g: &'a ExecGraph<'a>,
    n: usize,
    /// The library's subevents, memory and accesses.
    m: Memory,
    wits: Vec<WState>,
    /// First variable of each witness (after the memory's).
    wit_base: Vec<usize>,
    nvars: usize,
    assigned: Vec<bool>,
    nassigned: usize,
    /// The values of the library's static parts ([`Plan::statics`]).
    consts: Vec<Val>,
    /// Whether some static axiom is violated.
    static_ok: bool,
    /// The constant of so's static terms, unless empty.
    so_fixed: Option<usize>,
    /// The library's subevents.
    all: Set,
    /// Per base relation (but hb): its value, once computed.
    bases: [OnceCell<Val>; BASES],
    /// Per tag: its subevents.
    tags: Vec<Set>,
    /// Per declared stamp: the library's subevents of its kind.
    stamps: Vec<Set>,
    /// Memory with `undefined`: the values computed after the witness.
    vals: Option<Values>,
}

/// A file library's memory over one plain execution: its reads and writes,
/// and the rf/mo variables (built before the rest of a search, see
/// [`FileSearch::viable`]).
struct Memory {
    /// Per subevent: whether it is the library's.
    mine: Vec<bool>,
    mem: Option<RfMo>,
    /// Per memory cell: (location, copy's node).
    cells: Vec<(usize, Option<u32>)>,
    reads: Set,
    writes: Set,
    /// Per event: its read that returns the call's value.
    ret_read: Vec<Option<usize>>,
    /// With values computed after the witness: the reads and writes for [`Values`]
    /// (moved there).
    vreads: Vec<(usize, AccVal)>,
    vwrites: Vec<(usize, AccVal)>,
}

impl Memory {
    fn new(lib: &FileLibrary, g: &ExecGraph, me: LibId) -> Memory {
        let spec = &lib.spec;
        let n = g.len();
        let w = g.world;
        let mine: Vec<bool> = (0..n).map(|s| g.event_of(s).lib == me).collect();
        // memory
        let mut reads = Set::new(n);
        let mut writes = Set::new(n);
        let mut ret_read = vec![None; g.events.len()];
        let mut cells = Vec::new();
        let (mut vreads, mut vwrites) = (Vec::new(), Vec::new());
        let mem = spec.memory.map(|mk| {
            let nnodes = w.nodes.len().max(1);
            let node_ix = |x: u32| w.nodes.iter().position(|&m| m == x).unwrap_or(0);
            let mut init = Vec::new();
            for (l, li) in w.locs.iter().enumerate() {
                match mk.kind {
                    MemoryKind::Replicated => {
                        for &x in &w.nodes {
                            cells.push((l, Some(x)));
                            init.push(li.init.clone());
                        }
                    }
                    MemoryKind::Located => {
                        cells.push((l, None));
                        init.push(li.init.clone());
                    }
                }
            }
            let cell_ix = |c: MemCell| -> Option<usize> {
                if c.0 >= w.locs.len() {
                    return None;
                }
                Some(match mk.kind {
                    MemoryKind::Replicated => c.0 * nnodes + node_ix(c.1.unwrap_or(0)),
                    MemoryKind::Located => c.0,
                })
            };
            let mut rs = Vec::new();
            let mut ws = Vec::new();
            for (ei, e) in g.events.iter().enumerate() {
                if e.lib != me {
                    continue;
                }
                let Some(m) = spec.methods.get(e.method) else { continue };
                for &s in &g.subs_of[ei] {
                    let st = g.subs[s].stamp;
                    let Some(d) = lib.decl_of(st.kind) else { continue };
                    let occ = values::occurrence(g, lib, s);
                    for write in [false, true] {
                        for a in m
                            .accesses
                            .iter()
                            .filter(|a| a.stamp == d && a.write == write && a.occ.is_none_or(|k| k == occ))
                        {
                            let Some(c) = lib.cell_of(w, e.thread, &e.args, st, a).and_then(cell_ix) else {
                                continue;
                            };
                            if spec.computes_values() {
                                // values are computed after the witness (values.rs)
                                if write {
                                    ws.push(WriteSpec { sub: s, cell: c, val: WriteVal::Known(Value::Unit) });
                                    vwrites.push((s, a.val.clone()));
                                    writes.insert(s);
                                } else {
                                    if a.val == AccVal::Ret {
                                        ret_read[ei] = Some(s);
                                    }
                                    rs.push(ReadSpec { sub: s, cell: c, val: ReadVal::Free });
                                    vreads.push((s, a.val.clone()));
                                    reads.insert(s);
                                }
                                continue;
                            }
                            if write {
                                let val = match &a.val {
                                    AccVal::Param(i) => WriteVal::Known(e.args.get(*i).cloned().unwrap_or(Value::Unit)),
                                    AccVal::Int(v) => WriteVal::Known(Value::Int(*v)),
                                    // a read-modify-write's write, from the call's latest read
                                    AccVal::Rmw(op) => match rs.iter().rposition(|r| g.subs[r.sub].event == ei) {
                                        Some(read) => WriteVal::Rmw { read, op: op.op(&e.args) },
                                        // the parser asks for a read before the write
                                        None => WriteVal::Known(Value::Unit),
                                    },
                                    _ if rs.is_empty() => WriteVal::Known(Value::Unit),
                                    _ => WriteVal::CopyOf(rs.len() - 1),
                                };
                                ws.push(WriteSpec { sub: s, cell: c, val });
                                writes.insert(s);
                            } else {
                                let val = match a.val {
                                    AccVal::Ret => {
                                        ret_read[ei] = Some(s);
                                        g.read_val(ei, &e.ret)
                                    }
                                    AccVal::Int(v) => ReadVal::Known(Value::Int(v)),
                                    _ => ReadVal::Free,
                                };
                                rs.push(ReadSpec { sub: s, cell: c, val });
                                reads.insert(s);
                            }
                        }
                    }
                }
            }
            let mut mem = RfMo::new(n, init, rs, ws);
            mem.returned_reads(|s| g.sym_ret[g.subs[s].event]);
            mem
        });
        Memory { mine, mem, cells, reads, writes, ret_read, vreads, vwrites }
    }
}

impl<'a> FileSearch<'a> {
    pub(super) fn new(lib: &'a FileLibrary, g: &'a ExecGraph<'a>, me: LibId) -> Self {
        Self::with_memory(lib, g, Memory::new(lib, g, me))
    }

    /// [`FileSearch::new`], unless some read of the plain execution has no write
    /// (nor the initial value) to read from: then it has no witness, and nothing
    /// past the memory is built.
    pub(super) fn viable(lib: &'a FileLibrary, g: &'a ExecGraph<'a>, me: LibId) -> Option<Self> {
        let m = Memory::new(lib, g, me);
        if m.mem.as_ref().is_some_and(RfMo::unreadable) {
            return None;
        }
        Some(Self::with_memory(lib, g, m))
    }

    fn with_memory(lib: &'a FileLibrary, g: &'a ExecGraph<'a>, mut m: Memory) -> Self {
        let plan = &lib.shared.plan;
        let n = g.len();
        let (vreads, vwrites) = (std::mem::take(&mut m.vreads), std::mem::take(&mut m.vwrites));
        let mut me_ = FileSearch {
            lib,
            g,
            n,
            m,
            wits: vec![],
            wit_base: vec![],
            nvars: 0,
            assigned: vec![],
            nassigned: 0,
            consts: vec![],
            static_ok: true,
            so_fixed: None,
            all: Set::EMPTY,
            bases: Default::default(),
            tags: vec![],
            stamps: vec![],
            vals: None,
        };
        me_.all = Set::from_fn(n, |x| me_.m.mine[x]);
        me_.tags = values::tag_sets(lib, g, &me_.m.mine);
        me_.stamps = vec![Set::new(n); lib.kinds.len()];
        for x in (0..n).filter(|&x| me_.m.mine[x]) {
            let kind = g.subs[x].stamp.kind;
            for (k, _) in lib.kinds.iter().enumerate().filter(|(_, &d)| d == kind) {
                me_.stamps[k].insert(x);
            }
        }
        if lib.spec.computes_values() {
            me_.vals = Some(Values::new(n, vreads, vwrites));
        }
        // the static parts, in order
        let mut consts = Vec::with_capacity(plan.statics.len());
        for st in &plan.statics {
            let v = me_.static_value(&consts, st);
            consts.push(v);
        }
        me_.consts = consts;
        me_.so_fixed = plan.so_static.filter(|&k| match &me_.consts[k] {
            Val::Rel(r) => !r.is_empty(),
            Val::Set(_) => false,
        });
        // witnesses
        let mut nv = me_.m.mem.as_ref().map_or(0, RfMo::num_vars);
        for wd in &lib.spec.witnesses {
            me_.wit_base.push(nv);
            let st = match &wd.kind {
                WitnessKind::Orients(r) => {
                    let r = me_.eval_static(r).rel(n);
                    let pairs: Vec<(usize, usize)> = r.pairs().collect();
                    WState::Orients { choice: vec![None; pairs.len()], pairs }
                }
                WitnessKind::Picks { cands, targets } => {
                    let c = me_.eval_static(cands).rel(n);
                    let t = me_.eval_static(targets).set();
                    let ct = c.inverse();
                    let targets: Vec<(usize, Vec<usize>)> = t.iter().map(|b| (b, ct.successors(b).collect())).collect();
                    WState::Picks { choice: vec![None; targets.len()], targets }
                }
                WitnessKind::OrientsOptionally(r) => {
                    // every unordered pair once
                    let r = me_.eval_static(r).rel(n);
                    let pairs: Vec<(usize, usize)> =
                        r.pairs().filter(|&(a, b)| a < b || (a > b && !r.contains(b, a))).collect();
                    WState::OrientsOpt { choice: vec![None; pairs.len()], pairs }
                }
                WitnessKind::Splits { set, .. } => {
                    let t = me_.eval_static(set).set();
                    let elems: Vec<usize> = t.iter().collect();
                    WState::Splits { choice: vec![None; elems.len()], elems }
                }
            };
            nv += match &st {
                WState::Orients { pairs, .. } | WState::OrientsOpt { pairs, .. } => pairs.len(),
                WState::Picks { targets, .. } => targets.len(),
                WState::Splits { elems, .. } => elems.len(),
            };
            me_.wits.push(st);
        }
        me_.nvars = nv;
        me_.assigned = vec![false; nv];
        me_.static_ok = plan.static_axioms.iter().all(|(kind, e)| me_.holds(*kind, &me_.eval_static(e)));
        me_
    }

    /// The value of a static part (given the constants before it).
    fn static_value(&self, consts: &[Val], st: &Static) -> Val {
        let n = self.n;
        let mut ev = Ev::new(self, consts, None);
        match st {
            Static::Val(e) => ev.eval(e),
            Static::Rows(x) | Static::Cols(x) => {
                // x is [S]
                let s = match x {
                    Expr::Ident(s) => ev.eval(s).set(),
                    _ => Set::EMPTY,
                };
                // S × U or U × S
                let rows = matches!(st, Static::Rows(_));
                let mut mask = BitRel::new(n);
                for a in s.iter() {
                    for b in 0..n {
                        let (x, y) = if rows { (a, b) } else { (b, a) };
                        mask.add(x, y);
                    }
                }
                Val::Rel(mask)
            }
        }
    }

    fn complete(&self) -> bool {
        self.nassigned == self.nvars
    }

    fn holds(&self, kind: AxiomKind, v: &Val) -> bool {
        match (kind, v) {
            (AxiomKind::Empty, Val::Set(s)) => s.is_empty(),
            (AxiomKind::Empty, Val::Rel(r)) => r.is_empty(),
            (AxiomKind::Irreflexive, Val::Rel(r)) => r.is_irreflexive(),
            (AxiomKind::Acyclic, Val::Rel(r)) => r.is_acyclic(),
            _ => true,
        }
    }

    fn eval_static(&self, e: &Expr) -> Val {
        Ev::new(self, &self.consts, None).eval(e)
    }

    fn wit_rel(&self, i: usize) -> BitRel {
        let mut r = BitRel::new(self.n);
        match &self.wits[i] {
            WState::Orients { pairs, choice } => {
                for (k, &(a, b)) in pairs.iter().enumerate() {
                    match choice[k] {
                        Some(0) => r.add(a, b),
                        Some(_) => r.add(b, a),
                        None => {}
                    }
                }
            }
            WState::Picks { targets, choice } => {
                for (k, (b, c)) in targets.iter().enumerate() {
                    if let Some(j) = choice[k] {
                        r.add(c[j], *b);
                    }
                }
            }
            WState::OrientsOpt { pairs, choice } => {
                for (k, &(a, b)) in pairs.iter().enumerate() {
                    match choice[k] {
                        Some(0) => r.add(a, b),
                        Some(1) => r.add(b, a),
                        _ => {}
                    }
                }
            }
            WState::Splits { .. } => {}
        }
        r
    }

    /// One of the two sets of a `splits` witness.
    fn wit_set(&self, i: usize, first: bool) -> Set {
        let mut out = Set::new(self.n);
        if let WState::Splits { elems, choice } = &self.wits[i] {
            for (k, &b) in elems.iter().enumerate() {
                if choice[k] == Some(usize::from(first)) {
                    out.insert(b);
                }
            }
        }
        out
    }

    /// (witness, index in it) of a variable after the memory's.
    fn wit_var(&self, var: usize) -> (usize, usize) {
        let i = self.wit_base.iter().rposition(|&b| b <= var).unwrap_or(0);
        (i, var - self.wit_base[i])
    }

    fn mem_vars(&self) -> usize {
        self.m.mem.as_ref().map_or(0, RfMo::num_vars)
    }

    fn node_of(&self, s: usize) -> u32 {
        self.g.subs[s].stamp.node.unwrap_or_else(|| self.g.world.thread_node(self.g.event_of(s).thread))
    }

    fn arg(&self, s: usize, a: &ArgRef) -> Option<&Value> {
        let e = self.g.event_of(s);
        if e.method != a.method {
            return None;
        }
        match a.param {
            Some(i) => e.args.get(i),
            None => Some(&e.ret),
        }
    }

    /// A base relation other than hb (computed once).
    fn base(&self, b: Base) -> &Val {
        self.bases[b as usize].get_or_init(|| Val::Rel(self.base_uncached(b)))
    }

    fn base_uncached(&self, b: Base) -> BitRel {
        let g = self.g;
        let mine = &self.m.mine;
        let both = |x: usize, y: usize| mine[x] && mine[y];
        match b {
            Base::Po => g.po.restrict(|x| mine[x], |y| mine[y]),
            Base::Ppo => g.ppo.restrict(|x| mine[x], |y| mine[y]),
            Base::Int => {
                // pairs inside one event
                let mut r = BitRel::new(self.n);
                for subs in &g.subs_of {
                    for &x in subs {
                        for &y in subs.iter().filter(|&&y| both(x, y) && g.subs[x].pos < g.subs[y].pos) {
                            r.add(x, y);
                        }
                    }
                }
                r
            }
            Base::Hb => g.ppo.clone(),
            Base::Id => BitRel::identity_on(self.n, |x| mine[x]),
            Base::SameNode => {
                let node: Vec<u32> = (0..self.n).map(|x| self.node_of(x)).collect();
                BitRel::from_fn(self.n, |x, y| both(x, y) && node[x] == node[y])
            }
            Base::SameThread => {
                BitRel::from_fn(self.n, |x, y| both(x, y) && g.event_of(x).thread == g.event_of(y).thread)
            }
            Base::SameStamp => BitRel::from_fn(self.n, |x, y| both(x, y) && g.subs[x].stamp == g.subs[y].stamp),
            Base::SameLoc => {
                let cells = self.access_cells();
                BitRel::from_fn(self.n, |x, y| both(x, y) && cells[x].iter().any(|c| cells[y].contains(c)))
            }
        }
    }

    /// Per subevent: the memory cells it reads or writes.
    fn access_cells(&self) -> Vec<BTreeSet<usize>> {
        let mut out = vec![BTreeSet::new(); self.n];
        if let Some(m) = &self.m.mem {
            for r in &m.reads {
                out[r.sub].insert(r.cell);
            }
            for w in &m.writes {
                out[w.sub].insert(w.cell);
            }
        }
        out
    }
}

/// How many base relations there are ([`Base`], the last one last).
const BASES: usize = Base::SameLoc as usize + 1;

fn flatten_union<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Union(a, b) => {
            flatten_union(a, out);
            flatten_union(b, out);
        }
        _ => out.push(e),
    }
}

fn ty_of(e: &Expr) -> Ty {
    use Expr::*;
    match e {
        All | Stamp(_) | Method(_) | MethodStamp(..) | Reads | Writes | Obj(..) | Domain(_) | Range(_) => Ty::Set,
        Tag(_) | InitReads | WitSet(..) => Ty::Set,
        Let(_, t) | Empty(t) | Const(_, t) => *t,
        Union(a, _) | Inter(a, _) | Diff(a, _) => ty_of(a),
        _ => Ty::Rel,
    }
}

impl WitnessSearch for FileSearch<'_> {
    fn num_vars(&self) -> usize {
        self.nvars
    }
    fn domain(&self, var: usize) -> usize {
        let mv = self.mem_vars();
        if var < mv {
            return self.m.mem.as_ref().map_or(0, |m| m.domain(var));
        }
        let (i, k) = self.wit_var(var);
        match &self.wits[i] {
            WState::Orients { .. } | WState::Splits { .. } => 2,
            WState::OrientsOpt { .. } => 3,
            WState::Picks { targets, .. } => targets[k].1.len(),
        }
    }
    fn assign(&mut self, var: usize, val: Option<usize>) {
        if self.assigned[var] != val.is_some() {
            self.assigned[var] = val.is_some();
            if val.is_some() {
                self.nassigned += 1;
            } else {
                self.nassigned -= 1;
            }
        }
        let mv = self.mem_vars();
        if var < mv {
            if let Some(m) = self.m.mem.as_mut() {
                m.assign(var, val);
            }
            return;
        }
        let (i, k) = self.wit_var(var);
        match &mut self.wits[i] {
            WState::Orients { choice, .. }
            | WState::Picks { choice, .. }
            | WState::OrientsOpt { choice, .. }
            | WState::Splits { choice, .. } => choice[k] = val,
        }
    }
    fn var_subevents(&self, var: usize) -> Vec<usize> {
        let mv = self.mem_vars();
        if var < mv {
            return self.m.mem.as_ref().map(|m| vec![m.var_subevent(var)]).unwrap_or_default();
        }
        let (i, k) = self.wit_var(var);
        match &self.wits[i] {
            WState::Orients { pairs, .. } | WState::OrientsOpt { pairs, .. } => vec![pairs[k].0, pairs[k].1],
            WState::Picks { targets, .. } => vec![targets[k].0],
            WState::Splits { elems, .. } => vec![elems[k]],
        }
    }
    fn check(&mut self, _hb: &BitRel, so: &mut BitRel) -> bool {
        if !self.static_ok {
            return false;
        }
        if let Some(m) = &self.m.mem {
            if !m.values_ok(false) {
                return false;
            }
        }
        let complete = self.complete();
        if complete && self.vals.is_some() && !self.compute_values() {
            return false;
        }
        let plan = &self.lib.shared.plan;
        let mut ev = Ev::new(self, &self.consts, None);
        for (kind, e, mono) in &plan.axioms {
            if *mono || complete {
                let v = ev.slot(e);
                if !self.holds(*kind, ev.view(&v)) {
                    return false;
                }
            }
        }
        if let Some(Val::Rel(r)) = self.so_fixed.map(|k| &self.consts[k]) {
            so.union_with(r);
        }
        for (e, mono) in &plan.so {
            if *mono || complete {
                let v = ev.slot(e);
                if let Val::Rel(r) = ev.view(&v) {
                    so.union_with(r);
                }
            }
        }
        true
    }
    fn needs_hb(&self) -> bool {
        !self.lib.shared.plan.hb_axioms.is_empty()
    }
    fn check_hb(&self, hb: &BitRel) -> bool {
        let complete = self.complete();
        let plan = &self.lib.shared.plan;
        let mut ev = Ev::new(self, &self.consts, Some(hb));
        for (kind, e, mono) in &plan.hb_axioms {
            if *mono || complete {
                let v = ev.slot(e);
                if !self.holds(*kind, ev.view(&v)) {
                    return false;
                }
            }
        }
        true
    }
    fn naive_count(&self) -> f64 {
        let mv = self.mem_vars();
        let m = self.m.mem.as_ref().map_or(1.0, RfMo::naive_unfiltered);
        (mv..self.nvars).map(|v| self.domain(v) as f64).product::<f64>() * m
    }
    fn existential(&self, var: usize) -> bool {
        let mv = self.mem_vars();
        self.vals.is_none()
            && var >= mv
            && matches!(
                self.wits[self.wit_var(var).0],
                WState::Orients { .. } | WState::OrientsOpt { .. } | WState::Splits { .. }
            )
    }
    fn affects_returns(&self, var: usize) -> bool {
        if self.vals.is_some() {
            // computed values depend on every choice (through hb and conflicts)
            return true;
        }
        let mv = self.mem_vars();
        if var < mv {
            return self.m.mem.as_ref().is_some_and(|m| m.changes_returns(var));
        }
        !self.existential(var)
    }
    fn returned(&self, event: usize) -> Option<Value> {
        let s = self.m.ret_read.get(event).copied().flatten()?;
        if let Some(v) = &self.vals {
            return v.read_value(s);
        }
        self.m.mem.as_ref()?.value_read_by(s)
    }
    fn finals(&self, out: &mut Vec<FinalValue>) {
        if self.vals.is_some() {
            return self.value_finals(out);
        }
        let Some(m) = &self.m.mem else { return };
        for (c, &(l, node)) in self.m.cells.iter().enumerate() {
            if !m.touched(c) {
                continue;
            }
            if let Some(v) = m.final_value(c) {
                out.push(FinalValue { loc: l, node, value: v });
            }
        }
    }
    fn relspec(&self) -> Option<mowgli_core::symbolic::RelSpec> {
        self.rel_spec()
    }
    fn relations(&self) -> Vec<(String, BitRel)> {
        let mut out = Vec::new();
        if let Some(m) = &self.m.mem {
            out.push(("rf".into(), m.rf_rel()));
            out.push(("mo".into(), m.mo_rel()));
            out.push(("rb".into(), m.rb_rel()));
        }
        for (i, w) in self.lib.spec.witnesses.iter().enumerate() {
            out.push((w.name.clone(), self.wit_rel(i)));
        }
        out
    }
}
