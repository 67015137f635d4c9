//! The explicit evaluator: a [`Spec`] as a [`Library`] whose consistency
//! predicate is a [`WitnessSearch`] over its witnesses (rf and mo of its memory,
//! then its declared witnesses, in order).
//!
//! Which parts of the expressions are static (no witness, no hb) is decided once
//! per spec (`search/plan.rs`); per plain execution ([`FileLibrary::search`])
//! each static part is computed once ("folded"); each check then evaluates only
//! the dynamic parts. On a partial witness, the monotone axioms and
//! `so` terms ([`Expr::monotone`]) are evaluated (a violation is final, the so
//! edges are in every completion's so: the engine prunes, as with the Rust
//! libraries RDMA^TSO and coreRMA); the others once the witness is complete. Axioms that mention hb are
//! checked in [`WitnessSearch::check_hb`] against the execution's hb.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};

use mowgli_core::library::Cell as MemCell;
use mowgli_core::model::LibId;
use mowgli_core::{
    Event, ExecGraph, Library, MethodSig, Stamp, StampOrder, StampTable, Value, ValueDomain, WitnessSearch, World,
    Written,
};

use crate::*;

mod declared;
mod footprint;
mod search;
mod writes;
use search::{FileSearch, Plan};

/// Method names live as long as the process (`MethodSig::name` is `&'static str`).
fn intern(s: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut g = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let set = g.get_or_insert_with(HashSet::new);
    if let Some(n) = set.get(s) {
        return n;
    }
    let n: &'static str = Box::leak(s.to_string().into_boxed_str());
    set.insert(n);
    n
}

/// A library read from a file.
pub struct FileLibrary {
    pub spec: Arc<Spec>,
    /// The stamp order's kind of each declared stamp.
    kinds: Vec<u8>,
    /// What does not depend on the stamp order.
    shared: Arc<Shared>,
}

/// What a file library builds of its spec whatever the stamp order: built once
/// per spec in use ([`Shared::of`]).
struct Shared {
    methods: Vec<MethodSig>,
    /// Its expressions folded (what a search computes of them).
    plan: Plan,
}

impl Shared {
    /// Built once per spec in use: a library is built per client (under its
    /// stamp order), its spec shared. The spec behind an `Arc` does not change
    /// (the `Weak` kept here keeps `Arc::get_mut` from changing it).
    fn of(spec: &Arc<Spec>) -> Arc<Shared> {
        static SHARED: Mutex<Vec<(Weak<Spec>, Arc<Shared>)>> = Mutex::new(Vec::new());
        let mut all = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|(w, _)| w.strong_count() > 0);
        if let Some((_, s)) = all.iter().find(|(w, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(spec))) {
            return Arc::clone(s);
        }
        let s = Arc::new(Shared { methods: declared::method_sigs(spec, intern), plan: Plan::new(spec) });
        all.push((Arc::downgrade(spec), Arc::clone(&s)));
        s
    }
}

/// The kind of declared stamp `d` of library `lib` in the stamp order's table
/// `to`, or why it has none (no such stamp, or a family where the library has a
/// single stamp or the other way round).
pub(crate) fn stamp_kind(
    lib: &str,
    d: &StampDecl,
    to: &mowgli_core::StampTable,
) -> Result<mowgli_core::stamp::StampKind, String> {
    let k = to.kind(&d.name).ok_or_else(|| format!("library `{lib}`: the stamp order has no stamp `{}`", d.name))?;
    if to.family[k as usize] != d.family {
        let shape = if d.family { "a single stamp" } else { "a family" };
        return Err(format!("library `{lib}`: stamp `{}` is {shape} in the stamp order", d.name));
    }
    Ok(k)
}

impl FileLibrary {
    pub fn new(spec: impl Into<Arc<Spec>>, order: &StampOrder) -> Result<FileLibrary, String> {
        let spec: Arc<Spec> = spec.into();
        let to = order.table("to").ok_or("the stamp order has no table `to`")?;
        let mut kinds = Vec::new();
        for d in &spec.stamps {
            kinds.push(stamp_kind(&spec.name, d, to)?);
        }
        let shared = Shared::of(&spec);
        Ok(FileLibrary { spec, kinds, shared })
    }

