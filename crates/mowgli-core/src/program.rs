//! The program meta-language of LOCO §3.1 — values, method calls, `let` with a
//! continuation, `loop`, `break_k` — and its plain semantics `⟦p⟧_t`, unfolded
//! to a bound on loop iterations.

use crate::model::{LibId, MethodId, Value};

pub type RegId = usize;

/// Gives the values a call `m(ṽ)` of library `lib` may return.
pub type ReturnsFn<'a> = dyn FnMut(LibId, MethodId, &[Value]) -> Vec<Value> + 'a;

/// Expressions evaluated by a thread without calling a library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Val(Value),
    Reg(RegId),
    Tuple(Vec<Expr>),
}

impl Expr {
    pub fn eval(&self, env: &[Option<Value>]) -> Result<Value, UnfoldError> {
        match self {
            Expr::Val(v) => Ok(v.clone()),
            Expr::Reg(r) => env.get(*r).cloned().flatten().ok_or(UnfoldError::UnboundRegister(*r)),
            Expr::Tuple(es) => Ok(Value::Tuple(es.iter().map(|e| e.eval(env)).collect::<Result<_, _>>()?)),
        }
    }
}

/// A program (a thread body, or an implementation's method body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prog {
    /// `v`: return a value.
    Ret(Expr),
    /// `m(ṽ)`: a method call of library `lib`.
    Call { lib: LibId, method: MethodId, args: Vec<Expr> },
    /// `let p f`, with `f = λ bind. rest` (the bound register is optional).
    Let { first: Box<Prog>, bind: Option<RegId>, rest: Box<Prog> },
    /// `loop p`.
    Loop(Box<Prog>),
    /// `break_k v` (k ≥ 1).
    Break(u32, Expr),
}

impl Prog {
    /// `p1; p2; …; pn` with optional bindings, ending with `()`.
    pub fn seq(steps: Vec<(Option<RegId>, Prog)>) -> Prog {
        let mut p = Prog::Ret(Expr::Val(Value::Unit));
        for (bind, step) in steps.into_iter().rev() {
            p = Prog::Let { first: Box::new(step), bind, rest: Box::new(p) };
        }
        p
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnfoldError {
    #[error("register r{0} is read before it is bound")]
    UnboundRegister(RegId),
}

/// A method call of a plain execution, before it becomes an [`crate::model::Event`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallRecord {
    pub lib: LibId,
    pub method: MethodId,
    pub args: Vec<Value>,
    pub ret: Value,
}

/// One element of `⟦p⟧_t`: the output `⟨v, k⟩`, the calls in program order, and
/// the final registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unfolding {
    pub value: Value,
    pub breaks: u32,
    pub calls: Vec<CallRecord>,
    pub env: Vec<Option<Value>>,
}

/// Result of unfolding: the unfoldings and whether the loop bound cut some off.
#[derive(Clone, Debug, Default)]
pub struct Unfolded {
    pub runs: Vec<Unfolding>,
    pub bound_hit: bool,
}

/// Computes `⟦p⟧_t` up to `loop_bound` iterations per loop. `returns` gives the
/// values a call may return (the paper's `v' ∈ Val`, restricted to what the
/// library can actually return).
pub fn unfold(p: &Prog, nregs: usize, loop_bound: usize, returns: &mut ReturnsFn) -> Result<Unfolded, UnfoldError> {
    let mut out = Unfolded::default();
    let start = Unfolding { value: Value::Unit, breaks: 0, calls: vec![], env: vec![None; nregs] };
    out.runs = go(p, start, loop_bound, returns, &mut out.bound_hit)?;
    Ok(out)
}

fn go(
    p: &Prog,
    st: Unfolding,
    bound: usize,
    returns: &mut ReturnsFn,
    hit: &mut bool,
) -> Result<Vec<Unfolding>, UnfoldError> {
    match p {
        Prog::Ret(e) => {
            let v = e.eval(&st.env)?;
            Ok(vec![Unfolding { value: v, breaks: 0, ..st }])
        }
        Prog::Break(k, e) => {
            let v = e.eval(&st.env)?;
            Ok(vec![Unfolding { value: v, breaks: *k, ..st }])
        }
        Prog::Call { lib, method, args } => {
            let args: Vec<Value> = args.iter().map(|a| a.eval(&st.env)).collect::<Result<_, _>>()?;
            let rets = returns(*lib, *method, &args);
            Ok(rets
                .into_iter()
                .map(|r| {
                    let mut s = st.clone();
                    s.calls.push(CallRecord { lib: *lib, method: *method, args: args.clone(), ret: r.clone() });
                    s.value = r;
                    s.breaks = 0;
                    s
                })
                .collect())
        }
        Prog::Let { first, bind, rest } => {
            let mut res = Vec::new();
            for s in go(first, st, bound, returns, hit)? {
                if s.breaks != 0 {
                    res.push(s);
                    continue;
                }
                let mut s = s;
                if let Some(r) = bind {
                    s.env[*r] = Some(s.value.clone());
                }
                res.extend(go(rest, s, bound, returns, hit)?);
            }
            Ok(res)
        }
        Prog::Loop(body) => {
            let mut res = Vec::new();
            let mut frontier = vec![st];
            for _ in 0..bound {
                let mut next = Vec::new();
                for s in frontier {
                    for r in go(body, s, bound, returns, hit)? {
                        if r.breaks == 0 {
                            next.push(r);
                        } else {
                            res.push(Unfolding { breaks: r.breaks - 1, ..r });
                        }
                    }
                }
                frontier = next;
                if frontier.is_empty() {
                    break;
                }
            }
            if !frontier.is_empty() {
                *hit = true;
            }
            Ok(res)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn let_and_loop() {
        // let r = m() in loop { let s = m() in break_1 s }
        let call = || Prog::Call { lib: 0, method: 0, args: vec![] };
        let p = Prog::Let {
            first: Box::new(call()),
            bind: Some(0),
            rest: Box::new(Prog::Loop(Box::new(Prog::Let {
                first: Box::new(call()),
                bind: Some(1),
                rest: Box::new(Prog::Break(1, Expr::Tuple(vec![Expr::Reg(0), Expr::Reg(1)]))),
            }))),
        };
        let mut ret = |_, _, _: &[Value]| vec![Value::Int(0), Value::Int(1)];
        let u = unfold(&p, 2, 3, &mut ret).unwrap();
        assert_eq!(u.runs.len(), 4);
        assert!(!u.bound_hit);
        assert!(u.runs.iter().all(|r| r.calls.len() == 2 && r.breaks == 0));
        // a loop that never breaks hits the bound
        let spin = Prog::Loop(Box::new(call()));
        let u = unfold(&spin, 0, 3, &mut ret).unwrap();
        assert!(u.bound_hit && u.runs.is_empty());
    }
}
