//! Exploring the state space: every outcome (depth first, with the visited set and
//! the eager transitions), a shortest run to an outcome, and a state as text.

use std::collections::{BinaryHeap, HashMap, HashSet};
use std::time::Instant;

use crate::graph::Graph;
use crate::state::*;
use crate::{Ev, Explored, Explorer, Machine, MachineError, Options, Outcome, Program, Run, State, Step};

impl Explorer<'_> {
    /// Applies eager transitions until none is enabled (with the reduction).
    fn close(&self, s: &mut State, reduce: bool, trail: &mut Option<Vec<Step>>, n: &mut usize, buf: &mut Vec<Step>) {
        if !reduce {
            return;
        }
        loop {
            self.steps_into(s, buf);
            let Some(st) = buf.iter().find(|st| self.eager(s, st)).copied() else { return };
            self.apply_mut(s, &st, None);
            *n += 1;
            if let Some(tr) = trail {
                tr.push(st);
            }
        }
    }

    /// Every final outcome, exploring the state space depth first.
    pub fn explore(&self, opts: &Options) -> Result<Explored, MachineError> {
        let start = Instant::now();
        let mut res = Explored { bounded: self.tries.iter().any(|t| t.bound_hit), ..Default::default() };
        let mut none = None;
        let mut n = 0usize;
        let mut buf = Vec::new();
        let mut steps = Vec::new();
        let mut init = self.initial();
        self.close(&mut init, opts.reduce, &mut none, &mut n, &mut buf);
        let mut seen: HashSet<Key, std::hash::BuildHasherDefault<Id>> = HashSet::default();
        let mut stack = vec![init.clone()];
        seen.insert(Key::new(init));
        let mut finals: HashSet<Vec<u32>, FxBuild> = HashSet::default();
        let mut words = 0usize;
        while let Some(s) = stack.pop() {
            self.steps_into(&s, &mut steps);
            if steps.is_empty() {
                if self.finished(&s) {
                    // the outcome depends on the tree nodes and memory only
                    let mut key = s.pc.clone();
                    key.extend_from_slice(&s.w[..self.nlocs]);
                    if finals.insert(key) {
                        res.outcomes.insert(self.outcome(&s));
                    }
                } else {
                    res.deadlocks += 1;
                }
                continue;
            }
            for st in &steps {
                n += 1;
                let mut next = s.clone();
                self.apply_mut(&mut next, st, None);
                self.close(&mut next, opts.reduce, &mut none, &mut n, &mut buf);
                let key = Key::new(next);
                if !seen.contains(&key) {
                    if seen.len() >= opts.max_states {
                        return Err(MachineError::TooManyStates(opts.max_states));
                    }
                    // each state is held twice (the set and the stack), at most
                    words += 2 * (key.s.pc.len() + key.s.w.len());
                    if words > opts.max_words {
                        return Err(MachineError::TooLarge(opts.max_words));
                    }
                    stack.push(key.s.clone());
                    seen.insert(key);
                }
            }
        }
        res.states = seen.len();
        res.transitions = n;
        res.micros = start.elapsed().as_micros();
        Ok(res)
    }

    /// A shortest run (fewest transitions) to a final state whose outcome
    /// satisfies `want`, with the execution graph it builds.
    pub fn shortest_run(
        &self,
        opts: &Options,
        want: &mut dyn FnMut(&Outcome) -> bool,
    ) -> Result<Option<Run>, MachineError> {
        let mut n = 0usize;
        let mut buf = Vec::new();
        let mut trail = Some(vec![]);
        let mut init = self.initial();
        self.close(&mut init, opts.reduce, &mut trail, &mut n, &mut buf);
        let init_trail = trail.take().unwrap_or_default();
        // Dijkstra on the number of transitions (an edge folds eager steps in)
        let mut ids: HashMap<State, usize> = HashMap::new();
        let mut states: Vec<State> = vec![init.clone()];
        let mut parent: Vec<Option<(usize, Vec<Step>)>> = vec![None];
        let mut dist: Vec<usize> = vec![init_trail.len()];
        ids.insert(init, 0);
        let mut heap = BinaryHeap::new();
        let mut words = 0usize;
        heap.push(std::cmp::Reverse((init_trail.len(), 0usize)));
        let mut done = vec![false];
        let mut found = None;
        while let Some(std::cmp::Reverse((d, i))) = heap.pop() {
            if done[i] || d > dist[i] {
                continue;
            }
            done[i] = true;
            let s = states[i].clone();
            let steps = self.steps(&s);
            if steps.is_empty() {
                if self.finished(&s) && want(&self.outcome(&s)) {
                    found = Some(i);
                    break;
                }
                continue;
            }
            for st in steps {
                let mut tr = Some(vec![st]);
                let mut next = self.apply(&s, &st, None);
                self.close(&mut next, opts.reduce, &mut tr, &mut n, &mut buf);
                let tr = tr.unwrap_or_default();
                let nd = d + tr.len();
                let j = match ids.get(&next) {
                    Some(&j) => j,
                    None => {
                        if states.len() >= opts.max_states {
                            return Err(MachineError::TooManyStates(opts.max_states));
                        }
                        // held twice: the map's key and the list
                        words += 2 * (next.pc.len() + next.w.len());
                        if words > opts.max_words {
                            return Err(MachineError::TooLarge(opts.max_words));
                        }
                        states.push(next.clone());
                        parent.push(None);
                        dist.push(usize::MAX);
                        done.push(false);
                        ids.insert(next, states.len() - 1);
                        states.len() - 1
                    }
                };
                if nd < dist[j] {
                    dist[j] = nd;
                    parent[j] = Some((i, tr));
                    heap.push(std::cmp::Reverse((nd, j)));
                }
            }
        }
        let Some(mut i) = found else { return Ok(None) };
        let mut chunks = Vec::new();
        while let Some((p, tr)) = parent[i].clone() {
            chunks.push(tr);
            i = p;
        }
        let mut path = init_trail;
        for c in chunks.into_iter().rev() {
            path.extend(c);
        }
        // replay, recording the states and the execution graph
        let mut g = Graph::new(self.prog.world);
        let mut s = self.initial();
        let mut steps = Vec::new();
        for st in path {
            s = self.apply(&s, &st, Some(&mut g));
            steps.push((st, s.clone()));
        }
        let outcome = self.outcome(&s);
        Ok(Some(Run { steps, graph: g, outcome }))
    }

    /// The state as text: store buffers, queue pairs (non-empty buffers), memory.
    pub fn show_state(&self, s: &State) -> String {
        let w = self.prog.world;
        let name = |l: u32| w.locs[l as usize].name.clone();
        let shv = |v: u32| w.show(&self.vals[v as usize]);
        let evn = |e: &Ev| format!("{}.{}", w.threads[e.0 as usize].name, e.1);
        let show = |e: &E| match e.kind {
            K::W => format!("{} := {}", name(e.a), shv(e.b)),
            K::SbPut => format!("put {} := {}", name(e.a), name(e.b)),
            K::SbGet => format!("get {} := {}", name(e.a), name(e.b)),
            K::SbRf => format!("rfence {}", e.a),
            K::Put | K::Get => format!("{} := {}", name(e.a), name(e.b)),
            K::PutV | K::GetV => format!("{} := {}", name(e.a), shv(e.b)),
            K::Ack => format!("ack_p({})", evn(&e.ev)),
            K::Rf => "rfence".to_string(),
            K::Cn => format!("cn({})", evn(&e.ev)),
            K::SbRmw | K::Rmw => {
                let r = &self.rmws[e.a as usize];
                let op = match r.kind {
                    crate::RmwKind::Cas { expected, new } => format!("RCAS({}, {})", shv(expected), shv(new)),
                    crate::RmwKind::Faa { add } => format!("RFAA({add})"),
                };
                format!("{}{} := {} {op}", if e.kind == K::SbRmw { "rmw " } else { "" }, name(r.dst), name(r.tgt))
            }
            K::RmwW => format!("{} := {} (atomic)", name(e.a), shv(e.b)),
        };
        let list = |v: Vec<E>| format!("[{}]", v.iter().map(show).collect::<Vec<_>>().join(", "));
        let mut out = String::new();
        for t in 0..self.tries.len() {
            if self.len(s, self.sb(t)) > 0 {
                out +=
                    &format!("      sb {}: {} (oldest first)\n", w.threads[t].name, list(self.entries(s, self.sb(t))));
            }
        }
        for i in 0..self.tries.len() * self.nodes.len() {
            let bufs: Vec<(&str, usize)> = match self.machine {
                Machine::Concrete => {
                    vec![("req_L", REQ), ("in_R", IN), ("out_R", OUT), ("rsp_L", RSP), ("wb_R", WBR), ("wb_L", WBL)]
                }
                Machine::Simplified => vec![("pipe", REQ), ("wb_R", WBR), ("wb_L", WBL)],
            };
            let parts: Vec<String> = bufs
                .into_iter()
                .filter(|(_, k)| self.len(s, self.qb(i, *k)) > 0)
                .map(|(nm, k)| format!("{nm} {}", list(self.entries(s, self.qb(i, k)))))
                .collect();
            if parts.is_empty() {
                continue;
            }
            let (t, n) = self.qp_node(i);
            out += &format!("      qp {}->{}: {}\n", w.threads[t].name, n, parts.join("  "));
        }
        let mem: Vec<String> = w
            .locs
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.implicit)
            .map(|(i, l)| format!("{}@{}={}", l.name, l.home.unwrap_or(0), shv(s.w[i])))
            .collect();
        out += &format!("      memory: {}\n", mem.join(" "));
        out
    }
}

/// Explores `prog` on one machine.
pub fn explore(prog: &Program, opts: &Options) -> Result<Explored, MachineError> {
    Explorer::with_options(prog, opts)?.explore(opts)
}
