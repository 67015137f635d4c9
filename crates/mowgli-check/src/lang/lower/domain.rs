//! The values a test's locations may hold: its literals, and what its threads
//! compute from them, to a fixed point.

use super::*;
use mowgli_core::DomainSets;

/// Whether some call of `p` sends a value that is no tuple literal as a message (a
/// value argument of a call naming no location, e.g. a ring's `Submit(q, 1)`):
/// [`domain_of`]'s messages are the tuple literals, so such a program takes the
/// computed domain, whose messages are what calls send.
pub(super) fn sends_other_messages(p: &Prog, libs: &[Box<dyn Library>]) -> bool {
    match p {
        Prog::Call { lib, method, args } => {
            let params = &libs[*lib].methods()[*method].params;
            !params.iter().any(|k| matches!(k, Param::Loc | Param::Src))
                && args
                    .iter()
                    .zip(params)
                    .any(|(a, k)| *k == Param::Val && !matches!(a, Expr::Val(Value::Tuple(_) | Value::Unit)))
        }
        Prog::Ret(_) | Prog::Break(..) => false,
        Prog::Let { first, rest, .. } => sends_other_messages(first, libs) || sends_other_messages(rest, libs),
        Prog::Loop(b) | Prog::Spin(b, _) | Prog::Retry(b) | Prog::For { body: b, .. } => sends_other_messages(b, libs),
        Prog::If(_, a, b) => sends_other_messages(a, libs) || sends_other_messages(b, libs),
    }
}

pub(super) fn domain_of(values: BTreeSet<Value>, nlocs: usize) -> ValueDomain {
    let all: Vec<Value> = values.into_iter().filter(|v| !matches!(v, Value::Unit)).collect();
    let messages = all.iter().filter(|v| matches!(v, Value::Tuple(_))).cloned().collect();
    ValueDomain::new(vec![all; nlocs], messages)
}

/// Unfolding hooks that record the calls a thread makes.
pub(super) struct DomainHooks<'a> {
    pub(super) world: &'a World,
    pub(super) libs: &'a [Box<dyn Library>],
    pub(super) thread: usize,
    pub(super) dom: &'a ValueDomain,
    /// The calls, each with its position in the thread's calls.
    pub(super) calls: Vec<(usize, CallRecord)>,
    /// Positions (in the thread's calls) of calls writing a value that is no constant.
    pub(super) dependent: BTreeSet<usize>,
}

impl Hooks for DomainHooks<'_> {
    fn returns(&mut self, lib: usize, method: usize, args: &[Value], history: &[CallRecord]) -> Vec<Value> {
        self.libs[lib].returns_after(self.world, self.thread, lib, history, method, args, self.dom)
    }
    fn check(&mut self, lib: usize, method: usize, args: &[Value]) -> Result<(), String> {
        // the engine's checks (`engine::EngineHooks::check`): argument kinds, then the library's
        let l = &self.libs[lib];
        for (a, k) in args.iter().zip(&l.methods()[method].params) {
            let ok = match k {
                Param::Loc | Param::Src => matches!(a, Value::Loc(x) if *x < self.world.locs.len()),
                Param::Wid => matches!(a, Value::Wid(_)),
                Param::Node => matches!(a, Value::Node(n) if self.world.nodes.contains(n)),
                Param::Nodes => matches!(a, Value::Nodes(_)),
                Param::Obj => matches!(a, Value::Obj(_)),
                Param::Val => true,
            };
            if !ok {
                return Err(format!("argument {} is not a {k:?}", self.world.show(a)));
            }
        }
        l.check_call(self.world, self.thread, method, args)
    }
    fn observe(&mut self, position: usize, call: &CallRecord) {
        self.calls.push((position, call.clone()));
    }
    fn read_only_call(&self, lib: usize, method: usize, args: &[Value], ret: &Value) -> bool {
        self.libs[lib].read_only_as_made(method, args, ret)
    }
    fn footprint(&self, lib: usize, method: usize, args: &[Value]) -> Option<mowgli_core::program::retry::Footprint> {
        self.libs[lib].footprint(method, args)
    }
}

/// Most rounds of [`computed_domain`], and most values a location may hold (the
/// defaults of [`DomainLimits`]).
pub const MAX_ROUNDS: usize = 32;
pub const MAX_VALUES: usize = 64;

