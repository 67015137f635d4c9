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
//! order of their canonical encodings. Renaming preserves size, so each class is
//! generated, reduced and checked on its own: the first counterexample found is a
//! smallest one, and a run that stops at it never generates the larger classes.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use mowgli_core::{Library, Param, StampOrder};
use mowgli_libs::registry;
use serde::Serialize;

use super::{refine_client, ClientReport, ClientVerdict};
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

fn kind_of(lib: &str) -> Option<Kind> {
    Some(match lib {
        "sv" => Kind::Sv,
        "rdmawait" | "rdmatso" | "rdmatso_nopcie" | "rdmatso_f1" | "rdmasc" => Kind::Rdma,
        "msw" => Kind::Msw,
        "bal" | "bal_all" => Kind::Bal,
        "rbl" | "rbl_weak" | "rbl_rfe" => Kind::Rbl,
        _ => return None,
    })
}

/// Whether parameter `i` of method `m` of an RDMA-style library is the remote side
/// of a remote operation (a location or a node).
fn is_remote(m: &str, i: usize) -> bool {
    matches!((m, i), ("Put", 0) | ("Get", 1) | ("Poll" | "Rfence", 0))
}

/// Whether parameter `i` of method `m` of an RDMA-style library must be local.
fn must_be_local(m: &str, i: usize) -> bool {
    matches!((m, i), ("Read" | "Write" | "CAS" | "TryRead", 0) | ("Get", 0) | ("Put", 1))
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

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Call {
    /// 0: the implemented library, 1: the observer.
    lib: u8,
    method: u8,
    args: Vec<Arg>,
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
    kind: Kind,
    sigs: Vec<mowgli_core::MethodSig>,
    observer: Option<(String, Vec<mowgli_core::MethodSig>)>,
    bounds: Bounds,
    /// Observer methods: Read, Write, Put.
    obs_ids: ObsIds,
}

fn perms(n: usize) -> Vec<Vec<u8>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in perms(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, (n - 1) as u8);
            out.push(q);
        }
    }
    out.sort();
    out
}

/// Renaming maps (old index → new index, `u8::MAX` if unused).
struct Renaming<'a> {
    node: &'a [u8],
    loc: &'a [u8],
    oloc: &'a [u8],
    obj: &'a [u8],
    val: &'a [u8],
}

const TAG_LOC: u8 = 1;
const TAG_OLOC: u8 = 2;
const TAG_LIT: u8 = 3;
const TAG_VAL: u8 = 4;
const TAG_TUPLE: u8 = 5;
const TAG_WID: u8 = 6;
const TAG_NODE: u8 = 7;
const TAG_NODES: u8 = 8;
const TAG_OBJ: u8 = 9;

fn encode_call(c: &Call, r: &Renaming, out: &mut Vec<u8>) {
    out.push(c.lib);
    out.push(c.method);
    for a in &c.args {
        match a {
            Arg::Loc(l) => out.extend([TAG_LOC, r.loc[*l as usize]]),
            Arg::OLoc(l) => out.extend([TAG_OLOC, r.oloc[*l as usize]]),
            Arg::Lit(v) => out.extend([TAG_LIT, r.val[*v as usize]]),
            Arg::Val(v) => out.extend([TAG_VAL, r.val[*v as usize]]),
            Arg::Tuple(vs) => {
                out.extend([TAG_TUPLE, vs.len() as u8]);
                out.extend(vs.iter().map(|v| r.val[*v as usize]));
            }
            Arg::Wid(w) => out.extend([TAG_WID, *w]),
            Arg::Node(n) => out.extend([TAG_NODE, r.node[*n as usize]]),
            Arg::Nodes(m) => {
                let mut nm = 0u32;
                for n in 1..=32u32 {
                    if m & (1 << (n - 1)) != 0 {
                        nm |= 1 << (r.node[n as usize] - 1);
                    }
                }
                out.push(TAG_NODES);
                out.extend(nm.to_le_bytes());
            }
            Arg::Obj(o) => out.extend([TAG_OBJ, r.obj[*o as usize]]),
        }
    }
}

/// The encoding of `c` under renaming `r`: header `[k, t, locs, olocs, objs, rings]`,
/// the thread blocks sorted (each `[len_hi, len_lo, node, roles…, ncalls, calls…]`),
/// then the homes of the locations and of the observer locations in their new order.
fn encode(c: &Client, r: &Renaming, used: &Used, sort: bool) -> Vec<u8> {
    let nobj = used.objs.len();
    let mut blocks: Vec<Vec<u8>> = c
        .threads
        .iter()
        .map(|(node, roles, calls)| {
            let mut b = vec![r.node[*node as usize]];
            let mut rs = vec![0u8; nobj];
            for &o in &used.objs {
                rs[r.obj[o as usize] as usize] = roles[o as usize];
            }
            b.extend(rs);
            b.push(calls.len() as u8);
            for call in calls {
                encode_call(call, r, &mut b);
            }
            b
        })
        .collect();
    if sort {
        blocks.sort();
    }
    let nrings = used.objs.iter().filter(|&&o| (o as usize) < c.rings).count();
    let mut out = vec![c.k, c.threads.len() as u8, used.locs.len() as u8, used.olocs.len() as u8, nobj as u8];
    out.push(nrings as u8);
    for b in blocks {
        out.extend((b.len() as u16).to_be_bytes());
        out.extend(b);
    }
    let mut homes = vec![0u8; used.locs.len()];
    for &l in &used.locs {
        homes[r.loc[l as usize] as usize] =
            if c.homes[l as usize] == 0 { 0 } else { r.node[c.homes[l as usize] as usize] };
    }
    out.extend(homes);
    let mut ohomes = vec![0u8; used.olocs.len()];
    for &l in &used.olocs {
        ohomes[r.oloc[l as usize] as usize] =
            if c.ohomes[l as usize] == 0 { 0 } else { r.node[c.ohomes[l as usize] as usize] };
    }
    out.extend(ohomes);
    out
}

/// The locations, objects and values a client uses (sorted).
#[derive(Default)]
struct Used {
    locs: Vec<u8>,
    olocs: Vec<u8>,
    objs: Vec<u8>,
    vals: Vec<u8>,
}

fn used_of(c: &Client) -> Used {
    let mut u = Used::default();
    let add = |v: &mut Vec<u8>, x: u8| {
        if !v.contains(&x) {
            v.push(x)
        }
    };
    for (_, _, calls) in &c.threads {
        for call in calls {
            for a in &call.args {
                match a {
                    Arg::Loc(l) => add(&mut u.locs, *l),
                    Arg::OLoc(l) => add(&mut u.olocs, *l),
                    Arg::Lit(v) | Arg::Val(v) => add(&mut u.vals, *v),
                    Arg::Tuple(vs) => vs.iter().for_each(|v| add(&mut u.vals, *v)),
                    Arg::Obj(o) => add(&mut u.objs, *o),
                    _ => {}
                }
            }
        }
    }
    u.locs.sort();
    u.olocs.sort();
    u.objs.sort();
    u.vals.sort();
    u
}

/// Maps the used items (sorted) by permutation `p` onto `0..` (or `1..` for values).
fn renaming_map(size: usize, used: &[u8], p: &[u8], base: u8) -> Vec<u8> {
    let mut m = vec![u8::MAX; size];
    for (i, &x) in used.iter().enumerate() {
        m[x as usize] = p[i] + base;
    }
    m
}

