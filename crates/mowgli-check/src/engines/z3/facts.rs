//! Relation analysis: static may/must facts about a relation given as edges with
//! conditions, computed before anything about it is encoded (what Dartagnan calls
//! relation analysis).
//!
//! Every term of the encoding is a Z3 Boolean that is either the constant true (the
//! pair is in the relation in every model: *must*), a formula (*may*, decided by the
//! solver), or absent (never). The constants are exact: a term is constant true only
//! when built from static relations by operators that keep them, or from paths of
//! must edges ([`Closure::must`]); so a must pair is in the relation in every
//! execution, and an absent pair in none. From the edges of a relation r this
//! module gives the must and may closures of r*, which decide statically
//!
//! * reachability in r⁺ along must edges (a constant instead of a Boolean),
//! * that a pair is never reachable (no variable at all),
//! * which edges can lie on a cycle (r acyclic needs ranks only on those: an edge
//!   (a, b) is on a cycle of the may-graph iff b may-reaches a).

use mowgli_core::BitRel;
use z3::ast::Bool;

/// The reflexive-transitive closures of the must edges and of the may edges of a
/// relation over `0..n`.
pub(super) struct Closure {
    pub must: BitRel,
    pub may: BitRel,
}

impl Closure {
    /// The closures of `edges` (constant-false edges ignored).
    pub fn of<'a>(n: usize, edges: impl IntoIterator<Item = ((usize, usize), &'a Bool)>) -> Closure {
        let mut must = BitRel::new(n);
        let mut may = BitRel::new(n);
        for ((a, b), t) in edges {
            match t.as_bool() {
                Some(false) => {}
                Some(true) => {
                    must.add(a, b);
                    may.add(a, b);
                }
                None => may.add(a, b),
            }
        }
        Closure { must: must.reflexive_transitive_closure(), may: may.reflexive_transitive_closure() }
    }

    /// x r* y in every execution.
    pub fn must_path(&self, x: usize, y: usize) -> bool {
        self.must.contains(x, y)
    }

    /// x r* y in some execution.
    pub fn may_path(&self, x: usize, y: usize) -> bool {
        self.may.contains(x, y)
    }

    /// Whether the edge (a, b) can lie on a cycle (b r* a in some execution).
    pub fn on_cycle(&self, a: usize, b: usize) -> bool {
        self.may.contains(b, a)
    }

    /// Whether the must edges already form a cycle.
    pub fn must_cyclic(&self) -> bool {
        (0..self.must.size()).any(|x| self.must.successors(x).any(|y| y != x && self.must.contains(y, x)))
    }

    /// Whether some x of `xs` must reach some y of `ys`.
    pub fn must_some(&self, xs: &[usize], ys: &[usize]) -> bool {
        xs.iter().any(|&x| ys.iter().any(|&y| self.must_path(x, y)))
    }

    /// Whether some x of `xs` may reach some y of `ys`.
    pub fn may_some(&self, xs: &[usize], ys: &[usize]) -> bool {
        xs.iter().any(|&x| ys.iter().any(|&y| self.may_path(x, y)))
    }

    /// What some x of `xs` may reach (`xs` included).
    pub fn may_from(&self, xs: &[usize]) -> Vec<bool> {
        let mut out = vec![false; self.may.size()];
        for &x in xs {
            for y in self.may.successors(x) {
                out[y] = true;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn must_may_and_cycles() {
        let t = Bool::from_bool(true);
        let f = Bool::from_bool(false);
        let v = Bool::new_const("v");
        // 0 → 1 must, 1 → 2 may, 2 → 0 may, 3 → 0 never
        let edges = [((0, 1), &t), ((1, 2), &v), ((2, 0), &v), ((3, 0), &f)];
        let c = Closure::of(4, edges);
        assert!(c.must_path(0, 1) && c.must_path(2, 2) && !c.must_path(0, 2));
        assert!(c.may_path(0, 2) && c.may_path(2, 1) && !c.may_path(3, 0));
        assert!(c.on_cycle(0, 1) && !c.on_cycle(3, 0));
        assert!(!c.must_cyclic());
        assert_eq!(c.may_from(&[1]), vec![true, true, true, false]);
        let c = Closure::of(2, [((0, 1), &t), ((1, 0), &t)]);
        assert!(c.must_cyclic());
    }
}
