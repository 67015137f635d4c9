//! The counts of a litmus run and its verdict: what `mowgli litmus` prints in its
//! summary line and decides its exit status by, and what `mowgli check` decides a
//! `[[litmus]]` entry by.

use super::TestReport;
use crate::analyses::verdict::{Decided, Verdict, BOUNDED};

/// The counts of a run over some tests (`reports`) and inputs that could not be
/// read (`errors`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub tests: usize,
    pub expectations: usize,
    /// Expectations that fail (not `known`, not unchecked).
    pub failed: usize,
    /// Expectations that fail as documented (`# DISAGREES:`).
    pub known: usize,
    /// Expectations of tests that reached no outcome.
    pub unchecked: usize,
    /// Expectations a run cut by a limit could not decide.
    pub undecided: usize,
    /// Tests a limit cut.
    pub cut: usize,
    /// Outcomes that differ between two engines (`--engine both`).
    pub differences: usize,
    /// Tests with no outcome at all (a failure).
    pub empty: usize,
    /// Tests with no outcome within the unrolling bound (undecided).
    pub empty_bounded: usize,
    /// Tests with outcomes where a loop reached the unrolling bound and what they
    /// claim is not all decided ([`TestReport::bound_open`]).
    pub bound_open: usize,
    /// Of `undecided`, the expectations of `bound_open` tests.
    pub undecided_bounded: usize,
    /// Inputs unreadable, malformed or unwritable.
    pub errors: usize,
    /// Some loop reached the unrolling bound.
    pub bounded: bool,
}

impl Summary {
    pub fn of(reports: &[TestReport], errors: usize) -> Summary {
        // the expectations of a test with no outcome are unchecked: neither ok nor FAIL
        let count = |p: &dyn Fn(&super::ExpectReport) -> bool| -> usize {
            reports.iter().map(|r| r.expectations.iter().filter(|e| !e.no_outcome && p(e)).count()).sum()
        };
        let expectations: usize = reports.iter().map(|r| r.expectations.len()).sum();
        Summary {
            tests: reports.len(),
            expectations,
            failed: count(&|e| !e.passed()),
            known: count(&|e| e.decided && !e.ok && e.known.is_some()),
            unchecked: expectations - count(&|_| true),
            undecided: count(&|e| !e.decided),
            cut: reports.iter().filter(|r| r.inconclusive.is_some()).count(),
            differences: reports.iter().map(|r| r.engine_differences.len()).sum(),
            empty: reports.iter().filter(|r| r.empty()).count(),
            empty_bounded: reports.iter().filter(|r| r.empty_bounded()).count(),
            bound_open: reports.iter().filter(|r| r.bound_open()).count(),
            undecided_bounded: reports
                .iter()
                .filter(|r| r.bound_open())
                .map(|r| r.expectations.iter().filter(|e| !e.decided).count())
                .sum(),
            errors,
            bounded: reports.iter().any(|r| r.bounded),
        }
    }

    /// Expectations that hold (and were decided).
    pub fn ok(&self) -> usize {
        self.expectations - self.failed - self.known - self.unchecked - self.undecided
    }

    pub fn verdict(&self) -> Verdict {
        Verdict::of(
            self.errors > 0,
            self.failed + self.differences + self.empty > 0,
            self.empty_bounded + self.cut + self.bound_open == 0,
        )
    }

    /// The verdict and its reason.
    pub fn decide(&self) -> Decided {
        let verdict = self.verdict();
        let nexp = self.expectations;
        let mut failures = Vec::new();
        if self.failed > 0 || self.empty + self.differences == 0 {
            failures.push(format!("{} of {nexp} expectations fail", self.failed));
        }
        if self.differences > 0 {
            failures.push(format!("{} outcomes differ between the engines", self.differences));
        }
        if self.empty > 0 {
            failures.push(format!(
                "{} tests reach no outcome (no consistent execution; {} expectations unchecked)",
                self.empty, self.unchecked
            ));
        }
        let mut undecided = Vec::new();
        if self.cut > 0 {
            undecided.push(format!(
                "{} tests cut by a limit, {} of {nexp} expectations undecided (see INCONCLUSIVE above)",
                self.cut,
                self.undecided - self.undecided_bounded
            ));
        }
        if self.bound_open > 0 {
            undecided.push(format!(
                "{} tests where a loop reached the unrolling bound, {} of {nexp} expectations undecided: runs \
                 that stay in the loop longer were not explored (raise --loop-bound)",
                self.bound_open, self.undecided_bounded
            ));
        }
        if self.empty_bounded > 0 {
            undecided.push(format!(
                "{} tests reach no outcome within the unrolling bound: whether they have one is undecided",
                self.empty_bounded
            ));
        }
        let why = match verdict {
            Verdict::Error => format!("{} inputs unreadable, malformed or unwritable", self.errors),
            Verdict::Counterexample => failures.join("; "),
            Verdict::Inconclusive => {
                format!("{}; {} of {nexp} expectations hold", undecided.join("; "), self.ok())
            }
            Verdict::Verified => format!(
                "{} of {nexp} expectations hold, {} documented disagreements{}",
                nexp - self.known,
                self.known,
                if self.bounded { BOUNDED } else { "" }
            ),
        };
        Decided::new(verdict, why)
    }
}

/// What did not pass in one test, for a report that lists only those (`mowgli
/// check`, JUnit): its failing, undecided or unchecked expectations (with the
/// counterexample execution), engine differences, why it was cut.
pub fn details(r: &TestReport) -> Option<String> {
    if r.all_ok() {
        return None;
    }
    let mut lines = vec![format!("{} ({}):", r.name, r.file)];
    for e in r.expectations.iter().filter(|e| !e.passed() || !e.decided) {
        lines.push(format!("  {} line {}: expect {} {}", e.status(), e.line, e.kind, e.condition));
        if let Some(x) = &e.execution {
            lines.extend(x.lines().map(|l| format!("    {l}")));
        }
    }
    lines.extend(r.engine_differences.iter().map(|d| format!("  engines differ: {d}")));
    if let Some(why) = &r.inconclusive {
        lines.push(format!("  inconclusive: {why}"));
    }
    if let Some(why) = &r.no_outcome {
        lines.push(format!("  no outcome: {why}"));
    }
    Some(lines.join("\n"))
}
