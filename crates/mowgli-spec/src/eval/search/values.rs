//! Values computed after the witness (`memory … undefined`, the coreRMA model):
//! once rf, mo and the declared witnesses are complete, every read's value is ⊤
//! if an `undefined` rule covers it, its rf source's value if a `defined` rule
//! covers it, and ⊤ ("any value") otherwise; every write's value is computed
//! from its call's reads ([`ValExpr`]). Values flow along rf and inside calls;
//! a cycle (a value out of thin air) leaves some value unknown: the candidate is
//! rejected. The calls' returned values and literal reads are checked then.

use std::cell::RefCell;

use mowgli_core::{BitRel, ExecGraph, FinalValue, Value};

use super::super::FileLibrary;
use super::{Ev, FileSearch, Set};
use crate::*;

/// The values of one plain execution's accesses (memory with `undefined`).
pub(crate) struct Values {
    /// Per read of the memory (its order): subevent and how its value is fixed.
    reads: Vec<(usize, AccVal)>,
    /// Per write of the memory: subevent and its value.
    writes: Vec<(usize, AccVal)>,
    /// Subevent → its read, if it reads.
    read_of: Vec<Option<usize>>,
    rval: RefCell<Vec<Option<Value>>>,
    wval: RefCell<Vec<Option<Value>>>,
    /// Subevents of the `undefined final` rules, at the last computation.
    final_undef: RefCell<Vec<bool>>,
}

/// The position of subevent `s` among its call's subevents of the same stamp kind (1-based).
pub(super) fn occurrence(g: &ExecGraph, _lib: &FileLibrary, s: usize) -> usize {
    let e = g.subs[s].event;
    g.subs_of[e].iter().filter(|&&x| x < s && g.subs[x].stamp.kind == g.subs[s].stamp.kind).count() + 1
}

/// The subevent of call `ev` that `r` names.
fn resolve(g: &ExecGraph, lib: &FileLibrary, ev: usize, r: &SubRef) -> Option<usize> {
    g.subs_of[ev]
        .iter()
        .copied()
        .filter(|&x| lib.decl_of(g.subs[x].stamp.kind) == Some(r.stamp))
        .nth(r.occ.unwrap_or(1).saturating_sub(1))
}

/// Per tag (`tags`), the subevents the methods put in it.
pub(super) fn tag_sets(lib: &FileLibrary, g: &ExecGraph, mine: &[bool]) -> Vec<Set> {
    let mut out = vec![Set::new(g.len()); lib.spec.tags.len()];
    for (ei, e) in g.events.iter().enumerate() {
        if !g.subs_of[ei].first().is_some_and(|&s| mine[s]) {
            continue;
        }
        let Some(m) = lib.spec.methods.get(e.method) else { continue };
        for (r, t) in &m.tags {
            for &s in &g.subs_of[ei] {
                if lib.decl_of(g.subs[s].stamp.kind) == Some(r.stamp)
                    && r.occ.is_none_or(|k| occurrence(g, lib, s) == k)
                {
                    out[*t].insert(s);
                }
            }
        }
    }
    out
}

fn add(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Int(x.wrapping_add(*y)),
        _ => Value::Top,
    }
}

impl Values {
    pub(super) fn new(n: usize, reads: Vec<(usize, AccVal)>, writes: Vec<(usize, AccVal)>) -> Values {
        let mut read_of = vec![None; n];
        for (i, (s, _)) in reads.iter().enumerate() {
            read_of[*s] = Some(i);
        }
        let (nr, nw) = (reads.len(), writes.len());
        Values {
            reads,
            writes,
            read_of,
            rval: RefCell::new(vec![None; nr]),
            wval: RefCell::new(vec![None; nw]),
            final_undef: RefCell::new(vec![false; n]),
        }
    }

    /// The value read by subevent `s` at the last computation.
    pub(super) fn read_value(&self, s: usize) -> Option<Value> {
        let r = self.read_of.get(s).copied().flatten()?;
        self.rval.borrow()[r].clone()
    }

    /// The pairs of `r` whose subevents may read equal values (`eq`) or different
    /// ones (`!eq`): as written, except that ⊤ (any value) may equal, and may
    /// differ from, every value, ⊤ included.
    pub(super) fn val_cmp(&self, r: &BitRel, eq: bool) -> BitRel {
        let mut out = BitRel::new(r.size());
        for (a, b) in r.pairs() {
            if let (Some(x), Some(y)) = (self.read_value(a), self.read_value(b)) {
                if x == Value::Top || y == Value::Top || (x == y) == eq {
                    out.add(a, b);
                }
            }
        }
        out
    }
}

