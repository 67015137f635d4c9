//! Deciding the obligations of one implementation execution: f (O0), g and its
//! promises (O1), and the abstract witnesses (O2, O3), explicitly.

use std::collections::BTreeMap;

use mowgli_core::program::Unfolding;
use mowgli_core::{BitRel, Event, ExecGraph, Stamp, StampTable, WitnessSearch};

use super::Obligation;
use crate::analyses::refine::Setup;
use crate::engines::explicit::Visited;
use crate::lang::maps::{self, ConcMap, MapEntry};

/// The subevents of 𝒢 that implement abstract event `e'` (thread t, index i): f⁻¹(e').
pub(super) fn preimage(g: &ExecGraph, t: usize, i: usize) -> Vec<usize> {
    (0..g.len()).filter(|&s| g.event_of(s).thread == t && g.event_of(s).origin == Some(i)).collect()
}

/// Every stamp a subevent of this world can carry: single stamps, and family
/// members for every node plus one node no event uses (so that "another node"
/// is represented even in a one-node world).
pub(super) fn universe(to: &StampTable, nodes: &[u32]) -> Vec<Stamp> {
    let mut out = Vec::new();
    let fresh = nodes.iter().max().copied().unwrap_or(0) + 1;
    for k in 0..to.kinds.len() {
        if to.family[k] {
            for &n in nodes.iter().chain(std::iter::once(&fresh)) {
                out.push(Stamp { kind: k as u8, node: Some(n) });
            }
        } else {
            out.push(Stamp { kind: k as u8, node: None });
        }
    }
    out
}

/// O1 for one abstract subevent with stamp `a'` mapped to `target`: the first
/// promise that fails, as text.
pub(super) fn o1_violation(
    to: &StampTable,
    universe: &[Stamp],
    g: &ExecGraph,
    hb_star: &BitRel,
    pre: &[usize],
    a: Stamp,
    target: usize,
) -> Option<String> {
    for &a0 in universe {
        if to.ordered(a0, a) {
            // an entry point ⟨e1, a1⟩ ∈ f⁻¹(e') with (a0, a1) ∈ to and ⟨e1, a1⟩ hb* g(s')
            let ok = pre.iter().any(|&s1| to.ordered(a0, g.subs[s1].stamp) && hb_star.contains(s1, target));
            if !ok {
                return Some(format!(
                    "({}, {}) ∈ to, but no subevent of the implementation with a stamp a1 such that ({}, a1) ∈ to happens (hb*) before g = {}",
                    to.stamp_name(a0),
                    to.stamp_name(a),
                    to.stamp_name(a0),
                    to.stamp_name(g.subs[target].stamp)
                ));
            }
        }
        if to.ordered(a, a0) {
            let ok = pre.iter().any(|&s2| to.ordered(g.subs[s2].stamp, a0) && hb_star.contains(target, s2));
            if !ok {
                return Some(format!(
                    "({}, {}) ∈ to, but no subevent of the implementation with a stamp a2 such that (a2, {}) ∈ to happens (hb*) after g = {}",
                    to.stamp_name(a),
                    to.stamp_name(a0),
                    to.stamp_name(a0),
                    to.stamp_name(g.subs[target].stamp)
                ));
            }
        }
    }
    None
}

/// The abstract plain execution ⟨E', po'⟩ of a consistent implementation execution.
pub(super) fn abstract_events(v: &Visited) -> Vec<Event> {
    abstract_events_of(&v.runs)
}

/// The abstract events of the unfoldings `runs` (one per thread).
pub(super) fn abstract_events_of(runs: &[&Unfolding]) -> Vec<Event> {
    let mut out = Vec::new();
    for (t, run) in runs.iter().enumerate() {
        for (i, c) in run.abstract_calls.iter().enumerate() {
            out.push(Event {
                thread: t,
                index: i,
                lib: 0,
                method: c.method,
                args: c.args.clone(),
                ret: c.ret.clone(),
                origin: None,
            });
        }
    }
    out
}

/// Checks O0 (Def. 3.11) on one execution: every implementation event implements
/// an abstract call of its thread, f is monotone along po and po' is reflected (the
/// abstract index never decreases in program order), and f is onto every abstract
/// call that has subevents. The third condition (each f⁻¹(e') is a run of e''s
/// body with e''s return value) holds by construction of the unfolding.
pub(super) fn o0_violation(v: &Visited, abs: &[Event], abs_g: &ExecGraph) -> Option<(usize, String)> {
    let g = v.g;
    for (ei, e) in g.events.iter().enumerate() {
        let Some(o) = e.origin else {
            return Some((usize::MAX, format!("event {ei} of thread {} implements no abstract call", e.thread)));
        };
        for e2 in g.events.iter().filter(|e2| e2.thread == e.thread && e2.index > e.index) {
            if e2.origin.is_some_and(|o2| o2 < o) {
                return Some((
                    o,
                    format!("thread {}: f(po) ⊄ po'* (call {} after call {})", e.thread, e2.index, e.index),
                ));
            }
        }
    }
    for (ai, a) in abs.iter().enumerate() {
        if !abs_g.subs_of[ai].is_empty() && !g.events.iter().any(|e| e.thread == a.thread && e.origin == Some(a.index))
        {
            return Some((
                ai,
                format!("abstract call {} of thread {} has no implementation event (f not onto)", a.index, a.thread),
            ));
        }
    }
    None
}

