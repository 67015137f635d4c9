//! Robustness of RDMA programs (`mowgli robust`): Ambal, Lahav, Raad, "Sufficient
//! Conditions for Robustness of RDMA Programs" (`rdma-robustness.txt`).
//!
//! - The exact check (Def. 5 / Def. 11): every consistent execution of the program
//!   under the model (RDMA^sc: library `rdmasc`, Def. 4; RDMA^TSO: `rdmatso`, Def. 10)
//!   is SC-consistent, i.e. sc = po ∪ rf ∪ rb ∪ mo is acyclic over events (the
//!   paper's events are Mowgli's subevents: a put is nlR; nrW, a get nrR; nlW). The
//!   engine visits every consistent execution ([`engine::for_each_execution`]).
//! - Outcome robustness besides execution robustness: the SC outcomes are the outcomes
//!   of the consistent executions whose sc is acyclic. That is exactly the program's
//!   outcomes under SC: an execution with acyclic sc is consistent under both models
//!   (choose nfo along po; then ippo, oppo, pf, nfo ⊆ po and rf, rb, mo ⊆ sc, so ib
//!   and ob lie in sc⁺, which is acyclic), so the engine visits it, and an
//!   interleaving of the events along a linear extension of sc is an SC run with
//!   that outcome (and every SC run gives such an execution). `tests/robust.rs`
//!   checks this against an independent interleaving interpreter.
//! - The syntactic conditions on pre-executions (⟨E, po, pf⟩, per combination of
//!   the threads' unfoldings): gb (Def. 6, Fig. 5) and gb_tso (Def. 12), LDRF
//!   (Def. 7), fenced (Def. 8, Def. 13), tree-fenced (Def. 9, Def. 14); every
//!   failing pair is named with its lines and the fence or poll Fig. 5 prescribes.

// relations over event indices: index loops read best here
#![allow(clippy::needless_range_loop)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use mowgli_core::program::{unfold_with, CallRecord, Hooks};
use mowgli_core::{BitRel, Event, ExecGraph, Stamp, StampOrder, StampTable, Value};
use mowgli_libs::rdma::{self, Kinds};
use serde::Serialize;

use crate::analyses::litmus;
use crate::engines::explicit::{self, Outcome, Problem, Visited, Witness};
use crate::lang::ast::{Rhs, Stmt};
use crate::lang::{lower, syntax, InputError};

/// The two models of the paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Model {
    /// RDMA^sc (Def. 4), library `rdmasc`.
    Sc,
    /// RDMA^TSO (Def. 10), library `rdmatso`.
    Tso,
}

impl Model {
    pub fn library(self) -> &'static str {
        match self {
            Model::Sc => "rdmasc",
            Model::Tso => "rdmatso",
        }
    }
    pub fn parse(s: &str) -> Option<Model> {
        match s {
            "rdmasc" | "sc" => Some(Model::Sc),
            "rdmatso" | "tso" => Some(Model::Tso),
            _ => None,
        }
    }
    /// The tables (ippo, oppo) of the model in `order`.
    fn tables(self, order: &StampOrder) -> Option<(&StampTable, &StampTable)> {
        match self {
            Model::Sc => Some((order.table("ippo_sc")?, order.table("oppo_sc")?)),
            Model::Tso => Some((order.table("ippo")?, order.table("oppo")?)),
        }
    }
}

// ---------------------------------------------------------------------------
// Pre-executions and the syntactic conditions
// ---------------------------------------------------------------------------

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
    /// The paper's name of the type.
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
}

fn loc_arg(args: &[Value], i: usize) -> Option<usize> {
    args.get(i).and_then(Value::as_loc)
}

