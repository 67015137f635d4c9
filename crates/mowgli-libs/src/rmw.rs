//! What remote read-modify-writes add to RDMA^TSO (issue 33, RDMA^TSO_RMW): the
//! methods `RCAS(x, y, e, v)` and `RFAA(x, y, k)`, their subevents, what they
//! write, and the remote atomic order rao with the atomicity axiom. The model is
//! our reconstruction from the machine (crate `mowgli-machine`, rules A1-A3) and
//! the InfiniBand verbs contract; every choice is argued in docs/design.md, "The
//! declarative RDMA^TSO_RMW".
//!
//! An RMW of thread t towards the node n of y is, under HCA atomicity (atomic
//! against the RMWs of n's NIC only; the default):
//!
//! * `aNAR_n` — the NIC atomic read of y (instantaneous: the machine's A3);
//! * `aNLW_n` — the old value's write to local x (as a get's);
//! * `aNAW_n` — the atomic write of y (none when a CAS fails), made at A3 into
//!   the queue pair's wb_R and landing later, in order with the puts' writes that
//!   entered wb_R before it (not a put's aNRW_n: later puts' writes may enter
//!   wb_R first, see specs/stamp-orders/rdma-fig9.to).
//!
//! Under global atomicity (atomic against every access) the write happens at A3
//! itself: the `aNAR_n` subevent both reads and writes y, as a CPU CAS's aCAS does,
//! and the event is `aNAR_n; aNLW_n`.
//!
//! iso orders the read before the event's other subevents. rao, a witness, orders
//! the atomic reads of each node totally (the order of the machine's A3 steps);
//! it is part of ib and ob. The atomicity axiom (HCA): when a rao b on the same
//! location and a writes, a's write lands before b reads — the edge
//! `aNAW(a) → aNAR(b)` ("aw") in ib and ob. That is the machine's atomic-unit
//! premise (A3 waits until no earlier RMW write to y is pending in any wb_R
//! towards n); CPU writes and puts' writes to y may still land between an RMW's
//! read and its write.

use mowgli_core::memory::{RfMo, WriteState};
use mowgli_core::model::LibId;
use mowgli_core::{
    BitRel, Cell, Effect, ExecGraph, MethodSig, Related, Ret, Role, Stamp, StampTable, Value, ValueDomain, Variant,
    Written,
};

use crate::rdma::{Kinds, RCAS, RFAA};

/// Against what a remote RMW is atomic (InfiniBand's `IBV_ATOMIC_HCA` and
/// `IBV_ATOMIC_GLOB`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemoteAtomics {
    /// Against the other RMWs of the same NIC only: its write lands later.
    Hca,
    /// Against every access: it reads and writes in one step.
    Global,
}

/// The name and the declared variants of RDMA^TSO_RMW with `atomics` and the
/// PCIe guarantee or not, with TSO CPUs (`sc` false) or SC ones (`sc` true, the
/// strong model RDMA^SC_RMW that `mowgli robust` compares against, always with
/// PCIe). The PCIe pair are each other's path variants, HCA and global atomicity
/// each other's RMW variants, TSO and SC CPUs each other's TSO-local and SC-local
/// variants (global without PCIe is not built; RDMA^TSO_RMW without PCIe has no SC
/// variant, as RDMA^TSO without PCIe has none).
pub fn family(atomics: RemoteAtomics, pcie: bool, sc: bool) -> (&'static str, Vec<(Variant, Related)>) {
    let named = |n: &str| Related::Named(n.to_string());
    let (name, path, rmw, cpu) = match (atomics, pcie, sc) {
        (RemoteAtomics::Hca, true, false) => (
            "rdmatso_rmw",
            [Related::Itself, named("rdmatso_rmw_nopcie")],
            [Related::Itself, named("rdmatso_rmw_glob")],
            [named("rdmasc_rmw"), Related::Itself],
        ),
        (RemoteAtomics::Hca, false, _) => (
            "rdmatso_rmw_nopcie",
            [named("rdmatso_rmw"), Related::Itself],
            [Related::Itself, Related::Lacks],
            [Related::Lacks, Related::Itself],
        ),
        (RemoteAtomics::Global, _, false) => (
            "rdmatso_rmw_glob",
            [Related::Itself, Related::Lacks],
            [named("rdmatso_rmw"), Related::Itself],
            [named("rdmasc_rmw_glob"), Related::Itself],
        ),
        (RemoteAtomics::Hca, true, true) => (
            "rdmasc_rmw",
            [Related::Unrelated, Related::Unrelated],
            [Related::Itself, named("rdmasc_rmw_glob")],
            [Related::Itself, named("rdmatso_rmw")],
        ),
        (RemoteAtomics::Global, _, true) => (
            "rdmasc_rmw_glob",
            [Related::Unrelated, Related::Unrelated],
            [named("rdmasc_rmw"), Related::Itself],
            [Related::Itself, named("rdmatso_rmw_glob")],
        ),
    };
    let [ordered, unordered] = path;
    let [isolated, global] = rmw;
    let [sc_local, tso_local] = cpu;
    let mut variants = vec![
        (Variant::ScLocal, sc_local),
        (Variant::TsoLocal, tso_local),
        (Variant::OrderedPath, ordered),
        (Variant::UnorderedPath, unordered),
        (Variant::IsolatedRmw, isolated),
        (Variant::GlobalRmw, global),
    ];
    // as `rdmasc`, the SC models declare no path variant
    variants.retain(|(_, r)| *r != Related::Unrelated);
    (name, variants)
}

