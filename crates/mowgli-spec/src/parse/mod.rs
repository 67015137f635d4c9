//! The parser: one pass over the tokens that resolves every name as it goes
//! (declarations come before their uses, as in cat) and types every expression.

use std::path::Path;

use mowgli_diag::{Diagnostic, Pos};

use crate::lex::{lex, Tok, T};
use crate::*;

mod expr;
mod method;

const TOP: [&str; 15] = [
    "library",
    "include",
    "stamps",
    "tags",
    "ppo",
    "memory",
    "method",
    "witness",
    "let",
    "so",
    "acyclic",
    "irreflexive",
    "empty",
    "defined",
    "undefined",
];
pub(super) const BASES: [(&str, Base); 9] = [
    ("po", Base::Po),
    ("ppo", Base::Ppo),
    ("int", Base::Int),
    ("hb", Base::Hb),
    ("id", Base::Id),
    ("same_node", Base::SameNode),
    ("same_thread", Base::SameThread),
    ("same_stamp", Base::SameStamp),
    ("same_loc", Base::SameLoc),
];
pub(super) const FUNCS: [&str; 9] =
    ["same", "same_round", "participant", "writer", "balanced", "domain", "range", "val_eq", "val_ne"];

/// Where `include "F"` finds F.
#[derive(Clone, Copy)]
pub enum Includes<'a> {
    /// Not allowed (text with no file behind it).
    None,
    /// Relative to this folder.
    Dir(&'a Path),
    /// In this table of (file name, text) pairs (libraries embedded in the binary).
    Embedded(&'a [(&'a str, &'a str)]),
}

pub fn parse(file: &str, text: &str, dir: Includes<'_>) -> Result<Spec, Diagnostic> {
    let mut spec = Spec {
        name: String::new(),
        stamps: vec![],
        memory: None,
        methods: vec![],
        witnesses: vec![],
        lets: vec![],
        so: None,
        axioms: vec![],
        tags: vec![],
        own_order: false,
    };
    parse_into(&mut spec, file, text, dir, 0)?;
    spec.refresh_flags();
    check_let_depths(&spec, file)?;
    if spec.name.is_empty() {
        return Err(Diagnostic::new(Pos { line: 1, col: 1 }, "expected `library NAME`: this file names no library")
            .in_file(file, text));
    }
    Ok(spec)
}

/// How deeply the evaluation of a definition may recurse through the lets it
/// names (each let as deep as its own definition): the evaluator recurses so,
/// within a thread's stack.
pub const MAX_LET_DEPTH: usize = 4 * mowgli_diag::MAX_NESTING;

/// Every let's definition (with its added terms) within [`MAX_LET_DEPTH`]; the
/// error is at the first let past it.
fn check_let_depths(spec: &Spec, file: &str) -> Result<(), Diagnostic> {
    let mut depths: Vec<usize> = Vec::with_capacity(spec.lets.len());
    for (i, l) in spec.lets.iter().enumerate() {
        // itself (a `let rec`): a fixpoint, not a recursion
        depths.push(0);
        let d = spec.let_expr(i).eval_depth(&depths);
        if d > MAX_LET_DEPTH {
            let msg = format!(
                "`let {}` is nested too deeply through the lets it names: its evaluation goes {d} levels deep, at most {MAX_LET_DEPTH}",
                l.name
            );
            return Err(l.site.error(file, msg));
        }
        depths[i] = d;
    }
    Ok(())
}

fn parse_into(spec: &mut Spec, file: &str, text: &str, dir: Includes<'_>, depth: usize) -> Result<(), Diagnostic> {
    let toks = lex(text).map_err(|d| d.in_file(file, text))?;
    let mut p = P { toks, i: 0, file, text, dir, spec, depth, nest: 0, for_depth: 0, clause_of: None };
    while !p.at_eof() {
        p.item()?;
    }
    Ok(())
}

pub(super) struct P<'a> {
    toks: Vec<Tok>,
    i: usize,
    file: &'a str,
    text: &'a str,
    dir: Includes<'a>,
    spec: &'a mut Spec,
    depth: usize,
    /// Levels of brackets and operators the parser is in ([`P::enter`]).
    nest: usize,
    /// `for`s of a stamp list the parser is in.
    for_depth: usize,
    /// The `let` whose added term (`NAME |= E`) is being read: E may name only
    /// lets defined before it (and itself when it is `let rec`).
    clause_of: Option<usize>,
}

/// Names bound while parsing a method: its parameters and the node variable.
pub(super) struct Scope<'s> {
    params: &'s [(String, Kind)],
    var: Option<String>,
}

pub(super) type R<T> = Result<T, Diagnostic>;

