//! The program space of pivot generation: coreRMA programs (one per renaming class)
//! with the paper's constraints (§6.1), enumerated either plainly (every program of a
//! size) or *per rule*: only the programs whose statements give the rule something to
//! order (a necessary condition for the rule to be a pivot, [`Need`]).
//!
//! Why the per-rule condition is necessary: a test for rule X is a program with an
//! outcome that coreRMA without X allows and stock coreRMA forbids, so X must put
//! some hb edge in some execution of the program. Every rule of Fig. 4 other than
//! R1, R2 and WS orders actions of one process in po whose statements have a fixed
//! shape (`Graph::derive`): PG a put's or get's actions, GA an rga's, CAS-F/CAS-T a
//! cas's, LO a local read or write before any later action, F1 a flush before a later
//! local action, F2 a remote action towards q before a later flush(q), F3 a flush(q)
//! before a later remote action towards q, IR two remote actions towards the same
//! other process. A program without that shape in any process gets no edge from X,
//! so removing X changes nothing. R1, R2 and WS need no shape (every read and write).

use mowgli_core::Value;
use mowgli_libs::corerma::model::{Graph, Kind, Rule};
use mowgli_libs::corerma::{actions_of, init_action, Stmt};

/// One statement: its kind, location arguments (by index; `Flush`: the process) and
/// which of its accesses are non-atomic (bit k: argument k; 0 = every access atomic).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instr {
    pub stmt: Stmt,
    pub args: [u8; 4],
    pub na: u8,
}

impl Instr {
    /// Actions it translates into (Table 3).
    pub fn weight(&self) -> usize {
        match self.stmt {
            Stmt::Read | Stmt::Write | Stmt::Flush => 1,
            Stmt::Get | Stmt::Put => 2,
            Stmt::Rga => 3,
            Stmt::Cas => 4,
        }
    }
    fn arity(&self) -> usize {
        match self.stmt {
            Stmt::Read | Stmt::Write | Stmt::Flush => 1,
            Stmt::Get | Stmt::Put => 2,
            Stmt::Rga => 3,
            Stmt::Cas => 4,
        }
    }
}

/// A coreRMA program of the generator: processes 0..procs, locations with their
/// process, and each process's statements.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Program {
    pub procs: usize,
    /// Per location, its process (sorted: process 0's locations first).
    pub homes: Vec<u8>,
    pub body: Vec<Vec<Instr>>,
}

impl Program {
    /// Number of actions, initial writes included.
    pub fn size(&self) -> usize {
        self.homes.len() + self.body.iter().flatten().map(Instr::weight).sum::<usize>()
    }

    fn key(&self) -> Vec<u8> {
        let mut k = vec![self.procs as u8, self.homes.len() as u8];
        k.extend(&self.homes);
        for b in &self.body {
            k.push(b.len() as u8);
            for i in b {
                k.push(i.stmt as u8);
                k.extend(&i.args[..i.arity()]);
                k.push(i.na);
            }
        }
        k
    }

    /// The program with locations renamed by `loc` and processes by `proc`.
    fn relabel(&self, loc: &[u8], proc: &[u8]) -> Program {
        let mut homes = vec![0u8; self.homes.len()];
        for (l, &h) in self.homes.iter().enumerate() {
            homes[loc[l] as usize] = proc[h as usize];
        }
        let mut body = vec![Vec::new(); self.procs];
        for (p, b) in self.body.iter().enumerate() {
            body[proc[p] as usize] = b
                .iter()
                .map(|i| {
                    let mut j = *i;
                    for a in 0..i.arity() {
                        j.args[a] =
                            if i.stmt == Stmt::Flush { proc[i.args[a] as usize] } else { loc[i.args[a] as usize] };
                    }
                    j
                })
                .collect();
        }
        Program { procs: self.procs, homes, body }
    }

