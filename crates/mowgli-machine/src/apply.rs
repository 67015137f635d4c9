//! Taking a step: the state after a transition of [`Explorer::steps`], and the
//! events and edges it adds to a run's graph.

use crate::graph::Graph;
use crate::state::*;
use crate::trie::FOp;
use crate::{faa_sum, Atomicity, Ev, Explorer, RmwKind, Rule, Src, Step};

impl Explorer<'_> {
    /// Applies an enabled transition; `g` records the execution graph (getEG).
    pub fn apply(&self, s: &State, step: &Step, g: Option<&mut Graph>) -> State {
        let mut s = s.clone();
        self.apply_mut(&mut s, step, g);
        s
    }

    pub(crate) fn apply_mut(&self, s: &mut State, step: &Step, mut g: Option<&mut Graph>) {
        let t = step.thread;
        let node = &self.fnodes[t][s.pc[t] as usize];
        let call = || self.tries[t].nodes[s.pc[t] as usize].call.as_ref();
        let ev: Ev = (t as u16, node.depth);
        let val = |v: u32| &self.vals[v as usize];
        match step.rule {
            Rule::LR => {
                let Some(FOp::Read(x)) = node.op else { return };
                let (v, src) = self.lookup_sb(s, t, x);
                if let Some(g) = g.as_deref_mut() {
                    if let Some(c) = call() {
                        g.event(ev, c, val(v), self.prog.world);
                        g.read((ev, 0), x, val(v), src);
                    }
                }
                s.pc[t] = node.child(v).unwrap_or(0);
            }
            Rule::LW | Rule::Put | Rule::Get | Rule::RF | Rule::Rmw => {
                let Some(op) = node.op else { return };
                let (kid, next) = node.kids[step.choice];
                let e = match op {
                    FOp::Write(x, v) => E::new(K::W, x, v, 0, ev),
                    FOp::Put { dst, src } => E::new(K::SbPut, dst, src, kid, ev),
                    FOp::Get { dst, src } => E::new(K::SbGet, dst, src, kid, ev),
                    FOp::Rfence(n) => E::new(K::SbRf, n, 0, 0, ev),
                    FOp::Rmw(r) => E::new(K::SbRmw, r, 0, kid, ev),
                    _ => return,
                };
                if let Some(g) = g.as_deref_mut() {
                    if let Some(c) = call() {
                        g.event(ev, c, val(kid), self.prog.world);
                    }
                }
                s.pc[t] = next;
                self.push(s, self.sb(t), e);
            }
            Rule::CASS | Rule::CASF => {
                let Some(FOp::Cas(x, _, n)) = node.op else { return };
                let v = self.mem(s, x);
                if let Some(g) = g.as_deref_mut() {
                    if let Some(c) = call() {
                        g.event(ev, c, val(v), self.prog.world);
                        g.read((ev, 0), x, val(v), Src::Memory);
                    }
                }
                s.pc[t] = node.child(v).unwrap_or(0);
                if step.rule == Rule::CASS {
                    s.w[x as usize] = n;
                    if let Some(g) = g.as_deref_mut() {
                        g.write_mem((ev, 0), x);
                    }
                }
            }
            Rule::F | Rule::SetOp => {
                let (kid, next) = node.kids[step.choice];
                if let Some(g) = g.as_deref_mut() {
                    if let Some(c) = call() {
                        g.event(ev, c, val(kid), self.prog.world);
                    }
                }
                s.pc[t] = next;
            }
            Rule::P => {
                let i = self.qpi(t, step.node.unwrap_or(0));
                let cn = self.get(s, self.qb(i, WBL), 0);
                if cn.kind != K::Cn {
                    return;
                }
                if let Some(g) = g.as_deref_mut() {
                    if let Some(c) = call() {
                        g.event(ev, c, val(cn.id), self.prog.world);
                        g.polls((cn.ev, 1), (ev, 0));
                    }
                }
                self.remove(s, self.qb(i, WBL), 0);
                s.pc[t] = node.child(cn.id).unwrap_or(0);
            }
            Rule::SbW => {
                let e = self.remove(s, self.sb(t), 0);
                s.w[e.a as usize] = e.b;
                if let Some(g) = g.as_deref_mut() {
                    g.write_mem((e.ev, 0), e.a);
                }
            }
            Rule::SbRc => {
                let e = self.remove(s, self.sb(t), 0);
                let (kind, n) = match e.kind {
                    K::SbPut => (K::Put, self.node_of(e.a)),
                    K::SbGet => (K::Get, self.node_of(e.b)),
                    K::SbRmw => (K::Rmw, self.node_of(self.rmws[e.a as usize].tgt)),
                    _ => (K::Rf, e.a),
                };
                let i = self.qpi(t, n);
                self.push(s, self.qb(i, REQ), E { kind, ..e });
            }
            _ => {
                let i = self.qpi(t, step.node.unwrap_or(0));
                self.apply_qp(s, i, step, g);
            }
        }
    }

    fn apply_qp(&self, s: &mut State, i: usize, step: &Step, mut g: Option<&mut Graph>) {
        let pcie = self.pcie;
        let b = |k| self.qb(i, k);
        let val = |v: u32| &self.vals[v as usize];
        match step.rule {
            Rule::G1 | Rule::A1 => {
                let e = self.remove(s, b(REQ), 0);
                self.push(s, b(IN), e);
            }
            Rule::G2 | Rule::A2 => {
                let e = self.remove(s, b(IN), 0);
                self.push(s, b(OUT), e);
            }
            Rule::G3 | Rule::SG14 => {
                let buf = if step.rule == Rule::G3 { b(OUT) } else { b(REQ) };
                let e = self.get(s, buf, step.pos);
                if e.kind != K::Get {
                    return;
                }
                let (v, from) = if pcie { (self.mem(s, e.b), Src::Memory) } else { self.lookup_wb(s, b(WBR), e.b) };
                if let Some(g) = g.as_deref_mut() {
                    g.read((e.ev, 0), e.b, val(v), from);
                }
                self.set(s, buf, step.pos, E { kind: K::GetV, b: v, ..e });
            }
            Rule::A3 | Rule::SA13 => {
                let buf = if step.rule == Rule::A3 { b(OUT) } else { b(REQ) };
                let e = self.get(s, buf, step.pos);
                if e.kind != K::Rmw {
                    return;
                }
                let r = self.rmws[e.a as usize];
                let y = r.tgt;
                // the read: where G3 reads (memory with PCIe, through this queue
                // pair's wb_R without it); the global variant reads memory (its
                // premise: no write to y pending in this wb_R, see `rmw_ready`)
                let (old, from) = if pcie || self.atomics == Atomicity::Global {
                    (self.mem(s, y), Src::Memory)
                } else {
                    self.lookup_wb(s, b(WBR), y)
                };
                let new = match r.kind {
                    RmwKind::Cas { expected, new } => (old == expected).then_some(new),
                    RmwKind::Faa { add } => faa_sum(val(old), add).map(|v| self.ids[&v]),
                };
                if let Some(g) = g.as_deref_mut() {
                    g.read((e.ev, 0), y, val(old), from);
                }
                // the write, in the same step
                if let Some(v) = new {
                    if let Some(g) = g.as_deref_mut() {
                        g.issue_write((e.ev, 2), y, val(v));
                    }
                    match self.atomics {
                        Atomicity::Hca => self.push(s, b(WBR), E::new(K::RmwW, y, v, e.id, e.ev)),
                        Atomicity::Global => {
                            s.w[y as usize] = v;
                            if let Some(g) = g.as_deref_mut() {
                                g.write_mem((e.ev, 2), y);
                            }
                        }
                    }
                }
                // the old value goes back as a fulfilled get's
                self.set(s, buf, step.pos, E { kind: K::GetV, a: r.dst, b: old, ..e });
            }
            Rule::G4 | Rule::P4 => {
                let e = self.remove(s, b(OUT), 0);
                self.push(s, b(RSP), e);
            }
            Rule::G5 | Rule::SG5 => {
                let e = self.remove(s, if step.rule == Rule::G5 { b(RSP) } else { b(REQ) }, 0);
                if e.kind != K::GetV {
                    return;
                }
                if let Some(g) = g.as_deref_mut() {
                    g.issue_write((e.ev, 1), e.a, val(e.b));
                }
                self.push(s, b(WBL), e);
                self.push(s, b(WBL), E::new(K::Cn, 0, 0, e.id, e.ev));
            }
            Rule::G6 | Rule::SG6 => {
                let e = self.remove(s, b(WBL), step.pos);
                s.w[e.a as usize] = e.b;
                if let Some(g) = g.as_deref_mut() {
                    g.write_mem((e.ev, 1), e.a);
                }
            }
            Rule::P1 | Rule::SP1 => {
                let pos = if step.rule == Rule::P1 { 0 } else { step.pos };
                let e = self.get(s, b(REQ), pos);
                if e.kind != K::Put {
                    return;
                }
                let (v, from) = if pcie { (self.mem(s, e.b), Src::Memory) } else { self.lookup_wb(s, b(WBL), e.b) };
                if let Some(g) = g.as_deref_mut() {
                    g.read((e.ev, 0), e.b, val(v), from);
                }
                let e = E { kind: K::PutV, b: v, ..e };
                if step.rule == Rule::P1 {
                    self.remove(s, b(REQ), 0);
                    self.push(s, b(IN), e);
                } else {
                    self.set(s, b(REQ), pos, e);
                }
            }
            Rule::P2 | Rule::SP2 => {
                let e = if step.rule == Rule::P2 { self.remove(s, b(IN), 0) } else { self.get(s, b(REQ), step.pos) };
                if e.kind != K::PutV {
                    return;
                }
                if let Some(g) = g.as_deref_mut() {
                    g.issue_write((e.ev, 1), e.a, val(e.b));
                }
                let ack = E::new(K::Ack, 0, 0, e.id, e.ev);
                if step.rule == Rule::P2 {
                    self.push(s, b(OUT), ack);
                } else {
                    self.set(s, b(REQ), step.pos, ack);
                }
                self.push(s, b(WBR), e);
            }
            Rule::P3 | Rule::SP34 => {
                let e = self.remove(s, b(WBR), 0);
                s.w[e.a as usize] = e.b;
                if let Some(g) = g {
                    g.write_mem((e.ev, e.write_part()), e.a);
                }
            }
            Rule::P5 | Rule::SP5 => {
                let e = self.remove(s, if step.rule == Rule::P5 { b(RSP) } else { b(REQ) }, 0);
                self.push(s, b(WBL), E::new(K::Cn, 0, 0, e.id, e.ev));
            }
            Rule::QpRF | Rule::SRF => {
                self.remove(s, b(REQ), 0);
            }
            _ => {}
        }
    }
}
