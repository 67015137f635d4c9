//! `mowgli robust --to-star`: the robustness paper's single-server translation (§5.3,
//! "Star Topology: Single Server Multiple Clients"; the tree-fenced condition it
//! relies on is §5.2's Def. 9). A shared-memory program of k threads (plain `Read`s
//! and `Write`s) becomes an RDMA program over k nodes: thread i runs on node i; node 1
//! is the server and holds every shared location; the server's loads and stores stay
//! CPU reads and writes; a client's store becomes a put, and a client's load a get
//! into a fresh location of its own node, followed by a remote fence (Def. 9 (2)) and
//! by polls up to that get (LDRF) before the value is read from the copy.
//!
//! The result is checked: tree-fenced, LDRF, robust (exact check), and with exactly
//! the original's SC outcomes (both projected on the original's registers and
//! locations).

use mowgli_libs::catalogue::Catalogue;
use std::collections::{BTreeMap, BTreeSet};

use mowgli_core::StampOrder;
use serde::Serialize;

use crate::lang::ast::{Rhs, Stmt};
use crate::lang::{edit, print, syntax, InputError};

use super::*;

/// What `--to-star` found.
#[derive(Clone, Debug, Serialize)]
pub struct StarReport {
    pub file: String,
    pub name: String,
    /// The translated program.
    pub text: String,
    pub tree_fenced: bool,
    pub ldrf: bool,
    pub robust: bool,
    /// The original's SC outcomes and the translation's outcomes, projected on the
    /// original's registers and locations.
    pub original_outcomes: Vec<BTreeMap<String, String>>,
    pub star_outcomes: Vec<BTreeMap<String, String>>,
    pub same_outcomes: bool,
}

impl StarReport {
    /// All four checks hold.
    pub fn ok(&self) -> bool {
        self.tree_fenced && self.ldrf && self.robust && self.same_outcomes
    }
}

fn bad(file: &str, text: &str, line: usize, msg: String) -> InputError {
    InputError::new(mowgli_diag::Pos { line: line.max(1), col: 1 }, msg).in_file(file, text)
}

/// The single-server translation of a shared-memory test (over `rdmasc` or
/// `rdmatso`, straight-line threads of `Read`, `Write` and `Mfence`), as litmus text.
pub fn star_text(file: &str, text: &str, order: &StampOrder, cat: &Catalogue) -> Result<String, InputError> {
    star_litmus(file, text, order, cat).map(|t| print::print(&t))
}

/// The methods the translation writes (of the SC-local variant, by their effects).
struct Written {
    read: &'static str,
    write: &'static str,
    fence: &'static str,
    put: &'static str,
    get: &'static str,
    rfence: &'static str,
    poll: &'static str,
}

/// [`star_text`] as a parsed test (what the check runs).
pub(super) fn star_litmus(
    file: &str,
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
) -> Result<syntax::Litmus, InputError> {
    let ast = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    let (_, models) = model_of(&Subject::new(file, text, order, cat), &ast, None)?;
    // the test's calls are read by its library's declared effects, the translation's
    // written with the methods of the library's SC-local variant
    let (from, to) = (Vocab::named(&models.from, cat, order), Vocab::named(&models.sc, cat, order));
    let need = |r: Result<&'static str, String>| r.map_err(|e| bad(file, text, 1, format!("--to-star: {e}")));
    let w = Written {
        read: need(to.read())?,
        write: need(to.write())?,
        fence: need(to.fence())?,
        put: need(to.put())?,
        get: need(to.get())?,
        rfence: need(to.fence_towards())?,
        poll: need(to.poll())?,
    };
    let description = ast.description.clone().unwrap_or_else(|| ast.name.clone()).replace('"', "'");
    let mut out = syntax::Litmus {
        name: format!("{}-star", ast.name),
        description: Some(format!("{description}: the single-server translation (robustness paper §5.3)")),
        libraries: vec![edit::name(&models.sc)],
        libraries_pos: Some(syntax::Pos::default()),
        threads: ast.threads.iter().enumerate().map(|(i, (n, _))| (edit::name(&n.text), i as i64 + 1)).collect(),
        locs: Vec::new(),
        barriers: vec![],
        rings: vec![],
        bodies: Vec::new(),
        expects: vec![],
        herd: None,
    };
    for d in &ast.locs {
        let init = match &d.init {
            None => None,
            Some(syntax::Lit::Int(v)) => Some(syntax::Lit::Int(*v)),
            Some(_) => {
                return Err(bad(file, text, d.name.pos.line, "--to-star: only integer initial values".into()));
            }
        };
        out.locs.push(syntax::LocDecl { name: edit::name(&d.name.text), node: Some(1), init, size: None });
    }
    let mut copies = Vec::new();
    for (i, (name, _)) in ast.threads.iter().enumerate() {
        let body = star_thread(file, text, &ast, (name, i as i64 + 1), (&from, &to, &w), &mut copies)?;
        out.bodies.push((edit::name(&name.text), body));
    }
    out.locs.extend(copies);
    Ok(out)
}

