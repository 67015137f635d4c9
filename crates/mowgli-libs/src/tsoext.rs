//! The extension of RDMA^TSO used by the LOCO paper (App. F.1), shared by
//! [`crate::rdmatso`] (RDMA paper Def. 4.4) and [`crate::rdmatsof1`] (LOCO Def. F.1):
//! eleven methods instead of eight, `Put`/`Get` return a unique identifier, `Poll(n)`
//! returns the identifier of the operation it polls, and three per-thread set
//! operations `SetAdd(s, v)`, `SetRemove(s, v)`, `SetIsEmpty(s)` (stamp aMF each)
//! to store identifiers.
//!
//! # Identifiers
//!
//! Def. F.1 lets a put/get return "an arbitrary unique identifier". Consistency only
//! compares identifiers for equality (uniqueness, "a Poll returns the identifier of
//! the polled operation", set membership), so every consistent execution is, up to a
//! renaming of its identifiers, one where they are fixed as follows, and that is the
//! choice made here: the k-th `Put`/`Get` (k ≥ 1, in program order) of the t-th
//! thread (t ≥ 1, in declaration order) returns the tuple `[t, k]`, unique by
//! construction. (The renaming argument assumes the program never builds a value
//! equal to an identifier by other means, e.g. the tuple literal `[1, 2]`.)
//!
//! The engine draws return values from [`mowgli_core::Library::returns_after`],
//! which sees the thread's earlier calls: [`returns_given_history`] gives a put/get
//! its `[t, k]` and a poll the identifier of the oldest unpolled operation of its
//! queue pair, and consistency checks them again ([`Extras`]). (Without the history,
//! [`mowgli_core::Library::returns`] can only offer the candidates `[t, 1]` …
//! `[t, ID_BOUND]`.)
//!
//! # Sets
//!
//! Set locations are ordinary declared locations (`loc s @ 1`) used only by the set
//! methods (App. F.1 assumes they do not overlap with the others; not enforced: a
//! location used both ways has both roles, independently); they are per-thread
//! bookkeeping, not memory: no read or write subevent,
//! no rf/mo, and `loc(e) = ∅` for set operations (their stamp is aMF, "to simplify
//! the consistency conditions, as we do not want to explicitly integrate them in the
//! read and write subevents").
//!
//! Soundness (last bullet of Def. F.1): if `SetIsEmpty(s)` of thread t returns true,
//! every `SetAdd(s, v)` of t before it is followed, still before it, by a
//! `SetRemove(s, v)` of t.
//!
//! **`SetIsEmpty` returning false is always allowed.** Def. F.1 states the
//! condition as an implication from `true` only and calls it "(per-thread) sound";
//! there is no completeness clause (that `false` requires a value still in the set),
//! and the checker implements the definition as written. This is the weaker
//! library: it has every execution of an exact set and more. In the LOCO
//! implementation of `Wait` (`While (SetIsEmpty(d^n) ≠ true) { v = Poll(n); … }`) a
//! spurious `false` only makes the loop poll again, which adds pf (and, for gets,
//! so) edges or, with nothing left to poll, has no consistent execution (pf is total
//! on polls), so it should never allow a weaker outcome (argued, not checked); it
//! can make bounded loops hit the unrolling bound.

use mowgli_core::program::CallRecord;
use mowgli_core::{BitRel, Event, ExecGraph, MethodSig, Stamp, Value, ValueDomain, World};

use crate::rdma::{self, is_rmw, Kinds, GET, POLL_OR_WAIT, PUT, SET_ADD, SET_IS_EMPTY, SET_REMOVE};

/// The largest k of an identifier `[t, k]`: how many puts/gets a thread may issue.
pub const ID_BOUND: usize = 4;

/// The identifier of the k-th put/get (k ≥ 1) of thread `thread` (0-based).
pub fn nic_id(thread: usize, k: usize) -> Value {
    Value::Tuple(vec![Value::Int(thread as i64 + 1), Value::Int(k as i64)])
}

