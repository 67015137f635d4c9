//! RDMA^TSO: the declarative model of "Semantics of RDMA" (OOPSLA 2024), Def. 4.2-4.4,
//! with the PCIe guarantee, and its variant without it (end of §4).
//!
//! Each RDMA paper event is one subevent here (App. F.1 of the LOCO paper maps the
//! event types to stamps one to one: 1R=aCR, 1W=aCW, CAS=aCAS, F=aMF, P=aWT,
//! nlR=aNLR_n, nrW=aNRW_n, nrR=aNRR_n, nlW=aNLW_n, nF=aRF_n): a put is the event
//! pair nlR; nrW, a get nrR; nlW, ordered by po inside the event. A failed CAS has
//! the subevents aMF; aCR (stmp_RL). Initial writes are implicit: a read with no rf
//! edge reads the location's initial value and is rb-before every write to it,
//! which is what the explicit initial events of Def. 4.2 give (they are po-, mo- and
//! ob-before everything and nothing is ordered before them).
//!
//! Consistency (Def. 4.4): ib, ob and ([Inst]; ib; ob)⁺ irreflexive, with
//!   ib = (ippo ∪ rf ∪ pf ∪ nfo ∪ rb_b)⁺,  ob = (oppo ∪ rf_b̄ ∪ [nlW]; pf ∪ nfo ∪ rb ∪ mo)⁺.
//! ippo/oppo come from the Fig. 9 tables (data: `specs/stamp-orders/rdma-fig9.to`).
//! As a Mowgli library (for Λ-consistency) its so is ob, and it orders its own
//! subevents by its own tables ([`Library::own_program_order`]): the framework's ppo
//! from `to` is not applied between two RDMA^TSO subevents. With the PCIe guarantee
//! this changes nothing — LOCO's `to` (Fig. 10) gives ppo ⊆ oppo on these stamps,
//! so (ppo ∪ so)⁺ is acyclic iff ob is. Without it, it matters: Fig. 10 orders
//! aNRW_n before a later aNRR_n / aNLW_n of the same node (cells G8, G9 = SN),
//! which is exactly the PCIe flush that the no-PCIe variant drops (oppo G8, G9 = ✗);
//! applying `to` there forbade the no-PCIe outcome of RDMA Fig. 3e (a = b = 0) that
//! the paper's §2 and §4 allow. So Fig. 10 builds the PCIe guarantee into `to`.
//!
//! Methods: the eleven of LOCO App. F.1 ([`crate::tsoext`]): `Put`/`Get` return an
//! identifier, `Poll(n)` the identifier of the operation it polls, and the set
//! operations `SetAdd`/`SetRemove`/`SetIsEmpty` (stamp aMF, i.e. fences in the Fig. 9
//! tables; per-thread soundness of `SetIsEmpty` as in Def. F.1). Def. F.1's own
//! formulation of the consistency predicate is [`crate::rdmatsof1`].

use mowgli_core::explain::{self, Candidate, CycleEdge, Violation};
use mowgli_core::model::LibId;
use mowgli_core::{
    BitRel, Event, ExecGraph, FinalValue, Library, MethodSig, Related, Stamp, StampOrder, StampTable, Value,
    ValueDomain, Variant, WitnessSearch, World,
};

use crate::rdma::{self, Kinds};
use crate::rmw::{self, RemoteAtomics, RmwEvent};
use crate::tsoext::{self, Extras};
use crate::LibError;

/// The CPU model of a node: RDMA^TSO's x86-TSO, or the robustness paper's RDMA^sc
/// (Def. 4: SC CPUs with RDMA's NIC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cpu {
    Tso,
    Sc,
}

pub struct RdmaTso {
    name: &'static str,
    pcie: bool,
    cpu: Cpu,
    kinds: Kinds,
    ippo: StampTable,
    oppo: StampTable,
    /// `to` kind index → index in the ippo/oppo tables.
    conv: Vec<u8>,
    methods: Vec<MethodSig>,
    /// The variants it declares (see [`RdmaTso::variants_of`]).
    variants: Vec<(Variant, Related)>,
    /// RDMA^TSO_RMW: remote RMWs and their atomicity ([`crate::rmw`]).
    rmw: Option<RemoteAtomics>,
}