/// The canonical encoding of a client (the smallest over all renamings).
fn canonical(c: &Client, bounds: &Bounds, used: &Used, pcache: &[Vec<Vec<u8>>]) -> Vec<u8> {
    let ident = |n: usize| -> Vec<u8> { (0..n as u8).collect() };
    if !bounds.symmetry {
        // every location, object and value keeps its name (unused ones are not declared)
        let nobj = c.rings + c.barriers;
        let full = Used {
            locs: ident(c.homes.len()),
            olocs: ident(c.ohomes.len()),
            objs: ident(nobj),
            vals: (1..=bounds.values as u8).collect(),
        };
        let node: Vec<u8> = (0..=c.k).collect();
        let mut val = vec![0u8];
        val.extend(1..=bounds.values as u8);
        let r = Renaming {
            node: &node,
            loc: &ident(c.homes.len()),
            oloc: &ident(c.ohomes.len()),
            obj: &ident(nobj),
            val: &val,
        };
        return encode(c, &r, &full, false);
    }
    let k = c.k as usize;
    let node_maps: Vec<Vec<u8>> = pcache[k]
        .iter()
        .map(|p| {
            let mut m = vec![0u8];
            m.extend(p.iter().map(|x| x + 1));
            m
        })
        .collect();
    let loc_maps: Vec<Vec<u8>> =
        pcache[used.locs.len()].iter().map(|p| renaming_map(bounds.locs, &used.locs, p, 0)).collect();
    let oloc_maps: Vec<Vec<u8>> =
        pcache[used.olocs.len()].iter().map(|p| renaming_map(bounds.observer_locs, &used.olocs, p, 0)).collect();
    // objects of different kinds are never mixed: barriers and rings are not both generated
    let obj_maps: Vec<Vec<u8>> =
        pcache[used.objs.len()].iter().map(|p| renaming_map(bounds.objects, &used.objs, p, 0)).collect();
    let val_maps: Vec<Vec<u8>> =
        pcache[used.vals.len()].iter().map(|p| renaming_map(bounds.values + 1, &used.vals, p, 1)).collect();
    let mut best: Option<Vec<u8>> = None;
    for nm in &node_maps {
        for lm in &loc_maps {
            for om in &oloc_maps {
                for bm in &obj_maps {
                    for vm in &val_maps {
                        let r = Renaming { node: nm, loc: lm, oloc: om, obj: bm, val: vm };
                        let e = encode(c, &r, used, true);
                        if best.as_ref().is_none_or(|b| e < *b) {
                            best = Some(e);
                        }
                    }
                }
            }
        }
    }
    best.expect("one renaming")
}

/// Decodes a canonical encoding (locations, objects and values numbered from 0/1).
fn decode(key: &[u8], sigs: &[mowgli_core::MethodSig], osigs: &[mowgli_core::MethodSig]) -> Client {
    let (k, t, nl, nol, nobj, nrings) =
        (key[0], key[1] as usize, key[2] as usize, key[3] as usize, key[4] as usize, key[5] as usize);
    let mut pos = 6;
    let mut threads = Vec::new();
    for _ in 0..t {
        let len = u16::from_be_bytes([key[pos], key[pos + 1]]) as usize;
        pos += 2;
        let b = &key[pos..pos + len];
        pos += len;
        let node = b[0];
        let roles = b[1..1 + nobj].to_vec();
        let ncalls = b[1 + nobj] as usize;
        let mut q = 2 + nobj;
        let mut calls = Vec::new();
        for _ in 0..ncalls {
            let (lib, method) = (b[q], b[q + 1]);
            q += 2;
            let sig = if lib == 0 { &sigs[method as usize] } else { &osigs[method as usize] };
            let mut args = Vec::new();
            for _ in &sig.params {
                let tag = b[q];
                q += 1;
                let a = match tag {
                    TAG_LOC => Arg::Loc(b[q]),
                    TAG_OLOC => Arg::OLoc(b[q]),
                    TAG_LIT => Arg::Lit(b[q]),
                    TAG_VAL => Arg::Val(b[q]),
                    TAG_TUPLE => {
                        let n = b[q] as usize;
                        let vs = b[q + 1..q + 1 + n].to_vec();
                        q += n;
                        Arg::Tuple(vs)
                    }
                    TAG_WID => Arg::Wid(b[q]),
                    TAG_NODE => Arg::Node(b[q]),
                    TAG_NODES => {
                        let m = u32::from_le_bytes([b[q], b[q + 1], b[q + 2], b[q + 3]]);
                        q += 3;
                        Arg::Nodes(m)
                    }
                    TAG_OBJ => Arg::Obj(b[q]),
                    _ => unreachable!("bad tag {tag}"),
                };
                q += 1;
                args.push(a);
            }
            calls.push(Call { lib, method, args });
        }
        threads.push((node, roles, calls));
    }
    let homes = key[pos..pos + nl].to_vec();
    let ohomes = key[pos + nl..pos + nl + nol].to_vec();
    Client { k, threads, homes, ohomes, rings: nrings, barriers: nobj - nrings }
}

/// The names of locations: the implemented library's, then the observer's.
const LOC_NAMES: [&str; 6] = ["x", "y", "w", "u", "v", "s"];
const OLOC_NAMES: [&str; 6] = ["a", "b", "c", "e", "f", "g"];
const WID_LETTERS: [&str; 6] = ["d", "e", "f", "g", "h", "i"];

fn loc_name(i: u8) -> String {
    LOC_NAMES.get(i as usize).map(|s| s.to_string()).unwrap_or(format!("x{i}"))
}
fn oloc_name(i: u8) -> String {
    OLOC_NAMES.get(i as usize).map(|s| s.to_string()).unwrap_or(format!("a{i}"))
}
fn obj_name(c: &Client, o: u8) -> String {
    let ring = (o as usize) < c.rings;
    let n = c.rings + c.barriers;
    match (ring, n) {
        (true, 1) => "q".into(),
        (false, 1) => "z".into(),
        (true, _) => format!("q{}", o + 1),
        (false, _) => format!("z{}", o + 1),
    }
}

fn nodes_text(m: u32) -> String {
    let ns: Vec<String> = (1..=32u32).filter(|n| m & (1 << (n - 1)) != 0).map(|n| n.to_string()).collect();
    format!("{{{}}}", ns.join(", "))
}

/// Whether a method writes the location of its first argument (`Write`, `CAS`,
/// `Put`/`Get` at their destination, `sv`'s `Bcast` to the other copies).
fn writes_first(m: &str) -> bool {
    matches!(m, "Write" | "CAS" | "Put" | "Get" | "Bcast")
}

impl Generator {
    /// A generator for the library `lib` (a litmus library name) under `order`.
    pub fn new(lib: &str, order: &StampOrder, bounds: &Bounds) -> Result<Generator, String> {
        let kind = kind_of(lib).ok_or_else(|| format!("cannot generate clients for library `{lib}`"))?;
        let l: Box<dyn Library> = registry::library(lib, order).map_err(|e| e.to_string())?;
        let sigs = l.methods().to_vec();
        let observer = match &bounds.observer {
            Some(o) if o != "rdmawait" && o != "sv" => {
                return Err(format!("the observer library must be `rdmawait` or `sv` (not `{o}`)"));
            }
            Some(o) if o == lib => None,
            Some(o) => Some((o.clone(), registry::library(o, order).map_err(|e| e.to_string())?.methods().to_vec())),
            None => None,
        };
        let mut obs_ids = ObsIds::default();
        if let Some((o, os)) = &observer {
            let id = |n: &str| os.iter().position(|m| m.name == n).map(|i| i as u8);
            let sv = o == "sv";
            let (Some(read), Some(write)) = (id("Read"), id("Write")) else {
                return Err(format!("the observer library `{o}` has no Read and Write"));
            };
            obs_ids = ObsIds {
                read,
                write,
                put: if sv { None } else { id("Put") },
                fence: if sv { id("GF") } else { id("Mfence") },
                fence_nodes: sv,
                replicated: sv,
            };
        }
        let b = bounds;
        if b.threads == 0 || b.nodes == 0 || b.calls == 0 {
            return Err("threads, nodes and calls must be at least 1".into());
        }
        if b.threads > 8 || b.nodes > 8 || b.calls > 16 || b.values > 8 || b.locs > 6 || b.observer_locs > 6 {
            return Err("bounds too large: at most 8 threads, 8 nodes, 16 calls, 8 values, 6 locations".into());
        }
        if b.objects > 4 || b.wids > 6 || b.tuple_size > 8 {
            return Err("bounds too large: at most 4 objects, 6 work identifiers, tuples of 8".into());
        }
        if matches!(kind, Kind::Bal | Kind::Rbl) && b.objects == 0 {
            return Err(format!("`{lib}` clients need at least one object (`--objects`)"));
        }
        if matches!(kind, Kind::Sv | Kind::Rdma | Kind::Msw) && b.locs == 0 && observer.is_none() && b.need_register {
            // sv's GF alone has no register: nothing to observe
            return Err(format!("`{lib}` clients need at least one location (`--locs`)"));
        }
        if b.values == 0 {
            return Err("values must be at least 1".into());
        }
        Ok(Generator { lib: lib.to_string(), kind, sigs, observer, bounds: bounds.clone(), obs_ids })
    }