/// The eleven methods of LOCO App. F.1, in the numbering of [`crate::rdma`].
pub fn methods() -> Vec<MethodSig> {
    use mowgli_core::{Effect, Ret, Role};
    let m = MethodSig::new;
    // rdma::check_nodes: a read's, write's and CAS's location, a put's source and
    // a get's destination are the caller's; puts and gets go anywhere
    let here = |written| Role::Loc { local: true, written, sized_like: None };
    let there = |written| Role::Loc { local: false, written, sized_like: None };
    // set operations address no memory (`locs` gives them none)
    let set = Role::Loc { local: false, written: false, sized_like: None };
    vec![
        m("Read", vec![here(false)], vec![Ret::ValueOf(0)]).effect(Effect::Reads { loc: 0 }),
        m("Write", vec![here(true), Role::Val], vec![]).effect(Effect::Writes { loc: 0, val: 1 }),
        m("CAS", vec![here(true), Role::Expected, Role::Val], vec![Ret::ValueOf(0)]),
        m("Mfence", vec![], vec![]).effect(Effect::Fence),
        m("Put", vec![there(true), Role::Src], vec![Ret::Id]).effect(Effect::Copies { from: 1, to: 0 }),
        m("Get", vec![here(true), there(false)], vec![Ret::Id]).effect(Effect::Copies { from: 1, to: 0 }),
        m("Poll", vec![Role::Node { completes: true }], vec![Ret::Id]).effect(Effect::Completes { node: 0 }),
        m("Rfence", vec![Role::Node { completes: false }], vec![]).effect(Effect::FenceTowards { node: 0 }),
        m("SetAdd", vec![set, Role::Val], vec![]).extension(),
        m("SetRemove", vec![set, Role::Val], vec![]).extension(),
        m("SetIsEmpty", vec![set], vec![Ret::Bool]).extension(),
    ]
}

/// "Respects nodes" for the RDMA methods; a set location may live anywhere.
pub fn check_call(world: &World, thread: usize, method: usize, args: &[Value]) -> Result<(), String> {
    match method {
        SET_ADD | SET_REMOVE | SET_IS_EMPTY => Ok(()),
        m if is_rmw(m) => {
            crate::rmw::check_call(method, args)?;
            rdma::check_nodes(world, thread, method, args)
        }
        _ => rdma::check_nodes(world, thread, method, args),
    }
}

/// stmp_TSO (App. F.1): a poll has aWT, set operations aMF, the rest stmp_RL.
pub fn stamps(k: &Kinds, world: &World, e: &Event) -> Vec<Stamp> {
    match e.method {
        POLL_OR_WAIT => vec![k.single(k.wt)],
        SET_ADD | SET_REMOVE | SET_IS_EMPTY => vec![k.single(k.mf)],
        _ => rdma::stmp_rl(k, world, e),
    }
}

/// loc: set operations address no memory.
pub fn locs(e: &Event) -> Vec<usize> {
    match e.method {
        SET_ADD | SET_REMOVE | SET_IS_EMPTY => vec![],
        _ => rdma::locs(e),
    }
}

/// Candidate return values (see the module documentation for identifiers).
pub fn returns(thread: usize, method: usize, args: &[Value], dom: &ValueDomain) -> Vec<Value> {
    match method {
        PUT | GET | POLL_OR_WAIT => (1..=ID_BOUND).map(|k| nic_id(thread, k)).collect(),
        m if is_rmw(m) => (1..=ID_BOUND).map(|k| nic_id(thread, k)).collect(),
        SET_IS_EMPTY => vec![Value::Bool(true), Value::Bool(false)],
        _ => rdma::returns(method, args, dom),
    }
}

/// The return values of a call of thread `thread` given `history`, the calls the
/// thread made before it (all libraries, in program order; this library's are those
/// with `lib == me`): one identifier for a put/get (`[t, k]`, no bound), for a poll
/// the identifier of the oldest unpolled put/get towards its node (none if there is
/// none: the poll never returns), and for `SetIsEmpty` false, plus true when Def.
/// F.1's soundness allows it.
///
/// The values a call returns given the thread's earlier calls
/// ([`mowgli_core::Library::returns_after`], what the engine uses): exactly one
/// identifier per put/get, the polled identifier for a poll (none when nothing is
/// left to poll: the poll blocks), and the allowed values of `SetIsEmpty`; loops
/// around `Poll`/`SetIsEmpty` (LOCO's I_W) stop unfolding when nothing is pending.
pub fn returns_given_history(
    world: &World,
    thread: usize,
    me: usize,
    history: &[CallRecord],
    method: usize,
    args: &[Value],
    dom: &ValueDomain,
) -> Vec<Value> {
    let earlier: Vec<&CallRecord> = history.iter().filter(|c| c.lib == me).collect();
    let loc_node = |v: Option<&Value>| v.and_then(Value::as_loc).and_then(|l| world.loc_node(l));
    // the puts/gets so far, with their identifiers and target nodes
    let nic: Vec<(Value, Option<u32>)> = earlier
        .iter()
        .filter(|c| is_nic_op(c.method))
        .enumerate()
        .map(|(i, c)| {
            let node = if c.method == PUT { loc_node(c.args.first()) } else { loc_node(c.args.get(1)) };
            (nic_id(thread, i + 1), node)
        })
        .collect();
    match method {
        m if is_nic_op(m) => vec![nic_id(thread, nic.len() + 1)],
        POLL_OR_WAIT => {
            let n = args.first().and_then(Value::as_node);
            let polled = earlier
                .iter()
                .filter(|c| c.method == POLL_OR_WAIT && c.args.first().and_then(Value::as_node) == n)
                .count();
            nic.iter()
                .filter(|(_, node)| node.is_some() && *node == n)
                .nth(polled)
                .map(|(id, _)| id.clone())
                .into_iter()
                .collect()
        }
        SET_IS_EMPTY => {
            let s = args.first();
            let sound = earlier
                .iter()
                .enumerate()
                .filter(|(_, c)| c.method == SET_ADD && c.args.first() == s)
                .all(|(i, add)| earlier[i + 1..].iter().any(|c| c.method == SET_REMOVE && c.args == add.args));
            if sound {
                vec![Value::Bool(true), Value::Bool(false)]
            } else {
                vec![Value::Bool(false)]
            }
        }
        _ => rdma::returns(method, args, dom),
    }
}

