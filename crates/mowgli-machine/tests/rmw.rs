//! Remote RMWs (RCAS, RFAA) on the machines (issue 33 item 1; docs/design.md,
//! "Remote RMWs in the machines (issue 33 item 1)").
//!
//! Every program runs on both machines (six and three buffers), with and without
//! the PCIe guarantee, with the partial-order reduction on and off, under both
//! atomicities (HCA: atomic against the same NIC's RMWs only; Global: against
//! every access). The expected outcome sets are computed by hand from the
//! semantics (argued at each test); the run also checks that the reduction
//! changes no outcome set, that the two machines agree (Thm. 3.1 extended to
//! RMWs) and that no run deadlocks.
//!
//! The programs are over a test library, [`RmwLib`]: the eleven methods of
//! rdmatso (LOCO App. F.1) and `RCAS(x, y, e, v)`, `RFAA(x, y, k)`, declared here
//! because this crate does not depend on the catalogue's libraries (whose
//! `rdmatso_rmw` declares the same methods; its declarative model is checked
//! against these machines in `tests/rmw_model.rs`): the machine accepts it by what
//! it declares ([`Explorer::with_options`] with the PCIe flag given).

use std::collections::BTreeSet;
use std::time::Instant;

use mowgli_core::program::{CallRecord, Expr, Prog};
use mowgli_core::Library;
use mowgli_core::{
    Event, ExecGraph, LocInfo, MethodSig, Ret, Role, Stamp, StampTable, ThreadInfo, Value, ValueDomain, WitnessSearch,
    World,
};
use mowgli_machine::{Atomicity, Explorer, Machine, Options, Program};

// method numbers of `RmwLib` (the order of `mowgli_machine::trie::METHODS`)
const READ: usize = 0;
const WRITE: usize = 1;
const PUT: usize = 4;
const GET: usize = 5;
const POLL: usize = 6;
const RCAS: usize = 11;
const RFAA: usize = 12;

/// The eleven rdmatso methods plus `RCAS`, `RFAA`; only what the machine's
/// front end (the unfolding of programs into call trees) asks of a library.
struct RmwLib {
    methods: Vec<MethodSig>,
}

impl RmwLib {
    fn new() -> RmwLib {
        let m = MethodSig::new;
        let here = |written| Role::Loc { local: true, written, sized_like: None };
        let there = |written| Role::Loc { local: false, written, sized_like: None };
        let set = Role::Loc { local: false, written: false, sized_like: None };
        let methods = vec![
            m("Read", vec![here(false)], vec![Ret::ValueOf(0)]),
            m("Write", vec![here(true), Role::Val], vec![]),
            m("CAS", vec![here(true), Role::Expected, Role::Val], vec![Ret::ValueOf(0)]),
            m("Mfence", vec![], vec![]),
            m("Put", vec![there(true), Role::Src], vec![Ret::Id]),
            m("Get", vec![here(true), there(false)], vec![Ret::Id]),
            m("Poll", vec![Role::Node { completes: true }], vec![Ret::Id]),
            m("Rfence", vec![Role::Node { completes: false }], vec![]),
            m("SetAdd", vec![set, Role::Val], vec![]),
            m("SetRemove", vec![set, Role::Val], vec![]),
            m("SetIsEmpty", vec![set], vec![Ret::Bool]),
            m("RCAS", vec![here(true), there(true), Role::Expected, Role::Val], vec![Ret::Id]),
            m("RFAA", vec![here(true), there(true), Role::Val], vec![Ret::Id]),
        ];
        assert_eq!(methods.len(), mowgli_machine::trie::METHODS.len());
        RmwLib { methods }
    }
}

/// The identifier of the k-th NIC operation (k ≥ 1) of thread t, as rdmatso's.
fn nic_id(t: usize, k: usize) -> Value {
    Value::Tuple(vec![Value::Int(t as i64 + 1), Value::Int(k as i64)])
}

