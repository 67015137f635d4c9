//! The evaluator of expressions over one (partial) witness.

use mowgli_core::memory::RfMo;
use mowgli_core::BitRel;

use super::{flatten_union, union, FileSearch, Val};
use crate::*;

/// One evaluation (of one check): lets memoised.
pub(super) struct Ev<'s, 'a> {
    pub(super) s: &'s FileSearch<'a>,
    pub(super) hb: Option<&'s BitRel>,
    pub(super) memo: Vec<Option<Val>>,
}

impl Ev<'_, '_> {
    pub(super) fn eval(&mut self, e: &Expr) -> Val {
        let s = self.s;
        let n = s.n;
        let g = s.g;
        let mine = &s.m.mine;
        let sub_set = |f: &dyn Fn(usize) -> bool| Val::Set((0..n).map(|x| mine[x] && f(x)).collect());
        match e {
            Expr::All => Val::Set(mine.clone()),
            Expr::Stamp(k) => {
                let kind = s.lib.kinds[*k];
                sub_set(&|x| g.subs[x].stamp.kind == kind)
            }
            Expr::Method(m) => sub_set(&|x| g.event_of(x).method == *m),
            Expr::MethodStamp(m, k) => {
                let kind = s.lib.kinds[*k];
                sub_set(&|x| g.event_of(x).method == *m && g.subs[x].stamp.kind == kind)
            }
            Expr::Reads => Val::Set(s.m.reads.clone()),
            Expr::Writes => Val::Set(s.m.writes.clone()),
            Expr::Obj(w, a) => Val::Set(s.obj_set(*w, a)),
            Expr::Domain(r) => {
                let r = self.eval(r).rel(n);
                Val::Set((0..n).map(|x| r.successors(x).next().is_some()).collect())
            }
            Expr::Range(r) => {
                let r = self.eval(r).rel(n).inverse();
                Val::Set((0..n).map(|x| r.successors(x).next().is_some()).collect())
            }
            Expr::Base(b) => Val::Rel(s.base(*b, self.hb)),
            Expr::Same(a, b) => Val::Rel(BitRel::from_fn(n, |x, y| {
                mine[x] && mine[y] && s.arg(x, a).is_some() && s.arg(x, a) == s.arg(y, b)
            })),
            Expr::SameRound(a) => Val::Rel(s.same_round(a)),
            Expr::Wit(w) => Val::Rel(match w {
                WitRel::Rf => s.m.mem.as_ref().map(RfMo::rf_rel).unwrap_or_else(|| BitRel::new(n)),
                WitRel::Mo => s.m.mem.as_ref().map(RfMo::mo_rel).unwrap_or_else(|| BitRel::new(n)),
                WitRel::Rb => s.m.mem.as_ref().map(RfMo::rb_rel).unwrap_or_else(|| BitRel::new(n)),
                WitRel::Named(i) => s.wit_rel(*i),
            }),
            Expr::Ident(a) => {
                let set = self.eval(a).set();
                Val::Rel(BitRel::identity_on(n, |x| set.get(x) == Some(&true)))
            }
            Expr::Prod(a, b) => {
                let (x, y) = (self.eval(a).set(), self.eval(b).set());
                Val::Rel(BitRel::from_fn(n, |i, j| x.get(i) == Some(&true) && y.get(j) == Some(&true)))
            }
            Expr::Inv(a) => Val::Rel(self.eval(a).rel(n).inverse()),
            Expr::Plus(a) => {
                let mut r = self.eval(a).rel(n);
                r.close_transitively();
                Val::Rel(r)
            }
            Expr::Star(a) => {
                let mut r = self.eval(a).rel(n);
                r.close_transitively();
                for (x, _) in mine.iter().enumerate().filter(|(_, m)| **m) {
                    r.add(x, x);
                }
                Val::Rel(r)
            }
            Expr::Seq(a, b) => {
                // [S]; r and r; [S] as restrictions
                if let Expr::Ident(sa) = &**a {
                    let set = self.eval(sa).set();
                    let r = self.eval(b).rel(n);
                    return Val::Rel(r.restrict(|x| set.get(x) == Some(&true), |_| true));
                }
                if let Expr::Ident(sb) = &**b {
                    let r = self.eval(a).rel(n);
                    let set = self.eval(sb).set();
                    return Val::Rel(r.restrict(|_| true, |y| set.get(y) == Some(&true)));
                }
                let x = self.eval(a).rel(n);
                let y = self.eval(b).rel(n);
                Val::Rel(x.compose(&y))
            }
            Expr::Let(i, _) => {
                if let Some(v) = &self.memo[*i] {
                    return v.clone();
                }
                if s.lib.plan.rec[*i] {
                    return self.fixpoint(*i);
                }
                let v = self.eval(&s.lib.plan.lets[*i]);
                self.memo[*i] = Some(v.clone());
                v
            }
            Expr::Tag(t) => Val::Set(s.tags[*t].clone()),
            Expr::InitReads => Val::Set(s.init_reads()),
            Expr::WitSet(i, first) => Val::Set(s.wit_set(*i, *first)),
            Expr::ValEq(r) => {
                let r = self.eval(r).rel(n);
                Val::Rel(match &s.vals {
                    Some(v) => v.val_eq(&r),
                    None => BitRel::new(n),
                })
            }
            Expr::Union(a, b) => {
                let x = self.eval(a);
                union(x, self.eval(b))
            }
            Expr::Inter(a, b) => match (self.eval(a), self.eval(b)) {
                (Val::Set(x), Val::Set(y)) => Val::Set(x.iter().zip(&y).map(|(p, q)| *p && *q).collect()),
                (x, y) => Val::Rel(x.rel(n).intersect(&y.rel(n))),
            },
            Expr::Diff(a, b) => match (self.eval(a), self.eval(b)) {
                (Val::Set(x), Val::Set(y)) => Val::Set(x.iter().zip(&y).map(|(p, q)| *p && !*q).collect()),
                (x, y) => Val::Rel(x.rel(n).minus(&y.rel(n))),
            },
            Expr::Empty(Ty::Set) => Val::Set(vec![false; n]),
            Expr::Empty(Ty::Rel) => Val::Rel(BitRel::new(n)),
            Expr::Const(i, _) => s.consts[*i].clone(),
        }
    }
}

