//! ¬(O2 ∧ O3) for the Z3 path as clauses, one per abstract witness, pruned by
//! the relation analysis of the implementation's hb while they are enumerated.
//!
//! O2 ∧ O3 fail iff every L-witness w of the abstract execution has an so' edge
//! whose image under g is not in hb: per witness the clause "some pair of
//! g(so'(w)) has no hb* path". The encoding's relation analysis
//! ([`crate::engines::z3::Encoding::path_fact`]) classifies each image pair:
//!
//! * in hb in every execution (a path of must edges, or g maps both ends to one
//!   subevent): the pair never helps the clause, it is left out;
//! * in hb in no execution (no path of may edges): the clause holds whatever the
//!   execution, so the witness adds nothing;
//! * open: the pair stays in the clause.
//!
//! A partial witness's so' is contained in the so' of every completion (the
//! monotonicity the explicit discharge relies on, `drive::Discharge`), so both the
//! second case and subsumption (the partial clause already contains a kept
//! clause: every completion's clause follows from it) prune a whole subtree of
//! the enumeration, and a witness whose clause is empty (every image pair a must
//! path: O2 ∧ O3 hold in every execution) ends it. What remains are the
//! ⊆-minimal clauses (up to [`SUBSUME_UP_TO`] of them), as sets of pair indices
//! (bit sets).

use std::collections::{HashMap, HashSet};

use mowgli_core::{BitRel, ExecGraph, WitnessSearch};

use crate::engines::z3::{ReadBack, TreeChild, TreeNode, WitnessTree};

/// The clauses of ¬(O2 ∧ O3): each a set of image pairs (at least one has no
/// hb* path). An empty clause (`[]` in the list) makes the conjunction false; no
/// clause makes it true.
pub(super) fn clauses(
    search: &mut dyn WitnessSearch,
    abs_g: &ExecGraph,
    gmap: &[usize],
    fact: &dyn Fn(usize, usize) -> Option<bool>,
    stop: Option<&dyn Fn() -> bool>,
) -> Vec<Vec<(usize, usize)>> {
    let nv = search.num_vars();
    if (0..nv).any(|v| search.domain(v) == 0) {
        return Vec::new();
    }
    let mut e = Enum::new(abs_g, gmap, fact);
    e.stop = stop;
    e.walk(search, 0, nv);
    flat(e)
}

/// The clauses of [`clauses`], or `None` when there are more than `cap` of them.
pub(super) fn clauses_up_to(
    search: &mut dyn WitnessSearch,
    abs_g: &ExecGraph,
    gmap: &[usize],
    fact: &dyn Fn(usize, usize) -> Option<bool>,
    cap: usize,
    stop: Option<&dyn Fn() -> bool>,
) -> Option<Vec<Vec<(usize, usize)>>> {
    let nv = search.num_vars();
    if (0..nv).any(|v| search.domain(v) == 0) {
        return Some(Vec::new());
    }
    let mut e = Enum::new(abs_g, gmap, fact);
    e.cap = cap;
    e.stop = stop;
    e.walk(search, 0, nv);
    for v in 0..nv {
        search.assign(v, None);
    }
    (!e.over).then(|| flat(e))
}

fn flat(e: Enum) -> Vec<Vec<(usize, usize)>> {
    if e.done {
        return vec![Vec::new()];
    }
    e.minimal.iter().map(|bits| ones(bits).map(|k| e.pairs[k]).collect()).collect()
}

