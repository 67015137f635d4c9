//! Generated refinement clients: every client program over the implemented library
//! up to user bounds (threads, nodes, calls per thread, locations, objects, values),
//! reduced by symmetry (renaming of threads with their nodes, of nodes, locations,
//! objects and values), smallest first, each rendered as a litmus text that
//! [`super::refine_client`] checks.
//!
//! # The clients
//!
//! A *labelled client* has `t ≤ T` threads, each with `1..=C` calls, placed on nodes
//! `1..=k` (`k ≤ N`, every node hosting a thread or a location the client uses),
//! over at most `L` locations of the implemented library (replicated for `sv`, placed
//! on a node for RDMA-style libraries, `size K` for `msw`), at most `B` barriers or
//! rings, and values `1..=V`. Calls are drawn per thread from the library's methods
//! ([`mowgli_core::MethodSig`]), with arguments by parameter kind:
//!
//! | kind | arguments |
//! |---|---|
//! | `Loc` | any location; the caller's own for the arguments that must be local (`Read`, `Write`, `CAS`, `TryRead`: the location; `Get`: the destination) |
//! | `Src` | a location of the caller's node, or a literal `1..=V` |
//! | `Val` | `1..=V`; for `msw` a `K`-tuple of those (`K = 2` by default); for `rbl` a message `[v]` |
//! | `Wid` | `_`, or a work identifier of the thread (`d1`, `e1`, … in thread T1) that a later `Wait` of the thread uses |
//! | `Node` / `Nodes` | a node / a non-empty set of nodes of the client |
//! | `Obj` | a barrier the thread participates in (`bal`), a ring it writes (`Submit`) or reads (`Receive`) |
//!
//! Every call that returns a value binds a fresh register (`r0`, `r1`, … per thread).
//! The generator's grammar keeps only clients worth checking: at least one call of
//! the implemented library and at least one register (a client without registers
//! has the single outcome `()` over both), a `Wait(d)` only when a call with `d` is
//! outstanding, a non-`_` work identifier only when a later `Wait` uses it (otherwise
//! it is `_`), work identifiers numbered in order of first use. Barriers: with one
//! barrier every thread participates; with more, each has a participant set of at
//! least two threads; every participant calls `BAR` on it the same number of times
//! (at least once) — the `bal` specification has no execution otherwise, so such a
//! client could only fail vacuously. Rings: a writer, every other thread a reader (a
//! one-thread client reads its own ring); the writer only submits, readers only
//! receive (the implementations diverge otherwise, as in the paper).
//!
//! `bal` clients have no registers of their own, so an *observer* library is added
//! (by default `rdmawait` for `bal`/`bal_all`, optional for the others with
//! `observer`): `Write(a, v)` and `r = Read(a)` on the caller's node and
//! `Put(a, v, _)` towards any node, over `observer_locs` locations `a`, `b`, ….
//!
//! # Symmetry reduction
//!
//! Two labelled clients are the same up to renaming when a bijection of threads (with
//! their roles in barriers and rings), of nodes, of the locations they use, of the
//! objects they use and of the values `1..=V` they use (0, the initial value, is
//! fixed) maps one to the other. The canonical form of a client is the smallest
//! encoding over every renaming of its used nodes, locations, objects and values onto
//! `1..` (all `k!·u!·o!·w!` of them), the threads being sorted by their encoding
//! (node, roles, calls), which accounts for every thread renaming at once. The
//! encoding is injective and decodes to the canonical client, which is what is
//! rendered and checked. Only the canonical clients are stored.
//!
//! Renaming is exact for the specifications (their semantics compares names only for
//! equality). For an implementation it assumes the implementation is invariant too:
//! it treats client values as opaque data and does not depend on which node or
//! thread has which number (beyond the order `for` visits a set). `symmetry: false`
//! checks every labelled client.
//!
//! # Order
//!
//! Clients come in size classes (total calls), smallest first; within a class in the
//! order of their canonical encodings ([`Generator::class`]). Renaming preserves
//! size, so each class is generated, reduced and checked on its own: the first
//! counterexample found is a smallest one, and a run that stops at it never
//! generates the larger classes.
//!
//! `mowgli refine` goes further: it splits each class into parts by threads, then
//! calls of the longest thread ([`Generator::parts`], [`Generator::class_part`]),
//! which renaming also preserves, and checks the parts in that order, each in the
//! order of its canonical encodings (which start with the number of nodes: fewest
//! nodes first). A part is generated only when its turn comes, so a counterexample
//! among the one-thread clients of a class costs none of the class's larger parts.
//! Its client names (`gen-LIB-INDEX`) number the clients in this check order.

use rustc_hash::FxHashSet as HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use mowgli_core::{Library, Param, StampOrder};
use mowgli_libs::registry;
use serde::Serialize;

