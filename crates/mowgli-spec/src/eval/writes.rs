//! What a file library's method may write, for the value domain
//! ([`mowgli_core::Library::writes`]): read off its accesses, so that literals
//! (`aCW writes f = 1`), copies (`= copy`, `= val(aNRR)`) and computed values
//! (`val(aER) + val(aERW)`) are all in the domain of the location written.

use std::collections::BTreeSet;

use mowgli_core::{Value, ValueDomain, Written};

use crate::{AccVal, Method, Spec, ValExpr};

/// Appends what a call of `m` with `args` may write when reads return values of `dom`.
pub(super) fn writes(m: &Method, args: &[Value], dom: &ValueDomain, out: &mut Vec<Written>) {
    let loc = |i: usize| args.get(i).and_then(Value::as_loc);
    for a in m.accesses.iter().filter(|a| a.write) {
        let Some(l) = loc(a.loc) else { continue };
        let fixed = |value: Value| Written { loc: Some(l), value, derived: false, copied: false };
        match &a.val {
            AccVal::Param(i) => out.extend(args.get(*i).cloned().map(fixed)),
            AccVal::Int(v) => out.push(fixed(Value::Int(*v))),
            AccVal::Copy => {
                // what some read of the same call read (the latest in stamp order: any, here)
                for r in m.accesses.iter().filter(|r| !r.write) {
                    let vals = loc(r.loc).map_or(&[][..], |rl| dom.at(rl));
                    out.extend(vals.iter().map(|v| Written {
                        loc: Some(l),
                        value: v.clone(),
                        derived: true,
                        copied: true,
                    }));
                }
            }
            AccVal::Expr(e) => {
                let derived = reads_memory(e);
                for value in expr_values(m, e, args, dom) {
                    out.push(Written { loc: Some(l), value, derived, copied: false });
                }
            }
            AccVal::Rmw(crate::RmwVal::Cas { new, .. }) => out.extend(args.get(*new).cloned().map(fixed)),
            AccVal::Rmw(crate::RmwVal::Add(k)) => {
                // what some read of the same call read, plus k
                let Some(Value::Int(k)) = args.get(*k) else { continue };
                for r in m.accesses.iter().filter(|r| !r.write) {
                    for v in loc(r.loc).map_or(&[][..], |rl| dom.at(rl)) {
                        if let Value::Int(i) = v {
                            out.push(Written {
                                loc: Some(l),
                                value: Value::Int(i.wrapping_add(*k)),
                                derived: true,
                                copied: false,
                            });
                        }
                    }
                }
            }
            // a write's value is never the call's result, nor free
            AccVal::Ret | AccVal::Free => {}
        }
    }
}

/// The values `e` may take when the call's reads return values of `dom`.
fn expr_values(m: &Method, e: &ValExpr, args: &[Value], dom: &ValueDomain) -> BTreeSet<Value> {
    match e {
        ValExpr::Param(i) => args.get(*i).cloned().into_iter().collect(),
        ValExpr::Int(v) => [Value::Int(*v)].into_iter().collect(),
        ValExpr::Read(r) => m
            .accesses
            .iter()
            .filter(|a| !a.write && a.stamp == r.stamp && (r.occ.is_none() || a.occ.is_none() || a.occ == r.occ))
            .filter_map(|a| args.get(a.loc).and_then(Value::as_loc))
            .flat_map(|l| dom.at(l).iter().cloned())
            .collect(),
        ValExpr::Add(a, b) => {
            let (xs, ys) = (expr_values(m, a, args, dom), expr_values(m, b, args, dom));
            let mut out = BTreeSet::new();
            for x in &xs {
                for y in &ys {
                    out.insert(add(x, y));
                }
            }
            out
        }
        // either branch (the comparison, or the split, is the search's business)
        ValExpr::IfEq(_, _, t, f) | ValExpr::IfIn(_, _, t, f) => {
            let mut out = expr_values(m, t, args, dom);
            out.extend(expr_values(m, f, args, dom));
            out
        }
    }
}

/// `a + b` as the evaluator computes it (`search/values.rs`): ⊤ + v = ⊤.
fn add(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Int(x.wrapping_add(*y)),
        _ => Value::Top,
    }
}

fn reads_memory(e: &ValExpr) -> bool {
    match e {
        ValExpr::Param(_) | ValExpr::Int(_) => false,
        ValExpr::Read(_) => true,
        ValExpr::Add(a, b) => reads_memory(a) || reads_memory(b),
        ValExpr::IfEq(a, b, t, f) => [a, b, t, f].iter().any(|x| reads_memory(x)),
        ValExpr::IfIn(_, _, t, f) => reads_memory(t) || reads_memory(f),
    }
}

/// The values the spec's methods write whatever the program: its write literals,
/// the literals a computed write may take as a whole, and ⊤ where memory has
/// undefined values (a conflicting access reads or leaves ⊤).
pub(super) fn constants(spec: &Spec) -> Vec<Value> {
    fn leaves(e: &ValExpr, out: &mut BTreeSet<Value>) {
        match e {
            ValExpr::Int(v) => {
                out.insert(Value::Int(*v));
            }
            ValExpr::IfEq(_, _, t, f) | ValExpr::IfIn(_, _, t, f) => {
                leaves(t, out);
                leaves(f, out);
            }
            ValExpr::Param(_) | ValExpr::Read(_) | ValExpr::Add(..) => {}
        }
    }
    let mut out = BTreeSet::new();
    if spec.computes_values() {
        out.insert(Value::Top);
    }
    for a in spec.methods.iter().flat_map(|m| &m.accesses).filter(|a| a.write) {
        match &a.val {
            AccVal::Int(v) => {
                out.insert(Value::Int(*v));
            }
            AccVal::Expr(e) => leaves(e, &mut out),
            _ => {}
        }
    }
    out.into_iter().collect()
}

/// Whether some write computes a value (a sum) that is no argument, literal or copy.
pub(super) fn computes(spec: &Spec) -> bool {
    fn adds(e: &ValExpr) -> bool {
        match e {
            ValExpr::Add(..) => true,
            ValExpr::IfEq(a, b, t, f) => [a, b, t, f].iter().any(|x| adds(x)),
            ValExpr::IfIn(_, _, t, f) => adds(t) || adds(f),
            ValExpr::Param(_) | ValExpr::Int(_) | ValExpr::Read(_) => false,
        }
    }
    spec.methods.iter().flat_map(|m| &m.accesses).any(|a| {
        a.write && (matches!(&a.val, AccVal::Expr(e) if adds(e)) || matches!(a.val, AccVal::Rmw(crate::RmwVal::Add(_))))
    })
}
