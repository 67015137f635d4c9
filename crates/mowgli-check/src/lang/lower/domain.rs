//! The values a test's locations may hold: its literals, and what its threads
//! compute from them, to a fixed point.

use super::*;

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
    pub(super) constants: &'a BTreeSet<Value>,
    pub(super) calls: Vec<CallRecord>,
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
        let sig = &self.libs[call.lib].methods()[call.method];
        if call.args.iter().zip(&sig.params).any(|(a, k)| *k == Param::Val && !self.constants.contains(a)) {
            self.dependent.insert(position);
        }
        self.calls.push(call.clone());
    }
}

/// Most rounds of [`computed_domain`], and most values a location may hold.
pub(super) const MAX_ROUNDS: usize = 32;
pub(super) const MAX_VALUES: usize = 64;

pub(super) fn domain_of_sets(dom: &[BTreeSet<Value>], loose: &BTreeSet<Value>) -> ValueDomain {
    let per_loc: Vec<Vec<Value>> =
        dom.iter().map(|d| d.iter().filter(|v| !matches!(v, Value::Unit)).cloned().collect()).collect();
    let messages: BTreeSet<Value> =
        dom.iter().flatten().chain(loose).filter(|v| matches!(v, Value::Tuple(_))).cloned().collect();
    ValueDomain::new(per_loc, messages.into_iter().collect())
}

/// The values locations may hold when a program computes values (`Write(x, a +
/// 1)`): per location, the literals of the program and every value a call naming
/// the location writes (a call naming two locations, a put or a get, may copy
/// either's values to the other) when reads return values of the domain so far,
/// to a fixpoint; values of calls naming no location (a ring's messages) are
/// messages. Every value read is the initial value of a location or a value
/// written, and a written value that is no literal is computed from values read
/// before it in its execution: its derivation passes through writes of such values
/// only, so after as many rounds as an execution has such writes, every value
/// written is in the domain (as in `mowgli refine`'s value domain).
pub(super) fn computed_domain(
    world: &World,
    libs: &[Box<dyn Library>],
    threads: &[(Prog, usize)],
    literals: &BTreeSet<Value>,
    starts: &[Pos],
) -> Result<ValueDomain, SemError> {
    let nlocs = world.locs.len();
    let mut dom: Vec<BTreeSet<Value>> = vec![literals.clone(); nlocs];
    let mut loose: BTreeSet<Value> = BTreeSet::new();
    let first = starts.first().copied().unwrap_or(Pos { line: 1, col: 1 });
    for round in 0..MAX_ROUNDS {
        let vd = domain_of_sets(&dom, &loose);
        let before = (dom.clone(), loose.clone());
        let mut max_writes = 0;
        for (t, (prog, nregs)) in threads.iter().enumerate() {
            let mut h = DomainHooks {
                world,
                libs,
                thread: t,
                dom: &vd,
                constants: literals,
                calls: Vec::new(),
                dependent: BTreeSet::new(),
            };
            unfold_with(prog, t, *nregs, LOOP_BOUND, &mut h)
                .map_err(|e| Diagnostic::new(starts[t], format!("thread `{}`: {e}", world.threads[t].name)))?;
            max_writes += h.dependent.len();
            for c in &h.calls {
                let sig = &libs[c.lib].methods()[c.method];
                let mut locs = Vec::new();
                let mut vals: BTreeSet<Value> = BTreeSet::new();
                for (a, k) in c.args.iter().zip(&sig.params) {
                    match (k, a) {
                        (Param::Loc | Param::Src, Value::Loc(l)) => locs.push(*l),
                        (Param::Val, v) => {
                            vals.insert(v.clone());
                        }
                        _ => {}
                    }
                }
                if locs.is_empty() {
                    loose.extend(vals);
                    continue;
                }
                if locs.len() > 1 {
                    for &l in &locs {
                        vals.extend(dom[l].iter().cloned());
                    }
                }
                for &l in &locs {
                    dom[l].extend(vals.iter().cloned());
                }
            }
        }
        if (dom.clone(), loose.clone()) == before || round > max_writes {
            return Ok(domain_of_sets(&dom, &loose));
        }
        if let Some((l, d)) = dom.iter().enumerate().find(|(_, d)| d.len() > MAX_VALUES) {
            return err(
                first,
                format!(
                    "location `{}` may hold more than {MAX_VALUES} values ({} after {} rounds of the values \
                     the program computes): make the loops shorter or the arithmetic bounded",
                    world.locs[l].name,
                    d.len(),
                    round + 1
                ),
            );
        }
    }
    err(first, format!("the values the program computes do not settle within {MAX_ROUNDS} rounds"))
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