impl RdmaTso {
    /// `order` must hold `to`; its `ippo`/`oppo`(`_nopcie`) tables, when present,
    /// replace those of Fig. 9.
    pub fn new(order: &StampOrder, pcie: bool) -> Result<Self, LibError> {
        Self::with_cpu(order, pcie, Cpu::Tso, false)
    }

    /// RDMA^sc ("Sufficient Conditions for Robustness of RDMA Programs", Def. 4): the
    /// same NIC and PCIe machinery with SC CPUs. Differences from RDMA^TSO (App. B.1,
    /// read backwards): tables `ippo_sc`/`oppo_sc` (Fig. 4; oppo orders a CPU write
    /// before later CPU reads and polls), CPU writes are instantaneous (Inst = E \
    /// (nlW ∪ nrW)), ob has all of rf (no rf_b: no store buffer) and ib has no rb_b.
    pub fn sc(order: &StampOrder) -> Result<Self, LibError> {
        Self::with_cpu(order, true, Cpu::Sc, false)
    }

    /// The CPU model in force.
    pub fn cpu(&self) -> Cpu {
        self.cpu
    }

    /// The library with `cpu` CPUs; with `rmw`, its tables have RDMA^TSO_RMW's
    /// rows and columns (the SC ones derived by [`rmw::sc_tables`]).
    fn with_cpu(order: &StampOrder, pcie: bool, cpu: Cpu, rmw: bool) -> Result<Self, LibError> {
        let to = order.table("to").ok_or(LibError::MissingTable("to".into()))?;
        let kinds = Kinds::of(to)?;
        let pick = |name: &str| -> StampTable {
            order
                .table(name)
                .or_else(|| crate::orders::rdma_fig9_ref().table(name))
                .cloned()
                .expect("Fig. 9 tables are built in")
        };
        let pick_sc = |name: &str| -> StampTable {
            order
                .table(name)
                .or_else(|| crate::orders::robustness_fig4_ref().table(name))
                .cloned()
                .expect("Fig. 4 tables are built in")
        };
        let (ippo, oppo) = match (cpu, rmw) {
            (Cpu::Tso, _) => (pick("ippo"), pick(if pcie { "oppo" } else { "oppo_nopcie" })),
            (Cpu::Sc, false) => (pick_sc("ippo_sc"), pick_sc("oppo_sc")),
            (Cpu::Sc, true) => {
                rmw::sc_tables((&pick_sc("ippo_sc"), &pick_sc("oppo_sc")), (&pick("ippo"), &pick("oppo")))
            }
        };
        let mut conv = Vec::new();
        for name in &to.kinds {
            let j = ippo.kind(name).unwrap_or(u8::MAX);
            if oppo.kind(name) != ippo.kind(name) {
                return Err(LibError::MissingStamp { table: "oppo".into(), stamp: name.clone() });
            }
            conv.push(j);
        }
        for k in
            [kinds.cr, kinds.cw, kinds.cas, kinds.mf, kinds.wt, kinds.nlr, kinds.nrw, kinds.nrr, kinds.nlw, kinds.rf]
        {
            if conv[k as usize] == u8::MAX {
                return Err(LibError::MissingStamp { table: "ippo".into(), stamp: to.kinds[k as usize].clone() });
            }
        }
        let methods = tsoext::methods();
        let name = match (cpu, pcie) {
            (Cpu::Sc, _) => "rdmasc",
            (Cpu::Tso, true) => "rdmatso",
            (Cpu::Tso, false) => "rdmatso_nopcie",
        };
        let variants = Self::variants_of(cpu, pcie);
        Ok(RdmaTso { name, pcie, cpu, kinds, ippo, oppo, conv, methods, variants, rmw: None })
    }

    /// RDMA^TSO_RMW (issue 33; [`crate::rmw`]): RDMA^TSO with `RCAS` and `RFAA`,
    /// their atomic reads stamped aNAR_n, which `order` must hold in `to` and in
    /// the ippo/oppo tables.
    pub fn rmw(order: &StampOrder, pcie: bool, atomics: RemoteAtomics) -> Result<Self, LibError> {
        Self::rmw_on(order, pcie, atomics, Cpu::Tso)
    }

    /// RDMA^SC_RMW: [`RdmaTso::rmw`] with SC CPUs (with PCIe), the strong model
    /// `mowgli robust` checks RDMA^TSO_RMW programs against: its tables are
    /// [`rmw::sc_tables`], its CPU as [`RdmaTso::sc`]'s.
    pub fn rmw_sc(order: &StampOrder, atomics: RemoteAtomics) -> Result<Self, LibError> {
        Self::rmw_on(order, true, atomics, Cpu::Sc)
    }

