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
//! client could only fail vacuously. Rings: every writer and every non-empty set of
//! readers, the writer among them or not ([`Bounds::self_reading_writers`]); a
//! thread submits only to a ring it writes and receives only from a ring it reads.
//! A put or get of a location onto itself is not generated.
//!
//! `bal` clients have no registers of their own, so an *observer* library is added
//! ([`Bounds::observe_by_default`]; `observer` chooses another): every method of
//! its declaration with arguments by the same roles, over `observer_locs`
//! locations `a`, `b`, …, its work identifiers `_` unless `observer_wids` (its
//! waiting methods are then left out). [`Generator::space`] says it in words.
//!
//! `tests/client_space.rs` checks this space against an independent, wider
//! brute-force enumeration (every split of the calls, every barrier participant
//! set, self-copies, misused work identifiers) up to renaming: equal at up to 5
//! calls for `rbl` and `bal`, 4 for `sv` with its observer.
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

use mowgli_core::{Library, Param, Role, StampOrder};
use mowgli_libs::catalogue::Catalogue;
use serde::Serialize;

use super::{refine_parsed_on, ClientCheck, ClientReport, ClientVerdict};
use crate::lang::implementation::Implementation;
use decl::{Decl, Objects};

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
    /// Work identifiers per thread of the observer's calls (besides `_`), which
    /// a later observer call waiting for them (RDMA^WAIT's `Wait`) may name;
    /// 0: the observer's work identifiers are all `_`, and its waiting methods
    /// are left out.
    #[serde(default)]
    pub observer_wids: usize,
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
    /// Methods the declaration marks as extensions of the core interface
    /// ([`mowgli_core::MethodSig::extension`]) are drawn too.
    pub extensions: bool,
    /// A compared value ([`mowgli_core::Role::Expected`], a CAS's expected value)
    /// is drawn from the initial value 0 too, besides `1..=values`.
    pub compare_initial: bool,
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
    /// Defaults for the built-in library `lib` with `threads`, `nodes`, `calls`
    /// ([`Bounds::in_catalogue`] with the built-ins only).
    pub fn new(lib: &str, threads: usize, nodes: usize, calls: usize) -> Bounds {
        Bounds::in_catalogue(lib, &Catalogue::builtins(), threads, nodes, calls)
    }

    /// Defaults for library `lib` of `cat` with `threads`, `nodes`, `calls`, read
    /// off its declaration ([`Bounds::for_library`]; the defaults of a library
    /// with located memory when `cat` has no `lib`).
    pub fn in_catalogue(lib: &str, cat: &Catalogue, threads: usize, nodes: usize, calls: usize) -> Bounds {
        let l = cat.library(lib, &mowgli_libs::orders::default_order()).ok();
        Bounds::of_decl(l.as_deref().map(Decl::of).as_ref(), threads, nodes, calls)
    }

    /// Defaults for library `l` with `threads`, `nodes`, `calls`: two locations
    /// (one when the memory is replicated, none when no method takes one); one
    /// barrier or ring; values `1..=1` (`1..=2` when locations hold tuples, so
    /// that a torn tuple shows); an observer for a library without locations,
    /// chosen by the objects its methods declare: barriers are observed through
    /// the catalogue's [`mowgli_libs::registry::BARRIER_OBSERVER`] (`rdmawait`),
    /// rings through [`mowgli_libs::registry::RING_OBSERVER`] (`sv`), as the
    /// paper's litmus tests of bal and rbl observe them.
    pub fn for_library(l: &dyn Library, threads: usize, nodes: usize, calls: usize) -> Bounds {
        Bounds::of_decl(Some(&Decl::of(l)), threads, nodes, calls)
    }

    fn of_decl(d: Option<&Decl>, threads: usize, nodes: usize, calls: usize) -> Bounds {
        let objects = d.and_then(|d| d.objects);
        Bounds {
            threads,
            nodes,
            calls,
            size: None,
            locs: match d {
                Some(d) if !d.has_locs => 0,
                Some(d) if !d.placed => 1,
                _ => 2,
            },
            objects: 1,
            values: if d.is_some_and(|d| d.tuples) { 2 } else { 1 },
            wids: 1,
            tuple_size: 2,
            observer: match objects {
                Some(Objects::Barriers) => Some(mowgli_libs::registry::BARRIER_OBSERVER.to_string()),
                Some(Objects::Rings) => Some(mowgli_libs::registry::RING_OBSERVER.to_string()),
                None => None,
            },
            observer_locs: if objects == Some(Objects::Rings) { 1 } else { 2 },
            observer_wids: 0,
            symmetry: true,
            need_register: true,
            self_ring: true,
            self_reading_writers: true,
            observer_fences: true,
            min_threads: 1,
            connected: false,
            methods: None,
            extensions: true,
            compare_initial: true,
            remote_only: false,
            bind_ids: true,
        }
    }

    /// Whether library `l` takes rings (read off its declaration).
    pub fn takes_rings(l: &dyn Library) -> bool {
        Decl::of(l).objects == Some(Objects::Rings)
    }

    /// The default observer of a generated run of `imp`: unless one was chosen,
    /// clients observe through the first library the implementation uses that
    /// has locations (its reads can see what the implementation's memory
    /// accesses did: fence bugs of a method that returns, a library whose
    /// methods return nothing).
    pub fn observe_by_default(&mut self, imp: &Implementation, order: &StampOrder) {
        if self.observer.is_some() || !self.need_register {
            return;
        }
        for u in &imp.uses {
            if let Ok(l) = imp.catalogue.library(u, order) {
                if Decl::of(l.as_ref()).has_locs && *u != imp.implements {
                    self.observer = Some(u.clone());
                    // a library with registers of its own is observed through one
                    // location (the run stays within the default's budget)
                    if self.locs > 0 {
                        self.observer_locs = 1;
                    }
                    return;
                }
            }
        }
    }
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
    /// The generator's deadline passed before the class was whole: `keys` holds
    /// only part of it.
    pub cut: bool,
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
    /// The implemented library's declaration.
    decl: Decl,
    sigs: Vec<mowgli_core::MethodSig>,
    /// The observer library: its name and methods, and its declaration.
    observer: Option<(String, Vec<mowgli_core::MethodSig>)>,
    odecl: Option<Decl>,
    bounds: Bounds,
    /// Past this instant a class stops growing, cut ([`SizeClass::cut`]): a
    /// run's time limit, kept inside the generation of a large class too.
    pub deadline: Option<std::time::Instant>,
}

/// Every client up to the bounds, in order (a convenience for small bounds and tests).
pub struct Generated {
    pub clients: Vec<GenClient>,
    /// Labelled clients generated, before symmetry reduction.
    pub generated: u64,
}

/// Generates every client of the built-in library `lib` up to `bounds`, in order.
pub fn generate(lib: &str, order: &StampOrder, bounds: &Bounds) -> Result<Generated, String> {
    generate_in(lib, order, &Catalogue::builtins(), bounds)
}

/// Generates every client of library `lib` of `cat` up to `bounds`, in order.
pub fn generate_in(lib: &str, order: &StampOrder, cat: &Catalogue, bounds: &Bounds) -> Result<Generated, String> {
    let g = Generator::in_catalogue(lib, order, cat, bounds)?;
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
mod decl;
mod enumerate;
mod render;
mod run;

pub use render::{observer_location, observer_wid, DrawnCall};
pub use run::*;
