//! The verdict of a refinement check on given clients (`mowgli refine IMPL
//! --clients`, and the clients of a `[[refine]]` entry of `mowgli check`).

use super::{ClientReport, ClientVerdict};
use crate::analyses::verdict::{Decided, Verdict};

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
            format!(
                "a limit or the unrolling bound cut the check of {cut} of {} clients (see `inconclusive:` above)",
                reports.len()
            )
        }
        Verdict::Verified => format!(
            "every outcome of the implementation on the {} clients is an outcome of the specification",
            reports.len(),
        ),
    };
    Decided::new(verdict, why)
}

/// A client as a section of the HTML report (`--html`): its verdict, its counts,
/// and the implementation execution that reaches a forbidden outcome, drawn.
pub fn section(r: &ClientReport) -> mowgli_draw::html::Section {
    use mowgli_draw::html::Tone;
    let tone = match r.verdict {
        ClientVerdict::Ok => Tone::Pass,
        ClientVerdict::Fail => Tone::Fail,
        _ => Tone::Other,
    };
    let mut text = format!(
        "{} ({}): {} implementation outcomes, {} specification outcomes\n",
        r.name, r.file, r.impl_outcomes, r.spec_outcomes
    );
    if let Some(why) = &r.inconclusive {
        text += &format!("inconclusive: {why}\n");
    }
    let mut graphs = Vec::new();
    if let Some(c) = &r.counterexample {
        let o: Vec<String> = c.outcome.iter().map(|(k, v)| format!("{k}={v}")).collect();
        text += &format!("the implementation reaches {}, which the specification forbids:\n", o.join("; "));
        text += &c.execution;
        if let Some(g) = &c.graph {
            graphs.push((
                "the implementation's execution, each abstract call's events boxed (the abstraction f)".to_string(),
                g.clone(),
            ));
        }
    }
    mowgli_draw::html::Section { name: r.name.clone(), status: r.verdict.to_string(), tone, text, graphs }
}