    fn rmw_on(order: &StampOrder, pcie: bool, atomics: RemoteAtomics, cpu: Cpu) -> Result<Self, LibError> {
        if atomics == RemoteAtomics::Global && !pcie {
            // A3 would then read memory only once no write to y is pending in its
            // queue pair's wb_R: a per-location order no table cell states (not modelled)
            return Err(LibError::Other(
                "global remote atomicity without the PCIe guarantee is not modelled (docs/design.md)".into(),
            ));
        }
        let mut l = Self::with_cpu(order, pcie, cpu, true)?;
        for (kind, name) in [(l.kinds.nar, "aNAR_n"), (l.kinds.naw, "aNAW_n")] {
            let k = kind.ok_or(LibError::MissingStamp { table: "to".into(), stamp: name.into() })?;
            if l.conv[k as usize] == u8::MAX {
                return Err(LibError::MissingStamp { table: "ippo".into(), stamp: name.into() });
            }
        }
        l.methods.extend(rmw::methods());
        l.rmw = Some(atomics);
        (l.name, l.variants) = rmw::family(atomics, pcie, cpu == Cpu::Sc);
        Ok(l)
    }

    /// The related libraries of the family: RDMA^sc and RDMA^TSO are each other's
    /// SC-local and TSO-local variants (the robustness paper's two models); RDMA^TSO
    /// with and without the PCIe guarantee each other's ordered- and unordered-path
    /// variants. RDMA^TSO without PCIe has no SC-local variant; RDMA^sc (which has
    /// the PCIe guarantee) declares no path variant.
    fn variants_of(cpu: Cpu, pcie: bool) -> Vec<(Variant, Related)> {
        let named = |n: &str| Related::Named(n.to_string());
        match (cpu, pcie) {
            (Cpu::Sc, _) => vec![(Variant::ScLocal, Related::Itself), (Variant::TsoLocal, named("rdmatso"))],
            (Cpu::Tso, true) => vec![
                (Variant::ScLocal, named("rdmasc")),
                (Variant::TsoLocal, Related::Itself),
                (Variant::OrderedPath, Related::Itself),
                (Variant::UnorderedPath, named("rdmatso_nopcie")),
            ],
            (Cpu::Tso, false) => vec![
                (Variant::ScLocal, Related::Lacks),
                (Variant::TsoLocal, Related::Itself),
                (Variant::OrderedPath, named("rdmatso")),
                (Variant::UnorderedPath, Related::Itself),
            ],
        }
    }

    /// The same library under other names: `rename` maps the library's name, its
    /// methods' names and the names of the variants it declares (a renamed copy,
    /// e.g. to test that analyses read declarations, not names).
    pub fn renamed(mut self, rename: &dyn Fn(&str) -> String) -> Self {
        let leak = |n: &str| -> &'static str { Box::leak(rename(n).into_boxed_str()) };
        self.name = leak(self.name);
        for m in &mut self.methods {
            m.name = leak(m.name);
            for c in &mut m.same_as {
                c.0 = leak(c.0);
            }
        }
        for (_, r) in &mut self.variants {
            if let Related::Named(n) = r {
                *n = rename(n);
            }
        }
        self
    }

    fn table_stamp(&self, s: Stamp) -> Stamp {
        Stamp { kind: self.conv[s.kind as usize], node: s.node }
    }

    /// Whether `method` is one of its remote RMWs.
    fn is_rmw(&self, method: usize) -> bool {
        self.rmw.is_some() && rdma::is_rmw(method)
    }
}

