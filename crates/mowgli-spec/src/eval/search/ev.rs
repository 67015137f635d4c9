//! The evaluator of expressions over one (partial) witness.
//!
//! A value the search already holds (a constant, a base relation) or the memo
//! holds (a let) is lent ([`Slot`], [`Ev::view`]), not copied; an operator
//! computes into its first operand's value when that one is its own.

use std::borrow::Cow;

use mowgli_core::memory::RfMo;
use mowgli_core::{BitRel, Value};

use super::{flatten_union, FileSearch, Set, Val};
use crate::*;

/// Where a value is: lent by the search (a constant, a base relation other
/// than hb) or by the memo (a let), or owned.
pub(super) enum Slot {
    Const(usize),
    Base(Base),
    Let(usize),
    Own(Val),
}

/// What a [`Slot::Let`] whose memo is gone would show (never: a fixpoint forgets
/// only the lets memoised during it, and a slot is viewed before the next one).
static NOTHING: Val = Val::Set(Set::EMPTY);

/// One evaluation (of one check): lets memoised.
pub(super) struct Ev<'s, 'a> {
    s: &'s FileSearch<'a>,
    /// The static parts' values (those computed so far, while the search is built).
    consts: &'s [Val],
    hb: Option<&'s BitRel>,
    /// Per let: its value (grown on the first one memoised).
    memo: Vec<Option<Val>>,
}

/// Whether `e`'s value is lent (see [`Ev::slot`]).
fn lent(e: &Expr) -> bool {
    matches!(e, Expr::Const(..) | Expr::Let(..)) || matches!(e, Expr::Base(b) if *b != Base::Hb)
}

/// `v` as a relation (a set: the empty relation, as no parsed library asks).
fn rel(v: &Val, n: usize) -> Cow<'_, BitRel> {
    match v {
        Val::Rel(r) => Cow::Borrowed(r),
        Val::Set(_) => Cow::Owned(BitRel::new(n)),
    }
}

/// `v` as a set (a relation: the empty set).
fn set(v: &Val) -> &Set {
    static NO_SET: Set = Set::EMPTY;
    match v {
        Val::Set(s) => s,
        Val::Rel(_) => &NO_SET,
    }
}

impl<'s, 'a> Ev<'s, 'a> {
    pub(super) fn new(s: &'s FileSearch<'a>, consts: &'s [Val], hb: Option<&'s BitRel>) -> Self {
        Ev { s, consts, hb, memo: Vec::new() }
    }

    /// The value of `e`, owned.
    pub(super) fn eval(&mut self, e: &Expr) -> Val {
        match self.slot(e) {
            Slot::Own(v) => v,
            s => self.view(&s).clone(),
        }
    }

    /// The value of `e`, lent when it is a constant, a base relation or a let.
    pub(super) fn slot(&mut self, e: &Expr) -> Slot {
        match e {
            Expr::Const(k, _) => Slot::Const(*k),
            Expr::Base(b) if *b != Base::Hb => Slot::Base(*b),
            Expr::Let(i, _) => self.let_slot(*i),
            _ => Slot::Own(self.compute(e)),
        }
    }

    /// A slot's value.
    pub(super) fn view<'v>(&'v self, slot: &'v Slot) -> &'v Val {
        match slot {
            Slot::Const(k) => &self.consts[*k],
            Slot::Base(b) => self.s.base(*b),
            Slot::Let(i) => self.memo.get(*i).and_then(Option::as_ref).unwrap_or(&NOTHING),
            Slot::Own(v) => v,
        }
    }

    fn memoise(&mut self, i: usize, v: Val) {
        let lets = self.s.lib.shared.plan.lets.len();
        if self.memo.len() < lets {
            self.memo.resize(lets, None);
        }
        self.memo[i] = Some(v);
    }

    fn let_slot(&mut self, i: usize) -> Slot {
        let plan = &self.s.lib.shared.plan;
        if self.memo.get(i).is_some_and(Option::is_some) {
            return Slot::Let(i);
        }
        if plan.rec[i] {
            let v = self.fixpoint(i);
            self.memoise(i, v);
            return Slot::Let(i);
        }
        match self.slot(&plan.lets[i]) {
            // a static let is a constant
            Slot::Const(k) => Slot::Const(k),
            s => {
                let v = match s {
                    Slot::Own(v) => v,
                    s => self.view(&s).clone(),
                };
                self.memoise(i, v);
                Slot::Let(i)
            }
        }
    }

