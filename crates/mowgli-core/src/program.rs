//! The program meta-language of LOCO §3.1 — values, method calls, `let` with a
//! continuation, `loop`, `break_k` — and its plain semantics `⟦p⟧_t`, unfolded
//! to a bound on loop iterations; with the implementation substitution ⟦p⟧_{t,I}
//! of §3.5 and the abstraction f of Def. 3.11 recorded on every call.
//!
//! The paper's `let p f` takes an arbitrary function `f : Val → SeqProg`; here the
//! functions a program may apply are the expressions of [`Expr`] (arithmetic,
//! comparisons, tuples, sets of nodes and threads, and context functions such as
//! "the calling thread's node" that a front end provides through [`EvalCtx`]),
//! and `if v then p1 else p2` is the paper's sugar `let v {true ↦ p1, false ↦ p2}`
//! ([`Prog::If`]). A `for` over a finite set ([`Prog::For`]) is the sequence of its
//! iterations.

pub use crate::model::Args;
use crate::model::{LibId, MethodId, ThreadId, Value};

pub mod retry;
mod unfold;
pub use unfold::{unfold, unfold_with, Body, Hooks, ReturnsFn, Unfolded, MAX_RUNS};

pub type RegId = usize;

/// Operators of [`Expr::Op`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Neg,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Not,
    /// `min(s)` of a set or tuple, or `min(a, b, …)`.
    Min,
    Max,
    /// Length of a tuple or size of a set.
    Len,
    /// Set of the operands (`{a, b}`); a set of nodes when they all are nodes.
    SetOf,
    /// `a in s`.
    In,
    Union,
    /// Set difference `s1 - s2` (also on node sets).
    Minus,
    /// An injective hash of a value (LOCO App. G.6's `hash`): the value itself, tagged.
    Hash,
    /// `t[i]`: component i of a tuple.
    Index,
    /// `range(a, b)`: the set {a, …, b-1} of integers, in order.
    Range,
}

/// Expressions evaluated by a thread without calling a library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Val(Value),
    Reg(RegId),
    Tuple(Vec<Expr>),
    Op(Op, Vec<Expr>),
    /// A function of the context (the calling thread, the program's nodes, …),
    /// provided by the front end through [`EvalCtx::builtin`].
    Ctx(String, Vec<Expr>),
    /// `{ body | var in set }`.
    Comp {
        body: Box<Expr>,
        var: RegId,
        set: Box<Expr>,
    },
    /// An implementation location of family `family`, derived from the abstract
    /// object `base` (if the family is per abstract object) and indices; resolved by
    /// [`EvalCtx::derived`].
    Derived {
        family: u32,
        base: Option<Box<Expr>>,
        index: Vec<Expr>,
    },
}

/// What expressions need from the program's context.
pub trait EvalCtx {
    /// Context function `name` applied to `args`, for thread `thread`.
    fn builtin(&self, thread: ThreadId, name: &str, args: &[Value]) -> Result<Value, String>;
    /// The location of family `family` for abstract object `base` at `index`.
    fn derived(&self, family: u32, base: Option<&Value>, index: &[Value]) -> Result<Value, String>;
    /// Whether location `loc` is private to the thread that names it: the program
    /// names it only as the calling thread's own (an implementation's family whose
    /// every use is indexed by `self`). By default none is.
    fn private(&self, _loc: &Value) -> bool {
        false
    }
}

/// A context with no functions (litmus programs without implementation).
pub struct NoCtx;

impl EvalCtx for NoCtx {
    fn builtin(&self, _t: ThreadId, name: &str, _args: &[Value]) -> Result<Value, String> {
        Err(format!("`{name}` is not available here"))
    }
    fn derived(&self, _f: u32, _b: Option<&Value>, _i: &[Value]) -> Result<Value, String> {
        Err("implementation locations are not available here".into())
    }
}

fn type_err(op: Op, args: &[Value]) -> UnfoldError {
    UnfoldError::Eval(format!(
        "cannot apply {op:?} to {}",
        args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ")
    ))
}

/// The elements of a set-like value (node set, set, tuple), in order.
fn elements(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Nodes(ns) => Some(ns.iter().map(|&n| Value::Node(n)).collect()),
        Value::Set(vs) | Value::Tuple(vs) => Some(vs.clone()),
        _ => None,
    }
}