impl Library for RdmaTso {
    fn name(&self) -> &str {
        self.name
    }
    fn methods(&self) -> &[MethodSig] {
        &self.methods
    }
    fn variant(&self, v: Variant) -> Related {
        self.variants.iter().find(|(w, _)| *w == v).map_or(Related::Unrelated, |(_, r)| r.clone())
    }
    fn check_call(&self, world: &World, thread: usize, method: usize, args: &[Value]) -> Result<(), String> {
        tsoext::check_call(world, thread, method, args)
    }
    fn locs(&self, e: &Event) -> Vec<usize> {
        tsoext::locs(e)
    }
    fn stamps(&self, world: &World, e: &Event) -> Vec<Stamp> {
        match (self.rmw, self.kinds.nar, self.kinds.naw) {
            (Some(atomics), Some(nar), Some(naw)) if rdma::is_rmw(e.method) => {
                let node = e.args.get(1).and_then(Value::as_loc).and_then(|l| world.loc_node(l)).unwrap_or(0);
                rmw::stamps(&self.kinds, (nar, naw), node, atomics)
            }
            _ => tsoext::stamps(&self.kinds, world, e),
        }
    }
    fn writes(
        &self,
        _world: &World,
        _thread: usize,
        method: usize,
        args: &[Value],
        dom: &ValueDomain,
        out: &mut Vec<mowgli_core::Written>,
    ) {
        if let Some(sig) = self.methods.get(method) {
            mowgli_core::library::writes_by_signature(&sig.params, args, dom, out);
        }
        if self.is_rmw(method) {
            rmw::writes(method, args, dom, out);
        }
    }
    fn computes_values(&self) -> bool {
        self.rmw.is_some()
    }
    fn returns(&self, _w: &World, t: usize, method: usize, args: &[Value], dom: &ValueDomain) -> Vec<Value> {
        tsoext::returns(t, method, args, dom)
    }
    fn own_program_order(&self) -> bool {
        true
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
        Box::new(TsoSearch::new(self, g, me))
    }
    fn viable_search<'a>(
        &'a self,
        g: &'a ExecGraph<'a>,
        _to: &'a StampTable,
        me: LibId,
    ) -> Option<Box<dyn WitnessSearch + 'a>> {
        let ext = Extras::new(&self.kinds, g, me);
        let mem = rdma::memory(&self.kinds, g, me);
        // a stuck plain execution has no variables at all (`num_vars`)
        if !ext.stuck && mem.unreadable() {
            return None;
        }
        Some(Box::new(TsoSearch::with(self, g, me, ext, mem)))
    }
}

struct TsoSearch<'a> {
    lib: &'a RdmaTso,
    g: &'a ExecGraph<'a>,
    /// rf, mo and the nfo orientations.
    vars: rdma::RdmaVars,
    ippo: BitRel,
    oppo: BitRel,
    /// pf, [nlW]; pf, identifiers; `stuck` when the plain execution cannot be
    /// consistent (a poll with nothing to poll never returns, unsound sets).
    ext: Extras,
    sthd: BitRel,
    sqp: BitRel,
    inst: Vec<bool>,
    is: Vec<u8>,
    /// The remote RMWs (RDMA^TSO_RMW), for rao and the atomicity axiom.
    rmws: Vec<RmwEvent>,
    /// The relations [`WitnessSearch::check`] rebuilds at every candidate.
    scratch: Scratch,
}

/// Room for the relations of one consistency check (their storage is reused).
#[derive(Default)]
struct Scratch {
    base: Base,
    ib: BitRel,
    ob: BitRel,
    third: BitRel,
    order: Vec<usize>,
    /// rao and aw as oriented so far (RDMA^TSO_RMW).
    rao: BitRel,
    aw: BitRel,
    fifo: BitRel,
}

impl<'a> TsoSearch<'a> {
    fn new(lib: &'a RdmaTso, g: &'a ExecGraph<'a>, me: LibId) -> Self {
        Self::with(lib, g, me, Extras::new(&lib.kinds, g, me), rdma::memory(&lib.kinds, g, me))
    }

