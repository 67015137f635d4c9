//! Pre-executions ⟨E, po, pf⟩ (Def. 2) and gb (Def. 6, Fig. 5; gb_tso, Def. 12).

// relations over event indices: index loops read best here
#![allow(clippy::needless_range_loop)]

use std::collections::{BTreeMap, BTreeSet};

use mowgli_core::{BitRel, Event, ExecGraph, Stamp, StampTable, Value, World};
use mowgli_libs::rdma::Kinds;
use serde::Serialize;

/// The event types of the paper (Def. 1; F of App. B.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Ty {
    LR,
    LW,
    Cas,
    F,
    P,
    NLR,
    NRW,
    NRR,
    NLW,
    NF,
}

impl Ty {
    fn stamp_name(self) -> &'static str {
        match self {
            Ty::LR => "aCR",
            Ty::LW => "aCW",
            Ty::Cas => "aCAS",
            Ty::F => "aMF",
            Ty::P => "aWT",
            Ty::NLR => "aNLR",
            Ty::NRW => "aNRW",
            Ty::NRR => "aNRR",
            Ty::NLW => "aNLW",
            Ty::NF => "aRF",
        }
    }
    pub fn is_write(self) -> bool {
        matches!(self, Ty::LW | Ty::Cas | Ty::NLW | Ty::NRW)
    }
    /// The paper's name of the type (event types of the robustness paper, e.g.
    /// its `CAS` event; labels, not method names).
    pub fn paper(self) -> &'static str {
        match self {
            Ty::LR => "lR",
            Ty::LW => "lW",
            Ty::Cas => "CAS",
            Ty::F => "F",
            Ty::P => "P",
            Ty::NLR => "nlR",
            Ty::NRW => "nrW",
            Ty::NRR => "nrR",
            Ty::NLW => "nlW",
            Ty::NF => "nF",
        }
    }
}

/// One event of a pre-execution.
#[derive(Clone, Debug)]
pub struct PEv {
    pub thread: usize,
    /// Index of the call in its thread.
    pub call: usize,
    pub ty: Ty,
    pub loc: Option<usize>,
    /// n̄(e): the remote node of a NIC event, poll or rfence.
    pub rnode: Option<u32>,
    /// The subevent of the graph it came from.
    pub sub: usize,
}

/// A pre-execution ⟨E, po, pf⟩ (Def. 2): per thread its events in po order, and pf.
pub struct PreExec {
    pub threads: Vec<Vec<PEv>>,
    pub thread_nodes: Vec<u32>,
    pub loc_nodes: Vec<Option<u32>>,
    /// Per thread, per event: the poll that polls it (pf), by index in the thread.
    pub pf: Vec<Vec<Option<usize>>>,
    /// The calls (thread, index) with a subevent the paper's event types do not
    /// cover (a remote RMW's atomic read and write, aNAR_n and aNAW_n): the
    /// sufficient conditions know nothing of them ([`super::Syntactic::outside`]).
    pub outside: Vec<(usize, usize)>,
}

pub(super) fn loc_arg(args: &[Value], i: usize) -> Option<usize> {
    args.get(i).and_then(Value::as_loc)
}

impl PreExec {
    /// The pre-execution of a stamped plain execution of rdmatso / rdmasc calls.
    pub fn of_graph(g: &ExecGraph, k: &Kinds) -> PreExec {
        let stamps: Vec<Vec<Stamp>> =
            g.subs_of.iter().map(|ss| ss.iter().map(|&s| g.subs[s].stamp).collect()).collect();
        Self::of_events(g.world, &g.events, &stamps, k)
    }