impl Library for RmwLib {
    fn name(&self) -> &str {
        "rdmatso_rmw_test"
    }
    fn methods(&self) -> &[MethodSig] {
        &self.methods
    }
    fn check_call(&self, _w: &World, _t: usize, _m: usize, _a: &[Value]) -> Result<(), String> {
        Ok(())
    }
    fn locs(&self, _e: &Event) -> Vec<usize> {
        vec![]
    }
    fn stamps(&self, _w: &World, _e: &Event) -> Vec<Stamp> {
        vec![]
    }
    fn returns(&self, w: &World, t: usize, method: usize, args: &[Value], dom: &ValueDomain) -> Vec<Value> {
        self.returns_after(w, t, 0, &[], method, args, dom)
    }
    /// As rdmatso's (App. F.1): the k-th NIC operation (put, get, RCAS, RFAA)
    /// of thread t returns `[t+1, k]`, a poll the identifier of the oldest
    /// unpolled one towards its node; a read any value of the domain.
    fn returns_after(
        &self,
        w: &World,
        t: usize,
        me: usize,
        history: &[CallRecord],
        method: usize,
        args: &[Value],
        dom: &ValueDomain,
    ) -> Vec<Value> {
        let earlier: Vec<&CallRecord> = history.iter().filter(|c| c.lib == me).collect();
        let node_of = |v: Option<&Value>| v.and_then(Value::as_loc).and_then(|l| w.loc_node(l));
        let nic: Vec<Option<u32>> = earlier
            .iter()
            .filter(|c| [PUT, GET, RCAS, RFAA].contains(&c.method))
            .map(|c| if c.method == PUT { node_of(c.args.first()) } else { node_of(c.args.get(1)) })
            .collect();
        match method {
            READ | 2 => dom.at(args[0].as_loc().unwrap()).to_vec(),
            PUT | GET | RCAS | RFAA => vec![nic_id(t, nic.len() + 1)],
            POLL => {
                let n = args.first().and_then(Value::as_node);
                let polled =
                    earlier.iter().filter(|c| c.method == POLL && c.args.first().and_then(Value::as_node) == n).count();
                let k = (0..nic.len()).filter(|&k| nic[k].is_some() && nic[k] == n).nth(polled);
                k.map(|k| nic_id(t, k + 1)).into_iter().collect()
            }
            10 => vec![Value::Bool(true), Value::Bool(false)],
            _ => vec![Value::Unit],
        }
    }
    fn search<'a>(&'a self, _g: &'a ExecGraph<'a>, _to: &'a StampTable, _me: usize) -> Box<dyn WitnessSearch + 'a> {
        unreachable!("the machine never asks a library for consistency witnesses")
    }
}

/// A command of a test thread.
#[derive(Clone, Copy)]
enum C {
    /// `r = Read(x)`, into the thread's next register.
    Rd(usize),
    Wr(usize, i64),
    /// `Put(dst, src)`.
    Put(usize, usize),
    /// `RCAS(x, y, e, v)`.
    Rcas(usize, usize, i64, i64),
    /// `RFAA(x, y, k)`.
    Rfaa(usize, usize, i64),
    Poll(u32),
}

struct Test {
    world: World,
    threads: Vec<(Prog, usize)>,
    domain: ValueDomain,
}

