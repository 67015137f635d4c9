//! The values the witness search tries for each variable, narrowed at the root
//! of a plain execution's search before it branches.
//!
//! A value is dropped when the partial witness that assigns it, together with
//! the values already forced, is inconsistent: every check of a partial witness
//! looks only at the axioms that hold for all its completions if they fail on it
//! (the same test [`super::search`] prunes subtrees with), so no consistent
//! complete witness assigns that value. A variable left with one value is
//! forced, assigned, and the others are narrowed again under it, until nothing
//! changes; one left with none means the plain execution has no consistent
//! witness at all. This is what lets a search notice at once that, say, four
//! acquisitions of a lock with no release cannot all have read it free, instead
//! of trying every order of their other choices first.

use mowgli_core::library::lambda_consistent;
use mowgli_core::{ExecGraph, WitnessSearch};

/// At most this many passes over the variables (each after one that forced a
/// value): narrowing less is sound, only slower later.
const MAX_PASSES: usize = 16;

/// Per library and variable: the values to try, in increasing order.
pub(super) struct Domains {
    vals: Vec<Vec<Vec<usize>>>,
}

impl Domains {
    /// Every value of every variable.
    pub(super) fn full(searches: &[Box<dyn WitnessSearch + '_>]) -> Domains {
        let vals = searches.iter().map(|s| (0..s.num_vars()).map(|v| (0..s.domain(v)).collect()).collect()).collect();
        Domains { vals }
    }

    pub(super) fn len(&self, (l, v): (usize, usize)) -> usize {
        self.vals[l][v].len()
    }

    pub(super) fn values(&self, (l, v): (usize, usize)) -> &[usize] {
        &self.vals[l][v]
    }

    /// The product of the domains' sizes: complete candidates.
    pub(super) fn candidates(&self) -> f64 {
        self.vals.iter().flatten().map(|d| d.len() as f64).product()
    }

    /// Narrows every domain (see the module comment); `false` when some variable
    /// has no value left (no consistent witness). `stop` is asked before each
    /// consistency check (a time limit): when it says stop, the domains narrowed
    /// so far are kept, which is sound. `checks` counts the checks made. Every
    /// variable is unassigned on return.
    pub(super) fn narrow(
        &mut self,
        g: &ExecGraph,
        searches: &mut [Box<dyn WitnessSearch + '_>],
        stop: &mut dyn FnMut() -> bool,
        checks: &mut u64,
    ) -> bool {
        let vars: Vec<(usize, usize)> =
            (0..self.vals.len()).flat_map(|l| (0..self.vals[l].len()).map(move |v| (l, v))).collect();
        let mut fixed = vec![false; vars.len()];
        let mut ok = true;
        'passes: for _ in 0..MAX_PASSES {
            let mut changed = false;
            for (k, &(l, v)) in vars.iter().enumerate() {
                if fixed[k] {
                    continue;
                }
                let mut kept = Vec::with_capacity(self.vals[l][v].len());
                let mut stopped = false;
                for &val in &self.vals[l][v] {
                    if stop() {
                        stopped = true;
                        break;
                    }
                    searches[l].assign(v, Some(val));
                    *checks += 1;
                    if lambda_consistent(g, searches).is_some() {
                        kept.push(val);
                    }
                }
                searches[l].assign(v, None);
                if stopped {
                    break 'passes;
                }
                if kept.len() < self.vals[l][v].len() {
                    self.vals[l][v] = kept;
                }
                match self.vals[l][v].len() {
                    0 => {
                        ok = false;
                        break 'passes;
                    }
                    1 => {
                        searches[l].assign(v, Some(self.vals[l][v][0]));
                        fixed[k] = true;
                        changed = true;
                    }
                    _ => {}
                }
            }
            if !changed {
                break;
            }
        }
        for (k, &(l, v)) in vars.iter().enumerate() {
            if fixed[k] {
                searches[l].assign(v, None);
            }
        }
        ok
    }
}
