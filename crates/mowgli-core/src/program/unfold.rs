//! The unfolding of a program, `⟦p⟧_t` (and ⟦p⟧_{t,I} with an implementation's
//! bodies inlined, LOCO §3.5), to a bound on loop iterations: every run a thread
//! can take, with the calls it makes and its final registers.

use super::retry::{failed_attempt, rewrites_first, Attempt, Footprint};
use super::*;
/// Result of unfolding: the unfoldings and whether the loop bound cut some off.
#[derive(Clone, Debug, Default)]
pub struct Unfolded {
    pub runs: Vec<Unfolding>,
    pub bound_hit: bool,
    /// Runs that stopped at an expression error (e.g. `range` of a value a read
    /// returned that is not an integer): they have no execution, like a run that
    /// never terminates; the first error is kept for reports.
    pub stuck: usize,
    pub stuck_msg: Option<String>,
}

/// Gives the values a call `m(ṽ)` of library `lib` may return.
pub type ReturnsFn<'a> = dyn FnMut(LibId, MethodId, &[Value]) -> Vec<Value> + 'a;

/// `I(t, m, ṽ)` for one method: the body, its number of registers (the arguments
/// are registers 0..k) and a name for messages; shared, as every call of the
/// method runs the same body.
pub type Body = std::sync::Arc<(Prog, usize, String)>;

/// What unfolding needs besides the program.
pub trait Hooks {
    /// The values a call may return (the paper's `v' ∈ Val`, restricted to what
    /// the library can actually return).
    /// `history` holds the calls the run made so far.
    fn returns(&mut self, lib: LibId, method: MethodId, args: &[Value], history: &[CallRecord]) -> Vec<Value>;
    /// `I(t, m, ṽ)` for a call of the implemented library ([`Body`]); `None` for
    /// calls of other libraries.
    fn implement(&mut self, _lib: LibId, _method: MethodId, _args: &[Value]) -> Option<Body> {
        None
    }
    fn ctx(&self) -> &dyn EvalCtx {
        &NoCtx
    }
    /// Whether the calls of `method` have symbolic return values (the engine leaves
    /// them open, see `Library::symbolic_return`).
    fn symbolic(&self, _lib: LibId, _method: MethodId) -> bool {
        false
    }
    /// Whether a call made, with the value it returned, only read
    /// (`Library::read_only_as_made`): [`Prog::Retry`] drops an iteration that does
    /// not break and made only such calls. By default no call is.
    fn read_only_call(&self, _lib: LibId, _method: MethodId, _args: &[Value], _ret: &Value) -> bool {
        false
    }
    /// What a call does to memory as its library declares it (`Library::footprint`):
    /// [`Prog::Retry`] drops failed attempts by it ([`super::retry`]). By default
    /// not declared.
    fn footprint(&self, _lib: LibId, _method: MethodId, _args: &[Value]) -> Option<Footprint> {
        None
    }
    /// Whether location `loc` is private to the thread unfolded: no other thread
    /// accesses it ([`EvalCtx::private`]).
    fn private(&self, loc: &Value) -> bool {
        self.ctx().private(loc)
    }
    /// Sees every call the unfolding makes, with its position in the thread's
    /// calls, including calls of runs that are later dropped (blocked, stuck).
    fn observe(&mut self, _position: usize, _call: &CallRecord) {}
    /// Whether [`Hooks::observe`] wants the calls now: an implementation that
    /// ignores them says `false`, and the unfolding does not build them for it.
    fn observing(&self) -> bool {
        true
    }
    /// Checks a call's (dynamic) arguments before it is made; `Err` explains.
    fn check(&mut self, _lib: LibId, _method: MethodId, _args: &[Value]) -> Result<(), String> {
        Ok(())
    }
    /// Whether the run that asked for the unfolding is to stop (its time limit
    /// passed): asked every [`STOP_EVERY`] steps, and the unfolding then ends with
    /// [`UnfoldError::Stopped`], a limit. By default never.
    fn stopped(&self) -> bool {
        false
    }
}

/// How many steps of an unfolding pass between two questions to [`Hooks::stopped`].
pub const STOP_EVERY: u64 = 4096;

struct ReturnsOnly<'a, 'b>(&'a mut ReturnsFn<'b>);

impl Hooks for ReturnsOnly<'_, '_> {
    fn returns(&mut self, lib: LibId, method: MethodId, args: &[Value], _h: &[CallRecord]) -> Vec<Value> {
        (self.0)(lib, method, args)
    }
}

