//! `rdmatso_f1`: RDMA^TSO exactly as the LOCO paper formulates it (App. F.1,
//! Def. F.1), next to [`crate::rdmatso`], which follows the RDMA paper (Def. 4.4,
//! ib/ob). The two should have the same consistent executions (the RDMA paper's
//! App. C.4-C.7 show that putting [Inst]; ib into ob changes nothing); the property
//! test `rdmatso_f1_agrees_with_rdmatso` in `tests/props.rs` checks it on random
//! programs.
//!
//! Methods, stamps, identifiers and sets: LOCO App. F.1, shared with `rdmatso`
//! ([`crate::tsoext`]; stamp = stmp_TSO: a poll aWT, set operations aMF, the rest
//! stmp_RL of App. F.2).
//!
//! Def. F.1, bullet by bullet:
//! - `(ppo ∪ so)⁺` irreflexive: checked by the engine (hb acyclic). ppo is the
//!   framework's, from the stamp order `to` of LOCO Fig. 10 (this library does *not*
//!   set [`Library::own_program_order`]).
//! - ⟨E, po⟩ respects nodes (App. F.2): [`crate::rdma::check_nodes`], at load time.
//! - stamp = stmp_TSO: [`crate::tsoext::stamps`].
//! - well-formed v_R, v_W, rf, mo, nfo "as in RDMA^WAIT" ([`crate::rdma::memory`]
//!   builds v_R / v_W / rf / mo, one nfo orientation per pair of
//!   [`crate::rdma::nfo_pairs`]) and pf (determined by the plain execution: the i-th
//!   poll of t towards n polls the i-th NIC write of t towards n, the only relation
//!   satisfying the four pf bullets; [`crate::tsoext::Extras`]), such that
//!   ib = (ippo ∪ iso ∪ rf ∪ pf ∪ nfo ∪ rb_i)⁺ is irreflexive and
//!   so = iso ∪ rf_e ∪ [aNLW]; pf ∪ nfo ∪ rb ∪ mo ∪ ([Inst]; ib).
//! - identifiers unique and a poll returns the identifier of the polled event, and
//!   set soundness: [`crate::tsoext`].
//!
//! The derived relations are those of RDMA^WAIT (App. F.2, `specs/libs/rdmawait.lib`):
//! rf_i = [aCW]; (po ∩ rf); [aCR], rf_e = rf \ rf_i, rb_i = [aCR]; ((po ∪ po⁻¹) ∩ rb);
//! [aCW], iso (a failed CAS aMF → aCR, a get aNRR_n → aNLW_n, a put aNLR_n → aNRW_n),
//! Inst = SEvent \ (aCW ∪ aNLW ∪ aNRW) and
//! ippo = ppo ∪ [aCW]; po; [aCR ∪ aWT] ∪ ⋃_n [aNRW_n ∪ aNLW_n]; po; [aRF_n]
//! (the text export's "pfp ∪ …" read as "ppo ∪ …", see the note in
//! `specs/libs/rdmawait.lib`; RDMA^TSO has no wait, pf is its own component of ib).
//!
//! RDMA^TSO "is closer to an independent language than a library": the predicate
//! fixes so, and the engine's hb is exactly (ppo ∪ so)⁺ when this is the only
//! library of the program, as App. F.1 requires.

use mowgli_core::model::LibId;
use mowgli_core::{
    BitRel, Event, ExecGraph, FinalValue, Library, MethodSig, Related, Stamp, StampOrder, StampTable, Value,
    ValueDomain, Variant, WitnessSearch, World,
};

use crate::rdma::{self, iso, Kinds};
use crate::tsoext::{self, Extras};
use crate::LibError;

pub struct RdmaTsoF1 {
    kinds: Kinds,
    methods: Vec<MethodSig>,
}

impl RdmaTsoF1 {
    pub fn new(order: &StampOrder) -> Result<Self, LibError> {
        let to = order.table("to").ok_or(LibError::MissingTable("to".into()))?;
        Ok(RdmaTsoF1 { kinds: Kinds::of(to)?, methods: tsoext::methods() })
    }
}