use super::{refine_parsed_on, ClientReport, ClientVerdict};
use crate::lang::implementation::Implementation;

/// The bounds of a generated run.
#[derive(Clone, Debug, Serialize)]
pub struct Bounds {
    /// Threads (at most).
    pub threads: usize,
    /// Nodes (at most).
    pub nodes: usize,
    /// Calls per thread (at most; at least one).
    pub calls: usize,
    /// Calls in the whole client (at most; `None`: `threads × calls`).
    pub size: Option<usize>,
    /// Locations of the implemented library (at most).
    pub locs: usize,
    /// Barriers or rings (at most).
    pub objects: usize,
    /// Values `1..=values`.
    pub values: usize,
    /// Work identifiers per thread (besides `_`).
    pub wids: usize,
    /// The size of `msw` locations (`loc x @ n size K`).
    pub tuple_size: usize,
    /// An observer library (`rdmawait`) whose CPU reads, writes and puts the client may use.
    pub observer: Option<String>,
    /// Locations of the observer library (at most).
    pub observer_locs: usize,
    /// Symmetry reduction.
    pub symmetry: bool,
    /// Keep only clients with a register (refinement compares registers; the
    /// obligations, which look at executions, turn this off).
    pub need_register: bool,
    /// Rings: allow one-thread clients, whose single thread writes and reads its
    /// own ring.
    pub self_ring: bool,
    /// Rings: every writer/reader-set configuration, the writer among the readers
    /// included (off: the writer only writes and every other thread reads, as the
    /// paper's tests have it).
    pub self_reading_writers: bool,
    /// The observer's fence (`rdmawait`'s `Mfence`, `sv`'s `GF` over every node set).
    pub observer_fences: bool,
    /// Keep only programs with at least this many threads.
    pub min_threads: usize,
    /// Keep only programs whose threads interact: with two threads or more, the
    /// graph linking two threads when they name a common location (of the library
    /// or of the observer) that one of them writes is connected; a single thread
    /// writes some location. A call writes the location of its first argument when
    /// it is a `Write`, `CAS`, `Put`, `Get` (their destination) or `Bcast`.
    pub connected: bool,
    /// Only these methods of the library (all when `None`).
    pub methods: Option<Vec<String>>,
    /// RDMA-style libraries: remote operations go towards another node (the RDMA
    /// paper's "by n towards n̄"): the destination of a `Put`, the source of a
    /// `Get`, the node of a `Poll` or `Rfence` are not the caller's node; and
    /// (`rdmatso`) every `Poll(n)` polls an outstanding `Put`/`Get` of its thread
    /// towards n (otherwise it blocks and the program has no execution).
    pub remote_only: bool,
    /// Bind the identifiers `Put`, `Get` and `Poll` of `rdmatso` return (LOCO
    /// App. F.1) to registers.
    pub bind_ids: bool,
}

impl Bounds {
    /// Defaults for library `lib` with `threads`, `nodes`, `calls`.
    pub fn new(lib: &str, threads: usize, nodes: usize, calls: usize) -> Bounds {
        let bal = matches!(lib, "bal" | "bal_all");
        let rbl = matches!(lib, "rbl" | "rbl_weak" | "rbl_rfe");
        Bounds {
            threads,
            nodes,
            calls,
            size: None,
            locs: if bal || rbl {
                0
            } else if lib == "sv" {
                1
            } else {
                2
            },
            objects: 1,
            values: 1,
            wids: 1,
            tuple_size: 2,
            // rbl clients observe order through sv (the library I_RBL uses): its
            // reads, writes and GF (docs/impl-language.md#generated-clients)
            observer: if bal {
                Some("rdmawait".to_string())
            } else if rbl {
                Some("sv".to_string())
            } else {
                None
            },
            observer_locs: if rbl { 1 } else { 2 },
            symmetry: true,
            need_register: true,
            self_ring: true,
            self_reading_writers: true,
            observer_fences: true,
            min_threads: 1,
            connected: false,
            methods: None,
            remote_only: false,
            bind_ids: true,
        }
    }
}

impl Bounds {
    /// A library whose methods return nothing (e.g. a lock) gives clients without a
    /// register, which refinement cannot compare: unless an observer was chosen,
    /// observe them through rdmawait's CPU reads and writes.
    pub fn observe_if_silent(&mut self, lib: &str, order: &StampOrder) {
        if self.observer.is_some() || !self.need_register || lib == "rdmawait" {
            return;
        }
        if let Ok(l) = registry::library(lib, order) {
            if !l.methods().iter().any(|m| m.returns) {
                self.observer = Some("rdmawait".to_string());
            }
        }
    }
}