/// The translation of thread `name` on `node` (its copies' locations added to
/// `copies`).
fn star_thread(
    file: &str,
    text: &str,
    ast: &syntax::Litmus,
    (name, node): (&syntax::Name, i64),
    (from, to, w): (&Vocab, &Vocab, &Written),
    copies: &mut Vec<syntax::LocDecl>,
) -> Result<Vec<Stmt>, InputError> {
    let shared: BTreeSet<&str> = ast.locs.iter().map(|d| d.name.text.as_str()).collect();
    let mut lines = Vec::new();
    let mut stmts = Vec::new();
    for (_, b) in ast.bodies.iter().filter(|(n, _)| n.text == name.text) {
        stmts.extend(b.iter().filter(|s| edit::call_of(s).is_some()));
        let Some(ls) = call_lines(b) else {
            let msg = format!("--to-star: thread {} is not straight-line", name.text);
            return Err(bad(file, text, name.pos.line, msg));
        };
        lines.extend(ls);
    }
    let mut body = Vec::new();
    let call = |m: &str, args: &[&str]| edit::call_stmt(None, m, args.iter().map(|a| edit::arg(a)).collect());
    let assign = |r: &str, m: &str, x: &str| Stmt::Assign {
        name: edit::name(r),
        rhs: Rhs::Call(edit::call(None, m, vec![edit::arg(x)])),
    };
    let mut pending = 0usize;
    for (k, (&l, s)) in lines.iter().zip(&stmts).enumerate() {
        let (reg, Some(c)) = (assigned(s), edit::call_of(s)) else {
            return Err(bad(file, text, l, "--to-star: expected a call".into()));
        };
        let loc_ok = |x: &str| shared.contains(x);
        let mut args = Vec::new();
        match (from.op_of(c, &mut args), reg) {
            (Op::Read { loc: x }, Some(r)) if loc_ok(x) => {
                if node == 1 {
                    body.push(assign(&r, w.read, x));
                } else {
                    let copy = format!("{}_{x}_{}", name.text.to_lowercase(), k + 1);
                    copies.push(syntax::LocDecl { name: edit::name(&copy), node: Some(node), init: None, size: None });
                    pending += 1;
                    body.push(Stmt::Call(to.copy_call(w.get, &copy, x)));
                    body.push(call(w.rfence, &["1"]));
                    body.extend((0..pending).map(|_| call(w.poll, &["1"])));
                    pending = 0;
                    body.push(assign(&r, w.read, &copy));
                }
            }
            (Op::Write { loc: x, val: v }, None) if loc_ok(x) && v.parse::<i64>().is_ok() => {
                if node == 1 {
                    body.push(Stmt::Call(to.write_call(w.write, x, v)));
                } else {
                    pending += 1;
                    body.push(Stmt::Call(to.copy_call(w.put, x, v)));
                }
            }
            (Op::Fence, None) => {
                if node == 1 {
                    body.push(call(w.fence, &[]));
                }
            }
            _ => {
                let msg = format!(
                    "--to-star: expected `r = Read(x)`, `Write(x, n)` or `Mfence()` on a declared location, found `{}`",
                    written(s)
                );
                return Err(bad(file, text, l, msg));
            }
        }
    }
    Ok(body)
}

/// The register a call statement assigns (`r = M(…)`, `let r = M(…)`).
fn assigned(s: &Stmt) -> Option<String> {
    match s {
        Stmt::Let { name, .. } | Stmt::Assign { name, .. } => Some(name.text.clone()),
        _ => None,
    }
}

/// A call statement as written (`[r = ]M(…)`).
fn written(s: &Stmt) -> String {
    let call = edit::call_of(s).map(print::call).unwrap_or_default();
    match assigned(s) {
        Some(r) => format!("{r} = {call}"),
        None => call,
    }
}

/// The outcome keys of the original (its registers and locations) kept.
fn project(outs: &[BTreeMap<String, String>], keys: &BTreeSet<String>) -> BTreeSet<BTreeMap<String, String>> {
    outs.iter()
        .map(|o| o.iter().filter(|(k, _)| keys.contains(*k)).map(|(k, v)| (k.clone(), v.clone())).collect())
        .collect()
}