    /// The pre-execution of calls `events` with the stamps of each (`stamps[i]`, in
    /// order; subevents are numbered as [`ExecGraph::new`] numbers them), without
    /// building the graph's relations (quadratic in the events).
    pub fn of_events(world: &World, events: &[Event], stamps: &[Vec<Stamp>], k: &Kinds) -> PreExec {
        let nt = world.threads.len();
        let mut threads: Vec<Vec<PEv>> = vec![Vec::new(); nt];
        let mut first = Vec::with_capacity(events.len());
        let mut count = 0;
        for st in stamps {
            first.push(count);
            count += st.len();
        }
        let mut order: Vec<usize> = (0..events.len()).collect();
        order.sort_by_key(|&i| (events[i].thread, events[i].index));
        let subs = order.into_iter().flat_map(|i| (0..stamps[i].len()).map(move |pos| (i, pos)));
        let mut outside = Vec::new();
        for (i, pos) in subs {
            let e = &events[i];
            let s = first[i] + pos;
            let st = stamps[i][pos];
            let ty = if st.kind == k.cr {
                Ty::LR
            } else if st.kind == k.cw {
                Ty::LW
            } else if st.kind == k.cas {
                Ty::Cas
            } else if st.kind == k.mf {
                Ty::F
            } else if st.kind == k.wt {
                Ty::P
            } else if st.kind == k.nlr {
                Ty::NLR
            } else if st.kind == k.nrw {
                Ty::NRW
            } else if st.kind == k.nrr {
                Ty::NRR
            } else if st.kind == k.nlw {
                Ty::NLW
            } else if st.kind == k.rf {
                Ty::NF
            } else {
                if !outside.contains(&(e.thread, e.index)) {
                    outside.push((e.thread, e.index));
                }
                continue;
            };
            let loc = match ty {
                Ty::LR | Ty::LW | Ty::Cas | Ty::NRW | Ty::NLW => loc_arg(&e.args, 0),
                Ty::NLR | Ty::NRR => loc_arg(&e.args, 1),
                _ => None,
            };
            let rnode = match ty {
                Ty::P => e.args.first().and_then(Value::as_node),
                _ => st.node,
            };
            threads[e.thread].push(PEv { thread: e.thread, call: e.index, ty, loc, rnode, sub: s });
        }
        // pf: the i-th poll towards n polls the i-th NIC write towards n (Def. 2)
        let pf = threads
            .iter()
            .map(|evs| {
                let mut out = vec![None; evs.len()];
                let mut writes: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
                let mut polls: BTreeMap<u32, usize> = BTreeMap::new();
                for (i, e) in evs.iter().enumerate() {
                    match (e.ty, e.rnode) {
                        (Ty::NRW | Ty::NLW, Some(n)) => writes.entry(n).or_default().push(i),
                        (Ty::P, Some(n)) => {
                            let c = polls.entry(n).or_default();
                            if let Some(&w) = writes.get(&n).and_then(|ws| ws.get(*c)) {
                                out[w] = Some(i);
                            }
                            *c += 1;
                        }
                        _ => {}
                    }
                }
                out
            })
            .collect();
        PreExec {
            threads,
            thread_nodes: (0..nt).map(|t| world.thread_node(t)).collect(),
            loc_nodes: (0..world.locs.len()).map(|l| world.loc_node(l)).collect(),
            pf,
            outside,
        }
    }