    /// `e`'s value as an owned relation.
    fn owned_rel(&mut self, e: &Expr) -> BitRel {
        match self.eval(e) {
            Val::Rel(r) => r,
            Val::Set(_) => BitRel::new(self.s.n),
        }
    }

    /// The value of an expression other than a constant, a let or a base
    /// relation (other than hb).
    fn compute(&mut self, e: &Expr) -> Val {
        let s = self.s;
        let n = s.n;
        let g = s.g;
        let mine = &s.m.mine;
        let sub_set = |f: &dyn Fn(usize) -> bool| Val::Set(Set::from_fn(n, |x| mine[x] && f(x)));
        match e {
            Expr::All => Val::Set(s.all.clone()),
            Expr::Stamp(k) => Val::Set(s.stamps[*k].clone()),
            Expr::Method(m) => sub_set(&|x| g.event_of(x).method == *m),
            Expr::MethodStamp(m, k) => {
                let kind = s.lib.kinds[*k];
                sub_set(&|x| g.event_of(x).method == *m && g.subs[x].stamp.kind == kind)
            }
            Expr::Reads => Val::Set(s.m.reads.clone()),
            Expr::Writes => Val::Set(s.m.writes.clone()),
            Expr::Obj(w, a) => Val::Set(s.obj_set(*w, a)),
            Expr::Domain(r) => {
                let r = self.slot(r);
                let r = rel(self.view(&r), n);
                Val::Set(Set::from_fn(n, |x| r.successors(x).next().is_some()))
            }
            Expr::Range(r) => {
                let r = self.slot(r);
                let mut out = Set::new(n);
                for (_, y) in rel(self.view(&r), n).pairs() {
                    out.insert(y);
                }
                Val::Set(out)
            }
            Expr::Base(Base::Hb) => Val::Rel(self.hb.cloned().unwrap_or_else(|| g.ppo.clone())),
            Expr::Same(a, b) => {
                // the library's subevents' arguments a and b
                let arg = |p: &ArgRef| -> Vec<Option<&Value>> {
                    (0..n).map(|x| if mine[x] { s.arg(x, p) } else { None }).collect()
                };
                let (va, vb) = (arg(a), arg(b));
                let mut r = BitRel::new(n);
                for (x, v) in va.iter().enumerate().filter(|(_, v)| v.is_some()) {
                    for y in (0..n).filter(|&y| vb[y] == *v) {
                        r.add(x, y);
                    }
                }
                Val::Rel(r)
            }
            Expr::SameRound(a) => Val::Rel(s.same_round(a)),
            Expr::Wit(w) => Val::Rel(match w {
                WitRel::Rf => s.m.mem.as_ref().map(RfMo::rf_rel).unwrap_or_else(|| BitRel::new(n)),
                WitRel::Mo => s.m.mem.as_ref().map(RfMo::mo_rel).unwrap_or_else(|| BitRel::new(n)),
                WitRel::Rb => s.m.mem.as_ref().map(RfMo::rb_rel).unwrap_or_else(|| BitRel::new(n)),
                WitRel::Named(i) => s.wit_rel(*i),
            }),
            Expr::Ident(a) => {
                let a = self.slot(a);
                let a = set(self.view(&a));
                Val::Rel(BitRel::identity_on(n, |x| a.contains(x)))
            }
            Expr::Prod(a, b) => {
                let (a, b) = (self.slot(a), self.slot(b));
                let (x, y) = (set(self.view(&a)), set(self.view(&b)));
                Val::Rel(BitRel::from_fn(n, |i, j| x.contains(i) && y.contains(j)))
            }
            Expr::Inv(a) => {
                let a = self.slot(a);
                Val::Rel(rel(self.view(&a), n).inverse())
            }
            Expr::Plus(a) => {
                let mut r = self.owned_rel(a);
                r.close_transitively();
                Val::Rel(r)
            }
            Expr::Star(a) => {
                let mut r = self.owned_rel(a);
                r.close_transitively();
                for (x, _) in mine.iter().enumerate().filter(|(_, m)| **m) {
                    r.add(x, x);
                }
                Val::Rel(r)
            }
            Expr::Seq(a, b) => {
                // [S]; r and r; [S] as restrictions
                if let Expr::Ident(sa) = &**a {
                    let sa = self.slot(sa);
                    let mut r = self.owned_rel(b);
                    let sa = set(self.view(&sa));
                    r.restrict_with(|x| sa.contains(x), |_| true);
                    return Val::Rel(r);
                }
                if let Expr::Ident(sb) = &**b {
                    let mut r = self.owned_rel(a);
                    let sb = self.slot(sb);
                    let sb = set(self.view(&sb));
                    r.restrict_with(|_| true, |y| sb.contains(y));
                    return Val::Rel(r);
                }
                let (a, b) = (self.slot(a), self.slot(b));
                Val::Rel(rel(self.view(&a), n).compose(&rel(self.view(&b), n)))
            }
            Expr::Tag(t) => Val::Set(s.tags[*t].clone()),
            Expr::InitReads => Val::Set(s.init_reads()),
            Expr::WitSet(i, first) => Val::Set(s.wit_set(*i, *first)),
            Expr::ValEq(r) | Expr::ValNe(r) => {
                let eq = matches!(e, Expr::ValEq(_));
                let r = self.slot(r);
                let r = rel(self.view(&r), n);
                Val::Rel(match &s.vals {
                    Some(v) => v.val_cmp(&r, eq),
                    None => BitRel::new(n),
                })
            }
            Expr::Union(a, b) | Expr::Inter(a, b) | Expr::Diff(a, b) => self.binary(e, a, b),
            Expr::Empty(Ty::Set) => Val::Set(Set::new(n)),
            Expr::Empty(Ty::Rel) => Val::Rel(BitRel::new(n)),
            Expr::Const(..) | Expr::Let(..) | Expr::Base(_) => self.eval(e),
        }
    }