    /// The search with its extras and memory built before.
    fn with(lib: &'a RdmaTso, g: &'a ExecGraph<'a>, me: LibId, ext: Extras, mem: mowgli_core::memory::RfMo) -> Self {
        let k = lib.kinds;
        let n = g.len();
        let thread: Vec<usize> = g.subs.iter().map(|s| g.events[s.event].thread).collect();
        let node: Vec<Option<u32>> = g.subs.iter().map(|s| s.stamp.node).collect();
        let kind_of = |s: usize| g.subs[s].stamp.kind;
        // ippo and oppo: the library's program order (po and the order inside an
        // event) between its own subevents, kept where the Fig. 9 tables order
        let (mut ippo, mut oppo) = (BitRel::new(n), BitRel::new(n));
        let table: Vec<Stamp> = g.subs.iter().map(|s| lib.table_stamp(s.stamp)).collect();
        for (a, sa) in g.subs.iter().enumerate() {
            if g.events[sa.event].lib != me {
                continue;
            }
            // an RMW's own subevents are ordered by iso (below), not by the tables
            let own = if lib.is_rmw(g.events[sa.event].method) { &[][..] } else { &g.subs_of[sa.event][..] };
            let inside = own.get(sa.pos + 1..).unwrap_or(&[]);
            let later = g.po.successors(a).filter(|&b| g.events[g.subs[b].event].lib == me);
            for b in inside.iter().copied().chain(later) {
                if lib.ippo.ordered(table[a], table[b]) {
                    ippo.add(a, b);
                }
                if lib.oppo.ordered(table[a], table[b]) {
                    oppo.add(a, b);
                }
            }
        }
        let sthd = BitRel::from_fn(n, |a, b| thread[a] == thread[b]);
        let sqp = BitRel::from_fn(n, |a, b| thread[a] == thread[b] && node[a].is_some() && node[a] == node[b]);
        let nfo_pairs = if lib.pcie { rdma::nfo_pairs(&k, g, me) } else { vec![] };
        // RDMA^sc: CPU writes are issued and observed at once (robustness §3.2)
        let inst = (0..n).map(|s| k.inst(g.subs[s].stamp) || (lib.cpu == Cpu::Sc && kind_of(s) == k.cw)).collect();
        let is = (0..n).map(kind_of).collect();
        let rmws = if lib.rmw.is_some() { rmw::events(&k, g, me, &mem) } else { Vec::new() };
        rmw::iso(&rmws, g, &mut ippo);
        rmw::iso(&rmws, g, &mut oppo);
        let (rao_pairs, fifo_pairs) = if lib.rmw == Some(RemoteAtomics::Hca) {
            (rmw::rao_pairs(&rmws, g), rmw::fifo_pairs(&rmws, &k, g, me))
        } else {
            (Vec::new(), Vec::new())
        };
        let vars = rdma::RdmaVars::with_rao(mem, nfo_pairs, rao_pairs, fifo_pairs);
        TsoSearch { lib, g, vars, ippo, oppo, ext, sthd, sqp, inst, is, rmws, scratch: Scratch::default() }
    }
}

/// The name explanations give the edges of [`rmw::pending_reads_into`]: a read
/// before an RMW's read, as its write was still pending in wb_R.
const PEND: &str = "read before aNAR (aNAW pending)";

/// The witness-dependent parts of ib and ob (Def. 4.3-4.4) for the current assignment.
#[derive(Default)]
struct Base {
    rf: BitRel,
    mo: BitRel,
    rb: BitRel,
    nfo: BitRel,
    /// rb_b: the part of rb that goes through a buffer.
    rb_b: BitRel,
    /// rf_b: the part of rf that goes through a buffer.
    rf_b: BitRel,
    /// rf_b̄ = rf \ rf_b.
    rf_nb: BitRel,
    /// A remote read of a queue pair before an RMW's read, since it reads before
    /// the RMW's write lands ([`rmw::pending_reads_into`]).
    pend: BitRel,
}