/// A run up to the values returned by symbolic calls: (value, registers, calls).
type RunKey = (Value, Vec<Option<Value>>, Vec<CallRecord>);

/// At most this many unfoldings of one thread.
pub const MAX_RUNS: usize = 200_000;

/// At most this many calls held by the unfoldings being built (the runs times
/// their calls): the memory an unfolding takes is about proportional to it.
pub const MAX_CALLS_HELD: usize = 2_000_000;

/// At most this many steps (program nodes visited) per unfolding: the time it
/// takes (a loop bound of a billion iterations, loops nested deep).
pub const MAX_STEPS: u64 = 20_000_000;

/// Computes `⟦p⟧_t` up to `loop_bound` iterations per loop. `returns` gives the
/// values a call may return.
pub fn unfold(p: &Prog, nregs: usize, loop_bound: usize, returns: &mut ReturnsFn) -> Result<Unfolded, UnfoldError> {
    unfold_with(p, 0, nregs, loop_bound, &mut ReturnsOnly(returns))
}

/// Computes `⟦⟦p⟧_{t,I}⟧_t` for thread `thread`: calls the hooks implement are
/// replaced by their implementation (LOCO §3.5), and every call records the
/// abstract call it belongs to.
pub fn unfold_with(
    p: &Prog,
    thread: ThreadId,
    nregs: usize,
    loop_bound: usize,
    hooks: &mut dyn Hooks,
) -> Result<Unfolded, UnfoldError> {
    let mut out = Unfolded::default();
    let start = Unfolding {
        value: Value::Unit,
        breaks: 0,
        calls: vec![],
        env: vec![None; nregs],
        abstract_calls: vec![],
        origin: None,
    };
    let mut u = Unfolder {
        thread,
        bound: loop_bound,
        hooks,
        hit: false,
        stuck: 0,
        stuck_msg: None,
        spare: Vec::new(),
        steps: 0,
        inlining: Vec::new(),
        last_inlined: None,
    };
    if let Err(e) = u.go(p, start, &mut out.runs) {
        return Err(match e {
            UnfoldError::TooMany(_) | UnfoldError::TooLarge(_) => UnfoldError::Cut {
                what: match e {
                    UnfoldError::TooMany(n) => format!("too many unfoldings (more than {n})"),
                    UnfoldError::TooLarge(w) => w,
                    _ => unreachable!(),
                },
                thread,
                method: u.last_inlined.or_else(|| u.inlining.last().cloned()),
                loop_bound,
            },
            e => e,
        });
    }
    out.bound_hit = u.hit;
    out.stuck = u.stuck;
    out.stuck_msg = u.stuck_msg;
    Ok(out)
}

struct Unfolder<'h> {
    thread: ThreadId,
    bound: usize,
    hooks: &'h mut dyn Hooks,
    hit: bool,
    stuck: usize,
    stuck_msg: Option<String>,
    /// Emptied run vectors, kept for the next node that needs one.
    spare: Vec<Vec<Unfolding>>,
    /// Program nodes visited so far (at most [`MAX_STEPS`]).
    steps: u64,
    /// The implementation methods being inlined, innermost last (for the message
    /// of a limit).
    inlining: Vec<String>,
    /// The last implementation method inlined whose unfolding branched.
    last_inlined: Option<String>,
}

/// An expression error stops the run (it adds no unfolding); other errors are reported.
macro_rules! eval_or_stuck {
    ($self:ident, $e:expr, $env:expr) => {
        match $self.eval($e, $env) {
            Ok(v) => v,
            Err(UnfoldError::Eval(m)) => {
                $self.stuck += 1;
                $self.stuck_msg.get_or_insert(m);
                return Ok(());
            }
            Err(e) => return Err(e),
        }
    };
}