struct Enum<'a> {
    abs_g: &'a ExecGraph<'a>,
    gmap: &'a [usize],
    fact: &'a dyn Fn(usize, usize) -> Option<bool>,
    /// Open image pairs, numbered.
    index: HashMap<(usize, usize), usize>,
    pairs: Vec<(usize, usize)>,
    /// The ⊆-minimal clauses so far, as bit sets over `pairs`.
    minimal: Vec<Vec<u64>>,
    /// A witness with an empty clause was found.
    done: bool,
    /// The clauses kept once there are more than [`SUBSUME_UP_TO`].
    seen: HashSet<Vec<u64>>,
    /// The witness tree's nodes ([`tree`]), each once.
    nodes: Vec<TreeNode>,
    interned: HashMap<TreeNode, usize>,
    /// A child's partial so' did not contain its parent's (the tree needs it).
    non_monotone: bool,
    /// The tree's variables, by depth.
    order: Vec<usize>,
    /// The enumeration stops (`over`) once there are more clauses than this.
    cap: usize,
    over: bool,
    /// The time limit (true once passed), asked every [`STOP_EVERY`] nodes; the
    /// enumeration then stops (`stopped`) and its result means nothing (the
    /// caller sees the limit passed and gives no verdict).
    stop: Option<&'a dyn Fn() -> bool>,
    stopped: bool,
    visited: u64,
}

/// How many nodes of the enumeration apart the time limit is asked.
const STOP_EVERY: u64 = 256;

/// Up to this many clauses, each new (partial) clause is tested against every kept
/// one (subsumption, quadratic); beyond, only exact repeats are dropped (a clause
/// that another implies is redundant, not wrong). Measured on I_SV 2 × 2 × 2's
/// abs-sv-4-2430, whose 90,960 witnesses give as many incomparable clauses: the
/// quadratic test alone took 53 s.
const SUBSUME_UP_TO: usize = 4096;

fn ones(bits: &[u64]) -> impl Iterator<Item = usize> + '_ {
    bits.iter().enumerate().flat_map(|(w, &b)| (0..64).filter(move |i| b >> i & 1 == 1).map(move |i| w * 64 + i))
}

/// a ⊆ b (b may be longer).
fn subset(a: &[u64], b: &[u64]) -> bool {
    a.iter().enumerate().all(|(i, &x)| x & !b.get(i).copied().unwrap_or(0) == 0)
}

impl<'a> Enum<'a> {
    fn new(abs_g: &'a ExecGraph<'a>, gmap: &'a [usize], fact: &'a dyn Fn(usize, usize) -> Option<bool>) -> Enum<'a> {
        Enum {
            abs_g,
            gmap,
            fact,
            index: HashMap::new(),
            pairs: Vec::new(),
            minimal: Vec::new(),
            done: false,
            seen: HashSet::new(),
            nodes: Vec::new(),
            interned: HashMap::new(),
            non_monotone: false,
            order: Vec::new(),
            cap: usize::MAX,
            over: false,
            stop: None,
            stopped: false,
            visited: 0,
        }
    }

    /// Whether the time limit has passed (asked every [`STOP_EVERY`] nodes).
    fn late(&mut self) -> bool {
        self.visited += 1;
        if !self.stopped && self.visited.is_multiple_of(STOP_EVERY) {
            self.stopped = self.stop.is_some_and(|f| f());
        }
        self.stopped
    }

    /// The clause of the current (partial) so', or `None` when it holds statically.
    fn clause(&mut self, so: &BitRel) -> Option<Vec<u64>> {
        let mut bits: Vec<u64> = Vec::new();
        for (a, b) in so.pairs() {
            let (x, y) = (self.gmap[a], self.gmap[b]);
            if x == y {
                continue;
            }
            match (self.fact)(x, y) {
                Some(true) => continue,
                Some(false) => return None,
                None => {}
            }
            let next = self.pairs.len();
            let k = *self.index.entry((x, y)).or_insert(next);
            if k == next {
                self.pairs.push((x, y));
            }
            if bits.len() <= k / 64 {
                bits.resize(k / 64 + 1, 0);
            }
            bits[k / 64] |= 1 << (k % 64);
        }
        Some(bits)
    }

    fn walk(&mut self, search: &mut dyn WitnessSearch, i: usize, n: usize) {
        if self.done || self.over || self.late() {
            return;
        }
        let mut so = BitRel::new(self.abs_g.len());
        if !search.check(&self.abs_g.ppo, &mut so) {
            return;
        }
        let mut least = so.clone();
        least.union_with(&self.abs_g.ppo);
        if !least.is_acyclic() {
            return;
        }
        let Some(bits) = self.clause(&so) else { return };
        let small = self.minimal.len() <= SUBSUME_UP_TO;
        if small && self.minimal.iter().any(|m| subset(m, &bits)) {
            return;
        }
        if i == n {
            if bits.iter().all(|&w| w == 0) {
                self.done = true;
                return;
            }
            if small {
                self.minimal.retain(|m| !subset(&bits, m));
            } else if !self.seen.insert(bits.clone()) {
                return;
            }
            self.minimal.push(bits);
            self.over = self.minimal.len() > self.cap;
            return;
        }
        for val in 0..search.domain(i) {
            search.assign(i, Some(val));
            self.walk(search, i + 1, n);
        }
        search.assign(i, None);
    }
}

