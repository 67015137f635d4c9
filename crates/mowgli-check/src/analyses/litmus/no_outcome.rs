//! A test that reaches no outcome at all: its program has no consistent execution
//! (every candidate is inconsistent, or no unfolding completes). Such a test cannot
//! vouch for any of its expectations: a `forbidden` line holds of an empty outcome
//! set only vacuously, an `allowed` line fails. Its expectations are reported as
//! `EMPTY` (not `ok`), and the run's verdict is a failure (`counterexample`, exit 1),
//! or `inconclusive` (exit 3) when a loop reached the unrolling bound, since
//! executions beyond the bound were not explored (docs/user-guide.md, "A test
//! with no outcome"). A test that means to have no outcome says so with `expect
//! forbidden true` (no outcome at all is allowed): its expectations are checked
//! as usual.

use super::TestReport;
use crate::engines::explicit::Stats;
use crate::lang::lower::{Lowered, RCond};

/// The test states that it has no outcome: one of its expectations is `forbidden true`.
pub(super) fn expected(low: &Lowered) -> bool {
    low.expects.iter().any(|e| !e.allowed && e.cond == RCond::True)
}

impl TestReport {
    /// When the test reached no outcome and does not say it has none ([`expected`]):
    /// records why (`reason`) and turns every expectation into a non-passing `EMPTY` one.
    pub(super) fn mark_no_outcome(&mut self, low: &Lowered, reason: impl FnOnce() -> String) {
        // a run a limit cut (`inconclusive`) says so itself: its outcomes may be missing
        if !self.outcomes.is_empty() || expected(low) || self.inconclusive.is_some() {
            return;
        }
        for e in &mut self.expectations {
            e.ok = false;
            e.no_outcome = true;
        }
        self.no_outcome = Some(reason());
    }

    /// The test reached no outcome and no bound cut its search: a failed check.
    pub fn empty(&self) -> bool {
        self.no_outcome.is_some() && !self.bounded
    }

    /// The test reached no outcome, but a loop reached the unrolling bound: whether
    /// it has an outcome is undecided.
    pub fn empty_bounded(&self) -> bool {
        self.no_outcome.is_some() && self.bounded
    }

    /// A loop reached the unrolling bound in a test with outcomes, and they do not
    /// decide all it claims: an undecided expectation, or none at all (its outcome
    /// list is the claim, and it may be missing some). Inconclusive.
    pub fn bound_open(&self) -> bool {
        self.bounded
            && self.inconclusive.is_none()
            && self.no_outcome.is_none()
            && (self.expectations.is_empty() || self.expectations.iter().any(|e| !e.decided))
    }
}

/// Why the declarative engine found no outcome, from what its search saw.
pub(super) fn declarative_reason(stats: &Stats, stuck_msg: Option<&str>, bounded: bool) -> String {
    let why = match (stats.plain, stats.stuck, stuck_msg) {
        (0, s, Some(m)) if s > 0 => {
            format!("no execution: every unfolding of the threads stopped at an expression error (first: {m})")
        }
        (0, _, _) => "no execution: the threads have no plain execution (no call has a value to return in the \
                      value domain, or no loop exits within the unrolling bound)"
            .to_string(),
        (p, _, _) => format!(
            "no consistent execution: none of the {p} plain executions has a witness the libraries' axioms \
             accept ({} complete candidates checked)",
            stats.complete
        ),
    };
    with_bound(why, bounded)
}

/// Why an operational machine found no outcome.
pub(super) fn machine_reason(bounded: bool) -> String {
    with_bound("no execution: the machine reaches no final state".to_string(), bounded)
}

fn with_bound(why: String, bounded: bool) -> String {
    if bounded {
        format!("{why}; a loop reached the unrolling bound, so executions beyond it were not explored: inconclusive")
    } else {
        why
    }
}