/// A set value from elements: a node set when every element is a node.
pub fn make_set(mut vs: Vec<Value>) -> Value {
    if vs.iter().all(|v| matches!(v, Value::Node(_))) {
        let mut ns: Vec<u32> = vs.iter().filter_map(|v| if let Value::Node(n) = v { Some(*n) } else { None }).collect();
        ns.sort();
        ns.dedup();
        return Value::Nodes(ns);
    }
    vs.sort();
    vs.dedup();
    Value::Set(vs)
}

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Node(n) => Some(*n as i64),
        _ => None,
    }
}

fn apply(op: Op, a: &[Value]) -> Result<Value, UnfoldError> {
    use Value::*;
    let bad = || type_err(op, a);
    let i2 = || -> Result<(i64, i64), UnfoldError> {
        match a {
            [x, y] => Ok((int(x).ok_or_else(bad)?, int(y).ok_or_else(bad)?)),
            _ => Err(bad()),
        }
    };
    // `+` on tuples concatenates; `+` and `-` on sets are union and difference
    if let (Op::Add, [Tuple(x), Tuple(y)]) = (op, a) {
        return Ok(Tuple(x.iter().chain(y).cloned().collect()));
    }
    let is_set = |v: &Value| matches!(v, Nodes(_) | Set(_));
    if matches!(op, Op::Add | Op::Sub) && a.len() == 2 && is_set(&a[0]) && is_set(&a[1]) {
        return apply(if op == Op::Add { Op::Union } else { Op::Minus }, a);
    }
    Ok(match op {
        Op::Add => {
            let (x, y) = i2()?;
            Int(x.checked_add(y).ok_or_else(bad)?)
        }
        Op::Sub => {
            let (x, y) = i2()?;
            Int(x.checked_sub(y).ok_or_else(bad)?)
        }
        Op::Mul => {
            let (x, y) = i2()?;
            Int(x.checked_mul(y).ok_or_else(bad)?)
        }
        Op::Div | Op::Mod => {
            let (x, y) = i2()?;
            if y == 0 {
                return Err(UnfoldError::Eval("division by zero".into()));
            }
            Int(if op == Op::Div { x.div_euclid(y) } else { x.rem_euclid(y) })
        }
        Op::Neg => Int(-int(a.first().ok_or_else(bad)?).ok_or_else(bad)?),
        Op::Eq => Bool(a.first() == a.get(1)),
        Op::Ne => Bool(a.first() != a.get(1)),
        Op::Lt | Op::Le | Op::Gt | Op::Ge => {
            let (x, y) = i2()?;
            Bool(match op {
                Op::Lt => x < y,
                Op::Le => x <= y,
                Op::Gt => x > y,
                _ => x >= y,
            })
        }
        Op::And | Op::Or => match a {
            [Bool(x), Bool(y)] => Bool(if op == Op::And { *x && *y } else { *x || *y }),
            _ => return Err(bad()),
        },
        Op::Not => match a {
            [Bool(x)] => Bool(!x),
            _ => return Err(bad()),
        },
        Op::Min | Op::Max => {
            let items = match a {
                [one] => elements(one).ok_or_else(bad)?,
                _ => a.to_vec(),
            };
            let ints: Option<Vec<i64>> = items.iter().map(int).collect();
            let ints = ints.ok_or_else(bad)?;
            let r = if op == Op::Min { ints.iter().min() } else { ints.iter().max() };
            Int(*r.ok_or_else(|| UnfoldError::Eval(format!("{op:?} of an empty set")))?)
        }
        Op::Len => match a {
            [v] => Int(elements(v).ok_or_else(bad)?.len() as i64),
            _ => return Err(bad()),
        },
        Op::SetOf => make_set(a.to_vec()),
        Op::In => match a {
            [x, s] => Bool(elements(s).ok_or_else(bad)?.contains(x)),
            _ => return Err(bad()),
        },
        Op::Union | Op::Minus => match a {
            [s, t] => {
                let (s, t) = (elements(s).ok_or_else(bad)?, elements(t).ok_or_else(bad)?);
                let r: Vec<Value> = if op == Op::Union {
                    s.into_iter().chain(t).collect()
                } else {
                    s.into_iter().filter(|x| !t.contains(x)).collect()
                };
                make_set(r)
            }
            _ => return Err(bad()),
        },
        Op::Hash => match a {
            [v] => Tuple(vec![Int(-7_777_777), v.clone()]),
            _ => return Err(bad()),
        },
        Op::Index => match a {
            [Tuple(vs), i] => {
                let i = int(i).ok_or_else(bad)?;
                vs.get(usize::try_from(i).map_err(|_| bad())?).cloned().ok_or_else(bad)?
            }
            _ => return Err(bad()),
        },
        Op::Range => {
            let (x, y) = i2()?;
            if y - x > 4096 {
                return Err(UnfoldError::Eval(format!("range({x}, {y}) is too large")));
            }
            Set((x..y).map(Int).collect())
        }
    })
}