/// The operations a poll completes, which return an identifier: puts, gets and
/// (in RDMA^TSO_RMW) remote RMWs.
fn is_nic_op(method: usize) -> bool {
    method == PUT || method == GET || is_rmw(method)
}

/// Reads, puts, gets and polls leave their value open (one search for all of them).
pub fn symbolic_return(method: usize) -> bool {
    method == rdma::READ
}

/// What the App. F.1 extension fixes from the plain execution alone: the polls-from
/// relation, the identifiers, and whether the execution can be consistent at all.
pub struct Extras {
    /// pf (Def. 4.3 (1) / Def. F.1): the i-th poll of thread t towards n polls the
    /// i-th NIC write (aNLW_n or aNRW_n) of t towards n.
    pub pf: BitRel,
    /// [aNLW]; pf.
    pub nlw_pf: BitRel,
    /// No consistent execution: a poll with nothing (po-earlier) to poll, a
    /// returned identifier other than the fixed one, or an unsound `SetIsEmpty`.
    pub stuck: bool,
    /// Per event: the value a put, get or poll returns.
    ids: Vec<Option<Value>>,
}

impl Extras {
    pub fn new(k: &Kinds, g: &ExecGraph, me: usize) -> Extras {
        let n = g.len();
        let ne = g.events.len();
        let kind_of = |s: usize| g.subs[s].stamp.kind;
        let mut ids: Vec<Option<Value>> = vec![None; ne];
        let mut stuck = false;
        // identifiers: the k-th put/get of thread t is [t, k]
        for t in 0..g.world.threads.len() {
            let mut count = 0;
            for (ei, e) in g.events.iter().enumerate() {
                if e.lib == me && e.thread == t && is_nic_op(e.method) {
                    count += 1;
                    ids[ei] = Some(nic_id(t, count));
                }
            }
        }
        // pf: the i-th poll of thread t towards a node polls the i-th NIC write of t
        // towards it. NIC writes and polls of the library as (thread, node, subevent),
        // in subevent order.
        let mut pf = BitRel::new(n);
        let mut nlw_pf = BitRel::new(n);
        let (mut nic_writes, mut polls) = (Vec::new(), Vec::new());
        for (s, sub) in g.subs.iter().enumerate() {
            let e = &g.events[sub.event];
            if e.lib != me {
                continue;
            }
            // an operation's completion: a put's remote write, a get's or an RMW's
            // local write (an RMW's atomic write is not what a poll sees)
            if kind_of(s) == k.nlw || (kind_of(s) == k.nrw && !is_rmw(e.method)) {
                if let Some(node) = sub.stamp.node {
                    nic_writes.push((e.thread, node, s));
                }
            } else if e.method == POLL_OR_WAIT && kind_of(s) == k.wt {
                if let Some(node) = e.args.first().and_then(Value::as_node) {
                    polls.push((e.thread, node, s));
                }
            }
        }
        for (j, &(t, node, p)) in polls.iter().enumerate() {
            if t >= g.world.threads.len() || !g.world.nodes.contains(&node) {
                continue;
            }
            let i = polls[..j].iter().filter(|&&(t2, n2, _)| (t2, n2) == (t, node)).count();
            match nic_writes.iter().filter(|&&(t2, n2, _)| (t2, n2) == (t, node)).nth(i) {
                Some(&(_, _, w)) if g.po.contains(w, p) => {
                    pf.add(w, p);
                    if kind_of(w) == k.nlw {
                        nlw_pf.add(w, p);
                    }
                    ids[g.subs[p].event] = ids[g.subs[w].event].clone();
                }
                _ => stuck = true,
            }
        }
        // returned values fixed in the plain execution must be the fixed identifiers
        for (ei, e) in g.events.iter().enumerate() {
            if e.lib == me && (is_nic_op(e.method) || e.method == POLL_OR_WAIT) && !g.sym_ret[ei] {
                if let Some(id) = &ids[ei] {
                    if *id != e.ret {
                        stuck = true;
                    }
                }
            }
        }
        stuck |= !sets_sound(g, me);
        Extras { pf, nlw_pf, stuck, ids }
    }

