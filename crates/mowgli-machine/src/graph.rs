//! getEG (RDMA paper App. D): the execution graph a run of the machine builds.
//! Each call contributes the events of Def. 4.1 (a put its nlR and nrW, a get
//! its nrR and nlW, one event otherwise); po is the threads' call order (the
//! two events of a put or get in that order); a read reads from (rf) the write
//! whose value it found — a pending write in the store buffer or a write-back
//! buffer it looked through, or the last write that reached memory, or the
//! initial value; mo is the order in which writes reach memory (their
//! observation points, App. D's annotated `M[x ↦ v]` steps); a poll polls from
//! (pf) the NIC write of the operation whose cn it removed.

use std::collections::HashMap;

use mowgli_core::{Value, World};

use crate::trie::{Call, Op};
use crate::{Ev, Src};

#[derive(Clone, Debug)]
pub struct GEvent {
    pub ev: Ev,
    pub part: u8,
    pub kind: &'static str,
    pub loc: Option<u32>,
    pub node: Option<u32>,
    pub rval: Option<Value>,
    pub wval: Option<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct Graph {
    threads: Vec<String>,
    locs: Vec<String>,
    pub events: Vec<GEvent>,
    index: HashMap<(Ev, u8), usize>,
    last_writer: Vec<Option<usize>>,
    /// (write, read); `None`: the initial value.
    pub rf: Vec<(Option<usize>, usize)>,
    /// Per location, the writes in the order they reached memory.
    pub mo: Vec<Vec<usize>>,
    pub pf: Vec<(usize, usize)>,
    /// The order in which the events happened in the run (issue points).
    pub order: Vec<usize>,
}

impl Graph {
    pub fn new(world: &World) -> Graph {
        Graph {
            threads: world.threads.iter().map(|t| t.name.clone()).collect(),
            locs: world.locs.iter().map(|l| l.name.clone()).collect(),
            last_writer: vec![None; world.locs.len()],
            mo: vec![vec![]; world.locs.len()],
            ..Default::default()
        }
    }

    fn add(&mut self, e: GEvent) -> usize {
        let i = self.events.len();
        self.index.insert((e.ev, e.part), i);
        self.events.push(e);
        i
    }

    /// The events of a call, created when the thread executes it.
    pub fn event(&mut self, ev: Ev, c: &Call, ret: &Value, _w: &World) {
        let ge = |part, kind, loc: Option<usize>, node: Option<u32>| GEvent {
            ev,
            part,
            kind,
            loc: loc.map(|l| l as u32),
            node,
            rval: None,
            wval: None,
        };
        match &c.op {
            Op::Read(x) => {
                self.add(ge(0, "lR", Some(*x), None));
            }
            Op::Write(x, v) => {
                let i = self.add(ge(0, "lW", Some(*x), None));
                self.events[i].wval = Some(v.clone());
            }
            Op::Cas(x, e, n) => {
                let ok = ret == e;
                let i = self.add(ge(0, if ok { "CAS" } else { "CASF" }, Some(*x), None));
                if ok {
                    self.events[i].wval = Some(n.clone());
                }
            }
            Op::Mfence => {
                self.add(ge(0, "F", None, None));
            }
            Op::SetOp(name) => {
                self.add(ge(0, name, None, None));
            }
            Op::Poll(n) => {
                self.add(ge(0, "P", None, Some(*n)));
            }
            Op::Rfence(n) => {
                self.add(ge(0, "nF", None, Some(*n)));
            }
            Op::Put { dst, src } => {
                self.add(ge(0, "nlR", Some(*src), None));
                self.add(ge(1, "nrW", Some(*dst), None));
            }
            Op::Get { dst, src } => {
                self.add(ge(0, "nrR", Some(*src), None));
                self.add(ge(1, "nlW", Some(*dst), None));
            }
            // a remote RMW (issue 33): the NIC's atomic read of the target, the
            // local write of the old value (as a get's), and the atomic write of
            // the target (none for a failed RCAS: it then has no value)
            Op::Rcas { dst, tgt, .. } | Op::Rfaa { dst, tgt, .. } => {
                self.add(ge(0, "naR", Some(*tgt), None));
                self.add(ge(1, "nlW", Some(*dst), None));
                self.add(ge(2, "naW", Some(*tgt), None));
            }
        }
        let ids: Vec<usize> = (0..2u8).filter_map(|p| self.index.get(&(ev, p)).copied()).collect();
        if let Some(&first) = ids.first() {
            self.order.push(first);
        }
    }

    pub fn read(&mut self, sub: (Ev, u8), loc: u32, v: &Value, src: Src) {
        let Some(&r) = self.index.get(&sub) else { return };
        self.events[r].rval = Some(v.clone());
        let w = match src {
            Src::Entry(ev, part) => self.index.get(&(ev, part)).copied(),
            Src::Memory => self.last_writer[loc as usize],
        };
        self.rf.push((w, r));
    }

    /// A NIC write enters its write-back buffer (its issue point).
    pub fn issue_write(&mut self, sub: (Ev, u8), _loc: u32, v: &Value) {
        if let Some(&w) = self.index.get(&sub) {
            self.events[w].wval = Some(v.clone());
            self.order.push(w);
        }
    }