impl<'a> P<'a> {
    fn tok(&self) -> &Tok {
        &self.toks[self.i]
    }
    fn at_eof(&self) -> bool {
        self.tok().t == T::Eof
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.i].clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    fn fix(&self, d: Diagnostic) -> Diagnostic {
        d.in_file(self.file, self.text)
    }
    /// One level deeper (a bracket, a `for`/`if` of a stamp list) at `pos`: an
    /// error past [`mowgli_diag::MAX_NESTING`], which keeps the recursive descent
    /// and the passes over the tree it builds within the stack.
    fn enter(&mut self, pos: Pos) -> R<()> {
        self.nest += 1;
        self.check_depth(0, pos)
    }
    fn leave(&mut self) {
        self.nest = self.nest.saturating_sub(1);
    }
    /// A tree `depth` deep (a chain of operators is as deep as it is long) built at
    /// `pos` below the levels the parser is in.
    fn check_depth(&self, depth: usize, pos: Pos) -> R<()> {
        if self.nest + depth > mowgli_diag::MAX_NESTING {
            return Err(self.fix(Diagnostic::too_deep(pos)));
        }
        Ok(())
    }
    fn err<X>(&self, pos: Pos, len: usize, msg: impl Into<String>) -> R<X> {
        Err(self.fix(Diagnostic::new(pos, msg).with_span(len)))
    }
    fn expected<X>(&self, what: &str) -> R<X> {
        let t = self.tok();
        Err(self.fix(Diagnostic::expected_found(t.pos, what, &t.shown(), t.len)))
    }
    fn is_p(&self, p: &str) -> bool {
        matches!(self.tok().t, T::P(q) if q == p)
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(&self.tok().t, T::Ident(s) if s == k)
    }
    fn eat_p(&mut self, p: &str) -> bool {
        let b = self.is_p(p);
        if b {
            self.bump();
        }
        b
    }
    fn eat_kw(&mut self, k: &str) -> bool {
        let b = self.is_kw(k);
        if b {
            self.bump();
        }
        b
    }
    fn want_p(&mut self, p: &str) -> R<()> {
        if self.eat_p(p) {
            Ok(())
        } else {
            self.expected(&format!("`{p}`"))
        }
    }
    fn want_kw(&mut self, k: &str) -> R<()> {
        if self.eat_kw(k) {
            Ok(())
        } else {
            self.expected(&format!("`{k}`"))
        }
    }
    fn ident(&mut self, what: &str) -> R<(String, Pos)> {
        match &self.tok().t {
            T::Ident(s) => {
                let s = s.clone();
                let pos = self.tok().pos;
                self.bump();
                Ok((s, pos))
            }
            _ => self.expected(what),
        }
    }

