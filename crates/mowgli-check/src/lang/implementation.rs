//! Implementations of one library over others (LOCO §3.5), written as text files
//! (`specs/impls/*.impl`, grammar in `docs/impl-language.md`): parsing, lowering
//! to the meta-language ([`mowgli_core::program::Prog`]), the implementation
//! locations derived from abstract ones, and the context functions bodies use.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use mowgli_core::program::{make_set, Body, EvalCtx, Expr, Prog};
use mowgli_core::{Library, LocInfo, StampOrder, ThreadId, Value, World};
use mowgli_libs::catalogue::Catalogue;

use crate::lang::ast::{CallEx, ImplFile};
use crate::lang::lex::Name;
use crate::lang::stmts::{build_library, lerr, unknown, Host, Lowerer, L};
use crate::lang::syntax::Pos;
use crate::lang::InputError;
use mowgli_diag::Diagnostic;

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
    /// Every use names the calling thread's own location ([`crate::lang::private`]).
    pub private: bool,
}

/// A method body: `I(t, m, ṽ)` with the arguments in registers 0..k.
#[derive(Clone, Debug)]
pub struct MethodImpl {
    pub name: String,
    pub params: usize,
    pub body: Prog,
    pub nregs: usize,
    /// Where the method is declared (its name, with the source line), for errors
    /// found once the body runs ([`Implementation::error`]).
    pub site: Diagnostic,
}

/// A lowered implementation of library `implements` using the libraries `uses`.
pub struct Implementation {
    pub name: String,
    pub file: String,
    pub implements: String,
    /// The library the file's `implements` line names, when [`Implementation::against`]
    /// checks the implementation against another specification of the same methods
    /// (clients naming this library are run with `implements` in its place).
    pub declared: Option<String>,
    pub uses: Vec<String>,
    pub families: Vec<Family>,
    pub methods: BTreeMap<String, MethodImpl>,
    /// The concretisation map g of its `concretise` lines (LOCO Def. 3.13), for
    /// `mowgli obligations`; see [`crate::lang::maps`].
    pub map: crate::lang::maps::ConcMap,
    /// The libraries the implementation was read with: the ones it implements
    /// and uses, and those its clients name.
    pub catalogue: Catalogue,
    /// The worlds [`Implementation::world_ctx`] materialised, by (client world, work
    /// identifiers, objects).
    materialised: Mutex<FxHashMap<WorldKey, Arc<WorldCtx>>>,
    /// The bodies [`Implementation::bodies`] gave, by (abstract library, library map).
    bodies: Mutex<FxHashMap<(String, Vec<usize>), Bodies>>,
    /// Where the `implementation` line names it (for errors about no one method).
    site: Diagnostic,
}

type WorldKey = (World, Vec<Vec<Value>>, Vec<Value>);

/// Per method of an abstract library, its implementation's body, if any.
type Bodies = Vec<Option<Body>>;

/// Most worlds an implementation remembers.
const MAX_MATERIALISED: usize = 4096;

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

/// The host of an implementation's bodies and family declarations.
struct ImplHost<'a> {
    families: &'a HashMap<String, (u32, bool, usize)>,
    libs: &'a [Box<dyn Library>],
    lib_names: &'a [String],
    /// The index of the `_` family (fresh work identifier).
    fresh: u32,
    /// The integer literals passed where a library takes a source (`Put(x, 1, d)`):
    /// each is a family of implicit locations after `_`, one per node holding it
    /// (as the litmus format makes a literal source an implicit location).
    literals: &'a mut Vec<i64>,
}

/// An integer literal, possibly negated.
fn int_literal(e: &crate::lang::ast::Ex) -> Option<i64> {
    use crate::lang::ast::Ex;
    match e {
        Ex::Int(v, _) => Some(*v),
        Ex::Neg(b, _) => match &**b {
            Ex::Int(v, _) => v.checked_neg(),
            _ => None,
        },
        _ => None,
    }
}