    /// A write reaches memory (its observation point).
    pub fn write_mem(&mut self, sub: (Ev, u8), loc: u32) {
        if let Some(&w) = self.index.get(&sub) {
            self.mo[loc as usize].push(w);
            self.last_writer[loc as usize] = Some(w);
        }
    }

    pub fn polls(&mut self, write: (Ev, u8), poll: (Ev, u8)) {
        if let (Some(&w), Some(&p)) = (self.index.get(&write), self.index.get(&poll)) {
            self.pf.push((w, p));
        }
    }

    /// `T1.2` for the event of the thread's call 2, `T1.2r`/`T1.2w` for the
    /// read and write event of a put or get, `T1.2r`/`T1.2w`/`T1.2a` for the
    /// remote read, local write and remote (atomic) write of a remote RMW.
    pub fn name(&self, i: usize) -> String {
        let e = &self.events[i];
        let pair = self.index.contains_key(&(e.ev, 1));
        let base = format!("{}.{}", self.threads[e.ev.0 as usize], e.ev.1);
        if pair {
            format!("{base}{}", ["r", "w", "a"][e.part.min(2) as usize])
        } else {
            base
        }
    }

    pub fn label(&self, i: usize) -> String {
        let e = &self.events[i];
        let mut args = Vec::new();
        if let Some(l) = e.loc {
            args.push(self.locs[l as usize].clone());
        }
        if let Some(v) = &e.rval {
            args.push(format!("{v}"));
        }
        if let Some(v) = &e.wval {
            args.push(format!("{v}"));
        }
        if let Some(n) = e.node {
            args.push(n.to_string());
        }
        format!("{}({})", e.kind, args.join(", "))
    }

    /// The graph as text: events per thread in po, then rf, mo, pf.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for (t, tn) in self.threads.iter().enumerate() {
            let mut mine: Vec<usize> = (0..self.events.len()).filter(|&i| self.events[i].ev.0 as usize == t).collect();
            mine.sort_by_key(|&i| (self.events[i].ev.1, self.events[i].part));
            let evs: Vec<String> = mine.iter().map(|&i| format!("{}: {}", self.name(i), self.label(i))).collect();
            s += &format!("  {tn} (po): {}\n", if evs.is_empty() { "-".into() } else { evs.join(" ; ") });
        }
        let rf: Vec<String> = self
            .rf
            .iter()
            .map(|(w, r)| format!("{} -> {}", w.map(|w| self.name(w)).unwrap_or_else(|| "init".into()), self.name(*r)))
            .collect();
        s += &format!("  rf: {}\n", if rf.is_empty() { "-".into() } else { rf.join(", ") });
        let mut mo = Vec::new();
        for (l, ws) in self.mo.iter().enumerate() {
            if !ws.is_empty() {
                let chain: Vec<String> = ws.iter().map(|&w| self.name(w)).collect();
                mo.push(format!("{}: init -> {}", self.locs[l], chain.join(" -> ")));
            }
        }
        s += &format!("  mo: {}\n", if mo.is_empty() { "-".into() } else { mo.join("; ") });
        if !self.pf.is_empty() {
            let pf: Vec<String> =
                self.pf.iter().map(|(w, p)| format!("{} -> {}", self.name(*w), self.name(*p))).collect();
            s += &format!("  pf: {}\n", pf.join(", "));
        }
        s
    }

    /// The graph in Graphviz DOT (threads as columns, po down; `mowgli_draw`).
    pub fn dot(&self, title: &str) -> String {
        mowgli_draw::dot::dot(&self.drawing(title), "getEG")
    }

    /// The graph as a drawing: a column per thread, its events down in po, rf
    /// (from an `init` node for initial values), mo and pf across.
    pub fn drawing(&self, title: &str) -> mowgli_draw::Graph {
        let mut g = mowgli_draw::Graph::new(title);
        for tn in &self.threads {
            g.column(tn.clone());
        }
        let mut node = vec![0usize; self.events.len()];
        for t in 0..self.threads.len() {
            let mut mine: Vec<usize> = (0..self.events.len()).filter(|&i| self.events[i].ev.0 as usize == t).collect();
            mine.sort_by_key(|&i| (self.events[i].ev.1, self.events[i].part));
            for (r, &i) in mine.iter().enumerate() {
                node[i] = g.node(t, r, vec![self.name(i), self.label(i)]);
            }
        }
        g.chain_columns("po");
        let init = self.rf.iter().any(|(w, _)| w.is_none()).then(|| {
            let c = g.column("init");
            g.node(c, 0, vec!["init".into()])
        });
        for (w, r) in &self.rf {
            match (w, init) {
                (Some(w), _) => g.edge(node[*w], node[*r], "rf"),
                (None, Some(i)) => g.edge(i, node[*r], "rf"),
                (None, None) => {}
            }
        }
        for ws in &self.mo {
            for p in ws.windows(2) {
                g.edge(node[p[0]], node[p[1]], "mo");
            }
        }
        for (w, p) in &self.pf {
            g.edge(node[*w], node[*p], "pf");
        }
        g
    }
}