/// The libraries the generator knows how to write clients for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Replicated locations.
    Sv,
    /// Locations on a node (`rdmawait`, `rdmatso`).
    Rdma,
    /// Locations on a node holding tuples.
    Msw,
    Bal,
    Rbl,
}

/// Whether `lib` is a built-in the generator knows by name.
fn kind_of_builtin(lib: &str) -> bool {
    !mowgli_libs::registry::override_names().iter().any(|n| n == lib) || kind_of_named(lib)
}

fn kind_of_named(lib: &str) -> bool {
    matches!(
        lib,
        "sv" | "rdmawait"
            | "rdmatso"
            | "rdmatso_nopcie"
            | "rdmatso_f1"
            | "rdmasc"
            | "corerma"
            | "corerma_noir"
            | "corerma_vpi"
            | "msw"
            | "bal"
            | "bal_all"
            | "rbl"
            | "rbl_weak"
            | "rbl_rfe"
    )
}

fn kind_of(lib: &str) -> Option<Kind> {
    Some(match lib {
        "sv" => Kind::Sv,
        "rdmawait" | "rdmatso" | "rdmatso_nopcie" | "rdmatso_f1" | "rdmasc" => Kind::Rdma,
        // coreRMA's common fragment with RDMA^TSO (Flush(n) for Poll(n)): locations on a node
        "corerma" | "corerma_noir" | "corerma_vpi" => Kind::Rdma,
        "msw" => Kind::Msw,
        "bal" | "bal_all" => Kind::Bal,
        "rbl" | "rbl_weak" | "rbl_rfe" => Kind::Rbl,
        // a library from a file (`--lib`, docs/spec-language.md) of another name:
        // generated as an RDMA-style library (located arguments; with `--nodes 1`
        // every location is local to every thread)
        _ if mowgli_libs::registry::override_names().iter().any(|n| n == lib) => Kind::Rdma,
        _ => return None,
    })
}

/// Whether parameter `i` of method `m` of an RDMA-style library is the remote side
/// of a remote operation (a location or a node).
fn is_remote(m: &str, i: usize) -> bool {
    matches!((m, i), ("Put", 0) | ("Get", 1) | ("Poll" | "Rfence" | "Flush", 0))
}