impl Host for ImplHost<'_> {
    fn name(&mut self, lw: &mut Lowerer, n: &Name) -> L<Expr> {
        if n.text == "_" {
            return Ok(Expr::Derived { family: self.fresh, base: None, index: vec![] });
        }
        if let Some(&(_, a)) = BUILTINS.iter().find(|(b, _)| *b == n.text) {
            if a == 0 {
                return Ok(Expr::Ctx(n.text.clone(), vec![]));
            }
        }
        match self.families.get(&n.text) {
            Some(&(f, false, 0)) => Ok(Expr::Derived { family: f, base: None, index: vec![] }),
            Some(&(_, false, k)) => lerr(n.pos, format!("`{}` needs {k} indices: `{}[…]`", n.text, n.text)),
            Some(&(_, true, _)) => {
                lerr(n.pos, format!("`{}` derives from an abstract object: `{}(x)`", n.text, n.text))
            }
            None => {
                let vars = lw.visible();
                let known = vars
                    .iter()
                    .map(String::as_str)
                    .chain(self.families.keys().map(String::as_str))
                    .chain(BUILTINS.iter().filter(|b| b.1 == 0).map(|b| b.0));
                unknown(n, format!("undeclared name `{}`", n.text), known)
            }
        }
    }

    fn family(&self, name: &str) -> Option<(u32, bool, usize)> {
        self.families.get(name).copied()
    }

    fn function(&mut self, n: &Name, a: Vec<Expr>) -> L<Expr> {
        match BUILTINS.iter().find(|(b, _)| *b == n.text) {
            Some(&(_, k)) => {
                if a.len() != k {
                    return lerr(
                        n.pos,
                        format!("`{}` takes {k} argument{}, found {}", n.text, if k == 1 { "" } else { "s" }, a.len()),
                    );
                }
                Ok(Expr::Ctx(n.text.clone(), a))
            }
            None => {
                let mut families: Vec<&str> = self.families.keys().map(String::as_str).collect();
                families.sort();
                let known = crate::lang::grammar::OPERATOR_FUNCTIONS
                    .iter()
                    .copied()
                    .chain(BUILTINS.iter().map(|b| b.0))
                    .chain(families.iter().copied());
                unknown(
                    n,
                    format!(
                        "unknown function `{}` (functions: min, max, len, hash, range, {}; families: {})",
                        n.text,
                        BUILTINS.iter().map(|b| b.0).collect::<Vec<_>>().join(", "),
                        families.join(", ")
                    ),
                    known,
                )
            }
        }
    }

    fn call(&mut self, lw: &mut Lowerer, c: &CallEx) -> L<Prog> {
        let (li, mi) = resolve(self.libs, self.lib_names, c.lib.as_ref(), &c.method)?;
        let sig = &self.libs[li].methods()[mi];
        if sig.params.len() != c.args.len() {
            return lerr(
                c.method.pos,
                format!("`{}` takes {} arguments, found {}", sig.name, sig.params.len(), c.args.len()),
            );
        }
        lw.mark_call(self.libs[li].read_only(mi));
        let params = sig.params.clone();
        let mut args = Vec::with_capacity(c.args.len());
        for (a, p) in c.args.iter().zip(params) {
            match (p, int_literal(a)) {
                // a literal source: the calling node's implicit location holding it
                (mowgli_core::Param::Src, Some(v)) => {
                    let k = match self.literals.iter().position(|&w| w == v) {
                        Some(k) => k,
                        None => {
                            self.literals.push(v);
                            self.literals.len() - 1
                        }
                    };
                    args.push(Expr::Derived {
                        family: self.fresh + 1 + k as u32,
                        base: None,
                        index: vec![Expr::Ctx("node".into(), vec![])],
                    });
                }
                _ => args.push(lw.expr(a, self)?),
            }
        }
        Ok(Prog::Call { lib: li, method: mi, args })
    }
}

