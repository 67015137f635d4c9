//! The implementation checks a stamp order decides: local-soundness obligations
//! and refinement on generated clients, run under a base and a variant order.

use super::*;
use mowgli_libs::catalogue::Catalogue;

/// How an implementation is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Method {
    /// Local-soundness obligations with the file's concretisation map (`mowgli obligations`).
    Obligations,
    /// Bounded refinement on generated clients (`mowgli refine --calls`).
    Refine,
}

/// One check of one implementation at one bound.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub implementation: PathBuf,
    pub method: Method,
    pub bounds: Bounds,
}

impl Check {
    /// `isv obligations 2×2×1` (threads × nodes × calls per thread).
    pub fn label(&self) -> String {
        let stem = self.implementation.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let m = match self.method {
            Method::Obligations => "obligations",
            Method::Refine => "refine",
        };
        format!("{stem} {m} {}×{}×{}", self.bounds.threads, self.bounds.nodes, self.bounds.calls)
    }
}

/// The checks of the built-in implementations, at bounds where one pass over all of
/// them takes about a second (release build). Obligations: I_SV 2 threads × 2 nodes ×
/// 1 call, I_BAL / I_BAL_all / I_RBL (rings their writer does not read, see
/// docs/obligations.md) 2 × 2 × 2, I_MSW 2 × 2 × 1. Refinement (generated clients):
/// I_SV, I_BAL, I_BAL_all, I_RBL 2 × 2 × 2, I_MSW and I_W 2 × 2 × 1.
pub fn default_suite(dir: &Path) -> Vec<Check> {
    // rings as the paper's tests have them: the writer does not read its ring (the
    // self-read-ring finding, docs/obligations.md#self-read-rings, fails I_RBL under
    // every stamp order) and no observer library (its cost per flipped cell)
    let paper = |lib: &str, t, n, c| {
        let mut b = Bounds::new(lib, t, n, c);
        b.self_ring = false;
        b.self_reading_writers = false;
        let order = mowgli_libs::orders::default_order();
        if Catalogue::builtins().library(lib, &order).is_ok_and(|l| Bounds::takes_rings(&*l)) {
            b.observer = None;
        }
        b
    };
    // the rows name the paper's shipped implementation and library files (data,
    // not a name test: no behaviour depends on which library a row names)
    let mut out = Vec::new();
    let ob = |name: &str, lib: &str, t, n, c| Check {
        implementation: dir.join(format!("{name}.impl")),
        method: Method::Obligations,
        bounds: paper(lib, t, n, c),
    };
    out.push(ob("isv", "sv", 2, 2, 1));
    out.push(ob("ibal", "bal", 2, 2, 2));
    out.push(ob("ibal_all", "bal_all", 2, 2, 2));
    out.push(ob("irbl", "rbl", 2, 2, 2));
    out.push(ob("imsw", "msw", 2, 2, 1));
    let rf = |name: &str, lib: &str, t, n, c| Check {
        implementation: dir.join(format!("{name}.impl")),
        method: Method::Refine,
        bounds: paper(lib, t, n, c),
    };
    out.push(rf("isv", "sv", 2, 2, 2));
    out.push(rf("ibal", "bal", 2, 2, 2));
    out.push(rf("ibal_all", "bal_all", 2, 2, 2));
    out.push(rf("irbl", "rbl", 2, 2, 2));
    out.push(rf("imsw", "msw", 2, 2, 1));
    out.push(rf("iw", "rdmawait", 2, 2, 1));
    out
}

/// The verdict of one check under one stamp order.
#[derive(Clone, Debug, Serialize)]
pub struct CheckResult {
    pub check: String,
    pub holds: bool,
    /// The first refutation: `O1 for GF: …` or `client gen-sv-12 reaches …`.
    pub failure: Option<String>,
    /// The abstract program or client (litmus text) that refutes it.
    pub witness: Option<String>,
    /// Abstract programs (obligations) or clients (refinement) checked.
    pub checked: usize,
    /// The check could not run (an input or model error).
    pub error: Option<String>,
    pub millis: f64,
}