impl Library for RdmaTsoF1 {
    fn name(&self) -> &str {
        "rdmatso_f1"
    }
    fn methods(&self) -> &[MethodSig] {
        &self.methods
    }
    /// Def. F.1 has the PCIe guarantee and no variant without it.
    fn variant(&self, v: Variant) -> Related {
        match v {
            Variant::OrderedPath => Related::Itself,
            Variant::UnorderedPath => Related::Lacks,
            _ => Related::Unrelated,
        }
    }
    fn check_call(&self, world: &World, thread: usize, method: usize, args: &[Value]) -> Result<(), String> {
        tsoext::check_call(world, thread, method, args)
    }
    fn locs(&self, e: &Event) -> Vec<usize> {
        tsoext::locs(e)
    }
    fn stamps(&self, world: &World, e: &Event) -> Vec<Stamp> {
        tsoext::stamps(&self.kinds, world, e)
    }
    fn returns(&self, _w: &World, t: usize, method: usize, args: &[Value], dom: &ValueDomain) -> Vec<Value> {
        tsoext::returns(t, method, args, dom)
    }
    /// Put/get identifiers and polls from the thread's earlier calls (App. F.1).
    fn returns_after(
        &self,
        w: &World,
        t: usize,
        me: usize,
        history: &[mowgli_core::program::CallRecord],
        method: usize,
        args: &[Value],
        dom: &ValueDomain,
    ) -> Vec<Value> {
        tsoext::returns_given_history(w, t, me, history, method, args, dom)
    }
    fn symbolic_return(&self, method: usize) -> bool {
        tsoext::symbolic_return(method)
    }
    fn search<'a>(&'a self, g: &'a ExecGraph<'a>, _to: &'a StampTable, me: LibId) -> Box<dyn WitnessSearch + 'a> {
        Box::new(F1Search::new(self, g, me))
    }
}

struct F1Search<'a> {
    kinds: Kinds,
    g: &'a ExecGraph<'a>,
    /// rf, mo and the nfo orientations.
    vars: rdma::RdmaVars,
    ext: Extras,
    /// ippo ∪ iso ∪ pf: the fixed part of ib.
    ib_static: BitRel,
    /// iso ∪ [aNLW]; pf: the fixed part of so.
    so_static: BitRel,
    /// [aCW]; po; [aCR] (rf_i = rf ∩ this).
    cw_po_cr: BitRel,
    /// [aCR]; (po ∪ po⁻¹); [aCW] (rb_i = rb ∩ this).
    cr_po_cw: BitRel,
    inst: Vec<bool>,
}

impl<'a> F1Search<'a> {
    fn new(lib: &'a RdmaTsoF1, g: &'a ExecGraph<'a>, me: LibId) -> Self {
        let k = lib.kinds;
        let n = g.len();
        let mine = |s: usize| g.events[g.subs[s].event].lib == me;
        let kind = |s: usize| g.subs[s].stamp.kind;
        let po = g.po.filter(|a, b| mine(a) && mine(b));
        // ippo = ppo ∪ [aCW]; po; [aCR ∪ aWT] ∪ ⋃_n [aNRW_n ∪ aNLW_n]; po; [aRF_n]
        let mut ippo = g.ppo.filter(|a, b| mine(a) && mine(b));
        ippo.union_with(&po.restrict(|a| kind(a) == k.cw, |b| kind(b) == k.cr || kind(b) == k.wt));
        ippo.union_with(&po.filter(|a, b| {
            (kind(a) == k.nrw || kind(a) == k.nlw) && kind(b) == k.rf && g.subs[a].stamp.node == g.subs[b].stamp.node
        }));
        let iso = iso(&k, g, me);
        let ext = Extras::new(&k, g, me);
        let mut ib_static = ippo;
        ib_static.union_with(&iso);
        ib_static.union_with(&ext.pf);
        let so_static = iso.union(&ext.nlw_pf);
        let cw_po_cr = po.restrict(|a| kind(a) == k.cw, |b| kind(b) == k.cr);
        let cr_po_cw = po.union(&po.inverse()).restrict(|a| kind(a) == k.cr, |b| kind(b) == k.cw);
        let mem = rdma::memory(&k, g, me);
        let nfo_pairs = rdma::nfo_pairs(&k, g, me);
        let inst = (0..n).map(|s| k.inst(g.subs[s].stamp)).collect();
        F1Search {
            kinds: k,
            g,
            vars: rdma::RdmaVars::new(mem, nfo_pairs),
            ext,
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

impl WitnessSearch for F1Search<'_> {
    fn num_vars(&self) -> usize {
        if self.ext.stuck {
            return 0; // no witness can help
        }
        self.vars.num_vars()
    }
    fn domain(&self, var: usize) -> usize {
        self.vars.domain(var)
    }
    fn assign(&mut self, var: usize, val: Option<usize>) {
        self.vars.assign(var, val)
    }
    fn check(&mut self, _hb: &BitRel, so: &mut BitRel) -> bool {
        if self.ext.stuck || !self.vars.mem.values_ok(false) {
            return false;
        }
        // ib = (ippo ∪ iso ∪ rf ∪ pf ∪ nfo ∪ rb_i)⁺ irreflexive;
        // so = iso ∪ rf_e ∪ [aNLW]; pf ∪ nfo ∪ rb ∪ mo ∪ ([Inst]; ib)
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
        if self.g.events[event].method == rdma::READ {
            rdma::returned(&self.kinds, self.g, &self.vars.mem, event)
        } else {
            self.ext.returned(event)
        }
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
            ("pf".into(), self.ext.pf.clone()),
            ("nfo".into(), self.nfo()),
        ]
    }
}