/// ¬(O2 ∧ O3) as a witness tree ([`WitnessTree`]: the witnesses as leaves of the
/// tree of their partial assignments, the search variables in order, equal
/// subtrees shared; pruned like [`clauses`] by the relation analysis, but without
/// subsumption, which the tree's guards do not allow), with the read-back of
/// each variable through g. `Err` with the flat clauses when the tree does not
/// apply: no variables, a witness whose clause is empty (O2 ∧ O3 hold in every
/// execution), or a partial so' not contained in a completion's.
pub(super) fn tree(
    search: &mut dyn WitnessSearch,
    abs_g: &ExecGraph,
    gmap: &[usize],
    fact: &dyn Fn(usize, usize) -> Option<bool>,
    read_back_on: bool,
    stop: Option<&dyn Fn() -> bool>,
) -> Result<WitnessTree, Vec<Vec<(usize, usize)>>> {
    let nv = search.num_vars();
    if nv == 0 || (0..nv).any(|v| search.domain(v) == 0) {
        return Err(clauses(search, abs_g, gmap, fact, stop));
    }
    let read_back = if read_back_on {
        read_back(search, gmap)
    } else {
        (0..nv).map(|v| ReadBack::Never(search.domain(v))).collect()
    };
    let mut e = Enum::new(abs_g, gmap, fact);
    e.stop = stop;
    let mut so = BitRel::new(abs_g.len());
    let mut least = BitRel::new(abs_g.len());
    let root_bits = if search.check(&abs_g.ppo, &mut so) && {
        least.union_with(&so);
        least.union_with(&abs_g.ppo);
        least.is_acyclic()
    } {
        e.clause(&so)
    } else {
        None
    };
    // no witness at all, or every witness's clause true whatever hb is
    let Some(root_bits) = root_bits else { return Err(Vec::new()) };
    // the tree's variables: L's mo variables (and declared witnesses) first, its rf
    // variables last. Measured on I_SV's abs-sv-4-2430 (four broadcasts): the
    // search's order (rf first) gave 38,556 nodes and 35 s of solving, this order
    // 776 nodes and 1.6 s for the whole program (explicit: 10 s); the rf choices
    // under a fixed mo mostly do not depend on each other, so their subtrees are
    // shared
    let rf = search.relspec().map_or(0, |s| s.mem.reads.len()).min(nv);
    e.order = (rf..nv).chain(0..rf).collect();
    let root = e.node(search, 0, nv, &root_bits);
    if e.done {
        return Err(vec![Vec::new()]);
    }
    if e.stopped {
        return Err(Vec::new());
    }
    if e.non_monotone {
        return Err(clauses(search, abs_g, gmap, fact, stop));
    }
    let root_pairs = ones(&root_bits).map(|k| e.pairs[k]).collect();
    Ok(WitnessTree { read_back, root_pairs, root, nodes: e.nodes, guard: None })
}

