//! What a stamp-order table decides, cell by cell (issue 5, parts 2c and 3).
//!
//! * [`compare_checks`] re-runs the implementation checks of a [`Suite`] — the
//!   local-soundness obligations (`mowgli obligations`) and bounded refinement on
//!   generated clients (`mowgli refine --calls`) — under a base and a variant stamp
//!   order and says which stop (or start) holding (`mowgli explore --impls`).
//! * [`cells`] flips every cell of a table (✓ ↔ ✗; SN → ✗ by default) and reports,
//!   per cell, the candidate litmus programs whose outcome set changes (with the
//!   smallest one) and the checks that stop holding (`mowgli cells`);
//!   [`heat_map_svg`] draws the table with one coloured, labelled square per cell.
//!
//! Candidate programs are plain [`Candidate`] lists, smallest first. Any source can
//! feed them: a corpus ([`corpus`]), the client generator of `impls::gen`
//! ([`generated`]), or a generator of distinguishing tests (a function returning
//! `Vec<Candidate>`; [`smallest_first`] orders the union).

use mowgli_libs::catalogue::Catalogue;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use mowgli_core::{Cell, StampOrder, StampTable};
use rayon::prelude::*;
use serde::Serialize;
use thiserror::Error;

use crate::analyses::litmus;
use crate::analyses::obligations;
use crate::analyses::refine::gen::{self, Bounds, Partition, RunOptions};
use crate::lang::implementation::Implementation;
use crate::lang::{syntax, InputError};

/// Errors of a sensitivity run that stop it (a bad table or cell name).
#[derive(Debug, Error)]
pub enum SensitivityError {
    #[error("the stamp order has no table `{0}` (tables: {1})")]
    NoTable(String, String),
    #[error("no cell `{0}` in table `{1}` (cells are named row letter + column number, A1 to {2})")]
    NoCell(String, String, String),
    #[error(transparent)]
    Input(#[from] InputError),
}

// ---------------------------------------------------------------------------
// Candidate programs

/// A litmus program that may distinguish two models.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub name: String,
    /// Where it comes from: a file path, or `generated:LIB`.
    pub file: String,
    #[serde(skip)]
    pub text: String,
    /// Instructions (statements of the thread bodies, nested ones included).
    pub size: usize,
}

fn count_stmts(ss: &[crate::lang::ast::Stmt]) -> usize {
    use crate::lang::ast::{Rhs, Stmt};
    ss.iter()
        .map(|s| match s {
            Stmt::If { then, els, .. } => {
                1 + count_stmts(&then.stmts) + els.as_ref().map_or(0, |b| count_stmts(&b.stmts))
            }
            Stmt::Loop(b, _) | Stmt::For { body: b, .. } => 1 + count_stmts(&b.stmts),
            Stmt::Let { rhs: Rhs::If(s), .. } | Stmt::Assign { rhs: Rhs::If(s), .. } => {
                count_stmts(std::slice::from_ref(s))
            }
            _ => 1,
        })
        .sum()
}

/// Parses a litmus text into a candidate (its name and instruction count).
pub fn candidate(file: &str, text: &str) -> Result<Candidate, InputError> {
    let ast = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    let size = ast.bodies.iter().map(|(_, b)| count_stmts(b)).sum();
    Ok(Candidate { name: ast.name.clone(), file: file.to_string(), text: text.to_string(), size })
}

/// Every `.litmus` file under `paths`.
pub fn corpus(paths: &[PathBuf]) -> Result<Vec<Candidate>, InputError> {
    let mut out = Vec::new();
    for f in litmus::collect(paths)? {
        let file = f.display().to_string();
        let text = mowgli_diag::read_source(&f, &file)?;
        out.push(candidate(&file, &text)?);
    }
    Ok(out)
}

/// The symmetry-reduced client programs of library `lib` up to `bounds`
/// ([`gen::Generator`]), smallest first. Programs without registers are kept
/// (`need_register` off): the outcome sets compared here include final memory.
pub fn generated(lib: &str, order: &StampOrder, cat: &Catalogue, bounds: &Bounds) -> Result<Vec<Candidate>, String> {
    let mut bounds = bounds.clone();
    bounds.need_register = false;
    let g = gen::generate_in(lib, order, cat, &bounds)?;
    g.clients
        .into_iter()
        .map(|c| {
            let file = format!("generated:{lib}");
            candidate(&file, &c.text).map_err(|e| e.to_string())
        })
        .collect()
}