/// `--to-star` on one test: the translation and its checks.
pub fn to_star(file: &str, text: &str, order: &StampOrder, cat: &Catalogue) -> Result<StarReport, InputError> {
    let star_ast = star_litmus(file, text, order, cat)?;
    // the text is what is shown or written; the check runs the translation as built
    let star = print::print(&star_ast);
    let orig = check_text(file, text, order, cat, Some(Model::Sc))?;
    let star_file = format!("{file} (star)");
    let r = check_parsed(&Subject::new(&star_file, &star, order, cat), star_ast, Some(Model::Sc), true)?;
    let keys: BTreeSet<String> = orig.outcomes.iter().flat_map(|o| o.keys().cloned()).collect();
    let (a, b) = (project(&orig.sc_outcomes, &keys), project(&r.outcomes, &keys));
    Ok(StarReport {
        file: file.to_string(),
        name: r.name.clone(),
        text: star,
        tree_fenced: r.syntactic.tree_fenced,
        ldrf: r.syntactic.ldrf,
        robust: r.robust,
        same_outcomes: a == b,
        original_outcomes: a.into_iter().collect(),
        star_outcomes: b.into_iter().collect(),
    })
}

/// The report of `--to-star` as text.
pub fn render_star(s: &StarReport, written: Option<&str>) -> String {
    let y = |b: bool| if b { "yes" } else { "NO" };
    let mut out = format!("test {} ({}): single-server translation", s.name, s.file);
    if let Some(p) = written {
        out += &format!(" written to {p}");
    }
    out += &format!(
        "\n  tree-fenced (Def. 9): {}, LDRF (Def. 7): {}, robust (exact check): {}, the original's SC outcomes exactly: \
         {} ({} outcomes, {} in the original)\n",
        y(s.tree_fenced),
        y(s.ldrf),
        y(s.robust),
        y(s.same_outcomes),
        s.star_outcomes.len(),
        s.original_outcomes.len()
    );
    out
}

/// `mowgli robust --to-star PATH... [--out DIR] [--json]`: translates every test,
/// checks it, and prints it (or, with `DIR`, writes it as `DIR/TEST-star.litmus`). Verdict: `verified` (0) every
/// translation passes the four checks, `counterexample` (1) one does not, `error` (2)
/// an input is not a shared-memory test (or cannot be written).
pub fn star_cli(
    paths: &[std::path::PathBuf],
    json: bool,
    out_dir: Option<&std::path::Path>,
    order: &StampOrder,
    cat: &Catalogue,
) -> (crate::analyses::verdict::Decided, Option<serde_json::Value>) {
    use crate::analyses::verdict::{Decided, Verdict};
    let files = match crate::analyses::litmus::collect(paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return (Decided::new(Verdict::Error, e.headline()), json.then(|| serde_json::json!({ "errors": [e] })));
        }
    };
    let (mut reports, mut errors) = (Vec::new(), Vec::new());
    let mut limits = 0usize;
    for f in &files {
        let name = f.display().to_string();
        let done = mowgli_diag::read_source(f, &name).and_then(|text| to_star(&name, &text, order, cat));
        match done {
            Ok(r) => {
                let written = out_dir.map(|d| {
                    let p = d.join(format!("{}.litmus", r.name));
                    let w = std::fs::create_dir_all(d).and_then(|_| std::fs::write(&p, &r.text));
                    if let Err(e) = w {
                        errors.push(mowgli_diag::Diagnostic::output(&p, format!("cannot write: {e}")).to_string());
                    }
                    p.display().to_string()
                });
                if !json {
                    crate::out!("{}", render_star(&r, written.as_deref()));
                    if written.is_none() {
                        crate::out!("{}\n", r.text.trim_end());
                    }
                }
                reports.push(r);
            }
            // a limit of the tool (not a malformed test) leaves the run uncovered
            Err(e) if e.limit => {
                eprintln!("{e}");
                limits += 1;
            }
            Err(e) => {
                eprintln!("{e}");
                errors.push(e.to_string());
            }
        }
    }
    let failed = reports.iter().filter(|r| !r.ok()).count();
    let verdict = Verdict::of(!errors.is_empty(), failed > 0, limits == 0);
    let why = format!(
        "{} of {} translations tree-fenced, LDRF, robust and with the original's SC outcomes{}",
        reports.len() - failed,
        reports.len(),
        if errors.is_empty() { String::new() } else { format!(", {} malformed", errors.len()) }
    );
    let doc = json.then(|| serde_json::json!({ "translations": reports, "errors": errors }));
    (Decided::new(verdict, why), doc)
}