/// The per-execution verdict of O2/O3 over all L-witnesses of the abstract execution.
pub(super) enum WitnessVerdict {
    Ok,
    /// Some witness is L-consistent under g⁻¹(hb), but none has g(so') ⊆ hb: the
    /// first such witness's missing edge (and its abstract subevents).
    O2(String, usize, usize),
    /// No witness is L-consistent (for the admissible hb').
    O3(String),
}

pub(super) fn check_witnesses(
    search: &mut dyn WitnessSearch,
    abs_g: &ExecGraph,
    gmap: &[usize],
    hb: &BitRel,
    to: &StampTable,
    impl_g: &ExecGraph,
) -> WitnessVerdict {
    let n = abs_g.len();
    // g⁻¹(hb): the largest admissible hb'
    let back = BitRel::from_fn(n, |a, b| hb.contains(gmap[a], gmap[b]));
    let vars: Vec<usize> = {
        let mut v: Vec<usize> = (0..search.num_vars()).collect();
        v.sort_by_key(|&v| search.domain(v));
        v
    };
    if vars.iter().any(|&v| search.domain(v) == 0) {
        return WitnessVerdict::O3(
            "no witness: some abstract read has no write (nor the initial value) to read from".into(),
        );
    }
    // fast path: a witness with L's conditions, g(so') ⊆ hb and hb's conditions,
    // pruning partial witnesses on all three (so' only grows as variables are fixed)
    if dfs_witness(search, abs_g, &back, &vars, 0, true).is_some() {
        return WitnessVerdict::Ok;
    }
    // refuted: classify with a search that does not require O2
    match dfs_witness(search, abs_g, &back, &vars, 0, false) {
        Some(so) => {
            let (a, b) = so.pairs().find(|&(a, b)| !back.contains(a, b)).unwrap_or((0, 0));
            let msg = format!(
                "so' edge {} → {} of the abstract execution (in every witness L allows here; this one is the first found): its image {} → {} is not in hb",
                sub_name(abs_g, to, a),
                sub_name(abs_g, to, b),
                impl_sub(impl_g, to, gmap[a]),
                impl_sub(impl_g, to, gmap[b]),
            );
            WitnessVerdict::O2(msg, a, b)
        }
        None => WitnessVerdict::O3(
            "the abstract execution has no L-consistent witness under hb' = g⁻¹(hb): the implementation shows behaviour L forbids"
                .into(),
        ),
    }
}

/// Depth-first search for an L-witness of the abstract execution that is
/// consistent with hb' = g⁻¹(hb) ∪ (ppo' ∪ so')⁺ (and, with `o2`, has so' ⊆
/// g⁻¹(hb)); returns its so'.
fn dfs_witness(
    search: &mut dyn WitnessSearch,
    abs_g: &ExecGraph,
    back: &BitRel,
    vars: &[usize],
    i: usize,
    o2: bool,
) -> Option<BitRel> {
    let mut so = BitRel::new(abs_g.len());
    if !search.check(&abs_g.ppo, &mut so) {
        return None;
    }
    if o2 && so.pairs().any(|(a, b)| !back.contains(a, b)) {
        return None;
    }
    let mut least = so.clone();
    least.union_with(&abs_g.ppo);
    if !least.is_acyclic() {
        return None;
    }
    if i == vars.len() {
        if search.needs_hb() {
            let mut hb_prime = back.clone();
            hb_prime.union_with(&least);
            hb_prime.close_transitively();
            if !search.check_hb(&hb_prime) {
                return None;
            }
        }
        return Some(so);
    }
    let v = vars[i];
    let mut found = None;
    for val in 0..search.domain(v) {
        search.assign(v, Some(val));
        found = dfs_witness(search, abs_g, back, vars, i + 1, o2);
        if found.is_some() {
            break;
        }
    }
    search.assign(v, None);
    found
}

/// An abstract subevent: thread, call number in the thread, stamp.
pub(super) fn sub_name(g: &ExecGraph, to: &StampTable, s: usize) -> String {
    let e = g.event_of(s);
    format!("T{}#{}.{}", e.thread + 1, e.index, to.stamp_name(g.subs[s].stamp))
}

