//! The value domain of ⟦p̃⟧_I: the values each location may hold and the cells
//! only one thread writes, a fixpoint over the implementation's unfoldings
//! (`Setup::impl_problem_unfolded`).

use std::collections::{BTreeSet, HashMap};

use mowgli_core::library::Cell;
use mowgli_core::program::CallRecord;
use mowgli_core::{DomainSets, Value, ValueDomain};

use crate::engines::explicit::{self, EngineError, Problem};

/// The values each location may hold: its initial value, the client's literals
/// (for the client's own locations), and every value a call writes to it (a `Val`
/// argument of a call naming the location; a call naming two locations — a put or
/// a get — may copy either's values to the other), to a fixpoint. A value written
/// in an execution is computed from values read in it, so after as many rounds as
/// an execution has writes every value written is in the domain of its location.
/// A copy (a get's, a put's) makes no new value: each round closes the sets under
/// the copies its calls make, so only the other writes count.
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

/// Per thread, the calls its unfoldings made, each with its position in the thread's calls.
type CallsOf = Vec<Vec<(usize, CallRecord)>>;

/// Why ⟦p̃⟧_I has no value domain: a limit cut the fixpoint (the client's check is
/// inconclusive), or the implementation cannot be unfolded (an error of its own).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DomainError {
    #[error("{0}")]
    Cut(String),
    #[error("{0}")]
    Input(String),
}

impl From<EngineError> for DomainError {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::Unfold(ref u) if u.is_limit() => DomainError::Cut(format!("unfolding was cut: {e}")),
            EngineError::Limit(why) => DomainError::Cut(why),
            e => DomainError::Input(e.to_string()),
        }
    }
}

pub(super) fn value_domain(q: &mut Problem, base: &ValueDomain) -> Result<DomainFixpoint, DomainError> {
    let nlocs = q.world.locs.len();
    let mut sets = DomainSets::new(nlocs, |l| {
        let mut s: BTreeSet<Value> = base.at(l).iter().cloned().collect();
        s.insert(q.world.locs[l].init.clone());
        s
    });
    // the constants: the client's values, the initial values and the libraries' own
    // literals (which their `writes` put where they are written)
    let mut constants: BTreeSet<Value> = sets.per_loc.iter().flatten().cloned().collect();
    constants.extend(q.libs.iter().flat_map(|l| l.constants()));
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
    // instead of unfolding (with the calls they made).
    let mut again: Option<(Vec<explicit::Unfolded>, CallsOf)> = None;
    // the round's domain, which the writes read (built once per round: the end of
    // a round builds the next one's)
    let mut vd = sets.domain();
    for round in 0..MAX_ROUNDS {
        let before = sets.size();
        let writers_before = writers.clone();
        let (unfolded, calls_of) = match again.take() {
            Some(previous) => previous,
            None => {
                q.domain = vd.clone();
                q.own_cells = own_of(&writers);
                let mut unfolded = Vec::with_capacity(q.threads.len());
                let mut calls_of = Vec::with_capacity(q.threads.len());
                for t in 0..q.threads.len() {
                    let mut calls: Vec<(usize, CallRecord)> = Vec::new();
                    let u = explicit::unfold_thread_observing(q, t, &mut |pos, c| calls.push((pos, c.clone())))?;
                    unfolded.push(u);
                    calls_of.push(calls);
                }
                (unfolded, calls_of)
            }
        };
        // A value that is no constant is derived from read values: its derivation
        // chain passes through writes of non-constant values only, so the most such
        // writes an execution can have bounds the rounds needed. Per thread, a run
        // has at most one call per position: the positions where a call may write a
        // non-constant value bound its count.
        let mut max_writes = 0;
        for (t, calls) in calls_of.iter().enumerate() {
            let mut dependent: BTreeSet<usize> = BTreeSet::new();
            for (pos, c) in calls {
                for (cell, v) in q.libs[c.lib].written_cells(&q.world, t, c.method, &c.args) {
                    let e = writers.entry(cell).or_default();
                    e.0.insert(t);
                    e.1 |= v.is_none();
                }
                if sets.add_call(q.libs[c.lib], &q.world, t, c, &vd, &constants) {
                    dependent.insert(*pos);
                }
            }
            max_writes += dependent.len();
        }
        // copies make no new value: closed within the round (they cost no round)
        let calls: Vec<(&dyn mowgli_core::Library, usize, &CallRecord)> = calls_of
            .iter()
            .enumerate()
            .flat_map(|(t, cs)| cs.iter().map(move |(_, c)| (t, c)))
            .map(|(t, c)| (q.libs[c.lib], t, c))
            .collect();
        sets.close_copies(&q.world, &calls);
        let after = sets.size();
        let stable = writers == writers_before;
        if stable && (after == before || round > max_writes) {
            // this round's unfoldings are those of the final domain and own cells
            // iff it added nothing (also when they were taken again: they are
            // then what unfolding on this round's domain gives)
            let last = (after == before).then_some(unfolded);
            return Ok((sets.domain(), own_of(&writers), last));
        }
        if let Some((l, n)) = sets.over(MAX_VALUES) {
            return Err(DomainError::Cut(format!(
                "value domain was cut: location `{}` may hold more than {MAX_VALUES} values ({n} after {} rounds of \
                 the values the implementation computes); lower the bounds",
                q.world.locs[l].name,
                round + 1
            )));
        }
        // The unfoldings depend on the domain only through the return values the
        // libraries offered, read from the locations they asked about (and the
        // messages): where those kept their values, and the own cells are the same
        // (`stable`), the next round would unfold exactly as this one did.
        // (the sets only grow: the same size is the same set)
        let next = sets.domain();
        let consulted_grew = q.domain.consulted_locations().any(|l| q.domain.at(l).len() != next.at(l).len())
            || (q.domain.messages_consulted() && q.domain.messages() != next.messages());
        if stable && !consulted_grew {
            again = Some((unfolded, calls_of));
        }
        vd = next;
    }
    Err(DomainError::Cut(format!(
        "value domain was cut: the values the implementation computes do not settle within {MAX_ROUNDS} rounds; \
         lower the bounds"
    )))
}