impl TsoSearch<'_> {
    /// rao, aw and the wb_R entry order fifo (RDMA^TSO_RMW, [`crate::rmw`]) as
    /// oriented so far; empty for RDMA^TSO. fifo orders issues only (ib): which
    /// write entered wb_R first, not when either landed.
    fn atomic_into(&self, rao: &mut BitRel, aw: &mut BitRel, fifo: &mut BitRel) {
        let n = self.g.len();
        self.vars.fifo_into(n, fifo);
        self.vars.rao_into(n, rao);
        aw.reset(n);
        rmw::aw_into(&self.rmws, rao, fifo, &self.vars.mem, self.g, aw);
    }

    fn base(&self) -> Base {
        let mut b = Base::default();
        self.base_into(&mut b, &mut Vec::new());
        b
    }

    /// [`TsoSearch::base`] into `b`'s storage (`order`: room for one cell's writes).
    fn base_into(&self, b: &mut Base, order: &mut Vec<usize>) {
        let k = self.lib.kinds;
        let n = self.g.len();
        self.vars.mem.rf_into(&mut b.rf);
        self.vars.mem.mo_into(&mut b.mo, order);
        self.vars.mem.rb_into(&mut b.rb, order);
        self.vars.nfo_into(n, &mut b.nfo);
        let is = &self.is;
        b.rf_b.assign(&b.rf);
        b.rf_b.intersect_with(&self.sthd);
        b.rf_b.restrict_with(|a| is[a] == k.cw, |c| is[c] == k.cr);
        b.rb_b.assign(&b.rb);
        b.rb_b.intersect_with(&self.sthd);
        b.rb_b.restrict_with(|a| is[a] == k.cr, |c| is[c] == k.cw);
        if !self.lib.pcie {
            b.rf_b.union_with(&b.rf.intersect(&self.sqp));
            b.rb_b.union_with(&b.rb.intersect(&self.sqp));
        }
        if self.lib.cpu == Cpu::Sc {
            // Def. 4: ib = (ippo ∪ rf ∪ pf ∪ nfo)⁺, ob ⊇ rf (no store buffer)
            b.rf_b.reset(n);
            b.rb_b.reset(n);
        }
        b.rf_nb.assign(&b.rf);
        b.rf_nb.minus_with(&b.rf_b);
        // a read of the queue pair before an RMW's write lands: nfo with PCIe, rb without
        let landed_after = if self.lib.pcie { &b.nfo } else { &b.rb };
        let remote_read = |s: usize| is[s] == k.nrr || Some(is[s]) == k.nar;
        rmw::pending_reads_into(&self.rmws, &self.vars.mem, landed_after, &self.sqp, remote_read, &mut b.pend);
    }

    /// Def. 4.4's three conditions on the current assignment, in `sc`'s storage;
    /// adds ob to `so` when they hold.
    fn check_with(&self, sc: &mut Scratch, so: &mut BitRel) -> bool {
        self.base_into(&mut sc.base, &mut sc.order);
        self.atomic_into(&mut sc.rao, &mut sc.aw, &mut sc.fifo);
        let (b, ib, ob) = (&sc.base, &mut sc.ib, &mut sc.ob);
        ib.assign(&self.ippo);
        ib.union_with(&b.rf);
        ib.union_with(&self.ext.pf);
        ib.union_with(&b.nfo);
        ib.union_with(&b.rb_b);
        if !self.rmws.is_empty() {
            ib.union_with(&b.pend); // empty without remote RMWs: spare the hot path
        }
        ib.union_with(&sc.rao);
        ib.union_with(&sc.aw);
        ib.union_with(&sc.fifo);
        for (w, y) in rmw::issued_with_read(&self.rmws, &self.vars.mem, ib) {
            ib.add(w, y);
        }
        ib.close_transitively();
        if !ib.is_irreflexive() {
            return false;
        }
        ob.assign(&self.oppo);
        ob.union_with(&b.rf_nb);
        ob.union_with(&self.ext.nlw_pf);
        ob.union_with(&b.nfo);
        ob.union_with(&b.rb);
        ob.union_with(&b.mo);
        if !self.rmws.is_empty() {
            ob.union_with(&b.pend);
        }
        ob.union_with(&sc.rao);
        ob.union_with(&sc.aw);
        ob.close_transitively();
        if !ob.is_irreflexive() {
            return false;
        }
        let inst = &self.inst;
        ib.restrict_with(|a| inst[a], |_| true);
        ib.compose_into(ob, &mut sc.third);
        if !sc.third.is_acyclic() {
            return false;
        }
        so.union_with(ob);
        true
    }
}

