//! herd7 interoperability (`docs/formats.md`, "herd7 x86 tests"): herd's x86 litmus
//! format is read, run as RDMA^TSO on one node, and reported as herd7 does.
//!
//! Every fixture of `specs/litmus/herd-x86` is checked three ways: its verdict
//! against the one it cites (x86-TSO literature, herd7's x86tso.cat), and its final
//! states and execution counts against the independent x86-TSO interpreter of
//! `tests/common/tso.rs`, fed by a reader of the fixtures written here (it shares
//! nothing with Mowgli's reader).

use mowgli_libs::catalogue::Catalogue;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

use mowgli_check::analyses::litmus;
use mowgli_libs::orders::default_order;

#[path = "common/mutate.rs"]
mod mutate;
#[path = "common/tso.rs"]
mod tso;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixtures() -> Vec<PathBuf> {
    let dir = root().join("specs/litmus/herd-x86");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
        .collect();
    v.sort();
    v
}

fn mowgli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mowgli")).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Writes `text` to `NAME` in a directory of its own per test (`dir`).
fn temp(dir: &str, name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mowgli-herd-{}", std::process::id())).join(dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("written");
    p
}

// ---------------------------------------------------------------------------
// An independent reader of the fixtures (their shapes only) and herd's rules
// ---------------------------------------------------------------------------

/// A location herd shows: (thread, register) or a memory location.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Loc {
    /// thread, herd's register order (EAX/rax = 0, EBX/rbx = 1, …), name
    Reg(usize, usize, String),
    Mem(String),
}

impl Loc {
    fn show(&self) -> String {
        match self {
            Loc::Reg(t, _, r) => format!("{t}:{r}"),
            Loc::Mem(x) => format!("[{x}]"),
        }
    }
}

#[derive(Debug)]
enum Prop {
    Atom(Loc, i64),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
}

impl Prop {
    fn eval(&self, st: &BTreeMap<Loc, i64>) -> bool {
        match self {
            Prop::Atom(l, v) => st.get(l) == Some(v),
            Prop::Not(p) => !p.eval(st),
            Prop::And(a, b) => a.eval(st) && b.eval(st),
            Prop::Or(a, b) => a.eval(st) || b.eval(st),
        }
    }
    fn locs(&self, out: &mut BTreeSet<Loc>) {
        match self {
            Prop::Atom(l, _) => {
                out.insert(l.clone());
            }
            Prop::Not(p) => p.locs(out),
            Prop::And(a, b) | Prop::Or(a, b) => {
                a.locs(out);
                b.locs(out);
            }
        }
    }
}

const REGS_X86: [&str; 4] = ["EAX", "EBX", "ECX", "EDX"];
const REGS_X86_64: [&str; 4] = ["rax", "rbx", "rcx", "rdx"];

/// A register of a fixture: (herd's order, the name herd prints).
fn reg(x86_64: bool, name: &str) -> (usize, String) {
    let n = name.trim_start_matches('%');
    if x86_64 {
        let n64 = match n.strip_prefix('e') {
            Some(rest) => format!("r{rest}"),
            None => n.to_string(),
        };
        let k = REGS_X86_64.iter().position(|r| *r == n64).unwrap_or_else(|| panic!("register {name}"));
        (k, n64)
    } else {
        let k = REGS_X86.iter().position(|r| *r == n).unwrap_or_else(|| panic!("register {name}"));
        (k, n.to_string())
    }
}

fn parse_loc(x86_64: bool, s: &str) -> Loc {
    let s = s.trim();
    match s.split_once(':') {
        Some((t, r)) => {
            let (k, name) = reg(x86_64, r.trim());
            Loc::Reg(t.trim().parse().expect("thread"), k, name)
        }
        None => Loc::Mem(s.trim_start_matches('[').trim_end_matches(']').to_string()),
    }
}

/// Recursive descent over `/\`, `\/`, `~`, parentheses and `loc=v` atoms.
struct Cond<'a> {
    s: &'a str,
    x86_64: bool,
}