    /// The largest size (total calls).
    pub fn max_size(&self) -> usize {
        self.bounds.threads * self.bounds.calls
    }

    pub fn library(&self) -> &str {
        &self.lib
    }

    fn placed(&self) -> bool {
        matches!(self.kind, Kind::Rdma | Kind::Msw)
    }

    fn nlocs(&self) -> usize {
        if matches!(self.kind, Kind::Bal | Kind::Rbl) {
            0
        } else {
            self.bounds.locs
        }
    }

    fn nolocs(&self) -> usize {
        if self.observer.is_some() {
            self.bounds.observer_locs
        } else {
            0
        }
    }

    fn nobjs(&self) -> usize {
        if matches!(self.kind, Kind::Bal | Kind::Rbl) {
            self.bounds.objects
        } else {
            0
        }
    }

    /// Object configurations for `t` threads (the first is the default, used for
    /// unused objects).
    fn obj_options(&self, t: usize) -> Vec<ObjCfg> {
        match self.kind {
            Kind::Bal => {
                let all = (1u32 << t) - 1;
                if self.bounds.objects == 1 {
                    vec![ObjCfg::Barrier(all)]
                } else {
                    let min = t.min(2) as u32;
                    let mut v = vec![ObjCfg::Barrier(all)];
                    v.extend((1..all).filter(|m| m.count_ones() >= min).map(ObjCfg::Barrier));
                    v
                }
            }
            Kind::Rbl => {
                // the writer and every other thread reading first (the one
                // configuration of the generator before self-reading writers)
                let all = (1u32 << t) - 1;
                let mut v = Vec::new();
                for w in 0..t as u8 {
                    let others = if t == 1 { all } else { all & !(1 << w) };
                    v.push(ObjCfg::Ring(w, others));
                    if self.bounds.self_reading_writers {
                        v.extend((1..=all).filter(|&m| m != others).map(|m| ObjCfg::Ring(w, m)));
                    }
                }
                v
            }
            _ => vec![],
        }
    }

    fn roles(&self, cfgs: &[ObjCfg], i: usize) -> Vec<u8> {
        cfgs.iter()
            .map(|c| match c {
                ObjCfg::Barrier(m) => (m >> i & 1) as u8,
                ObjCfg::Ring(w, readers) => (*w as usize == i) as u8 | ((readers >> i & 1) as u8) << 1,
            })
            .collect()
    }

    fn values(&self) -> impl Iterator<Item = u8> {
        1..=self.bounds.values as u8
    }

