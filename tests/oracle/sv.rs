//! sv, shared variables: LOCO paper Example 3.1, Example 3.4 (stmp_sv), §3.4 (Def. 3.7,
//! Def. 3.8). A replicated location x has one copy per node; CPU reads and writes
//! access the caller's copy; `Bcast(x, d, {n…})` reads the local copy and writes the
//! copy of each listed node (subevents aNLR_n, aNRW_n per node n); `Wait(d)` waits
//! for the local reads of the broadcasts with identifier d; `GF({n…})` is a global
//! fence (stamps aGF_n).
//!
//! Consistency (Def. 3.8): well-formed rf = ⋃_n rf^n, mo = ⋃_{x,n} mo_x^n with
//! [aCR]; (po⁻¹ ∩ rb); [aCW] = ∅ and so = iso ∪ rf_e ∪ pf ∪ rb ∪ mo.
//! Memory cells are the copies (x, n); a read without rf edge reads the copy's
//! initial value (the paper fixes 0; the litmus format allows `loc x = v`).

use mowgli_core::memory::{ReadSpec, ReadVal, RfMo, WriteSpec, WriteVal};
use mowgli_core::model::LibId;
use mowgli_core::{
    BitRel, Event, ExecGraph, FinalValue, Library, MemoryShape, MethodSig, Ret, Role, Stamp, StampOrder, StampTable,
    Value, ValueDomain, WitnessSearch, World,
};

use mowgli_libs::rdma::Kinds;
use mowgli_libs::LibError;

pub const WRITE: usize = 0;
pub const READ: usize = 1;
pub const BCAST: usize = 2;
pub const WAIT: usize = 3;
pub const GF: usize = 4;

pub struct Sv {
    kinds: Kinds,
    methods: Vec<MethodSig>,
}

impl Sv {
    pub fn new(order: &StampOrder) -> Result<Self, LibError> {
        let to = order.table("to").ok_or(LibError::MissingTable("to".into()))?;
        let kinds = Kinds::of(to)?;
        // Example 3.1's declaration (as specs/libs/sv.lib states it)
        let m = MethodSig::new;
        let x = |written| Role::Loc { local: false, written, sized_like: None };
        let methods = vec![
            m("Write", vec![x(true), Role::Val], vec![]),
            m("Read", vec![x(false)], vec![Ret::ValueOf(0)]),
            m("Bcast", vec![x(true), Role::Wid { awaited: false }, Role::Nodes], vec![]),
            m("Wait", vec![Role::Wid { awaited: true }], vec![]),
            m("GF", vec![Role::Nodes], vec![]),
        ];
        Ok(Sv { kinds, methods })
    }
}

fn loc0(e: &Event) -> usize {
    e.args.first().and_then(Value::as_loc).unwrap_or(usize::MAX)
}

