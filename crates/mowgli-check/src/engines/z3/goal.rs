//! Goals over an encoding's happens-before: facts "no hb* path from X to Y".
//!
//! An analysis states what it wants refuted as data ([`Separation`]) and gets an
//! opaque [`Cond`] back; it combines conditions with [`Cond::all`], [`Cond::any`] and
//! [`Cond::not`] and never touches Z3 itself. "No hb* path from any of X to any of
//! Y" holds iff some set of subevents closed under ppo ∪ so contains X and misses Y
//! (take the set of what X reaches), which is how the negation of a reachability is
//! asserted ([`Encoding::closed_set`]).

use z3::ast::Bool;

use super::readback::{ReadBack, TreeChild, TreeNode, WitnessTree};
use super::rel::{and_all, not, or_all};
use super::Encoding;

/// A condition over an encoding's variables.
#[derive(Clone, Debug)]
pub struct Cond(pub(crate) Bool);

impl Cond {
    /// A constant.
    pub fn truth(b: bool) -> Cond {
        Cond(Bool::from_bool(b))
    }
    /// The conjunction (true when `cs` is empty), constants folded.
    pub fn all(cs: &[Cond]) -> Cond {
        if cs.iter().any(|c| c.0.as_bool() == Some(false)) {
            return Cond::truth(false);
        }
        let mut ts: Vec<Bool> = cs.iter().filter(|c| c.0.as_bool() != Some(true)).map(|c| c.0.clone()).collect();
        match ts.len() {
            0 => Cond::truth(true),
            1 => Cond(ts.pop().unwrap_or_else(|| Bool::from_bool(true))),
            _ => Cond(Bool::and(&ts)),
        }
    }
    /// The disjunction (false when `cs` is empty), constants folded.
    pub fn any(cs: &[Cond]) -> Cond {
        Cond(or_all(cs.iter().map(|c| c.0.clone()).collect()))
    }
    /// The negation.
    pub fn not(&self) -> Cond {
        match self.0.as_bool() {
            Some(b) => Cond::truth(!b),
            None => Cond(self.0.not()),
        }
    }
    /// `self → c`.
    pub fn implies(&self, c: &Cond) -> Cond {
        Cond::any(&[self.not(), c.clone()])
    }
    /// The constant this condition is, when it is one (decided while encoding,
    /// e.g. by the relation analysis).
    pub fn constant(&self) -> Option<bool> {
        self.0.as_bool()
    }
}

/// `⋁ over some_path_missing (no hb* path from any of xs to any of ys) ∨ ⋀ over
/// every_set (⋁ over its pairs (x, y): no hb* path from x to y)`. With
/// `every_set` empty the second part is true; a set in it that is empty makes it
/// false. With `tree`, the second part is the witness tree's instead
/// ([`WitnessTree`], an over-approximation of the clauses every_set would have).
#[derive(Clone, Debug, Default)]
pub struct Separation {
    pub some_path_missing: Vec<(Vec<usize>, Vec<usize>)>,
    pub every_set: Vec<Vec<(usize, usize)>>,
    pub tree: Option<WitnessTree>,
}

impl Separation {
    /// The same goal over another numbering of the subevents (a group's subevents
    /// in the union of a whole program: `engines::explicit::WholeProgram::sub_map`);
    /// `usize::MAX` (no image) stays.
    pub fn mapped(&self, to: &[usize]) -> Separation {
        let m = |x: usize| to.get(x).copied().unwrap_or(usize::MAX);
        let pairs = |ps: &[(usize, usize)]| ps.iter().map(|&(x, y)| (m(x), m(y))).collect::<Vec<_>>();
        let tree = self.tree.as_ref().map(|t| WitnessTree {
            read_back: t
                .read_back
                .iter()
                .map(|rb| match rb {
                    ReadBack::Rf { read, sources } => {
                        ReadBack::Rf { read: m(*read), sources: sources.iter().map(|s| s.map(m)).collect() }
                    }
                    ReadBack::Mo { write, earlier } => {
                        ReadBack::Mo { write: m(*write), earlier: earlier.iter().map(|&e| m(e)).collect() }
                    }
                    other => other.clone(),
                })
                .collect(),
            root_pairs: pairs(&t.root_pairs),
            root: t.root,
            nodes: t
                .nodes
                .iter()
                .map(|n| TreeNode {
                    var: n.var,
                    children: n
                        .children
                        .iter()
                        .map(|c| TreeChild { value: c.value, new: pairs(&c.new), next: c.next })
                        .collect(),
                })
                .collect(),
            guard: t.guard.clone(),
        });
        Separation {
            some_path_missing: self
                .some_path_missing
                .iter()
                .map(|(xs, ys)| (xs.iter().map(|&x| m(x)).collect(), ys.iter().map(|&y| m(y)).collect()))
                .collect(),
            every_set: self.every_set.iter().map(|s| pairs(s)).collect(),
            tree,
        }
    }
}

impl Encoding {
    /// The condition [`Separation`] describes, over this encoding's hb: every
    /// "no path" fact as the complement of the closed set of its sources
    /// ([`Encoding::closed_set`], one per source set, shared by every fact and every
    /// goal about it).
    ///
    /// Relation analysis first: an alternative or pair with a path of must edges is
    /// false, one without any path of may edges true, so only the undecided ones get
    /// closed sets, and a goal decided by the must edges is a constant.
    pub fn separation(&mut self, s: &Separation) -> Cond {
        let mut alts: Vec<Bool> = Vec::new();
        for (xs, ys) in &s.some_path_missing {
            if self.hb.must_some(xs, ys) {
                continue;
            }
            if !self.hb.may_some(xs, ys) {
                return Cond::truth(true);
            }
            let cut = self.closed_set(xs);
            alts.push(and_all(ys.iter().map(|&y| not(&cut[y])).collect()));
        }
        // every set: its pairs without a must path; a set with a pair no may path
        // joins holds whatever the execution (dropped), an emptied one never holds
        if let Some(t) = &s.tree {
            alts.push(self.tree(t));
            return Cond(or_all(alts));
        }
        let mut every: Vec<Bool> = Vec::new();
        for set in &s.every_set {
            let some: Vec<Bool> = set.iter().map(|&(x, y)| self.no_path(x, y)).collect();
            every.push(or_all(some));
        }
        alts.push(and_all(every));
        Cond(or_all(alts))
    }

    /// A fresh condition the solver may choose (a selector, to be constrained by
    /// [`Encoding::require`] with implications).
    pub fn fresh(&mut self, prefix: &str) -> Cond {
        Cond(self.fresh_bool(prefix))
    }

    /// "For some (x, y) of `pairs`, no hb* path from x to y" (false for no pairs),
    /// one closed set per distinct pair, shared by every condition that names it.
    pub fn some_no_path(&mut self, pairs: &[(usize, usize)]) -> Cond {
        let some: Vec<Bool> = pairs.iter().map(|&(x, y)| self.no_path(x, y)).collect();
        Cond(or_all(some))
    }

    /// Whether `c` holds in the model [`Encoding::next`] found last (false when
    /// there is none).
    pub fn holds(&self, c: &Cond) -> bool {
        self.last.borrow().as_ref().and_then(|m| m.eval(&c.0, true)).and_then(|b| b.as_bool()).unwrap_or(false)
    }

    /// Adds a condition as a constraint.
    pub fn require(&self, c: &Cond) {
        self.solver.assert(&c.0);
    }
}
