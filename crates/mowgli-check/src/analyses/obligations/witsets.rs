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

/// The clauses of ¬(O2 ∧ O3): each a set of image pairs (at least one has no
/// hb* path). An empty clause (`[]` in the list) makes the conjunction false; no
/// clause makes it true.
pub(super) fn clauses(
    search: &mut dyn WitnessSearch,
    abs_g: &ExecGraph,
    gmap: &[usize],
    fact: &dyn Fn(usize, usize) -> Option<bool>,
) -> Vec<Vec<(usize, usize)>> {
    let nv = search.num_vars();
    if (0..nv).any(|v| search.domain(v) == 0) {
        return Vec::new();
    }
    let mut e = Enum {
        abs_g,
        gmap,
        fact,
        index: HashMap::new(),
        pairs: Vec::new(),
        minimal: Vec::new(),
        done: false,
        seen: HashSet::new(),
    };
    e.walk(search, 0, nv);
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
}

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

impl Enum<'_> {
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
        if self.done {
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
            return;
        }
        for val in 0..search.domain(i) {
            search.assign(i, Some(val));
            self.walk(search, i + 1, n);
        }
        search.assign(i, None);
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