/// The default bound of the witness search of one litmus test, in
/// [`crate::engines::explicit::work_of_check`] units (a few seconds).
pub const MAX_WORK: u64 = 3_000_000_000;

/// The bounds of a computed value domain (`mowgli litmus --max-values`), of the
/// witness search of a test (`--max-work`), and of the unrolling of loops that
/// are no spin loops (`--loop-bound`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DomainLimits {
    pub max_values: usize,
    pub max_rounds: usize,
    pub max_work: u64,
    pub loop_bound: usize,
}

impl Default for DomainLimits {
    fn default() -> Self {
        DomainLimits { max_values: MAX_VALUES, max_rounds: MAX_ROUNDS, max_work: MAX_WORK, loop_bound: LOOP_BOUND }
    }
}

/// The values locations may hold when a program or a library computes values
/// (`Write(x, a + 1)`, a get-accumulate): a fixpoint of what every call of the
/// program's unfoldings may write ([`mowgli_core::Library::writes`]) when reads
/// return values of the domain so far, from the constants (the program's
/// literals and the libraries' own, [`mowgli_core::domain`]). After as many rounds
/// as an execution has writes of values that are no constants (copies aside:
/// each round closes the sets under its calls' copies), every value written is
/// in the domain. Where a limit stops the fixpoint first, the domain
/// found so far comes with the reason (`cut`): outcomes found on it are real, but
/// some may be missing.
pub(super) fn computed_domain(
    world: &World,
    libs: &[Box<dyn Library>],
    threads: &[(Prog, usize)],
    literals: &BTreeSet<Value>,
    starts: &[Pos],
    limits: DomainLimits,
) -> Result<(ValueDomain, Option<String>), SemError> {
    let mut sets = DomainSets::new(world.locs.len(), |_| literals.clone());
    for round in 0..limits.max_rounds {
        let vd = sets.domain();
        let before = sets.size();
        let mut max_writes = 0;
        let mut calls: Vec<(usize, CallRecord)> = Vec::new();
        for (t, (prog, nregs)) in threads.iter().enumerate() {
            let mut h = DomainHooks { world, libs, thread: t, dom: &vd, calls: Vec::new(), dependent: BTreeSet::new() };
            match unfold_with(prog, t, *nregs, limits.loop_bound, &mut h) {
                Ok(_) => {}
                // a limit, not a malformed test: the domain so far, with the reason
                Err(e) if e.is_limit() => {
                    let why = format!("the unfolding was cut: thread `{}`: {e}", world.threads[t].name);
                    return Ok((sets.domain(), Some(why)));
                }
                Err(e) => return Err(Diagnostic::new(starts[t], format!("thread `{}`: {e}", world.threads[t].name))),
            }
            for (pos, c) in &h.calls {
                if sets.add_call(libs[c.lib].as_ref(), world, t, c, &vd, literals) {
                    h.dependent.insert(*pos);
                }
            }
            max_writes += h.dependent.len();
            calls.extend(h.calls.into_iter().map(|(_, c)| (t, c)));
        }
        // copies make no new value: closed within the round (they cost no round)
        let copying: Vec<(&dyn Library, usize, &CallRecord)> =
            calls.iter().map(|(t, c)| (libs[c.lib].as_ref(), *t, c)).collect();
        sets.close_copies(world, &copying);
        if sets.size() == before || round > max_writes {
            return Ok((sets.domain(), None));
        }
        if let Some((l, n)) = sets.over(limits.max_values) {
            let why = format!(
                "the value domain was cut: location `{}` may hold more than {} values ({n} after {} rounds of \
                 the values the program and its libraries compute); raise `--max-values` or lower the bounds",
                world.locs[l].name,
                limits.max_values,
                round + 1
            );
            return Ok((sets.domain(), Some(why)));
        }
    }
    let why = format!(
        "the value domain was cut: the values the program and its libraries compute do not settle within {} rounds",
        limits.max_rounds
    );
    Ok((sets.domain(), Some(why)))
}

/// An integer literal (`-1` is one).
pub(super) fn int_literal(e: &Ex) -> Option<i64> {
    match e {
        Ex::Int(v, _) => Some(*v),
        Ex::Neg(b, _) => match &**b {
            Ex::Int(v, _) => v.checked_neg(),
            _ => None,
        },
        _ => None,
    }
}
