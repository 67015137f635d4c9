//! RBL, the ring buffer library: LOCO paper §5.1 (Def. 5.1, Def. 5.2), the
//! alternative weaker semantics of §5.1 (`rbl_weak`: so = rf and hb⁻¹ ∩ fb = ∅), and
//! `rbl_rfe`, Def. 5.2 with so = rf_e ∪ fb: the rf edges between two different
//! threads only, as in every other library of the paper (sv's so has rf_e, not rf).
//!
//! `rbl_rfe` is the specification repair of the self-read-ring finding
//! (docs/obligations.md#self-read-rings): Def. 5.2 allows wthd(x) ∈ rthd(x), and its
//! so then orders a thread's Submit before its own Receive of the message, which
//! promises a store-load fence that Fig. 14's implementation does not give (the write
//! of h^x and the thread's own read of it are a CPU write then a CPU read, B1 ✗).
//! Client `specs/clients/rbl-self-read/rbl-self-sb-sv.litmus` observes it.
//!
//! `r = Submit(q, [v…])` returns true (the message is in) or false (full; failing
//! submits may fail spuriously and are ignored by the specification);
//! `r = Receive(q)` returns the next message or ⊥. stmp_RBL: a successful submit has
//! aCW (the writer's node) and aNRW_n for every other node n of a reader; a failing
//! submit or receive aWT; a successful receive aCR.
//!
//! Witness: rf, one variable per successful receive (its message: the successful
//! submit subevent towards the receiver's node with the same tuple). Well-formedness
//! (Def. 5.1): (4) a thread reads a message at most once, (5) no thread skips a
//! message. fb = F × W (same ring and node) minus po⁻¹; rf⁻¹. fb shrinks as rf
//! grows, so it is only added (to so, or checked against hb) once rf is complete.

use mowgli_core::model::LibId;
use mowgli_core::{
    BitRel, Callers, Event, ExecGraph, FinalValue, Library, MethodSig, Ret, Role, Stamp, StampOrder, StampTable, Value,
    ValueDomain, WitnessSearch, World,
};

use mowgli_libs::rdma::Kinds;
use mowgli_libs::LibError;

pub const SUBMIT: usize = 0;
pub const RECEIVE: usize = 1;

/// Which of the three consistency predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Def. 5.2: so = rf ∪ fb.
    Def52,
    /// §5.1's alternative: so = rf and hb⁻¹ ∩ fb = ∅.
    Weak,
    /// so = rf_e ∪ fb (rf between different threads only).
    Rfe,
}

pub struct Rbl {
    variant: Variant,
    kinds: Kinds,
    methods: Vec<MethodSig>,
}

impl Rbl {
    pub fn new(order: &StampOrder, variant: Variant) -> Result<Self, LibError> {
        let to = order.table("to").ok_or(LibError::MissingTable("to".into()))?;
        let kinds = Kinds::of(to)?;
        let methods = vec![
            MethodSig::new("Submit", vec![Role::Ring(Callers::Writer), Role::Val], vec![Ret::Bool]),
            MethodSig::new("Receive", vec![Role::Ring(Callers::Participants)], vec![Ret::Message, Ret::Bot]),
        ];
        Ok(Rbl { variant, kinds, methods })
    }
}

fn ring(e: &Event) -> usize {
    match e.args.first() {
        Some(Value::Obj(o)) => *o as usize,
        _ => usize::MAX,
    }
}

