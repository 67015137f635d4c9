//! The verdict of a `mowgli` command: one contract for every command, its word
//! (in the human output and in `--json`) and its exit status decided here.
//!
//! | verdict | exit | meaning |
//! |---|---|---|
//! | `verified` | 0 | holds, or verified to the stated bound (the bound was covered) |
//! | `counterexample` | 1 | a counterexample was found, or an expectation fails |
//! | `error` | 2 | an input is unreadable or malformed (or an output cannot be written) |
//! | `inconclusive` | 3 | a time or size limit stopped the run before the bound was covered |
//!
//! When a run has several of these, the strongest wins: `error` over
//! `counterexample` (the report is about a broken input), `counterexample` over
//! `inconclusive` (a counterexample found before a limit stopped the run is one),
//! `inconclusive` over `verified`. [`Verdict::max`] combines them in that order.

use std::fmt;
use std::process::ExitCode;

use serde::Serialize;

/// Appended to the reason of a verified litmus run where a loop reached the
/// unrolling bound but the outcomes found decide every expectation (an `allowed`
/// line they satisfy); otherwise such a run is inconclusive (docs/user-guide.md,
/// "Verdicts and exit codes").
pub const BOUNDED: &str = "; a loop reached the unrolling bound, and the outcomes found decide every expectation";

/// The verdict of a run. The variants are ordered by strength (see the module
/// documentation): `a.max(b)` is the verdict of a run that has both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Holds, or verified to the stated bound: exit 0.
    Verified,
    /// A limit (time, size, number of tests) stopped the run before the bound was
    /// covered and nothing was refuted: exit 3.
    Inconclusive,
    /// A counterexample or a failed expectation: exit 1.
    Counterexample,
    /// An input is unreadable or malformed: exit 2.
    Error,
}

impl Verdict {
    /// Every verdict, weakest first.
    pub const ALL: [Verdict; 4] = [Verdict::Verified, Verdict::Inconclusive, Verdict::Counterexample, Verdict::Error];

    /// The word printed in the last line of the human output and in the `verdict`
    /// field of `--json`.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::Counterexample => "counterexample",
            Verdict::Error => "error",
            Verdict::Inconclusive => "inconclusive",
        }
    }

    /// The exit status.
    pub fn code(self) -> u8 {
        match self {
            Verdict::Verified => 0,
            Verdict::Counterexample => 1,
            Verdict::Error => 2,
            Verdict::Inconclusive => 3,
        }
    }

    pub fn exit(self) -> ExitCode {
        ExitCode::from(self.code())
    }

    /// The verdict of a run from what it found: an input error, a counterexample
    /// (or failed expectation), and whether its bound was covered.
    pub fn of(error: bool, counterexample: bool, covered: bool) -> Verdict {
        if error {
            Verdict::Error
        } else if counterexample {
            Verdict::Counterexample
        } else if !covered {
            Verdict::Inconclusive
        } else {
            Verdict::Verified
        }
    }

    /// [`Verdict::of`] for a run whose input diagnostics are `errors`: those that
    /// report a limit of the tool ([`mowgli_diag::Data::limit`]) leave the run
    /// uncovered (inconclusive); the others are input errors.
    pub fn of_errors(errors: &[mowgli_diag::Diagnostic], counterexample: bool, covered: bool) -> Verdict {
        let limits = errors.iter().any(|e| e.limit);
        Verdict::of(errors.iter().any(|e| !e.limit), counterexample, covered && !limits)
    }

    /// The last line of the human output: `verdict: WORD`, then why, if given.
    pub fn line(self, why: &str) -> String {
        if why.is_empty() {
            format!("verdict: {}", self.word())
        } else {
            format!("verdict: {} ({why})", self.word())
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// A verdict with the reason the report gives for it (how far the run got, what
/// failed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decided {
    pub verdict: Verdict,
    pub why: String,
}

impl Decided {
    pub fn new(verdict: Verdict, why: impl Into<String>) -> Decided {
        Decided { verdict, why: why.into() }
    }

    /// The last line of the human output.
    pub fn line(&self) -> String {
        self.verdict.line(&self.why)
    }

    /// `doc` (a JSON object) with the fields `verdict` and `verdict_reason` added;
    /// anything else is wrapped as `{"report": doc, "verdict": …}`.
    pub fn into_json(&self, doc: serde_json::Value) -> serde_json::Value {
        let mut doc = match doc {
            serde_json::Value::Object(m) => m,
            other => {
                let mut m = serde_json::Map::new();
                m.insert("report".into(), other);
                m
            }
        };
        doc.insert("verdict".into(), serde_json::Value::from(self.verdict.word()));
        doc.insert("verdict_reason".into(), serde_json::Value::from(self.why.clone()));
        serde_json::Value::Object(doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_words_are_the_contract() {
        let table: Vec<(u8, &str)> = Verdict::ALL.iter().map(|v| (v.code(), v.word())).collect();
        assert_eq!(table, [(0, "verified"), (3, "inconclusive"), (1, "counterexample"), (2, "error")]);
        for v in Verdict::ALL {
            assert_eq!(serde_json::to_value(v).ok(), Some(serde_json::Value::from(v.word())));
        }
    }

    #[test]
    fn the_strongest_verdict_wins() {
        assert_eq!(Verdict::of(true, true, false), Verdict::Error);
        assert_eq!(Verdict::of(false, true, false), Verdict::Counterexample);
        assert_eq!(Verdict::of(false, false, false), Verdict::Inconclusive);
        assert_eq!(Verdict::of(false, false, true), Verdict::Verified);
        assert_eq!(Verdict::Inconclusive.max(Verdict::Counterexample), Verdict::Counterexample);
        assert_eq!(Verdict::Verified.max(Verdict::Inconclusive), Verdict::Inconclusive);
    }

    #[test]
    fn json_gets_the_verdict_field() {
        let d = Decided::new(Verdict::Inconclusive, "stopped");
        let j = d.into_json(serde_json::json!({"a": 1}));
        assert_eq!(j["verdict"], "inconclusive");
        assert_eq!(j["a"], 1);
        assert_eq!(d.line(), "verdict: inconclusive (stopped)");
    }
}