/// Whether parameter `i` of method `m` of an RDMA-style library must be local
/// (the built-ins by name; a file library's `local loc` parameters are found by
/// [`probe_local`] and listed in `extra`).
fn must_be_local_in(extra: &[(&'static str, usize)], m: &str, i: usize) -> bool {
    matches!((m, i), ("Read" | "Write" | "CAS" | "TryRead", 0) | ("Get", 0) | ("Put", 1))
        || extra.iter().any(|&(n, j)| n == m && j == i)
}

/// The location parameters of a library's methods that must be on the caller's
/// node, found by asking the library: a call whose only location argument is on
/// the caller's node passes [`Library::check_call`] and the same call with the
/// location on another node does not.
fn probe_local(l: &dyn Library) -> Vec<(&'static str, usize)> {
    use mowgli_core::{LocInfo, ThreadInfo, Value, World};
    let world = |home: u32| World {
        threads: vec![ThreadInfo { name: "T1".into(), node: 1 }],
        locs: vec![LocInfo { name: "x".into(), home: Some(home), init: Value::Int(0), size: None, implicit: false }],
        nodes: vec![1, 2],
        ..World::default()
    };
    let (here, there) = (world(1), world(2));
    let mut out = Vec::new();
    for (mi, sig) in l.methods().iter().enumerate() {
        for (pi, p) in sig.params.iter().enumerate() {
            if !matches!(p, Param::Loc) {
                continue;
            }
            let args: Vec<Value> = sig
                .params
                .iter()
                .map(|q| match q {
                    Param::Loc | Param::Src => Value::Loc(0),
                    Param::Node => Value::Node(1),
                    _ => Value::Int(1),
                })
                .collect();
            if l.check_call(&here, 0, mi, &args).is_ok() && l.check_call(&there, 0, mi, &args).is_err() {
                out.push((sig.name, pi));
            }
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Arg {
    /// A location of the implemented library.
    Loc(u8),
    /// A location of the observer library.
    OLoc(u8),
    /// A literal standing for a local source location.
    Lit(u8),
    Val(u8),
    Tuple(Vec<u8>),
    /// 0 is `_`.
    Wid(u8),
    Node(u8),
    /// Bit n-1 for node n.
    Nodes(u32),
    Obj(u8),
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Call {
    /// 0: the implemented library, 1: the observer.
    lib: u8,
    method: u8,
    args: Vec<Arg>,
}

impl Clone for Call {
    fn clone(&self) -> Call {
        Call { lib: self.lib, method: self.method, args: self.args.clone() }
    }

    /// Keeps the buffer of the arguments (the generator refills its clients call by call).
    fn clone_from(&mut self, source: &Call) {
        (self.lib, self.method) = (source.lib, source.method);
        self.args.clone_from(&source.args);
    }
}

/// Roles of a thread in an object: bit 0 participant / writer, bit 1 reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ObjCfg {
    Barrier(u32),
    /// A ring: its writer and the set of its readers (bit i: thread i), which may
    /// include the writer (LOCO Def. 5.2 allows wthd(x) ∈ rthd(x)).
    Ring(u8, u32),
}

/// The observer methods the generator uses, by index in the observer's signature.
#[derive(Clone, Copy, Debug, Default)]
struct ObsIds {
    read: u8,
    write: u8,
    /// `rdmawait`'s `Put` (none for `sv`).
    put: Option<u8>,
    /// The fence: `rdmawait`'s `Mfence()` or `sv`'s `GF(nodes)`.
    fence: Option<u8>,
    /// Whether the fence takes a node set (`GF`).
    fence_nodes: bool,
    /// Replicated locations (`sv`): no home node.
    replicated: bool,
}

/// A client: nodes `1..=k`, threads (node, roles per object, calls), homes of the
/// locations (node numbers, 0 for replicated ones), homes of the observer locations.
#[derive(Clone, Debug)]
struct Client {
    k: u8,
    threads: Vec<(u8, Vec<u8>, Vec<Call>)>,
    homes: Vec<u8>,
    ohomes: Vec<u8>,
    /// Rings (objects 0..rings) and barriers (the others); a client has one kind only.
    rings: usize,
    barriers: usize,
}

/// A shape of clients: calls per thread, nodes `1..=k`, the node of each thread,
/// the homes of the locations and observer locations, the object roles.
struct Shape {
    lens: Vec<usize>,
    k: u8,
    tnodes: Vec<u8>,
    homes: Vec<u8>,
    ohomes: Vec<u8>,
    cfgs: Vec<ObjCfg>,
}

/// One client of a size class.
#[derive(Clone, Debug, Serialize)]
pub struct GenClient {
    /// Position in the order of the whole run (0-based).
    pub index: usize,
    /// Total calls.
    pub size: usize,
    pub name: String,
    pub text: String,
}

/// The clients of one size, after symmetry reduction.
pub struct SizeClass {
    pub size: usize,
    /// Labelled clients generated.
    pub generated: u64,
    /// The description line of its clients.
    description: String,
    /// Canonical encodings, in order.
    keys: Vec<Vec<u8>>,
}

impl SizeClass {
    pub fn distinct(&self) -> usize {
        self.keys.len()
    }

    /// The canonical encoding of client `i`.
    pub fn key(&self, i: usize) -> &[u8] {
        &self.keys[i]
    }

    /// The position of the client with canonical encoding `key` (see
    /// [`Generator::canonical_key`]), if the class has it.
    pub fn position(&self, key: &[u8]) -> Option<usize> {
        self.keys.binary_search_by(|k| k.as_slice().cmp(key)).ok()
    }
}

/// Generates the clients of a library up to bounds, one size class at a time.
pub struct Generator {
    lib: String,
    /// A file library's parameters that must be local ([`probe_local`]).
    local_params: Vec<(&'static str, usize)>,
    kind: Kind,
    sigs: Vec<mowgli_core::MethodSig>,
    observer: Option<(String, Vec<mowgli_core::MethodSig>)>,
    bounds: Bounds,
    /// Observer methods: Read, Write, Put.
    obs_ids: ObsIds,
}

/// Every client up to the bounds, in order (a convenience for small bounds and tests).
pub struct Generated {
    pub clients: Vec<GenClient>,
    /// Labelled clients generated, before symmetry reduction.
    pub generated: u64,
}

/// Generates every client of `lib` up to `bounds`, in order.
pub fn generate(lib: &str, order: &StampOrder, bounds: &Bounds) -> Result<Generated, String> {
    let g = Generator::new(lib, order, bounds)?;
    let mut clients = Vec::new();
    let mut generated = 0;
    for size in 1..=g.max_size() {
        let class = g.class(size);
        generated += class.generated;
        for i in 0..class.distinct() {
            let index = clients.len();
            let name = client_name(lib, index);
            clients.push(GenClient { index, size, text: g.render(&class, i, &name), name });
        }
    }
    Ok(Generated { clients, generated })
}

/// The name of the client of index `index` (`gen-LIB-INDEX`).
pub fn client_name(lib: &str, index: usize) -> String {
    format!("gen-{lib}-{index}")
}

/// Which clients a run checks: those whose index is `index − 1` modulo `count`.
mod canon;
mod enumerate;
mod render;
mod run;

pub use run::*;