/// The ippo and oppo of RDMA^SC_RMW over the stamps of RDMA^TSO_RMW's tables
/// `tso` (ippo, oppo): a cell between two stamps of RDMA^sc's tables `sc`
/// (ippo_sc, oppo_sc, Fig. 4 of the robustness paper) is theirs; a cell naming
/// aNAR_n or aNAW_n follows App. B.1 of that paper, which derives RDMA^sc from
/// RDMA^TSO: "ippo is unchanged" (the cell of `tso`'s ippo), and oppo_sc = oppo ∪
/// (E^cpu × E) with E^cpu = 1R ∪ 1W ∪ CAS ∪ F ∪ P (✓ in a row of a CPU stamp,
/// else the cell of `tso`'s oppo). Rows aCR…aWT of the RMW columns are ✓ in
/// RDMA^TSO_RMW already (A11-E12, specs/stamp-orders/rdma-fig9.to), so the RMW
/// rows and columns are RDMA^TSO_RMW's; `orders::tests` checks that the same
/// rule gives Fig. 4 from Fig. 9 on the stamps they share.
pub fn sc_tables(sc: (&StampTable, &StampTable), tso: (&StampTable, &StampTable)) -> (StampTable, StampTable) {
    const CPU: [&str; 5] = ["aCR", "aCW", "aCAS", "aMF", "aWT"];
    let derive = |own: &StampTable, base: &StampTable, cpu_row_ordered: bool| {
        let mut t = base.clone();
        t.name = own.name.clone();
        for (i, a) in base.kinds.iter().enumerate() {
            for (j, b) in base.kinds.iter().enumerate() {
                t.cells[i][j] = match (own.kind(a), own.kind(b)) {
                    (Some(x), Some(y)) => own.cells[x as usize][y as usize],
                    _ if cpu_row_ordered && CPU.contains(&a.as_str()) => Cell::Ordered,
                    _ => base.cells[i][j],
                };
            }
        }
        t
    };
    (derive(sc.0, tso.0, false), derive(sc.1, tso.1, true))
}

/// `RCAS` and `RFAA`, numbered after the eleven methods of [`crate::tsoext`].
pub fn methods() -> Vec<MethodSig> {
    let here = Role::Loc { local: true, written: true, sized_like: None };
    let there = Role::Loc { local: false, written: true, sized_like: None };
    vec![
        MethodSig::new("RCAS", vec![here, there, Role::Expected, Role::Val], vec![Ret::Id])
            .effect(Effect::Updates { target: 1, into: 0 }),
        MethodSig::new("RFAA", vec![here, there, Role::Val], vec![Ret::Id])
            .effect(Effect::Updates { target: 1, into: 0 }),
    ]
}