/// Runs `check` under `order`; with `first_fail`, stops at the first refutation.
pub fn run_check(
    check: &Check,
    order: &StampOrder,
    cat: &Catalogue,
    loop_bound: usize,
    first_fail: bool,
) -> CheckResult {
    let start = Instant::now();
    let mut r = CheckResult {
        check: check.label(),
        holds: false,
        failure: None,
        witness: None,
        checked: 0,
        error: None,
        millis: 0.0,
    };
    let imp = match Implementation::load(&check.implementation, order, cat) {
        Ok(i) => i,
        Err(e) => {
            r.error = Some(e.to_string());
            return r;
        }
    };
    let file = check.implementation.display().to_string();
    match check.method {
        Method::Obligations => {
            let clients = match obligations::abstract_programs(&imp, order, &check.bounds) {
                Ok(c) => c,
                Err(e) => {
                    r.error = Some(format!("{file}: {e}"));
                    return r;
                }
            };
            let opts = obligations::Options { loop_bound, time_limit: None, first_fail, ..Default::default() };
            match obligations::check_clients(&imp, order, &clients, &imp.map, &opts) {
                Ok(rep) => {
                    r.checked = rep.clients;
                    r.holds = rep.failures.is_empty();
                    if let Some(f) = rep.failures.first() {
                        r.failure = Some(format!("{} for {}: {}", f.obligation.name(), f.methods.join(", "), f.reason));
                        r.witness = Some(f.client.clone());
                    }
                }
                Err(e) => r.error = Some(format!("{file}: {e}")),
            }
        }
        Method::Refine => {
            let opts = RunOptions {
                partition: Partition::ALL,
                first_fail,
                loop_bound,
                jobs: 1,
                time_limit: None,
                screen: true,
                engine: crate::engines::explicit::Backend::Explicit,
            };
            match gen::run(&imp, order, &check.bounds, &opts, &|_| {}) {
                Ok(rep) => {
                    r.checked = rep.checked;
                    r.holds = rep.failed == 0 && rep.errors == 0;
                    if let Some(f) = rep.failures.first() {
                        let outcome = f
                            .report
                            .counterexample
                            .as_ref()
                            .map(|c| c.outcome.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "))
                            .unwrap_or_default();
                        r.failure = Some(format!(
                            "client {} ({} calls) reaches {outcome}, which the specification forbids",
                            f.name, f.size
                        ));
                        r.witness = Some(f.text.clone());
                    } else if let Some(e) = rep.first_error {
                        r.error = Some(e);
                    }
                }
                Err(e) => r.error = Some(format!("{file}: {e}")),
            }
        }
    }
    r.millis = start.elapsed().as_secs_f64() * 1000.0;
    r
}

/// One check under both orders.
#[derive(Clone, Debug, Serialize)]
pub struct CheckComparison {
    pub check: String,
    pub base: CheckResult,
    pub variant: CheckResult,
}

impl CheckComparison {
    /// Holds under the base, refuted under the variant.
    pub fn broken(&self) -> bool {
        self.base.holds && !self.variant.holds && self.variant.error.is_none()
    }
    /// Refuted under the base, holds under the variant.
    pub fn repaired(&self) -> bool {
        !self.base.holds && self.base.error.is_none() && self.variant.holds
    }
}

/// Runs every check of `suite` under `base` and `variant` (in parallel).
pub fn compare_checks(
    suite: &[Check],
    base: &StampOrder,
    variant: &StampOrder,
    loop_bound: usize,
    cat: &Catalogue,
) -> Vec<CheckComparison> {
    suite
        .par_iter()
        .map(|c| {
            let (b, v) = rayon::join(
                || run_check(c, base, cat, loop_bound, true),
                || run_check(c, variant, cat, loop_bound, true),
            );
            CheckComparison { check: c.label(), base: b, variant: v }
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Cell sensitivity