/// How each variable of L's search is read back through g from the
/// implementation (LOCO App. G.1: rf' = g⁻¹(rf), mo' = g⁻¹(mo)): L's rf and mo
/// variables by the images of their subevents, every other variable (and every
/// variable of an L without a symbolic predicate) not at all.
fn read_back(search: &dyn WitnessSearch, gmap: &[usize]) -> Vec<ReadBack> {
    let nv = search.num_vars();
    let any = || (0..nv).map(|v| ReadBack::Any(search.domain(v))).collect();
    let Some(spec) = search.relspec() else { return any() };
    let mem = &spec.mem;
    if mem.num_vars() > nv {
        return any();
    }
    let image = |sub: usize| gmap.get(sub).copied().unwrap_or(usize::MAX);
    let mut out: Vec<ReadBack> = Vec::with_capacity(nv);
    for (r, rd) in mem.reads.iter().enumerate() {
        let sources = mem.candidates(r).iter().map(|c| c.map(|w| image(mem.writes[w].sub))).collect();
        out.push(ReadBack::Rf { read: image(rd.sub), sources });
    }
    for &(c, j) in mem.mo_variables() {
        let ws = mem.writes_of_cell(c);
        let earlier = ws[..j].iter().map(|&w| image(mem.writes[w].sub)).collect();
        out.push(ReadBack::Mo { write: image(mem.writes[ws[j]].sub), earlier });
    }
    for v in out.len()..nv {
        out.push(ReadBack::Any(search.domain(v)));
    }
    out
}

impl Enum<'_> {
    /// The node assigning variable `i` under the current partial assignment (whose
    /// clause is `parent`): its children, one per value with a witness below whose
    /// clause is not statically true; `None` when there is none.
    fn node(&mut self, search: &mut dyn WitnessSearch, i: usize, n: usize, parent: &[u64]) -> Option<usize> {
        if self.late() {
            return None;
        }
        let mut children = Vec::new();
        let var = self.order[i];
        for value in 0..search.domain(var) {
            search.assign(var, Some(value));
            let child = self.child(search, i, n, parent, value);
            if self.done {
                search.assign(var, None);
                return None;
            }
            children.extend(child);
        }
        search.assign(var, None);
        if children.is_empty() {
            return None;
        }
        let node = TreeNode { var, children };
        if let Some(&k) = self.interned.get(&node) {
            return Some(k);
        }
        self.nodes.push(node.clone());
        self.interned.insert(node, self.nodes.len() - 1);
        Some(self.nodes.len() - 1)
    }

    fn child(
        &mut self,
        search: &mut dyn WitnessSearch,
        i: usize,
        n: usize,
        parent: &[u64],
        value: usize,
    ) -> Option<TreeChild> {
        let mut so = BitRel::new(self.abs_g.len());
        if !search.check(&self.abs_g.ppo, &mut so) {
            return None;
        }
        let mut least = so.clone();
        least.union_with(&self.abs_g.ppo);
        if !least.is_acyclic() {
            return None;
        }
        let bits = self.clause(&so)?;
        if !subset(parent, &bits) {
            self.non_monotone = true;
        }
        let new: Vec<(usize, usize)> = ones(&bits)
            .filter(|&k| parent.get(k / 64).is_none_or(|w| w >> (k % 64) & 1 == 0))
            .map(|k| self.pairs[k])
            .collect();
        if i + 1 == n {
            if bits.iter().all(|&w| w == 0) {
                self.done = true;
                return None;
            }
            return Some(TreeChild { value, new, next: None });
        }
        let next = self.node(search, i + 1, n, &bits)?;
        Some(TreeChild { value, new, next: Some(next) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_sets() {
        assert_eq!(ones(&[0b1010, 1]).collect::<Vec<_>>(), vec![1, 3, 64]);
        assert!(subset(&[0b10], &[0b11, 4]) && !subset(&[0b10, 1], &[0b11]) && subset(&[], &[]));
    }
}
