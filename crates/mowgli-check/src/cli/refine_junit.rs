//! `mowgli refine --junit FILE`: one JUnit test case per given client (its class
//! the implementation), or one for a whole generated run.

use std::path::Path;

use mowgli_check::analyses::junit::{self, Case};
use mowgli_check::analyses::refine::{ClientReport, ClientVerdict};
use mowgli_check::analyses::verdict::{Decided, Verdict};

/// The case of one checked client of implementation `imp`.
pub fn client(imp: &str, r: &ClientReport, seconds: f64) -> Case {
    let (verdict, why) = match r.verdict {
        ClientVerdict::Fail => {
            (Verdict::Counterexample, "the implementation reaches an outcome the specification forbids")
        }
        ClientVerdict::Inconclusive => {
            (Verdict::Inconclusive, r.inconclusive.as_deref().unwrap_or("a limit cut the check"))
        }
        _ => (Verdict::Verified, "every implementation outcome is a specification outcome"),
    };
    let details = match &r.counterexample {
        Some(c) => {
            let o: Vec<String> = c.outcome.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} ({}): the implementation reaches {}:\n{}", r.name, r.file, o.join("; "), c.execution)
        }
        None => String::new(),
    };
    Case::of_verdict(&format!("mowgli.refine.{imp}"), &r.name, seconds, Verdict::Verified, verdict, why, &details)
}

/// The case of a client file that could not be read or checked.
pub fn error(imp: &str, file: &str, d: &mowgli_diag::Diagnostic) -> Case {
    Case::of_verdict(
        &format!("mowgli.refine.{imp}"),
        file,
        0.0,
        Verdict::Verified,
        Verdict::Error,
        &d.headline(),
        &d.render(),
    )
}

/// The case of a whole run (generated clients), decided as `decided`.
pub fn run(imp: &str, seconds: f64, decided: &Decided, details: &str) -> Case {
    Case::of_verdict("mowgli.refine", imp, seconds, Verdict::Verified, decided.verdict, &decided.why, details)
}

/// Writes the report to `file`; when it cannot, the run's verdict becomes `error`.
pub fn write(file: &Path, cases: Vec<Case>, decided: &mut Decided) {
    let suite = junit::Suite { name: "refine".into(), cases };
    if let Err(e) = std::fs::write(file, junit::render("mowgli refine", &[suite])) {
        eprintln!("{}: cannot write: {e}", file.display());
        *decided = Decided::new(Verdict::Error, format!("the JUnit report {} could not be written", file.display()));
    }
}