/// Orders candidates by size (stably: sources keep their own order within a size).
pub fn smallest_first(cands: &mut [Candidate]) {
    cands.sort_by_key(|c| c.size);
}

/// The outcome set of a candidate under `order` (registers and final values of the
/// declared locations, one `name=value` list per outcome).
pub fn outcome_set(c: &Candidate, order: &StampOrder, cat: &Catalogue) -> Result<BTreeSet<String>, String> {
    let outs = litmus::outcomes_of_text(&c.text, order, cat, true).map_err(|e| {
        let mut e = e;
        e.file = c.file.clone();
        e.to_string()
    })?;
    Ok(outs.iter().map(|o| o.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")).collect())
}

// ---------------------------------------------------------------------------
// Implementation checks

mod checks;
mod svg;

pub use checks::*;
pub use svg::heat_map_svg;

/// The cell a flip puts in place of `c`: ✓ ↔ ✗, and SN → `sn_to`.
pub fn flipped(c: Cell, sn_to: Cell) -> Cell {
    match c {
        Cell::Ordered => Cell::Unordered,
        Cell::Unordered => Cell::Ordered,
        Cell::SameNode => sn_to,
    }
}

/// `F11` → (5, 10) in `t`.
pub fn parse_cell(t: &StampTable, name: &str) -> Option<(usize, usize)> {
    let mut cs = name.trim().chars();
    let r = cs.next()?.to_ascii_uppercase();
    if !r.is_ascii_uppercase() {
        return None;
    }
    let r = (r as u8 - b'A') as usize;
    let c: usize = cs.as_str().parse().ok()?;
    (r < t.kinds.len() && c >= 1 && c <= t.kinds.len()).then_some((r, c - 1))
}

/// A test whose outcome set changes with the flip.
#[derive(Clone, Debug, Serialize)]
pub struct TestChange {
    pub name: String,
    pub file: String,
    pub size: usize,
    /// The litmus text (generated candidates have no file).
    pub text: String,
    pub only_base: Vec<String>,
    pub only_variant: Vec<String>,
}

/// A check that holds under the base and not with the flip.
#[derive(Clone, Debug, Serialize)]
pub struct Broken {
    pub check: String,
    pub failure: String,
    pub witness: String,
}

/// What flipping one cell changes.
#[derive(Clone, Debug, Serialize)]
pub struct CellReport {
    /// `F11`: row letter (earlier stamp), column number (later stamp).
    pub cell: String,
    pub row: usize,
    pub col: usize,
    pub earlier: String,
    pub later: String,
    pub from: Cell,
    pub to: Cell,
    /// Candidates whose outcome set changes, smallest first.
    pub changed: Vec<String>,
    /// The smallest of them (fewest instructions), with the outcomes only one side allows.
    pub smallest: Option<TestChange>,
    /// Checks broken by the flip.
    pub broken: Vec<Broken>,
    /// Checks refuted under the base that hold with the flip.
    pub repaired: Vec<String>,
    pub errors: Vec<String>,
    pub millis: f64,
}

impl CellReport {
    /// Changed tests plus broken checks: the heat map's number.
    pub fn score(&self) -> usize {
        self.changed.len() + self.broken.len()
    }
}

/// Options of [`cells`].
#[derive(Clone, Debug)]
pub struct CellOptions {
    /// The table whose cells are flipped (`to`, `ippo`, `oppo`, …).
    pub table: String,
    /// What an SN cell becomes.
    pub sn_to: Cell,
    /// Only these cells (all when empty).
    pub only: Vec<(usize, usize)>,
    pub loop_bound: usize,
    /// Flip only the cells whose index in that list (row by row when `only` is
    /// empty) is K−1 modulo N (`--partition K/N`).
    pub partition: crate::analyses::refine::gen::Partition,
}

/// The result of a sensitivity run.
#[derive(Clone, Debug, Serialize)]
pub struct Sensitivity {
    pub table: String,
    pub kinds: Vec<String>,
    pub family: Vec<bool>,
    /// The base table's cells, `cells[earlier][later]`.
    pub base_cells: Vec<Vec<Cell>>,
    pub candidates: usize,
    /// Candidates that could not be run under the base (left out).
    pub candidate_errors: Vec<String>,
    /// The checks under the base order.
    pub base_checks: Vec<CheckResult>,
    /// One per flipped cell, in row-major order.
    pub cells: Vec<CellReport>,
    pub millis: f64,
}

impl Sensitivity {
    pub fn cell(&self, name: &str) -> Option<&CellReport> {
        self.cells.iter().find(|c| c.cell == name)
    }
}

/// Flips every cell of `opts.table` in `base` (or the cells of `opts.only`) and
/// reports per cell the candidates whose outcome set changes and the checks of
/// `suite` that stop holding. Cells run in parallel; `progress` is told of each.
pub fn cells(
    base: &StampOrder,
    candidates: &[Candidate],
    suite: &[Check],
    opts: &CellOptions,
    progress: &(dyn Fn(&CellReport) + Sync),
    cat: &Catalogue,
) -> Result<Sensitivity, SensitivityError> {
    let start = Instant::now();
    let table = base.table(&opts.table).ok_or_else(|| {
        SensitivityError::NoTable(opts.table.clone(), base.tables.keys().cloned().collect::<Vec<_>>().join(", "))
    })?;
    let n = table.kinds.len();
    // the base: outcomes of every candidate, verdict of every check
    let base_out: Vec<Result<BTreeSet<String>, String>> =
        candidates.par_iter().map(|c| outcome_set(c, base, cat)).collect();
    let candidate_errors: Vec<String> = base_out.iter().filter_map(|r| r.as_ref().err().cloned()).collect();
    let base_checks: Vec<CheckResult> =
        suite.par_iter().map(|c| run_check(c, base, cat, opts.loop_bound, true)).collect();

    let todo: Vec<(usize, usize)> = if opts.only.is_empty() {
        (0..n).flat_map(|r| (0..n).map(move |c| (r, c))).collect()
    } else {
        opts.only.clone()
    };
    let todo: Vec<(usize, usize)> =
        todo.into_iter().enumerate().filter(|(i, _)| opts.partition.contains(*i)).map(|(_, rc)| rc).collect();
    let stamp = |k: usize| format!("{}{}", table.kinds[k], if table.family[k] { "_n" } else { "" });
    let reports: Vec<CellReport> = todo
        .par_iter()
        .map(|&(r, c)| {
            let t0 = Instant::now();
            let from = table.cells[r][c];
            let mut to = flipped(from, opts.sn_to);
            if to == Cell::SameNode && !(table.family[r] && table.family[c]) {
                to = Cell::Ordered;
            }
            let mut variant = base.clone();
            if let Some(t) = variant.tables.get_mut(&opts.table) {
                t.cells[r][c] = to;
            }
            let mut rep = CellReport {
                cell: table.cell_name(r as u8, c as u8),
                row: r,
                col: c,
                earlier: stamp(r),
                later: stamp(c),
                from,
                to,
                changed: Vec::new(),
                smallest: None,
                broken: Vec::new(),
                repaired: Vec::new(),
                errors: Vec::new(),
                millis: 0.0,
            };
            let mut changes: Vec<TestChange> = Vec::new();
            for (cand, b) in candidates.iter().zip(&base_out) {
                let Ok(b) = b else { continue };
                match outcome_set(cand, &variant, cat) {
                    Ok(v) if &v != b => changes.push(TestChange {
                        name: cand.name.clone(),
                        file: cand.file.clone(),
                        size: cand.size,
                        text: cand.text.clone(),
                        only_base: b.difference(&v).cloned().collect(),
                        only_variant: v.difference(b).cloned().collect(),
                    }),
                    Ok(_) => {}
                    Err(e) => rep.errors.push(e),
                }
            }
            changes.sort_by_key(|t| t.size);
            rep.changed = changes.iter().map(|t| t.name.clone()).collect();
            rep.smallest = changes.into_iter().next();
            for (check, b) in suite.iter().zip(&base_checks) {
                if b.error.is_some() {
                    continue;
                }
                let v = run_check(check, &variant, cat, opts.loop_bound, true);
                if let Some(e) = &v.error {
                    rep.errors.push(format!("{}: {e}", v.check));
                } else if b.holds && !v.holds {
                    rep.broken.push(Broken {
                        check: v.check.clone(),
                        failure: v.failure.clone().unwrap_or_default(),
                        witness: v.witness.clone().unwrap_or_default(),
                    });
                } else if !b.holds && v.holds {
                    rep.repaired.push(v.check.clone());
                }
            }
            rep.millis = t0.elapsed().as_secs_f64() * 1000.0;
            progress(&rep);
            rep
        })
        .collect();
    Ok(Sensitivity {
        table: opts.table.clone(),
        kinds: table.kinds.clone(),
        family: table.family.clone(),
        base_cells: table.cells.clone(),
        candidates: candidates.len() - candidate_errors.len(),
        candidate_errors,
        base_checks,
        cells: reports,
        millis: start.elapsed().as_secs_f64() * 1000.0,
    })
}

/// The human summary: one line per cell that changes something, then the table of
/// numbers.
pub fn render_summary(s: &Sensitivity) -> String {
    let mut out = String::new();
    for c in &s.cells {
        if c.score() == 0 && c.errors.is_empty() && c.repaired.is_empty() {
            continue;
        }
        out += &format!(
            "{:4} ({}, {}) {} → {}: {} tests change",
            c.cell,
            c.earlier,
            c.later,
            c.from.symbol(),
            c.to.symbol(),
            c.changed.len()
        );
        if let Some(t) = &c.smallest {
            out += &format!(
                " (smallest: {}, {} instructions{}{})",
                t.name,
                t.size,
                if t.only_base.is_empty() {
                    String::new()
                } else {
                    format!("; only before: {}", t.only_base.join(" | "))
                },
                if t.only_variant.is_empty() {
                    String::new()
                } else {
                    format!("; only after: {}", t.only_variant.join(" | "))
                }
            );
        }
        out += "\n";
        if let Some(t) = c.smallest.as_ref().filter(|t| t.file.starts_with("generated:")) {
            for l in t.text.lines().filter(|l| !l.starts_with('"') && !l.trim().is_empty()) {
                out += &format!("         | {l}\n");
            }
        }
        for b in &c.broken {
            out += &format!("       breaks {}: {}\n", b.check, b.failure);
        }
        for r in &c.repaired {
            out += &format!("       repairs {r}\n");
        }
        for e in c.errors.iter().take(3) {
            out += &format!("       error: {e}\n");
        }
    }
    // the grid
    let n = s.kinds.len();
    out += &format!("\ntests changed + checks broken per cell of `{}` (· = nothing at this bound):\n      ", s.table);
    for c in 0..n {
        out += &format!("{:>5}", c + 1);
    }
    out += "\n";
    let by_pos: BTreeMap<(usize, usize), &CellReport> = s.cells.iter().map(|c| ((c.row, c.col), c)).collect();
    for r in 0..n {
        out += &format!("{} {:4}", (b'A' + r as u8) as char, s.kinds[r].chars().take(4).collect::<String>());
        for c in 0..n {
            let v = match by_pos.get(&(r, c)) {
                Some(rep) if rep.score() > 0 => rep.score().to_string(),
                Some(_) => "·".to_string(),
                None => " ".to_string(),
            };
            out += &format!("{v:>5}");
        }
        out += "\n";
    }
    out
}

// ---------------------------------------------------------------------------
// The heat map

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_named_as_in_the_figures() {
        let o = mowgli_libs::orders::default_order();
        let to = o.table("to").expect("to");
        assert_eq!(parse_cell(to, "F11"), Some((5, 10)));
        assert_eq!(parse_cell(to, "a1"), Some((0, 0)));
        for bad in ["", "N1", "A0", "A14", "11", "A", "Ax"] {
            assert_eq!(parse_cell(to, bad), None, "{bad}");
        }
        let (r, c) = parse_cell(to, "I9").expect("I9");
        assert_eq!(to.cell_name(r as u8, c as u8), "I9");
    }

    #[test]
    fn a_flip_swaps_ordered_and_unordered() {
        assert_eq!(flipped(Cell::Ordered, Cell::Unordered), Cell::Unordered);
        assert_eq!(flipped(Cell::Unordered, Cell::Unordered), Cell::Ordered);
        assert_eq!(flipped(Cell::SameNode, Cell::Unordered), Cell::Unordered);
        assert_eq!(flipped(Cell::SameNode, Cell::Ordered), Cell::Ordered);
    }

    #[test]
    fn instructions_count_nested_statements() {
        let t = "test t\nlibraries rdmawait\nthread T1 @ 1\nloc x @ 1\nT1:\n  r = Read(x)\n  if r == 1 {\n    Write(x, 2)\n  }\n";
        assert_eq!(candidate("t.litmus", t).expect("parses").size, 3);
        let e = candidate("bad.litmus", "test\n").expect_err("malformed");
        assert_eq!(e.file, "bad.litmus");
    }
}
