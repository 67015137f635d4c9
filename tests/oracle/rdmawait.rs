//! RDMA^WAIT: LOCO paper §3.3 and App. F.2 (Def. F.2).
//!
//! Consistency: respects nodes, stmp = stmp_RL, and there are well-formed v_R, v_W,
//! rf, mo, nfo with ib irreflexive and
//!   so = iso ∪ rf_e ∪ pfg ∪ nfo ∪ rb ∪ mo ∪ ([Inst]; ib), where
//!   ib   = (ippo ∪ iso ∪ rf ∪ pfg ∪ pfp ∪ nfo ∪ rb_i)⁺,
//!   ippo = ppo ∪ [aCW]; po; [aCR ∪ aWT] ∪ ⋃_n [aNRW_n ∪ aNLW_n]; po; [aRF_n].
//!
//! OCR note: the text export defines "ippo ≜ pfp ∪ [aCW]; po; …" and says "ib
//! includes a larger subset of po than pfp". Both occurrences of `pfp` there are
//! `ppo` in the original: the sentence explains that ippo extends ppo by the cells
//! B1, B5, G10, I10 of Fig. 10 whose *starting* order is still guaranteed, and pfp
//! (not a subset of po over the same stamps) is already a separate component of ib.
//! Initial values: a read without rf edge reads the location's declared initial
//! value (the paper fixes it to 0; the litmus format allows `loc x @ n = v`).

use mowgli_core::model::LibId;
use mowgli_core::{
    BitRel, Event, ExecGraph, FinalValue, Library, MemoryShape, MethodSig, Ret, Role, Stamp, StampOrder, StampTable,
    Value, ValueDomain, WitnessSearch, World,
};

use mowgli_libs::rdma::{self, iso, Kinds};
use mowgli_libs::LibError;

pub struct RdmaWait {
    kinds: Kinds,
    methods: Vec<MethodSig>,
    /// MSW (LOCO App. G.6, Def. G.11): tuples, `TryRead` that may fail.
    msw: bool,
}

/// A location on the caller's node / anywhere, written by the call or not.
fn here(written: bool) -> Role {
    Role::Loc { local: true, written, sized_like: None }
}
fn there(written: bool) -> Role {
    Role::Loc { local: false, written, sized_like: None }
}

/// A method slot a library does not offer (names starting with `#` never resolve).
pub fn hidden(name: &'static str) -> MethodSig {
    MethodSig::plain(name, &[], false)
}

impl RdmaWait {
    pub fn new(order: &StampOrder) -> Result<Self, LibError> {
        let to = order.table("to").ok_or(LibError::MissingTable("to".into()))?;
        let kinds = Kinds::of(to)?;
        // the declaration of LOCO App. F.2 (as specs/libs/rdmawait.lib states it)
        let m = MethodSig::new;
        let (wid, wait) = (Role::Wid { awaited: false }, Role::Wid { awaited: true });
        let methods = vec![
            m("Read", vec![here(false)], vec![Ret::ValueOf(0)]),
            m("Write", vec![here(true), Role::Val], vec![]),
            m("CAS", vec![here(true), Role::Expected, Role::Val], vec![Ret::ValueOf(0)]),
            m("Mfence", vec![], vec![]),
            m("Put", vec![there(true), Role::Src, wid], vec![]),
            m("Get", vec![here(true), there(false), wid], vec![]),
            m("Wait", vec![wait], vec![]),
            m("Rfence", vec![Role::Node { completes: false }], vec![]),
        ];
        Ok(RdmaWait { kinds, methods, msw: false })
    }

    /// msw, the mixed-size write library (LOCO App. G.6.2, Def. G.11): "a copy of
    /// RDMA^WAIT, except failing reads are ignored". Locations hold size(x)-tuples;
    /// `TryRead(x)` returns a tuple (stamp aCR, a read) or ⊥ (stamp aWT, no read);
    /// `Write(x, [v…])`, `Put`, `Get`, `Wait` as in RDMA^WAIT. The method slots keep
    /// RDMA^WAIT's numbering (CAS, Mfence, Rfence are not offered).
    pub fn msw(order: &StampOrder) -> Result<Self, LibError> {
        let mut w = RdmaWait::new(order)?;
        let m = MethodSig::new;
        let (wid, wait) = (Role::Wid { awaited: false }, Role::Wid { awaited: true });
        let sized = |local, written| Role::Loc { local, written, sized_like: Some(0) };
        w.methods = vec![
            m("TryRead", vec![here(false)], vec![Ret::ValueOf(0), Ret::Bot]),
            m("Write", vec![here(true), Role::Tuple(0)], vec![]),
            hidden("#CAS"),
            hidden("#Mfence"),
            m("Put", vec![there(true), sized(true, false), wid], vec![]),
            m("Get", vec![here(true), sized(false, false), wid], vec![]),
            m("Wait", vec![wait], vec![]),
            hidden("#Rfence"),
        ];
        w.msw = true;
        Ok(w)
    }
}