impl Cond<'_> {
    fn skip(&mut self) {
        self.s = self.s.trim_start();
    }
    fn eat(&mut self, t: &str) -> bool {
        self.skip();
        match self.s.strip_prefix(t) {
            Some(r) => {
                self.s = r;
                true
            }
            None => false,
        }
    }
    fn or(&mut self) -> Prop {
        let mut p = self.and();
        while self.eat("\\/") {
            p = Prop::Or(Box::new(p), Box::new(self.and()));
        }
        p
    }
    fn and(&mut self) -> Prop {
        let mut p = self.unary();
        while self.eat("/\\") {
            p = Prop::And(Box::new(p), Box::new(self.unary()));
        }
        p
    }
    fn unary(&mut self) -> Prop {
        if self.eat("~") {
            return Prop::Not(Box::new(self.unary()));
        }
        if self.eat("(") {
            let p = self.or();
            assert!(self.eat(")"), "`)` expected at {}", self.s);
            return p;
        }
        self.skip();
        let end = self.s.find('=').expect("an atom");
        let loc = parse_loc(self.x86_64, &self.s[..end]);
        self.s = &self.s[end + 1..];
        self.skip();
        let digits = self.s.find(|c: char| !c.is_ascii_digit() && c != '-').unwrap_or(self.s.len());
        let v = self.s[..digits].parse().expect("a value");
        self.s = &self.s[digits..];
        Prop::Atom(loc, v)
    }
}

struct Fixture {
    x86_64: bool,
    quant: String,
    prop: Prop,
    observed: Vec<Loc>,
    program: tso::Program,
    /// thread, register name → index in the interpreter's registers
    regs: BTreeMap<(usize, String), usize>,
    mems: Vec<String>,
    /// The verdict the fixture cites: Allowed, Forbidden or Always.
    expected: String,
}

fn read_fixture(text: &str) -> Fixture {
    let x86_64 = text.starts_with("X86_64 ");
    let expected = text
        .split("Expected under x86-TSO: ")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_alphabetic()).next())
        .expect("an `Expected under x86-TSO:` line")
        .to_string();
    let open = text.find("\n{").expect("init block") + 1;
    let close = open + text[open..].find('}').expect("`}`");
    let mut mems: Vec<String> = Vec::new();
    let mut init: BTreeMap<String, i64> = BTreeMap::new();
    for a in text[open + 1..close].split(';').map(str::trim).filter(|a| !a.is_empty()) {
        let (x, v) = a.split_once('=').expect("x=v");
        init.insert(x.trim().to_string(), v.trim().parse().expect("value"));
    }
    let rest = &text[close + 1..];
    let mut lines = rest.lines().map(str::trim).filter(|l| !l.is_empty());
    let header = lines.next().expect("thread table");
    let nthreads = header.split('|').count();
    let mut code: Vec<Vec<String>> = vec![vec![]; nthreads];
    let mut tail = String::new();
    for l in lines.by_ref() {
        if !l.ends_with(';') {
            tail = l.to_string();
            break;
        }
        for (t, cell) in l.trim_end_matches(';').split('|').enumerate() {
            if !cell.trim().is_empty() {
                code[t].push(cell.trim().to_string());
            }
        }
    }
    for l in lines {
        tail += "\n";
        tail += l;
    }
    let mut observed: BTreeSet<Loc> = BTreeSet::new();
    if let Some(r) = tail.strip_prefix("locations [") {
        let (items, after) = r.split_once(']').expect("`]`");
        for i in items.split(';').map(str::trim).filter(|i| !i.is_empty()) {
            observed.insert(parse_loc(x86_64, i));
        }
        tail = after.trim().to_string();
    }
    let (quant, cond) = ["~exists", "exists", "forall"]
        .iter()
        .find_map(|q| tail.strip_prefix(q).map(|c| (q.to_string(), c.to_string())))
        .expect("a quantifier");
    let prop = Cond { s: &cond, x86_64 }.or();
    prop.locs(&mut observed);
    // the program
    let mem_of = |x: &str, mems: &mut Vec<String>| match mems.iter().position(|m| m == x) {
        Some(i) => i,
        None => {
            mems.push(x.to_string());
            mems.len() - 1
        }
    };
    let mut regs: BTreeMap<(usize, String), usize> = BTreeMap::new();
    let mut threads = Vec::new();
    for (t, ins) in code.iter().enumerate() {
        let mut ops = Vec::new();
        for i in ins {
            let low = i.to_ascii_lowercase();
            if low == "mfence" {
                ops.push(tso::Op::Mfence);
                continue;
            }
            let (m, args) = i.split_once(' ').expect("an instruction with operands");
            let (a, b) = args.split_once(',').expect("two operands");
            let (dst, src) = if x86_64 { (b.trim(), a.trim()) } else { (a.trim(), b.trim()) };
            assert!(m.eq_ignore_ascii_case("mov") || m == "movl", "{i}");
            let is_mem = |o: &str| o.starts_with('[') || o.starts_with('(');
            let name = |o: &str| o[1..o.len() - 1].to_string();
            let mut reg_index = |r: &str| {
                let n = reg(x86_64, r).1;
                let k = regs.len();
                *regs.entry((t, n)).or_insert(k)
            };
            if is_mem(dst) {
                let k = mem_of(&name(dst), &mut mems);
                let v = src.trim_start_matches('$').parse().expect("an immediate");
                ops.push(tso::Op::Write(k, tso::Src::Imm(v)));
            } else {
                assert!(is_mem(src), "{i}");
                let k = mem_of(&name(src), &mut mems);
                ops.push(tso::Op::Read(reg_index(dst), k));
            }
        }
        threads.push(ops);
    }
    for l in &observed {
        match l {
            Loc::Mem(x) => {
                mem_of(x, &mut mems);
            }
            Loc::Reg(t, _, r) => {
                let k = regs.len();
                regs.entry((*t, r.clone())).or_insert(k);
            }
        }
    }
    let nregs = regs.len();
    let program = tso::Program {
        init: mems.iter().map(|m| init.get(m).copied().unwrap_or(0)).collect(),
        threads,
        regs: vec![vec![0; nregs]; nthreads],
    };
    Fixture { x86_64, quant, prop, observed: observed.into_iter().collect(), program, regs, mems, expected }
}