impl Library for Sv {
    fn name(&self) -> &str {
        "sv"
    }
    fn methods(&self) -> &[MethodSig] {
        &self.methods
    }
    fn memory(&self) -> MemoryShape {
        MemoryShape { replicated: true, tuples: false }
    }
    fn check_call(&self, world: &World, _thread: usize, method: usize, args: &[Value]) -> Result<(), String> {
        if let Some(Value::Loc(l)) = args.first() {
            if world.locs[*l].home.is_some() {
                return Err(format!(
                    "location `{}` is declared on one node (`@ N`); sv locations are replicated (declare `loc {} [= V]`)",
                    world.locs[*l].name, world.locs[*l].name
                ));
            }
        }
        let nodes = match method {
            BCAST => args.get(2),
            GF => args.first(),
            _ => None,
        };
        if let Some(ns) = nodes.and_then(Value::as_nodes) {
            for n in ns {
                if !world.nodes.contains(n) {
                    return Err(format!("node {n} is not a node of this program"));
                }
            }
        }
        Ok(())
    }
    fn locs(&self, e: &Event) -> Vec<usize> {
        match e.method {
            WRITE | READ | BCAST => vec![loc0(e)],
            _ => vec![],
        }
    }
    /// stmp_sv (Example 3.4).
    fn stamps(&self, _world: &World, e: &Event) -> Vec<Stamp> {
        let k = &self.kinds;
        match e.method {
            WRITE => vec![k.single(k.cw)],
            READ => vec![k.single(k.cr)],
            WAIT => vec![k.single(k.wt)],
            GF => e.args[0].as_nodes().unwrap_or(&[]).iter().map(|&n| k.fam(k.gf, n)).collect(),
            BCAST => {
                e.args[2].as_nodes().unwrap_or(&[]).iter().flat_map(|&n| [k.fam(k.nlr, n), k.fam(k.nrw, n)]).collect()
            }
            _ => vec![],
        }
    }
    fn returns(&self, _w: &World, _t: usize, method: usize, args: &[Value], dom: &ValueDomain) -> Vec<Value> {
        match method {
            READ => {
                let l = args.first().and_then(Value::as_loc).unwrap_or(usize::MAX);
                dom.at(l).to_vec()
            }
            _ => vec![Value::Unit],
        }
    }
    fn symbolic_return(&self, method: usize) -> bool {
        method == READ
    }
    fn read_only(&self, method: usize) -> bool {
        method == READ
    }
    fn read_cell(&self, w: &World, t: usize, method: usize, args: &[Value]) -> Option<mowgli_core::library::Cell> {
        (method == READ).then(|| (args.first().and_then(Value::as_loc).unwrap_or(usize::MAX), Some(w.thread_node(t))))
    }
    fn written_cells(
        &self,
        w: &World,
        t: usize,
        method: usize,
        args: &[Value],
    ) -> Vec<(mowgli_core::library::Cell, Option<Value>)> {
        let x = args.first().and_then(Value::as_loc).unwrap_or(usize::MAX);
        match method {
            WRITE => vec![((x, Some(w.thread_node(t))), args.get(1).cloned())],
            BCAST => {
                args.get(2).and_then(Value::as_nodes).unwrap_or(&[]).iter().map(|&n| ((x, Some(n)), None)).collect()
            }
            _ => vec![],
        }
    }
    fn search<'a>(&'a self, g: &'a ExecGraph<'a>, _to: &'a StampTable, me: LibId) -> Box<dyn WitnessSearch + 'a> {
        Box::new(SvSearch::new(self, g, me))
    }
}

struct SvSearch<'a> {
    cr: u8,
    g: &'a ExecGraph<'a>,
    mem: RfMo,
    /// Memory cell → (location, node).
    cells: Vec<(usize, u32)>,
    /// iso ∪ pf.
    so_static: BitRel,
    cw_po_cr: BitRel,
    /// [aCR]; po⁻¹; [aCW].
    cr_po_inv_cw: BitRel,
}