impl PreExec {
    /// The pre-execution of a stamped plain execution of rdmatso / rdmasc calls.
    pub fn of_graph(g: &ExecGraph, k: &Kinds) -> PreExec {
        let nt = g.world.threads.len();
        let mut threads: Vec<Vec<PEv>> = vec![Vec::new(); nt];
        let mut order: Vec<usize> = (0..g.len()).collect();
        order.sort_by_key(|&s| {
            let e = g.event_of(s);
            (e.thread, e.index, g.subs[s].pos)
        });
        for s in order {
            let e = g.event_of(s);
            let st = g.subs[s].stamp;
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
            thread_nodes: (0..nt).map(|t| g.world.thread_node(t)).collect(),
            loc_nodes: (0..g.world.locs.len()).map(|l| g.world.loc_node(l)).collect(),
            pf,
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

    fn sqp(a: &PEv, b: &PEv) -> bool {
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
    fn qps(&self, keep: &dyn Fn(&PEv) -> bool) -> BTreeSet<(usize, u32)> {
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
    fn components(&self, qps: &BTreeSet<(usize, u32)>) -> BTreeMap<u32, u32> {
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

/// A pair of instructions (or one instruction) that breaks a condition.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    /// `LDRF` (Def. 7), `fenced` (Def. 8 / 13), `tree-fenced` (Def. 9 / 14).
    pub condition: String,
    pub thread: String,
    /// Where the first event is: `line N` or `call N` (loops and conditionals).
    pub from: String,
    pub to: Option<String>,
    /// The message: what is not guaranteed and the fence or poll that fixes it.
    pub message: String,
    /// Fig. 5's fix: `P` (poll the first), `F` (rfence or poll), `GP` (a get on the
    /// first's queue pair and its poll), `mfence` (TSO), or a structural change.
    pub fix: String,
}

impl Violation {
    pub fn render(&self) -> String {
        match &self.to {
            Some(to) => format!("{} {} → {}: {}", self.thread, self.from, to, self.message),
            None => format!("{} {}: {}", self.thread, self.from, self.message),
        }
    }
}

/// The syntactic conditions of one program under one model.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Syntactic {
    pub ldrf: bool,
    pub fenced: bool,
    pub tree_fenced: bool,
    /// The first [`MAX_VIOLATIONS`] violations (in program order per thread).
    pub violations: Vec<Violation>,
    /// How many violations there are in all (per pre-execution, summed).
    pub violations_total: usize,
}

/// Most violations a report keeps (a large program may have quadratically many).
pub const MAX_VIOLATIONS: usize = 1000;

impl Syntactic {
    fn push(&mut self, v: Violation) {
        self.violations_total += 1;
        if self.violations.len() < MAX_VIOLATIONS {
            self.violations.push(v);
        }
    }
}

impl Syntactic {
    /// Theorem 5 / 17: LDRF ∧ fenced.
    pub fn sufficient(&self) -> bool {
        self.ldrf && self.fenced
    }
}

/// Where an event is, for messages: the thread's name and `line N` / `call N`.
pub struct Places<'a> {
    pub thread_names: Vec<String>,
    /// Per thread, the source line of each call, when the body is straight-line.
    pub lines: Vec<Option<Vec<usize>>>,
    pub loc_names: Vec<String>,
    pub _p: std::marker::PhantomData<&'a ()>,
}

impl Places<'_> {
    fn at(&self, e: &PEv) -> String {
        match self.lines.get(e.thread).and_then(|l| l.as_ref()).and_then(|l| l.get(e.call)) {
            Some(l) => format!("line {l}"),
            None => format!("call {}", e.call + 1),
        }
    }
    fn loc(&self, e: &PEv) -> String {
        e.loc.and_then(|l| self.loc_names.get(l).cloned()).unwrap_or_else(|| "?".into())
    }
    fn what(&self, e: &PEv) -> String {
        let x = self.loc(e);
        match e.ty {
            Ty::LR => format!("read of {x}"),
            Ty::LW => format!("write of {x}"),
            Ty::Cas => format!("CAS of {x}"),
            Ty::NLR => format!("put's local read of {x}"),
            Ty::NRW => format!("put's remote write of {x}"),
            Ty::NRR => format!("get's remote read of {x}"),
            Ty::NLW => format!("get's local write of {x}"),
            Ty::F => "fence".into(),
            Ty::P => "poll".into(),
            Ty::NF => "rfence".into(),
        }
    }
}

/// Fig. 5's prescription for a po pair not in gb: (code, text).
fn fig5_fix(model: Model, a: &PEv, b: &PEv) -> (&'static str, String) {
    let same = PreExec::sqp(a, b);
    let n = a.rnode.map(|n| n.to_string()).unwrap_or_else(|| "?".into());
    match a.ty {
        Ty::NLR => ("P", format!("poll the put (poll({n}) after it, before the later instruction; Fig. 5 B1-B5)")),
        Ty::NRW => {
            ("GP", format!("insert a get towards node {n} and poll it before the later instruction (Fig. 5 C1-C6)"))
        }
        Ty::NRR if same && b.ty != Ty::NLW => {
            ("F", format!("insert rfence({n}) between them, or poll the get (Fig. 5 D6-D8)"))
        }
        Ty::NRR => ("P", format!("poll the get (poll({n}) before the later instruction; Fig. 5 D1-D5)")),
        Ty::NLW if same && matches!(b.ty, Ty::NLR | Ty::NRW) => {
            ("F", format!("insert rfence({n}) between them, or poll the get (Fig. 5 E6-E7)"))
        }
        Ty::NLW => ("P", format!("poll the get (poll({n}) before the later instruction; Fig. 5 E1-E5, E8)")),
        _ if model == Model::Tso && a.ty == Ty::LW => {
            ("mfence", "insert an Mfence (or a CAS) between them (App. B.1: TSO store buffering)".to_string())
        }
        _ => ("?", "no fence of Fig. 5 applies".to_string()),
    }
}

/// Checks LDRF, fenced and tree-fenced (with their TSO versions for `Model::Tso`) on
/// one pre-execution. `oppo` is the model's (gb or gb_tso for fenced); LDRF always
/// uses gb with RDMA^sc's `oppo_sc` (App. B.2: "our notion of local data-race freedom
/// (Def. 7) remains unchanged under TSO and does not use the new definition of
/// gb_tso").
pub fn conditions(pe: &PreExec, model: Model, oppo_sc: &StampTable, oppo: &StampTable, places: &Places) -> Syntactic {
    let public = pe.public();
    let is_pub = |e: &PEv| e.loc.is_some_and(|l| public[l]);
    let mut out = Syntactic { ldrf: true, fenced: true, tree_fenced: true, ..Default::default() };
    let tname = |t: usize| places.thread_names.get(t).cloned().unwrap_or_else(|| format!("T{}", t + 1));
    for (t, evs) in pe.threads.iter().enumerate() {
        let gb = pe.gb(t, oppo);
        let gb_sc = if model == Model::Sc { gb.clone() } else { pe.gb(t, oppo_sc) };
        // ⇝* over E^pub \ t
        let qps = pe.qps(&|e: &PEv| e.thread != t && is_pub(e));
        let comp = pe.components(&qps);
        let connected = |n1: u32, n2: u32| n1 == n2 || (comp.contains_key(&n1) && comp.get(&n1) == comp.get(&n2));
        for i in 0..evs.len() {
            for j in i + 1..evs.len() {
                let (a, b) = (&evs[i], &evs[j]);
                // Def. 7: locally conflicting
                if !gb_sc.contains(i, j) && a.loc.is_some() && a.loc == b.loc && (a.ty.is_write() || b.ty.is_write()) {
                    out.ldrf = false;
                    let (fix, how) = fig5_fix(model, a, b);
                    out.push(Violation {
                        condition: "LDRF".into(),
                        thread: tname(t),
                        from: places.at(a),
                        to: Some(places.at(b)),
                        message: format!(
                            "not in gb ({} then {}: a data race within the thread, Def. 7): {how}",
                            places.what(a),
                            places.what(b)
                        ),
                        fix: fix.into(),
                    });
                    continue;
                }
                // Def. 8 / 13
                if !gb.contains(i, j) && is_pub(a) && is_pub(b) {
                    let (na, nb) = (a.loc.and_then(|l| pe.loc_nodes[l]), b.loc.and_then(|l| pe.loc_nodes[l]));
                    if let (Some(na), Some(nb)) = (na, nb) {
                        if connected(na, nb) {
                            out.fenced = false;
                            let (fix, how) = fig5_fix(model, a, b);
                            let via = if na == nb {
                                format!("both on node {na}")
                            } else {
                                format!("nodes {na} and {nb} communicate through other threads' queue pairs")
                            };
                            out.push(Violation {
                                condition: "fenced".into(),
                                thread: tname(t),
                                from: places.at(a),
                                to: Some(places.at(b)),
                                message: format!(
                                    "not in {} ({} then {} of public locations, {via}; Def. {}): {how}",
                                    if model == Model::Tso { "gb_tso" } else { "gb" },
                                    places.what(a),
                                    places.what(b),
                                    if model == Model::Tso { "13" } else { "8" }
                                ),
                                fix: fix.into(),
                            });
                        }
                    }
                }
            }
        }
        // Def. 9 (1): local locations of RDMA operations are private
        for e in evs {
            if matches!(e.ty, Ty::NLR | Ty::NLW) && is_pub(e) {
                out.tree_fenced = false;
                out.push(Violation {
                    condition: "tree-fenced".into(),
                    thread: tname(t),
                    from: places.at(e),
                    to: None,
                    message: format!(
                        "the {} is public (Def. 9 (1): local locations of RDMA operations must be private): copy \
                         through a location only this thread uses",
                        places.what(e)
                    ),
                    fix: "private copy".into(),
                });
            }
        }
        // Def. 9 (2): each get followed by an rfence (or polled) before the next remote
        // operation on its queue pair
        for i in 0..evs.len() {
            if evs[i].ty != Ty::NRR {
                continue;
            }
            for j in i + 1..evs.len() {
                let (a, b) = (&evs[i], &evs[j]);
                if !matches!(b.ty, Ty::NRR | Ty::NRW) || !PreExec::sqp(a, b) {
                    continue;
                }
                let fenced = (i + 1..j).any(|f| evs[f].ty == Ty::NF && PreExec::sqp(a, &evs[f]));
                let polled = i + 1 < evs.len() && evs[i + 1].ty == Ty::NLW && pe.pf[t][i + 1].is_some_and(|p| p < j);
                if !fenced && !polled {
                    out.tree_fenced = false;
                    let n = a.rnode.unwrap_or(0);
                    out.push(Violation {
                        condition: "tree-fenced".into(),
                        thread: tname(t),
                        from: places.at(a),
                        to: Some(places.at(b)),
                        message: format!(
                            "the get is not followed by rfence({n}) (nor polled) before the next remote operation \
                             towards node {n} (Def. 9 (2))"
                        ),
                        fix: "F".into(),
                    });
                }
                break;
            }
        }
        // Def. 14 (2): a fence between a public CPU write and a later public CPU read
        if model == Model::Tso {
            for i in 0..evs.len() {
                for j in i + 1..evs.len() {
                    let (a, b) = (&evs[i], &evs[j]);
                    if a.ty == Ty::LW && b.ty == Ty::LR && is_pub(a) && is_pub(b) {
                        let f = (i + 1..j).any(|f| matches!(evs[f].ty, Ty::F | Ty::Cas));
                        if !f {
                            out.tree_fenced = false;
                            out.push(Violation {
                                condition: "tree-fenced".into(),
                                thread: tname(t),
                                from: places.at(a),
                                to: Some(places.at(b)),
                                message: format!(
                                    "{} then {} of public locations with no Mfence or CAS between (Def. 14 (2))",
                                    places.what(a),
                                    places.what(b)
                                ),
                                fix: "mfence".into(),
                            });
                        }
                    }
                }
            }
        }
    }
    // Def. 9 (3): a single communication path between any two nodes
    let all = pe.qps(&|_| true);
    let mut edges: BTreeSet<(u32, u32)> = BTreeSet::new();
    for &(t, n) in &all {
        let m = pe.thread_nodes[t];
        edges.insert((m.min(n), m.max(n)));
    }
    let mut parent: BTreeMap<u32, u32> = BTreeMap::new();
    fn find(p: &mut BTreeMap<u32, u32>, x: u32) -> u32 {
        let mut r = x;
        while let Some(&q) = p.get(&r) {
            if q == r {
                break;
            }
            r = q;
        }
        r
    }
    for &(a, b) in &edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra == rb {
            out.tree_fenced = false;
            out.push(Violation {
                condition: "tree-fenced".into(),
                thread: "network".into(),
                from: format!("nodes {a} and {b}"),
                to: None,
                message: format!(
                    "the link {a}—{b} closes a cycle of communicating nodes (Def. 9 (3a)): two paths between them"
                ),
                fix: "tree topology".into(),
            });
        } else {
            parent.insert(ra, rb);
        }
    }
    for &(t1, n1) in &all {
        for &(t2, n2) in &all {
            if t1 < t2 && n1 == pe.thread_nodes[t2] && n2 == pe.thread_nodes[t1] {
                out.tree_fenced = false;
                out.push(Violation {
                    condition: "tree-fenced".into(),
                    thread: tname(t1),
                    from: format!("and {}", tname(t2)),
                    to: None,
                    message: format!(
                        "queue pairs in both directions between nodes {} and {} (Def. 9 (3b))",
                        pe.thread_nodes[t1], pe.thread_nodes[t2]
                    ),
                    fix: "tree topology".into(),
                });
            }
            if t1 < t2 && n1 == n2 && pe.thread_nodes[t1] == pe.thread_nodes[t2] {
                out.tree_fenced = false;
                out.push(Violation {
                    condition: "tree-fenced".into(),
                    thread: tname(t1),
                    from: format!("and {}", tname(t2)),
                    to: None,
                    message: format!(
                        "two threads of node {} have queue pairs towards node {n1} (Def. 9 (3c))",
                        pe.thread_nodes[t1]
                    ),
                    fix: "tree topology".into(),
                });
            }
        }
    }
    out.violations.sort();
    out.violations.dedup();
    out
}

// ---------------------------------------------------------------------------
// Executions: sc, ob, values
// ---------------------------------------------------------------------------

/// A named relation of a visited execution (empty when absent).
fn relation(v: &Visited, name: &str) -> BitRel {
    v.relations.iter().find(|(n, _)| n == name).map(|(_, r)| r.clone()).unwrap_or_else(|| BitRel::new(v.g.len()))
}

/// sc = po ∪ rf ∪ rb ∪ mo over the events (subevents) of a visited execution (Def. 5).
pub fn sc_of(v: &Visited) -> BitRel {
    let mut sc = v.g.po_with_internal();
    for n in ["rf", "rb", "mo"] {
        sc.union_with(&relation(v, n));
    }
    sc
}

/// The robustness paper's ob (Def. 4) / ob_tso (Def. 10) of a visited execution,
/// recomputed from its rf, mo, rb, pf and nfo and the model's tables (independently of
/// the library's check, which uses the RDMA paper's formulation).
pub fn ob_of(
    v: &Visited,
    model: Model,
    k: &Kinds,
    ippo_t: &StampTable,
    oppo_t: &StampTable,
    to: &StampTable,
) -> BitRel {
    let g = v.g;
    let n = g.len();
    let conv = |s: Stamp, t: &StampTable| -> Option<Stamp> {
        let name = &to.kinds[s.kind as usize];
        t.kind(name).map(|kind| Stamp { kind, node: s.node })
    };
    let po = g.po_with_internal();
    let table = |t: &StampTable| {
        po.filter(|a, b| match (conv(g.subs[a].stamp, t), conv(g.subs[b].stamp, t)) {
            (Some(x), Some(y)) => t.ordered(x, y),
            _ => false,
        })
    };
    let (ippo, oppo) = (table(ippo_t), table(oppo_t));
    let rf = relation(v, "rf");
    let rb = relation(v, "rb");
    let mo = relation(v, "mo");
    let pf = relation(v, "pf");
    let nfo = relation(v, "nfo");
    let kind = |s: usize| g.subs[s].stamp.kind;
    let thread = |s: usize| g.event_of(s).thread;
    let sthd = BitRel::from_fn(n, |a, b| thread(a) == thread(b));
    let (rf_b, rb_b) = match model {
        Model::Sc => (BitRel::new(n), BitRel::new(n)),
        Model::Tso => (
            rf.intersect(&sthd).restrict(|a| kind(a) == k.cw, |b| kind(b) == k.cr),
            rb.intersect(&sthd).restrict(|a| kind(a) == k.cr, |b| kind(b) == k.cw),
        ),
    };
    let mut ib = ippo;
    ib.union_with(&rf);
    ib.union_with(&pf);
    ib.union_with(&nfo);
    ib.union_with(&rb_b);
    ib.close_transitively();
    let inst = |s: usize| {
        let kd = kind(s);
        !(kd == k.nlw || kd == k.nrw || (model == Model::Tso && kd == k.cw))
    };
    let mut ob = oppo;
    ob.union_with(&rf.minus(&rf_b));
    ob.union_with(&pf.restrict(|a| kind(a) == k.nlw, |_| true));
    ob.union_with(&nfo);
    ob.union_with(&rb);
    ob.union_with(&mo);
    ob.union_with(&ib.restrict(inst, |_| true));
    ob.close_transitively();
    ob
}

/// A shortest cycle of `r` (as the list of its nodes), if any.
pub fn shortest_cycle(r: &BitRel) -> Option<Vec<usize>> {
    let n = r.size();
    let mut best: Option<Vec<usize>> = None;
    for s in 0..n {
        // BFS from s's successors back to s
        let mut prev = vec![usize::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        for b in 0..n {
            if r.contains(s, b) && prev[b] == usize::MAX {
                prev[b] = s;
                queue.push_back(b);
            }
        }
        let mut found = false;
        while let Some(x) = queue.pop_front() {
            if x == s {
                found = true;
                break;
            }
            for b in 0..n {
                if r.contains(x, b) && prev[b] == usize::MAX {
                    prev[b] = x;
                    queue.push_back(b);
                }
            }
        }
        if found {
            let mut cyc = vec![s];
            let mut x = prev[s];
            while x != s {
                cyc.push(x);
                x = prev[x];
            }
            cyc.reverse();
            // cyc: s's predecessor chain reversed ends at ... make it start at s
            let pos = cyc.iter().position(|&y| y == s).unwrap_or(0);
            cyc.rotate_left(pos);
            if best.as_ref().is_none_or(|b| cyc.len() < b.len()) {
                best = Some(cyc);
            }
        }
    }
    best
}

/// Values written and final memory of a visited execution (the engine's outcome
/// with registers from the unfoldings the execution takes).
fn outcome_of(v: &Visited, k: &Kinds) -> Outcome {
    let g = v.g;
    let rf = relation(v, "rf");
    let mo = relation(v, "mo");
    let call = |s: usize| -> &CallRecord {
        let e = g.event_of(s);
        &v.runs[e.thread].calls[e.index]
    };
    fn written(
        s: usize,
        g: &ExecGraph,
        k: &Kinds,
        rf: &BitRel,
        call: &dyn Fn(usize) -> CallRecord,
        depth: usize,
    ) -> Value {
        if depth > g.len() {
            return Value::Bot;
        }
        let c = call(s);
        let kd = g.subs[s].stamp.kind;
        if kd == k.cw {
            return c.args.get(1).cloned().unwrap_or(Value::Bot);
        }
        if kd == k.cas {
            return c.args.get(2).cloned().unwrap_or(Value::Bot);
        }
        // nrW / nlW copy what their event's first subevent read
        let ev = g.subs[s].event;
        let Some(&r) = g.subs_of[ev].first() else { return Value::Bot };
        match (0..g.len()).find(|&w| rf.contains(w, r)) {
            Some(w) => written(w, g, k, rf, call, depth + 1),
            None => {
                let l = loc_arg(&c.args, 1);
                l.map(|l| g.world.locs[l].init.clone()).unwrap_or(Value::Bot)
            }
        }
    }
    let callc = |s: usize| call(s).clone();
    let mut finals = BTreeMap::new();
    for (l, li) in g.world.locs.iter().enumerate() {
        if !li.implicit {
            finals.insert((l, None), li.init.clone());
        }
    }
    for s in 0..g.len() {
        let kd = g.subs[s].stamp.kind;
        let writes = kd == k.cw || kd == k.cas || kd == k.nrw || kd == k.nlw;
        if !writes {
            continue;
        }
        let last = !(0..g.len()).any(|w| mo.contains(s, w));
        if let (true, Some(l)) = (last, loc_arg(&call(s).args, 0)) {
            if let Some(slot) = finals.get_mut(&(l, None)) {
                *slot = written(s, g, k, &rf, &callc, 0);
            }
        }
    }
    Outcome { regs: v.runs.iter().map(|r| r.env.clone()).collect(), finals }
}

fn witness_of(v: &Visited, to: &StampTable) -> Witness {
    let mut events: Vec<Event> = v.g.events.clone();
    for e in &mut events {
        if let Some(c) = v.runs.get(e.thread).and_then(|r| r.calls.get(e.index)) {
            e.ret = c.ret.clone();
            e.args = c.args.clone();
        }
    }
    Witness {
        events,
        abstract_calls: vec![],
        relations: v.relations.iter().map(|(n, r)| (n.clone(), r.pairs().collect())).collect(),
        subevents: v.g.subs.iter().map(|s| (s.event, to.stamp_name(s.stamp))).collect(),
    }
}

// ---------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------

/// One edge of an sc cycle.
#[derive(Clone, Debug, Serialize)]
pub struct CycleStep {
    /// `T1 line 4 Get(a, x) aNRR_2`
    pub event: String,
    /// The relation to the next step: po, rf, rb or mo.
    pub edge: String,
}

/// The report of `mowgli robust` on one test.
#[derive(Clone, Debug, Serialize)]
pub struct RobustReport {
    pub file: String,
    pub name: String,
    pub model: Model,
    /// The exact check ran (without it, `robust` is Thm. 5's sufficient verdict).
    pub exact: bool,
    /// Def. 5 / 11: every consistent execution is SC-consistent.
    pub robust: bool,
    /// Every outcome is an SC outcome.
    pub outcome_robust: bool,
    pub executions: u64,
    /// Consistent executions with an sc cycle.
    pub cyclic: u64,
    pub outcomes: Vec<BTreeMap<String, String>>,
    pub sc_outcomes: Vec<BTreeMap<String, String>>,
    /// Outcomes no SC run has.
    pub non_sc_outcomes: Vec<BTreeMap<String, String>>,
    /// A consistent execution that is not SC-consistent (one with a non-SC outcome
    /// when there is one), its sc cycle and its outcome.
    pub cycle: Option<Vec<CycleStep>>,
    pub cycle_outcome: Option<BTreeMap<String, String>>,
    /// The cycle stays in one thread (Thm. 2, first case).
    pub cycle_single_thread: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dot: Option<String>,
    pub syntactic: Syntactic,
    /// A loop reached the unrolling bound: the check covers the bounded program.
    pub bounded: bool,
    pub micros: u128,
}

struct Found {
    outcome: Outcome,
    cycle: Vec<usize>,
    witness: Witness,
    relations: Vec<(String, BitRel)>,
}

/// The source line of each call of a straight-line body (`None` with control flow).
fn call_lines(body: &[Stmt]) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for s in body {
        match s {
            Stmt::Call(c) => out.push(c.method.pos.line),
            Stmt::Let { rhs: Rhs::Call(c), .. } | Stmt::Assign { rhs: Rhs::Call(c), .. } => out.push(c.method.pos.line),
            Stmt::Let { rhs: Rhs::Expr(_), .. } | Stmt::Assign { rhs: Rhs::Expr(_), .. } | Stmt::Value(_) => {}
            _ => return None,
        }
    }
    Some(out)
}

/// Unfolding hooks for pre-executions: calls return what the library returns, except
/// that a straight-line thread's CPU reads (whose values change no event of the
/// pre-execution there) return one value only.
struct PreHooks<'p, 'a> {
    p: &'p Problem<'a>,
    thread: usize,
    collapse: bool,
}

impl Hooks for PreHooks<'_, '_> {
    fn returns(&mut self, lib: usize, method: usize, args: &[Value], history: &[CallRecord]) -> Vec<Value> {
        let l = self.p.libs[lib];
        let mut vs = l.returns_after(&self.p.world, self.thread, lib, history, method, args, &self.p.domain);
        if self.collapse && l.symbolic_return(method) {
            vs.truncate(1);
        }
        vs
    }
}

fn input_error(file: &str, line: usize, col: usize, msg: String) -> InputError {
    if line == 0 {
        InputError::whole_file(file, msg)
    } else {
        InputError::new(mowgli_diag::Pos { line, col }, msg).in_file(file, "")
    }
}

/// The model a test runs under: `model` if given, else the one its `libraries` line names.
fn model_of(file: &str, text: &str, ast: &syntax::Litmus, model: Option<Model>) -> Result<(Model, String), InputError> {
    let named: Vec<&syntax::Name> =
        ast.libraries.iter().filter(|n| matches!(n.text.as_str(), "rdmatso" | "rdmasc")).collect();
    let pos = ast.libraries_pos.map(|p| (p.line, p.col)).unwrap_or((1, 1));
    if ast.libraries.len() != 1 || named.len() != 1 {
        let msg = format!(
            "`mowgli robust` checks programs over `rdmatso` (RDMA^TSO) or `rdmasc` (RDMA^sc) alone; this test lists {}",
            ast.libraries.iter().map(|n| n.text.as_str()).collect::<Vec<_>>().join(", ")
        );
        // the source text places the caret on the `libraries` line
        return Err(InputError::new(mowgli_diag::Pos { line: pos.0, col: pos.1 }, msg).in_file(file, text));
    }
    let from = named[0].text.clone();
    let m = model.unwrap_or(if from == "rdmasc" { Model::Sc } else { Model::Tso });
    Ok((m, from))
}

/// `mowgli robust` on one litmus test given as text.
pub fn check_text(
    file: &str,
    text: &str,
    order: &StampOrder,
    model: Option<Model>,
) -> Result<RobustReport, InputError> {
    check_text_with(file, text, order, model, true)
}

/// [`check_text`]; without `exact` only the syntactic conditions are checked (the
/// report's `robust` is then Thm. 5's verdict, sound but not complete).
pub fn check_text_with(
    file: &str,
    text: &str,
    order: &StampOrder,
    model: Option<Model>,
    exact: bool,
) -> Result<RobustReport, InputError> {
    let start = std::time::Instant::now();
    let ast0 = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    let (model, from) = model_of(file, text, &ast0, model)?;
    let text = if from != model.library() {
        crate::analyses::explore::rename_library(text, &from, model.library())
    } else {
        text.to_string()
    };
    let ast = syntax::parse(&text).map_err(|e| e.in_file(file, &text))?;
    let mut low = lower::lower(&ast, order).map_err(|e| e.in_file(file, &text))?;
    low.shown_locs = low.world.locs.iter().enumerate().filter(|(_, l)| !l.implicit).map(|(i, _)| (i, None)).collect();
    let to = order.table("to").ok_or_else(|| input_error(file, 1, 1, "the stamp order has no table `to`".into()))?;
    let (_, oppo_t) = model
        .tables(order)
        .ok_or_else(|| input_error(file, 1, 1, format!("the stamp order lacks the tables of {}", model.library())))?;
    let (_, oppo_sc) = Model::Sc
        .tables(order)
        .ok_or_else(|| input_error(file, 1, 1, "the stamp order lacks the tables of rdmasc".into()))?;
    let k = Kinds::of(to).map_err(|e| input_error(file, 1, 1, e.to_string()))?;
    let prob = lower::problem(&low, to);
    // lines of calls
    let mut lines: Vec<Option<Vec<usize>>> = vec![Some(Vec::new()); low.world.threads.len()];
    for (name, body) in &ast.bodies {
        if let Some(t) = low.world.threads.iter().position(|th| th.name == name.text) {
            lines[t] = match (lines[t].take(), call_lines(body)) {
                (Some(mut a), Some(b)) => {
                    a.extend(b);
                    Some(a)
                }
                _ => None,
            };
        }
    }
    let places = Places {
        thread_names: low.world.threads.iter().map(|t| t.name.clone()).collect(),
        lines: lines.clone(),
        loc_names: low.world.locs.iter().map(|l| l.name.clone()).collect(),
        _p: std::marker::PhantomData,
    };
    // the syntactic conditions, on every pre-execution
    let (syntactic, syntactic_bound) = syntactic_of(&prob, &k, model, (oppo_sc, oppo_t), &places, &lines)
        .map_err(|e| input_error(file, 1, 1, e.to_string()))?;
    // the exact check: every consistent execution
    let mut outcomes: BTreeSet<Outcome> = BTreeSet::new();
    let mut sc_outcomes: BTreeSet<Outcome> = BTreeSet::new();
    let mut found: BTreeMap<Outcome, Found> = BTreeMap::new();
    let (mut executions, mut cyclic) = (0u64, 0u64);
    let mut visit = |v: &Visited| -> bool {
        executions += 1;
        let o = outcome_of(v, &k);
        let sc = sc_of(v);
        outcomes.insert(o.clone());
        if sc.is_acyclic() {
            sc_outcomes.insert(o);
        } else {
            cyclic += 1;
            if !found.contains_key(&o) {
                let mut po = v.g.po_with_internal();
                po.close_transitively();
                let cycle = shortest_cycle(&sc).unwrap_or_default();
                let mut relations = v.relations.clone();
                relations.push(("po".into(), po));
                found.insert(o.clone(), Found { outcome: o, cycle, witness: witness_of(v, to), relations });
            }
        }
        true
    };
    if exact {
        explicit::for_each_execution(&prob, &mut visit).map_err(|e| input_error(file, 1, 1, e.to_string()))?;
    }
    let unfolded_bound = syntactic_bound
        || (exact && (0..prob.threads.len()).any(|t| explicit::unfold_thread(&prob, t).is_ok_and(|u| u.bound_hit)));
    let non_sc: Vec<&Outcome> = outcomes.iter().filter(|o| !sc_outcomes.contains(o)).collect();
    let pick = non_sc.first().and_then(|o| found.get(*o)).or_else(|| found.values().next());
    let show = |o: &Outcome| lower::show_outcome(&low, o);
    let sufficient = syntactic.sufficient();
    let mut report = RobustReport {
        file: file.to_string(),
        name: low.name.clone(),
        model,
        exact,
        robust: if exact { cyclic == 0 } else { sufficient },
        outcome_robust: if exact { non_sc.is_empty() } else { sufficient },
        executions,
        cyclic,
        outcomes: outcomes.iter().map(show).collect(),
        sc_outcomes: sc_outcomes.iter().map(show).collect(),
        non_sc_outcomes: non_sc.iter().map(|o| show(o)).collect(),
        cycle: None,
        cycle_outcome: None,
        cycle_single_thread: None,
        execution: None,
        dot: None,
        syntactic,
        bounded: unfolded_bound,
        micros: 0,
    };
    if let Some(f) = pick {
        let w = &f.witness;
        let label = |s: usize| {
            let e = &w.events[w.subevents[s].0];
            let place = places.at(&PEv { thread: e.thread, call: e.index, ty: Ty::F, loc: None, rnode: None, sub: s });
            let m = low.libs[e.lib].methods()[e.method].name;
            let args: Vec<String> = e.args.iter().map(|a| low.world.show(a)).collect();
            format!("{} {place} {m}({}) {}", low.world.threads[e.thread].name, args.join(", "), w.subevents[s].1)
        };
        let mut steps = Vec::new();
        let cyc = &f.cycle;
        for (i, &a) in cyc.iter().enumerate() {
            let b = cyc[(i + 1) % cyc.len()];
            let edge = ["rf", "rb", "mo", "po"]
                .iter()
                .find(|n| f.relations.iter().any(|(rn, r)| rn == *n && r.contains(a, b)))
                .map(|n| n.to_string())
                .unwrap_or_else(|| "?".into());
            steps.push(CycleStep { event: label(a), edge });
        }
        let threads: BTreeSet<usize> = cyc.iter().map(|&s| w.events[w.subevents[s].0].thread).collect();
        report.cycle_single_thread = Some(threads.len() == 1);
        let mut text = litmus::render_execution(&low, &f.outcome, w);
        text += "sc cycle:";
        for s in &steps {
            text += &format!(" {} -{}->", s.event, s.edge);
        }
        if let Some(first) = steps.first() {
            text += &format!(" {}\n", first.event);
        }
        let mut dot = litmus::dot_execution(&low, &f.outcome, w);
        if dot.ends_with("}\n") {
            dot.truncate(dot.len() - 2);
            for (i, &a) in cyc.iter().enumerate() {
                let b = cyc[(i + 1) % cyc.len()];
                dot += &format!(
                    "  s{a} -> s{b} [label=\"sc cycle: {}\", color=red, fontcolor=red, penwidth=2];\n",
                    steps[i].edge
                );
            }
            dot += "}\n";
        }
        report.cycle_outcome = Some(show(&f.outcome));
        report.cycle = Some(steps);
        report.execution = Some(text);
        report.dot = Some(dot);
    }
    report.micros = start.elapsed().as_micros();
    Ok(report)
}

/// The syntactic conditions over every pre-execution of the program (they must hold
/// of each; the violations of all are reported).
fn syntactic_of(
    prob: &Problem,
    k: &Kinds,
    model: Model,
    (oppo_sc, oppo): (&StampTable, &StampTable),
    places: &Places,
    lines: &[Option<Vec<usize>>],
) -> Result<(Syntactic, bool), explicit::EngineError> {
    let mut per_thread: Vec<Vec<Vec<CallRecord>>> = Vec::new();
    let mut bound_hit = false;
    for t in 0..prob.threads.len() {
        let (body, nregs) = &prob.threads[t];
        let mut h = PreHooks { p: prob, thread: t, collapse: lines[t].is_some() };
        let u = unfold_with(body, t, *nregs, prob.loop_bound, &mut h)?;
        bound_hit |= u.bound_hit;
        let mut skels: Vec<Vec<CallRecord>> = Vec::new();
        for r in u.runs.into_iter().filter(|r| r.breaks == 0) {
            // the skeleton: calls up to read values (a CAS keeps whether it succeeds)
            let mut calls = r.calls;
            for c in &mut calls {
                if c.method == rdma::READ {
                    c.ret = Value::Unit;
                }
            }
            if !skels.contains(&calls) {
                skels.push(calls);
            }
        }
        per_thread.push(skels);
    }
    let mut out = Syntactic { ldrf: true, fenced: true, tree_fenced: true, ..Default::default() };
    if per_thread.iter().any(|s| s.is_empty()) {
        return Ok((out, bound_hit));
    }
    let mut choice = vec![0usize; per_thread.len()];
    loop {
        let mut events = Vec::new();
        for (t, skels) in per_thread.iter().enumerate() {
            for (i, c) in skels[choice[t]].iter().enumerate() {
                let CallRecord { lib, method, args, ret, origin } = c.clone();
                events.push(Event { thread: t, index: i, lib, method, args, ret, origin });
            }
        }
        let g = explicit::graph(prob, events);
        let pe = PreExec::of_graph(&g, k);
        let s = conditions(&pe, model, oppo_sc, oppo, places);
        out.ldrf &= s.ldrf;
        out.fenced &= s.fenced;
        out.tree_fenced &= s.tree_fenced;
        out.violations_total += s.violations_total;
        for v in s.violations {
            if out.violations.len() < MAX_VIOLATIONS && !out.violations.contains(&v) {
                out.violations.push(v);
            }
        }
        let mut t = 0;
        loop {
            if t == choice.len() {
                return Ok((out, bound_hit));
            }
            choice[t] += 1;
            if choice[t] < per_thread[t].len() {
                break;
            }
            choice[t] = 0;
            t += 1;
        }
    }
}

/// `mowgli robust` on one file.
pub fn check_file(path: &Path, order: &StampOrder, model: Option<Model>) -> Result<RobustReport, InputError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| input_error(&file, 0, 0, format!("cannot read: {e}")))?;
    check_text(&file, &text, order, model)
}