/// What herd7 would print for a fixture, from the interpreter: states, Ok,
/// positive and negative executions, observation.
fn reference(f: &Fixture) -> (Vec<String>, bool, u64, u64, &'static str) {
    let mut states: BTreeSet<Vec<i64>> = BTreeSet::new();
    let (mut pos, mut neg) = (0u64, 0u64);
    for (fin, n) in tso::run(&f.program) {
        let st: BTreeMap<Loc, i64> = f
            .observed
            .iter()
            .map(|l| {
                let v = match l {
                    Loc::Reg(t, _, r) => fin.regs[*t][f.regs[&(*t, r.clone())]],
                    Loc::Mem(x) => fin.mem[f.mems.iter().position(|m| m == x).expect("location")],
                };
                (l.clone(), v)
            })
            .collect();
        if f.prop.eval(&st) {
            pos += n as u64;
        } else {
            neg += n as u64;
        }
        states.insert(f.observed.iter().map(|l| st[l]).collect());
    }
    let shown = states
        .iter()
        .map(|vs| f.observed.iter().zip(vs).map(|(l, v)| format!("{}={v};", l.show())).collect::<Vec<_>>().join(" "))
        .collect();
    let ok = match f.quant.as_str() {
        "exists" => pos > 0,
        "~exists" => pos == 0,
        _ => neg == 0,
    };
    let obs = if pos == 0 {
        "Never"
    } else if neg == 0 {
        "Always"
    } else {
        "Sometimes"
    };
    (shown, ok, pos, neg, obs)
}

// ---------------------------------------------------------------------------
// The fixtures
// ---------------------------------------------------------------------------

/// Each fixture's verdict is the one it cites, and its states and execution
/// counts are the independent interpreter's.
#[test]
fn every_fixture_has_its_cited_verdict_and_the_interpreters_states() {
    let order = default_order();
    let files = fixtures();
    assert!(files.len() >= 20, "{} fixtures", files.len());
    let (mut allowed, mut forbidden, mut x86_64) = (0, 0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let fx = read_fixture(&text);
        let r = litmus::check_file(f, &order, &Catalogue::builtins()).unwrap_or_else(|e| panic!("{e}"));
        let h = r.herd.as_ref().unwrap_or_else(|| panic!("{}: not read as a herd test", f.display()));
        let (states, ok, pos, neg, obs) = reference(&fx);
        let name = f.display();
        assert_eq!(h.states, states, "{name}: states");
        assert_eq!((h.positive, h.negative), (pos, neg), "{name}: executions");
        assert_eq!(h.observation, obs, "{name}: observation");
        assert_eq!(h.ok, ok, "{name}: Ok/No");
        match fx.expected.as_str() {
            "Allowed" => {
                allowed += 1;
                assert_ne!(h.observation, "Never", "{name}: cited as allowed")
            }
            "Forbidden" => {
                forbidden += 1;
                assert_eq!(h.observation, "Never", "{name}: cited as forbidden")
            }
            "Always" => assert_eq!(h.observation, "Always", "{name}: cited as always"),
            other => panic!("{name}: unknown cited verdict {other}"),
        }
        // the fixtures are written to pass: an `exists` checks nothing, a claim holds
        assert!(r.all_ok(), "{name}");
        x86_64 += fx.x86_64 as usize;
    }
    assert!(
        allowed >= 5 && forbidden >= 10 && x86_64 >= 3,
        "{allowed} allowed, {forbidden} forbidden, {x86_64} X86_64"
    );
}