    /// Whether this program is the representative of its renaming class (the least key).
    pub fn canonical(&self) -> bool {
        let me = self.key();
        // a memory-only process (empty body) is always process 1: no swap
        let swap = self.procs == 2 && self.body.iter().all(|b| !b.is_empty());
        let procs: Vec<Vec<u8>> =
            if swap { vec![vec![0, 1], vec![1, 0]] } else { vec![(0..self.procs as u8).collect()] };
        let n = self.homes.len();
        for pm in &procs {
            // locations grouped by new process, in every order within a group
            let new_home: Vec<u8> = self.homes.iter().map(|&h| pm[h as usize]).collect();
            let mut groups: Vec<Vec<u8>> = vec![Vec::new(); self.procs];
            for (l, &h) in new_home.iter().enumerate() {
                groups[h as usize].push(l as u8);
            }
            let orders: Vec<Vec<Vec<u8>>> = groups.iter().map(|g| perms(g)).collect();
            let mut choice = vec![0usize; self.procs];
            loop {
                let mut loc = vec![0u8; n];
                let mut next = 0u8;
                for (p, o) in orders.iter().enumerate() {
                    for &l in &o[choice[p]] {
                        loc[l as usize] = next;
                        next += 1;
                    }
                }
                if self.relabel(&loc, pm).key() < me {
                    return false;
                }
                let mut p = 0;
                loop {
                    if p == self.procs {
                        break;
                    }
                    choice[p] += 1;
                    if choice[p] < orders[p].len() {
                        break;
                    }
                    choice[p] = 0;
                    p += 1;
                }
                if p == self.procs {
                    break;
                }
            }
        }
        true
    }

    /// Initial value of location l, and the value of each local write (in process
    /// order): all distinct.
    fn values(&self) -> (Vec<i64>, Vec<Vec<i64>>) {
        let inits: Vec<i64> = (0..self.homes.len() as i64).collect();
        let mut next = self.homes.len() as i64;
        let writes = self
            .body
            .iter()
            .map(|b| {
                b.iter()
                    .map(|i| {
                        if i.stmt == Stmt::Write {
                            next += 1;
                            next - 1
                        } else {
                            -1
                        }
                    })
                    .collect()
            })
            .collect();
        (inits, writes)
    }

    /// The actions (Table 3) of the program, every access atomic, with the index of
    /// each local read's action (the test's registers, in order).
    pub fn graph(&self) -> (Graph, Vec<usize>) {
        let (inits, writes) = self.values();
        let home = |l: usize| self.homes.get(l).map(|&h| h as u32 + 1).unwrap_or(0);
        let mut acts = Vec::new();
        let mut regs = Vec::new();
        let mut stmt = 0;
        for (p, b) in self.body.iter().enumerate() {
            for (k, i) in b.iter().enumerate() {
                let args: Vec<Value> = match i.stmt {
                    Stmt::Flush => vec![Value::Node(i.args[0] as u32 + 1)],
                    Stmt::Write => vec![Value::Loc(i.args[0] as usize), Value::Int(writes[p][k])],
                    _ => i.args[..i.arity()].iter().map(|&l| Value::Loc(l as usize)).collect(),
                };
                let first = acts.len();
                let atoms: Vec<bool> = (0..i.arity()).map(|k| i.na & (1 << k) == 0).collect();
                for a in actions_of(i.stmt, &atoms, &args, p, p as u32 + 1, stmt, first, &home) {
                    if a.kind == Kind::R {
                        regs.push(acts.len());
                    }
                    acts.push(a);
                }
                stmt += 1;
            }
        }
        for (l, &v) in inits.iter().enumerate() {
            acts.push(init_action(l, home(l), Value::Int(v)));
        }
        (Graph::new(acts, self.homes.len()), regs)
    }

    /// The program as a litmus test over `lib` (locations `x0, x1, …`, registers
    /// `r0, r1, …` in program order, threads `P0, P1` on nodes 1, 2).
    pub fn litmus(&self, name: &str, description: &str, lib: &str) -> String {
        let (inits, writes) = self.values();
        let mut s = format!("test {name}\n\"{description}\"\nlibraries {lib}\n");
        // a process that holds memory only has no thread (its node has locations only)
        for p in (0..self.procs).filter(|&p| !self.body[p].is_empty()) {
            s += &format!("thread P{p} @ {}\n", p + 1);
        }
        for (l, &h) in self.homes.iter().enumerate() {
            s += &format!("loc x{l} @ {} = {}\n", h + 1, inits[l]);
        }
        let mut reg = 0;
        for (p, b) in self.body.iter().enumerate().filter(|(_, b)| !b.is_empty()) {
            s += &format!("P{p}:\n");
            for (k, i) in b.iter().enumerate() {
                let x = |a: usize| format!("x{}", i.args[a]);
                // atomicity suffix (docs/formats.md): one `a`/`n` per location argument
                let at: String = if i.na == 0 {
                    String::new()
                } else {
                    "_".to_string()
                        + &(0..i.arity()).map(|k| if i.na & (1 << k) != 0 { 'n' } else { 'a' }).collect::<String>()
                };
                s += &match i.stmt {
                    Stmt::Read => {
                        reg += 1;
                        format!("  r{} = Read{at}({})\n", reg - 1, x(0))
                    }
                    Stmt::Write => format!("  Write{at}({}, {})\n", x(0), writes[p][k]),
                    Stmt::Get => format!("  Get{at}({}, {})\n", x(0), x(1)),
                    Stmt::Put => format!("  Put{at}({}, {})\n", x(0), x(1)),
                    Stmt::Rga => format!("  Rga{at}({}, {}, {})\n", x(0), x(1), x(2)),
                    Stmt::Cas => format!("  Cas{at}({}, {}, {}, {})\n", x(0), x(1), x(2), x(3)),
                    Stmt::Flush => format!("  Flush({})\n", i.args[0] + 1),
                };
            }
        }
        s
    }