    /// public(x): accessed by more than one thread (§4.2).
    pub fn public(&self) -> Vec<bool> {
        let mut by: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); self.loc_nodes.len()];
        for evs in &self.threads {
            for e in evs {
                if let Some(l) = e.loc {
                    by[l].insert(e.thread);
                }
            }
        }
        by.iter().map(|s| s.len() > 1).collect()
    }

    pub(super) fn sqp(a: &PEv, b: &PEv) -> bool {
        a.rnode.is_some() && a.rnode == b.rnode
    }

    /// gb (Def. 6) of thread `t` with `oppo` (Fig. 4's for RDMA^sc; Fig. 9's, which is
    /// oppo_tso, for Def. 12's gb_tso = ((gb_base \ oppo) ∪ oppo_tso)⁺), as a relation
    /// on the thread's event indices.
    pub fn gb(&self, t: usize, oppo: &StampTable) -> BitRel {
        let evs = &self.threads[t];
        let n = evs.len();
        let pf = &self.pf[t];
        let stamp = |e: &PEv| -> Option<Stamp> {
            let kind = oppo.kind(e.ty.stamp_name())?;
            Some(Stamp { kind, node: if oppo.family[kind as usize] { e.rnode } else { None } })
        };
        let stamps: Vec<Option<Stamp>> = evs.iter().map(stamp).collect();
        let mut gb = BitRel::new(n);
        for i in 0..n {
            for j in i + 1..n {
                if let (Some(a), Some(b)) = (stamps[i], stamps[j]) {
                    if oppo.ordered(a, b) {
                        gb.add(i, j);
                    }
                }
            }
        }
        let fence_between = |i: usize, j: usize| {
            (i + 1..j).any(|f| evs[f].ty == Ty::NF && Self::sqp(&evs[i], &evs[f]) && Self::sqp(&evs[f], &evs[j]))
        };
        for i in 0..n {
            let e = &evs[i];
            match e.ty {
                // [nlR]; po|imm; [nrW]; pf
                Ty::NLR => {
                    if let (true, Some(p)) = (i + 1 < n && evs[i + 1].ty == Ty::NRW, pf.get(i + 1).copied().flatten()) {
                        gb.add(i, p);
                    }
                }
                // [nrW]; (po ∩ sqp); [nlW]; pf
                Ty::NRW => {
                    for w in i + 1..n {
                        if evs[w].ty == Ty::NLW && Self::sqp(e, &evs[w]) {
                            if let Some(p) = pf[w] {
                                gb.add(i, p);
                            }
                        }
                    }
                }
                // [nrR]; po|imm; [nlW]; pf  and  [nrR]; (po ∩ sqp); [nF]; (po ∩ sqp)
                Ty::NRR => {
                    if i + 1 < n && evs[i + 1].ty == Ty::NLW {
                        if let Some(p) = pf[i + 1] {
                            gb.add(i, p);
                        }
                    }
                    for j in i + 1..n {
                        if Self::sqp(e, &evs[j]) && fence_between(i, j) {
                            gb.add(i, j);
                        }
                    }
                }
                // [nlW]; pf  and  [nlW]; (po ∩ sqp); [nF]; (po ∩ sqp); [nlR ∪ nrW]
                Ty::NLW => {
                    if let Some(p) = pf[i] {
                        gb.add(i, p);
                    }
                    for j in i + 1..n {
                        if matches!(evs[j].ty, Ty::NLR | Ty::NRW) && Self::sqp(e, &evs[j]) && fence_between(i, j) {
                            gb.add(i, j);
                        }
                    }
                }
                _ => {}
            }
        }
        gb.close_transitively();
        gb
    }

    /// hasQP(t, n̄, E) for E = the events `keep` accepts.
    pub(super) fn qps(&self, keep: &dyn Fn(&PEv) -> bool) -> BTreeSet<(usize, u32)> {
        let mut out = BTreeSet::new();
        for evs in &self.threads {
            for e in evs {
                if matches!(e.ty, Ty::NRW | Ty::NRR) && keep(e) {
                    if let Some(n) = e.rnode {
                        out.insert((e.thread, n));
                    }
                }
            }
        }
        out
    }

    /// The node components of ⇝*_E (§4.2) for the queue pairs `qps`: node → component.
    pub(super) fn components(&self, qps: &BTreeSet<(usize, u32)>) -> BTreeMap<u32, u32> {
        let mut parent: BTreeMap<u32, u32> = BTreeMap::new();
        fn find(p: &mut BTreeMap<u32, u32>, x: u32) -> u32 {
            let mut r = x;
            while let Some(&q) = p.get(&r) {
                if q == r {
                    break;
                }
                r = q;
            }
            p.insert(x, r);
            r
        }
        for &(t, n) in qps {
            let a = find(&mut parent, self.thread_nodes[t]);
            let b = find(&mut parent, n);
            if a != b {
                parent.insert(a, b);
            }
        }
        let keys: Vec<u32> = parent.keys().copied().collect();
        keys.into_iter().map(|k| (k, find(&mut parent, k))).collect()
    }
}

/// gb (Def. 6) of one thread as, per event j and per class c of events (type and
/// remote node), the last event of class c that is gb-before j (-1: none).
///
/// This is exact because gb's predecessors of an event are, within each class, a
/// prefix of the class: if i is gb-before j, so is every earlier i' of i's class.
/// For an oppo edge the table orders classes; for Fig. 5's (po ∩ sqp) edges i' < i is
/// on the same queue pair too; for the poll edges ([nlR]; po|imm; [nrW]; pf,
/// [nrR]; po|imm; [nlW]; pf, [nlW]; pf) the NIC write of i' is polled by an earlier
/// poll p' (polls of a queue pair poll its writes in order, Def. 2), and a poll is
/// ordered before everything after it (row P of both oppo tables is all ✓), so i'
/// gb p' gb p. `tests/robust.rs` checks it against [`PreExec::gb`].
pub struct GbLast {
    /// The class of each event.
    pub class: Vec<usize>,
    /// The classes, (type, remote node), in order of first occurrence.
    pub classes: Vec<(Ty, Option<u32>)>,
    last: Vec<i64>,
}

impl GbLast {
    /// The last event of class `c` gb-before `j` (-1: none).
    pub fn last(&self, j: usize, c: usize) -> i64 {
        self.last[j * self.classes.len() + c]
    }
    /// (i, j) ∈ gb.
    pub fn contains(&self, i: usize, j: usize) -> bool {
        i < j && self.last(j, self.class[i]) >= i as i64
    }
}

