//! JUnit XML reports (`--junit FILE` of `mowgli check` and `mowgli litmus`), in
//! the shape GitLab's, Jenkins' and GitHub's test-report readers take:
//!
//! ```xml
//! <testsuites name="…" tests="…" failures="…" errors="…" skipped="…" time="…">
//!   <testsuite name="…" tests="…" failures="…" errors="…" skipped="…" time="…">
//!     <testcase classname="…" name="…" time="…">
//!       <failure message="…" type="…">details</failure>   (or <error>, <skipped>)
//!       <system-out>the verdict line</system-out>
//!     </testcase>
//!   </testsuite>
//! </testsuites>
//! ```
//!
//! A check that reached its expected verdict passes; one that reached another
//! verdict is a `<failure>`; bad input (exit 2) an `<error>`; an inconclusive
//! check (a limit stopped it) is `<skipped>`: it was not decided either way, and
//! the readers show a skipped test neither green nor red (docs/user-guide.md, "A
//! CI job").

use crate::analyses::verdict::Verdict;

/// What became of one test case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    /// A failed expectation: `message` (one line) and details.
    Failure {
        message: String,
        details: String,
    },
    /// Bad input.
    Error {
        message: String,
        details: String,
    },
    /// Undecided (a limit stopped the check).
    Skipped {
        message: String,
    },
}

/// One test case.
#[derive(Clone, Debug)]
pub struct Case {
    pub classname: String,
    pub name: String,
    pub seconds: f64,
    pub outcome: Outcome,
    /// Shown as the case's standard output (the verdict line).
    pub output: String,
}

impl Case {
    /// The case of a check whose run reached `verdict` (with its reason `why`)
    /// where `expected` was expected.
    pub fn of_verdict(
        classname: &str,
        name: &str,
        seconds: f64,
        expected: Verdict,
        verdict: Verdict,
        why: &str,
        details: &str,
    ) -> Case {
        let message = match verdict {
            Verdict::Error => format!("bad input: {why}"),
            Verdict::Inconclusive => format!("inconclusive: {why}"),
            _ => format!("expected {expected}, got {verdict}: {why}"),
        };
        let outcome = match verdict {
            v if v == expected => Outcome::Passed,
            Verdict::Error => Outcome::Error { message, details: details.to_string() },
            Verdict::Inconclusive => Outcome::Skipped { message },
            _ => Outcome::Failure { message, details: details.to_string() },
        };
        Case { classname: classname.to_string(), name: name.to_string(), seconds, outcome, output: verdict.line(why) }
    }
}

/// A suite of cases.
#[derive(Clone, Debug)]
pub struct Suite {
    pub name: String,
    pub cases: Vec<Case>,
}

#[derive(Default)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    seconds: f64,
}

impl Counts {
    fn of<'a>(cases: impl IntoIterator<Item = &'a Case>) -> Counts {
        let mut c = Counts::default();
        for case in cases {
            c.tests += 1;
            c.seconds += case.seconds;
            match case.outcome {
                Outcome::Passed => {}
                Outcome::Failure { .. } => c.failures += 1,
                Outcome::Error { .. } => c.errors += 1,
                Outcome::Skipped { .. } => c.skipped += 1,
            }
        }
        c
    }

    fn attributes(&self) -> String {
        format!(
            "tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\"",
            self.tests, self.failures, self.errors, self.skipped, self.seconds
        )
    }
}

/// The XML document of `suites`, named `name`.
pub fn render(name: &str, suites: &[Suite]) -> String {
    let all = Counts::of(suites.iter().flat_map(|s| &s.cases));
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out += &format!("<testsuites name=\"{}\" {}>\n", escape(name), all.attributes());
    for s in suites {
        let c = Counts::of(&s.cases);
        out += &format!("  <testsuite name=\"{}\" {}>\n", escape(&s.name), c.attributes());
        for case in &s.cases {
            out += &format!(
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\">\n",
                escape(&case.classname),
                escape(&case.name),
                case.seconds
            );
            match &case.outcome {
                Outcome::Passed => {}
                Outcome::Failure { message, details } => {
                    out += &format!(
                        "      <failure message=\"{}\" type=\"counterexample\">{}</failure>\n",
                        escape(message),
                        escape_text(details)
                    )
                }
                Outcome::Error { message, details } => {
                    out += &format!(
                        "      <error message=\"{}\" type=\"error\">{}</error>\n",
                        escape(message),
                        escape_text(details)
                    )
                }
                Outcome::Skipped { message } => out += &format!("      <skipped message=\"{}\"/>\n", escape(message)),
            }
            if !case.output.is_empty() {
                out += &format!("      <system-out>{}</system-out>\n", escape_text(&case.output));
            }
            out += "    </testcase>\n";
        }
        out += "  </testsuite>\n";
    }
    out += "</testsuites>\n";
    out
}

/// `s` as an XML attribute value: the five special characters as entities, line
/// breaks and tabs as character references (a reader would fold them to spaces
/// otherwise), other control characters (not allowed in XML 1.0) as `?`.
pub fn escape(s: &str) -> String {
    escape_as(s, true)
}

/// `s` as XML element text: as [`escape`], line breaks and tabs kept as they are.
pub fn escape_text(s: &str) -> String {
    escape_as(s, false)
}

fn escape_as(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '"' => out += "&quot;",
            '\'' => out += "&apos;",
            '\n' | '\t' if !attribute => out.push(c),
            '\n' => out += "&#10;",
            '\r' => out += "&#13;",
            '\t' => out += "&#9;",
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_control_characters() {
        assert_eq!(escape("a<b>&\"c'\n\u{1}"), "a&lt;b&gt;&amp;&quot;c&apos;&#10;?");
        assert_eq!(escape_text("a<b\n\tc]]>"), "a&lt;b\n\tc]]&gt;");
    }

    #[test]
    fn a_case_passes_when_its_verdict_is_the_expected_one() {
        let c = Case::of_verdict("k", "n", 0.0, Verdict::Counterexample, Verdict::Counterexample, "x", "");
        assert_eq!(c.outcome, Outcome::Passed);
        let c = Case::of_verdict("k", "n", 0.0, Verdict::Verified, Verdict::Inconclusive, "time", "");
        assert!(matches!(c.outcome, Outcome::Skipped { .. }));
        let c = Case::of_verdict("k", "n", 0.0, Verdict::Counterexample, Verdict::Verified, "held", "");
        assert!(matches!(c.outcome, Outcome::Failure { .. }));
    }
}