impl Library for RdmaWait {
    fn name(&self) -> &str {
        if self.msw {
            "msw"
        } else {
            "rdmawait"
        }
    }
    fn methods(&self) -> &[MethodSig] {
        &self.methods
    }
    fn memory(&self) -> MemoryShape {
        MemoryShape { replicated: false, tuples: self.msw }
    }
    fn check_call(&self, world: &World, thread: usize, method: usize, args: &[Value]) -> Result<(), String> {
        rdma::check_nodes(world, thread, method, args)?;
        if self.msw {
            // E respects size (Def. G.11)
            let size = |i: usize| args.get(i).and_then(Value::as_loc).map(|l| world.locs[l].size);
            if let (Some(None), _) | (_, Some(None)) =
                (size(0), if method == rdma::PUT || method == rdma::GET { size(1) } else { Some(Some(0)) })
            {
                return Err("msw locations are declared with `size K`".into());
            }
            match method {
                rdma::WRITE => {
                    if let (Some(Some(k)), Some(Value::Tuple(vs))) = (size(0), args.get(1)) {
                        if vs.len() != k {
                            return Err(format!("the location holds {k}-tuples, this writes a {}-tuple", vs.len()));
                        }
                    }
                }
                rdma::PUT | rdma::GET if size(0) != size(1) => {
                    return Err("the two locations have different sizes".into());
                }
                _ => {}
            }
        }
        Ok(())
    }
    fn locs(&self, e: &Event) -> Vec<usize> {
        rdma::locs(e)
    }
    fn stamps(&self, world: &World, e: &Event) -> Vec<Stamp> {
        if self.msw && e.method == rdma::READ && e.ret == Value::Bot {
            return vec![self.kinds.single(self.kinds.wt)]; // a failing TryRead
        }
        rdma::stmp_rl(&self.kinds, world, e)
    }
    fn returns(&self, w: &World, _t: usize, method: usize, args: &[Value], dom: &ValueDomain) -> Vec<Value> {
        let mut r = rdma::returns(method, args, dom);
        if self.msw && method == rdma::READ {
            let size = args.first().and_then(Value::as_loc).and_then(|l| w.locs[l].size);
            r.retain(|v| matches!(v, Value::Tuple(t) if Some(t.len()) == size));
            r.push(Value::Bot);
        }
        r
    }
    fn read_cell(&self, _w: &World, _t: usize, method: usize, args: &[Value]) -> Option<mowgli_core::library::Cell> {
        (method == rdma::READ && !self.msw).then(|| (args.first().and_then(Value::as_loc).unwrap_or(usize::MAX), None))
    }
    fn written_cells(
        &self,
        _w: &World,
        _t: usize,
        method: usize,
        args: &[Value],
    ) -> Vec<(mowgli_core::library::Cell, Option<Value>)> {
        let loc = |i: usize| (args.get(i).and_then(Value::as_loc).unwrap_or(usize::MAX), None);
        match method {
            rdma::WRITE => vec![(loc(0), args.get(1).cloned())],
            rdma::CAS | rdma::PUT | rdma::GET => vec![(loc(0), None)],
            _ => vec![],
        }
    }
    /// CPU reads (and msw's TryRead) only read.
    fn read_only(&self, method: usize) -> bool {
        method == rdma::READ
    }
    fn symbolic_return(&self, method: usize) -> bool {
        // msw's TryRead may return ⊥ with another stamp: its value stays in the plain execution
        method == rdma::READ && !self.msw
    }
    fn search<'a>(&'a self, g: &'a ExecGraph<'a>, _to: &'a StampTable, me: LibId) -> Box<dyn WitnessSearch + 'a> {
        Box::new(WaitSearch::new(self, g, me))
    }
}

struct WaitSearch<'a> {
    kinds: Kinds,
    g: &'a ExecGraph<'a>,
    /// rf, mo and the nfo orientations.
    vars: rdma::RdmaVars,
    /// ippo ∪ iso ∪ pfg ∪ pfp: the fixed part of ib.
    ib_static: BitRel,
    /// iso ∪ pfg: the fixed part of so.
    so_static: BitRel,
    /// [aCW]; po; [aCR] (po-ordered candidates for rf_i).
    cw_po_cr: BitRel,
    /// (po ∪ po⁻¹) restricted to [aCR] × [aCW] (for rb_i).
    cr_po_cw: BitRel,
    inst: Vec<bool>,
}

/// pfg / pfp (App. F.2): the write part of a get / put and a po-later Wait on the same identifier.
fn wait_sync(k: &Kinds, g: &ExecGraph, me: LibId, write_kind: u8, method: usize) -> BitRel {
    let n = g.len();
    BitRel::from_fn(n, |a, b| {
        let (ea, eb) = (g.event_of(a), g.event_of(b));
        ea.lib == me
            && eb.lib == me
            && ea.method == method
            && g.subs[a].stamp.kind == write_kind
            && eb.method == rdma::POLL_OR_WAIT
            && g.po.contains(a, b)
            && ea.args.get(2) == eb.args.first()
    })
    .filter(|_, b| g.subs[b].stamp.kind == k.wt)
}