impl Library for Rbl {
    fn name(&self) -> &str {
        match self.variant {
            Variant::Def52 => "rbl",
            Variant::Weak => "rbl_weak",
            Variant::Rfe => "rbl_rfe",
        }
    }
    fn methods(&self) -> &[MethodSig] {
        &self.methods
    }
    fn check_call(&self, world: &World, _thread: usize, _method: usize, args: &[Value]) -> Result<(), String> {
        match args.first() {
            Some(Value::Obj(o)) if world.objs[*o as usize].writer.is_some() => Ok(()),
            Some(Value::Obj(o)) => Err(format!("`{}` is a barrier, not a ring", world.objs[*o as usize].name)),
            _ => Err("expected a ring".into()),
        }
    }
    fn locs(&self, e: &Event) -> Vec<usize> {
        vec![usize::MAX - ring(e)]
    }
    fn stamps(&self, world: &World, e: &Event) -> Vec<Stamp> {
        let k = &self.kinds;
        let ok = !matches!(e.ret, Value::Bool(false) | Value::Bot);
        match (e.method, ok) {
            (SUBMIT, true) => {
                let here = world.thread_node(e.thread);
                let mut nodes: Vec<u32> = world
                    .objs
                    .get(ring(e))
                    .map(|o| o.threads.iter().map(|&t| world.thread_node(t)).filter(|&n| n != here).collect())
                    .unwrap_or_default();
                nodes.sort();
                nodes.dedup();
                let mut s: Vec<Stamp> = nodes.into_iter().map(|n| k.fam(k.nrw, n)).collect();
                s.push(k.single(k.cw));
                s
            }
            (RECEIVE, true) => vec![k.single(k.cr)],
            _ => vec![k.single(k.wt)],
        }
    }
    fn returns(&self, _w: &World, _t: usize, method: usize, _args: &[Value], dom: &ValueDomain) -> Vec<Value> {
        match method {
            SUBMIT => vec![Value::Bool(true), Value::Bool(false)],
            _ => {
                let mut v: Vec<Value> = dom.messages().to_vec();
                v.push(Value::Bot);
                v
            }
        }
    }
    fn search<'a>(&'a self, g: &'a ExecGraph<'a>, _to: &'a StampTable, me: LibId) -> Box<dyn WitnessSearch + 'a> {
        Box::new(RblSearch::new(self, g, me))
    }
}

struct RblSearch<'a> {
    variant: Variant,
    g: &'a ExecGraph<'a>,
    /// Per successful receive subevent: candidate submit subevents.
    reads: Vec<(usize, Vec<usize>)>,
    rf: Vec<Option<usize>>,
    /// Static violations (non-participants).
    ok: bool,
    /// (failing receive subevent, successful submit subevent) pairs of the same ring and node.
    fw: Vec<(usize, usize)>,
}

impl<'a> RblSearch<'a> {
    fn new(lib: &Rbl, g: &'a ExecGraph<'a>, me: LibId) -> Self {
        let k = lib.kinds;
        let w = g.world;
        let mut ok = true;
        let node_of = |s: usize| w.thread_node(g.event_of(s).thread);
        // the node a write subevent delivers to
        let dest = |s: usize| match g.subs[s].stamp.node {
            Some(n) => n,
            None => node_of(s),
        };
        let mine: Vec<usize> = (0..g.len()).filter(|&s| g.event_of(s).lib == me).collect();
        for &s in &mine {
            let e = g.event_of(s);
            let o = &w.objs[ring(e)];
            let allowed = if e.method == SUBMIT { o.writer == Some(e.thread) } else { o.threads.contains(&e.thread) };
            ok &= allowed;
        }
        let writes: Vec<usize> =
            mine.iter().copied().filter(|&s| g.subs[s].stamp.kind == k.cw || g.subs[s].stamp.kind == k.nrw).collect();
        let mut reads = Vec::new();
        let mut fw = Vec::new();
        for &s in &mine {
            let e = g.event_of(s);
            if e.method != RECEIVE {
                continue;
            }
            let same = |wr: usize| ring(g.event_of(wr)) == ring(e) && dest(wr) == node_of(s);
            if g.subs[s].stamp.kind == k.cr {
                let cands = writes
                    .iter()
                    .copied()
                    .filter(|&wr| same(wr) && g.event_of(wr).args.get(1) == Some(&e.ret))
                    .collect();
                reads.push((s, cands));
            } else {
                for &wr in &writes {
                    if same(wr) {
                        fw.push((s, wr));
                    }
                }
            }
        }
        let n = reads.len();
        RblSearch { variant: lib.variant, g, reads, rf: vec![None; n], ok, fw }
    }

