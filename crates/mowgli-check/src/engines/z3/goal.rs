//! Goals over an encoding's happens-before: facts "no hb* path from X to Y".
//!
//! An analysis states what it wants refuted as data ([`Separation`]) and gets an
//! opaque [`Cond`] back; it combines conditions with [`Cond::all`], [`Cond::any`] and
//! [`Cond::not`] and never touches Z3 itself. "No hb* path from any of X to any of
//! Y" holds iff some set of subevents closed under ppo ∪ so contains X and misses Y
//! (take the set of what X reaches), which is how the negation of a reachability is
//! asserted ([`Encoding::closed_set`]).

use z3::ast::Bool;

use super::Encoding;

/// A condition over an encoding's variables.
#[derive(Clone, Debug)]
pub struct Cond(pub(crate) Bool);

impl Cond {
    /// A constant.
    pub fn truth(b: bool) -> Cond {
        Cond(Bool::from_bool(b))
    }
    /// The conjunction (true when `cs` is empty).
    pub fn all(cs: &[Cond]) -> Cond {
        match cs {
            [c] => c.clone(),
            _ => Cond(Bool::and(&cs.iter().map(|c| c.0.clone()).collect::<Vec<_>>())),
        }
    }
    /// The disjunction (false when `cs` is empty).
    pub fn any(cs: &[Cond]) -> Cond {
        match cs {
            [c] => c.clone(),
            _ => Cond(Bool::or(&cs.iter().map(|c| c.0.clone()).collect::<Vec<_>>())),
        }
    }
    /// The negation.
    pub fn not(&self) -> Cond {
        Cond(self.0.not())
    }
    /// `self → c`.
    pub fn implies(&self, c: &Cond) -> Cond {
        Cond(self.0.implies(&c.0))
    }
}

/// `⋁ over some_path_missing (no hb* path from any of xs to any of ys) ∨ ⋀ over
/// every_set (⋁ over its pairs (x, y): no hb* path from x to y)`. With
/// `every_set` empty the second part is true; a set in it that is empty makes it
/// false.
#[derive(Clone, Debug, Default)]
pub struct Separation {
    pub some_path_missing: Vec<(Vec<usize>, Vec<usize>)>,
    pub every_set: Vec<Vec<(usize, usize)>>,
}

impl Encoding {
    /// The condition [`Separation`] describes, over this encoding's hb. The
    /// alternatives of `some_path_missing` share one closed set (only one of them
    /// needs to hold). For `every_set`, one closed set per set (one missing pair
    /// chosen in it), or, when there are fewer distinct pairs than sets, one per
    /// distinct pair, shared by the sets ([`Encoding::no_path`]).
    pub fn separation(&mut self, s: &Separation) -> Cond {
        let mut alts: Vec<Bool> = Vec::new();
        if !s.some_path_missing.is_empty() {
            let cut = self.closed_set();
            for (xs, ys) in &s.some_path_missing {
                let sel = self.fresh_bool("o1");
                let mut body: Vec<Bool> = xs.iter().map(|&x| cut[x].clone()).collect();
                body.extend(ys.iter().map(|&y| cut[y].not()));
                self.solver.assert(sel.implies(Bool::and(&body)));
                alts.push(sel);
            }
        }
        let sets = &s.every_set;
        let every = if sets.iter().any(Vec::is_empty) {
            Bool::from_bool(false)
        } else if sets.is_empty() {
            Bool::from_bool(true)
        } else {
            let mut distinct: Vec<(usize, usize)> = sets.iter().flatten().copied().collect();
            distinct.sort();
            distinct.dedup();
            let mut every: Vec<Bool> = Vec::new();
            if sets.len() <= distinct.len() {
                for edges in sets {
                    let cut = self.closed_set();
                    let mut some = Vec::new();
                    for &(x, y) in edges {
                        let sel = self.fresh_bool("o2");
                        self.solver.assert(sel.implies(Bool::and(&[cut[x].clone(), cut[y].not()])));
                        some.push(sel);
                    }
                    every.push(Bool::or(&some));
                }
            } else {
                for edges in sets {
                    let some: Vec<Bool> = edges.iter().map(|&(x, y)| self.no_path(x, y)).collect();
                    every.push(Bool::or(&some));
                }
            }
            Bool::and(&every)
        };
        alts.push(every);
        Cond(Bool::or(&alts))
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
        Cond(Bool::or(&some))
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