/// `locs`: name, node, initial value; `threads`: node and commands. Every
/// location's value domain is `vals` (reads offer each, the machine keeps the
/// one memory holds).
fn test(locs: &[(&str, u32, i64)], threads: &[(u32, Vec<C>)], vals: &[i64]) -> Test {
    let mut nodes: Vec<u32> = locs.iter().map(|l| l.1).chain(threads.iter().map(|t| t.0)).collect();
    nodes.sort();
    nodes.dedup();
    let world = World {
        threads: threads
            .iter()
            .enumerate()
            .map(|(i, t)| ThreadInfo { name: format!("T{}", i + 1), node: t.0 })
            .collect(),
        locs: locs
            .iter()
            .map(|(n, h, v)| LocInfo {
                name: n.to_string(),
                home: Some(*h),
                init: Value::Int(*v),
                size: None,
                implicit: false,
            })
            .collect(),
        nodes,
        ..World::default()
    };
    let call =
        |method, args: Vec<Value>| Prog::Call { lib: 0, method, args: args.into_iter().map(Expr::Val).collect() };
    let (l, i, nd) = (Value::Loc, Value::Int, Value::Node);
    let threads = threads
        .iter()
        .map(|(_, cs)| {
            let mut regs = 0;
            let steps = cs
                .iter()
                .map(|c| match *c {
                    C::Rd(x) => {
                        regs += 1;
                        (Some(regs - 1), call(READ, vec![l(x)]))
                    }
                    C::Wr(x, v) => (None, call(WRITE, vec![l(x), i(v)])),
                    C::Put(d, s) => (None, call(PUT, vec![l(d), l(s)])),
                    C::Rcas(x, y, e, v) => (None, call(RCAS, vec![l(x), l(y), i(e), i(v)])),
                    C::Rfaa(x, y, k) => (None, call(RFAA, vec![l(x), l(y), i(k)])),
                    C::Poll(n) => (None, call(POLL, vec![nd(n)])),
                })
                .collect();
            (Prog::seq(steps), regs)
        })
        .collect();
    let per_loc = locs.iter().map(|_| vals.iter().map(|&v| Value::Int(v)).collect()).collect();
    Test { world, threads, domain: ValueDomain::new(per_loc, vec![]) }
}

/// An outcome as text: the registers of each thread, then each location's final value.
fn show(t: &Test, o: &mowgli_machine::Outcome) -> String {
    let v = |v: &Value| match v {
        Value::Int(i) => i.to_string(),
        other => format!("{other:?}"),
    };
    let regs: Vec<String> = o
        .regs
        .iter()
        .map(|rs| rs.iter().map(|r| r.as_ref().map_or("-".into(), v)).collect::<Vec<_>>().join(","))
        .collect();
    let finals: Vec<String> =
        o.finals.iter().map(|((l, _), x)| format!("{}={}", t.world.locs[*l].name, v(x))).collect();
    format!("{} | {}", regs.join(" ; "), finals.join(" "))
}

/// The outcomes of `t` under `atomics`, checked the same on both machines, with
/// and without PCIe, with and without the reduction; no run deadlocks.
fn outcomes(name: &str, t: &Test, atomics: Atomicity) -> BTreeSet<String> {
    let libs: Vec<&dyn Library> = vec![&*LIB];
    let prog = Program { world: &t.world, libs: &libs, threads: &t.threads, domain: &t.domain, loop_bound: 2 };
    let mut all: Option<BTreeSet<String>> = None;
    for machine in [Machine::Concrete, Machine::Simplified] {
        for pcie in [true, false] {
            for reduce in [true, false] {
                let opts = Options { machine, pcie: Some(pcie), atomics, reduce, ..Options::default() };
                let start = Instant::now();
                let ex = Explorer::with_options(&prog, &opts).expect("the machine takes the program");
                assert_eq!(ex.atomics, atomics);
                let r = ex.explore(&opts).expect("explores");
                assert_eq!(r.deadlocks, 0, "{name}: {machine:?} pcie={pcie} reduce={reduce}: deadlocks");
                let got: BTreeSet<String> = r.outcomes.iter().map(|o| show(t, o)).collect();
                eprintln!(
                    "{name} {atomics:?} {machine:?} pcie={pcie} reduce={reduce}: {} outcomes, {} states, {:.1} ms",
                    got.len(),
                    r.states,
                    start.elapsed().as_secs_f64() * 1e3
                );
                match &all {
                    None => all = Some(got),
                    Some(a) => assert_eq!(
                        a, &got,
                        "{name} {atomics:?}: {machine:?} pcie={pcie} reduce={reduce} differs from the concrete machine with PCIe and the reduction"
                    ),
                }
            }
        }
    }
    all.unwrap_or_default()
}

