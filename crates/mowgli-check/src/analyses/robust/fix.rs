//! Fence synthesis (`mowgli robust --fix`).

use std::collections::BTreeSet;

use mowgli_core::StampOrder;
use serde::Serialize;

use crate::lang::{syntax, InputError};

use super::*;

/// What a fix must achieve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FixGoal {
    /// LDRF ∧ fenced (Thm. 5 / 17).
    Syntactic,
    /// Robust by the exact check.
    Exact,
}

/// One inserted instruction.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Insertion {
    pub thread: String,
    /// Inserted after this source line.
    pub after_line: usize,
    pub instr: String,
    /// Rfence 1, Mfence 2, Poll 3 (§2.1 and §5: a poll blocks the thread, an rfence
    /// only its queue pair).
    pub cost: u32,
}

/// A smallest set of insertions (by count, then by cost) reaching the goal, and the
/// fixed program (checked: it has executions and reaches the goal).
#[derive(Clone, Debug, Serialize)]
pub struct Fix {
    pub goal: FixGoal,
    pub insertions: Vec<Insertion>,
    pub text: String,
    /// Fixed programs checked during the search.
    pub tried: usize,
}

/// Most insertions `fix` tries.
pub const MAX_FIX: usize = 3;

/// Searches a smallest set of polls, rfences (and, under RDMA^TSO, mfences) between
/// the instructions of straight-line threads that makes the test reach `goal`; `None`
/// when none of at most [`MAX_FIX`] insertions does (or a thread has control flow).
pub fn fix(file: &str, text: &str, order: &StampOrder, model: Model, goal: FixGoal) -> Result<Option<Fix>, InputError> {
    let reached = |r: &RobustReport| {
        r.executions > 0
            && match goal {
                FixGoal::Syntactic => r.syntactic.sufficient(),
                FixGoal::Exact => r.robust,
            }
    };
    let base = check_text(file, text, order, Some(model))?;
    if reached(&base) {
        return Ok(Some(Fix { goal, insertions: vec![], text: text.to_string(), tried: 1 }));
    }
    if base.executions == 0 {
        return Ok(None);
    }
    let ast = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    let mut nodes: BTreeSet<i64> = ast.threads.iter().map(|(_, n)| *n).collect();
    nodes.extend(ast.locs.iter().filter_map(|d| d.node));
    // candidate insertions: after every call but a thread's last
    let mut cands: Vec<(usize, Insertion)> = Vec::new();
    for (name, body) in &ast.bodies {
        let Some(lines) = call_lines(body) else { return Ok(None) };
        let Some(&(_, here)) = ast.threads.iter().find(|(n, _)| n.text == name.text) else { continue };
        let indent = body.first().map(|_| "  ").unwrap_or("  ");
        for &l in lines.iter().take(lines.len().saturating_sub(1)) {
            for &n in nodes.iter().filter(|&&n| n != here) {
                for (instr, cost) in [(format!("Rfence({n})"), 1), (format!("Poll({n})"), 3)] {
                    cands.push((
                        l,
                        Insertion { thread: name.text.clone(), after_line: l, instr: format!("{indent}{instr}"), cost },
                    ));
                }
            }
            if model == Model::Tso {
                cands.push((
                    l,
                    Insertion { thread: name.text.clone(), after_line: l, instr: format!("{indent}Mfence()"), cost: 2 },
                ));
            }
        }
    }
    let src: Vec<&str> = text.lines().collect();
    let mut tried = 1;
    for k in 1..=MAX_FIX.min(cands.len()) {
        // every k-subset, cheapest first
        let mut subsets: Vec<(u32, Vec<usize>)> = Vec::new();
        let mut idx: Vec<usize> = (0..k).collect();
        loop {
            subsets.push((idx.iter().map(|&i| cands[i].1.cost).sum(), idx.clone()));
            let mut i = k;
            let mut advanced = false;
            while i > 0 {
                i -= 1;
                if idx[i] < cands.len() - k + i {
                    idx[i] += 1;
                    for j in i + 1..k {
                        idx[j] = idx[j - 1] + 1;
                    }
                    advanced = true;
                    break;
                }
            }
            if !advanced {
                break;
            }
        }
        subsets.sort();
        for (_, set) in subsets {
            let mut out = String::new();
            for (ln, line) in src.iter().enumerate() {
                out += line;
                out.push('\n');
                for &c in &set {
                    if cands[c].0 == ln + 1 {
                        out += &cands[c].1.instr;
                        out.push('\n');
                    }
                }
            }
            tried += 1;
            let r = match check_text(file, &out, order, Some(model)) {
                Ok(r) => r,
                Err(_) => continue,
            };
            if reached(&r) {
                let insertions = set
                    .iter()
                    .map(|&c| {
                        let mut i = cands[c].1.clone();
                        i.instr = i.instr.trim().to_string();
                        i
                    })
                    .collect();
                return Ok(Some(Fix { goal, insertions, text: out, tried }));
            }
        }
    }
    Ok(None)
}

/// The fix as one line.
pub fn render_fix(f: &Option<Fix>, goal: FixGoal) -> String {
    let what = match goal {
        FixGoal::Syntactic => "LDRF ∧ fenced (Thm. 5)",
        FixGoal::Exact => "robust (exact check)",
    };
    match f {
        None => format!("  fix for {what}: none with at most {MAX_FIX} polls/rfences/mfences\n"),
        Some(f) if f.insertions.is_empty() => format!("  fix for {what}: nothing to insert\n"),
        Some(f) => format!(
            "  fix for {what}: insert {} (verified; {} programs checked)\n",
            f.insertions
                .iter()
                .map(|i| format!("{} after {} line {}", i.instr, i.thread, i.after_line))
                .collect::<Vec<_>>()
                .join(", "),
            f.tried
        ),
    }
}
