//! The verdict of a refinement check on given clients (`mowgli refine IMPL
//! --clients`, and the clients of a `[[refine]]` entry of `mowgli check`).

use super::{ClientReport, ClientVerdict};
use crate::analyses::verdict::{Decided, Verdict, BOUNDED};

/// The verdict on the clients checked (`reports`, skipped ones left out), with
/// `errors` inputs that could not be read or written, out of `files` tests given,
/// for an implementation of `implements`. No client at all among the tests (and
/// no error) is an input error: nothing was checked.
pub fn decide_clients(reports: &[ClientReport], errors: usize, files: usize, implements: &str) -> Decided {
    let failed = reports.iter().filter(|r| r.verdict == ClientVerdict::Fail).count();
    let spec_vacuous = reports.iter().filter(|r| r.spec_vacuous).count();
    let none = reports.is_empty() && errors == 0;
    let cut = reports.iter().filter(|r| r.verdict == ClientVerdict::Inconclusive).count();
    let verdict = Verdict::of(errors > 0 || none, failed > 0, cut == 0);
    let why = match verdict {
        Verdict::Error if none => {
            format!("none of the {files} tests given is a client of `{implements}`: nothing was checked")
        }
        Verdict::Error => format!("{errors} inputs unreadable, malformed or unwritable"),
        Verdict::Counterexample => format!(
            "{failed} of {} clients reach an outcome the specification forbids{}",
            reports.len(),
            if spec_vacuous > 0 {
                format!(" ({spec_vacuous} clients on which the specification has no consistent execution)")
            } else {
                String::new()
            }
        ),
        Verdict::Inconclusive => {
            format!("a limit cut the check of {cut} of {} clients (see `inconclusive:` above)", reports.len())
        }
        Verdict::Verified => format!(
            "every outcome of the implementation on the {} clients is an outcome of the specification{}",
            reports.len(),
            if reports.iter().any(|r| r.bounded) { BOUNDED } else { "" }
        ),
    };
    Decided::new(verdict, why)
}