/// The increment of an `RFAA` must be an integer (the machine's too).
pub fn check_call(method: usize, args: &[Value]) -> Result<(), String> {
    match (method, args.get(2)) {
        (RFAA, Some(Value::Int(_))) | (RCAS, _) => Ok(()),
        (RFAA, Some(v)) => Err(format!("RFAA adds an integer, not `{v}`")),
        _ => Ok(()),
    }
}

/// The subevents of an RMW towards the node of its target (see the module).
pub fn stamps(k: &Kinds, (nar, naw): (u8, u8), node: u32, atomics: RemoteAtomics) -> Vec<Stamp> {
    match atomics {
        RemoteAtomics::Hca => vec![k.fam(nar, node), k.fam(k.nlw, node), k.fam(naw, node)],
        RemoteAtomics::Global => vec![k.fam(nar, node), k.fam(k.nlw, node)],
    }
}

/// What an RMW may write (the value domain): the signature's over-approximation,
/// plus, for `RFAA(x, y, k)`, every value of y plus k to y.
pub fn writes(method: usize, args: &[Value], dom: &ValueDomain, out: &mut Vec<Written>) {
    if let (RFAA, Some(Value::Loc(y)), Some(Value::Int(k))) = (method, args.get(1), args.get(2)) {
        for v in dom.at(*y) {
            if let Value::Int(i) = v {
                out.push(Written {
                    loc: Some(*y),
                    value: Value::Int(i.wrapping_add(*k)),
                    derived: true,
                    copied: false,
                });
            }
        }
    }
}

/// One RMW of the library in an execution.
#[derive(Clone, Debug)]
pub struct RmwEvent {
    /// Its aNAR subevent.
    pub read: usize,
    /// Its separate atomic write (HCA): subevent and index among the memory's writes.
    pub write: Option<(usize, usize)>,
    /// The location it targets.
    pub cell: usize,
}

/// The RMWs of library `me` in `g`, with their place in `mem`.
pub fn events(k: &Kinds, g: &ExecGraph, me: LibId, mem: &RfMo) -> Vec<RmwEvent> {
    let Some(nar) = k.nar else { return vec![] };
    let mut out = Vec::new();
    for (ei, subs) in g.subs_of.iter().enumerate() {
        if g.events[ei].lib != me {
            continue;
        }
        let Some(&read) = subs.iter().find(|&&s| g.subs[s].stamp.kind == nar) else { continue };
        let Some(cell) = g.events[ei].args.get(1).and_then(Value::as_loc) else { continue };
        let write = subs
            .iter()
            .find(|&&s| Some(g.subs[s].stamp.kind) == k.naw)
            .and_then(|&s| mem.writes.iter().position(|w| w.sub == s).map(|i| (s, i)));
        out.push(RmwEvent { read, write, cell });
    }
    out
}

/// iso of the RMWs: the atomic read before the event's other subevents.
pub fn iso(rmws: &[RmwEvent], g: &ExecGraph, into: &mut BitRel) {
    for r in rmws {
        for &s in &g.subs_of[g.subs[r.read].event] {
            if s != r.read {
                into.add(r.read, s);
            }
        }
    }
}

/// The pairs rao orients (HCA): the atomic reads of two RMWs towards the same node.
pub fn rao_pairs(rmws: &[RmwEvent], g: &ExecGraph) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (i, a) in rmws.iter().enumerate() {
        for b in &rmws[i + 1..] {
            if g.subs[a.read].stamp.node == g.subs[b.read].stamp.node {
                pairs.push((a.read, b.read));
            }
        }
    }
    pairs
}

/// The pairs whose orientation says which of two writes entered a queue pair's
/// wb_R first (HCA): an RMW's atomic read and the remote write of a put po-after
/// it on the same queue pair. The put's write enters wb_R when the put leaves
/// in_R, the RMW's when it reads (A3, at any time while it waits in out_R), so
/// either may come first; wb_R then lands them in that order.
pub fn fifo_pairs(rmws: &[RmwEvent], k: &Kinds, g: &ExecGraph, me: LibId) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for a in rmws.iter().filter(|a| a.write.is_some()) {
        for (b, sb) in g.subs.iter().enumerate() {
            let same_qp = g.events[sb.event].thread == g.events[g.subs[a.read].event].thread
                && sb.stamp.node == g.subs[a.read].stamp.node;
            if sb.stamp.kind == k.nrw && g.events[sb.event].lib == me && same_qp && g.po.contains(a.read, b) {
                pairs.push((a.read, b));
            }
        }
    }
    pairs
}

