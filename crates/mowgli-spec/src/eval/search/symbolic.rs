//! A file library's predicate over one plain execution as data for a symbolic
//! engine ([`mowgli_core::symbolic::RelProgram`]): the folded expressions (static
//! parts already evaluated by this evaluator) with the witness relations left as
//! unknowns, and the same variables in the same order as the search.

use mowgli_core::memory::RfMo;
use mowgli_core::symbolic::{RelExpr, RelProgram, RelSpec, SymAxiomKind, SymWitness};
use mowgli_core::BitRel;

use super::{FileSearch, Val, WState};
use crate::*;

impl FileSearch<'_> {
    /// The predicate as a [`RelSpec`] whose [`RelSpec::program`] holds the axioms,
    /// witnesses and so; `None` when an axiom subtracts something mentioning hb
    /// (hb's term is exact only from below: it is built from every library's so,
    /// whose terms may be true where so is not, `engines/z3/rel.rs`).
    pub(super) fn rel_spec(&self) -> Option<RelSpec> {
        let n = self.n;
        let spec = &self.lib.spec;
        let plan = &self.lib.shared.plan;
        // not compiled to SMT (yet): computed values, read-modify-write writes
        // (which may not happen), least fixpoints, and the three-way and
        // splitting witnesses (coreRMA's); Z3 declines the library
        let plain = |k: &AxiomKind| matches!(k, AxiomKind::Acyclic | AxiomKind::Irreflexive | AxiomKind::Empty);
        let rmw = spec.methods.iter().flat_map(|m| &m.accesses).any(|a| matches!(a.val, crate::AccVal::Rmw(_)));
        if self.vals.is_some()
            || rmw
            || plan.rec.iter().any(|r| *r)
            || spec.axioms.iter().any(|a| !plain(&a.kind))
            || self.wits.iter().any(|w| matches!(w, WState::OrientsOpt { .. } | WState::Splits { .. }))
        {
            return None;
        }
        if spec.axioms.iter().any(|a| hb_subtracted(&a.expr, &spec.lets)) {
            return None;
        }
        let lets = plan.lets.iter().map(|e| self.rel_expr(e)).collect();
        let dynamic = |hb: bool| {
            spec.axioms.iter().filter(move |a| a.expr.dynamic(&spec.lets) && a.expr.mentions_hb(&spec.lets) == hb)
        };
        let named = |axioms: &[(AxiomKind, Expr, bool)], hb: bool| -> Vec<(String, SymAxiomKind, RelExpr)> {
            dynamic(hb)
                .zip(axioms)
                .map(|(a, (kind, e, _))| {
                    let kind = match kind {
                        AxiomKind::Acyclic => SymAxiomKind::Acyclic,
                        AxiomKind::Irreflexive => SymAxiomKind::Irreflexive,
                        _ => SymAxiomKind::Empty,
                    };
                    (a.name.clone(), kind, self.rel_expr(e))
                })
                .collect()
        };
        let axioms = named(&plan.axioms, false);
        let hb_axioms = named(&plan.hb_axioms, true);
        let witnesses = self
            .wits
            .iter()
            .map(|w| match w {
                WState::Orients { pairs, .. } => SymWitness::Orients(pairs.clone()),
                WState::Picks { targets, .. } => SymWitness::Picks(targets.clone()),
                WState::OrientsOpt { .. } | WState::Splits { .. } => SymWitness::Orients(vec![]),
            })
            .collect();
        // so's static terms (their union, unless empty) first
        let fixed = self.so_fixed.map(|k| Expr::Const(k, Ty::Rel));
        let so = fixed.iter().chain(plan.so.iter().map(|(e, _)| e)).map(|e| self.rel_expr(e)).collect();
        Some(RelSpec {
            possible: self.static_ok,
            mem: self.m.mem.clone().unwrap_or_else(|| RfMo::new(n, vec![], vec![], vec![])),
            program: RelProgram { witnesses, lets, axioms, hb_axioms, so },
        })
    }

    /// A folded expression as a [`RelExpr`].
    fn rel_expr(&self, e: &Expr) -> RelExpr {
        let b = |x: &Expr| Box::new(self.rel_expr(x));
        let constant = |v: &Val| match v {
            Val::Set(s) => RelExpr::Set(s.to_bools(self.n)),
            Val::Rel(r) => RelExpr::Rel(r.clone()),
        };
        match e {
            Expr::Const(i, _) => constant(&self.consts[*i]),
            Expr::Wit(WitRel::Rf) => RelExpr::Rf,
            Expr::Wit(WitRel::Mo) => RelExpr::Mo,
            Expr::Wit(WitRel::Rb) => RelExpr::Rb,
            Expr::Wit(WitRel::Named(i)) => RelExpr::Wit(*i),
            Expr::Let(i, _) => RelExpr::Let(*i),
            Expr::Base(Base::Hb) => RelExpr::Hb,
            Expr::Ident(a) => RelExpr::Ident(b(a)),
            Expr::Prod(x, y) => RelExpr::Prod(b(x), b(y)),
            Expr::Domain(a) => RelExpr::Domain(b(a)),
            Expr::Range(a) => RelExpr::Range(b(a)),
            Expr::Inv(a) => RelExpr::Inv(b(a)),
            Expr::Plus(a) => RelExpr::Plus(b(a)),
            Expr::Star(a) => {
                let id = BitRel::identity_on(self.n, |x| self.m.mine[x]);
                RelExpr::Union(Box::new(RelExpr::Plus(b(a))), Box::new(RelExpr::Rel(id)))
            }
            Expr::Seq(x, y) => RelExpr::Seq(b(x), b(y)),
            Expr::Union(x, y) => RelExpr::Union(b(x), b(y)),
            Expr::Inter(x, y) => RelExpr::Inter(b(x), b(y)),
            Expr::Diff(x, y) => RelExpr::Diff(b(x), b(y)),
            // what folding left static (it folds every static subexpression): its value
            other => constant(&self.eval_static(other)),
        }
    }
}

/// Whether hb occurs in the subtrahend of a `\\` (through `lets`).
fn hb_subtracted(e: &Expr, lets: &[Let]) -> bool {
    use Expr::*;
    match e {
        // (a `let rec` names itself: such libraries are declined before this walk)
        Let(i, _) => lets.get(*i).is_some_and(|l| !l.rec && hb_subtracted(&l.expr, lets)),
        Diff(a, b) => hb_subtracted(a, lets) || b.mentions_hb(lets),
        Domain(a) | Range(a) | Ident(a) | Inv(a) | Plus(a) | Star(a) => hb_subtracted(a, lets),
        Prod(a, b) | Seq(a, b) | Union(a, b) | Inter(a, b) => hb_subtracted(a, lets) || hb_subtracted(b, lets),
        _ => false,
    }
}