/// An implementation subevent: its number (as listed under its abstract call) and stamp.
pub(super) fn impl_sub(g: &ExecGraph, to: &StampTable, s: usize) -> String {
    format!("s{s}.{}", to.stamp_name(g.subs[s].stamp))
}

/// What the obligations of one execution (or of every completion of a partial
/// witness) come to.
pub(super) enum Judgement {
    /// Every obligation holds.
    Pass,
    /// Obligation `o` fails for `methods`: why, g as far as it was built, and the
    /// abstract subevents involved (for map inference).
    Fail { o: Obligation, methods: Vec<String>, why: String, gmap: Option<Vec<usize>>, subs: Vec<usize> },
    /// A dry run ([`Judge::judge`] with `dry`) met an abstract subevent whose image g
    /// would have to infer: decided per execution.
    Open,
}

/// What deciding the obligations of an execution needs: the implementation, the
/// stamp order, the declared map, the stamps O1 ranges over, and L.
pub(super) struct Judge<'a> {
    pub(super) setup: &'a Setup,
    pub(super) to: &'a StampTable,
    pub(super) map: &'a ConcMap,
    pub(super) universe: &'a [Stamp],
    pub(super) abs_lib: &'a dyn mowgli_core::Library,
    pub(super) abs_world: &'a mowgli_core::World,
}

impl<'a> Judge<'a> {
    /// The image pairs g(so'(w)) of an L-witness w of the abstract execution of `v`
    /// with g(so'(w)) ⊆ hb (one that makes O2 and O3 hold), under the map `gmap`;
    /// `None` when there is none.
    pub(super) fn covering_pairs(&self, v: &Visited, gmap: &[usize]) -> Option<Vec<(usize, usize)>> {
        let abs = abstract_events(v);
        let abs_g = self.abstract_graph(&abs);
        let mut search = self.abs_lib.search(&abs_g, self.to, 0);
        let mut hb = v.so.clone();
        hb.union_with(&v.g.ppo);
        hb.close_transitively();
        let back = BitRel::from_fn(abs_g.len(), |a, b| hb.contains(gmap[a], gmap[b]));
        let vars: Vec<usize> = (0..search.num_vars()).collect();
        let so = dfs_witness(search.as_mut(), &abs_g, &back, &vars, 0, true)?;
        Some(so.pairs().map(|(a, b)| (gmap[a], gmap[b])).filter(|(x, y)| x != y).collect())
    }

