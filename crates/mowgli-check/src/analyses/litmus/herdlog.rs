//! herd7's verdict and log format for tests read from herd's x86 format
//! ([`super::herd`]): `mowgli litmus --format herd` writes what mcompare7 and
//! msum7 read (`docs/formats.md`, "herd7 x86 tests").

use serde::Serialize;

use super::herd::{HerdInfo, Quant};
use super::lower::{self, Lowered};
use super::TestReport;
use crate::engines::explicit::Results;

/// herd7's verdict of one test.
#[derive(Clone, Debug, Serialize)]
pub struct HerdResult {
    pub arch: &'static str,
    /// herd's test name.
    pub name: String,
    /// `Allowed` (exists), `Forbidden` (~exists) or `Required` (forall).
    pub kind: &'static str,
    /// The final states, restricted to the observed locations, as herd prints
    /// them (`0:EAX=1; [x]=2;`) and in herd's order.
    pub states: Vec<String>,
    /// herd's `Ok`: the condition's claim holds (exists: some execution satisfies
    /// the proposition; ~exists: none does; forall: all do).
    pub ok: bool,
    /// Consistent executions whose final state satisfies the proposition, and
    /// those whose state does not.
    pub positive: u64,
    pub negative: u64,
    /// The condition as herd prints it.
    pub condition: String,
    /// `Never` (no execution satisfies the proposition), `Always` (every one
    /// does) or `Sometimes`.
    pub observation: &'static str,
    pub hash: Option<String>,
    pub seconds: f64,
}

/// Compares two states by value, numerically where both are integers.
fn cmp_values(a: &[String], b: &[String]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x.parse::<i64>(), y.parse::<i64>()) {
            (Ok(i), Ok(j)) => i.cmp(&j),
            _ => x.cmp(y),
        };
        if o.is_ne() {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// The herd verdict of a run: `res` must count every execution
/// ([`crate::engines::explicit::Problem::all_executions`]) and `low` show every observed
/// memory location.
pub fn result(h: &HerdInfo, low: &Lowered, res: &Results) -> HerdResult {
    let (mut pos, mut neg) = (0u64, 0u64);
    let mut states: Vec<Vec<String>> = Vec::new();
    for (o, n) in &res.executions {
        let shown = lower::show_outcome(low, o);
        let values: Vec<String> =
            h.observed.iter().map(|l| shown.get(&l.key()).cloned().unwrap_or_else(|| "?".into())).collect();
        if h.prop.holds(&shown) {
            pos += n;
        } else {
            neg += n;
        }
        states.push(values);
    }
    states.sort_by(|a, b| cmp_values(a, b));
    states.dedup();
    let states = states
        .iter()
        .map(|vs| h.observed.iter().zip(vs).map(|(l, v)| format!("{}={v};", l.herd())).collect::<Vec<_>>().join(" "))
        .collect();
    let ok = match h.quant {
        Quant::Exists => pos > 0,
        Quant::NotExists => pos == 0,
        Quant::Forall => neg == 0,
    };
    HerdResult {
        arch: h.arch.name(),
        name: h.name.clone(),
        kind: h.kind(),
        states,
        ok,
        positive: pos,
        negative: neg,
        condition: h.condition(),
        observation: if pos == 0 {
            "Never"
        } else if neg == 0 {
            "Always"
        } else {
            "Sometimes"
        },
        hash: h.hash.clone(),
        seconds: res.stats.micros as f64 / 1e6,
    }
}

impl HerdResult {
    /// The test in herd7's log format.
    pub fn log(&self) -> String {
        let mut s = format!("Test {} {}\nStates {}\n", self.name, self.kind, self.states.len());
        for st in &self.states {
            s += st;
            s += "\n";
        }
        s += if self.ok { "Ok\n" } else { "No\n" };
        // herd prints the executions that make `~exists` fail as its positive ones
        let (p, n) = match self.kind {
            "Forbidden" => (self.negative, self.positive),
            _ => (self.positive, self.negative),
        };
        s += &format!("Witnesses\nPositive: {p} Negative: {n}\n");
        s += &format!("Condition {}\n", self.condition);
        s += &format!("Observation {} {} {} {}\n", self.name, self.observation, self.positive, self.negative);
        s += &format!("Time {} {:.2}\n", self.name, self.seconds);
        if let Some(h) = &self.hash {
            s += &format!("Hash={h}\n");
        }
        s += "\n";
        s
    }
}

/// `mowgli litmus --format herd` for one report: the herd log of a herd test;
/// a test of the project's format is refused (herd's log has one condition per
/// test and numbered threads).
pub fn log(r: &TestReport) -> Result<String, super::InputError> {
    match &r.herd {
        Some(h) => Ok(h.log()),
        // the option is the culprit: shown on the command line, naming the test
        None => Err(super::InputError::on_option(
            "--format",
            "herd",
            format!(
                "--format herd writes herd7 logs of herd7 x86 tests only; `{}` ({}) is a test of Mowgli's own \
                 format (use the default output or --json)",
                r.name, r.file
            ),
        )),
    }
}

/// The human-readable report of a herd test.
pub fn render(r: &TestReport, h: &HerdResult, stats: bool) -> String {
    let mut s = format!("test {} ({}) [herd {}, run as rdmatso on node 1]\n", r.name, r.file, h.arch);
    s += &format!("  states ({}):\n", h.states.len());
    for st in &h.states {
        s += &format!("    {}\n", if st.is_empty() { "(nothing observed)" } else { st });
    }
    let verdict = format!(
        "herd: {} {}, {} (positive {}, negative {})",
        h.kind,
        if h.ok { "Ok" } else { "No" },
        h.observation,
        h.positive,
        h.negative
    );
    match r.expectations.first() {
        None => s += &format!("  {:5} {}: {verdict}; an observation, it checks nothing\n", "info", h.condition),
        Some(e) => {
            s += &format!("  {:5} {}: {verdict}\n", e.status(), h.condition);
            if let (false, Some(x)) = (e.passed(), &e.execution) {
                s += "        counterexample: a consistent execution with this outcome\n";
                for l in x.lines() {
                    s += &format!("          {l}\n");
                }
            }
            if let Some(n) = &e.known {
                s += &format!("        documented disagreement (# DISAGREES): {n}\n");
            }
        }
    }
    if let Some(why) = &r.no_outcome {
        s += &format!("  EMPTY no outcome: {why}; its condition is not checked\n");
    }
    if stats {
        let st = &r.stats;
        s += &format!(
            "  stats: {} plain executions, {} candidates explored, {} consistent, {:.3} ms\n",
            st.plain,
            st.candidates,
            st.consistent,
            st.micros as f64 / 1000.0
        );
    }
    s
}