    fn node(&self, world: &World, thread: usize, args: &[Value], var: Option<u32>, n: &NodeExpr) -> u32 {
        match n {
            NodeExpr::Here => world.thread_node(thread),
            NodeExpr::Var => var.unwrap_or(0),
            NodeExpr::Param(i) => args.get(*i).and_then(Value::as_node).unwrap_or(0),
            NodeExpr::NodeOf(i) => {
                args.get(*i).and_then(Value::as_loc).and_then(|l| world.locs.get(l)).and_then(|l| l.home).unwrap_or(0)
            }
        }
    }

    fn node_set(&self, world: &World, thread: usize, args: &[Value], s: &NodeSet) -> Vec<u32> {
        let mut v: Vec<u32> = match s {
            NodeSet::All => world.nodes.clone(),
            NodeSet::Param(i) => args.get(*i).and_then(Value::as_nodes).map(<[u32]>::to_vec).unwrap_or_default(),
            NodeSet::Of(i) => match args.get(*i) {
                Some(Value::Obj(o)) => world
                    .objs
                    .get(*o as usize)
                    .map(|o| o.threads.iter().map(|&t| world.thread_node(t)).collect())
                    .unwrap_or_default(),
                _ => vec![],
            },
            NodeSet::Minus(s, n) => {
                let n = self.node(world, thread, args, None, n);
                let mut v = self.node_set(world, thread, args, s);
                v.retain(|&m| m != n);
                v
            }
        };
        v.sort();
        v.dedup();
        v
    }

    fn cond(&self, args: &[Value], ret: &Value, c: &Cond) -> bool {
        let v = match &c.val {
            ValRef::Bot => Value::Bot,
            ValRef::Bool(b) => Value::Bool(*b),
            ValRef::Int(i) => Value::Int(*i),
            ValRef::Param(i) => args.get(*i).cloned().unwrap_or(Value::Unit),
        };
        (ret == &v) == c.eq
    }

    /// The stamps of a call; `ret = None`: of every branch (for what a call may write).
    #[allow(clippy::too_many_arguments)]
    fn stamp_items(
        &self,
        world: &World,
        thread: usize,
        args: &[Value],
        ret: Option<&Value>,
        items: &[StampItem],
        var: Option<u32>,
        out: &mut Vec<Stamp>,
    ) {
        for it in items {
            match it {
                StampItem::Stamp { kind, node } => out.push(Stamp {
                    kind: self.kinds[*kind],
                    node: node.as_ref().map(|n| self.node(world, thread, args, var, n)),
                }),
                StampItem::For { set, body } => {
                    for n in self.node_set(world, thread, args, set) {
                        self.stamp_items(world, thread, args, ret, body, Some(n), out);
                    }
                }
                StampItem::If { cond, then, els } => match ret {
                    Some(r) => {
                        let b = if self.cond(args, r, cond) { then } else { els };
                        self.stamp_items(world, thread, args, ret, b, var, out);
                    }
                    None => {
                        self.stamp_items(world, thread, args, ret, then, var, out);
                        self.stamp_items(world, thread, args, ret, els, var, out);
                    }
                },
            }
        }
    }

    fn decl_of(&self, kind: u8) -> Option<usize> {
        self.kinds.iter().position(|&k| k == kind)
    }

    /// The memory cell an access of a call addresses (`None`: no such location).
    fn cell_of(&self, world: &World, thread: usize, args: &[Value], st: Stamp, a: &Access) -> Option<MemCell> {
        let l = args.get(a.loc).and_then(Value::as_loc)?;
        Some((l, a.node.as_ref().map(|n| self.node(world, thread, args, st.node, n))))
    }
}

