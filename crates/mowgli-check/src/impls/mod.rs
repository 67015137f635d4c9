//! Implementations of one library over others (LOCO §3.5), written as text files
//! (`specs/impls/*.impl`, grammar in `docs/impl-language.md`): parsing, lowering
//! to the meta-language ([`mowgli_core::program::Prog`]), the implementation
//! locations derived from abstract ones, and the context functions bodies use.

pub mod gen;
pub mod refine;
pub mod syntax;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use mowgli_core::program::{make_set, EvalCtx, Expr, Op, Prog, RegId};
use mowgli_core::{Library, LocInfo, StampOrder, ThreadId, Value, World};
use mowgli_libs::registry;

use crate::litmus::syntax::Pos;
use crate::litmus::InputError;
use syntax::{BinOp, Block, CallEx, Ex, ImplFile, Rhs, Stmt};

/// A family of implementation locations (or work identifiers), per abstract
/// object or global: `loc copy(x)[n] @ n for n in nodes`.
#[derive(Clone, Debug)]
pub struct Family {
    pub name: String,
    /// Whether the family is per abstract object (register 0 of its expressions).
    pub per_object: bool,
    /// Index variables (registers 1.., in order) and the set each ranges over.
    pub ranges: Vec<Expr>,
    /// Positions of the declared index variables among the ranged variables.
    pub index: Vec<usize>,
    pub node: Option<Expr>,
    pub init: Option<Expr>,
    pub wid: bool,
    pub nregs: usize,
}

/// A method body: `I(t, m, ṽ)` with the arguments in registers 0..k.
#[derive(Clone, Debug)]
pub struct MethodImpl {
    pub name: String,
    pub params: usize,
    pub body: Prog,
    pub nregs: usize,
}

/// A lowered implementation of library `implements` using the libraries `uses`.
pub struct Implementation {
    pub name: String,
    pub file: String,
    pub implements: String,
    pub uses: Vec<String>,
    pub families: Vec<Family>,
    pub methods: BTreeMap<String, MethodImpl>,
}

/// Context functions available to implementation code, with their arity.
const BUILTINS: [(&str, usize); 13] = [
    ("node", 0),
    ("self", 0),
    ("nodes", 0),
    ("threads", 0),
    ("wids", 0),
    ("node_of", 1),
    ("loc_node", 1),
    ("participants", 1),
    ("readers", 1),
    ("writer", 1),
    ("ring_size", 1),
    ("size", 1),
    ("obj", 1),
];

fn op_of(b: BinOp) -> Op {
    match b {
        BinOp::Add => Op::Add,
        BinOp::Sub => Op::Sub,
        BinOp::Mul => Op::Mul,
        BinOp::Div => Op::Div,
        BinOp::Mod => Op::Mod,
        BinOp::Eq => Op::Eq,
        BinOp::Ne => Op::Ne,
        BinOp::Lt => Op::Lt,
        BinOp::Le => Op::Le,
        BinOp::Gt => Op::Gt,
        BinOp::Ge => Op::Ge,
        BinOp::And => Op::And,
        BinOp::Or => Op::Or,
        BinOp::In => Op::In,
    }
}

#[derive(Debug)]
struct LErr {
    pos: Pos,
    msg: String,
}

type L<T> = Result<T, LErr>;

fn lerr<T>(pos: Pos, msg: impl Into<String>) -> L<T> {
    Err(LErr { pos, msg: msg.into() })
}

struct LoopInfo {
    depth: usize,
    read_only: bool,
    writes_outer: bool,
}

/// Lowers statements and expressions of one body.
struct Lowerer<'a> {
    families: &'a HashMap<String, (u32, bool, usize)>,
    libs: &'a [Box<dyn Library>],
    lib_names: &'a [String],
    scopes: Vec<HashMap<String, (RegId, bool)>>,
    nregs: usize,
    loops: Vec<LoopInfo>,
    /// The index of the `_` family (fresh work identifier).
    fresh: u32,
}