    fn item(&mut self) -> R<()> {
        let t = self.tok().clone();
        let T::Ident(kw) = &t.t else {
            return self.expected(&format!("{} (a declaration)", TOP.map(|k| format!("`{k}`")).join(", ")));
        };
        match kw.as_str() {
            "library" => {
                self.bump();
                let (n, pos) = self.ident("a library name")?;
                if !self.spec.name.is_empty() && self.depth == 0 {
                    return self.err(pos, n.len(), format!("the library is already named `{}`", self.spec.name));
                }
                if self.depth == 0 {
                    self.spec.name = n;
                }
            }
            "include" => {
                self.bump();
                let st = self.tok().clone();
                let T::Str(f) = &st.t else { return self.expected("a file name in quotes") };
                self.bump();
                if self.depth > 8 {
                    return self.err(st.pos, st.len, "includes nested more than 8 deep (an include cycle?)");
                }
                match self.dir {
                    Includes::None => {
                        return self.err(st.pos, st.len, "`include` needs the library to be read from a file");
                    }
                    Includes::Dir(dir) => {
                        let path = dir.join(f);
                        let name = path.display().to_string();
                        let text = match mowgli_diag::read_source(&path, &name) {
                            Ok(t) => t,
                            // not UTF-8: said at its place in the included file
                            Err(d) if d.line > 0 => return Err(d),
                            Err(d) => {
                                let why = d.msg.strip_prefix("cannot read: ").unwrap_or(&d.msg).to_string();
                                return self.err(st.pos, st.len, format!("cannot read `{name}`: {why}"));
                            }
                        };
                        let inc = path.parent().map_or(Includes::None, Includes::Dir);
                        parse_into(self.spec, &name, &text, inc, self.depth + 1)?;
                    }
                    Includes::Embedded(table) => {
                        let Some(&(name, text)) = table.iter().find(|(n, _)| n == f) else {
                            return self.err(st.pos, st.len, format!("no embedded file `{f}`"));
                        };
                        parse_into(self.spec, name, text, self.dir, self.depth + 1)?;
                    }
                }
            }
            "stamps" => {
                self.bump();
                while let T::Ident(s) = &self.tok().t {
                    if TOP.contains(&s.as_str()) {
                        break;
                    }
                    let (s, pos) = (s.clone(), self.tok().pos);
                    self.bump();
                    let (name, family) = match s.strip_suffix("_n") {
                        Some(b) => (b.to_string(), true),
                        None => (s.clone(), false),
                    };
                    if self.spec.stamps.iter().any(|d| d.name == name) {
                        return self.err(pos, s.len(), format!("stamp `{name}` declared twice"));
                    }
                    let site = Site(Some(self.fix(Diagnostic::new(pos, "").with_span(s.chars().count()))));
                    self.spec.stamps.push(StampDecl { name, family, site });
                }
            }
            "memory" => {
                self.bump();
                let kind = if self.eat_kw("replicated") {
                    MemoryKind::Replicated
                } else if self.eat_kw("located") {
                    MemoryKind::Located
                } else {
                    return self.expected("`replicated` or `located`");
                };
                let tuples = self.eat_kw("tuples");
                let undefined = self.eat_kw("undefined");
                self.spec.memory = Some(Memory { kind, tuples, undefined });
            }
            "tags" => {
                self.bump();
                while let T::Ident(s) = &self.tok().t {
                    if TOP.contains(&s.as_str()) {
                        break;
                    }
                    let (s, pos) = (s.clone(), self.tok().pos);
                    self.bump();
                    if self.spec.tags.contains(&s) {
                        return self.err(pos, s.len(), format!("tag `{s}` declared twice"));
                    }
                    self.spec.tags.push(s);
                }
            }
            "ppo" => {
                self.bump();
                self.want_kw("own")?;
                self.spec.own_order = true;
            }
            "method" => {
                self.bump();
                self.method()?;
            }
            "witness" => {
                self.bump();
                let (name, pos) = self.ident("a witness name")?;
                if self.spec.witnesses.iter().any(|w| w.name == name) {
                    return self.err(pos, name.len(), format!("witness `{name}` declared twice"));
                }
                let kind = if self.eat_kw("orients") {
                    let e = self.rel_expr("a relation")?;
                    self.static_only(&e, pos, "the pairs a witness orients")?;
                    if self.eat_kw("optionally") {
                        WitnessKind::OrientsOptionally(e)
                    } else {
                        WitnessKind::Orients(e)
                    }
                } else if self.eat_kw("splits") {
                    let at = self.tok().pos;
                    let (set, ty) = self.expr()?;
                    if ty != Ty::Set {
                        return self.err(at, 1, "`splits` takes a set of subevents");
                    }
                    self.static_only(&set, pos, "the subevents a witness splits")?;
                    self.want_kw("into")?;
                    let (a, _) = self.ident("a set name")?;
                    self.want_p(",")?;
                    let (b, bpos) = self.ident("a set name")?;
                    if a == b {
                        return self.err(bpos, b.len(), "the two sets need different names");
                    }
                    WitnessKind::Splits { set, names: [a, b] }
                } else if self.eat_kw("picks") {
                    let cands = self.rel_expr("a relation")?;
                    self.static_only(&cands, pos, "the candidates of a witness")?;
                    self.want_kw("for")?;
                    let at = self.tok().pos;
                    let (targets, ty) = self.expr()?;
                    if ty != Ty::Set {
                        return self.err(at, 1, "expected a set of subevents after `for`");
                    }
                    self.static_only(&targets, pos, "the subevents that pick")?;
                    WitnessKind::Picks { cands, targets }
                } else {
                    return self.expected("`orients`, `picks` or `splits`");
                };
                self.spec.witnesses.push(Witness { name, kind });
            }
            "let" => {
                self.bump();
                let rec = self.eat_kw("rec");
                let (name, npos) = self.ident("a name")?;
                if rec {
                    // the name is in scope in its own definition: a relation
                    self.want_p("=")?;
                    let i = self.spec.lets.len();
                    let site = Site(Some(self.fix(Diagnostic::new(npos, "").with_span(name.chars().count()))));
                    self.spec.lets.push(Let {
                        site,
                        name,
                        ty: Ty::Rel,
                        expr: Expr::Empty(Ty::Rel),
                        dynamic: true,
                        monotone: true,
                        hb: false,
                        rec: true,
                    });
                    let expr = self.rel_expr("a relation (a `let rec` defines a relation)")?;
                    self.spec.lets[i].expr = expr;
                    self.spec.refresh_flags();
                } else {
                    self.want_p("=")?;
                    let (expr, ty) = self.expr()?;
                    let lets = &self.spec.lets;
                    let (dynamic, monotone, hb) = (expr.dynamic(lets), expr.monotone(lets), expr.mentions_hb(lets));
                    let site = Site(Some(self.fix(Diagnostic::new(npos, "").with_span(name.chars().count()))));
                    self.spec.lets.push(Let { name, ty, expr, dynamic, monotone, hb, rec: false, site });
                }
            }
            "defined" | "undefined" => {
                self.bump();
                let at = format!("{}:{}", self.file, t.pos.line);
                if !self.spec.computes_values() {
                    return self.err(t.pos, kw.len(), format!("`{kw}` needs `memory … undefined` before it"));
                }
                let fin = kw == "undefined" && self.eat_kw("final");
                let pos = self.tok().pos;
                let (expr, ty) = self.expr()?;
                if ty != Ty::Set {
                    return self.err(pos, 1, format!("`{kw}` takes a set of subevents, this is a relation"));
                }
                let kind = match (kw.as_str(), fin) {
                    ("defined", _) => AxiomKind::Defined,
                    (_, false) => AxiomKind::Undefined,
                    _ => AxiomKind::FinalUndefined,
                };
                self.named_axiom(kind, expr, at)?;
            }
            "so" => {
                self.bump();
                let pos = self.tok().pos;
                let union = self.eat_p("|");
                self.want_p("=")?;
                let e = self.rel_expr("a relation")?;
                if e.mentions_hb(&self.spec.lets) {
                    return self.err(pos, 1, "so cannot mention hb (hb is built from so)");
                }
                self.spec.so = match (union, self.spec.so.take()) {
                    (true, Some(old)) => Some(Expr::Union(Box::new(old), Box::new(e))),
                    (false, Some(_)) => {
                        return self.err(t.pos, 2, "so is already given (write `so |= …` to add to it)");
                    }
                    _ => Some(e),
                };
            }
            "acyclic" | "irreflexive" | "empty" => {
                let kind = match kw.as_str() {
                    "acyclic" => AxiomKind::Acyclic,
                    "irreflexive" => AxiomKind::Irreflexive,
                    _ => AxiomKind::Empty,
                };
                self.bump();
                let at = format!("{}:{}", self.file, t.pos.line);
                let pos = self.tok().pos;
                let (expr, ty) = self.expr()?;
                if ty != Ty::Rel && kind != AxiomKind::Empty {
                    return self.err(pos, 1, format!("`{kw}` needs a relation, this is a set"));
                }
                self.named_axiom(kind, expr, at)?;
            }
            _ if matches!(self.toks.get(self.i + 1).map(|t| &t.t), Some(T::P("|")))
                && matches!(self.toks.get(self.i + 2).map(|t| &t.t), Some(T::P("="))) =>
            {
                // NAME |= E as RULE: a named term of a `let`
                let at = format!("{}:{}", self.file, t.pos.line);
                let Some(i) = self.spec.lets.iter().rposition(|l| l.name == *kw) else {
                    return Err(self.fix(Diagnostic::unknown(
                        t.pos,
                        kw,
                        format!("`{kw} |= …` adds to a `let`, and there is no `let {kw}`"),
                        self.spec.lets.iter().map(|l| l.name.as_str()),
                    )));
                };
                self.bump();
                self.bump();
                self.bump();
                let pos = self.tok().pos;
                self.clause_of = Some(i);
                let parsed = self.expr();
                self.clause_of = None;
                let (expr, ty) = parsed?;
                if ty != self.spec.lets[i].ty {
                    return self.err(pos, 1, format!("`{kw}` is a {}, this is not", ty_name(self.spec.lets[i].ty)));
                }
                self.named_axiom(AxiomKind::Clause(i), expr, at)?;
                self.spec.refresh_flags();
            }
            _ => {
                let d = Diagnostic::expected_found(t.pos, "a declaration", &t.shown(), t.len)
                    .suggesting(kw, TOP.iter().copied());
                let mut d = d;
                d.expected = TOP.iter().map(|k| format!("`{k}`")).collect();
                return Err(self.fix(d));
            }
        }
        Ok(())
    }

    /// `… as NAME`: an axiom, value rule or clause, by its unique name.
    fn named_axiom(&mut self, kind: AxiomKind, expr: Expr, at: String) -> R<()> {
        self.want_kw("as")?;
        let (name, npos) = self.ident("an axiom name")?;
        if self.spec.axioms.iter().any(|a| a.name == name) {
            return self.err(npos, name.len(), format!("axiom `{name}` is already stated"));
        }
        self.spec.axioms.push(Axiom { name, kind, expr, at });
        Ok(())
    }

    fn static_only(&self, e: &Expr, pos: Pos, what: &str) -> R<()> {
        if e.dynamic(&self.spec.lets) {
            return self.err(pos, 1, format!("{what} must not depend on a witness or hb"));
        }
        Ok(())
    }
}

fn ty_name(t: Ty) -> &'static str {
    match t {
        Ty::Set => "set",
        Ty::Rel => "relation",
    }
}