    /// The value returned by a put, get or poll with a symbolic return.
    pub fn returned(&self, event: usize) -> Option<Value> {
        self.ids.get(event).cloned().flatten()
    }
}

/// Def. F.1, last bullet: a `SetIsEmpty(s)` returning true in thread t has, for
/// every earlier `SetAdd(s, v)` of t, a `SetRemove(s, v)` of t in between.
fn sets_sound(g: &ExecGraph, me: usize) -> bool {
    let ev = &g.events;
    let mine = |e: &Event| e.lib == me;
    ev.iter().filter(|e3| mine(e3) && e3.method == SET_IS_EMPTY && e3.ret == Value::Bool(true)).all(|e3| {
        ev.iter()
            .filter(|e1| {
                mine(e1)
                    && e1.method == SET_ADD
                    && e1.thread == e3.thread
                    && e1.index < e3.index
                    && e1.args.first() == e3.args.first()
            })
            .all(|e1| {
                ev.iter().any(|e2| {
                    mine(e2)
                        && e2.method == SET_REMOVE
                        && e2.thread == e3.thread
                        && e1.index < e2.index
                        && e2.index < e3.index
                        && e2.args == e1.args
                })
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mowgli_core::{LocInfo, ThreadInfo};

    fn world() -> World {
        let loc = |name: &str, node| LocInfo {
            name: name.into(),
            home: Some(node),
            init: Value::Int(0),
            size: None,
            implicit: false,
        };
        World {
            threads: vec![ThreadInfo { name: "T1".into(), node: 1 }],
            locs: vec![loc("x", 1), loc("z", 2), loc("u", 3), loc("s", 1)],
            nodes: vec![1, 2, 3],
            ..World::default()
        }
    }

    fn call(method: usize, args: Vec<Value>, ret: Value) -> CallRecord {
        CallRecord { lib: 0, method, args: args.into(), ret, origin: None }
    }

    /// The identifiers `returns_given_history` gives are those consistency keeps
    /// (EXT-poll-oldest-per-qp.litmus).
    #[test]
    fn history_gives_the_fixed_identifiers() {
        let w = world();
        let dom = ValueDomain::default();
        let (x, z, u, s) = (Value::Loc(0), Value::Loc(1), Value::Loc(2), Value::Loc(3));
        let mut h = Vec::new();
        let step = |h: &mut Vec<CallRecord>, m: usize, args: Vec<Value>| {
            let r = returns_given_history(&w, 0, 0, h, m, &args, &dom);
            h.push(call(m, args, r.first().cloned().unwrap_or(Value::Unit)));
            r
        };
        h.push(CallRecord { lib: 1, method: PUT, args: Vec::new().into(), ret: Value::Unit, origin: None }); // another library's
        assert_eq!(step(&mut h, PUT, vec![z.clone(), x.clone()]), vec![nic_id(0, 1)]);
        assert_eq!(step(&mut h, PUT, vec![u.clone(), x.clone()]), vec![nic_id(0, 2)]);
        assert_eq!(step(&mut h, GET, vec![x.clone(), z.clone()]), vec![nic_id(0, 3)]);
        assert_eq!(step(&mut h, POLL_OR_WAIT, vec![Value::Node(3)]), vec![nic_id(0, 2)]);
        assert_eq!(step(&mut h, POLL_OR_WAIT, vec![Value::Node(2)]), vec![nic_id(0, 1)]);
        assert_eq!(step(&mut h, POLL_OR_WAIT, vec![Value::Node(2)]), vec![nic_id(0, 3)]);
        assert!(step(&mut h, POLL_OR_WAIT, vec![Value::Node(2)]).is_empty(), "nothing left to poll");
        let both = vec![Value::Bool(true), Value::Bool(false)];
        assert_eq!(step(&mut h, SET_IS_EMPTY, vec![s.clone()]), both);
        step(&mut h, SET_ADD, vec![s.clone(), Value::Int(1)]);
        assert_eq!(step(&mut h, SET_IS_EMPTY, vec![s.clone()]), vec![Value::Bool(false)]);
        step(&mut h, SET_REMOVE, vec![s.clone(), Value::Int(1)]);
        assert_eq!(step(&mut h, SET_IS_EMPTY, vec![s.clone()]), both);
    }
}