    fn tuples(&self, n: usize) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = vec![vec![]];
        for _ in 0..n {
            out = out.into_iter().flat_map(|p| self.values().map(move |v| [p.clone(), vec![v]].concat())).collect();
        }
        out
    }

    /// The calls thread `i` may make (work identifiers not yet filtered).
    fn alphabet(&self, k: u8, node: u8, roles: &[u8], homes: &[u8], ohomes: &[u8]) -> Vec<Call> {
        let mut out = Vec::new();
        let node_sets: Vec<u32> = (1..(1u32 << k)).collect();
        for (mi, sig) in self.sigs.iter().enumerate() {
            if sig.name.starts_with('#')
                || self.bounds.methods.as_ref().is_some_and(|ms| !ms.iter().any(|m| m == sig.name))
            {
                continue;
            }
            let remote_only = self.bounds.remote_only && self.placed();
            let mut choices: Vec<Vec<Arg>> = vec![vec![]];
            for (pi, p) in sig.params.iter().enumerate() {
                let opts: Vec<Arg> = match p {
                    Param::Loc => (0..self.nlocs() as u8)
                        .filter(|&l| !self.placed() || !must_be_local(sig.name, pi) || homes[l as usize] == node)
                        .filter(|&l| !remote_only || !is_remote(sig.name, pi) || homes[l as usize] != node)
                        .map(Arg::Loc)
                        .collect(),
                    Param::Src => {
                        let mut v: Vec<Arg> =
                            (0..self.nlocs() as u8).filter(|&l| homes[l as usize] == node).map(Arg::Loc).collect();
                        v.extend(self.values().map(Arg::Lit));
                        v
                    }
                    Param::Val => match self.kind {
                        Kind::Msw => self.tuples(self.bounds.tuple_size).into_iter().map(Arg::Tuple).collect(),
                        Kind::Rbl => self.tuples(1).into_iter().map(Arg::Tuple).collect(),
                        _ => self.values().map(Arg::Val).collect(),
                    },
                    Param::Wid if sig.name == "Wait" => (1..=self.bounds.wids as u8).map(Arg::Wid).collect(),
                    Param::Wid => (0..=self.bounds.wids as u8).map(Arg::Wid).collect(),
                    Param::Node => (1..=k)
                        .filter(|&n| !remote_only || !is_remote(sig.name, pi) || n != node)
                        .map(Arg::Node)
                        .collect(),
                    Param::Nodes => node_sets.iter().map(|&m| Arg::Nodes(m)).collect(),
                    Param::Obj => (0..roles.len() as u8)
                        .filter(|&o| {
                            let r = roles[o as usize];
                            match (self.kind, sig.name) {
                                (Kind::Bal, _) => r & 1 != 0,
                                (Kind::Rbl, "Submit") => r & 1 != 0,
                                (Kind::Rbl, _) => r & 2 != 0,
                                _ => false,
                            }
                        })
                        .map(Arg::Obj)
                        .collect(),
                };
                choices = choices
                    .into_iter()
                    .flat_map(|c| opts.iter().map(move |o| [c.clone(), vec![o.clone()]].concat()))
                    .collect();
            }
            // a put or get of a location onto itself copies nothing: not generated
            let self_copy = |args: &[Arg]| {
                let locs: Vec<&Arg> = args.iter().filter(|a| matches!(a, Arg::Loc(_))).collect();
                locs.len() == 2 && locs[0] == locs[1]
            };
            out.extend(choices.into_iter().filter(|a| !self_copy(a)).map(|args| Call {
                lib: 0,
                method: mi as u8,
                args,
            }));
        }
        if self.observer.is_some() {
            let ObsIds { read, write, put, fence, fence_nodes, replicated } = self.obs_ids;
            for o in 0..self.nolocs() as u8 {
                if replicated || ohomes[o as usize] == node {
                    out.extend(self.values().map(|v| Call {
                        lib: 1,
                        method: write,
                        args: vec![Arg::OLoc(o), Arg::Val(v)],
                    }));
                    out.push(Call { lib: 1, method: read, args: vec![Arg::OLoc(o)] });
                }
            }
            if let Some(put) = put {
                for o in 0..self.nolocs() as u8 {
                    out.extend(self.values().map(|v| Call {
                        lib: 1,
                        method: put,
                        args: vec![Arg::OLoc(o), Arg::Lit(v), Arg::Wid(0)],
                    }));
                }
            }
            match fence {
                Some(f) if self.bounds.observer_fences && fence_nodes => {
                    out.extend(node_sets.iter().map(|&m| Call { lib: 1, method: f, args: vec![Arg::Nodes(m)] }))
                }
                Some(f) if self.bounds.observer_fences => out.push(Call { lib: 1, method: f, args: vec![] }),
                _ => {}
            }
        }
        out
    }

    fn is_wait(&self, c: &Call) -> bool {
        c.lib == 0 && self.sigs[c.method as usize].name == "Wait"
    }

    /// Every sequence of `len` calls of `alpha` that follows the work-identifier grammar.
    fn sequences(&self, alpha: &[Call], len: usize) -> Vec<Vec<Call>> {
        let mut out = Vec::new();
        let mut cur = Vec::new();
        self.seq_rec(alpha, len, &mut cur, 0, 0, &mut out);
        out
    }

    /// `intro`: work identifiers introduced (1..=intro); `pending`: bit w set when a call
    /// with w is not yet waited for.
    fn seq_rec(
        &self,
        alpha: &[Call],
        len: usize,
        cur: &mut Vec<Call>,
        intro: u8,
        pending: u32,
        out: &mut Vec<Vec<Call>>,
    ) {
        if cur.len() == len {
            if pending == 0 {
                out.push(cur.clone());
            }
            return;
        }
        // a pending identifier needs a later Wait: one call per pending identifier at least
        if (pending.count_ones() as usize) > len - cur.len() {
            return;
        }
        for c in alpha {
            let (mut intro2, mut pending2) = (intro, pending);
            let mut ok = true;
            let wait = self.is_wait(c);
            for a in &c.args {
                if let Arg::Wid(w) = a {
                    let w = *w;
                    if w == 0 {
                        continue;
                    }
                    if wait {
                        if pending2 & (1 << w) == 0 {
                            ok = false;
                        }
                        pending2 &= !(1 << w);
                    } else {
                        if w > intro2 + 1 {
                            ok = false;
                        }
                        intro2 = intro2.max(w);
                        pending2 |= 1 << w;
                    }
                }
            }
            if !ok {
                continue;
            }
            cur.push(c.clone());
            self.seq_rec(alpha, len, cur, intro2, pending2, out);
            cur.pop();
        }
    }

    fn returns(&self, c: &Call) -> bool {
        if c.lib == 0 {
            let sig = &self.sigs[c.method as usize];
            sig.returns && (self.bounds.bind_ids || !matches!(sig.name, "Put" | "Get" | "Poll"))
        } else {
            c.method == self.obs_ids.read
        }
    }

    /// The permutations of `0..n` for every `n` a renaming of a client may need.
    fn perm_cache(&self) -> Vec<Vec<Vec<u8>>> {
        let b = &self.bounds;
        let n = [b.nodes, self.nlocs(), self.nolocs(), self.nobjs(), b.values].into_iter().max().unwrap_or(0);
        (0..=n).map(perms).collect()
    }

    /// Whether every `Poll(n)` of `c` polls an outstanding `Put` or `Get` of its
    /// thread towards node n (a poll with nothing to poll blocks: the program has no
    /// execution).
    fn polls_pending(&self, c: &Client) -> bool {
        c.threads.iter().all(|(_, _, calls)| {
            let mut pending = [0usize; 33];
            calls.iter().filter(|x| x.lib == 0).all(|x| {
                let name = self.sigs[x.method as usize].name;
                let remote = match (name, x.args.as_slice()) {
                    ("Put", [Arg::Loc(l), ..]) | ("Get", [_, Arg::Loc(l), ..]) => Some(self.home_of(c, *l)),
                    _ => None,
                };
                match (name, x.args.as_slice(), remote) {
                    (_, _, Some(n)) => {
                        pending[n as usize] += 1;
                        true
                    }
                    ("Poll", [Arg::Node(n)], _) if pending[*n as usize] > 0 => {
                        pending[*n as usize] -= 1;
                        true
                    }
                    ("Poll", _, _) => false,
                    _ => true,
                }
            })
        })
    }

    fn home_of(&self, c: &Client, l: u8) -> u8 {
        c.homes[l as usize]
    }

    /// Whether the threads of `c` interact (see [`Bounds::connected`]).
    fn connected(&self, c: &Client) -> bool {
        let osigs: &[mowgli_core::MethodSig] = self.observer.as_ref().map(|o| o.1.as_slice()).unwrap_or(&[]);
        // per thread: the locations it names and those it writes (bit l: location l
        // of the library, bit 16 + l: location l of the observer)
        let uses: Vec<(u32, u32)> = c
            .threads
            .iter()
            .map(|(_, _, calls)| {
                let (mut named, mut written) = (0u32, 0u32);
                for call in calls {
                    let name = if call.lib == 0 {
                        self.sigs[call.method as usize].name
                    } else {
                        osigs[call.method as usize].name
                    };
                    for (i, a) in call.args.iter().enumerate() {
                        let bit = match a {
                            Arg::Loc(l) => 1 << l,
                            Arg::OLoc(l) => 1 << (16 + l),
                            _ => continue,
                        };
                        named |= bit;
                        if i == 0 && writes_first(name) {
                            written |= bit;
                        }
                    }
                }
                (named, written)
            })
            .collect();
        if uses.len() == 1 {
            return uses[0].1 != 0;
        }
        let linked = |a: (u32, u32), b: (u32, u32)| (a.0 & b.1) | (a.1 & b.0) != 0;
        let mut reached = 1u32;
        loop {
            let before = reached;
            for i in 0..uses.len() {
                if reached & (1 << i) == 0
                    && (0..uses.len()).any(|j| reached & (1 << j) != 0 && linked(uses[i], uses[j]))
                {
                    reached |= 1 << i;
                }
            }
            if reached == before {
                return reached.count_ones() as usize == uses.len();
            }
        }
    }

    /// Whether a labelled client is one the generator keeps (see the module doc).
    fn valid(&self, c: &Client, used: &Used, cfgs: &[ObjCfg]) -> bool {
        // a call of the implemented library and a register
        let calls = || c.threads.iter().flat_map(|t| t.2.iter());
        if !calls().any(|x| x.lib == 0) || (self.bounds.need_register && !calls().any(|x| self.returns(x))) {
            return false;
        }
        if self.kind == Kind::Rbl && !self.bounds.self_ring && c.threads.len() == 1 {
            return false;
        }
        if c.threads.len() < self.bounds.min_threads || (self.bounds.connected && !self.connected(c)) {
            return false;
        }
        if self.bounds.remote_only && self.kind == Kind::Rdma && !self.polls_pending(c) {
            return false;
        }
        // nodes 1..=k all present; unused locations and objects in their default placement
        let mut present = 0u32;
        for (n, _, _) in &c.threads {
            present |= 1 << (n - 1);
        }
        for (l, &h) in c.homes.iter().enumerate() {
            if used.locs.contains(&(l as u8)) {
                if h > 0 {
                    present |= 1 << (h - 1);
                }
            } else if h > 1 {
                return false;
            }
        }
        for (l, &h) in c.ohomes.iter().enumerate() {
            if used.olocs.contains(&(l as u8)) {
                if h > 0 {
                    present |= 1 << (h - 1);
                }
            } else if h > 1 {
                return false;
            }
        }
        if present != (1u32 << c.k) - 1 {
            return false;
        }
        let defaults = self.obj_options(c.threads.len());
        for (o, cfg) in cfgs.iter().enumerate() {
            if !used.objs.contains(&(o as u8)) {
                if *cfg != defaults[0] {
                    return false;
                }
                continue;
            }
            if let ObjCfg::Barrier(m) = cfg {
                // every participant calls BAR(o) the same number of times
                let counts: Vec<usize> = (0..c.threads.len())
                    .filter(|i| m >> i & 1 != 0)
                    .map(|i| c.threads[i].2.iter().filter(|x| x.lib == 0 && x.args == [Arg::Obj(o as u8)]).count())
                    .collect();
                if counts.iter().any(|&n| n != counts[0]) {
                    return false;
                }
            }
        }
        true
    }

    /// Generates size class `size`: every labelled client with `size` calls in all,
    /// reduced to one per renaming class.
    pub fn class(&self, size: usize) -> SizeClass {
        self.class_par(size, 1)
    }

    /// [`Generator::class`] on `jobs` worker threads: the shapes of the class
    /// (threads, calls per thread, nodes, placements, object roles) are shared out,
    /// each worker reduces its clients into a set of its own, and the sets are merged.
    /// The result does not depend on `jobs`.
    pub fn class_par(&self, size: usize, jobs: usize) -> SizeClass {
        let shapes: Vec<(Shape, Vec<Vec<Vec<Call>>>)> = self
            .shapes(size)
            .into_iter()
            .map(|sh| {
                let per_thread = self.per_thread(&sh);
                (sh, per_thread)
            })
            .collect();
        // work items: a shape with a range of its first thread's call sequences,
        // about `CHUNK` labelled clients each
        const CHUNK: usize = 20_000;
        let mut items: Vec<(usize, usize, usize)> = Vec::new();
        for (si, (_, pt)) in shapes.iter().enumerate() {
            let rest: usize = pt[1..].iter().map(|v| v.len()).product::<usize>().max(1);
            let step = (CHUNK / rest).max(1);
            let n = pt[0].len();
            let mut lo = 0;
            while lo < n {
                items.push((si, lo, (lo + step).min(n)));
                lo += step;
            }
        }
        let pcache = self.perm_cache();
        let next = AtomicUsize::new(0);
        let jobs = jobs.max(1).min(items.len().max(1));
        let parts: Mutex<Vec<(HashSet<Vec<u8>>, u64)>> = Mutex::new(Vec::new());
        std::thread::scope(|sc| {
            for _ in 0..jobs {
                sc.spawn(|| {
                    let mut keys: HashSet<Vec<u8>> = HashSet::new();
                    let mut generated = 0u64;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(si, lo, hi)) = items.get(i) else { break };
                        let (shape, pt) = &shapes[si];
                        self.shape_clients(shape, pt, lo..hi, &pcache, &mut keys, &mut generated);
                    }
                    parts.lock().expect("parts").push((keys, generated));
                });
            }
        });
        let mut parts = parts.into_inner().expect("parts");
        parts.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        let mut it = parts.into_iter();
        let (mut keys, mut generated) = it.next().unwrap_or_default();
        for (k, g) in it {
            keys.extend(k);
            generated += g;
        }
        let mut keys: Vec<Vec<u8>> = keys.into_iter().collect();
        keys.sort();
        SizeClass { size, generated, keys }
    }

    /// The call sequences of each thread of `shape`.
    fn per_thread(&self, shape: &Shape) -> Vec<Vec<Vec<Call>>> {
        let t = shape.lens.len();
        (0..t)
            .map(|i| {
                let roles = self.roles(&shape.cfgs, i);
                let alpha = self.alphabet(shape.k, shape.tnodes[i], &roles, &shape.homes, &shape.ohomes);
                self.sequences(&alpha, shape.lens[i])
            })
            .collect()
    }

    /// The shapes of size class `size`.
    fn shapes(&self, size: usize) -> Vec<Shape> {
        let b = &self.bounds;
        let (nl, nol, nobj) = (self.nlocs(), self.nolocs(), self.nobjs());
        let mut out = Vec::new();
        for t in b.min_threads.max(1)..=b.threads.min(size) {
            for lens in compositions(size, t, b.calls) {
                for k in 1..=b.nodes as u8 {
                    for tnodes in tuples_of(t, k) {
                        let home_opts = if self.placed() { tuples_of(nl, k) } else { vec![vec![0; nl]] };
                        for homes in &home_opts {
                            let ohome_opts =
                                if self.obs_ids.replicated { vec![vec![0; nol]] } else { tuples_of(nol, k) };
                            for ohomes in ohome_opts {
                                // a node must at least be able to host something
                                let mut cover = 0u32;
                                tnodes
                                    .iter()
                                    .chain(homes.iter())
                                    .chain(ohomes.iter())
                                    .filter(|&&n| n > 0)
                                    .for_each(|&n| cover |= 1 << (n - 1));
                                if cover != (1u32 << k) - 1 {
                                    continue;
                                }
                                for cfgs in cfg_tuples(&self.obj_options(t), nobj) {
                                    out.push(Shape {
                                        lens: lens.clone(),
                                        k,
                                        tnodes: tnodes.clone(),
                                        homes: homes.clone(),
                                        ohomes: ohomes.clone(),
                                        cfgs,
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// Every valid labelled client of `shape` whose first thread runs one of the
    /// sequences `first` of `per_thread[0]`, reduced into `keys`.
    fn shape_clients(
        &self,
        shape: &Shape,
        per_thread: &[Vec<Vec<Call>>],
        first: std::ops::Range<usize>,
        pcache: &[Vec<Vec<u8>>],
        keys: &mut HashSet<Vec<u8>>,
        generated: &mut u64,
    ) {
        let t = shape.lens.len();
        let nobj = self.nobjs();
        let Shape { k, tnodes, homes, ohomes, cfgs, .. } = shape;
        let mut lists: Vec<&[Vec<Call>]> = per_thread.iter().map(|v| v.as_slice()).collect();
        lists[0] = &per_thread[0][first];
        let roles: Vec<Vec<u8>> = (0..t).map(|i| self.roles(cfgs, i)).collect();
        let rings = if self.kind == Kind::Rbl { nobj } else { 0 };
        for_product(&lists, &mut |seqs| {
            let client = Client {
                k: *k,
                threads: (0..t).map(|i| (tnodes[i], roles[i].clone(), seqs[i].clone())).collect(),
                homes: homes.clone(),
                ohomes: ohomes.clone(),
                rings,
                barriers: nobj - rings,
            };
            let used = used_of(&client);
            if !self.valid(&client, &used, cfgs) {
                return;
            }
            *generated += 1;
            keys.insert(canonical(&client, &self.bounds, &used, pcache));
        });
    }

    /// The canonical encoding of a straight-line litmus program over this
    /// generator's library (no observer, barriers or rings), the same as that of the
    /// generated client it renames to: threads in declaration order, nodes renumbered
    /// `1..` in increasing order over the nodes of threads and of used locations, used
    /// locations in declaration order, work identifiers that no later `Wait` uses
    /// made `_`. Register and location names do not matter. An error when the
    /// program is not of that form or exceeds the bounds (locations, values `1..=V`).
    /// The grammar's other filters (e.g. [`Bounds::connected`]) are not applied.
    pub fn canonical_key(&self, text: &str) -> Result<Vec<u8>, String> {
        use crate::lang::grammar::{Ex, Rhs, Stmt};
        if !matches!(self.kind, Kind::Sv | Kind::Rdma | Kind::Msw) || self.observer.is_some() {
            return Err(format!("canonical keys of `{}` programs are not supported", self.lib));
        }
        let ast = crate::lang::syntax::parse(text).map_err(|e| format!("{}:{}: {}", e.line, e.col, e.msg))?;
        if ast.libraries.len() != 1 || ast.libraries[0].text != self.lib {
            return Err(format!("expected a program over `{}` alone", self.lib));
        }
        // the calls of each thread: (method, arguments)
        let mut bodies: Vec<Vec<(usize, Vec<Ex>)>> = Vec::new();
        for (tname, _) in &ast.threads {
            let mut calls = Vec::new();
            for (bname, stmts) in ast.bodies.iter().filter(|(b, _)| b.text == tname.text) {
                for st in stmts {
                    let call = match st {
                        Stmt::Call(c) => c,
                        Stmt::Assign { rhs: Rhs::Call(c), .. } | Stmt::Let { rhs: Rhs::Call(c), .. } => c,
                        _ => return Err(format!("thread {}: not a straight-line list of calls", bname.text)),
                    };
                    let m = self
                        .sigs
                        .iter()
                        .position(|m| m.name == call.method.text)
                        .ok_or_else(|| format!("unknown method `{}`", call.method.text))?;
                    calls.push((m, call.args.clone()));
                }
            }
            bodies.push(calls);
        }
        let var = |e: &Ex| match e {
            Ex::Var(n) => Some(n.text.clone()),
            _ => None,
        };
        // used locations, in declaration order
        let mut used_names: Vec<&crate::lang::syntax::LocDecl> = Vec::new();
        for d in &ast.locs {
            let is_used = bodies.iter().flatten().any(|(m, args)| {
                args.iter().zip(&self.sigs[*m].params).any(|(a, p)| {
                    matches!(p, Param::Loc | Param::Src) && var(a).as_deref() == Some(d.name.text.as_str())
                })
            });
            if is_used {
                if d.init.is_some() {
                    return Err(format!("location `{}` has an initial value", d.name.text));
                }
                used_names.push(d);
            }
        }
        if used_names.len() > self.nlocs() {
            return Err(format!("{} locations used, more than the bound {}", used_names.len(), self.nlocs()));
        }
        let mut nodes: Vec<i64> = ast.threads.iter().map(|t| t.1).collect();
        nodes.extend(used_names.iter().filter_map(|d| d.node));
        nodes.sort();
        nodes.dedup();
        if nodes.len() > self.bounds.nodes {
            return Err(format!("{} nodes, more than the bound {}", nodes.len(), self.bounds.nodes));
        }
        let node_of = |n: i64| -> Result<u8, String> {
            nodes
                .iter()
                .position(|&m| m == n)
                .map(|i| i as u8 + 1)
                .ok_or_else(|| format!("node {n} has no thread or location"))
        };
        let loc_of = |e: &Ex| -> Option<u8> {
            let n = var(e)?;
            used_names.iter().position(|d| d.name.text == n).map(|i| i as u8)
        };
        let value = |v: i64| -> Result<u8, String> {
            if v >= 1 && v <= self.bounds.values as i64 {
                Ok(v as u8)
            } else {
                Err(format!("value {v} outside 1..={}", self.bounds.values))
            }
        };
        let int = |e: &Ex| match e {
            Ex::Int(v, _) => Some(*v),
            _ => None,
        };
        let mut threads = Vec::new();
        for (ti, (_, tnode)) in ast.threads.iter().enumerate() {
            let calls = &bodies[ti];
            // work identifiers a later Wait uses, numbered by first use
            let mut wid_names: Vec<String> = Vec::new();
            for (ci, (m, args)) in calls.iter().enumerate() {
                if self.sigs[*m].name == "Wait" {
                    continue;
                }
                for (a, p) in args.iter().zip(&self.sigs[*m].params) {
                    let Some(n) = var(a).filter(|_| *p == Param::Wid && var(a).as_deref() != Some("_")) else {
                        continue;
                    };
                    let waited = calls[ci + 1..].iter().any(|(m2, a2)| {
                        self.sigs[*m2].name == "Wait" && a2.iter().any(|x| var(x).as_deref() == Some(&n))
                    });
                    if waited && !wid_names.contains(&n) {
                        wid_names.push(n);
                    }
                }
            }
            if wid_names.len() > self.bounds.wids {
                return Err(format!(
                    "{} work identifiers in a thread, more than the bound {}",
                    wid_names.len(),
                    self.bounds.wids
                ));
            }
            let mut out = Vec::new();
            for (m, args) in calls {
                let sig = &self.sigs[*m];
                if args.len() != sig.params.len() {
                    return Err(format!("`{}` takes {} arguments", sig.name, sig.params.len()));
                }
                let mut cargs = Vec::new();
                for (a, p) in args.iter().zip(&sig.params) {
                    let bad = || format!("unexpected argument of `{}`", sig.name);
                    cargs.push(match p {
                        Param::Loc => Arg::Loc(loc_of(a).ok_or_else(bad)?),
                        Param::Src => match (loc_of(a), int(a)) {
                            (Some(l), _) => Arg::Loc(l),
                            (None, Some(v)) => Arg::Lit(value(v)?),
                            _ => return Err(bad()),
                        },
                        Param::Val => match a {
                            Ex::Int(v, _) if self.kind != Kind::Msw => Arg::Val(value(*v)?),
                            Ex::Tuple(vs, _) if self.kind == Kind::Msw => {
                                let vs: Result<Vec<u8>, String> =
                                    vs.iter().map(|v| int(v).ok_or_else(bad).and_then(value)).collect();
                                Arg::Tuple(vs?)
                            }
                            _ => return Err(bad()),
                        },
                        Param::Wid => {
                            let n = var(a).ok_or_else(bad)?;
                            Arg::Wid(wid_names.iter().position(|w| *w == n).map(|i| i as u8 + 1).unwrap_or(0))
                        }
                        Param::Node => Arg::Node(node_of(int(a).ok_or_else(bad)?)?),
                        Param::Nodes => match a {
                            Ex::Set(ns, _) => {
                                let mut mask = 0u32;
                                for n in ns {
                                    mask |= 1 << (node_of(int(n).ok_or_else(bad)?)? - 1);
                                }
                                Arg::Nodes(mask)
                            }
                            _ => return Err(bad()),
                        },
                        Param::Obj => return Err(bad()),
                    });
                }
                out.push(Call { lib: 0, method: *m as u8, args: cargs });
            }
            threads.push((node_of(*tnode)?, Vec::new(), out));
        }
        let mut homes = vec![if self.placed() { 1 } else { 0 }; self.nlocs()];
        for (i, d) in used_names.iter().enumerate() {
            homes[i] = match (d.node, self.placed()) {
                (Some(n), true) => node_of(n)?,
                (None, false) => 0,
                _ => return Err(format!("location `{}` is not placed as `{}` expects", d.name.text, self.lib)),
            };
        }
        let client = Client { k: nodes.len() as u8, threads, homes, ohomes: Vec::new(), rings: 0, barriers: 0 };
        let used = used_of(&client);
        let pcache = self.perm_cache();
        Ok(canonical(&client, &self.bounds, &used, &pcache))
    }

    /// The litmus text of client `i` of a class, named `name`.
    pub fn render(&self, class: &SizeClass, i: usize, name: &str) -> String {
        let b = &self.bounds;
        let size = class.size;
        let description = format!(
            "generated client for {} ({} call{}; bounds: {} threads, {} nodes, {} calls per thread)",
            self.lib,
            size,
            if size == 1 { "" } else { "s" },
            b.threads,
            b.nodes,
            b.calls
        );
        self.render_with(class, i, name, &description)
    }

    /// The litmus text of client `i` of a class, named `name`, with description
    /// `description` (no expectations).
    pub fn render_with(&self, class: &SizeClass, i: usize, name: &str, description: &str) -> String {
        let osigs: &[mowgli_core::MethodSig] = self.observer.as_ref().map(|o| o.1.as_slice()).unwrap_or(&[]);
        let c = decode(&class.keys[i], &self.sigs, osigs);
        self.render_client(&c, name, description)
    }

    fn render_client(&self, c: &Client, name: &str, description: &str) -> String {
        let b = &self.bounds;
        let osigs: &[mowgli_core::MethodSig] = self.observer.as_ref().map(|o| o.1.as_slice()).unwrap_or(&[]);
        let mut s = format!("test {name}\n");
        s += &format!("\"{}\"\n", description.replace('"', "'"));
        let libs = match &self.observer {
            Some((o, _)) if c.threads.iter().any(|t| t.2.iter().any(|x| x.lib == 1)) => {
                format!("{}, {o}", self.lib)
            }
            _ => self.lib.clone(),
        };
        s += &format!("libraries {libs}\n");
        let tname = |i: usize| format!("T{}", i + 1);
        for (i, (n, _, _)) in c.threads.iter().enumerate() {
            s += &format!("thread {} @ {n}\n", tname(i));
        }
        let used = used_of(c);
        for (l, &h) in c.homes.iter().enumerate() {
            if !used.locs.contains(&(l as u8)) {
                continue;
            }
            let name = loc_name(l as u8);
            s += &match (h, self.kind) {
                (0, _) => format!("loc {name}\n"),
                (_, Kind::Msw) => format!("loc {name} @ {h} size {}\n", b.tuple_size),
                _ => format!("loc {name} @ {h}\n"),
            };
        }
        for (l, &h) in c.ohomes.iter().enumerate() {
            if !used.olocs.contains(&(l as u8)) {
                continue;
            }
            s += &if h == 0 {
                format!("loc {}\n", oloc_name(l as u8))
            } else {
                format!("loc {} @ {h}\n", oloc_name(l as u8))
            };
        }
        let nobj = c.rings + c.barriers;
        for o in 0..nobj {
            if !used.objs.contains(&(o as u8)) {
                continue;
            }
            let name = obj_name(c, o as u8);
            let with = |bit: u8| -> Vec<String> {
                c.threads.iter().enumerate().filter(|(_, t)| t.1[o] & bit != 0).map(|(i, _)| tname(i)).collect()
            };
            if o < c.rings {
                s += &format!("ring {name} : writer {} readers {}\n", with(1).join(", "), with(2).join(", "));
            } else {
                s += &format!("barrier {name} : {}\n", with(1).join(", "));
            }
        }
        let clash = |name: &str, lib: u8| -> bool {
            let other: &[mowgli_core::MethodSig] = if lib == 0 { osigs } else { &self.sigs };
            other.iter().any(|m| m.name == name)
        };
        for (i, (_, _, calls)) in c.threads.iter().enumerate() {
            s += &format!("{}:\n", tname(i));
            let mut reg = 0;
            for call in calls {
                let (sig, lname) = if call.lib == 0 {
                    (&self.sigs[call.method as usize], self.lib.as_str())
                } else {
                    (&osigs[call.method as usize], self.observer.as_ref().map(|o| o.0.as_str()).unwrap_or("?"))
                };
                let args: Vec<String> = call
                    .args
                    .iter()
                    .map(|a| match a {
                        Arg::Loc(l) => loc_name(*l),
                        Arg::OLoc(l) => oloc_name(*l),
                        Arg::Lit(v) | Arg::Val(v) => v.to_string(),
                        Arg::Tuple(vs) => {
                            format!("[{}]", vs.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
                        }
                        Arg::Wid(0) => "_".into(),
                        Arg::Wid(w) => format!("{}{}", WID_LETTERS[*w as usize - 1], i + 1),
                        Arg::Node(n) => n.to_string(),
                        Arg::Nodes(m) => nodes_text(*m),
                        Arg::Obj(o) => obj_name(c, *o),
                    })
                    .collect();
                let lhs = if self.returns(call) {
                    reg += 1;
                    format!("r{} = ", reg - 1)
                } else {
                    String::new()
                };
                let q = if clash(sig.name, call.lib) { format!("{lname}.") } else { String::new() };
                s += &format!("  {lhs}{q}{}({})\n", sig.name, args.join(", "));
            }
        }
        s
    }
}

/// Compositions of `n` into `t` parts in `1..=max`.
fn compositions(n: usize, t: usize, max: usize) -> Vec<Vec<usize>> {
    if t == 0 {
        return if n == 0 { vec![vec![]] } else { vec![] };
    }
    let mut out = Vec::new();
    for first in 1..=max.min(n) {
        for rest in compositions(n - first, t - 1, max) {
            out.push([vec![first], rest].concat());
        }
    }
    out
}

/// Every tuple of `n` nodes among `1..=k`.
fn tuples_of(n: usize, k: u8) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![vec![]];
    for _ in 0..n {
        out = out.into_iter().flat_map(|p| (1..=k).map(move |v| [p.clone(), vec![v]].concat())).collect();
    }
    out
}

fn cfg_tuples(opts: &[ObjCfg], n: usize) -> Vec<Vec<ObjCfg>> {
    let mut out: Vec<Vec<ObjCfg>> = vec![vec![]];
    for _ in 0..n {
        out = out.into_iter().flat_map(|p| opts.iter().map(move |o| [p.clone(), vec![*o]].concat())).collect();
    }
    out
}

fn for_product(lists: &[&[Vec<Call>]], f: &mut dyn FnMut(&[&Vec<Call>])) {
    fn rec<'a>(lists: &'a [&'a [Vec<Call>]], cur: &mut Vec<&'a Vec<Call>>, f: &mut dyn FnMut(&[&Vec<Call>])) {
        if cur.len() == lists.len() {
            f(cur);
            return;
        }
        for s in lists[cur.len()] {
            cur.push(s);
            rec(lists, cur, f);
            cur.pop();
        }
    }
    rec(lists, &mut Vec::new(), f);
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
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Partition {
    /// 1-based.
    pub index: usize,
    pub count: usize,
}

impl Partition {
    pub const ALL: Partition = Partition { index: 1, count: 1 };

    /// Parses `K/N` with `1 ≤ K ≤ N`.
    pub fn parse(s: &str) -> Result<Partition, String> {
        let bad = || format!("expected a partition `K/N` with 1 ≤ K ≤ N, got `{s}`");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Partition { index: k, count: n })
    }

    pub fn contains(&self, i: usize) -> bool {
        i % self.count == self.index - 1
    }
}

/// How a generated run goes.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub partition: Partition,
    pub first_fail: bool,
    pub loop_bound: usize,
    /// Worker threads.
    pub jobs: usize,
    /// Start no client after this long (the report is then incomplete).
    pub time_limit: Option<std::time::Duration>,
    /// Search only the plain executions that could show an outcome the
    /// specification forbids ([`crate::engines::explicit::run_outside`]); the verdicts are the
    /// same, but vacuity is then detected only on clients where nothing was screened.
    pub screen: bool,
}

/// Per size class.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ClassStat {
    pub size: usize,
    pub generated: u64,
    pub distinct: usize,
    pub checked: usize,
    pub failed: usize,
}

/// A failing client: its index, text (with the failing outcome as a `forbidden`
/// expectation, so it can be kept as a regression test) and report.
#[derive(Clone, Debug, Serialize)]
pub struct GenFailure {
    pub index: usize,
    pub size: usize,
    pub name: String,
    pub text: String,
    pub report: ClientReport,
}

/// The result of a generated run (of one partition). `generated` and `distinct` are
/// the same in every partition; `checked`, `ok`, `failed`, … add up across them, and
/// the merged first counterexample is the failure with the smallest index.
#[derive(Clone, Debug, Serialize)]
pub struct GenReport {
    pub implementation: String,
    pub library: String,
    pub bounds: Bounds,
    pub partition: Partition,
    pub loop_bound: usize,
    /// Labelled clients generated (before symmetry reduction).
    pub generated: u64,
    /// Clients after symmetry reduction.
    pub distinct: usize,
    /// Clients of this partition checked.
    pub checked: usize,
    pub ok: usize,
    pub failed: usize,
    /// Clients on which the implementation has no consistent execution (ok, vacuously).
    pub vacuous: usize,
    /// Clients whose vacuity search ran out of budget (see `refine::VACUITY_BUDGET`).
    pub vacuity_unknown: usize,
    /// Clients on which screening dropped plain executions that can only reach
    /// outcomes the specification allows (with `screened_all`: every one, so no
    /// witness search was needed at all).
    pub screened: usize,
    pub screened_all: usize,
    /// Clients whose verdict is bounded (a loop reached the unrolling bound).
    pub bounded: usize,
    /// Clients that could not be checked (e.g. too many values), and the first message.
    pub errors: usize,
    pub first_error: Option<String>,
    /// The index of the client of `first_error` (to merge partitions).
    pub first_error_index: Option<usize>,
    /// Every size class up to the bound was generated and checked (false after
    /// `--first-fail` or the time limit).
    pub complete: bool,
    /// The time limit stopped the run (the last class in `classes` may be partly checked).
    pub timed_out: bool,
    pub classes: Vec<ClassStat>,
    pub failures: Vec<GenFailure>,
    pub millis: f64,
    /// The client that took longest to check, and its time (ms).
    pub slowest: Option<(String, f64)>,
}

/// Progress of a run, for a progress bar.
pub enum Progress {
    /// A size class was generated, with this many clients to check in this partition.
    Class { size: usize, distinct: usize, to_check: usize },
    /// A client was checked; `failed`: the name of a failing client (reported the
    /// moment it is found) and its size.
    Checked { failed: Option<(String, usize)> },
}

/// The litmus text of a failing client, with the outcome the specification forbids.
pub(crate) fn failing_text(text: &str, imp: &Implementation, r: &ClientReport) -> String {
    let mut s = format!(
        "# Generated by `mowgli refine`: `{}` ({}) reaches the outcome below, which the specification forbids.\n",
        imp.name, imp.file
    );
    s += text;
    if let Some(c) = &r.counterexample {
        let atoms: Vec<String> = c
            .outcome
            .iter()
            .filter(|(_, v)| !v.contains('?') && !v.contains("one of"))
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        if !atoms.is_empty() {
            s += &format!("expect forbidden {}\n", atoms.join(" /\\ "));
        }
    }
    s
}

/// A checked client: its position among the clients of the partition, the report, the text.
type Checked = (usize, Result<ClientReport, String>, String, f64);

/// Generates the clients of the implemented library up to `bounds` and checks each
/// (of the partition) with [`refine_client`], smallest first.
pub fn run(
    imp: &Implementation,
    order: &StampOrder,
    bounds: &Bounds,
    opts: &RunOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<GenReport, String> {
    let start = Instant::now();
    let g = Generator::new(&imp.implements, order, bounds)?;
    let mut rep = GenReport {
        implementation: imp.name.clone(),
        library: imp.implements.clone(),
        bounds: bounds.clone(),
        partition: opts.partition,
        loop_bound: opts.loop_bound,
        generated: 0,
        distinct: 0,
        checked: 0,
        ok: 0,
        failed: 0,
        vacuous: 0,
        vacuity_unknown: 0,
        screened: 0,
        screened_all: 0,
        bounded: 0,
        errors: 0,
        first_error: None,
        first_error_index: None,
        complete: true,
        timed_out: false,
        classes: Vec::new(),
        failures: Vec::new(),
        millis: 0.0,
        slowest: None,
    };
    for size in 1..=g.max_size() {
        let class = g.class(size);
        let base = rep.distinct;
        let mine: Vec<usize> = (0..class.distinct()).filter(|i| opts.partition.contains(base + i)).collect();
        progress(Progress::Class { size, distinct: class.distinct(), to_check: mine.len() });
        let next = AtomicUsize::new(0);
        let out_of_time = AtomicBool::new(false);
        let stop = AtomicBool::new(false);
        // the smallest failing position (in `mine`): positions after it are not started
        let min_fail = AtomicUsize::new(usize::MAX);
        let results: Mutex<Vec<Checked>> = Mutex::new(Vec::new());
        if opts.time_limit.is_some_and(|t| start.elapsed() >= t) {
            rep.complete = false;
            rep.timed_out = true;
            break;
        }
        let jobs = opts.jobs.max(1).min(mine.len().max(1));
        std::thread::scope(|sc| {
            for _ in 0..jobs {
                sc.spawn(|| loop {
                    let p = next.fetch_add(1, Ordering::SeqCst);
                    if p >= mine.len() || (stop.load(Ordering::SeqCst) && p > min_fail.load(Ordering::SeqCst)) {
                        break;
                    }
                    if opts.time_limit.is_some_and(|t| start.elapsed() >= t) {
                        out_of_time.store(true, Ordering::SeqCst);
                        break;
                    }
                    let i = mine[p];
                    let name = client_name(&g.lib, base + i);
                    let text = g.render(&class, i, &name);
                    let t0 = std::time::Instant::now();
                    let r = refine_client(imp, order, &name, &text, opts.loop_bound, opts.screen)
                        .map_err(|e| e.to_string());
                    let ms = t0.elapsed().as_secs_f64() * 1000.0;
                    let failed = matches!(&r, Ok(r) if r.verdict == ClientVerdict::Fail);
                    if failed && opts.first_fail {
                        min_fail.fetch_min(p, Ordering::SeqCst);
                        stop.store(true, Ordering::SeqCst);
                    }
                    progress(Progress::Checked { failed: failed.then(|| (name.clone(), size)) });
                    results.lock().expect("results").push((p, r, text, ms));
                });
            }
        });
        let mut results = results.into_inner().expect("results");
        results.sort_by_key(|r| r.0);
        let cut = min_fail.load(Ordering::SeqCst);
        let mut stat = ClassStat { size, generated: class.generated, distinct: class.distinct(), ..Default::default() };
        for (p, r, text, ms) in results {
            if opts.first_fail && p > cut {
                continue; // checked after the first failure by another worker: not reported
            }
            if rep.slowest.as_ref().is_none_or(|s| ms > s.1) {
                rep.slowest = Some((client_name(&g.lib, base + mine[p]), ms));
            }
            stat.checked += 1;
            match r {
                Ok(r) => {
                    if r.vacuous {
                        rep.vacuous += 1;
                    }
                    if r.vacuity_unknown {
                        rep.vacuity_unknown += 1;
                    }
                    if r.impl_stats.screened > 0 {
                        rep.screened += 1;
                        if r.impl_stats.searches == 0 {
                            rep.screened_all += 1;
                        }
                    }
                    if r.bounded {
                        rep.bounded += 1;
                    }
                    if r.verdict == ClientVerdict::Fail {
                        stat.failed += 1;
                        rep.failures.push(GenFailure {
                            index: base + mine[p],
                            size,
                            name: r.name.clone(),
                            text: failing_text(&text, imp, &r),
                            report: r,
                        });
                    } else {
                        rep.ok += 1;
                    }
                }
                Err(e) => {
                    rep.errors += 1;
                    if rep.first_error.is_none() {
                        rep.first_error = Some(e);
                        rep.first_error_index = Some(base + mine[p]);
                    }
                }
            }
        }
        rep.generated += class.generated;
        rep.distinct += class.distinct();
        rep.checked += stat.checked;
        rep.failed += stat.failed;
        let stat_all_checked = stat.checked == mine.len();
        rep.classes.push(stat);
        if out_of_time.load(Ordering::SeqCst) {
            rep.complete = false;
            rep.timed_out = true;
            break;
        }
        if opts.first_fail && rep.failed > 0 {
            rep.complete = size == g.max_size() && stat_all_checked;
            break;
        }
    }
    rep.millis = start.elapsed().as_secs_f64() * 1000.0;
    Ok(rep)
}