/// The interpreter and the comparison can fail: a fixture whose fence is dropped
/// changes the states of both sides, and the comparison sees a wrong count.
#[test]
fn the_cross_check_can_fail() {
    let text = std::fs::read_to_string(root().join("specs/litmus/herd-x86/SB+mfences.litmus")).expect("fixture");
    let fenced = reference(&read_fixture(&text));
    let unfenced = reference(&read_fixture(&text.replace("MFENCE", "      ")));
    assert_eq!(fenced.4, "Never");
    assert_eq!(unfenced.4, "Sometimes");
    assert_ne!(fenced.0, unfenced.0);
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

const DIY: &str = r#"X86 SB+doc
"PodWR Fre PodWR Fre"
Cycle=Fre PodWR Fre PodWR
Relax=PodWR
Safe=Fre
Generator=diy7 (version 7.57+1)
Prefetch=0:x=F,0:y=T,1:y=F,1:x=T
Com=Fr Fr
Orig=PodWR Fre PodWR Fre
Hash=0123456789abcdef
(* a comment (* nested *) before the init block *)
{}
 P0          | P1          ;
 MOV [x],$1  | MOV [y],$1  ;
 MOV EAX,[y] | MOV EAX,[x] ; (* a comment in the table *)
exists
(0:EAX=0 /\ 1:EAX=0)
"#;

#[test]
fn reads_diy7_shapes_metadata_and_comments() {
    let r = litmus::check_text("d.litmus", DIY, &default_order(), &Catalogue::builtins()).expect("reads");
    let h = r.herd.as_ref().expect("herd");
    assert_eq!(h.name, "SB+doc");
    assert_eq!(h.hash.as_deref(), Some("0123456789abcdef"));
    assert_eq!(h.observation, "Sometimes");
    assert_eq!(h.states.len(), 4);
    // the program is the project's: threads P0, P1 on node 1, registers EAX
    assert_eq!(r.libraries, vec!["rdmatso".to_string()]);
    assert!(r.outcomes.iter().all(|o| o.contains_key("P0:EAX") && o.contains_key("P1:EAX")));
}

#[test]
fn reads_init_values_registers_moves_and_locations() {
    // init values, a register stored, a register set, a register never written but observed
    let text = "X86 T\n{ x=5; int y=0; 0:EBX=7; }\n P0          | P1          ;\n MOV EAX,[x] | MOV ECX,$3 ;\n MOV [y],EBX | MOV [x],ECX ;\nlocations [1:EDX; y;]\nforall (y=7 /\\ 1:EDX=0)\n";
    let r = litmus::check_text("t.litmus", text, &default_order(), &Catalogue::builtins()).expect("reads");
    let h = r.herd.as_ref().expect("herd");
    assert_eq!(h.kind, "Required");
    assert_eq!(h.states, vec!["1:EDX=0; [y]=7;".to_string()]);
    assert!(h.ok && r.all_ok());
    assert_eq!(h.condition, "forall ([y]=7 /\\ 1:EDX=0)");
    // P0 reads x: the initial 5 or P1's 3
    let seen: BTreeSet<String> = r.outcomes.iter().map(|o| o["P0:EAX"].clone()).collect();
    assert_eq!(seen, ["3", "5"].map(String::from).into_iter().collect());
}

#[test]
fn reads_x86_64_att_syntax() {
    let text = "X86_64 MP64\n{\n}\n P0          | P1            ;\n movl $1,(x) | movl (y),%eax ;\n mfence      | mfence        ;\n movq $1,(y) | movl (x),%ebx ;\nexists (1:rax=1 /\\ 1:RBX=0)\n";
    let r = litmus::check_text("m.litmus", text, &default_order(), &Catalogue::builtins()).expect("reads");
    let h = r.herd.as_ref().expect("herd");
    assert_eq!(h.condition, "exists (1:rax=1 /\\ 1:rbx=0)");
    assert_eq!(h.observation, "Never");
    assert_eq!(h.states, vec!["1:rax=0; 1:rbx=0;", "1:rax=0; 1:rbx=1;", "1:rax=1; 1:rbx=1;"]);
}

#[test]
fn prints_conditions_back_as_herd_does() {
    let cond = |c: &str| {
        let text = format!("X86 C\n{{}}\n P0 | P1 ;\n MOV [x],$1 | MOV EAX,[x] ;\n{c}\n");
        let r = litmus::check_text("c.litmus", &text, &default_order(), &Catalogue::builtins()).expect("reads");
        r.herd.expect("herd").condition
    };
    assert_eq!(cond("exists (1:EAX=1 /\\ (x=1 /\\ [x]=1))"), "exists (1:EAX=1 /\\ [x]=1 /\\ [x]=1)");
    assert_eq!(cond("~exists 1:EAX=1 \\/ x=0 /\\ true"), "~exists (1:EAX=1 \\/ [x]=0 /\\ true)");
    assert_eq!(
        cond("exists (~(1:EAX=1 \\/ x=0) /\\ 1:EAX != 2)"),
        "exists (not (1:EAX=1 \\/ [x]=0) /\\ not (1:EAX=2))"
    );
    assert_eq!(cond("forall (1:EAX=0 => false)"), "forall (1:EAX=0 => false)");
}

#[test]
fn malformed_herd_files_are_errors_with_positions() {
    let bad = |text: &str| {
        litmus::check_text("b.litmus", text, &default_order(), &Catalogue::builtins()).expect_err("refused")
    };
    let e = bad("X86 T\n{}\n P0 | P1 ;\n MOV [x],$1 ;\nexists (x=1)\n");
    assert_eq!((e.line, e.col), (4, 2), "{e}");
    let e = bad("X86 T\n{}\n P0 ;\n MOV EAX,[x] ;\nexists (1:EAX=1)\n");
    assert!(e.msg.contains("thread 1"), "{e}");
    let e = bad("X86 T\n{}\n P0 ;\n MOV EAX,[EBX] ;\nexists (0:EAX=1)\n");
    assert!(e.msg.contains("indirect addressing"), "{e}");
    let e = bad("X86_64 T\n{}\n P0 ;\n movb $1,(x) ;\nexists ([x]=1)\n");
    assert!(e.msg.contains("mixed-size"), "{e}");
    let e = bad("X86 T\n{}\n P0 ;\n L0: MOV [x],$1 ;\nexists (x=1)\n");
    assert!(e.msg.contains("labels and jumps"), "{e}");
    let e = bad("X86 T\n{ 0:EAX=x; }\n P0 ;\n MOV [x],$1 ;\nexists (x=1)\n");
    assert!(e.msg.contains("indirect addressing"), "{e}");
    // the end of the test is shown at the end of its last line
    let e = bad("X86 T\n{}\n P0 ;\n MOV [x],$1 ;\nexists (x=1) /\\\n");
    assert_eq!((e.line, e.col), (5, 16), "{e}");
}

// ---------------------------------------------------------------------------
// The command line
// ---------------------------------------------------------------------------

#[test]
fn unsupported_instructions_are_refused_by_name_with_the_source_line() {
    let p = temp("refuse", "xchg.litmus", "X86 XCHG\n{ x=0; }\n P0           | P1          ;\n MOV [x],$1   | XCHG [x],EAX ;\n MFENCE       | MOV EBX,[x] ;\nexists (1:EAX=0)\n");
    let (code, out, err) = mowgli(&["litmus", p.to_str().expect("utf-8")]);
    assert_eq!(code, 2, "{out}{err}");
    let want = format!(
        "{f}:4:17: unsupported X86 instruction `XCHG` (Mowgli reads MOV between a register and a location or an \
         immediate, and MFENCE)\n   ,-[ {f}:4:17 ]\n   |\n 4 |  MOV [x],$1   | XCHG [x],EAX ;\n   |{}^^|^\n",
        " ".repeat(17),
        f = p.display(),
    );
    assert!(err.starts_with(&want), "got:\n{err}\nwant:\n{want}");
    for (ins, name) in
        [("LOCK ADD [x],$1", "LOCK"), ("ADD [x],$1", "ADD"), ("JMP L0", "JMP"), ("CMPXCHG [x],EAX", "CMPXCHG")]
    {
        let p = temp("refuse", "other.litmus", &format!("X86 O\n{{}}\n P0 ;\n {ins} ;\nexists (x=1)\n"));
        let (code, _, err) = mowgli(&["litmus", p.to_str().expect("utf-8")]);
        assert_eq!(code, 2, "{ins}: {err}");
        assert!(err.contains(&format!(":4:2: unsupported X86 instruction `{name}`")), "{ins}: {err}");
    }
}

const SB_LOG: &str = "Test SB Allowed
States 4
0:EAX=0; 1:EAX=0;
0:EAX=0; 1:EAX=1;
0:EAX=1; 1:EAX=0;
0:EAX=1; 1:EAX=1;
Ok
Witnesses
Positive: 1 Negative: 3
Condition exists (0:EAX=0 /\\ 1:EAX=0)
Observation SB Sometimes 1 3
Time SB 0.00

";

/// herd's `Time` line carries a duration: normalised for the comparison.
fn untimed(log: &str) -> String {
    log.lines()
        .map(|l| match l.strip_prefix("Time ") {
            Some(r) => format!("Time {} 0.00", r.split(' ').next().unwrap_or("")),
            None => l.to_string(),
        })
        .map(|l| l + "\n")
        .collect()
}

#[test]
fn format_herd_writes_herds_log() {
    let sb = root().join("specs/litmus/herd-x86/SB.litmus");
    let (code, out, err) = mowgli(&["litmus", "--format", "herd", sb.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(untimed(&out), SB_LOG);
    assert!(err.contains("summary: 1 tests"), "the summary goes to stderr: {err}");
    // ~exists: the executions that make it fail are herd's positive ones
    let m = root().join("specs/litmus/herd-x86/SB+mfences.litmus");
    let (code, out, _) = mowgli(&["litmus", "--format", "herd", m.to_str().expect("utf-8")]);
    assert_eq!(code, 0);
    assert_eq!(
        untimed(&out),
        "Test SB+mfences Forbidden\nStates 3\n0:EAX=0; 1:EAX=1;\n0:EAX=1; 1:EAX=0;\n0:EAX=1; 1:EAX=1;\nOk\nWitnesses\n\
         Positive: 3 Negative: 0\nCondition ~exists (0:EAX=0 /\\ 1:EAX=0)\nObservation SB+mfences Never 0 3\n\
         Time SB+mfences 0.00\n\n"
    );
    // forall, with memory locations
    let c = root().join("specs/litmus/herd-x86/CoWW.litmus");
    let (_, out, _) = mowgli(&["litmus", "--format", "herd", c.to_str().expect("utf-8")]);
    assert_eq!(
        untimed(&out),
        "Test CoWW Required\nStates 1\n0:rax=2; [x]=2;\nOk\nWitnesses\nPositive: 1 Negative: 0\n\
         Condition forall ([x]=2 /\\ 0:rax=2)\nObservation CoWW Always 1 0\nTime CoWW 0.00\n\n"
    );
    // a Hash= metadata line is echoed after Time
    let p = temp("log", "diy.litmus", DIY);
    let (_, out, _) = mowgli(&["litmus", "--format", "herd", p.to_str().expect("utf-8")]);
    assert!(untimed(&out).ends_with("Time SB+doc 0.00\nHash=0123456789abcdef\n\n"), "{out}");
}

#[test]
fn format_herd_refuses_tests_of_the_projects_format() {
    let f = root().join("specs/litmus/rdma");
    let first = litmus::collect(&[f]).expect("suite").remove(0);
    let (code, out, err) = mowgli(&["litmus", "--format", "herd", first.to_str().expect("utf-8")]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("--format herd writes herd7 logs of herd7 x86 tests only"), "{err}");
    let (code, _, err) = mowgli(&["litmus", "--format", "herd", "--json", first.to_str().expect("utf-8")]);
    assert_eq!(code, 2, "{err}");
}

/// Exit status: an `exists` test is an observation and never fails; `~exists`
/// and `forall` are claims and fail with exit status 1 when herd would say No.
#[test]
fn exists_observes_and_claims_can_fail() {
    let sb = "X86 SB\n{}\n P0 | P1 ;\n MOV [x],$1 | MOV [y],$1 ;\n MOV EAX,[y] | MOV EAX,[x] ;\n";
    let run = |cond: &str| {
        let p = temp("claims", "claim.litmus", &format!("{sb}{cond}\n"));
        mowgli(&["litmus", p.to_str().expect("utf-8")])
    };
    // exists: herd says Ok or No, Mowgli exits 0 either way
    assert_eq!(run("exists (0:EAX=0 /\\ 1:EAX=0)").0, 0);
    assert_eq!(run("exists (0:EAX=2)").0, 0);
    // ~exists of an allowed outcome: herd says No, Mowgli fails with a counterexample
    let (code, out, _) = run("~exists (0:EAX=0 /\\ 1:EAX=0)");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL  ~exists (0:EAX=0 /\\ 1:EAX=0): herd: Forbidden No, Sometimes"), "{out}");
    assert!(out.contains("counterexample"), "{out}");
    // forall: fails when some state violates it, holds when none does
    assert_eq!(run("forall (0:EAX=1 \\/ 1:EAX=1)").0, 1);
    assert_eq!(run("forall (0:EAX=0 \\/ 0:EAX=1)").0, 0);
    // --json carries herd's verdict beside the expectation
    let p = temp("claims", "claim.litmus", &format!("{sb}~exists (0:EAX=0 /\\ 1:EAX=0)\n"));
    let (code, out, _) = mowgli(&["litmus", "--json", p.to_str().expect("utf-8")]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["tests"][0]["herd"]["observation"], "Sometimes");
    assert_eq!(v["tests"][0]["herd"]["ok"], false);
    assert_eq!(v["summary"]["failed"], 1);
}

/// Directory walks pick herd files up by their `.litmus` extension and sniff
/// the header; the fixtures run beside the project's own tests.
#[test]
fn directories_mix_herd_and_mowgli_tests() {
    let dir = root().join("specs/litmus/herd-x86");
    let (code, out, err) = mowgli(&["litmus", "--quiet", dir.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("summary: {} tests, 2 expectations: 2 ok", fixtures().len())), "{out}");
    let mixed = temp(
        "mixed",
        "mowgli.litmus",
        "test M\nlibraries rdmatso\nthread T1 @ 1\nloc x @ 1\nT1:\n  Write(x, 1)\nexpect allowed x = 1\n",
    );
    temp("mixed", "herd.litmus", "X86 H\n{}\n P0 ;\n MOV [x],$1 ;\nforall (x=1)\n");
    let (code, out, err) = mowgli(&["litmus", mixed.parent().expect("dir").to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("test M (") && out.contains("test H ("), "{out}");
    assert!(out.contains("summary: 2 tests, 2 expectations: 2 ok"), "{out}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1500, ..Default::default() })]

    /// Mutated herd files (characters deleted, replaced or inserted) are accepted or
    /// refused with a `file:line:col` message; nothing panics.
    #[test]
    fn mutated_herd_files_never_panic(
        which in 0..3usize,
        edits in proptest::collection::vec((proptest::prelude::any::<proptest::sample::Index>(), 0..3u8,
            proptest::sample::select(vec!['(', ')', '*', '[', ']', '{', '}', ',', ';', '|', '$', '%', '~', '=',
                '/', '\\', '\n', ' ', 'x', '1', 'P', ':', 'é'])), 1..6)
    ) {
        let texts = [DIY, "X86_64 M\n{ x=1; }\n P0 | P1 ;\n movl $1,(x) | movl (x),%eax ;\n mfence | movl %eax,(y) ;\nlocations [y;]\n~exists (1:rax=1 /\\ [y]=0)\n", "X86 T\n{ 0:EBX=7; }\n P0 ;\n MOV [y],EBX ;\n MOV EAX,$2 ;\nforall (y=7 => 0:EAX=2)\n"];
        let text = mutate::apply(texts[which], &edits);
        if let Err(e) = litmus::check_text("m.litmus", &text, &default_order(), &Catalogue::builtins()) {
            proptest::prop_assert!(e.to_string().starts_with("m.litmus:"), "{}", e);
            proptest::prop_assert!(e.line >= 1 && e.col >= 1, "no position: {}\n{}", e, text);
        }
    }
}
