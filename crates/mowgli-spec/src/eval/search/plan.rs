//! Folding decided once per library: which parts of its expressions are static
//! (no witness, no hb: [`Expr::dynamic`]) depends on the library only, so the
//! folded expressions are built here, with the static parts as constants
//! ([`Expr::Const`] `k`: the value of [`Plan::statics`]`[k]`). A search computes
//! only those values, in order, on its execution.

use crate::*;

use super::{flatten_union, ty_of};

/// A static part of a library's expressions, computed by each search.
pub(crate) enum Static {
    /// The value of an expression.
    Val(Expr),
    /// `[S]; r` with S static: the rows of S (`S × U`, to intersect r with).
    Rows(Expr),
    /// `r; [S]` with S static: the columns of S (`U × S`).
    Cols(Expr),
}

/// A library's expressions folded ([`Static`]), its axioms sorted by when they
/// are checked.
pub(crate) struct Plan {
    /// The static parts, in order (one may name an earlier one's constant).
    pub statics: Vec<Static>,
    /// Per let: its definition (with its clauses, if any), folded.
    pub lets: Vec<Expr>,
    /// Per let: whether it is recursive (a least fixpoint).
    pub rec: Vec<bool>,
    /// The static axioms, as written (checked once per search).
    pub static_axioms: Vec<(AxiomKind, Expr)>,
    /// The dynamic axioms without hb: (kind, folded, monotone).
    pub axioms: Vec<(AxiomKind, Expr, bool)>,
    /// The axioms mentioning hb.
    pub hb_axioms: Vec<(AxiomKind, Expr, bool)>,
    /// The value rules (memory with `undefined`), folded.
    pub rules: Vec<(AxiomKind, Expr)>,
    /// so: the union of its static terms (a [`Static`]), if any.
    pub so_static: Option<usize>,
    /// so: its dynamic terms (folded, monotone).
    pub so: Vec<(Expr, bool)>,
}

impl Plan {
    pub(crate) fn new(spec: &Spec) -> Plan {
        let lets = &spec.lets;
        let mut p = Plan {
            statics: vec![],
            lets: vec![],
            rec: lets.iter().map(|l| l.rec).collect(),
            static_axioms: vec![],
            axioms: vec![],
            hb_axioms: vec![],
            rules: vec![],
            so_static: None,
            so: vec![],
        };
        // the lets in order (a static let becomes a constant)
        for i in 0..lets.len() {
            // the definition as it is when no clause adds to it (no copy)
            let has_clause = spec.axioms.iter().any(|a| a.kind == AxiomKind::Clause(i));
            let e = if has_clause { p.fold(lets, &spec.let_expr(i)) } else { p.fold(lets, &lets[i].expr) };
            p.lets.push(e);
        }
        // axioms (value rules and clauses are not checked by the search)
        for a in &spec.axioms {
            if !matches!(a.kind, AxiomKind::Acyclic | AxiomKind::Irreflexive | AxiomKind::Empty) {
                if spec.computes_values() && !matches!(a.kind, AxiomKind::Clause(_)) {
                    let e = p.fold(lets, &a.expr);
                    p.rules.push((a.kind, e));
                }
                continue;
            }
            if !a.expr.dynamic(lets) {
                p.static_axioms.push((a.kind, a.expr.clone()));
                continue;
            }
            let e = p.fold(lets, &a.expr);
            let mono = a.expr.monotone(lets);
            if a.expr.mentions_hb(lets) {
                p.hb_axioms.push((a.kind, e, mono));
            } else {
                p.axioms.push((a.kind, e, mono));
            }
        }
        // so: its union terms
        if let Some(so) = &spec.so {
            let mut terms = Vec::new();
            flatten_union(so, &mut terms);
            let (stat, dynm): (Vec<&Expr>, Vec<&Expr>) = terms.into_iter().partition(|t| !t.dynamic(lets));
            if let Some(u) = union_of(&stat) {
                p.so_static = Some(p.push(Static::Val(u)));
            }
            for t in dynm {
                let f = p.fold(lets, t);
                p.so.push((f, t.monotone(lets)));
            }
        }
        p
    }

    /// A new static part: its constant's index.
    fn push(&mut self, s: Static) -> usize {
        self.statics.push(s);
        self.statics.len() - 1
    }

    /// Replaces every static subexpression with a constant.
    fn fold(&mut self, lets: &[Let], e: &Expr) -> Expr {
        if !e.dynamic(lets) {
            if let Expr::Ident(inner) = e {
                let k = self.push(Static::Val((**inner).clone()));
                return Expr::Ident(Box::new(Expr::Const(k, Ty::Set)));
            }
            let ty = match e {
                Expr::Let(_, t) => *t,
                _ => ty_of(e),
            };
            return Expr::Const(self.push(Static::Val(e.clone())), ty);
        }
        let mut b = |x: &Expr| Box::new(self.fold(lets, x));
        match e {
            Expr::Union(..) => {
                let mut terms = Vec::new();
                flatten_union(e, &mut terms);
                let ty = ty_of(e);
                let (stat, dynm): (Vec<&Expr>, Vec<&Expr>) = terms.into_iter().partition(|t| !t.dynamic(lets));
                let mut acc = union_of(&stat).map(|u| Expr::Const(self.push(Static::Val(u)), ty));
                for t in dynm {
                    let f = self.fold(lets, t);
                    acc = Some(match acc {
                        None => f,
                        Some(a) => Expr::Union(Box::new(a), Box::new(f)),
                    });
                }
                acc.unwrap_or(Expr::Empty(ty))
            }
            Expr::Domain(a) => Expr::Domain(b(a)),
            Expr::Range(a) => Expr::Range(b(a)),
            Expr::Ident(a) => Expr::Ident(b(a)),
            Expr::Inv(a) => Expr::Inv(b(a)),
            Expr::Plus(a) => Expr::Plus(b(a)),
            Expr::Star(a) => Expr::Star(b(a)),
            Expr::Prod(x, y) => Expr::Prod(b(x), b(y)),
            // [S]; r and r; [S] with S static: r ∩ (S × U), r ∩ (U × S) (word-parallel)
            Expr::Seq(x, y) if matches!(**x, Expr::Ident(_)) && !x.dynamic(lets) => {
                let c = Expr::Const(self.push(Static::Rows((**x).clone())), Ty::Rel);
                Expr::Inter(Box::new(c), Box::new(self.fold(lets, y)))
            }
            Expr::Seq(x, y) if matches!(**y, Expr::Ident(_)) && !y.dynamic(lets) => {
                let f = self.fold(lets, x);
                let c = Expr::Const(self.push(Static::Cols((**y).clone())), Ty::Rel);
                Expr::Inter(Box::new(f), Box::new(c))
            }
            Expr::Seq(x, y) => Expr::Seq(b(x), b(y)),
            Expr::Inter(x, y) => Expr::Inter(b(x), b(y)),
            Expr::Diff(x, y) => Expr::Diff(b(x), b(y)),
            other => other.clone(),
        }
    }
}

/// The union of `terms`, left to right (`None`: no term).
fn union_of(terms: &[&Expr]) -> Option<Expr> {
    let (first, rest) = terms.split_first()?;
    Some(rest.iter().fold((*first).clone(), |acc, t| Expr::Union(Box::new(acc), Box::new((*t).clone()))))
}
