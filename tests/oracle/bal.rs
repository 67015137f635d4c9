//! BAL, the barrier library: LOCO paper §4.1 (Def. 4.1) and the transitive variant
//! of §4.3 (`bal_all`).
//!
//! `BAR(z)` on a barrier z with participating threads b(z). stmp_BAL gives each call
//! the entry stamps aGF_n for every node n of a participant (for `bal_all`: every
//! node of the program) and the exit stamp aCR. Consistency: only participants
//! call BAR(z); every participant calls it the same number c_z of times; the
//! ordering function o numbers each thread's calls on z in program order (the only
//! choice the po constraint leaves); and so relates the entry of every i-th call to
//! the exit of every i-th call on the same barrier. There is no witness to search.

use mowgli_core::model::LibId;
use mowgli_core::{
    BitRel, Callers, Event, ExecGraph, FinalValue, Library, MethodSig, Role, Stamp, StampOrder, StampTable, Value,
    ValueDomain, WitnessSearch, World,
};

use mowgli_libs::rdma::Kinds;
use mowgli_libs::LibError;

pub struct Bal {
    all_nodes: bool,
    kinds: Kinds,
    methods: Vec<MethodSig>,
}

impl Bal {
    /// `all_nodes = false`: BAL of Def. 4.1; `true`: the transitive barrier of §4.3.
    pub fn new(order: &StampOrder, all_nodes: bool) -> Result<Self, LibError> {
        let to = order.table("to").ok_or(LibError::MissingTable("to".into()))?;
        let kinds = Kinds::of(to)?;
        let methods = vec![MethodSig::new("BAR", vec![Role::Barrier(Callers::Participants)], vec![])];
        Ok(Bal { all_nodes, kinds, methods })
    }
}

fn barrier(e: &Event) -> usize {
    match e.args.first() {
        Some(Value::Obj(o)) => *o as usize,
        _ => usize::MAX,
    }
}

impl Library for Bal {
    fn name(&self) -> &str {
        if self.all_nodes {
            "bal_all"
        } else {
            "bal"
        }
    }
    fn methods(&self) -> &[MethodSig] {
        &self.methods
    }
    fn check_call(&self, world: &World, _thread: usize, _method: usize, args: &[Value]) -> Result<(), String> {
        match args.first() {
            Some(Value::Obj(o)) if world.objs[*o as usize].writer.is_none() => Ok(()),
            Some(Value::Obj(o)) => Err(format!("`{}` is a ring, not a barrier", world.objs[*o as usize].name)),
            _ => Err("expected a barrier".into()),
        }
    }
    fn locs(&self, e: &Event) -> Vec<usize> {
        // a barrier is its own location; barriers are numbered after the memory locations
        vec![usize::MAX - barrier(e)]
    }
    /// stmp_BAL: aGF_n for the participants' nodes (all nodes for `bal_all`), then aCR.
    fn stamps(&self, world: &World, e: &Event) -> Vec<Stamp> {
        let k = &self.kinds;
        let mut nodes: Vec<u32> = if self.all_nodes {
            world.nodes.clone()
        } else {
            let b = barrier(e);
            world.objs.get(b).map(|o| o.threads.iter().map(|&t| world.thread_node(t)).collect()).unwrap_or_default()
        };
        nodes.sort();
        nodes.dedup();
        let mut s: Vec<Stamp> = nodes.into_iter().map(|n| k.fam(k.gf, n)).collect();
        s.push(k.single(k.cr));
        s
    }
    fn returns(&self, _w: &World, _t: usize, _m: usize, _a: &[Value], _d: &ValueDomain) -> Vec<Value> {
        vec![Value::Unit]
    }
    fn search<'a>(&'a self, g: &'a ExecGraph<'a>, _to: &'a StampTable, me: LibId) -> Box<dyn WitnessSearch + 'a> {
        Box::new(BalSearch::new(self, g, me))
    }
}

struct BalSearch {
    ok: bool,
    so: BitRel,
}

impl BalSearch {
    fn new(lib: &Bal, g: &ExecGraph, me: LibId) -> Self {
        let k = lib.kinds;
        let w = g.world;
        let mut ok = true;
        // o(e): the index of e among its thread's calls on the same barrier
        let mut calls: Vec<(usize, usize, usize)> = Vec::new(); // (barrier, o, event)
        for b in 0..w.objs.len() {
            let mut counts = Vec::new();
            for t in 0..w.threads.len() {
                let mine: Vec<usize> = (0..g.events.len())
                    .filter(|&e| g.events[e].lib == me && g.events[e].thread == t && barrier(&g.events[e]) == b)
                    .collect();
                if mine.is_empty() && !w.objs[b].threads.contains(&t) {
                    continue;
                }
                if !w.objs[b].threads.contains(&t) {
                    ok = false; // a non-participating thread calls the barrier
                }
                counts.push(mine.len());
                let mut sorted = mine;
                sorted.sort_by_key(|&e| g.events[e].index);
                for (i, e) in sorted.into_iter().enumerate() {
                    calls.push((b, i, e));
                }
            }
            if counts.windows(2).any(|c| c[0] != c[1]) {
                ok = false; // participants call the barrier different numbers of times
            }
        }
        let mut so = BitRel::new(g.len());
        for &(b1, o1, e1) in &calls {
            for &(b2, o2, e2) in &calls {
                if b1 == b2 && o1 == o2 {
                    for &s1 in &g.subs_of[e1] {
                        for &s2 in &g.subs_of[e2] {
                            if g.subs[s1].stamp.kind == k.gf && g.subs[s2].stamp.kind == k.cr {
                                so.add(s1, s2);
                            }
                        }
                    }
                }
            }
        }
        BalSearch { ok, so }
    }
}

impl WitnessSearch for BalSearch {
    fn num_vars(&self) -> usize {
        0
    }
    fn domain(&self, _var: usize) -> usize {
        0
    }
    fn assign(&mut self, _var: usize, _val: Option<usize>) {}
    fn check(&mut self, _hb: &BitRel, so: &mut BitRel) -> bool {
        so.union_with(&self.so);
        self.ok
    }
    fn finals(&self, _out: &mut Vec<FinalValue>) {}
    fn relations(&self) -> Vec<(String, BitRel)> {
        vec![("so".into(), self.so.clone())]
    }
}