static LIB: std::sync::LazyLock<RmwLib> = std::sync::LazyLock::new(RmwLib::new);

fn set(xs: &[&str]) -> BTreeSet<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

/// Test 1. Two RFAA(+1) on y (node 2) from T1 (node 1) and T2 (node 3); each
/// polls and reads its x. The second RMW to fulfil (A3) cannot read y while the
/// first one's write is pending in a wb_R of node 2 (the atomic unit), so it
/// reads the first's 1: no increment is lost, y = 2, the old values are {0, 1}.
/// Same under both atomicities (HCA already orders two RMWs of one NIC).
#[test]
fn two_faa_never_lose_an_increment() {
    let locs = [("y", 2, 0), ("a", 1, 0), ("b", 3, 0)];
    let (y, a, b) = (0, 1, 2);
    let t = test(
        &locs,
        &[(1, vec![C::Rfaa(a, y, 1), C::Poll(2), C::Rd(a)]), (3, vec![C::Rfaa(b, y, 1), C::Poll(2), C::Rd(b)])],
        &[0, 1, 2],
    );
    let want = set(&["0 ; 1 | y=2 a=0 b=1", "1 ; 0 | y=2 a=1 b=0"]);
    for at in [Atomicity::Hca, Atomicity::Global] {
        assert_eq!(outcomes("faa2", &t, at), want, "{at:?}");
    }
}

/// Test 2 (weak atomicity). T1 on node 2 (y's node) writes y := 5; T2 on
/// node 1 does RCAS(b, y, 0, 1), polls, reads b.
///
/// * The CPU write lands before A3: the RCAS reads 5 and fails: b = 5, y = 5.
/// * A3 reads 0 first:
///   - HCA: the RCAS's write y := 1 waits in wb_R; the CPU write may land
///     before it (then overwritten: y = 1, b = 0 — the weak outcome) or after
///     it (y = 5, b = 0).
///   - Global: y := 1 in the same step as the read; the CPU write lands after:
///     y = 5, b = 0. `y = 1, b = 0` is forbidden.
#[test]
fn cpu_write_between_read_and_write_of_an_rcas() {
    let locs = [("y", 2, 0), ("b", 1, 0)];
    let (y, b) = (0, 1);
    let t = test(&locs, &[(2, vec![C::Wr(y, 5)]), (1, vec![C::Rcas(b, y, 0, 1), C::Poll(2), C::Rd(b)])], &[0, 1, 5]);
    assert_eq!(outcomes("weak", &t, Atomicity::Hca), set(&[" ; 0 | y=1 b=0", " ; 0 | y=5 b=0", " ; 5 | y=5 b=5"]));
    assert_eq!(outcomes("weak", &t, Atomicity::Global), set(&[" ; 0 | y=5 b=0", " ; 5 | y=5 b=5"]));
}

/// Test 3. RCAS(a, y, 0, 1) from T1 (node 1) ‖ RCAS(b, y, 0, 1) from T2 (node
/// 3), y on node 2. Whichever fulfils first reads 0 and succeeds; the other
/// cannot read before that write has landed (HCA: the atomic unit; Global:
/// it is already in memory), reads 1 and fails. Exactly one old value is 0;
/// y = 1.
#[test]
fn two_rcas_exactly_one_succeeds() {
    let locs = [("y", 2, 0), ("a", 1, 7), ("b", 3, 7)];
    let (y, a, b) = (0, 1, 2);
    let t = test(
        &locs,
        &[(1, vec![C::Rcas(a, y, 0, 1), C::Poll(2), C::Rd(a)]), (3, vec![C::Rcas(b, y, 0, 1), C::Poll(2), C::Rd(b)])],
        &[0, 1, 7],
    );
    let want = set(&["0 ; 1 | y=1 a=0 b=1", "1 ; 0 | y=1 a=1 b=0"]);
    for at in [Atomicity::Hca, Atomicity::Global] {
        assert_eq!(outcomes("cas2", &t, at), want, "{at:?}");
    }
}

