//! The references the fix search is checked against: the exhaustive search it
//! replaced, and the blocking test on the written program.

use mowgli_core::StampOrder;
use mowgli_libs::catalogue::Catalogue;

use super::*;
use crate::lang::InputError;

/// The search [`fix`] replaced, kept as its reference: every set of candidates by
/// increasing count (then cost, then candidate order), each written into the text and
/// checked in full; it stops before a count whose sets would take it past
/// [`FIX_BUDGET`] checked programs.
pub fn fix_exhaustive(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
    goal: FixGoal,
) -> Result<Option<Fix>, InputError> {
    let reached = |r: &RobustReport| {
        r.executions > 0
            && match goal {
                FixGoal::Syntactic => r.syntactic.sufficient(),
                FixGoal::Exact => r.robust,
            }
    };
    let base = check_text(file, text, order, cat, Some(model))?;
    if reached(&base) {
        return Ok(Some(Fix { goal, insertions: vec![], text: text.to_string(), tried: 1 }));
    }
    if base.executions == 0 {
        return Ok(None);
    }
    let Some(c) = Candidates::of(file, &parsed(file, text)?, model, cat, order)? else { return Ok(None) };
    let mut tried = 1;
    for k in 1..=c.cands.len() {
        let Some(sets) = subsets_by_cost(&c, k, FIX_BUDGET - tried) else { break };
        if tried + sets.len() > FIX_BUDGET {
            break;
        }
        for (_, set) in sets {
            let (out, _) = c.render(&set);
            tried += 1;
            let r = match check_parsed(&Subject::new(file, text, order, cat), out.clone(), Some(model), true) {
                Ok(r) => r,
                Err(_) => continue,
            };
            if reached(&r) {
                let text = crate::lang::print::print(&out);
                return Ok(Some(Fix { goal, insertions: c.insertions(&set), text, tried }));
            }
        }
    }
    Ok(None)
}

/// The sets of up to `k` candidates of the test on which the counted
/// [`Candidates::blocks`] and the one that reads the written program disagree, and
/// the number of sets compared (`tests/robust.rs` checks there are none).
pub fn blocks_disagree(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
    k: usize,
) -> Result<(Vec<String>, usize), InputError> {
    let Some(c) = Candidates::of(file, &parsed(file, text)?, model, cat, order)? else { return Ok((vec![], 0)) };
    let mut bad = Vec::new();
    let mut compared = 0;
    for size in 1..=k.min(c.cands.len()) {
        let Some(sets) = subsets_by_cost(&c, size, FIX_SETS) else { break };
        for (_, set) in sets {
            compared += 1;
            if c.blocks(&set) != c.blocks_written(&set) {
                bad.push(crate::lang::print::print(&c.render(&set).0));
            }
        }
    }
    Ok((bad, compared))
}

/// How many candidate insertions the test has (`None`: a thread has control flow).
pub fn candidate_count(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
) -> Result<Option<usize>, InputError> {
    Ok(Candidates::of(file, &parsed(file, text)?, model, cat, order)?.map(|c| c.cands.len()))
}