    fn rf_rel(&self) -> BitRel {
        let mut r = BitRel::new(self.g.len());
        for (i, (s, c)) in self.reads.iter().enumerate() {
            if let Some(j) = self.rf[i] {
                r.add(c[j], *s);
            }
        }
        r
    }

    fn complete(&self) -> bool {
        self.rf.iter().all(Option::is_some)
    }

    /// fb = F × W \ (po⁻¹; rf⁻¹), for a complete rf.
    fn fb(&self, rf: &BitRel) -> BitRel {
        let g = self.g;
        let mut fb = BitRel::new(g.len());
        for &(f, w) in &self.fw {
            let read_before = rf.successors(w).any(|r| g.po.contains(r, f));
            if !read_before {
                fb.add(f, w);
            }
        }
        fb
    }
}

impl WitnessSearch for RblSearch<'_> {
    fn num_vars(&self) -> usize {
        self.reads.len()
    }
    fn domain(&self, var: usize) -> usize {
        self.reads[var].1.len()
    }
    fn assign(&mut self, var: usize, val: Option<usize>) {
        self.rf[var] = val;
    }
    fn check(&mut self, _hb: &BitRel, so: &mut BitRel) -> bool {
        if !self.ok {
            return false;
        }
        let g = self.g;
        let rf = self.rf_rel();
        let thread = |s: usize| g.event_of(s).thread;
        // (4) a thread reads each message at most once
        for wr in 0..g.len() {
            let rs: Vec<usize> = rf.successors(wr).collect();
            for (i, &a) in rs.iter().enumerate() {
                if rs[i + 1..].iter().any(|&b| thread(a) == thread(b)) {
                    return false;
                }
            }
        }
        if self.variant == Variant::Rfe {
            for (w, r) in rf.pairs() {
                if thread(w) != thread(r) {
                    so.add(w, r);
                }
            }
        } else {
            so.union_with(&rf);
        }
        if self.complete() {
            // (5) no skipping: s1 po s2 (same ring and node), s2 rf s4 ⇒ ∃ s3. s1 rf s3 po s4
            for (i, (s4, c)) in self.reads.iter().enumerate() {
                let s2 = c[self.rf[i].unwrap_or(0)];
                let earlier: Vec<usize> = (0..g.len())
                    .filter(|&s1| {
                        s1 != s2
                            && g.po.contains(s1, s2)
                            && g.event_of(s1).lib == g.event_of(s2).lib
                            && g.subs[s1].stamp == g.subs[s2].stamp
                            && ring(g.event_of(s1)) == ring(g.event_of(s2))
                            && g.event_of(s1).method == SUBMIT
                    })
                    .collect();
                for s1 in earlier {
                    if !rf.successors(s1).any(|s3| g.po.contains(s3, *s4) && thread(s3) == thread(*s4)) {
                        return false;
                    }
                }
            }
            if self.variant != Variant::Weak {
                so.union_with(&self.fb(&rf));
            }
        }
        true
    }
    fn needs_hb(&self) -> bool {
        self.variant == Variant::Weak
    }
    fn check_hb(&self, hb: &BitRel) -> bool {
        if !self.complete() {
            return true;
        }
        // hb⁻¹ ∩ fb = ∅
        let fb = self.fb(&self.rf_rel());
        let clash = fb.pairs().any(|(f, w)| hb.contains(w, f));
        !clash
    }
    fn finals(&self, _out: &mut Vec<FinalValue>) {}
    fn relations(&self) -> Vec<(String, BitRel)> {
        let rf = self.rf_rel();
        let fb = if self.complete() { self.fb(&rf) } else { BitRel::new(self.g.len()) };
        vec![("rf".into(), rf), ("fb".into(), fb)]
    }
}