/// Human-readable report of one test.
pub fn render(r: &RobustReport) -> String {
    let mut s = format!("test {} ({}) under {}\n", r.name, r.file, r.model.library());
    let verdict = |b: bool| if b { "robust" } else { "NOT robust" };
    if !r.exact {
        s += &format!(
            "  exact check skipped (--syntactic): {} by the sufficient conditions (Thm. 5)\n",
            if r.robust { "robust" } else { "not shown robust" }
        );
    }
    if r.exact {
        s += &format!(
            "  execution robustness (Def. {}): {} ({} of {} consistent executions have an sc cycle)\n",
            if r.model == Model::Tso { "11" } else { "5" },
            verdict(r.robust),
            r.cyclic,
            r.executions
        );
        s += &format!(
            "  outcome robustness: {} ({} outcomes, {} of them SC)\n",
            verdict(r.outcome_robust),
            r.outcomes.len(),
            r.sc_outcomes.len()
        );
        for o in &r.non_sc_outcomes {
            s += &format!("    no SC run has: {}\n", crate::analyses::generate::outcome_text(o));
        }
    }
    if let (Some(steps), Some(o)) = (&r.cycle, &r.cycle_outcome) {
        s += &format!(
            "  a consistent execution with an sc cycle{} (outcome {}):\n",
            if r.cycle_single_thread == Some(true) { " within one thread" } else { "" },
            crate::analyses::generate::outcome_text(o)
        );
        if let Some(x) = &r.execution {
            for l in x.lines() {
                s += &format!("    {l}\n");
            }
        }
        let _ = steps;
    }
    let y = |b: bool| if b { "holds" } else { "fails" };
    let syn = &r.syntactic;
    let (f, tf) = if r.model == Model::Tso { ("Def. 13", "Def. 14") } else { ("Def. 8", "Def. 9") };
    s += &format!(
        "  syntactic: LDRF (Def. 7) {}, fenced ({f}) {}, tree-fenced ({tf}) {}: {}\n",
        y(syn.ldrf),
        y(syn.fenced),
        y(syn.tree_fenced),
        if syn.sufficient() {
            "robust by Thm. 5".to_string()
        } else if syn.ldrf && syn.tree_fenced {
            "robust by Cor. 1".to_string()
        } else {
            "the sufficient conditions do not show robustness".to_string()
        }
    );
    for v in &syn.violations {
        s += &format!("    {}: {}\n", v.condition, v.render());
    }
    if syn.violations_total > syn.violations.len() {
        s += &format!("    … {} violations in all, the first {} shown\n", syn.violations_total, syn.violations.len());
    }
    if r.bounded {
        s += "  note: a loop reached the unrolling bound; the check covers the bounded program\n";
    }
    s
}