/// Test 4. A put racing an RMW. T1 (node 1) puts s = 5 into y (node 2) and
/// polls; T2 (node 3) does RFAA(b, y, 1), polls, reads b.
///
/// * The put's write lands before A3: b = 5, y = 6.
/// * A3 reads 0 first:
///   - HCA: the RMW's write y := 1 waits in T2's wb_R; the put's write (in
///     T1's wb_R, not marked atomic) may land before it — then it is lost:
///     y = 1, b = 0 — or after it: y = 5, b = 0.
///   - Global: y := 1 at once, the put lands after: y = 5, b = 0 (the put's
///     write is never lost).
#[test]
fn put_racing_an_rmw() {
    let locs = [("y", 2, 0), ("s", 1, 5), ("b", 3, 0)];
    let (y, s, b) = (0, 1, 2);
    let t = test(
        &locs,
        &[(1, vec![C::Put(y, s), C::Poll(2)]), (3, vec![C::Rfaa(b, y, 1), C::Poll(2), C::Rd(b)])],
        &[0, 1, 5, 6],
    );
    assert_eq!(
        outcomes("put", &t, Atomicity::Hca),
        set(&[" ; 0 | y=1 s=5 b=0", " ; 0 | y=5 s=5 b=0", " ; 5 | y=6 s=5 b=5"])
    );
    assert_eq!(outcomes("put", &t, Atomicity::Global), set(&[" ; 0 | y=5 s=5 b=0", " ; 5 | y=6 s=5 b=5"]));
}

/// Test 5. Loopback: the RMW's target is on the issuing thread's own node; its
/// queue pair is one of those towards that node, like any other.
///
/// * Tests 1 and 2 with the RMW issued from node 2 (y's node): the same
///   outcome sets (nothing in the semantics looks at where the issuer is).
/// * One thread on node 2: `Write(y, 5); RCAS(a, y, 5, 7); Poll(2); Read(a)`:
///   the RCAS leaves the store buffer after the write has reached memory (SbRc
///   needs it at the head), so A3 reads 5 and succeeds: a = 5, y = 7, under
///   both atomicities.
#[test]
fn loopback_rmw() {
    let locs = [("y", 2, 0), ("a", 2, 0), ("b", 3, 0)];
    let (y, a, b) = (0, 1, 2);
    let t = test(
        &locs,
        &[(2, vec![C::Rfaa(a, y, 1), C::Poll(2), C::Rd(a)]), (3, vec![C::Rfaa(b, y, 1), C::Poll(2), C::Rd(b)])],
        &[0, 1, 2],
    );
    let want = set(&["0 ; 1 | y=2 a=0 b=1", "1 ; 0 | y=2 a=1 b=0"]);
    for at in [Atomicity::Hca, Atomicity::Global] {
        assert_eq!(outcomes("loop-faa2", &t, at), want, "{at:?}");
    }

    let locs = [("y", 2, 0), ("b", 2, 0)];
    let (y, b) = (0, 1);
    let t = test(&locs, &[(2, vec![C::Wr(y, 5)]), (2, vec![C::Rcas(b, y, 0, 1), C::Poll(2), C::Rd(b)])], &[0, 1, 5]);
    assert_eq!(outcomes("loop-weak", &t, Atomicity::Hca), set(&[" ; 0 | y=1 b=0", " ; 0 | y=5 b=0", " ; 5 | y=5 b=5"]));
    assert_eq!(outcomes("loop-weak", &t, Atomicity::Global), set(&[" ; 0 | y=5 b=0", " ; 5 | y=5 b=5"]));

    let locs = [("y", 2, 0), ("a", 2, 0)];
    let (y, a) = (0, 1);
    let t = test(&locs, &[(2, vec![C::Wr(y, 5), C::Rcas(a, y, 5, 7), C::Poll(2), C::Rd(a)])], &[0, 5, 7]);
    for at in [Atomicity::Hca, Atomicity::Global] {
        assert_eq!(outcomes("loop-own", &t, at), set(&["5 | y=7 a=5"]), "{at:?}");
    }
}