impl Expr {
    /// Evaluates without context (litmus arguments).
    pub fn eval(&self, env: &[Option<Value>]) -> Result<Value, UnfoldError> {
        self.eval_in(env, 0, &NoCtx)
    }

    pub fn eval_in(&self, env: &[Option<Value>], thread: ThreadId, ctx: &dyn EvalCtx) -> Result<Value, UnfoldError> {
        match self {
            Expr::Val(v) => Ok(v.clone()),
            Expr::Reg(r) => env.get(*r).cloned().flatten().ok_or(UnfoldError::UnboundRegister(*r)),
            Expr::Tuple(es) => {
                Ok(Value::Tuple(es.iter().map(|e| e.eval_in(env, thread, ctx)).collect::<Result<_, _>>()?))
            }
            Expr::Op(op, es) => {
                // short-circuit the connectives
                if matches!(op, Op::And | Op::Or) && es.len() == 2 {
                    let a = es[0].eval_in(env, thread, ctx)?;
                    match (op, &a) {
                        (Op::And, Value::Bool(false)) | (Op::Or, Value::Bool(true)) => return Ok(a),
                        _ => {}
                    }
                    let b = es[1].eval_in(env, thread, ctx)?;
                    return apply(*op, &[a, b]);
                }
                let vs: Vec<Value> = es.iter().map(|e| e.eval_in(env, thread, ctx)).collect::<Result<_, _>>()?;
                apply(*op, &vs)
            }
            Expr::Ctx(name, es) => {
                let vs: Vec<Value> = es.iter().map(|e| e.eval_in(env, thread, ctx)).collect::<Result<_, _>>()?;
                ctx.builtin(thread, name, &vs).map_err(UnfoldError::Eval)
            }
            Expr::Comp { body, var, set } => {
                let s = set.eval_in(env, thread, ctx)?;
                let items = elements(&s).ok_or_else(|| UnfoldError::Eval(format!("cannot iterate over {s}")))?;
                let mut env2 = env.to_vec();
                let mut out = Vec::new();
                for it in items {
                    if *var >= env2.len() {
                        env2.resize(*var + 1, None);
                    }
                    env2[*var] = Some(it);
                    out.push(body.eval_in(&env2, thread, ctx)?);
                }
                Ok(make_set(out))
            }
            Expr::Derived { family, base, index } => {
                let b = base.as_ref().map(|b| b.eval_in(env, thread, ctx)).transpose()?;
                let ix: Vec<Value> = index.iter().map(|e| e.eval_in(env, thread, ctx)).collect::<Result<_, _>>()?;
                ctx.derived(*family, b.as_ref(), &ix).map_err(UnfoldError::Eval)
            }
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
    /// `loop p` whose iterations that do not break only call read-only methods and
    /// bind no register visible after the loop (a spin loop). Such an iteration can
    /// be dropped from any consistent execution without changing its outcome or its
    /// consistency (removing read events removes constraints only), so the
    /// unfolding keeps only the iteration that breaks: exact, and no bound needed.
    /// The second component lists the registers bound inside the body (dead after
    /// the loop): they are cleared at the exit, and runs that then differ only in
    /// the values returned by symbolic-return calls of the breaking iteration
    /// ([`Hooks::symbolic`]) are merged into one run whose calls return
    /// [`Value::OneOf`] the values.
    Spin(Box<Prog>, Vec<RegId>),
    /// `loop p` whose iterations that do not break leave no trace in the registers
    /// (as for [`Prog::Spin`]). An iteration that does not break can be dropped
    /// from any consistent execution without changing its outcome, so the unfolding
    /// drops it, when its calls were all read-only as made
    /// ([`Hooks::read_only_call`]: e.g. a compare-and-swap that failed), or when it
    /// is a failed attempt that wrote only the thread's private locations and every
    /// attempt that may follow it writes them again first ([`retry`]); any other
    /// iteration that does not break counts against the loop bound.
    ///
    /// [`Hooks::read_only_call`]: crate::program::unfold::Hooks::read_only_call
    Retry(Box<Prog>),
    /// `break_k v` (k ≥ 1).
    Break(u32, Expr),
    /// `if c then p1 else p2` (sugar for `let c {true ↦ p1, false ↦ p2}`).
    If(Expr, Box<Prog>, Box<Prog>),
    /// `for var in set { body }`: the bodies for each element in order; value `()`.
    For { var: RegId, set: Expr, body: Box<Prog> },
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

    /// Renumbers the libraries of every call (`map[old] = new`).
    pub fn map_libs(&self, map: &dyn Fn(LibId) -> LibId) -> Prog {
        match self {
            Prog::Ret(e) => Prog::Ret(e.clone()),
            Prog::Call { lib, method, args } => Prog::Call { lib: map(*lib), method: *method, args: args.clone() },
            Prog::Let { first, bind, rest } => {
                Prog::Let { first: Box::new(first.map_libs(map)), bind: *bind, rest: Box::new(rest.map_libs(map)) }
            }
            Prog::Loop(b) => Prog::Loop(Box::new(b.map_libs(map))),
            Prog::Spin(b, locals) => Prog::Spin(Box::new(b.map_libs(map)), locals.clone()),
            Prog::Retry(b) => Prog::Retry(Box::new(b.map_libs(map))),
            Prog::Break(k, e) => Prog::Break(*k, e.clone()),
            Prog::If(c, a, b) => Prog::If(c.clone(), Box::new(a.map_libs(map)), Box::new(b.map_libs(map))),
            Prog::For { var, set, body } => {
                Prog::For { var: *var, set: set.clone(), body: Box::new(body.map_libs(map)) }
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnfoldError {
    #[error("register r{0} is read before it is bound")]
    UnboundRegister(RegId),
    #[error("{0}")]
    Eval(String),
    /// LOCO Def. 3.9 (2): an implementation may not return with a break number.
    #[error("not well defined (LOCO Def. 3.9 (2)): the implementation of `{0}` can return with break number {1}")]
    BodyBreaks(String, u32),
    /// LOCO Def. 3.9 (3): a terminating implementation makes at least one call.
    #[error(
        "not well defined (LOCO Def. 3.9 (3)): the implementation of `{0}` can terminate without calling any method"
    )]
    BodyEmpty(String),
    #[error("too many unfoldings (more than {0}): lower the bounds")]
    TooMany(usize),
    /// Another size limit of the unfolding (its work, the calls it holds).
    #[error("{0}: lower the bounds")]
    TooLarge(String),
    /// A limit ([`UnfoldError::TooMany`], [`UnfoldError::TooLarge`]) with where it
    /// was reached: the thread (its index), the implementation method whose
    /// unfolding grew (the one being unfolded, else the last one unfolded), and the
    /// loop bound in force.
    #[error("{}", cut_message(what, *thread, method.as_deref(), *loop_bound))]
    Cut { what: String, thread: ThreadId, method: Option<String>, loop_bound: usize },
    /// The run asked the unfolding to stop (`Hooks::stopped`: its time limit).
    #[error("the time limit was reached while the implementation was unfolded")]
    Stopped,
}

fn cut_message(what: &str, thread: ThreadId, method: Option<&str>, loop_bound: usize) -> String {
    let at = match method {
        Some(m) => format!("thread T{} of the client, while unfolding `{m}` of the implementation", thread + 1),
        None => format!("thread T{} of the client", thread + 1),
    };
    format!(
        "{what} in the unfolding of {at}; lower the bounds: `--loop-bound` (now {loop_bound}), `--values` or `--calls`"
    )
}

impl UnfoldError {
    /// Whether a limit of the tool cut the unfolding (the run is inconclusive),
    /// rather than the program being wrong.
    pub fn is_limit(&self) -> bool {
        matches!(
            self,
            UnfoldError::TooMany(_) | UnfoldError::TooLarge(_) | UnfoldError::Cut { .. } | UnfoldError::Stopped
        )
    }
}

/// A method call of a plain execution, before it becomes an [`crate::model::Event`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallRecord {
    pub lib: LibId,
    pub method: MethodId,
    /// Shared: an unfolding copies its calls at every branch.
    pub args: Args,
    pub ret: Value,
    /// The abstraction f (LOCO Def. 3.11): the index, among the thread's abstract
    /// calls, of the abstract call this call implements (`None` outside implementations).
    pub origin: Option<usize>,
}

/// One element of `⟦p⟧_t`: the output `⟨v, k⟩`, the calls in program order, and
/// the final registers; with an implementation, also the abstract calls (the
/// plain execution G' of Def. 3.11, each with the value its implementation returned).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unfolding {
    pub value: Value,
    pub breaks: u32,
    pub calls: Vec<CallRecord>,
    pub env: Vec<Option<Value>>,
    pub abstract_calls: Vec<CallRecord>,
    /// The abstract call being implemented, while inside an implementation body.
    origin: Option<usize>,
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

    /// Symbolic reads (every call returns 0 or 1), and a "failed" call 1 that is
    /// read-only as made when it returns 0.
    struct Sym01;
    impl Hooks for Sym01 {
        fn returns(&mut self, _l: LibId, _m: MethodId, _a: &[Value], _h: &[CallRecord]) -> Vec<Value> {
            vec![Value::Int(0), Value::Int(1)]
        }
        fn symbolic(&self, _l: LibId, m: MethodId) -> bool {
            m == 0
        }
        fn read_only_call(&self, _l: LibId, m: MethodId, _a: &[Value], ret: &Value) -> bool {
            m == 0 || *ret == Value::Int(0)
        }
    }

    #[test]
    fn spin_loops_merge_runs_that_differ_in_one_read_only() {
        // spin { let a = m0() in let b = m0() in if a == b then break_1 () else () }
        // (registers 0, 1 local to the loop): the breaking runs are a = b = 0 and
        // a = b = 1. One run with "one of {0, 1}" on both reads would also stand for
        // a = 0, b = 1, which does not break.
        let read = || Box::new(Prog::Call { lib: 0, method: 0, args: vec![] });
        let p = Prog::Spin(
            Box::new(Prog::Let {
                first: read(),
                bind: Some(0),
                rest: Box::new(Prog::Let {
                    first: read(),
                    bind: Some(1),
                    rest: Box::new(Prog::If(
                        Expr::Op(Op::Eq, vec![Expr::Reg(0), Expr::Reg(1)]),
                        Box::new(Prog::Break(1, Expr::Val(Value::Unit))),
                        Box::new(Prog::Ret(Expr::Val(Value::Unit))),
                    )),
                }),
            }),
            vec![0, 1],
        );
        let u = unfold_with(&p, 0, 2, 3, &mut Sym01).unwrap();
        let pairs: Vec<(Value, Value)> =
            u.runs.iter().map(|r| (r.calls[0].ret.clone(), r.calls[1].ret.clone())).collect();
        assert_eq!(pairs, vec![(Value::Int(0), Value::Int(0)), (Value::Int(1), Value::Int(1))]);
    }

    #[test]
    fn retry_loops_drop_attempts_that_only_read() {
        // retry { let r = m1() in if r == 1 then break_1 () else () }: an attempt
        // returning 0 is read-only as made and dropped, so one run, with no bound hit
        let p = Prog::Retry(Box::new(Prog::Let {
            first: Box::new(Prog::Call { lib: 0, method: 1, args: vec![] }),
            bind: Some(0),
            rest: Box::new(Prog::If(
                Expr::Op(Op::Eq, vec![Expr::Reg(0), Expr::Val(Value::Int(1))]),
                Box::new(Prog::Break(1, Expr::Val(Value::Unit))),
                Box::new(Prog::Ret(Expr::Val(Value::Unit))),
            )),
        }));
        let u = unfold_with(&p, 0, 1, 3, &mut Sym01).unwrap();
        assert!(!u.bound_hit);
        assert_eq!(u.runs.len(), 1);
        assert_eq!(u.runs[0].calls.len(), 1);
        // the same loop breaking on 0: an attempt that returned 1 wrote, so it is
        // kept and the loop goes on; three attempts that all wrote hit the bound
        let q = match p {
            Prog::Retry(b) => match *b {
                Prog::Let { first, bind, rest } => match *rest {
                    Prog::If(_, t, e) => Prog::Retry(Box::new(Prog::Let {
                        first,
                        bind,
                        rest: Box::new(Prog::If(Expr::Op(Op::Eq, vec![Expr::Reg(0), Expr::Val(Value::Int(0))]), t, e)),
                    })),
                    _ => unreachable!(),
                },
                _ => unreachable!(),
            },
            _ => unreachable!(),
        };
        let u = unfold_with(&q, 0, 1, 3, &mut Sym01).unwrap();
        assert!(u.bound_hit);
        assert_eq!(u.runs.iter().map(|r| r.calls.len()).collect::<Vec<_>>(), vec![1, 2, 3]);
    }

    #[test]
    fn spin_loops_keep_the_breaking_iteration() {
        // spin { let v = m() in if v > 0 then break_1 v else () }
        let p = Prog::Spin(
            Box::new(Prog::Let {
                first: Box::new(Prog::Call { lib: 0, method: 0, args: vec![] }),
                bind: Some(0),
                rest: Box::new(Prog::If(
                    Expr::Op(Op::Gt, vec![Expr::Reg(0), Expr::Val(Value::Int(0))]),
                    Box::new(Prog::Break(1, Expr::Reg(0))),
                    Box::new(Prog::Ret(Expr::Val(Value::Unit))),
                )),
            }),
            vec![0],
        );
        let mut ret = |_, _, _: &[Value]| vec![Value::Int(0), Value::Int(1), Value::Int(2)];
        let u = unfold(&p, 1, 3, &mut ret).unwrap();
        assert!(!u.bound_hit);
        let vals: Vec<_> = u.runs.iter().map(|r| r.value.clone()).collect();
        assert_eq!(vals, vec![Value::Int(1), Value::Int(2)]);
        assert!(u.runs.iter().all(|r| r.calls.len() == 1 && r.env[0].is_none()));
        // with symbolic returns and a break value that does not depend on them, the
        // two breaking runs merge into one whose read returns one of {1, 2}
        struct S;
        impl Hooks for S {
            fn returns(&mut self, _l: LibId, _m: MethodId, _a: &[Value], _h: &[CallRecord]) -> Vec<Value> {
                vec![Value::Int(0), Value::Int(1), Value::Int(2)]
            }
            fn symbolic(&self, _l: LibId, _m: MethodId) -> bool {
                true
            }
        }
        let q = match p {
            Prog::Spin(b, l) => match *b {
                Prog::Let { first, bind, rest } => match *rest {
                    Prog::If(c, _, e) => Prog::Spin(
                        Box::new(Prog::Let {
                            first,
                            bind,
                            rest: Box::new(Prog::If(c, Box::new(Prog::Break(1, Expr::Val(Value::Unit))), e)),
                        }),
                        l,
                    ),
                    _ => unreachable!(),
                },
                _ => unreachable!(),
            },
            _ => unreachable!(),
        };
        let u = unfold_with(&q, 0, 1, 3, &mut S).unwrap();
        assert_eq!(u.runs.len(), 1);
        assert_eq!(u.runs[0].calls[0].ret, Value::OneOf(vec![Value::Int(1), Value::Int(2)]));
    }

    #[test]
    fn expressions() {
        let env = vec![Some(Value::Int(7))];
        let e = Expr::Op(
            Op::Mod,
            vec![Expr::Op(Op::Add, vec![Expr::Reg(0), Expr::Val(Value::Int(2))]), Expr::Val(Value::Int(4))],
        );
        assert_eq!(e.eval(&env), Ok(Value::Int(1)));
        let s = Expr::Op(
            Op::Minus,
            vec![Expr::Val(Value::Nodes(vec![1, 2, 3])), Expr::Op(Op::SetOf, vec![Expr::Val(Value::Node(2))])],
        );
        assert_eq!(s.eval(&env), Ok(Value::Nodes(vec![1, 3])));
        let m = Expr::Op(Op::Min, vec![Expr::Val(Value::Set(vec![Value::Int(3), Value::Int(1)]))]);
        assert_eq!(m.eval(&env), Ok(Value::Int(1)));
        let c = Expr::Comp {
            body: Box::new(Expr::Op(Op::Mul, vec![Expr::Reg(1), Expr::Val(Value::Int(2))])),
            var: 1,
            set: Box::new(Expr::Op(Op::Range, vec![Expr::Val(Value::Int(0)), Expr::Val(Value::Int(3))])),
        };
        assert_eq!(c.eval(&env), Ok(Value::Set(vec![Value::Int(0), Value::Int(2), Value::Int(4)])));
        assert!(Expr::Op(Op::Div, vec![Expr::Reg(0), Expr::Val(Value::Int(0))]).eval(&env).is_err());
    }

    #[test]
    fn implementations_are_inlined_with_their_abstraction() {
        // client: let r = L.m(5); L.m(6)   with I(m, (a)) = let x = low(a) in low(x); x + 1
        struct H;
        impl Hooks for H {
            fn returns(&mut self, _l: LibId, _m: MethodId, args: &[Value], _h: &[CallRecord]) -> Vec<Value> {
                vec![args[0].clone()]
            }
            fn implement(&mut self, lib: LibId, _m: MethodId, _a: &[Value]) -> Option<Body> {
                (lib == 1).then(|| {
                    let low = |e| Prog::Call { lib: 0, method: 0, args: vec![e] };
                    Body::new((
                        Prog::Let {
                            first: Box::new(low(Expr::Reg(0))),
                            bind: Some(1),
                            rest: Box::new(Prog::Let {
                                first: Box::new(low(Expr::Reg(1))),
                                bind: None,
                                rest: Box::new(Prog::Ret(Expr::Op(
                                    Op::Add,
                                    vec![Expr::Reg(1), Expr::Val(Value::Int(1))],
                                ))),
                            }),
                        },
                        2,
                        "L.m".into(),
                    ))
                })
            }
        }
        let m = |v| Prog::Call { lib: 1, method: 0, args: vec![Expr::Val(Value::Int(v))] };
        let p = Prog::seq(vec![(Some(0), m(5)), (None, m(6))]);
        let u = unfold_with(&p, 0, 1, 3, &mut H).unwrap();
        assert_eq!(u.runs.len(), 1);
        let r = &u.runs[0];
        assert_eq!(r.env[0], Some(Value::Int(6)));
        assert_eq!(r.calls.iter().map(|c| c.origin).collect::<Vec<_>>(), vec![Some(0), Some(0), Some(1), Some(1)]);
        assert_eq!(
            r.abstract_calls.iter().map(|c| c.ret.clone()).collect::<Vec<_>>(),
            vec![Value::Int(6), Value::Int(7)]
        );
        // an implementation that can break out is rejected (Def. 3.9 (2))
        struct B;
        impl Hooks for B {
            fn returns(&mut self, _l: LibId, _m: MethodId, _a: &[Value], _h: &[CallRecord]) -> Vec<Value> {
                vec![Value::Unit]
            }
            fn implement(&mut self, _l: LibId, _m: MethodId, _a: &[Value]) -> Option<Body> {
                Some(Body::new((Prog::Break(1, Expr::Val(Value::Unit)), 0, "L.bad".into())))
            }
        }
        assert!(matches!(unfold_with(&m(1), 0, 0, 3, &mut B), Err(UnfoldError::BodyBreaks(..))));
    }

    #[test]
    fn an_unfolding_stops_when_its_run_asks() {
        // a loop of 50 calls unrolled 100 times: more steps than `STOP_EVERY`
        struct S(bool);
        impl Hooks for S {
            fn returns(&mut self, _l: LibId, _m: MethodId, _a: &[Value], _h: &[CallRecord]) -> Vec<Value> {
                vec![Value::Unit]
            }
            fn stopped(&self) -> bool {
                self.0
            }
        }
        let call = || (None, Prog::Call { lib: 0, method: 0, args: vec![] });
        let p = Prog::Loop(Box::new(Prog::seq((0..50).map(|_| call()).collect())));
        let stopped = unfold_with(&p, 0, 0, 100, &mut S(true));
        assert!(matches!(stopped, Err(UnfoldError::Stopped)), "{stopped:?}");
        assert!(UnfoldError::Stopped.is_limit());
        // not asked to stop: the loop never breaks, so the bound cuts its one run
        let u = unfold_with(&p, 0, 0, 100, &mut S(false)).expect("unfolds");
        assert!(u.runs.is_empty() && u.bound_hit, "{} runs", u.runs.len());
    }
}