/// `mowgli robust PATH... [--model M] [--json] [--dot DIR]`: runs the check on every
/// test, prints the human reports (unless `json`), and returns the verdict and the
/// JSON document. Verdict: `verified` (0) every test is robust, `counterexample` (1)
/// one is not, `error` (2) an input is malformed (reported on stderr), `inconclusive`
/// (3) none is refuted but a loop reached its unrolling bound.
pub fn cli(
    paths: &[std::path::PathBuf],
    model: Option<&str>,
    json: bool,
    dot: Option<&Path>,
    fix_out: Option<Option<&Path>>,
    exact: bool,
    order: &StampOrder,
) -> (crate::analyses::verdict::Decided, Option<serde_json::Value>) {
    use crate::analyses::verdict::{Decided, Verdict};
    let err = |msg: String| {
        eprintln!("{msg}");
        (
            Decided::new(Verdict::Error, msg.lines().next().unwrap_or_default().to_string()),
            json.then(|| serde_json::json!({ "errors": [msg] })),
        )
    };
    let model = match model {
        None => None,
        Some(m) => match Model::parse(m) {
            Some(m) => Some(m),
            None => return err(format!("--model {m}: expected `rdmasc` or `rdmatso`")),
        },
    };
    let files = match litmus::collect(paths) {
        Ok(f) => f,
        Err(e) => return err(e.to_string()),
    };
    if let Some(d) = dot {
        if let Err(e) = std::fs::create_dir_all(d) {
            return err(format!("{}: cannot create: {e}", d.display()));
        }
    }
    let mut reports = Vec::new();
    let mut fixes = Vec::new();
    let mut errors = Vec::new();
    for f in &files {
        let checked = std::fs::read_to_string(f)
            .map_err(|e| input_error(&f.display().to_string(), 0, 0, format!("cannot read: {e}")))
            .and_then(|text| check_text_with(&f.display().to_string(), &text, order, model, exact));
        match checked {
            Ok(r) => {
                if !json {
                    print!("{}", render(&r));
                }
                if let Some(out_dir) = fix_out {
                    let text = std::fs::read_to_string(f).unwrap_or_default();
                    let mut pair = Vec::new();
                    for goal in [FixGoal::Syntactic, FixGoal::Exact] {
                        match fix(&r.file, &text, order, r.model, goal) {
                            Ok(fx) => {
                                if !json {
                                    print!("{}", render_fix(&fx, goal));
                                }
                                if let (Some(d), Some(fx)) = (out_dir, &fx) {
                                    let tag = if goal == FixGoal::Exact { "exact" } else { "syntactic" };
                                    let p = d.join(format!("{}-fixed-{tag}.litmus", r.name));
                                    let w = std::fs::create_dir_all(d).and_then(|_| std::fs::write(&p, &fx.text));
                                    if let Err(e) = w {
                                        errors.push(format!("{}: cannot write: {e}", p.display()));
                                    }
                                }
                                pair.push(fx);
                            }
                            Err(e) => errors.push(e.to_string()),
                        }
                    }
                    fixes.push(serde_json::json!({ "test": r.name, "syntactic": pair.first(), "exact": pair.get(1) }));
                }
                if let (Some(d), Some(text)) = (dot, &r.dot) {
                    let p = d.join(format!("{}.dot", r.name));
                    if let Err(e) = std::fs::write(&p, text) {
                        errors.push(format!("{}: cannot write: {e}", p.display()));
                    }
                }
                reports.push(r);
            }
            Err(e) => {
                eprintln!("{e}");
                errors.push(e.to_string());
            }
        }
    }
    let not_robust = reports.iter().filter(|r| !r.robust).count();
    let bounded = reports.iter().any(|r| r.bounded);
    let verdict = Verdict::of(!errors.is_empty(), not_robust > 0, !bounded);
    let why = format!(
        "{} of {} tests robust, {} not robust{}{}",
        reports.len() - not_robust,
        reports.len(),
        not_robust,
        if errors.is_empty() { String::new() } else { format!(", {} malformed", errors.len()) },
        if bounded { "; bounded: a loop reached the unrolling bound" } else { "" }
    );
    let doc = json.then(|| serde_json::json!({ "tests": reports, "fixes": fixes, "errors": errors }));
    (Decided::new(verdict, why), doc)
}