impl Library for FileLibrary {
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn methods(&self) -> &[MethodSig] {
        &self.shared.methods
    }
    fn memory(&self) -> mowgli_core::MemoryShape {
        declared::memory_shape(&self.spec)
    }
    fn check_call(&self, world: &World, thread: usize, method: usize, args: &[Value]) -> Result<(), String> {
        let Some(m) = self.spec.methods.get(method) else { return Err("no such method".into()) };
        let here = world.thread_node(thread);
        let size = |i: usize| args.get(i).and_then(Value::as_loc).and_then(|l| world.locs.get(l)).and_then(|l| l.size);
        for (i, (pn, k)) in m.params.iter().enumerate() {
            let Some(a) = args.get(i) else { continue };
            match k {
                Kind::Loc { local, .. } | Kind::Src { local } => {
                    let Value::Loc(l) = a else { continue };
                    let Some(li) = world.locs.get(*l) else { continue };
                    match (self.spec.memory.map(|m| m.kind), li.home) {
                        (Some(MemoryKind::Replicated), Some(_)) => {
                            return Err(format!(
                                "location `{}` is declared on one node (`@ N`); {} locations are replicated",
                                li.name, self.spec.name
                            ))
                        }
                        (Some(MemoryKind::Located), None) => {
                            return Err(format!(
                                "location `{}` is replicated (declared without `@ N`); {} locations live on one node",
                                li.name, self.spec.name
                            ))
                        }
                        _ => {}
                    }
                    if *local && li.home.is_some_and(|n| n != here) {
                        return Err(format!(
                            "location `{}` is on node {}, but thread `{}` runs on node {here}; `{pn}` must be local",
                            li.name,
                            li.home.unwrap_or(0),
                            world.threads[thread].name
                        ));
                    }
                    if self.spec.memory.is_some_and(|m| m.tuples) && li.size.is_none() {
                        return Err(format!("{} locations are declared with `size K`", self.spec.name));
                    }
                    if let Kind::Loc { sized_like: Some(j), .. } = k {
                        if size(i) != size(*j) {
                            return Err("the two locations have different sizes".into());
                        }
                    }
                }
                Kind::Tuple(j) => {
                    if let (Some(k), Value::Tuple(vs)) = (size(*j), a) {
                        if vs.len() != k {
                            return Err(format!("the location holds {k}-tuples, this writes a {}-tuple", vs.len()));
                        }
                    }
                }
                Kind::Node => {
                    if let Some(n) = a.as_node() {
                        if !world.nodes.contains(&n) {
                            return Err(format!("node {n} is not a node of this program"));
                        }
                    }
                }
                Kind::Nodes => {
                    for n in a.as_nodes().unwrap_or(&[]) {
                        if !world.nodes.contains(n) {
                            return Err(format!("node {n} is not a node of this program"));
                        }
                    }
                }
                Kind::Barrier | Kind::Ring => {
                    let barrier = *k == Kind::Barrier;
                    let what = if barrier { "a barrier" } else { "a ring" };
                    match a {
                        Value::Obj(o) => match world.objs.get(*o as usize) {
                            Some(oi) if oi.writer.is_none() == barrier => {}
                            Some(oi) => return Err(format!("`{}` is not {what}", oi.name)),
                            None => return Err(format!("expected {what}")),
                        },
                        _ => return Err(format!("expected {what}")),
                    }
                }
                Kind::Val | Kind::Wid => {}
            }
        }
        Ok(())
    }
    fn locs(&self, e: &Event) -> Vec<usize> {
        let Some(m) = self.spec.methods.get(e.method) else { return vec![] };
        m.params
            .iter()
            .enumerate()
            .filter_map(|(i, (_, k))| match (k, e.args.get(i)) {
                (Kind::Loc { .. } | Kind::Src { .. }, a) => Some(a.and_then(Value::as_loc).unwrap_or(usize::MAX)),
                (Kind::Barrier | Kind::Ring, Some(Value::Obj(o))) => Some(usize::MAX - *o as usize),
                _ => None,
            })
            .collect()
    }
    fn stamps(&self, world: &World, e: &Event) -> Vec<Stamp> {
        let mut out = Vec::new();
        if let Some(m) = self.spec.methods.get(e.method) {
            self.stamp_items(world, e.thread, &e.args, Some(&e.ret), &m.stamps, None, &mut out);
        }
        out
    }
    fn returns(&self, w: &World, _t: usize, method: usize, args: &[Value], dom: &ValueDomain) -> Vec<Value> {
        let Some(m) = self.spec.methods.get(method) else { return vec![] };
        if m.ret.is_empty() {
            return vec![Value::Unit];
        }
        let loc = |i: usize| args.get(i).and_then(Value::as_loc);
        let mut out = Vec::new();
        for r in &m.ret {
            match r {
                RetKind::ValueOf(i) => {
                    out.extend(loc(*i).map_or(&[][..], |l| dom.at(l)).iter().cloned());
                }
                RetKind::TupleOf(i) => {
                    let size = loc(*i).and_then(|l| w.locs.get(l)).and_then(|l| l.size);
                    let vals = loc(*i).map(|l| dom.at(l).to_vec()).unwrap_or_default();
                    out.extend(vals.into_iter().filter(|v| matches!(v, Value::Tuple(t) if Some(t.len()) == size)));
                }
                RetKind::Bool => out.extend([Value::Bool(true), Value::Bool(false)]),
                RetKind::Message => out.extend(dom.messages().iter().cloned()),
                RetKind::Bot => out.push(Value::Bot),
                RetKind::Top => out.push(Value::Top),
                // the domain holds the sums get-accumulates compute (`Library::writes`)
                RetKind::Sums(i) => out.extend(loc(*i).map_or(&[][..], |l| dom.at(l)).iter().cloned()),
            }
        }
        if m.ret.iter().any(|r| matches!(r, RetKind::Sums(_) | RetKind::Top)) {
            // alternatives that overlap: each value once, in order
            let set: std::collections::BTreeSet<Value> = out.into_iter().collect();
            out = set.into_iter().collect();
        }
        out
    }
    fn writes(&self, _w: &World, _t: usize, method: usize, args: &[Value], dom: &ValueDomain, out: &mut Vec<Written>) {
        if let Some((m, sig)) = self.spec.methods.get(method).zip(self.methods().get(method)) {
            // the signature's reading (values sent as messages, copies between the
            // locations named), then what the accesses say (literals, computed values)
            mowgli_core::library::writes_by_signature(&sig.params, args, dom, out);
            writes::writes(m, args, dom, out);
        }
    }
    fn constants(&self) -> Vec<Value> {
        writes::constants(&self.spec)
    }
    fn computes_values(&self) -> bool {
        writes::computes(&self.spec)
    }
    fn own_program_order(&self) -> bool {
        self.spec.own_order
    }
    fn symbolic_return(&self, method: usize) -> bool {
        self.spec.methods.get(method).is_some_and(Method::symbolic)
    }
    fn read_only(&self, method: usize) -> bool {
        self.spec.methods.get(method).is_some_and(|m| m.readonly)
    }
    fn read_only_as_made(&self, method: usize, args: &[Value], ret: &Value) -> bool {
        self.spec.methods.get(method).is_some_and(|m| {
            m.readonly
                || m.readonly_if.as_ref().is_some_and(|c| !matches!(ret, Value::OneOf(_)) && self.cond(args, ret, c))
        })
    }
    fn footprint(&self, method: usize, args: &[Value]) -> Option<mowgli_core::program::retry::Footprint> {
        self.spec.methods.get(method).and_then(|m| footprint::of(m, args))
    }
    fn read_cell(&self, w: &World, t: usize, method: usize, args: &[Value]) -> Option<MemCell> {
        let m = self.spec.methods.get(method).filter(|m| m.symbolic())?;
        let a = &m.accesses[0];
        let l = args.get(a.loc).and_then(Value::as_loc).unwrap_or(usize::MAX);
        Some((l, a.node.as_ref().map(|n| self.node(w, t, args, None, n))))
    }
    fn written_cells(&self, w: &World, t: usize, method: usize, args: &[Value]) -> Vec<(MemCell, Option<Value>)> {
        let Some(m) = self.spec.methods.get(method) else { return vec![] };
        if self.spec.computes_values() {
            // a read need not read the thread's own latest write (⊤, dropped rules)
            return vec![];
        }
        let mut stamps = Vec::new();
        self.stamp_items(w, t, args, None, &m.stamps, None, &mut stamps);
        let plain = !m.stamps_depend_on_ret();
        let mut out = Vec::new();
        for st in stamps {
            for a in m.accesses.iter().filter(|a| a.write && Some(a.stamp) == self.decl_of(st.kind)) {
                if let Some(c) = self.cell_of(w, t, args, st, a) {
                    let v = match (&a.val, plain) {
                        (AccVal::Param(i), true) => args.get(*i).cloned(),
                        (AccVal::Int(v), _) => Some(Value::Int(*v)),
                        _ => None,
                    };
                    out.push((c, v));
                }
            }
        }
        out
    }
    fn search<'a>(&'a self, g: &'a ExecGraph<'a>, _to: &'a StampTable, me: LibId) -> Box<dyn WitnessSearch + 'a> {
        Box::new(FileSearch::new(self, g, me))
    }
    fn viable_search<'a>(
        &'a self,
        g: &'a ExecGraph<'a>,
        _to: &'a StampTable,
        me: LibId,
    ) -> Option<Box<dyn WitnessSearch + 'a>> {
        Some(Box::new(FileSearch::viable(self, g, me)?))
    }
}