impl PreExec {
    /// [`PreExec::gb`] in O(n · C²) time and O(n · C) space (C: the thread's classes),
    /// as [`GbLast`]: one sweep along po, keeping per class the union of the
    /// gb-predecessors (and itself) of its events so far.
    pub fn gb_last(&self, t: usize, oppo: &StampTable) -> GbLast {
        let evs = &self.threads[t];
        let n = evs.len();
        let mut classes: Vec<(Ty, Option<u32>)> = Vec::new();
        let mut index: BTreeMap<(u8, Option<u32>), usize> = BTreeMap::new();
        let class: Vec<usize> = evs
            .iter()
            .map(|e| {
                *index.entry((e.ty as u8, e.rnode)).or_insert_with(|| {
                    classes.push((e.ty, e.rnode));
                    classes.len() - 1
                })
            })
            .collect();
        let nc = classes.len();
        let find = |ty: Ty, node: Option<u32>| index.get(&(ty as u8, node)).copied();
        let stamp = |(ty, node): (Ty, Option<u32>)| -> Option<Stamp> {
            let kind = oppo.kind(ty.stamp_name())?;
            Some(Stamp { kind, node: if oppo.family[kind as usize] { node } else { None } })
        };
        let stamps: Vec<Option<Stamp>> = classes.iter().map(|&c| stamp(c)).collect();
        // ordered_into[c]: the classes d with d → c in oppo
        let ordered_into: Vec<Vec<usize>> = (0..nc)
            .map(|c| {
                (0..nc)
                    .filter(|&d| matches!((stamps[d], stamps[c]), (Some(a), Some(b)) if oppo.ordered(a, b)))
                    .collect()
            })
            .collect();
        let pf = &self.pf[t];
        let mut polled_by: Vec<Option<usize>> = vec![None; n];
        for (w, p) in pf.iter().enumerate() {
            if let Some(p) = *p {
                polled_by[p] = Some(w);
            }
        }
        let none = vec![-1i64; nc];
        // acc[d]: per class c, the last event of c gb-before or equal to an event of
        // class d so far
        let mut acc = vec![-1i64; nc * nc];
        let mut last = vec![-1i64; n * nc];
        // at each nlW: acc of its node's nrW class; at the last rfence per node: acc
        // of its node's nrR and nlW classes
        let mut at_nlw: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
        let mut at_rfence: BTreeMap<u32, (Vec<i64>, Vec<i64>)> = BTreeMap::new();
        let acc_of = |acc: &[i64], d: Option<usize>| -> Vec<i64> {
            d.map(|d| acc[d * nc..(d + 1) * nc].to_vec()).unwrap_or_else(|| none.clone())
        };
        let max_into = |row: &mut [i64], other: &[i64]| {
            for (x, y) in row.iter_mut().zip(other) {
                *x = (*x).max(*y);
            }
        };
        for j in 0..n {
            let e = &evs[j];
            let cj = class[j];
            let mut row = none.clone();
            for &d in &ordered_into[cj] {
                max_into(&mut row, &acc[d * nc..(d + 1) * nc]);
            }
            // the gb-predecessors of i and i itself
            let with = |last: &[i64], i: usize| -> Vec<i64> {
                let mut r = last[i * nc..(i + 1) * nc].to_vec();
                r[class[i]] = r[class[i]].max(i as i64);
                r
            };
            if let (Ty::P, Some(w)) = (e.ty, polled_by[j]) {
                match evs[w].ty {
                    // [nlR]; po|imm; [nrW]; pf
                    Ty::NRW if w > 0 && evs[w - 1].ty == Ty::NLR => max_into(&mut row, &with(&last, w - 1)),
                    Ty::NLW => {
                        // [nlW]; pf, [nrR]; po|imm; [nlW]; pf, [nrW]; (po ∩ sqp); [nlW]; pf
                        max_into(&mut row, &with(&last, w));
                        if w > 0 && evs[w - 1].ty == Ty::NRR {
                            max_into(&mut row, &with(&last, w - 1));
                        }
                        if let Some(r) = at_nlw.get(&w) {
                            max_into(&mut row, r);
                        }
                    }
                    _ => {}
                }
            }
            // [nrR]; (po ∩ sqp); [nF]; (po ∩ sqp) and
            // [nlW]; (po ∩ sqp); [nF]; (po ∩ sqp); [nlR ∪ nrW]
            if let Some((nrr, nlw)) = e.rnode.and_then(|m| at_rfence.get(&m)) {
                max_into(&mut row, nrr);
                if matches!(e.ty, Ty::NLR | Ty::NRW) {
                    max_into(&mut row, nlw);
                }
            }
            last[j * nc..(j + 1) * nc].copy_from_slice(&row);
            row[cj] = row[cj].max(j as i64);
            max_into(&mut acc[cj * nc..(cj + 1) * nc], &row);
            match (e.ty, e.rnode) {
                (Ty::NLW, m) => {
                    at_nlw.insert(j, acc_of(&acc, find(Ty::NRW, m)));
                }
                (Ty::NF, Some(m)) => {
                    at_rfence.insert(m, (acc_of(&acc, find(Ty::NRR, Some(m))), acc_of(&acc, find(Ty::NLW, Some(m)))));
                }
                _ => {}
            }
        }
        GbLast { class, classes, last }
    }
}
