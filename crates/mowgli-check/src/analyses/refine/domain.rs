//! The value domain of ⟦p̃⟧_I: the values each location may hold and the cells
//! only one thread writes, a fixpoint over the implementation's unfoldings
//! (`Setup::impl_problem_unfolded`).

use std::collections::{BTreeSet, HashMap};

use mowgli_core::library::Cell;
use mowgli_core::program::CallRecord;
use mowgli_core::{Param, Value, ValueDomain};

use crate::engines::explicit::{self, Problem};

/// The values each location may hold: its initial value, the client's literals
/// (for the client's own locations), and every value a call writes to it (a `Val`
/// argument of a call naming the location; a call naming two locations — a put or
/// a get — may copy either's values to the other), to a fixpoint. A value written
/// in an execution is computed from values read in it, so after as many rounds as
/// an execution has writes every value written is in the domain of its location.
/// The value domain and own cells of ⟦p̃⟧_I (a fixpoint over unfoldings), and the
/// unfoldings of its last round when that round ran on the final domain and own
/// cells (nothing changed in it), so they are the problem's.
///
/// A round unfolds only when the round before could have unfolded otherwise: the
/// unfoldings read the domain only through the return values the libraries offer
/// ([`ValueDomain::at`] notes the locations asked), so a round after which those
/// locations kept their values and the own cells stayed the same takes the
/// previous round's unfoldings again (e.g. I_W's sets gain the put and get
/// identifiers in round 0, which nothing reads as a value).
pub(super) type DomainFixpoint = (ValueDomain, HashMap<Cell, usize>, Option<Vec<explicit::Unfolded>>);

