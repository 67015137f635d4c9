//! ¬(O2 ∧ O3) as a tree of the abstract witnesses, selected by reading the
//! abstract witness back from the implementation's variables.
//!
//! O2 ∧ O3 fail iff every L-witness w of the abstract execution has an so' edge
//! whose image under g is not in hb: ⋀_w C_w, C_w = "some pair of g(so'(w)) has no
//! hb* path". Stated flat, that is one clause per witness (I_SV's abs-sv-4-2430:
//! 90,960), and the solver has to refute them in effect one implementation
//! execution at a time.
//!
//! Here the witnesses are the leaves of the tree of their partial assignments
//! (the abstract library's search variables in order, [`WitnessTree`]), and each
//! edge of the tree is guarded by a condition over the implementation's variables
//! that says "the witness read back from this execution takes this value"
//! ([`ReadBack`], LOCO App. G.1: rf' = g⁻¹(rf), mo' = g⁻¹(mo)). With a fresh
//! Boolean h_N per tree node, the goal is
//!
//! ```text
//!   ⋁ D(root) ∨ h_root,   h_N → (¬eq(var_N, v_c) ∨ ⋁ new_c ∨ h_c)  for each child c of N
//! ```
//!
//! where D(N) are the image pairs of the partial so' at N (contained in the so' of
//! every completion: the monotonicity the explicit discharge relies on), new_c the
//! pairs a child adds, and a leaf (a complete witness) has no h. This is implied by
//! ⋀_w C_w for **any** choice of the conditions eq (take h_N true exactly on the
//! nodes whose conditions all hold and whose D(N) has no separated pair: every
//! leaf reached that way has C_w, so a separated pair among its new ones). So it
//! is an over-approximation of ¬(O2 ∧ O3), exact when the read-back is exact, and
//! a model must still be confirmed by the explicit check; a spurious one is
//! refined by the clause of the witness the explicit check finds
//! (`obligations::symbolic`). With the read-back, a disjunct ¬eq ∨ … is refuted by
//! a few propagations (an rf' edge read back is an rf edge, which is in hb),
//! instead of by enumerating implementation executions. Equal subtrees are one
//! node (the tree is a DAG), since the conditions depend only on the variable and
//! value.

use z3::ast::{Bool, Int};

use super::goal::Cond;
use super::rel::{not, or_all};
use super::Encoding;

/// How one variable of the abstract library's witness search is read back from
/// the implementation through g.
#[derive(Clone, Debug)]
pub enum ReadBack {
    /// An rf variable: the image of the abstract read, and per value the image of
    /// its candidate source (`None`: the initial value).
    Rf { read: usize, sources: Vec<Option<usize>> },
    /// An mo variable (its value: how many of the earlier-declared writes of its
    /// cell are mo-before it): the images of the write and of those writes.
    Mo { write: usize, earlier: Vec<usize> },
    /// Not read back: every one of this many values.
    Any(usize),
    /// None of this many values (sound too: the tree then holds on every
    /// execution, and only the refinements by spurious models constrain it — the
    /// lazy scheme without the read-back, for testing the refinement).
    Never(usize),
}

/// The witnesses of an abstract execution as a DAG of partial assignments.
#[derive(Clone, Debug, Default)]
pub struct WitnessTree {
    /// Per abstract search variable, how it is read back.
    pub read_back: Vec<ReadBack>,
    /// The image pairs of the so' of the empty assignment.
    pub root_pairs: Vec<(usize, usize)>,
    /// The root's node (`None`: no witness has a clause, i.e. none at all that can
    /// hold: the tree part is true).
    pub root: Option<usize>,
    pub nodes: Vec<TreeNode>,
    /// Conjoined with the tree's part (a fresh selector the caller constrains with
    /// the clauses of the witnesses spurious models show).
    pub guard: Option<Cond>,
}

/// A node: the variable it assigns and its children, one per value with a witness
/// below.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TreeNode {
    pub var: usize,
    pub children: Vec<TreeChild>,
}

/// A child: the value, the image pairs its assignment adds to so', and the node
/// below (`None`: the assignment is complete, a witness).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TreeChild {
    pub value: usize,
    pub new: Vec<(usize, usize)>,
    pub next: Option<usize>,
}

impl Encoding {
    /// Per value of an abstract variable, "the witness read back takes it".
    fn read_back(&self, rb: &ReadBack) -> Vec<Bool> {
        let all = |k: usize| vec![Bool::from_bool(true); k];
        match rb {
            ReadBack::Any(k) => all(*k),
            ReadBack::Never(k) => vec![Bool::from_bool(false); *k],
            ReadBack::Rf { read, sources } => {
                let Some((rf, cands)) = self.rf_of.get(read) else { return all(sources.len()) };
                sources
                    .iter()
                    .map(|s| match cands.iter().position(|c| c == s) {
                        Some(i) => rf.eq(Int::from_i64(i as i64)),
                        None => Bool::from_bool(false),
                    })
                    .collect()
            }
            ReadBack::Mo { write, earlier } => {
                let k = earlier.len() + 1;
                let Some((li, cell, clock)) = self.mo_clock.get(write) else { return all(k) };
                let mut ones = Vec::with_capacity(earlier.len());
                for e in earlier {
                    match self.mo_clock.get(e) {
                        Some((l2, c2, c)) if l2 == li && c2 == cell && e != write => {
                            ones.push(c.lt(clock).ite(&Int::from_i64(1), &Int::from_i64(0)));
                        }
                        _ => return all(k),
                    }
                }
                if ones.is_empty() {
                    return all(k);
                }
                let count = Int::add(&ones);
                (0..k).map(|j| count.eq(Int::from_i64(j as i64))).collect()
            }
        }
    }

    /// The tree part of ¬(O2 ∧ O3) (module comment).
    pub(super) fn tree(&mut self, t: &WitnessTree) -> Bool {
        let eq: Vec<Vec<Bool>> = t.read_back.iter().map(|rb| self.read_back(rb)).collect();
        let mut top: Vec<Bool> = t.root_pairs.iter().map(|&(x, y)| self.no_path(x, y)).collect();
        if let Some(root) = t.root {
            let h: Vec<Bool> = (0..t.nodes.len()).map(|_| self.fresh_bool("wt")).collect();
            for (n, node) in t.nodes.iter().enumerate() {
                for c in &node.children {
                    let Some(e) = eq.get(node.var).and_then(|vs| vs.get(c.value)) else { continue };
                    let mut alts = vec![not(e)];
                    alts.extend(c.new.iter().map(|&(x, y)| self.no_path(x, y)));
                    if let Some(next) = c.next {
                        alts.push(h[next].clone());
                    }
                    let body = or_all(alts);
                    if body.as_bool() != Some(true) {
                        self.solver.assert(h[n].implies(&body));
                    }
                }
            }
            top.push(h[root].clone());
        } else {
            top.push(Bool::from_bool(true));
        }
        let part = or_all(top);
        match &t.guard {
            Some(g) => super::rel::and2(&part, &g.0),
            None => part,
        }
    }
}