    /// The stamped abstract execution graph of `abs`.
    pub(super) fn abstract_graph(&self, abs: &[Event]) -> ExecGraph<'a> {
        let stmp = |e: &Event| self.abs_lib.stamps(self.abs_world, e);
        ExecGraph::new(self.abs_world, abs.to_vec(), &stmp, self.to)
    }

    pub(super) fn method_of(&self, abs: &[Event], ai: usize) -> String {
        setup_method_name(self.abs_lib, &abs[ai])
    }

    /// The methods the abstract events call, sorted, once each.
    pub(super) fn methods(&self, abs: &[Event]) -> Vec<String> {
        let mut ms: Vec<String> = (0..abs.len()).map(|ai| self.method_of(abs, ai)).collect();
        ms.sort();
        ms.dedup();
        ms
    }

    /// The alternatives f⁻¹ offers for the images of the abstract subevents `subs`
    /// (keyed by method and stamp kind).
    pub(super) fn involved(
        &self,
        v: &Visited,
        abs: &[Event],
        abs_g: &ExecGraph,
        subs: &[usize],
    ) -> Vec<((String, String), Vec<MapEntry>)> {
        let mut out: Vec<((String, String), Vec<MapEntry>)> = Vec::new();
        for &s in subs {
            let ae = abs_g.subs[s].event;
            let key = (self.method_of(abs, ae), self.to.kinds[abs_g.subs[s].stamp.kind as usize].clone());
            if out.iter().any(|(k, _)| *k == key) {
                continue;
            }
            let pre = preimage(v.g, abs[ae].thread, abs[ae].index);
            out.push((key.clone(), maps::alternatives(&key.0, &key.1, v.g, &self.setup.owned, &pre, self.to)));
        }
        out
    }

    /// g(s) for abstract subevent `s` by a declared (or already inferred) entry or
    /// the same stamp; `None` when it would have to be inferred or has no image.
    pub(super) fn image(
        &self,
        v: &Visited,
        abs: &[Event],
        abs_g: &ExecGraph,
        s: usize,
        inferred: &BTreeMap<(String, String), MapEntry>,
    ) -> Option<usize> {
        let ae = abs_g.subs[s].event;
        let a = abs_g.subs[s].stamp;
        let pre = preimage(v.g, abs[ae].thread, abs[ae].index);
        let m = self.method_of(abs, ae);
        let kind = self.to.kinds[a.kind as usize].clone();
        match self.map.get(&m, &kind).or_else(|| inferred.get(&(m, kind))) {
            Some(r) => maps::apply(r, v.g, &self.setup.owned, &pre, a, self.to),
            None => maps::same_stamp(v.g, &pre, a),
        }
    }

    /// The obligations of the execution `v` (abstracted to `abs`), with hb =
    /// (ppo ∪ so)⁺; images g must infer are inferred and added to `inferred`. With
    /// `dry` (a partial witness), no image is inferred — a subevent that would need
    /// one makes it [`Judgement::Open`], as does an L whose predicate mentions hb —
    /// and `inferred` is only read.
    pub(super) fn judge(
        &self,
        v: &Visited,
        abs: &[Event],
        abs_g: &ExecGraph,
        inferred: &mut BTreeMap<(String, String), MapEntry>,
        dry: bool,
    ) -> Judgement {
        let to = self.to;
        let g = v.g;
        // L's witness search (O2/O3); a partial witness is not judged when L's
        // predicate mentions hb (O3 is then not monotone in hb)
        let mut search = self.abs_lib.search(abs_g, to, 0);
        if dry && search.needs_hb() {
            return Judgement::Open;
        }
        let mut hb = v.so.clone();
        hb.union_with(&g.ppo);
        hb.close_transitively();
        let mut hb_star = hb.clone();
        for s in 0..g.len() {
            hb_star.add(s, s);
        }
        let all_methods = self.methods(abs);
        let fail = |o, methods, why, gmap: Option<&[usize]>, subs| Judgement::Fail {
            o,
            methods,
            why,
            gmap: gmap.map(<[usize]>::to_vec),
            subs,
        };
        // O0
        if let Some((ai, why)) = o0_violation(v, abs, abs_g) {
            let ms = if ai < abs.len() { vec![self.method_of(abs, ai)] } else { all_methods };
            return fail(Obligation::O0, ms, why, None, vec![]);
        }
        // g, and O1 per abstract subevent
        let mut gmap = vec![usize::MAX; abs_g.len()];
        for s in 0..abs_g.len() {
            let ae = abs_g.subs[s].event;
            let a = abs_g.subs[s].stamp;
            let pre = preimage(g, abs[ae].thread, abs[ae].index);
            let m = self.method_of(abs, ae);
            let kind = to.kinds[a.kind as usize].clone();
            let rule = self.map.get(&m, &kind).or_else(|| inferred.get(&(m.clone(), kind.clone()))).cloned();
            let chosen = match &rule {
                Some(r) => maps::apply(r, g, &self.setup.owned, &pre, a, to),
                // default: the same stamp; else infer a rule that keeps to's promises here
                None => match maps::same_stamp(g, &pre, a) {
                    Some(s) => Some(s),
                    None if dry => return Judgement::Open,
                    None => match maps::infer(&m, &kind, g, &self.setup.owned, &pre, a, to, &|target| {
                        o1_violation(to, self.universe, g, &hb_star, &pre, a, target).is_none()
                    }) {
                        Some(entry) => {
                            let s = maps::apply(&entry, g, &self.setup.owned, &pre, a, to);
                            inferred.insert((m.clone(), kind.clone()), entry);
                            s
                        }
                        None => None,
                    },
                },
            };
            let Some(target) = chosen else {
                let why = match &rule {
                    Some(r) => format!(
                        "g({}) by `{}`: f⁻¹ of this call has no such subevent",
                        sub_name(abs_g, to, s),
                        r.render()
                    ),
                    None => format!(
                        "g({}): no subevent of the call's implementation keeps to's promises (no map entry declared, none inferred)",
                        sub_name(abs_g, to, s)
                    ),
                };
                return fail(Obligation::O1, vec![m], why, None, vec![s]);
            };
            gmap[s] = target;
            if let Some(why) = o1_violation(to, self.universe, g, &hb_star, &pre, a, target) {
                let why = format!("g({}) = {}: {why}", sub_name(abs_g, to, s), impl_sub(g, to, target));
                return fail(Obligation::O1, vec![m], why, Some(&gmap), vec![s]);
            }
        }
        // O2 / O3 over every L-witness of the abstract execution
        match check_witnesses(search.as_mut(), abs_g, &gmap, &hb, to, g) {
            WitnessVerdict::Ok => Judgement::Pass,
            WitnessVerdict::O2(why, a, b) => fail(Obligation::O2, all_methods, why, Some(&gmap), vec![a, b]),
            WitnessVerdict::O3(why) => {
                let every: Vec<usize> = (0..abs_g.len()).collect();
                fail(Obligation::O3, all_methods, why, Some(&gmap), every)
            }
        }
    }
}
pub(super) fn setup_method_name(lib: &dyn mowgli_core::Library, e: &Event) -> String {
    lib.methods().get(e.method).map(|m| m.name.to_string()).unwrap_or_else(|| format!("#{}", e.method))
}