impl FileSearch<'_> {
    /// Reads whose rf source is the initial value.
    pub(super) fn init_reads(&self) -> Set {
        let mut out = Set::new(self.n);
        if let Some(m) = &self.m.mem {
            for (i, r) in m.reads.iter().enumerate() {
                if m.source(i) == Some(None) {
                    out.insert(r.sub);
                }
            }
        }
        out
    }

    /// Computes every value of a complete witness; `false` when a value cannot be
    /// computed (thin air) or a read's value contradicts the call.
    pub(super) fn compute_values(&self) -> bool {
        let (Some(v), Some(m)) = (&self.vals, &self.m.mem) else { return true };
        let g = self.g;
        let lib = self.lib;
        let n = self.n;
        let mut defined = vec![false; n];
        let mut undefined = vec![false; n];
        let mut final_undef = vec![false; n];
        let plan = &self.lib.shared.plan;
        let mut ev = Ev::new(self, &self.consts, None);
        for (kind, e) in &plan.rules {
            let set = ev.eval(e).set();
            let target = match kind {
                AxiomKind::Defined => &mut defined,
                AxiomKind::Undefined => &mut undefined,
                _ => &mut final_undef,
            };
            for x in set.iter() {
                target[x] = true;
            }
        }
        let nr = v.reads.len();
        let nw = v.writes.len();
        let mut rval: Vec<Option<Value>> = vec![None; nr];
        let mut wval: Vec<Option<Value>> = vec![None; nw];
        let read_at = |rval: &[Option<Value>], ev: usize, r: &SubRef| -> Option<Value> {
            let s = resolve(g, lib, ev, r)?;
            rval[v.read_of[s]?].clone()
        };
        // `inside(w, first)`: whether the writing subevent is in that set of witness w
        type Inside<'x> = &'x dyn Fn(usize, bool) -> bool;
        fn eval(x: &ValExpr, args: &[Value], rd: &dyn Fn(&SubRef) -> Option<Value>, inside: Inside) -> Option<Value> {
            Some(match x {
                ValExpr::Param(i) => args.get(*i).cloned().unwrap_or(Value::Unit),
                ValExpr::Int(k) => Value::Int(*k),
                ValExpr::Read(r) => rd(r)?,
                ValExpr::Add(a, b) => add(&eval(a, args, rd, inside)?, &eval(b, args, rd, inside)?),
                ValExpr::IfEq(a, b, t, e) => {
                    if eval(a, args, rd, inside)? == eval(b, args, rd, inside)? {
                        eval(t, args, rd, inside)?
                    } else {
                        eval(e, args, rd, inside)?
                    }
                }
                ValExpr::IfIn(w, first, t, e) => {
                    if inside(*w, *first) {
                        eval(t, args, rd, inside)?
                    } else {
                        eval(e, args, rd, inside)?
                    }
                }
            })
        }
        loop {
            let mut changed = false;
            for (i, (s, _)) in v.reads.iter().enumerate() {
                if rval[i].is_some() {
                    continue;
                }
                let val = if undefined[*s] || !defined[*s] {
                    Some(Value::Top)
                } else {
                    match m.source(i) {
                        Some(None) => Some(m.init[m.reads[i].cell].clone()),
                        Some(Some(w)) => wval[w].clone(),
                        None => None,
                    }
                };
                if val.is_some() {
                    rval[i] = val;
                    changed = true;
                }
            }
            for (i, (s, a)) in v.writes.iter().enumerate() {
                if wval[i].is_some() {
                    continue;
                }
                let ei = g.subs[*s].event;
                let args = &g.events[ei].args;
                let val = match a {
                    AccVal::Param(k) => Some(args.get(*k).cloned().unwrap_or(Value::Unit)),
                    AccVal::Int(k) => Some(Value::Int(*k)),
                    AccVal::Expr(x) => {
                        eval(x, args, &|r| read_at(&rval, ei, r), &|w, first| self.wit_set(w, first).contains(*s))
                    }
                    // the call's latest read up to this subevent
                    _ => {
                        let last = g.subs_of[ei].iter().copied().filter(|&x| x <= *s && v.read_of[x].is_some()).last();
                        match last.and_then(|x| v.read_of[x]) {
                            Some(r) => rval[r].clone(),
                            None => Some(Value::Unit),
                        }
                    }
                };
                if val.is_some() {
                    wval[i] = val;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        if rval.iter().any(Option::is_none) || wval.iter().any(Option::is_none) {
            return false;
        }
        for (i, (s, a)) in v.reads.iter().enumerate() {
            let ei = g.subs[*s].event;
            let Some(x) = &rval[i] else { return false };
            let ok = match a {
                AccVal::Ret if g.sym_ret[ei] => match g.sym_vals.get(ei) {
                    Some(Some(vs)) => vs.contains(x),
                    _ => true,
                },
                AccVal::Ret => g.events[ei].ret.admits(x),
                AccVal::Int(k) => *x == Value::Int(*k),
                _ => true,
            };
            if !ok {
                return false;
            }
        }
        *v.rval.borrow_mut() = rval;
        *v.wval.borrow_mut() = wval;
        *v.final_undef.borrow_mut() = final_undef;
        true
    }

    /// Final values: each cell's mo-last write's value (⊤ if an `undefined final`
    /// rule covers it), or its initial value.
    pub(super) fn value_finals(&self, out: &mut Vec<FinalValue>) {
        let (Some(v), Some(m)) = (&self.vals, &self.m.mem) else { return };
        let wval = v.wval.borrow();
        let fu = v.final_undef.borrow();
        for (c, &(l, node)) in self.m.cells.iter().enumerate() {
            if !m.touched(c) {
                continue;
            }
            let value = match m.mo_order(c).last() {
                Some(&w) if fu[m.writes[w].sub] => Value::Top,
                Some(&w) => match &wval[w] {
                    Some(x) => x.clone(),
                    None => continue,
                },
                None => m.init[c].clone(),
            };
            out.push(FinalValue { loc: l, node, value });
        }
    }
}