    /// The register names of [`Program::litmus`], in order, with their threads.
    pub fn registers(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (p, b) in self.body.iter().enumerate() {
            for i in b {
                if i.stmt == Stmt::Read {
                    out.push(format!("P{p}:r{}", out.len()));
                }
            }
        }
        out
    }
}

fn perms(xs: &[u8]) -> Vec<Vec<u8>> {
    mowgli_libs::corerma::model::permutations(&xs.iter().map(|&x| x as usize).collect::<Vec<_>>())
        .into_iter()
        .map(|p| p.into_iter().map(|x| x as u8).collect())
        .collect()
}

/// Every statement process `p` may execute (its own locations `local`, any location `all`).
fn alphabet(p: usize, procs: usize, local: &[u8], all: &[u8]) -> Vec<Instr> {
    let _ = p;
    alphabet_with(procs, local, all, false)
}

/// [`alphabet`], with every atomicity of each statement's accesses when `non_atomic`.
fn alphabet_with(procs: usize, local: &[u8], all: &[u8], non_atomic: bool) -> Vec<Instr> {
    let mut out = Vec::new();
    let i = |stmt, a: &[u8]| {
        let mut args = [0u8; 4];
        args[..a.len()].copy_from_slice(a);
        Instr { stmt, args, na: 0 }
    };
    for &x in local {
        out.push(i(Stmt::Read, &[x]));
        out.push(i(Stmt::Write, &[x]));
    }
    for q in 0..procs {
        out.push(i(Stmt::Flush, &[q as u8]));
    }
    for &x in local {
        for &z in all {
            out.push(i(Stmt::Get, &[x, z]));
            out.push(i(Stmt::Put, &[z, x]));
            for &y in local {
                out.push(i(Stmt::Rga, &[x, z, y]));
                for &w in local {
                    out.push(i(Stmt::Cas, &[x, z, y, w]));
                }
            }
        }
    }
    if non_atomic {
        out = out
            .into_iter()
            .flat_map(|i| {
                let n = if i.stmt == Stmt::Flush { 1 } else { 1u8 << i.arity() };
                (0..n).map(move |na| Instr { na, ..i })
            })
            .collect();
    }
    out
}

/// Every statement sequence of exactly `w` actions over `alpha`.
fn sequences(alpha: &[Instr], w: usize) -> Vec<Vec<Instr>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    fn go(alpha: &[Instr], w: usize, cur: &mut Vec<Instr>, out: &mut Vec<Vec<Instr>>) {
        if w == 0 {
            out.push(cur.clone());
            return;
        }
        for i in alpha {
            if i.weight() <= w {
                cur.push(*i);
                go(alpha, w - i.weight(), cur, out);
                cur.pop();
            }
        }
    }
    go(alpha, w, &mut cur, &mut out);
    out
}