impl Ev<'_, '_> {
    /// The least fixpoint of a `let rec`, from the empty relation. Its union terms
    /// that do not refer to it (through other lets either) are evaluated once;
    /// the others are re-evaluated with the previous approximation until nothing
    /// changes (the lets memoised meanwhile are forgotten at each round: they may
    /// depend on it). A term `X ; X` is replaced by closing each approximation
    /// transitively: lfp(X ;X ∪ G(X)) is the least transitive relation containing
    /// G of it, lfp(G(X)⁺).
    fn fixpoint(&mut self, i: usize) -> Val {
        let s = self.s;
        let n = s.n;
        let mut terms = Vec::new();
        flatten_union(&s.lib.plan.lets[i], &mut terms);
        let is_sq = |t: &Expr| matches!(t, Expr::Seq(a, b) if matches!(**a, Expr::Let(j, _) if j == i) && matches!(**b, Expr::Let(k, _) if k == i));
        let closed = terms.iter().any(|t| is_sq(t));
        let (selfs, others): (Vec<&Expr>, Vec<&Expr>) = terms
            .into_iter()
            .filter(|t| !is_sq(t))
            .partition(|t| refers(s, t, i, &mut vec![false; s.lib.plan.lets.len()]));
        let mut base = BitRel::new(n);
        for t in others {
            base.union_with(&self.eval(t).rel(n));
        }
        let before: Vec<bool> = self.memo.iter().map(Option::is_some).collect();
        let mut cur = base.clone();
        if closed {
            cur.close_transitively();
        }
        loop {
            self.memo[i] = Some(Val::Rel(cur.clone()));
            let mut next = base.clone();
            for t in &selfs {
                next.union_with(&self.eval(t).rel(n));
            }
            for (k, b) in before.iter().enumerate() {
                if !b {
                    self.memo[k] = None;
                }
            }
            next.union_with(&cur);
            if closed {
                next.close_transitively();
            }
            if next == cur {
                self.memo[i] = Some(Val::Rel(next.clone()));
                return Val::Rel(next);
            }
            cur = next;
        }
    }
}

/// Whether `e` refers to let `i` (through the lets it names).
fn refers(s: &FileSearch, e: &Expr, i: usize, seen: &mut Vec<bool>) -> bool {
    use Expr::*;
    match e {
        Let(j, _) if *j == i => true,
        Let(j, _) => {
            if seen[*j] {
                return false;
            }
            seen[*j] = true;
            refers(s, &s.lib.plan.lets[*j], i, seen)
        }
        Domain(a) | Range(a) | Ident(a) | Inv(a) | Plus(a) | Star(a) | ValEq(a) => refers(s, a, i, seen),
        Prod(a, b) | Seq(a, b) | Union(a, b) | Inter(a, b) | Diff(a, b) => {
            refers(s, a, i, seen) || refers(s, b, i, seen)
        }
        _ => false,
    }
}