impl Unfolder<'_> {
    fn eval(&self, e: &Expr, env: &[Option<Value>]) -> Result<Value, UnfoldError> {
        e.eval_in(env, self.thread, self.hooks.ctx())
    }

    /// The limits on `runs` runs being built, the last of them (`last`) about as
    /// long as the others.
    fn check(runs: usize, last: Option<&Unfolding>) -> Result<(), UnfoldError> {
        if runs > MAX_RUNS {
            return Err(UnfoldError::TooMany(MAX_RUNS));
        }
        let width = last.map_or(0, |r| r.calls.len()) + 1;
        if runs.saturating_mul(width) > MAX_CALLS_HELD {
            return Err(UnfoldError::TooLarge(format!(
                "unfoldings too large (more than {MAX_CALLS_HELD} calls in all)"
            )));
        }
        Ok(())
    }

    /// An empty run vector (a spare one when there is).
    fn buffer(&mut self) -> Vec<Unfolding> {
        self.spare.pop().unwrap_or_default()
    }

    /// Gives an emptied run vector back for reuse.
    fn recycle(&mut self, mut v: Vec<Unfolding>) {
        v.clear();
        self.spare.push(v);
    }

    /// Appends the unfoldings of `p` from state `st` to `out`, in order.
    fn go(&mut self, p: &Prog, st: Unfolding, out: &mut Vec<Unfolding>) -> Result<(), UnfoldError> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(UnfoldError::TooLarge(format!("the unfolding takes more than {MAX_STEPS} steps")));
        }
        if self.steps.is_multiple_of(STOP_EVERY) && self.hooks.stopped() {
            return Err(UnfoldError::Stopped);
        }
        match p {
            Prog::Ret(e) => {
                let v = eval_or_stuck!(self, e, &st.env);
                out.push(Unfolding { value: v, breaks: 0, ..st });
                Ok(())
            }
            Prog::Break(k, e) => {
                let v = eval_or_stuck!(self, e, &st.env);
                out.push(Unfolding { value: v, breaks: *k, ..st });
                Ok(())
            }
            Prog::Call { lib, method, args } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(eval_or_stuck!(self, a, &st.env));
                }
                let args: Args = vals.into();
                if let Some(b) = self.hooks.implement(*lib, *method, &args) {
                    let (body, nb, name) = &*b;
                    return self.inline(body, *nb, name, *lib, *method, args, st, out);
                }
                if let Err(m) = self.hooks.check(*lib, *method, &args) {
                    self.stuck += 1;
                    self.stuck_msg.get_or_insert(m);
                    return Ok(());
                }
                let rets = self.hooks.returns(*lib, *method, &args, &st.calls);
                let observed = if self.hooks.observing() { &rets[..] } else { &[] };
                for r in observed {
                    let c = CallRecord {
                        lib: *lib,
                        method: *method,
                        args: args.clone(),
                        ret: r.clone(),
                        origin: st.origin,
                    };
                    self.hooks.observe(st.calls.len(), &c);
                }
                // one return value (a deterministic call): extend `st` itself, not a
                // copy of its calls (copying made straight-line unfolding quadratic)
                if rets.len() == 1 {
                    let mut s = st;
                    let r = rets.into_iter().next().unwrap_or(Value::Unit);
                    let origin = s.origin;
                    s.calls.push(CallRecord { lib: *lib, method: *method, args, ret: r.clone(), origin });
                    s.value = r;
                    s.breaks = 0;
                    out.push(s);
                    return Ok(());
                }
                out.extend(rets.into_iter().map(|r| {
                    let mut s = st.clone();
                    s.calls.push(CallRecord {
                        lib: *lib,
                        method: *method,
                        args: args.clone(),
                        ret: r.clone(),
                        origin: st.origin,
                    });
                    s.value = r;
                    s.breaks = 0;
                    s
                }));
                Ok(())
            }
            Prog::Let { first, bind, rest } => {
                let start = out.len();
                let mut firsts = self.buffer();
                self.go(first, st, &mut firsts)?;
                for mut s in firsts.drain(..) {
                    if s.breaks != 0 {
                        out.push(s);
                        continue;
                    }
                    if let Some(r) = bind {
                        if *r >= s.env.len() {
                            s.env.resize(*r + 1, None);
                        }
                        s.env[*r] = Some(s.value.clone());
                    }
                    self.go(rest, s, out)?;
                    Self::check(out.len() - start, out.last())?;
                }
                self.recycle(firsts);
                Ok(())
            }
            Prog::If(c, a, b) => match eval_or_stuck!(self, c, &st.env) {
                Value::Bool(true) => self.go(a, st, out),
                Value::Bool(false) => self.go(b, st, out),
                v => {
                    self.stuck += 1;
                    self.stuck_msg.get_or_insert(format!("`if` needs a boolean, found {v}"));
                    Ok(())
                }
            },
            Prog::For { var, set, body } => {
                let s = eval_or_stuck!(self, set, &st.env);
                let Some(items) = elements(&s) else {
                    self.stuck += 1;
                    self.stuck_msg.get_or_insert(format!("cannot iterate over {s}"));
                    return Ok(());
                };
                let mut frontier = vec![Unfolding { value: Value::Unit, ..st }];
                let mut done = Vec::new();
                for it in items {
                    let mut next = Vec::new();
                    for mut s in frontier {
                        if *var >= s.env.len() {
                            s.env.resize(*var + 1, None);
                        }
                        s.env[*var] = Some(it.clone());
                        let mut rs = self.buffer();
                        self.go(body, s, &mut rs)?;
                        for r in rs.drain(..) {
                            if r.breaks != 0 {
                                done.push(r); // a break leaves the enclosing loop
                            } else {
                                next.push(r);
                            }
                        }
                        self.recycle(rs);
                        Self::check(next.len(), next.last())?;
                    }
                    frontier = next;
                }
                out.append(&mut done);
                out.extend(frontier.into_iter().map(|s| Unfolding { value: Value::Unit, ..s }));
                Ok(())
            }
            Prog::Loop(body) => self.unroll(body, st, out, false),
            Prog::Retry(body) => self.unroll(body, st, out, true),
            Prog::Spin(body, locals) => {
                // only the iteration that breaks (see `Prog::Spin`)
                let start = st.calls.len();
                let mut res: Vec<Unfolding> = Vec::new();
                let mut index: std::collections::HashMap<RunKey, usize> = std::collections::HashMap::new();
                // per merged run: the one call whose returned values it merged
                let mut merged_at: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
                let mut rs = self.buffer();
                self.go(body, st, &mut rs)?;
                for mut r in rs.drain(..) {
                    if r.breaks == 0 {
                        continue;
                    }
                    r.breaks -= 1;
                    for &l in locals {
                        if l < r.env.len() {
                            r.env[l] = None;
                        }
                    }
                    let mut key_calls = r.calls.clone();
                    for c in key_calls.iter_mut().skip(start) {
                        if self.hooks.symbolic(c.lib, c.method) {
                            c.ret = Value::Unit;
                        }
                    }
                    let key = (r.value.clone(), r.env.clone(), key_calls);
                    // One call's alternatives stand for exactly the runs merged; two
                    // calls' would stand for every combination, also those the
                    // breaking condition relates (`s1 == s2` of a validation), so
                    // runs merge only where they differ in one and the same call.
                    let differing = |m: &Unfolding| -> Vec<usize> {
                        (start..m.calls.len().min(r.calls.len()))
                            .filter(|&i| {
                                m.calls[i].ret != r.calls[i].ret && !alternative(&m.calls[i].ret, &r.calls[i].ret)
                            })
                            .collect()
                    };
                    let mergeable = index.get(&key).and_then(|&i| {
                        let d = differing(&res[i]);
                        let at = merged_at.get(&i).copied();
                        match (d.as_slice(), at) {
                            ([], _) => Some(i),
                            ([p], None) => Some(i).filter(|_| merged_at.insert(i, *p).is_none()),
                            ([p], Some(q)) if *p == q => Some(i),
                            _ => None,
                        }
                    });
                    match mergeable {
                        None => {
                            index.entry(key).or_insert(res.len());
                            res.push(r);
                        }
                        Some(i) => {
                            let m = &mut res[i];
                            for (c, n) in m.calls.iter_mut().zip(&r.calls).skip(start) {
                                if c.ret != n.ret {
                                    let mut alts = match std::mem::replace(&mut c.ret, Value::Unit) {
                                        Value::OneOf(vs) => vs,
                                        v => vec![v],
                                    };
                                    if !alts.contains(&n.ret) {
                                        alts.push(n.ret.clone());
                                        alts.sort();
                                    }
                                    c.ret = Value::OneOf(alts);
                                }
                            }
                        }
                    }
                }
                self.recycle(rs);
                out.append(&mut res);
                Ok(())
            }
        }
    }

    /// `loop body` unrolled up to the bound; with `drop_failed` (a retry loop,
    /// [`Prog::Retry`]) the iterations that do not break and [`Unfolder::droppable`]
    /// finds may be dropped are.
    fn unroll(
        &mut self,
        body: &Prog,
        st: Unfolding,
        out: &mut Vec<Unfolding>,
        drop_failed: bool,
    ) -> Result<(), UnfoldError> {
        let start = out.len();
        let mut frontier = vec![st];
        for _ in 0..self.bound {
            let mut next = Vec::new();
            for s in frontier {
                let from = s.calls.len();
                let mut rs = self.buffer();
                self.go(body, s, &mut rs)?;
                let dropped = if drop_failed { self.droppable(&rs, from) } else { vec![false; rs.len()] };
                for (r, drop) in rs.drain(..).zip(dropped) {
                    if r.breaks != 0 {
                        out.push(Unfolding { breaks: r.breaks - 1, ..r });
                    } else if !drop {
                        // the loop goes on from this iteration
                        next.push(r);
                    }
                }
                self.recycle(rs);
                Self::check(next.len() + out.len() - start, next.last().or(out.last()))?;
            }
            frontier = next;
            if frontier.is_empty() {
                break;
            }
        }
        if !frontier.is_empty() {
            self.hit = true;
        }
        Ok(())
    }

    /// Which of the runs `rs` of one iteration of a retry loop (its calls from
    /// `from` on) can be dropped: those that do not break and only read as made,
    /// and the failed attempts ([`failed_attempt`]) when every other run that is
    /// kept writes their private locations again first ([`rewrites_first`]).
    fn droppable(&self, rs: &[Unfolding], from: usize) -> Vec<bool> {
        let h = &*self.hooks;
        fn attempt<'r>(h: &dyn Hooks, r: &'r Unfolding, from: usize) -> Attempt<'r> {
            let calls = &r.calls[from..];
            Attempt {
                calls,
                footprints: calls.iter().map(|c| h.footprint(c.lib, c.method, &c.args)).collect(),
                read_only: calls.iter().map(|c| h.read_only_call(c.lib, c.method, &c.args, &c.ret)).collect(),
            }
        }
        // each run's calls with their footprints, built once
        let attempts: Vec<Attempt> = rs.iter().map(|r| attempt(h, r, from)).collect();
        let mut drop = vec![false; rs.len()];
        let mut failed: Vec<(usize, Vec<Value>)> = Vec::new();
        for (i, a) in attempts.iter().enumerate().filter(|&(i, _)| rs[i].breaks == 0) {
            if a.read_only.iter().all(|&b| b) {
                drop[i] = true;
            } else if let Some(locs) = failed_attempt(a, &|l| h.private(l)) {
                failed.push((i, locs));
            }
        }
        if failed.is_empty() {
            return drop;
        }
        let mut locs: Vec<Value> = failed.iter().flat_map(|f| f.1.iter().cloned()).collect();
        locs.sort();
        locs.dedup();
        let is_failed = |i: usize| failed.iter().any(|f| f.0 == i);
        let followers_rewrite = attempts
            .iter()
            .enumerate()
            .filter(|&(i, _)| !drop[i] && !is_failed(i))
            .all(|(_, a)| rewrites_first(a, &locs));
        if followers_rewrite {
            for (i, _) in &failed {
                drop[*i] = true;
            }
        }
        drop
    }

    #[allow(clippy::too_many_arguments)]
    fn inline(
        &mut self,
        body: &Prog,
        nregs: usize,
        name: &str,
        lib: LibId,
        method: MethodId,
        args: Args,
        st: Unfolding,
        out: &mut Vec<Unfolding>,
    ) -> Result<(), UnfoldError> {
        let k = st.abstract_calls.len();
        let mut env = vec![None; nregs.max(args.len())];
        for (i, a) in args.iter().enumerate() {
            env[i] = Some(a.clone());
        }
        let ncalls = st.calls.len();
        let mut caller_env = st.env.clone();
        let caller_origin = st.origin;
        let sub = Unfolding { env, origin: Some(k), ..st };
        let mut rs = self.buffer();
        self.inlining.push(name.to_string());
        self.go(body, sub, &mut rs)?;
        self.inlining.pop();
        // a method whose one run became several is the one that grows the unfolding
        if rs.len() > 1 && self.last_inlined.as_deref() != Some(name) {
            self.last_inlined = Some(name.to_string());
        }
        let last = rs.len().saturating_sub(1);
        for (i, mut r) in rs.drain(..).enumerate() {
            if r.breaks != 0 {
                return Err(UnfoldError::BodyBreaks(name.to_string(), r.breaks));
            }
            if r.calls.len() == ncalls {
                return Err(UnfoldError::BodyEmpty(name.to_string()));
            }
            r.abstract_calls.push(CallRecord { lib, method, args: args.clone(), ret: r.value.clone(), origin: None });
            // the caller's registers again (moved into the last run)
            r.env = if i == last { std::mem::take(&mut caller_env) } else { caller_env.clone() };
            r.origin = caller_origin;
            out.push(r);
        }
        self.recycle(rs);
        Ok(())
    }
}

/// Whether `n` is already among the alternatives `m` (a merged call's returns).
fn alternative(m: &Value, n: &Value) -> bool {
    matches!(m, Value::OneOf(vs) if vs.contains(n))
}