impl Lowerer<'_> {
    fn new_reg(&mut self, name: &str, mutable: bool) -> RegId {
        let r = self.nregs;
        self.nregs += 1;
        self.scopes.last_mut().expect("a scope").insert(name.to_string(), (r, mutable));
        r
    }

    fn lookup(&self, name: &str) -> Option<(RegId, bool, usize)> {
        self.scopes.iter().enumerate().rev().find_map(|(d, s)| s.get(name).map(|&(r, m)| (r, m, d)))
    }

    fn expr(&mut self, e: &Ex) -> L<Expr> {
        Ok(match e {
            Ex::Int(v, _) => Expr::Val(Value::Int(*v)),
            Ex::Bool(b, _) => Expr::Val(Value::Bool(*b)),
            Ex::Bot(_) => Expr::Val(Value::Bot),
            Ex::Unit(_) => Expr::Val(Value::Unit),
            Ex::Var(n) => {
                if n.text == "_" {
                    return Ok(Expr::Derived { family: self.fresh, base: None, index: vec![] });
                }
                if let Some((r, _, _)) = self.lookup(&n.text) {
                    return Ok(Expr::Reg(r));
                }
                if let Some(&(_, a)) = BUILTINS.iter().find(|(b, _)| *b == n.text) {
                    if a == 0 {
                        return Ok(Expr::Ctx(n.text.clone(), vec![]));
                    }
                }
                match self.families.get(&n.text) {
                    Some(&(f, false, 0)) => Expr::Derived { family: f, base: None, index: vec![] },
                    Some(&(_, false, k)) => {
                        return lerr(n.pos, format!("`{}` needs {k} indices: `{}[…]`", n.text, n.text))
                    }
                    Some(&(_, true, _)) => {
                        return lerr(n.pos, format!("`{}` derives from an abstract object: `{}(x)`", n.text, n.text))
                    }
                    None => return lerr(n.pos, format!("undeclared name `{}`", n.text)),
                }
            }
            Ex::Tuple(items, _) => Expr::Tuple(items.iter().map(|i| self.expr(i)).collect::<L<_>>()?),
            Ex::Set(items, _) => Expr::Op(Op::SetOf, items.iter().map(|i| self.expr(i)).collect::<L<_>>()?),
            Ex::Comp { body, var, set, .. } => {
                let set = self.expr(set)?;
                self.scopes.push(HashMap::new());
                let r = self.new_reg(&var.text, false);
                let body = self.expr(body)?;
                self.scopes.pop();
                Expr::Comp { body: Box::new(body), var: r, set: Box::new(set) }
            }
            Ex::Bin(op, a, b, _) => Expr::Op(op_of(*op), vec![self.expr(a)?, self.expr(b)?]),
            Ex::Neg(a, _) => Expr::Op(Op::Neg, vec![self.expr(a)?]),
            Ex::Not(a, _) => Expr::Op(Op::Not, vec![self.expr(a)?]),
            Ex::App(n, args) => self.app(n, args, vec![])?,
            Ex::Index(base, ix, pos) => {
                let ixs = ix.iter().map(|i| self.expr(i)).collect::<L<Vec<_>>>()?;
                match &**base {
                    Ex::App(n, args) if self.families.get(&n.text).is_some_and(|f| f.1) => self.app(n, args, ixs)?,
                    Ex::Var(n) if self.lookup(&n.text).is_none() && self.families.contains_key(&n.text) => {
                        let (f, per, k) = self.families[&n.text];
                        if per {
                            return lerr(
                                n.pos,
                                format!("`{}` derives from an abstract object: `{}(x)[…]`", n.text, n.text),
                            );
                        }
                        if k != ixs.len() {
                            return lerr(*pos, format!("`{}` takes {k} indices, found {}", n.text, ixs.len()));
                        }
                        Expr::Derived { family: f, base: None, index: ixs }
                    }
                    other => {
                        if ixs.len() != 1 {
                            return lerr(*pos, "a tuple component takes one index");
                        }
                        let b = self.expr(other)?;
                        Expr::Op(Op::Index, vec![b, ixs.into_iter().next().expect("one index")])
                    }
                }
            }
        })
    }

    fn app(&mut self, n: &syntax::Name, args: &[Ex], index: Vec<Expr>) -> L<Expr> {
        let a = args.iter().map(|e| self.expr(e)).collect::<L<Vec<_>>>()?;
        let arity = |k: usize| -> L<()> {
            if a.len() != k {
                return lerr(
                    n.pos,
                    format!("`{}` takes {k} argument{}, found {}", n.text, if k == 1 { "" } else { "s" }, a.len()),
                );
            }
            Ok(())
        };
        if let Some(&(f, per, k)) = self.families.get(&n.text) {
            if !per {
                return lerr(n.pos, format!("`{}` is a global family: `{}[…]`", n.text, n.text));
            }
            arity(1)?;
            if k != index.len() {
                return lerr(n.pos, format!("`{}(…)` takes {k} indices, found {}", n.text, index.len()));
            }
            let base = a.into_iter().next().expect("one argument");
            return Ok(Expr::Derived { family: f, base: Some(Box::new(base)), index });
        }
        if !index.is_empty() {
            return lerr(n.pos, format!("`{}` is not a location family", n.text));
        }
        let op = match n.text.as_str() {
            "min" => Some(Op::Min),
            "max" => Some(Op::Max),
            "len" => Some(Op::Len),
            "hash" => Some(Op::Hash),
            "range" => Some(Op::Range),
            _ => None,
        };
        if let Some(op) = op {
            match op {
                Op::Len | Op::Hash => arity(1)?,
                Op::Range => arity(2)?,
                _ => {}
            }
            return Ok(Expr::Op(op, a));
        }
        match BUILTINS.iter().find(|(b, _)| *b == n.text) {
            Some(&(_, k)) => {
                arity(k)?;
                Ok(Expr::Ctx(n.text.clone(), a))
            }
            None => lerr(
                n.pos,
                format!(
                    "unknown function `{}` (functions: min, max, len, hash, range, {}; families: {})",
                    n.text,
                    BUILTINS.iter().map(|b| b.0).collect::<Vec<_>>().join(", "),
                    self.families.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ),
        }
    }

    fn call(&mut self, c: &CallEx) -> L<Prog> {
        let (li, mi) = resolve(self.libs, self.lib_names, c.lib.as_ref(), &c.method)?;
        let sig = &self.libs[li].methods()[mi];
        if sig.params.len() != c.args.len() {
            return lerr(
                c.method.pos,
                format!("`{}` takes {} arguments, found {}", sig.name, sig.params.len(), c.args.len()),
            );
        }
        if !self.libs[li].read_only(mi) {
            for l in &mut self.loops {
                l.read_only = false;
            }
        }
        let args = c.args.iter().map(|a| self.expr(a)).collect::<L<Vec<_>>>()?;
        Ok(Prog::Call { lib: li, method: mi, args })
    }

    fn rhs(&mut self, r: &Rhs) -> L<Prog> {
        match r {
            Rhs::Call(c) => self.call(c),
            Rhs::Expr(e) => Ok(Prog::Ret(self.expr(e)?)),
            Rhs::If(s) => self.stmt_prog(s),
        }
    }

    /// The program of one statement (its value is the statement's value).
    fn stmt_prog(&mut self, s: &Stmt) -> L<Prog> {
        match s {
            Stmt::Call(c) => self.call(c),
            Stmt::Value(e) => Ok(Prog::Ret(self.expr(e)?)),
            Stmt::If { cond, then, els, .. } => {
                let c = self.expr(cond)?;
                let a = self.block(then)?;
                let b = match els {
                    Some(b) => self.block(b)?,
                    None => Prog::Ret(Expr::Val(Value::Unit)),
                };
                Ok(Prog::If(c, Box::new(a), Box::new(b)))
            }
            Stmt::Loop(b, _) => {
                self.loops.push(LoopInfo { depth: self.scopes.len(), read_only: true, writes_outer: false });
                let first = self.nregs;
                let body = self.block(b)?;
                let locals: Vec<RegId> = (first..self.nregs).collect();
                let info = self.loops.pop().expect("pushed");
                Ok(if info.read_only && !info.writes_outer {
                    Prog::Spin(Box::new(body), locals)
                } else {
                    Prog::Loop(Box::new(body))
                })
            }
            Stmt::For { var, set, body } => {
                let set = self.expr(set)?;
                self.scopes.push(HashMap::new());
                let r = self.new_reg(&var.text, false);
                let b = self.block(body)?;
                self.scopes.pop();
                Ok(Prog::For { var: r, set, body: Box::new(b) })
            }
            Stmt::Break(v, pos) => {
                if self.loops.is_empty() {
                    return lerr(*pos, "`break` outside a `loop`");
                }
                let v = match v {
                    Some(e) => self.expr(e)?,
                    None => Expr::Val(Value::Unit),
                };
                Ok(Prog::Break(1, v))
            }
            Stmt::Let { .. } | Stmt::Assign { .. } => unreachable!("handled by `stmts`"),
        }
    }

    fn stmts(&mut self, ss: &[Stmt]) -> L<Prog> {
        let Some((first, rest)) = ss.split_first() else { return Ok(Prog::Ret(Expr::Val(Value::Unit))) };
        match first {
            Stmt::Let { name, rhs, mutable } => {
                let p = self.rhs(rhs)?;
                let r = self.new_reg(&name.text, *mutable);
                let rest = self.stmts(rest)?;
                Ok(Prog::Let { first: Box::new(p), bind: Some(r), rest: Box::new(rest) })
            }
            Stmt::Assign { name, rhs } => {
                let Some((r, mutable, depth)) = self.lookup(&name.text) else {
                    return lerr(name.pos, format!("undeclared variable `{}` (declare it with `var`)", name.text));
                };
                if !mutable {
                    return lerr(
                        name.pos,
                        format!("`{}` is bound by `let`; declare it with `var` to assign it", name.text),
                    );
                }
                for l in &mut self.loops {
                    if depth < l.depth {
                        l.writes_outer = true;
                    }
                }
                let p = self.rhs(rhs)?;
                let rest = self.stmts(rest)?;
                Ok(Prog::Let { first: Box::new(p), bind: Some(r), rest: Box::new(rest) })
            }
            s => {
                let p = self.stmt_prog(s)?;
                if rest.is_empty() {
                    return Ok(p);
                }
                let rest = self.stmts(rest)?;
                Ok(Prog::Let { first: Box::new(p), bind: None, rest: Box::new(rest) })
            }
        }
    }

    fn block(&mut self, b: &Block) -> L<Prog> {
        self.scopes.push(HashMap::new());
        let p = self.stmts(&b.stmts);
        self.scopes.pop();
        p
    }
}