pub(super) fn value_domain(q: &mut Problem, base: &ValueDomain) -> Result<DomainFixpoint, String> {
    let nlocs = q.world.locs.len();
    let mut dom: Vec<BTreeSet<Value>> = (0..nlocs)
        .map(|l| {
            let mut s: BTreeSet<Value> = base.at(l).iter().cloned().collect();
            s.insert(q.world.locs[l].init.clone());
            s
        })
        .collect();
    let as_domain = |dom: &[BTreeSet<Value>]| {
        let mut messages: BTreeSet<Value> = BTreeSet::new();
        for d in dom {
            messages.extend(d.iter().filter(|v| matches!(v, Value::Tuple(_))).cloned());
        }
        ValueDomain::new(dom.iter().map(|d| d.iter().cloned().collect()).collect(), messages.into_iter().collect())
    };
    let constants: BTreeSet<Value> = dom.iter().flatten().cloned().collect();
    const MAX_ROUNDS: usize = 32;
    const MAX_VALUES: usize = 48;
    // Per cell: the writing threads, and whether some write is not a plain CPU
    // write, accumulated over the rounds. Cells with one plain CPU writer narrow
    // that thread's reads (see `Problem::own_cells`) from the next round on. This is
    // sound once stable: in a consistent execution, a read of such a cell that saw
    // another thread's write would follow that write in (po ∪ rf)⁺, so that write
    // is reached by the unfolding (induction along (po ∪ rf)⁺, which is acyclic)
    // and the cell is not narrowed. Round 0 narrows nothing.
    let mut writers: HashMap<Cell, (BTreeSet<usize>, bool)> = HashMap::new();
    let own_of = |writers: &HashMap<Cell, (BTreeSet<usize>, bool)>| -> HashMap<Cell, usize> {
        writers
            .iter()
            .filter(|(_, (ts, other))| !other && ts.len() == 1)
            .map(|(c, (ts, _))| (*c, *ts.iter().next().expect("one writer")))
            .collect()
    };
    // A round whose unfoldings would be the previous round's: they are taken again
    // instead of unfolding (with the calls they made and `max_writes`).
    let mut again: Option<(Vec<explicit::Unfolded>, Vec<Vec<CallRecord>>, usize)> = None;
    for round in 0..MAX_ROUNDS {
        let before: usize = dom.iter().map(|d| d.len()).sum();
        let writers_before = writers.clone();
        let (unfolded, calls_of, max_writes) = match again.take() {
            Some(previous) => previous,
            None => {
                q.domain = as_domain(&dom);
                q.own_cells = own_of(&writers);
                // A value not among the program's constants (`base`) is computed from read
                // values: its derivation chain passes through writes of non-constant values
                // only, so the most such writes an execution can have bounds the rounds
                // needed. Per thread, a run has at most one call per position: the
                // positions where a call writes a non-constant value bound its count.
                let mut max_writes = 0;
                let mut unfolded = Vec::with_capacity(q.threads.len());
                let mut calls_of = Vec::with_capacity(q.threads.len());
                for t in 0..q.threads.len() {
                    let mut calls: Vec<CallRecord> = Vec::new();
                    let mut dependent: BTreeSet<usize> = BTreeSet::new();
                    let u = explicit::unfold_thread_observing(q, t, &mut |pos, c| {
                        let sig = &q.libs[c.lib].methods()[c.method];
                        if c.args.iter().zip(&sig.params).any(|(a, k)| *k == Param::Val && !constants.contains(a)) {
                            dependent.insert(pos);
                        }
                        calls.push(c.clone());
                    })
                    .map_err(|e| e.to_string())?;
                    unfolded.push(u);
                    calls_of.push(calls);
                    max_writes += dependent.len();
                }
                (unfolded, calls_of, max_writes)
            }
        };
        for (t, calls) in calls_of.iter().enumerate() {
            for c in calls {
                for (cell, v) in q.libs[c.lib].written_cells(&q.world, t, c.method, &c.args) {
                    let e = writers.entry(cell).or_default();
                    e.0.insert(t);
                    e.1 |= v.is_none();
                }
                let sig = &q.libs[c.lib].methods()[c.method];
                let loc_of = |(a, k): (&Value, &Param)| match (k, a) {
                    (Param::Loc | Param::Src, Value::Loc(l)) => Some(*l),
                    _ => None,
                };
                let mut named = c.args.iter().zip(&sig.params).filter_map(loc_of);
                let (first, second) = (named.next(), named.next());
                if let (Some(l), None) = (first, second) {
                    // one location (the usual call): its values gain the call's values
                    for (a, k) in c.args.iter().zip(&sig.params) {
                        if *k == Param::Val && !dom[l].contains(a) {
                            dom[l].insert(a.clone());
                        }
                    }
                    continue;
                }
                let mut locs = Vec::new();
                let mut vals = Vec::new();
                for (a, k) in c.args.iter().zip(&sig.params) {
                    match (k, a) {
                        (Param::Loc | Param::Src, Value::Loc(l)) => locs.push(*l),
                        (Param::Val, v) => vals.push(v.clone()),
                        _ => {}
                    }
                }
                let mut joined: BTreeSet<Value> = vals.into_iter().collect();
                if locs.len() > 1 {
                    for &l in &locs {
                        joined.extend(dom[l].iter().cloned());
                    }
                }
                for &l in &locs {
                    dom[l].extend(joined.iter().cloned());
                }
            }
        }
        let after: usize = dom.iter().map(|d| d.len()).sum();
        let stable = writers == writers_before;
        if stable && (after == before || round > max_writes) {
            // this round's unfoldings are those of the final domain and own cells
            // iff it added nothing (also when they were taken again: they are
            // then what unfolding on this round's domain gives)
            let last = (after == before).then_some(unfolded);
            return Ok((as_domain(&dom), own_of(&writers), last));
        }
        if let Some((l, d)) = dom.iter().enumerate().find(|(_, d)| d.len() > MAX_VALUES) {
            return Err(format!(
                "location `{}` may hold more than {MAX_VALUES} values ({} after {} rounds): lower the bounds",
                q.world.locs[l].name,
                d.len(),
                round + 1
            ));
        }
        // The unfoldings depend on the domain only through the return values the
        // libraries offered, read from the locations they asked about (and the
        // messages): where those kept their values, and the own cells are the same
        // (`stable`), the next round would unfold exactly as this one did.
        // (the sets only grow: the same size is the same set)
        let consulted_grew = q.domain.consulted_locations().any(|l| q.domain.at(l).len() != dom[l].len())
            || (q.domain.messages_consulted() && q.domain.messages() != as_domain(&dom).messages());
        if stable && !consulted_grew {
            again = Some((unfolded, calls_of, max_writes));
        }
    }
    Err(format!("the values the implementation computes do not settle within {MAX_ROUNDS} rounds: lower the bounds"))
}
