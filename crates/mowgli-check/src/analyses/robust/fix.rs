//! Fence synthesis (`mowgli robust --fix`).

use std::collections::{BTreeMap, BTreeSet};

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

/// One inserted instruction (or, for Fig. 5's `GP`, a get and its polls).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Insertion {
    pub thread: String,
    /// Inserted after this source line.
    pub after_line: usize,
    /// The instruction(s), one per line.
    pub instr: String,
    /// Rfence 1, Mfence 2, Poll 3 (§2.1 and §5: a poll blocks the thread, an rfence
    /// only its queue pair); a `GP` block: 4 for the get and 3 per poll.
    pub cost: u32,
    /// A location the insertion declares (the get's private destination of `GP`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decl: Option<String>,
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

/// Most fixed programs `fix` checks: the search goes by increasing count of
/// insertions and stops before a count whose sets would exceed what is left.
pub const FIX_BUDGET: usize = 5_000;

/// The queue-pair operations of a straight-line thread's source line: (method,
/// arguments) of `[r =] M(a, b)`.
fn call_of(line: &str) -> Option<(String, Vec<String>)> {
    let l = line.trim();
    let call = l.split_once(" = ").map(|(_, c)| c).unwrap_or(l);
    let (m, rest) = call.split_once('(')?;
    let args = rest.trim_end().strip_suffix(')')?;
    Some((m.trim().to_string(), args.split(',').map(|a| a.trim().to_string()).filter(|a| !a.is_empty()).collect()))
}

/// Searches a smallest set of polls, rfences (under RDMA^TSO also mfences) and
/// Fig. 5's `GP` blocks (a get on the queue pair of an earlier put, into a fresh
/// private location, and the polls that reach it) between the instructions of
/// straight-line threads that makes the test reach `goal`, by increasing count;
/// `None` when no set within [`FIX_BUDGET`] checked programs does (or a thread has
/// control flow).
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
    let node_of = |x: &str| ast.locs.iter().find(|d| d.name.text == x).and_then(|d| d.node);
    let src: Vec<&str> = text.lines().collect();
    // candidate insertions: after every call but a thread's last
    let mut cands: Vec<(usize, Insertion)> = Vec::new();
    for (name, body) in &ast.bodies {
        let Some(lines) = call_lines(body) else { return Ok(None) };
        let Some(&(_, here)) = ast.threads.iter().find(|(n, _)| n.text == name.text) else { continue };
        let indent = "  ";
        // per remote node: NIC operations not yet polled, and the last put's destination
        let mut pending: BTreeMap<i64, usize> = BTreeMap::new();
        let mut put_dst: BTreeMap<i64, String> = BTreeMap::new();
        for (k, &l) in lines.iter().enumerate() {
            if let Some((m, args)) = src.get(l.wrapping_sub(1)).and_then(|s| call_of(s)) {
                match (m.as_str(), args.as_slice()) {
                    ("Put", [x, ..]) => {
                        if let Some(n) = node_of(x) {
                            *pending.entry(n).or_default() += 1;
                            put_dst.insert(n, x.clone());
                        }
                    }
                    ("Get", [_, y, ..]) => {
                        if let Some(n) = node_of(y) {
                            *pending.entry(n).or_default() += 1;
                        }
                    }
                    ("Poll", [n, ..]) => {
                        if let Some(c) = n.parse::<i64>().ok().and_then(|n| pending.get_mut(&n)) {
                            *c = c.saturating_sub(1);
                        }
                    }
                    _ => {}
                }
            }
            if k + 1 == lines.len() {
                break;
            }
            let ins = |instr: String, cost: u32, decl: Option<String>| {
                (l, Insertion { thread: name.text.clone(), after_line: l, instr, cost, decl })
            };
            for &n in nodes.iter().filter(|&&n| n != here) {
                cands.push(ins(format!("{indent}Rfence({n})"), 1, None));
                cands.push(ins(format!("{indent}Poll({n})"), 3, None));
                // Fig. 5 C1-C6 (GP): a get on the put's queue pair, polled; the get reads
                // the put's destination (already accessed by this thread, so no
                // location becomes public) into a fresh location of this node
                if let Some(x) = put_dst.get(&n) {
                    let polls = pending.get(&n).copied().unwrap_or(0) + 1;
                    let fresh = format!("gp_{}_{l}", name.text);
                    let mut block = format!("{indent}Get({fresh}, {x})");
                    for _ in 0..polls {
                        block += &format!("\n{indent}Poll({n})");
                    }
                    cands.push(ins(block, 4 + 3 * polls as u32, Some(format!("loc {fresh} @ {here}"))));
                }
            }
            if model == Model::Tso {
                cands.push(ins(format!("{indent}Mfence()"), 2, None));
            }
        }
    }
    let last_loc = src.iter().rposition(|l| l.trim_start().starts_with("loc "));
    let mut tried = 1;
    let binom = |m: usize, k: usize| -> usize { (0..k).fold(1usize, |acc, i| acc.saturating_mul(m - i) / (i + 1)) };
    for k in 1..=cands.len() {
        if tried + binom(cands.len(), k) > FIX_BUDGET {
            break;
        }
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
                if Some(ln) == last_loc {
                    for &c in &set {
                        if let Some(d) = &cands[c].1.decl {
                            out += d;
                            out.push('\n');
                        }
                    }
                }
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
                        i.instr = i.instr.lines().map(str::trim).collect::<Vec<_>>().join("; ");
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
        None => format!(
            "  fix for {what}: none found among the sets of polls/rfences/mfences/get-and-poll blocks checked (at most \
             {FIX_BUDGET} programs)\n"
        ),
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