/// What the theorems say about the executions of one program (for the theorem tests).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TheoremFacts {
    pub executions: u64,
    /// Thm. 1 / 13: pairs in gb (gb_tso) of the execution's pre-execution that are not
    /// in its ob (ob_tso) — each a counterexample to the theorem (or to our reading).
    pub gb_not_ob: Vec<String>,
    /// Thm. 3 / 15: executions whose pre-execution is LDRF but whose sc ∩ sthd has a cycle.
    pub ldrf_single_thread_cycles: u64,
    /// Executions whose sc has a cycle.
    pub cyclic: u64,
}

/// Visits every consistent execution of the test and checks Thm. 1/13 (gb ⊆ ob, with
/// the robustness paper's ob recomputed by [`ob_of`]) and Thm. 3/15 (LDRF ⇒ sc ∩ sthd
/// acyclic) on each.
pub fn theorem_facts(text: &str, order: &StampOrder, model: Model) -> Result<TheoremFacts, InputError> {
    let file = "<text>";
    let ast0 = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    let (model, from) = model_of(file, text, &ast0, Some(model))?;
    let text = crate::analyses::explore::rename_library(text, &from, model.library());
    let ast = syntax::parse(&text).map_err(|e| e.in_file(file, &text))?;
    let low = lower::lower(&ast, order).map_err(|e| e.in_file(file, &text))?;
    let to = order.table("to").ok_or_else(|| input_error(file, 1, 1, "no table `to`".into()))?;
    let (ippo_t, oppo_t) =
        model.tables(order).ok_or_else(|| input_error(file, 1, 1, "the model's tables are missing".into()))?;
    let k = Kinds::of(to).map_err(|e| input_error(file, 1, 1, e.to_string()))?;
    let (_, oppo_sc) = Model::Sc.tables(order).ok_or_else(|| input_error(file, 1, 1, "no rdmasc tables".into()))?;
    let prob = lower::problem(&low, to);
    let places = Places {
        thread_names: low.world.threads.iter().map(|t| t.name.clone()).collect(),
        lines: vec![None; low.world.threads.len()],
        loc_names: low.world.locs.iter().map(|l| l.name.clone()).collect(),
        _p: std::marker::PhantomData,
    };
    let mut facts = TheoremFacts::default();
    let mut visit = |v: &Visited| -> bool {
        facts.executions += 1;
        let pe = PreExec::of_graph(v.g, &k);
        let ob = ob_of(v, model, &k, ippo_t, oppo_t, to);
        for (t, evs) in pe.threads.iter().enumerate() {
            let gb = pe.gb(t, oppo_t);
            for (i, j) in gb.pairs() {
                if !ob.contains(evs[i].sub, evs[j].sub) && facts.gb_not_ob.len() < 10 {
                    facts.gb_not_ob.push(format!(
                        "thread {t}: {} (call {}) gb-before {} (call {}) but not ob-before",
                        evs[i].ty.paper(),
                        evs[i].call,
                        evs[j].ty.paper(),
                        evs[j].call
                    ));
                }
            }
        }
        let sc = sc_of(v);
        if !sc.is_acyclic() {
            facts.cyclic += 1;
        }
        let syn = conditions(&pe, model, oppo_sc, oppo_t, &places);
        if syn.ldrf {
            let g = v.g;
            let sthd = BitRel::from_fn(g.len(), |a, b| g.event_of(a).thread == g.event_of(b).thread);
            if !sc.intersect(&sthd).is_acyclic() {
                facts.ldrf_single_thread_cycles += 1;
            }
        }
        true
    };
    explicit::for_each_execution(&prob, &mut visit).map_err(|e| input_error(file, 1, 1, e.to_string()))?;
    Ok(facts)
}