/// Every program of exactly `size` actions with `procs` processes satisfying the
/// constraints of the module documentation, one per renaming class, passed to `f`.
pub fn programs(procs: usize, size: usize, max_locs: usize, f: &mut dyn FnMut(Program)) {
    for nlocs in 1..=max_locs.min(size) {
        let w = size - nlocs;
        // homes: n0 locations on process 0, the rest on process 1
        let splits: Vec<usize> = if procs == 1 { vec![nlocs] } else { (0..=nlocs).collect() };
        for n0 in splits {
            let homes: Vec<u8> = (0..nlocs).map(|l| if l < n0 { 0 } else { 1 }).collect();
            let all: Vec<u8> = (0..nlocs as u8).collect();
            let local = |p: u8| -> Vec<u8> { (0..nlocs as u8).filter(|&l| homes[l as usize] == p).collect() };
            let alphas: Vec<Vec<Instr>> = (0..procs).map(|p| alphabet(p, procs, &local(p as u8), &all)).collect();
            if procs == 1 {
                for s in sequences(&alphas[0], w) {
                    let p = Program { procs, homes: homes.clone(), body: vec![s] };
                    if admissible(&p) && p.canonical() {
                        f(p);
                    }
                }
            } else {
                for w0 in 1..w {
                    let s1s = sequences(&alphas[1], w - w0);
                    for s0 in sequences(&alphas[0], w0) {
                        for s1 in &s1s {
                            let p = Program { procs, homes: homes.clone(), body: vec![s0.clone(), s1.clone()] };
                            if admissible(&p) && p.canonical() {
                                f(p);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Every location of a process with statements is read locally; with two processes,
/// one accesses the other's memory, and each has a statement, or process 1 holds
/// memory only ([`programs_with_memory`]: then each of its locations is accessed by
/// a statement of process 0).
fn admissible(p: &Program) -> bool {
    let mut read = vec![false; p.homes.len()];
    let mut remote = vec![false; p.homes.len()];
    for i in p.body.iter().flatten() {
        match i.stmt {
            Stmt::Read => read[i.args[0] as usize] = true,
            Stmt::Put => remote[i.args[0] as usize] = true,
            Stmt::Get | Stmt::Rga | Stmt::Cas => remote[i.args[1] as usize] = true,
            _ => {}
        }
    }
    let active = |l: usize| !p.body[p.homes[l] as usize].is_empty();
    if !(0..p.homes.len()).all(|l| read[l] || (!active(l) && remote[l])) {
        return false;
    }
    if p.procs == 2 {
        if p.body[0].is_empty() {
            return false;
        }
        let remote = |i: &Instr| match i.stmt {
            Stmt::Get | Stmt::Put | Stmt::Rga | Stmt::Cas => Some(i.args[if i.stmt == Stmt::Put { 0 } else { 1 }]),
            _ => None,
        };
        let cross = p
            .body
            .iter()
            .enumerate()
            .any(|(q, b)| b.iter().filter_map(remote).any(|z| p.homes[z as usize] as usize != q));
        if !cross {
            return false;
        }
    }
    true
}

/// What one process's statements so far give the rules (see the module
/// documentation): the rules whose shape is complete, and what a later statement
/// could complete.
#[derive(Clone, Copy, Debug, Default)]
struct Shape {
    /// Rules (bit `1 << rule`) whose shape is present.
    sat: u16,
    /// Processes flushed so far (bit per process).
    flushed: u8,
    /// Processes a remote action went to so far.
    remote_to: u8,
    /// A local read or write so far.
    local: bool,
    /// Remote statements towards the other process so far (at most 2 counted).
    ir: u8,
}

fn bit(r: Rule) -> u16 {
    1 << (r as u16)
}

/// The process whose memory a remote statement accesses (`None`: not remote).
fn target(i: &Instr, homes: &[u8]) -> Option<u8> {
    match i.stmt {
        Stmt::Put => Some(homes[i.args[0] as usize]),
        Stmt::Get | Stmt::Rga | Stmt::Cas => Some(homes[i.args[1] as usize]),
        _ => None,
    }
}

impl Shape {
    /// The shape after process `p` executes `i`.
    fn step(mut self, i: &Instr, p: u8, homes: &[u8]) -> Shape {
        if self.local {
            self.sat |= bit(Rule::LO); // a local action before this statement
        }
        match i.stmt {
            Stmt::Read | Stmt::Write => {
                if self.flushed != 0 {
                    self.sat |= bit(Rule::F1);
                }
                self.local = true;
            }
            Stmt::Flush => {
                let q = i.args[0];
                if self.remote_to & (1 << q) != 0 {
                    self.sat |= bit(Rule::F2);
                }
                self.flushed |= 1 << q;
            }
            _ => {
                let q = target(i, homes).unwrap_or(p);
                if self.flushed & (1 << q) != 0 {
                    self.sat |= bit(Rule::F3);
                }
                self.remote_to |= 1 << q;
                if q != p {
                    self.ir = (self.ir + 1).min(2);
                    if self.ir == 2 {
                        self.sat |= bit(Rule::IR);
                    }
                }
                self.sat |= match i.stmt {
                    Stmt::Get | Stmt::Put => bit(Rule::PG),
                    Stmt::Rga => bit(Rule::GA),
                    _ => bit(Rule::CasF) | bit(Rule::CasT),
                };
            }
        }
        self
    }

    /// A lower bound on the actions a process still has to execute to have rule
    /// `r`'s shape and read its `unread` unread locations (`None`: impossible).
    fn left_to_go(&self, r: Rule, unread: usize, procs: usize) -> Option<usize> {
        if self.sat & bit(r) != 0 || unconditional(r) {
            return Some(unread);
        }
        // the statements completing LO and F1 may be reads of unread locations; the
        // others' cannot
        let (shape, shared) = match r {
            Rule::CasF | Rule::CasT => (4, false),
            Rule::GA => (3, false),
            Rule::PG => (2, false),
            Rule::LO => (if self.local { 1 } else { 2 }, true),
            Rule::F1 => (if self.flushed != 0 { 1 } else { 2 }, true),
            Rule::F2 => (if self.remote_to != 0 { 1 } else { 3 }, false),
            Rule::F3 => (if self.flushed != 0 { 2 } else { 3 }, false),
            Rule::IR if procs == 2 => (2 * (2 - self.ir as usize), false),
            _ => return None,
        };
        Some(if shared { shape.max(unread) } else { shape + unread })
    }
}

/// Rules that order actions of every program with reads or writes (no shape needed).
fn unconditional(r: Rule) -> bool {
    matches!(r, Rule::R1 | Rule::R2 | Rule::WS)
}

/// Which programs an enumeration visits: those where some process has the shape of
/// one of `rules` (every program when `rules` is empty or holds R1, R2 or WS).
#[derive(Clone, Debug)]
pub struct Need {
    pub rules: Vec<Rule>,
}

impl Need {
    pub fn all() -> Need {
        Need { rules: Vec::new() }
    }
    pub fn any_of(rules: &[Rule]) -> Need {
        Need { rules: rules.to_vec() }
    }
    fn is_all(&self) -> bool {
        self.rules.is_empty() || self.rules.iter().any(|&r| unconditional(r))
    }
    fn sat(&self, s: &Shape) -> bool {
        self.is_all() || self.rules.iter().any(|&r| s.sat & bit(r) != 0)
    }
}

/// Whether some process of `p` has rule `r`'s shape: a necessary condition for `p` to
/// be a test of `r` (module documentation).
pub fn has_shape(p: &Program, r: Rule) -> bool {
    unconditional(r)
        || p.body
            .iter()
            .enumerate()
            .any(|(q, b)| b.iter().fold(Shape::default(), |s, i| s.step(i, q as u8, &p.homes)).sat & bit(r) != 0)
}

/// Every statement sequence of process `p` of exactly `w` actions over `alpha` that
/// reads each of the process's locations (`local`); with `need`, only those with the
/// shape of one of its rules.
fn sequences_of(
    alpha: &[Instr],
    w: usize,
    (p, procs): (u8, usize),
    homes: &[u8],
    local: &[u8],
    need: Option<&Need>,
) -> Vec<Vec<Instr>> {
    struct Ctx<'a> {
        alpha: &'a [Instr],
        p: u8,
        homes: &'a [u8],
        local: &'a [u8],
        need: Option<&'a Need>,
        procs: usize,
        out: Vec<Vec<Instr>>,
    }
    fn go(c: &mut Ctx, w: usize, cur: &mut Vec<Instr>, s: Shape, read: u8) {
        let unread = c.local.iter().filter(|&&l| read & (1 << l) == 0).count();
        let bound = match c.need {
            Some(n) => n.rules.iter().filter_map(|&r| s.left_to_go(r, unread, c.procs)).min(),
            None => Some(unread),
        };
        if bound.is_none_or(|b| b > w) {
            return;
        }
        if w == 0 {
            if c.need.is_none_or(|n| n.sat(&s)) {
                c.out.push(cur.clone());
            }
            return;
        }
        for i in c.alpha {
            if i.weight() <= w {
                cur.push(*i);
                let read = if i.stmt == Stmt::Read { read | 1 << i.args[0] } else { read };
                go(c, w - i.weight(), cur, s.step(i, c.p, c.homes), read);
                cur.pop();
            }
        }
    }
    let need = need.filter(|n| !n.is_all());
    let mut c = Ctx { alpha, p, homes, local, need, procs, out: Vec::new() };
    go(&mut c, w, &mut Vec::new(), Shape::default(), 0);
    c.out
}

/// Every program of exactly `size` actions with `procs` processes satisfying the
/// constraints of [`programs`] in which some process has the shape of one of
/// `need`'s rules (every such program when `need` is unconditional), one per
/// renaming class, passed to `f`. Sequences are built statement by statement and a
/// prefix is dropped as soon as the actions left cannot read the unread locations
/// and complete a shape ([`Shape::left_to_go`]).
///
/// With `non_atomic`, each access of a statement may also be non-atomic (the
/// paper's `*` ∈ {a, n} of Table 1): programs then differ by their atomicity too.
pub fn programs_needing(
    procs: usize,
    size: usize,
    max_locs: usize,
    need: &Need,
    non_atomic: bool,
    f: &mut dyn FnMut(Program),
) {
    for nlocs in 1..=max_locs.min(size) {
        let w = size - nlocs;
        let splits: Vec<usize> = if procs == 1 { vec![nlocs] } else { (0..=nlocs).collect() };
        for n0 in splits {
            let homes: Vec<u8> = (0..nlocs).map(|l| if l < n0 { 0 } else { 1 }).collect();
            let all: Vec<u8> = (0..nlocs as u8).collect();
            let local = |p: u8| -> Vec<u8> { (0..nlocs as u8).filter(|&l| homes[l as usize] == p).collect() };
            let alphas: Vec<Vec<Instr>> =
                (0..procs).map(|p| alphabet_with(procs, &local(p as u8), &all, non_atomic)).collect();
            // with `need`: the sequences having a shape; without: every sequence
            let seqs = |p: usize, w: usize, need: Option<&Need>| {
                sequences_of(&alphas[p], w, (p as u8, procs), &homes, &local(p as u8), need)
            };
            let mut emit = |body: Vec<Vec<Instr>>| {
                let p = Program { procs, homes: homes.clone(), body };
                if admissible(&p) && p.canonical() {
                    f(p);
                }
            };
            if procs == 1 {
                for s in seqs(0, w, Some(need)) {
                    emit(vec![s]);
                }
                continue;
            }
            for w0 in 1..w {
                let w1 = w - w0;
                if need.is_all() {
                    let s1s = seqs(1, w1, None);
                    for s0 in seqs(0, w0, None) {
                        for s1 in &s1s {
                            emit(vec![s0.clone(), s1.clone()]);
                        }
                    }
                    continue;
                }
                // process 0 has a shape (process 1 anything), or only process 1 has one
                let sat0 = seqs(0, w0, Some(need));
                if !sat0.is_empty() {
                    let any1 = seqs(1, w1, None);
                    for s0 in &sat0 {
                        for s1 in &any1 {
                            emit(vec![s0.clone(), s1.clone()]);
                        }
                    }
                }
                let sat1 = seqs(1, w1, Some(need));
                if !sat1.is_empty() {
                    let unsat0: Vec<Vec<Instr>> =
                        seqs(0, w0, None).into_iter().filter(|s0| !need.sat(&shape_of(s0, 0, &homes))).collect();
                    for s0 in &unsat0 {
                        for s1 in &sat1 {
                            emit(vec![s0.clone(), s1.clone()]);
                        }
                    }
                }
            }
        }
    }
}

/// Every program of exactly `size` actions with one process with statements (process
/// 0) and a second that holds memory only (process 1, at least one location, each
/// accessed by process 0), under the constraints of [`programs`] and with `need`'s shape
/// as in [`programs_needing`]: LOCO-style one-process tests whose remote statements
/// target another node (coreRMA Fig. 6's IR test has this form).
pub fn programs_with_memory(size: usize, max_locs: usize, need: &Need, non_atomic: bool, f: &mut dyn FnMut(Program)) {
    for nlocs in 2..=max_locs.min(size) {
        let w = size - nlocs;
        for n0 in 1..nlocs {
            let homes: Vec<u8> = (0..nlocs).map(|l| if l < n0 { 0 } else { 1 }).collect();
            let all: Vec<u8> = (0..nlocs as u8).collect();
            let local: Vec<u8> = (0..n0 as u8).collect();
            let alpha = alphabet_with(2, &local, &all, non_atomic);
            let need = if need.is_all() { None } else { Some(need) };
            for s in sequences_of(&alpha, w, (0, 2), &homes, &local, need) {
                let p = Program { procs: 2, homes: homes.clone(), body: vec![s, Vec::new()] };
                if admissible(&p) && p.canonical() {
                    f(p);
                }
            }
        }
    }
}

fn shape_of(seq: &[Instr], p: u8, homes: &[u8]) -> Shape {
    seq.iter().fold(Shape::default(), |s, i| s.step(i, p, homes))
}