fn resolve(
    libs: &[Box<dyn Library>],
    names: &[String],
    lib: Option<&syntax::Name>,
    m: &syntax::Name,
) -> L<(usize, usize)> {
    let visible =
        |l: &dyn Library| l.methods().iter().map(|s| s.name).filter(|n| !n.starts_with('#')).collect::<Vec<_>>();
    if let Some(l) = lib {
        let Some(li) = names.iter().position(|n| *n == l.text) else {
            return lerr(l.pos, format!("library `{}` is not in `uses` ({})", l.text, names.join(", ")));
        };
        return match libs[li].method_id(&m.text) {
            Some(mi) => Ok((li, mi)),
            None => lerr(
                m.pos,
                format!(
                    "library `{}` has no method `{}` (its methods: {})",
                    l.text,
                    m.text,
                    visible(&*libs[li]).join(", ")
                ),
            ),
        };
    }
    let found: Vec<(usize, usize)> =
        libs.iter().enumerate().filter_map(|(li, l)| l.method_id(&m.text).map(|mi| (li, mi))).collect();
    match found.len() {
        1 => Ok(found[0]),
        0 => lerr(m.pos, format!("unknown method `{}`: no library of `uses` ({}) has it", m.text, names.join(", "))),
        _ => {
            let ls: Vec<&str> = found.iter().map(|(li, _)| names[*li].as_str()).collect();
            lerr(
                m.pos,
                format!(
                    "ambiguous method `{}`: it belongs to {}; qualify it, e.g. `{}.{}`",
                    m.text,
                    ls.join(" and "),
                    ls[0],
                    m.text
                ),
            )
        }
    }
}

