//! The SC runs of a straight-line litmus test, by an interleaving interpreter
//! written from the litmus text (shared by `tests/robust.rs` and
//! `tests/robust_rmw.rs`; no code of the engine).

pub type Outcome = std::collections::BTreeMap<String, String>;

/// The SC runs of a straight-line generated program, interleaving the paper's events
/// (Def. 5's sc over events: a put is its local read then its remote write, a get its
/// remote read then its local write, each a step of its own; a CAS is one atomic
/// step; a poll needs an unpolled remote operation towards its node, else the run
/// blocks; fences do nothing). A remote RMW (`RCAS(x, y, e, v)`, `RFAA(x, y, k)`)
/// is, as a get, two steps: its read and write of y at once (the atomic step an SC
/// run gives it), then the old value's write to x; a poll completes it as it
/// completes a get. Written here from the litmus text, sharing no code with the
/// engine.
#[allow(clippy::needless_range_loop)]
pub fn sc_interpreter(text: &str) -> std::collections::BTreeSet<Outcome> {
    use std::collections::{BTreeMap, BTreeSet, HashSet};
    #[derive(Clone, Debug)]
    enum Op {
        Read(String, String),
        Write(String, i64),
        Cas(String, String, i64, i64),
        Put(String, Result<i64, String>),
        Get(String, String),
        /// `RCAS(x, y, e, v)` (`Some(e)`) or `RFAA(x, y, v)` (`None`).
        Rmw(String, String, Option<i64>, i64),
        Poll(i64),
        Nop,
    }
    let mut loc_node: BTreeMap<String, i64> = BTreeMap::new();
    let mut init: BTreeMap<String, i64> = BTreeMap::new();
    let mut threads: Vec<(String, i64, Vec<Op>)> = Vec::new();
    let mut cur: Option<usize> = None;
    for line in text.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("loc ") {
            let parts: Vec<&str> = rest.split_whitespace().collect();
            loc_node.insert(parts[0].into(), parts[2].parse().expect("node"));
            init.insert(parts[0].into(), if parts.len() > 4 { parts[4].parse().expect("init") } else { 0 });
        } else if let Some(rest) = l.strip_prefix("thread ") {
            let parts: Vec<&str> = rest.split_whitespace().collect();
            threads.push((parts[0].into(), parts[2].parse().expect("node"), vec![]));
        } else if l.ends_with(':') && !l.contains(' ') {
            let name = &l[..l.len() - 1];
            cur = threads.iter().position(|t| t.0 == name);
        } else if line.starts_with("  ") {
            let t = cur.expect("a body");
            let (reg, call) = match l.split_once(" = ") {
                Some((r, c)) => (Some(r.to_string()), c),
                None => (None, l),
            };
            let (m, args) = call.split_once('(').expect("a call");
            let args: Vec<String> =
                args.trim_end_matches(')').split(',').map(|a| a.trim().to_string()).filter(|a| !a.is_empty()).collect();
            let int = |a: &String| a.parse::<i64>().expect("integer");
            let op = match m {
                "Read" => Op::Read(reg.expect("register"), args[0].clone()),
                "Write" => Op::Write(args[0].clone(), int(&args[1])),
                "CAS" => Op::Cas(reg.expect("register"), args[0].clone(), int(&args[1]), int(&args[2])),
                "Put" => Op::Put(args[0].clone(), args[1].parse::<i64>().map_err(|_| args[1].clone())),
                "Get" => Op::Get(args[0].clone(), args[1].clone()),
                "RCAS" => Op::Rmw(args[0].clone(), args[1].clone(), Some(int(&args[2])), int(&args[3])),
                "RFAA" => Op::Rmw(args[0].clone(), args[1].clone(), None, int(&args[2])),
                "Poll" => Op::Poll(int(&args[0])),
                "Mfence" | "Rfence" => Op::Nop,
                other => panic!("unexpected method {other}"),
            };
            threads[t].2.push(op);
        }
    }
    // state: per thread (pc, step within the op, temp), memory, registers, pending per (thread, node)
    #[derive(Clone, PartialEq, Eq, Hash)]
    struct St {
        pc: Vec<(usize, u8, i64)>,
        mem: BTreeMap<String, i64>,
        regs: BTreeMap<String, i64>,
        pending: BTreeMap<(usize, i64), i64>,
    }
    let n = threads.len();
    let start = St { pc: vec![(0, 0, 0); n], mem: init.clone(), regs: BTreeMap::new(), pending: BTreeMap::new() };
    let mut seen = HashSet::new();
    let mut stack = vec![start];
    let mut out = BTreeSet::new();
    while let Some(s) = stack.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        let mut done = true;
        for t in 0..n {
            let (pc, step, tmp) = s.pc[t];
            let Some(op) = threads[t].2.get(pc) else { continue };
            done = false;
            let mut s2 = s.clone();
            let reg = |r: &String| format!("{}:{r}", threads[t].0);
            let next = |s2: &mut St| s2.pc[t] = (pc + 1, 0, 0);
            match op {
                Op::Read(r, x) => {
                    s2.regs.insert(reg(r), s.mem[x]);
                    next(&mut s2);
                }
                Op::Write(x, v) => {
                    s2.mem.insert(x.clone(), *v);
                    next(&mut s2);
                }
                Op::Cas(r, x, a, b) => {
                    let old = s.mem[x];
                    if old == *a {
                        s2.mem.insert(x.clone(), *b);
                    }
                    s2.regs.insert(reg(r), old);
                    next(&mut s2);
                }
                Op::Put(_, src) if step == 0 => {
                    let v = match src {
                        Ok(v) => *v,
                        Err(y) => s.mem[y],
                    };
                    s2.pc[t] = (pc, 1, v);
                }
                Op::Put(d, _) => {
                    s2.mem.insert(d.clone(), tmp);
                    *s2.pending.entry((t, loc_node[d])).or_default() += 1;
                    next(&mut s2);
                }
                Op::Get(_, y) if step == 0 => s2.pc[t] = (pc, 1, s.mem[y]),
                Op::Get(a, y) => {
                    s2.mem.insert(a.clone(), tmp);
                    *s2.pending.entry((t, loc_node[y])).or_default() += 1;
                    next(&mut s2);
                }
                Op::Rmw(_, y, expect, v) if step == 0 => {
                    let old = s.mem[y];
                    match expect {
                        Some(e) if *e == old => {
                            s2.mem.insert(y.clone(), *v);
                        }
                        Some(_) => {}
                        None => {
                            s2.mem.insert(y.clone(), old + v);
                        }
                    }
                    s2.pc[t] = (pc, 1, old);
                }
                Op::Rmw(x, y, _, _) => {
                    s2.mem.insert(x.clone(), tmp);
                    *s2.pending.entry((t, loc_node[y])).or_default() += 1;
                    next(&mut s2);
                }
                Op::Poll(m) => {
                    let c = s2.pending.entry((t, *m)).or_default();
                    if *c == 0 {
                        continue; // blocks
                    }
                    *c -= 1;
                    next(&mut s2);
                }
                Op::Nop => next(&mut s2),
            }
            stack.push(s2);
        }
        if done {
            let mut o: Outcome = s.regs.iter().map(|(k, v)| (k.clone(), v.to_string())).collect();
            for (x, v) in &s.mem {
                o.insert(x.clone(), v.to_string());
            }
            out.insert(o);
        }
    }
    out
}