impl<'a> SvSearch<'a> {
    fn new(lib: &'a Sv, g: &'a ExecGraph<'a>, me: LibId) -> Self {
        let k = lib.kinds;
        let w = g.world;
        let nnodes = w.nodes.len();
        let node_ix = |n: u32| w.nodes.iter().position(|&m| m == n).unwrap_or(0);
        let cell = |l: usize, n: u32| l * nnodes + node_ix(n);
        let mut cells = Vec::new();
        let mut init = Vec::new();
        for (l, li) in w.locs.iter().enumerate() {
            for &n in &w.nodes {
                cells.push((l, n));
                init.push(li.init.clone());
            }
        }
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        let mut iso = BitRel::new(g.len());
        for (ei, e) in g.events.iter().enumerate() {
            if e.lib != me {
                continue;
            }
            let here = w.thread_node(e.thread);
            let x = loc0(e);
            for &s in &g.subs_of[ei] {
                let st = g.subs[s].stamp;
                if st.kind == k.cr {
                    let val = g.read_val(ei, &e.ret);
                    reads.push(ReadSpec { sub: s, cell: cell(x, here), val });
                } else if st.kind == k.cw {
                    writes.push(WriteSpec { sub: s, cell: cell(x, here), val: WriteVal::Known(e.args[1].clone()) });
                } else if st.kind == k.nlr {
                    reads.push(ReadSpec { sub: s, cell: cell(x, here), val: ReadVal::Free });
                } else if st.kind == k.nrw {
                    let n = st.node.unwrap_or(here);
                    writes.push(WriteSpec { sub: s, cell: cell(x, n), val: WriteVal::CopyOf(reads.len() - 1) });
                    iso.add(s - 1, s);
                }
            }
        }
        let mut mem = RfMo::new(g.len(), init, reads, writes);
        mem.returned_reads(|s| g.sym_ret[g.subs[s].event]);
        let kind = |s: usize| g.subs[s].stamp.kind;
        let mine = |s: usize| g.events[g.subs[s].event].lib == me;
        // pf: the local reads of a broadcast with identifier d, then a po-later Wait(d).
        let pf = BitRel::from_fn(g.len(), |a, b| {
            let (ea, eb) = (g.event_of(a), g.event_of(b));
            mine(a)
                && mine(b)
                && kind(a) == k.nlr
                && ea.method == BCAST
                && eb.method == WAIT
                && g.po.contains(a, b)
                && ea.args.get(1) == eb.args.first()
        });
        let po = g.po.filter(|a, b| mine(a) && mine(b));
        SvSearch {
            cr: k.cr,
            g,
            mem,
            cells,
            so_static: iso.union(&pf),
            cw_po_cr: po.restrict(|a| kind(a) == k.cw, |b| kind(b) == k.cr),
            cr_po_inv_cw: po.inverse().restrict(|a| kind(a) == k.cr, |b| kind(b) == k.cw),
        }
    }
}

impl WitnessSearch for SvSearch<'_> {
    fn num_vars(&self) -> usize {
        self.mem.num_vars()
    }
    fn domain(&self, var: usize) -> usize {
        self.mem.domain(var)
    }
    fn assign(&mut self, var: usize, val: Option<usize>) {
        self.mem.assign(var, val)
    }
    fn var_subevents(&self, var: usize) -> Vec<usize> {
        vec![self.mem.var_subevent(var)]
    }
    fn check(&mut self, _hb: &BitRel, so: &mut BitRel) -> bool {
        if !self.mem.values_ok(false) {
            return false;
        }
        let rf = self.mem.rf_rel();
        let rb = self.mem.rb_rel();
        if !rb.intersect(&self.cr_po_inv_cw).is_empty() {
            return false;
        }
        let rf_e = rf.minus(&rf.intersect(&self.cw_po_cr));
        so.union_with(&self.so_static);
        so.union_with(&rf_e);
        so.union_with(&rb);
        so.union_with(&self.mem.mo_rel());
        true
    }
    fn naive_count(&self) -> f64 {
        self.mem.naive_unfiltered()
    }
    /// Return values are read along rf; mo orders writes only.
    fn affects_returns(&self, var: usize) -> bool {
        self.mem.changes_returns(var)
    }
    fn returned(&self, event: usize) -> Option<Value> {
        let s = *self.g.subs_of[event].iter().find(|&&s| self.g.subs[s].stamp.kind == self.cr)?;
        self.mem.value_read_by(s)
    }
    fn finals(&self, out: &mut Vec<FinalValue>) {
        for (c, &(l, n)) in self.cells.iter().enumerate() {
            if !self.mem.touched(c) {
                continue;
            }
            if let Some(v) = self.mem.final_value(c) {
                out.push(FinalValue { loc: l, node: Some(n), value: v });
            }
        }
    }
    fn relations(&self) -> Vec<(String, BitRel)> {
        vec![("rf".into(), self.mem.rf_rel()), ("mo".into(), self.mem.mo_rel()), ("rb".into(), self.mem.rb_rel())]
    }
}