impl<'a> WaitSearch<'a> {
    fn new(lib: &'a RdmaWait, g: &'a ExecGraph<'a>, me: LibId) -> Self {
        let k = lib.kinds;
        let n = g.len();
        let mine = |s: usize| g.events[g.subs[s].event].lib == me;
        let kind = |s: usize| g.subs[s].stamp.kind;
        let po = g.po.filter(|a, b| mine(a) && mine(b));
        let mut ippo = g.ppo.filter(|a, b| mine(a) && mine(b));
        ippo.union_with(&po.restrict(|a| kind(a) == k.cw, |b| kind(b) == k.cr || kind(b) == k.wt));
        ippo.union_with(&po.filter(|a, b| {
            (kind(a) == k.nrw || kind(a) == k.nlw) && kind(b) == k.rf && g.subs[a].stamp.node == g.subs[b].stamp.node
        }));
        let iso = iso(&k, g, me);
        let pfg = wait_sync(&k, g, me, k.nlw, rdma::GET);
        let pfp = wait_sync(&k, g, me, k.nrw, rdma::PUT);
        let mut ib_static = ippo;
        ib_static.union_with(&iso);
        ib_static.union_with(&pfg);
        ib_static.union_with(&pfp);
        let so_static = iso.union(&pfg);
        let cw_po_cr = po.restrict(|a| kind(a) == k.cw, |b| kind(b) == k.cr);
        let cr_po_cw = po.union(&po.inverse()).restrict(|a| kind(a) == k.cr, |b| kind(b) == k.cw);
        let mem = rdma::memory(&k, g, me);
        let nfo_pairs = rdma::nfo_pairs(&k, g, me);
        let inst = (0..n).map(|s| k.inst(g.subs[s].stamp)).collect();
        WaitSearch {
            kinds: k,
            g,
            vars: rdma::RdmaVars::new(mem, nfo_pairs),
            ib_static,
            so_static,
            cw_po_cr,
            cr_po_cw,
            inst,
        }
    }

    fn nfo(&self) -> BitRel {
        self.vars.nfo(self.g.len())
    }
}

impl WitnessSearch for WaitSearch<'_> {
    fn num_vars(&self) -> usize {
        self.vars.num_vars()
    }
    fn domain(&self, var: usize) -> usize {
        self.vars.domain(var)
    }
    fn assign(&mut self, var: usize, val: Option<usize>) {
        self.vars.assign(var, val)
    }
    fn var_subevents(&self, var: usize) -> Vec<usize> {
        self.vars.subevents(var)
    }
    fn check(&mut self, _hb: &BitRel, so: &mut BitRel) -> bool {
        if !self.vars.mem.values_ok(false) {
            return false;
        }
        // ib = (ippo ∪ iso ∪ rf ∪ pfg ∪ pfp ∪ nfo ∪ rb_i)⁺ irreflexive;
        // so = iso ∪ rf_e ∪ pfg ∪ nfo ∪ rb ∪ mo ∪ ([Inst]; ib)  (Def. F.2)
        let nfo = self.nfo();
        rdma::check_ib_so(
            &self.vars.mem,
            &nfo,
            &rdma::StaticParts {
                ib: &self.ib_static,
                so: &self.so_static,
                cw_po_cr: &self.cw_po_cr,
                cr_po_cw: &self.cr_po_cw,
                inst: &self.inst,
            },
            so,
        )
    }
    fn naive_count(&self) -> f64 {
        self.vars.naive_count()
    }
    /// nfo orientations decide consistency only, not values.
    fn existential(&self, var: usize) -> bool {
        self.vars.is_orientation(var)
    }
    /// Return values are read along rf (identifiers are fixed per plain execution).
    fn affects_returns(&self, var: usize) -> bool {
        self.vars.mem.changes_returns(var)
    }
    fn returned(&self, event: usize) -> Option<Value> {
        rdma::returned(&self.kinds, self.g, &self.vars.mem, event)
    }
    fn finals(&self, out: &mut Vec<FinalValue>) {
        for c in (0..self.vars.mem.num_cells()).filter(|&c| self.vars.mem.touched(c)) {
            if let Some(v) = self.vars.mem.final_value(c) {
                out.push(FinalValue { loc: c, node: None, value: v });
            }
        }
    }
    fn relations(&self) -> Vec<(String, BitRel)> {
        vec![
            ("rf".into(), self.vars.mem.rf_rel()),
            ("mo".into(), self.vars.mem.mo_rel()),
            ("rb".into(), self.vars.mem.rb_rel()),
            ("nfo".into(), self.nfo()),
        ]
    }
}