// ---------------------------------------------------------------------------
// Fence synthesis (`--fix`)
// ---------------------------------------------------------------------------

/// What a fix must achieve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FixGoal {
    /// LDRF ∧ fenced (Thm. 5 / 17).
    Syntactic,
    /// Robust by the exact check.
    Exact,
}

/// One inserted instruction.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Insertion {
    pub thread: String,
    /// Inserted after this source line.
    pub after_line: usize,
    pub instr: String,
    /// Rfence 1, Mfence 2, Poll 3 (§2.1 and §5: a poll blocks the thread, an rfence
    /// only its queue pair).
    pub cost: u32,
}

/// A smallest set of insertions (by count, then by cost) reaching the goal, and the
/// fixed program (checked: it has executions and reaches the goal).
#[derive(Clone, Debug, Serialize)]
pub struct Fix {
    pub goal: FixGoal,
    pub insertions: Vec<Insertion>,
    pub text: String,
    /// Fixed programs checked during the search.
    pub tried: usize,
}

/// Most insertions `fix` tries.
pub const MAX_FIX: usize = 3;

/// Searches a smallest set of polls, rfences (and, under RDMA^TSO, mfences) between
/// the instructions of straight-line threads that makes the test reach `goal`; `None`
/// when none of at most [`MAX_FIX`] insertions does (or a thread has control flow).
pub fn fix(file: &str, text: &str, order: &StampOrder, model: Model, goal: FixGoal) -> Result<Option<Fix>, InputError> {
    let reached = |r: &RobustReport| {
        r.executions > 0
            && match goal {
                FixGoal::Syntactic => r.syntactic.sufficient(),
                FixGoal::Exact => r.robust,
            }
    };
    let base = check_text(file, text, order, Some(model))?;
    if reached(&base) {
        return Ok(Some(Fix { goal, insertions: vec![], text: text.to_string(), tried: 1 }));
    }
    if base.executions == 0 {
        return Ok(None);
    }
    let ast = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    let mut nodes: BTreeSet<i64> = ast.threads.iter().map(|(_, n)| *n).collect();
    nodes.extend(ast.locs.iter().filter_map(|d| d.node));
    // candidate insertions: after every call but a thread's last
    let mut cands: Vec<(usize, Insertion)> = Vec::new();
    for (name, body) in &ast.bodies {
        let Some(lines) = call_lines(body) else { return Ok(None) };
        let Some(&(_, here)) = ast.threads.iter().find(|(n, _)| n.text == name.text) else { continue };
        let indent = body.first().map(|_| "  ").unwrap_or("  ");
        for &l in lines.iter().take(lines.len().saturating_sub(1)) {
            for &n in nodes.iter().filter(|&&n| n != here) {
                for (instr, cost) in [(format!("Rfence({n})"), 1), (format!("Poll({n})"), 3)] {
                    cands.push((
                        l,
                        Insertion { thread: name.text.clone(), after_line: l, instr: format!("{indent}{instr}"), cost },
                    ));
                }
            }
            if model == Model::Tso {
                cands.push((
                    l,
                    Insertion { thread: name.text.clone(), after_line: l, instr: format!("{indent}Mfence()"), cost: 2 },
                ));
            }
        }
    }
    let src: Vec<&str> = text.lines().collect();
    let mut tried = 1;
    for k in 1..=MAX_FIX.min(cands.len()) {
        // every k-subset, cheapest first
        let mut subsets: Vec<(u32, Vec<usize>)> = Vec::new();
        let mut idx: Vec<usize> = (0..k).collect();
        loop {
            subsets.push((idx.iter().map(|&i| cands[i].1.cost).sum(), idx.clone()));
            let mut i = k;
            let mut advanced = false;
            while i > 0 {
                i -= 1;
                if idx[i] < cands.len() - k + i {
                    idx[i] += 1;
                    for j in i + 1..k {
                        idx[j] = idx[j - 1] + 1;
                    }
                    advanced = true;
                    break;
                }
            }
            if !advanced {
                break;
            }
        }
        subsets.sort();
        for (_, set) in subsets {
            let mut out = String::new();
            for (ln, line) in src.iter().enumerate() {
                out += line;
                out.push('\n');
                for &c in &set {
                    if cands[c].0 == ln + 1 {
                        out += &cands[c].1.instr;
                        out.push('\n');
                    }
                }
            }
            tried += 1;
            let r = match check_text(file, &out, order, Some(model)) {
                Ok(r) => r,
                Err(_) => continue,
            };
            if reached(&r) {
                let insertions = set
                    .iter()
                    .map(|&c| {
                        let mut i = cands[c].1.clone();
                        i.instr = i.instr.trim().to_string();
                        i
                    })
                    .collect();
                return Ok(Some(Fix { goal, insertions, text: out, tried }));
            }
        }
    }
    Ok(None)
}

/// The fix as one line.
pub fn render_fix(f: &Option<Fix>, goal: FixGoal) -> String {
    let what = match goal {
        FixGoal::Syntactic => "LDRF ∧ fenced (Thm. 5)",
        FixGoal::Exact => "robust (exact check)",
    };
    match f {
        None => format!("  fix for {what}: none with at most {MAX_FIX} polls/rfences/mfences\n"),
        Some(f) if f.insertions.is_empty() => format!("  fix for {what}: nothing to insert\n"),
        Some(f) => format!(
            "  fix for {what}: insert {} (verified; {} programs checked)\n",
            f.insertions
                .iter()
                .map(|i| format!("{} after {} line {}", i.instr, i.thread, i.after_line))
                .collect::<Vec<_>>()
                .join(", "),
            f.tried
        ),
    }
}
