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

/// Per library and variable: the values to try, in increasing order. Until
/// [`Domains::narrow`] runs, every variable's values are all of `0..domain`,
/// answered from one shared `0..max` list (most plain executions are too small
/// to narrow, and this is built for every one of them).
pub(super) struct Domains {
    /// Per library and variable: the size of its full domain.
    sizes: Vec<Vec<usize>>,
    /// `0..max` of `sizes`.
    iota: Vec<usize>,
    /// Per library and variable: the values kept, once narrowed.
    narrowed: Option<Vec<Vec<Vec<usize>>>>,
}

impl Domains {
    /// Every value of every variable.
    pub(super) fn full(searches: &[Box<dyn WitnessSearch + '_>]) -> Domains {
        let sizes: Vec<Vec<usize>> =
            searches.iter().map(|s| (0..s.num_vars()).map(|v| s.domain(v)).collect()).collect();
        let max = sizes.iter().flatten().copied().max().unwrap_or(0);
        Domains { sizes, iota: (0..max).collect(), narrowed: None }
    }

    pub(super) fn len(&self, (l, v): (usize, usize)) -> usize {
        match &self.narrowed {
            Some(n) => n[l][v].len(),
            None => self.sizes[l][v],
        }
    }

    pub(super) fn values(&self, (l, v): (usize, usize)) -> &[usize] {
        match &self.narrowed {
            Some(n) => &n[l][v],
            None => &self.iota[..self.sizes[l][v]],
        }
    }

    /// Whether [`Domains::narrow`] has run.
    pub(super) fn is_narrowed(&self) -> bool {
        self.narrowed.is_some()
    }

    /// The product of the domains' sizes: complete candidates.
    pub(super) fn candidates(&self) -> f64 {
        let lens = self.sizes.iter().enumerate().flat_map(|(l, s)| (0..s.len()).map(move |v| (l, v)));
        lens.map(|k| self.len(k) as f64).product()
    }

    /// Narrows every domain (see the module comment); `false` when some variable
    /// has no value left (no consistent witness). `stop` is asked before each
    /// consistency check with the number of checks made so far (a time or work
    /// limit): when it says stop, the domains narrowed so far are kept, which is
    /// sound. `checks` counts the checks made. Every
    /// variable is unassigned on return.
    pub(super) fn narrow(
        &mut self,
        g: &ExecGraph,
        searches: &mut [Box<dyn WitnessSearch + '_>],
        stop: &mut dyn FnMut(u64) -> bool,
        checks: &mut u64,
    ) -> bool {
        let vals = self
            .narrowed
            .get_or_insert_with(|| self.sizes.iter().map(|s| s.iter().map(|&n| (0..n).collect()).collect()).collect());
        let vars: Vec<(usize, usize)> = (0..vals.len()).flat_map(|l| (0..vals[l].len()).map(move |v| (l, v))).collect();
        let mut fixed = vec![false; vars.len()];
        let mut ok = true;
        'passes: for _ in 0..MAX_PASSES {
            let mut changed = false;
            for (k, &(l, v)) in vars.iter().enumerate() {
                if fixed[k] {
                    continue;
                }
                let mut kept = Vec::with_capacity(vals[l][v].len());
                let mut stopped = false;
                for &val in &vals[l][v] {
                    if stop(*checks) {
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
                if kept.len() < vals[l][v].len() {
                    vals[l][v] = kept;
                }
                match vals[l][v].len() {
                    0 => {
                        ok = false;
                        break 'passes;
                    }
                    1 => {
                        searches[l].assign(v, Some(vals[l][v][0]));
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