/// Whether the RMW's atomic write is known to happen.
fn present_write(a: &RmwEvent, mem: &RfMo) -> Option<usize> {
    let (wa, wi) = a.write?;
    matches!(mem.write_state(wi), WriteState::Value(_)).then_some(wa)
}

/// An RMW's write enters wb_R in the step that reads (the machine's A3 under
/// HCA): in ib it is issued with the read, so it goes before whatever the read
/// goes before. The edges from each RMW's write whose presence is known (a failed
/// CAS writes nothing) to every direct successor of its read in `gens` (ib's
/// generators, not closed: a path from the read starts with one of them) other
/// than the write. Without them, a get of the same queue pair after the RMW's
/// completion could read before the write
/// (specs/litmus/rdmatso-rmw/RMW-FAA-polled-then-get.litmus).
pub fn issued_with_read(rmws: &[RmwEvent], mem: &RfMo, gens: &BitRel) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for e in rmws {
        if let Some(w) = present_write(e, mem) {
            out.extend((0..gens.size()).filter(|&y| y != w && gens.contains(e.read, y)).map(|y| (w, y)));
        }
    }
    out
}

/// A remote read of a queue pair that reads before an RMW's atomic write of that
/// queue pair lands reads before the RMW reads too (HCA): the write waits in
/// wb_R from the RMW's read (A3) until it lands, and meanwhile a get or RMW of the
/// queue pair cannot read past it. With PCIe, G3 and A3 wait for an empty wb_R
/// (nfo orients the read before the write); without, they read through wb_R and
/// see the pending write (so reading an older write, rb to the RMW's write, means
/// reading before A3). Adds (g, aNAR) to `into` for every (g, aNAW) in
/// `landed_after` with g a remote read (`remote_read`) of the same queue pair
/// (`sqp`) and the write known to happen (a failed CAS leaves nothing in wb_R).
/// Without it, a get could read between an RMW's read and the landing of its
/// write (specs/litmus/rdmatso-rmw/RMW-get-waits-for-CAS-write.litmus).
pub fn pending_reads_into(
    rmws: &[RmwEvent],
    mem: &RfMo,
    landed_after: &BitRel,
    sqp: &BitRel,
    remote_read: impl Fn(usize) -> bool,
    into: &mut BitRel,
) {
    into.reset(landed_after.size());
    for e in rmws {
        if let Some(w) = present_write(e, mem) {
            for g in (0..into.size()).filter(|&g| g != e.read && remote_read(g) && sqp.contains(g, w)) {
                if landed_after.contains(g, w) {
                    into.add(g, e.read);
                }
            }
        }
    }
}

/// aw for `rao` and `fifo` as oriented so far (edges added only once final, so
/// partial witnesses give subsets):
/// * a's write before b's read when a rao b on the same location (atomicity);
/// * wb_R's order: a's write before b's when a rao b on the same queue pair, and
///   an RMW's write before or after a later put's write as `fifo` orients them.
pub fn aw_into(rmws: &[RmwEvent], rao: &BitRel, fifo: &BitRel, mem: &RfMo, g: &ExecGraph, into: &mut BitRel) {
    let thread = |s: usize| g.events[g.subs[s].event].thread;
    for a in rmws {
        let Some(wa) = present_write(a, mem) else { continue };
        for b in rmws.iter().filter(|b| rao.contains(a.read, b.read)) {
            if b.cell == a.cell {
                into.add(wa, b.read);
            }
            if let (true, Some(wb)) = (thread(a.read) == thread(b.read), present_write(b, mem)) {
                into.add(wa, wb);
            }
        }
        for p in 0..g.len() {
            if fifo.contains(a.read, p) && g.subs[p].stamp.kind != g.subs[a.read].stamp.kind {
                into.add(wa, p);
            } else if fifo.contains(p, a.read) {
                into.add(p, wa);
            }
        }
    }
}