fn resolve(libs: &[Box<dyn Library>], names: &[String], lib: Option<&Name>, m: &Name) -> L<(usize, usize)> {
    let visible =
        |l: &dyn Library| l.methods().iter().map(|s| s.name).filter(|n| !n.starts_with('#')).collect::<Vec<_>>();
    if let Some(l) = lib {
        let Some(li) = names.iter().position(|n| *n == l.text) else {
            return unknown(
                l,
                format!("library `{}` is not in `uses` ({})", l.text, names.join(", ")),
                names.iter().map(String::as_str),
            );
        };
        return match libs[li].method_id(&m.text) {
            Some(mi) => Ok((li, mi)),
            None => unknown(
                m,
                format!(
                    "library `{}` has no method `{}` (its methods: {})",
                    l.text,
                    m.text,
                    visible(&*libs[li]).join(", ")
                ),
                visible(&*libs[li]),
            ),
        };
    }
    let found: Vec<(usize, usize)> =
        libs.iter().enumerate().filter_map(|(li, l)| l.method_id(&m.text).map(|mi| (li, mi))).collect();
    match found.len() {
        1 => Ok(found[0]),
        0 => unknown(
            m,
            format!("unknown method `{}`: no library of `uses` ({}) has it", m.text, names.join(", ")),
            libs.iter().flat_map(|l| visible(&**l)),
        ),
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
    pub fn load(path: &Path, order: &StampOrder, cat: &Catalogue) -> Result<Implementation, InputError> {
        let file = path.display().to_string();
        let text = mowgli_diag::read_source(path, &file)?;
        Implementation::parse(&file, &text, order, cat)
    }

    /// Parses and lowers implementation file `file`, whose text is `text`.
    pub fn parse(file: &str, text: &str, order: &StampOrder, cat: &Catalogue) -> Result<Implementation, InputError> {
        Implementation::parse_text(file, text, order, cat).map_err(|d| d.in_file(file, text))
    }

    fn parse_text(file: &str, text: &str, order: &StampOrder, cat: &Catalogue) -> Result<Implementation, Diagnostic> {
        let ie = |pos: Pos, msg: String| Diagnostic::new(pos, msg);
        let original = text;
        // `concretise` lines are read apart (blanked for the parser), once the libraries are known
        let text = &crate::lang::maps::strip(text);
        let f: ImplFile = crate::lang::grammar::parse(text)?;
        let abs = build_library(&f.implements, order, cat)?;
        let mut libs: Vec<Box<dyn Library>> = Vec::new();
        let mut lib_names = Vec::new();
        for u in &f.uses {
            if u.text == f.implements.text {
                return Err(
                    ie(u.pos, format!("`{}` cannot use itself (LOCO Def. 3.9 (1))", u.text)).with_span(u.text.len())
                );
            }
            if lib_names.contains(&u.text) {
                return Err(ie(u.pos, format!("library `{}` is listed twice", u.text)).with_span(u.text.len()));
            }
            libs.push(build_library(u, order, cat)?);
            lib_names.push(u.text.clone());
        }
        // the concretisation map: methods of the implemented library mapped to methods of `uses`
        let map = match order.table("to") {
            Some(to) => {
                let visible = |l: &dyn Library| -> Vec<&'static str> {
                    l.methods().iter().map(|s| s.name).filter(|n| !n.starts_with('#')).collect()
                };
                let abstract_methods = visible(abs.as_ref());
                let concrete_methods: Vec<&str> = libs.iter().flat_map(|l| visible(l.as_ref())).collect();
                crate::lang::maps::parse_checked(original, to, Some((&abstract_methods, &concrete_methods)))?
            }
            None => Default::default(),
        };
        // families: index in declaration order; `_` (fresh work identifier) last
        let mut fam_index: HashMap<String, (u32, bool, usize)> = HashMap::new();
        for (i, d) in f.families.iter().enumerate() {
            if fam_index.contains_key(&d.name.text) || BUILTINS.iter().any(|b| b.0 == d.name.text) {
                return Err(ie(d.name.pos, format!("`{}` is already declared (or a built-in function)", d.name.text)));
            }
            fam_index.insert(d.name.text.clone(), (i as u32, d.object.is_some(), d.index.len()));
        }
        let fresh = f.families.len() as u32;
        let mut literals: Vec<i64> = Vec::new();
        let mut families = Vec::new();
        for d in &f.families {
            let mut host =
                ImplHost { families: &fam_index, libs: &libs, lib_names: &lib_names, fresh, literals: &mut literals };
            let mut lw = Lowerer::new(false, 0);
            // register 0: the abstract object (if any); then the ranged variables
            lw.new_reg(d.object.as_ref().map(|o| o.text.as_str()).unwrap_or("#object"), false);
            let mut ranges = Vec::new();
            for (v, e) in &d.ranges {
                ranges.push(lw.expr(e, &mut host)?);
                lw.new_reg(&v.text, false);
            }
            let index = d
                .index
                .iter()
                .map(|ix| d.ranges.iter().position(|(v, _)| v.text == ix.text).expect("checked by the parser"))
                .collect();
            let node = d.node.as_ref().map(|e| lw.expr(e, &mut host)).transpose()?;
            let init = d.init.as_ref().map(|e| lw.expr(e, &mut host)).transpose()?;
            families.push(Family {
                name: d.name.text.clone(),
                per_object: d.object.is_some(),
                ranges,
                index,
                node,
                init,
                wid: d.wid,
                nregs: lw.nregs,
                private: false,
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
            private: false,
        });
        let mut methods = BTreeMap::new();
        for m in &f.methods {
            let Some(mi) = abs.method_id(&m.name.text) else {
                let known: Vec<&str> = abs.methods().iter().map(|s| s.name).filter(|n| !n.starts_with('#')).collect();
                return unknown(
                    &m.name,
                    format!(
                        "`{}` has no method `{}` (its methods: {})",
                        f.implements.text,
                        m.name.text,
                        known.join(", ")
                    ),
                    known.iter().copied(),
                );
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
            let mut host =
                ImplHost { families: &fam_index, libs: &libs, lib_names: &lib_names, fresh, literals: &mut literals };
            let mut lw = Lowerer::new(false, 0);
            for p in &m.params {
                lw.new_reg(&p.text, false);
            }
            let body = lw.block(&m.body, &mut host)?;
            let site = Diagnostic::new(m.name.pos, "").with_span(m.name.text.chars().count()).in_file(file, original);
            methods.insert(
                m.name.text.clone(),
                MethodImpl { name: m.name.text.clone(), params: m.params.len(), body, nregs: lw.nregs, site },
            );
        }
        // the literal sources' families, after `_`: `literal(v)[n] @ n = v for n in nodes`
        for v in literals {
            families.push(Family {
                name: format!("literal({v})"),
                per_object: false,
                ranges: vec![Expr::Ctx("nodes".into(), vec![])],
                index: vec![0],
                node: Some(Expr::Reg(1)),
                init: Some(Expr::Val(Value::Int(v))),
                wid: false,
                nregs: 2,
                private: false,
            });
        }
        let private = crate::lang::private::private_families(families.len(), methods.values().map(|m| &m.body), &libs);
        for (f, p) in families.iter_mut().zip(private) {
            f.private = p && !f.wid;
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
            declared: None,
            uses: lib_names,
            families,
            methods,
            map,
            catalogue: cat.clone(),
            materialised: Mutex::default(),
            bodies: Mutex::default(),
            site: Diagnostic::new(f.name.pos, "").with_span(f.name.text.chars().count()).in_file(file, original),
        })
    }

    /// An error `msg` found when the implementation runs (e.g. a body that is not
    /// well defined, LOCO Def. 3.9): at the declaration of the method it names
    /// (`` `LIB.M` `` or `` `M` ``), else at the `implementation` line.
    pub fn error(&self, msg: impl Into<String>) -> Diagnostic {
        let msg = msg.into();
        let names = |m: &&MethodImpl| msg.contains(&format!(".{}`", m.name)) || msg.contains(&format!("`{}`", m.name));
        let mut d = self.methods.values().find(names).map_or(&self.site, |m| &m.site).clone();
        d.msg = msg;
        d
    }
}

impl Implementation {
    /// [`WorldCtx::materialise`] for this implementation, remembered per client
    /// world, work identifiers and objects (generated clients share a few worlds).
    pub fn world_ctx(&self, world: World, wids: Vec<Vec<Value>>, objects: &[Value]) -> Result<Arc<WorldCtx>, String> {
        let key = (world, wids, objects.to_vec());
        if let Some(ctx) = self.materialised.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(ctx);
        }
        let ctx = Arc::new(WorldCtx::materialise(self, key.0.clone(), key.1.clone(), objects)?);
        if let Ok(mut m) = self.materialised.lock() {
            if m.len() < MAX_MATERIALISED {
                m.insert(key, ctx.clone());
            }
        }
        Ok(ctx)
    }

    /// Per method of the abstract library `abs` (in its order), the implementation's
    /// body with its calls numbered by `uses_map` (the index of each used library
    /// among the program's), its registers and its name; remembered per library map.
    pub fn bodies(&self, abs: &dyn Library, uses_map: &[usize]) -> Vec<Option<Body>> {
        let key = (abs.name().to_string(), uses_map.to_vec());
        if let Some(b) = self.bodies.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return b;
        }
        let bodies: Vec<Option<Body>> = abs
            .methods()
            .iter()
            .map(|s| {
                self.methods.get(s.name).map(|m| {
                    Body::new((
                        m.body.map_libs(&|l| uses_map[l]),
                        m.nregs.max(m.params),
                        format!("{}.{}", self.implements, s.name),
                    ))
                })
            })
            .collect();
        if let Ok(mut m) = self.bodies.lock() {
            if m.len() < MAX_MATERIALISED {
                m.insert(key, bodies.clone());
            }
        }
        bodies
    }

    /// Checks the implementation against the specification `lib` instead of the one
    /// its `implements` line names (e.g. `rbl_rfe` for an `rbl` implementation): `lib`
    /// must have the same methods with the same parameters.
    pub fn against(&mut self, lib: &str, order: &StampOrder) -> Result<(), String> {
        if lib == self.implements {
            return Ok(());
        }
        let mine = self.catalogue.library(&self.implements, order).map_err(|e| e.to_string())?;
        let other = self.catalogue.library(lib, order).map_err(|e| e.to_string())?;
        let sigs = |l: &dyn Library| -> Vec<(String, Vec<mowgli_core::Param>, bool)> {
            l.methods().iter().map(|m| (m.name.to_string(), m.params.clone(), m.returns)).collect()
        };
        if sigs(mine.as_ref()) != sigs(other.as_ref()) {
            return Err(format!(
                "`{}` implements `{}`, whose methods differ from `{lib}`'s: a specification to check it against must have the same methods",
                self.name, self.implements
            ));
        }
        if self.uses.iter().any(|u| u == lib) {
            return Err(format!("`{}` uses `{lib}`: it cannot also be checked against it", self.name));
        }
        self.declared = Some(std::mem::replace(&mut self.implements, lib.to_string()));
        Ok(())
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
    /// The locations of private families ([`Family::private`]).
    pub private: std::collections::HashSet<Value>,
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
    fn private(&self, loc: &Value) -> bool {
        self.private.contains(loc)
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
        let mut ctx = WorldCtx { world, wids, derived: HashMap::new(), private: Default::default() };
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
                    if fam.private {
                        ctx.private.insert(v.clone());
                    }
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
