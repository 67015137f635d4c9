//! An independent x86-TSO interpreter for the tests (`tests/props.rs`,
//! `tests/herd.rs`): x86-TSO as an abstract machine (Owens, Sarkar, Sewell, "A
//! Better x86 Memory Model: x86-TSO", TPHOLs 2009; Sewell et al., "x86-TSO", CACM
//! 2010): per-thread FIFO store buffers; a read takes the newest write to its
//! location in its own buffer, else memory; a buffered write reaches memory at any
//! time, oldest first; MFENCE and a locked CAS need an empty buffer. It shares no
//! code with Mowgli.
//!
//! Besides final states it counts executions the way herd7 does: an execution is
//! a reads-from map (which write each read reads, or the initial value) and a
//! coherence order (the order in which the writes to each location reach memory).
//! Many runs of the machine may give one execution; each is counted once.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashSet};

/// The value an instruction writes: an immediate, or a register of the thread.
#[derive(Clone, Debug)]
pub enum Src {
    Imm(i64),
    Reg(usize),
}

#[derive(Clone, Debug)]
pub enum Op {
    /// `[loc] := src`
    Write(usize, Src),
    /// `reg := [loc]`
    Read(usize, usize),
    /// `reg := src`
    Set(usize, Src),
    Mfence,
    /// A locked compare-and-swap: `reg := [loc]; if reg = expect then [loc] := new`.
    Cas {
        reg: usize,
        loc: usize,
        expect: i64,
        new: i64,
    },
}

pub struct Program {
    /// Initial value of each location.
    pub init: Vec<i64>,
    pub threads: Vec<Vec<Op>>,
    /// Initial value of each register, per thread (this also fixes how many
    /// registers each thread has).
    pub regs: Vec<Vec<i64>>,
}

/// A final state: every register of every thread and every location.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Final {
    pub regs: Vec<Vec<i64>>,
    pub mem: Vec<i64>,
}

/// A write: (thread, instruction index).
type Wid = (usize, usize);

#[derive(Clone, PartialEq, Eq, Hash)]
struct St {
    pc: Vec<usize>,
    /// Per thread: buffered writes (location, value, write), oldest first.
    buf: Vec<Vec<(usize, i64, Wid)>>,
    /// Per location: its value and the write that put it there.
    mem: Vec<(i64, Option<Wid>)>,
    regs: Vec<Vec<i64>>,
    /// Reads-from: (thread, instruction) → the write read (None: initial value).
    rf: BTreeMap<(usize, usize), Option<Wid>>,
    /// Coherence: per location, the writes in the order they reached memory.
    co: Vec<Vec<Wid>>,
}

/// Every final state with the number of distinct executions (rf, co) reaching it.
pub fn run(p: &Program) -> BTreeMap<Final, usize> {
    let n = p.threads.len();
    let init = St {
        pc: vec![0; n],
        buf: vec![vec![]; n],
        mem: p.init.iter().map(|&v| (v, None)).collect(),
        regs: p.regs.clone(),
        rf: BTreeMap::new(),
        co: vec![vec![]; p.init.len()],
    };
    type Exec = (BTreeMap<(usize, usize), Option<Wid>>, Vec<Vec<Wid>>);
    let mut seen = HashSet::new();
    let mut stack = vec![init];
    let mut out: BTreeMap<Final, BTreeSet<Exec>> = BTreeMap::new();
    while let Some(s) = stack.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        let mut done = true;
        for t in 0..n {
            // the oldest buffered write reaches memory
            if !s.buf[t].is_empty() {
                done = false;
                let mut s2 = s.clone();
                let (k, v, w) = s2.buf[t].remove(0);
                s2.mem[k] = (v, Some(w));
                s2.co[k].push(w);
                stack.push(s2);
            }
            let Some(op) = p.threads[t].get(s.pc[t]) else { continue };
            done = false;
            let i = s.pc[t];
            let mut s2 = s.clone();
            s2.pc[t] += 1;
            let val = |src: &Src| match src {
                Src::Imm(v) => *v,
                Src::Reg(r) => s.regs[t][*r],
            };
            match op {
                Op::Write(k, src) => s2.buf[t].push((*k, val(src), (t, i))),
                Op::Read(r, k) => {
                    let (v, w) = match s.buf[t].iter().rev().find(|(l, _, _)| l == k) {
                        Some(&(_, v, w)) => (v, Some(w)),
                        None => s.mem[*k],
                    };
                    s2.regs[t][*r] = v;
                    s2.rf.insert((t, i), w);
                }
                Op::Set(r, src) => s2.regs[t][*r] = val(src),
                Op::Mfence => {
                    if !s.buf[t].is_empty() {
                        continue;
                    }
                }
                Op::Cas { reg, loc, expect, new } => {
                    if !s.buf[t].is_empty() {
                        continue;
                    }
                    let (old, w) = s.mem[*loc];
                    s2.rf.insert((t, i), w);
                    if old == *expect {
                        s2.mem[*loc] = (*new, Some((t, i)));
                        s2.co[*loc].push((t, i));
                    }
                    s2.regs[t][*reg] = old;
                }
            }
            stack.push(s2);
        }
        if done {
            let f = Final { regs: s.regs.clone(), mem: s.mem.iter().map(|m| m.0).collect() };
            out.entry(f).or_default().insert((s.rf.clone(), s.co.clone()));
        }
    }
    out.into_iter().map(|(f, e)| (f, e.len())).collect()
}