impl WitnessSearch for TsoSearch<'_> {
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
        let mut sc = std::mem::take(&mut self.scratch);
        let ok = self.check_with(&mut sc, so);
        self.scratch = sc;
        ok
    }
    /// Def. 4.4's three conditions in turn, each broken one shown by a shortest
    /// cycle of its relation's parts (ib's: ippo, rf, pf, nfo, rb_b; ob's: oppo,
    /// rf_b̄, [nlW]; pf, nfo, rb, mo); for (3), a shortest cycle of
    /// [Inst]; ib; ob with each step opened into its ib and ob paths.
    fn explain(&self) -> Option<Candidate> {
        if self.ext.stuck || !self.vars.mem.values_ok(true) {
            return Some(Candidate::IllFormed);
        }
        let b = self.base();
        let (mut rao, mut aw, mut fifo) = (BitRel::default(), BitRel::default(), BitRel::default());
        self.atomic_into(&mut rao, &mut aw, &mut fifo);
        let mut issued = BitRel::new(self.g.len());
        let mut gens = issued.clone();
        for r in [&self.ippo, &b.rf, &self.ext.pf, &b.nfo, &b.rb_b, &b.pend, &rao, &aw, &fifo] {
            gens.union_with(r);
        }
        for (w, y) in rmw::issued_with_read(&self.rmws, &self.vars.mem, &gens) {
            issued.add(w, y);
        }
        let ib_parts: [(&str, &BitRel); 10] = [
            ("ippo", &self.ippo),
            ("rf", &b.rf),
            ("pf", &self.ext.pf),
            ("nfo", &b.nfo),
            ("rb_b", &b.rb_b),
            (PEND, &b.pend),
            ("rao", &rao),
            ("aw", &aw),
            ("fifo", &fifo),
            ("aNAW with its aNAR", &issued),
        ];
        let ob_parts: [(&str, &BitRel); 9] = [
            ("oppo", &self.oppo),
            ("rf_b̄", &b.rf_nb),
            ("[nlW];pf", &self.ext.nlw_pf),
            ("nfo", &b.nfo),
            ("rb", &b.rb),
            ("mo", &b.mo),
            (PEND, &b.pend),
            ("rao", &rao),
            ("aw", &aw),
        ];
        let violation = |rank: usize, axiom: &str, cycle| {
            Some(Candidate::Inconsistent(Violation { axiom: axiom.into(), rank, cycle }))
        };
        if let Some(c) = explain::shortest_cycle(&ib_parts) {
            return violation(0, "Def. 4.4 (1): ib is irreflexive", c);
        }
        if let Some(c) = explain::shortest_cycle(&ob_parts) {
            return violation(1, "Def. 4.4 (2): ob is irreflexive", c);
        }
        let union = |parts: &[(&str, &BitRel)]| {
            let mut u = BitRel::new(self.g.len());
            for (_, r) in parts {
                u.union_with(r);
            }
            u.close_transitively();
            u
        };
        let (ib, ob) = (union(&ib_parts), union(&ob_parts));
        let inst = &self.inst;
        let third = ib.restrict(|a| inst[a], |_| true).compose(&ob);
        let Some(steps) = explain::shortest_cycle(&[("", &third)]) else { return Some(Candidate::Consistent) };
        // each step a → b of [Inst]; ib; ob through some c: ib a → c, then ob c → b
        let mut cycle = Vec::new();
        for (k, st) in steps.iter().enumerate() {
            let (a, b) = (st.from, steps[(k + 1) % steps.len()].from);
            let c = (0..self.g.len()).find(|&c| ib.contains(a, c) && ob.contains(c, b))?;
            let tag = |p: Vec<CycleEdge>, of: &str| {
                p.into_iter().map(|e| CycleEdge { from: e.from, rel: format!("{} ({of})", e.rel) }).collect::<Vec<_>>()
            };
            cycle.extend(tag(explain::shortest_path(&ib_parts, a, c)?, "ib"));
            cycle.extend(tag(explain::shortest_path(&ob_parts, c, b)?, "ob"));
        }
        violation(2, "Def. 4.4 (3): ([Inst]; ib; ob)⁺ is irreflexive", cycle)
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
            rdma::returned(&self.lib.kinds, self.g, &self.vars.mem, event)
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
        let nfo = self.vars.nfo(self.g.len());
        let mut rels = vec![
            ("rf".into(), self.vars.mem.rf_rel()),
            ("mo".into(), self.vars.mem.mo_rel()),
            ("rb".into(), self.vars.mem.rb_rel()),
            ("pf".into(), self.ext.pf.clone()),
            ("nfo".into(), nfo),
        ];
        if self.lib.rmw == Some(RemoteAtomics::Hca) {
            let (mut rao, mut aw, mut fifo) = (BitRel::default(), BitRel::default(), BitRel::default());
            self.atomic_into(&mut rao, &mut aw, &mut fifo);
            rels.push(("rao".into(), rao));
            // herd's `rmw`: an RMW's atomic read to its own separate atomic write
            let mut rmw = BitRel::new(self.g.len());
            for r in &self.rmws {
                if let Some((w, _)) = r.write {
                    rmw.add(r.read, w);
                }
            }
            rels.push(("rmw".into(), rmw));
        }
        rels
    }
}