    /// `a ∪ b`, `a ∩ b` or `a \ b` (`e`), computed into the value of an operand
    /// that is not lent: `a`'s, or `b`'s when only `a`'s is lent (∪ and ∩
    /// commute). Operands of different types (no parsed library has them) give
    /// what they always gave: `a` for ∪, the empty relation for ∩, `a` or the
    /// empty relation for `\`.
    fn binary(&mut self, e: &Expr, a: &Expr, b: &Expr) -> Val {
        let n = self.s.n;
        let diff = matches!(e, Expr::Diff(..));
        let swap = !diff && lent(a) && !lent(b);
        let (first, second) = if swap { (b, a) } else { (a, b) };
        let mut x = self.eval(first);
        let y = self.slot(second);
        let y = self.view(&y);
        match (e, &mut x, y) {
            (Expr::Union(..), Val::Set(x), Val::Set(y)) => x.union_with(y),
            (Expr::Union(..), Val::Rel(x), Val::Rel(y)) => x.union_with(y),
            (Expr::Union(..), _, _) if swap => return y.clone(),
            (Expr::Union(..), _, _) => {}
            (Expr::Inter(..), Val::Set(x), Val::Set(y)) => x.intersect_with(y),
            (Expr::Inter(..), Val::Rel(x), Val::Rel(y)) => x.intersect_with(y),
            (Expr::Diff(..), Val::Set(x), Val::Set(y)) => x.minus_with(y),
            (Expr::Diff(..), Val::Rel(x), Val::Rel(y)) => x.minus_with(y),
            (Expr::Diff(..), Val::Rel(_), Val::Set(_)) => {}
            _ => return Val::Rel(BitRel::new(n)),
        }
        x
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
        let lets = &s.lib.shared.plan.lets;
        let mut terms = Vec::new();
        flatten_union(&lets[i], &mut terms);
        let is_sq = |t: &Expr| matches!(t, Expr::Seq(a, b) if matches!(**a, Expr::Let(j, _) if j == i) && matches!(**b, Expr::Let(k, _) if k == i));
        let closed = terms.iter().any(|t| is_sq(t));
        let (selfs, others): (Vec<&Expr>, Vec<&Expr>) =
            terms.into_iter().filter(|t| !is_sq(t)).partition(|t| refers(s, t, i, &mut vec![false; lets.len()]));
        let mut base = BitRel::new(n);
        for t in others {
            let t = self.slot(t);
            base.union_with(&rel(self.view(&t), n));
        }
        if self.memo.len() < lets.len() {
            self.memo.resize(lets.len(), None);
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
                let t = self.slot(t);
                next.union_with(&rel(self.view(&t), n));
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
            refers(s, &s.lib.shared.plan.lets[*j], i, seen)
        }
        Domain(a) | Range(a) | Ident(a) | Inv(a) | Plus(a) | Star(a) | ValEq(a) | ValNe(a) => refers(s, a, i, seen),
        Prod(a, b) | Seq(a, b) | Union(a, b) | Inter(a, b) | Diff(a, b) => {
            refers(s, a, i, seen) || refers(s, b, i, seen)
        }
        _ => false,
    }
}