/// Extra. One thread, two RFAA(+1) on y back to back on one queue pair, then
/// two polls. Both reach out_R in order, but A3, like G3 for gets (the paper
/// lets the remote NIC fulfil any entry of out_R), may fulfil either first;
/// the second one's read waits for the first one's write (with PCIe: wb_R
/// empty; without: the atomic unit), so no increment is lost: y = 2, and the
/// old values are 0, 1 in either order (the polls return the identifiers in
/// issue order, the values do not depend on them).
#[test]
fn two_faa_on_one_queue_pair() {
    let locs = [("y", 2, 0), ("a", 1, 9), ("b", 1, 9)];
    let (y, a, b) = (0, 1, 2);
    let t = test(
        &locs,
        &[(1, vec![C::Rfaa(a, y, 1), C::Rfaa(b, y, 1), C::Poll(2), C::Poll(2), C::Rd(a), C::Rd(b)])],
        &[0, 1, 2, 9],
    );
    for at in [Atomicity::Hca, Atomicity::Global] {
        assert_eq!(outcomes("faa-fifo", &t, at), set(&["0,1 | y=2 a=0 b=1", "1,0 | y=2 a=1 b=0"]), "{at:?}");
    }
}

/// The machine takes a library it does not know by name only through
/// `with_options` with the PCIe flag given; `Explorer::new` still refuses it.
#[test]
fn library_accepted_by_declaration_only_when_asked() {
    let t = test(&[("y", 1, 0)], &[(1, vec![C::Rd(0)])], &[0]);
    let libs: Vec<&dyn Library> = vec![&*LIB];
    let prog = Program { world: &t.world, libs: &libs, threads: &t.threads, domain: &t.domain, loop_bound: 2 };
    assert!(Explorer::new(&prog, Machine::Concrete, Some(true)).is_err());
    assert!(Explorer::with_options(&prog, &Options { pcie: None, ..Options::default() }).is_err());
    assert!(Explorer::with_options(&prog, &Options { pcie: Some(true), ..Options::default() }).is_ok());
    assert!(mowgli_machine::library_declares_machine_methods(&*LIB));
}

/// Extra. One thread (node 1): RFAA(b, y, 1) then Put(y, s) with s = 5, on one
/// queue pair towards node 2, then two polls and a read of b. The RMW is in
/// out_R when the put reaches in_R; A3 and the put's P2 race:
///
/// * A3 first: reads 0; its write (HCA: in wb_R ahead of the put's; Global: in
///   memory) is overwritten by the put's: b = 0, y = 5;
/// * P2 first: the put's write is in wb_R; A3 waits for it to land (PCIe) or
///   reads it through wb_R (HCA without PCIe) or waits for it (Global without
///   PCIe, no pending write to y): b = 5, y = 6.
///
/// The same under both atomicities (the RMW's write and the put's are in one
/// FIFO wb_R). This is the case the reduction must not cut (P2 is not eager
/// while an RMW is in out_R).
#[test]
fn rmw_then_put_on_one_queue_pair() {
    let locs = [("y", 2, 0), ("s", 1, 5), ("b", 1, 9)];
    let (y, s, b) = (0, 1, 2);
    let t =
        test(&locs, &[(1, vec![C::Rfaa(b, y, 1), C::Put(y, s), C::Poll(2), C::Poll(2), C::Rd(b)])], &[0, 1, 5, 6, 9]);
    for at in [Atomicity::Hca, Atomicity::Global] {
        assert_eq!(outcomes("rmw-put", &t, at), set(&["0 | y=5 s=5 b=0", "5 | y=6 s=5 b=5"]), "{at:?}");
    }
}