impl Implementation {
    /// Reads and lowers an implementation file.
    pub fn load(path: &Path, order: &StampOrder) -> Result<Implementation, InputError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| InputError {
            file: file.clone(),
            line: 0,
            col: 0,
            msg: format!("cannot read: {e}"),
        })?;
        Implementation::parse(&file, &text, order)
    }

    pub fn parse(file: &str, text: &str, order: &StampOrder) -> Result<Implementation, InputError> {
        let ie = |pos: Pos, msg: String| InputError { file: file.to_string(), line: pos.line, col: pos.col, msg };
        let f: ImplFile = syntax::parse(text).map_err(|e| ie(e.pos, e.msg))?;
        let abs = registry::library(&f.implements.text, order).map_err(|e| ie(f.implements.pos, e.to_string()))?;
        let mut libs: Vec<Box<dyn Library>> = Vec::new();
        let mut lib_names = Vec::new();
        for u in &f.uses {
            if u.text == f.implements.text {
                return Err(ie(u.pos, format!("`{}` cannot use itself (LOCO Def. 3.9 (1))", u.text)));
            }
            if lib_names.contains(&u.text) {
                return Err(ie(u.pos, format!("library `{}` is listed twice", u.text)));
            }
            libs.push(registry::library(&u.text, order).map_err(|e| ie(u.pos, e.to_string()))?);
            lib_names.push(u.text.clone());
        }
        // families: index in declaration order; `_` (fresh work identifier) last
        let mut fam_index: HashMap<String, (u32, bool, usize)> = HashMap::new();
        for (i, d) in f.families.iter().enumerate() {
            if fam_index.contains_key(&d.name.text) || BUILTINS.iter().any(|b| b.0 == d.name.text) {
                return Err(ie(d.name.pos, format!("`{}` is already declared (or a built-in function)", d.name.text)));
            }
            fam_index.insert(d.name.text.clone(), (i as u32, d.object.is_some(), d.index.len()));
        }
        let fresh = f.families.len() as u32;
        let mut families = Vec::new();
        for d in &f.families {
            let mut lw = Lowerer {
                families: &fam_index,
                libs: &libs,
                lib_names: &lib_names,
                scopes: vec![HashMap::new()],
                nregs: 0,
                loops: vec![],
                fresh,
            };
            // register 0: the abstract object (if any); then the ranged variables
            lw.new_reg(d.object.as_ref().map(|o| o.text.as_str()).unwrap_or("#object"), false);
            let mut ranges = Vec::new();
            for (v, e) in &d.ranges {
                ranges.push(lw.expr(e).map_err(|e| ie(e.pos, e.msg))?);
                lw.new_reg(&v.text, false);
            }
            let index = d
                .index
                .iter()
                .map(|ix| d.ranges.iter().position(|(v, _)| v.text == ix.text).expect("checked by the parser"))
                .collect();
            let node = d.node.as_ref().map(|e| lw.expr(e)).transpose().map_err(|e| ie(e.pos, e.msg))?;
            let init = d.init.as_ref().map(|e| lw.expr(e)).transpose().map_err(|e| ie(e.pos, e.msg))?;
            families.push(Family {
                name: d.name.text.clone(),
                per_object: d.object.is_some(),
                ranges,
                index,
                node,
                init,
                wid: d.wid,
                nregs: lw.nregs,
            });
        }
        families.push(Family {
            name: "_".into(),
            per_object: false,
            ranges: vec![],
            index: vec![],
            node: None,
            init: None,
            wid: true,
            nregs: 1,
        });
        let mut methods = BTreeMap::new();
        for m in &f.methods {
            let Some(mi) = abs.method_id(&m.name.text) else {
                return Err(ie(
                    m.name.pos,
                    format!(
                        "`{}` has no method `{}` (its methods: {})",
                        f.implements.text,
                        m.name.text,
                        abs.methods()
                            .iter()
                            .map(|s| s.name)
                            .filter(|n| !n.starts_with('#'))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            };
            let sig = &abs.methods()[mi];
            if sig.params.len() != m.params.len() {
                return Err(ie(
                    m.name.pos,
                    format!(
                        "`{}` takes {} parameters in `{}`, found {}",
                        m.name.text,
                        sig.params.len(),
                        f.implements.text,
                        m.params.len()
                    ),
                ));
            }
            if methods.contains_key(&m.name.text) {
                return Err(ie(m.name.pos, format!("method `{}` is implemented twice", m.name.text)));
            }
            let mut lw = Lowerer {
                families: &fam_index,
                libs: &libs,
                lib_names: &lib_names,
                scopes: vec![HashMap::new()],
                nregs: 0,
                loops: vec![],
                fresh,
            };
            for p in &m.params {
                lw.new_reg(&p.text, false);
            }
            let body = lw.block(&m.body).map_err(|e| ie(e.pos, e.msg))?;
            methods.insert(
                m.name.text.clone(),
                MethodImpl { name: m.name.text.clone(), params: m.params.len(), body, nregs: lw.nregs },
            );
        }
        for s in abs.methods() {
            if !s.name.starts_with('#') && !methods.contains_key(s.name) {
                return Err(ie(
                    f.name.pos,
                    format!("method `{}` of `{}` has no implementation", s.name, f.implements.text),
                ));
            }
        }
        Ok(Implementation {
            name: f.name.text.clone(),
            file: file.to_string(),
            implements: f.implements.text.clone(),
            uses: lib_names,
            families,
            methods,
        })
    }
}

/// The context of an implemented program: the client's world (nodes, threads,
/// barrier participants, ring roles, location sizes), the work identifiers each
/// thread uses, and the materialised implementation locations.
pub struct WorldCtx {
    pub world: World,
    /// Per thread: the work identifiers its client code uses.
    pub wids: Vec<Vec<Value>>,
    /// (family, abstract object, index) → location or work identifier.
    pub derived: HashMap<(u32, Option<Value>, Vec<Value>), Value>,
}

impl EvalCtx for WorldCtx {
    fn builtin(&self, thread: ThreadId, name: &str, args: &[Value]) -> Result<Value, String> {
        let w = &self.world;
        let obj = |v: Option<&Value>| -> Result<&mowgli_core::ObjInfo, String> {
            match v {
                Some(Value::Obj(o)) => w.objs.get(*o as usize).ok_or_else(|| "no such object".into()),
                Some(v) => Err(format!("`{name}` needs a barrier or ring, found {}", w.show(v))),
                None => Err(format!("`{name}` needs an argument")),
            }
        };
        let threads = |ts: &[usize]| make_set(ts.iter().map(|&t| Value::Thread(t as u32)).collect());
        Ok(match name {
            "node" => Value::Node(w.thread_node(thread)),
            "self" => Value::Thread(thread as u32),
            "nodes" => Value::Nodes(w.nodes.clone()),
            "threads" => threads(&(0..w.threads.len()).collect::<Vec<_>>()),
            "wids" => make_set(self.wids.get(thread).cloned().unwrap_or_default()),
            "node_of" => match args.first() {
                Some(Value::Thread(t)) => Value::Node(w.thread_node(*t as usize)),
                _ => return Err("`node_of` needs a thread".into()),
            },
            "loc_node" => match args.first() {
                Some(Value::Loc(l)) => Value::Node(w.loc_node(*l).ok_or("`loc_node` of a replicated location")?),
                _ => return Err("`loc_node` needs a location".into()),
            },
            "participants" | "readers" => threads(&obj(args.first())?.threads),
            "writer" => Value::Thread(obj(args.first())?.writer.ok_or("`writer` of a barrier")? as u32),
            "ring_size" => Value::Int(obj(args.first())?.size.ok_or("`ring_size` of a barrier")? as i64),
            "size" => match args.first() {
                Some(Value::Loc(l)) => {
                    Value::Int(w.locs[*l].size.ok_or("`size` of a location without `size K`")? as i64)
                }
                _ => return Err("`size` needs a location".into()),
            },
            "obj" => args.first().cloned().ok_or("`obj` needs an argument")?,
            _ => return Err(format!("unknown function `{name}`")),
        })
    }
    fn derived(&self, family: u32, base: Option<&Value>, index: &[Value]) -> Result<Value, String> {
        self.derived.get(&(family, base.cloned(), index.to_vec())).cloned().ok_or_else(|| {
            format!(
                "no implementation location of this family for {}[{}] (outside the declared ranges)",
                base.map(|b| self.world.show(b)).unwrap_or_default(),
                index.iter().map(|v| self.world.show(v)).collect::<Vec<_>>().join(", ")
            )
        })
    }
}

impl WorldCtx {
    /// Creates the implementation locations of `imp` for the abstract objects
    /// `objects` (the values the client passes to the implemented library),
    /// appending them to the world; names are `family(object)[index]`.
    pub fn materialise(
        imp: &Implementation,
        world: World,
        wids: Vec<Vec<Value>>,
        objects: &[Value],
    ) -> Result<WorldCtx, String> {
        let mut ctx = WorldCtx { world, wids, derived: HashMap::new() };
        for (fi, fam) in imp.families.iter().enumerate() {
            let bases: Vec<Option<Value>> =
                if fam.per_object { objects.iter().cloned().map(Some).collect() } else { vec![None] };
            for base in bases {
                // enumerate the ranged variables
                let mut assigns: Vec<Vec<Value>> = vec![vec![]];
                for (k, r) in fam.ranges.iter().enumerate() {
                    let mut next = Vec::new();
                    for a in &assigns {
                        let env = env_of(&base, a, fam.nregs);
                        let set = match r.eval_in(&env, 0, &ctx) {
                            Ok(v) => v,
                            // a range that does not apply to this object (e.g. `participants` of a location)
                            Err(_) if fam.per_object => continue,
                            Err(e) => return Err(format!("family `{}`, range {}: {e}", fam.name, k + 1)),
                        };
                        let items = match &set {
                            Value::Nodes(ns) => ns.iter().map(|&n| Value::Node(n)).collect(),
                            Value::Set(vs) | Value::Tuple(vs) => vs.clone(),
                            v => return Err(format!("family `{}`: range {} is not a set ({v})", fam.name, k + 1)),
                        };
                        for it in items {
                            let mut b = a.clone();
                            b.push(it);
                            next.push(b);
                        }
                    }
                    assigns = next;
                }
                for a in assigns {
                    let env = env_of(&base, &a, fam.nregs);
                    let index: Vec<Value> = fam.index.iter().map(|&i| a[i].clone()).collect();
                    let label = format!(
                        "{}{}{}",
                        fam.name,
                        base.as_ref().map(|b| format!("({})", ctx.world.show(b))).unwrap_or_default(),
                        if index.is_empty() {
                            String::new()
                        } else {
                            format!("[{}]", index.iter().map(|v| ctx.world.show(v)).collect::<Vec<_>>().join(","))
                        }
                    );
                    let v = if fam.wid {
                        let id = ctx.world.wids.len() as u32;
                        ctx.world.wids.push(label);
                        Value::Wid(id)
                    } else {
                        let home = match &fam.node {
                            None => None,
                            Some(e) => {
                                match e.eval_in(&env, 0, &ctx).map_err(|e| format!("family `{}`: {e}", fam.name))? {
                                    Value::Node(n) => Some(n),
                                    Value::Int(n) if n > 0 => Some(n as u32),
                                    v => return Err(format!("family `{}`: `@` gives {v}, not a node", fam.name)),
                                }
                            }
                        };
                        let init = match &fam.init {
                            None => Value::Int(0),
                            Some(e) => e.eval_in(&env, 0, &ctx).map_err(|e| format!("family `{}`: {e}", fam.name))?,
                        };
                        if let Some(n) = home {
                            if !ctx.world.nodes.contains(&n) {
                                return Err(format!("family `{}`: node {n} is not a node of the program", fam.name));
                            }
                        }
                        let l = ctx.world.locs.len();
                        ctx.world.locs.push(LocInfo { name: label, home, init, size: None, implicit: false });
                        Value::Loc(l)
                    };
                    ctx.derived.insert((fi as u32, base.clone(), index), v);
                }
            }
        }
        Ok(ctx)
    }
}

fn env_of(base: &Option<Value>, vars: &[Value], nregs: usize) -> Vec<Option<Value>> {
    let mut env = vec![None; nregs.max(vars.len() + 1)];
    env[0] = base.clone();
    for (i, v) in vars.iter().enumerate() {
        env[i + 1] = Some(v.clone());
    }
    env
}
