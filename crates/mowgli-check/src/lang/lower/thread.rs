//! The lowering of one thread body: the test's names (locations, registers, work
//! identifiers, objects) for the shared statement lowering.

use super::*;

/// The context of one thread body's lowering: the test's names.
pub(super) struct ThreadHost<'a> {
    pub(super) tid: usize,
    pub(super) world: &'a mut World,
    pub(super) lids: &'a HashMap<String, usize>,
    pub(super) names: &'a mut Names,
    pub(super) wids: &'a mut HashMap<String, u32>,
    pub(super) objs: &'a HashMap<String, usize>,
    pub(super) literals: &'a mut BTreeSet<Value>,
    pub(super) libs: &'a [Box<dyn Library>],
    pub(super) lib_names: &'a [String],
    /// The thread's registers.
    pub(super) regs: &'a HashMap<String, RegId>,
    /// Some value written may be no literal (a register's, or an expression's).
    pub(super) computed: bool,
}

impl ThreadHost<'_> {
    /// A value argument. The base format's forms (literals, registers, tuples of
    /// them) keep their lowering; other expressions compute a value.
    fn value(&mut self, lw: &mut Lowerer, a: &Ex) -> L<Expr> {
        if let Some(v) = int_literal(a) {
            self.literals.insert(Value::Int(v));
            return Ok(Expr::Val(Value::Int(v)));
        }
        match a {
            Ex::Bool(b, _) => {
                self.literals.insert(Value::Bool(*b));
                Ok(Expr::Val(Value::Bool(*b)))
            }
            // the base format has no `bot`: there it is a register's name
            Ex::Bot(p) if self.regs.contains_key("bot") => {
                self.value(lw, &Ex::Var(Name { text: "bot".into(), pos: *p }))
            }
            Ex::Bot(_) => {
                self.literals.insert(Value::Bot);
                Ok(Expr::Val(Value::Bot))
            }
            Ex::Tuple(items, _) => {
                let es = items.iter().map(|i| self.value(lw, i)).collect::<L<Vec<_>>>()?;
                let consts: Option<Vec<Value>> = es
                    .iter()
                    .map(|e| match e {
                        Expr::Val(v) => Some(v.clone()),
                        _ => None,
                    })
                    .collect();
                match consts {
                    Some(vs) => {
                        self.literals.insert(Value::Tuple(vs));
                    }
                    None => self.computed = true,
                }
                Ok(Expr::Tuple(es))
            }
            Ex::Var(_) => {
                // a register may hold a value no location holds (an identifier a put
                // returned, a ring's `true`, a computed value): the fixpoint finds it
                self.computed = true;
                lw.expr(a, self)
            }
            e => {
                self.computed = true;
                lw.expr(e, self)
            }
        }
    }

    /// A node computed by `e` (an integer or a node): `[⊥, 1, 2, …][e]`, since the
    /// engine wants nodes, and integers and nodes are different values.
    fn to_node(&self, e: Expr) -> Expr {
        let max = self.world.nodes.iter().copied().max().unwrap_or(0);
        if max > 4096 {
            return e;
        }
        let table =
            (0..=max).map(|k| if self.world.nodes.contains(&k) { Value::Node(k) } else { Value::Bot }).collect();
        Expr::Op(Op::Index, vec![Expr::Val(Value::Tuple(table)), e])
    }

    fn kind_of(&self, n: &str) -> Option<Kind> {
        self.names.kinds.get(n).copied()
    }

    fn location(&self, n: &Name, what: &str) -> L<Expr> {
        match self.lids.get(&n.text) {
            Some(&l) => Ok(Expr::Val(Value::Loc(l))),
            None => match self.kind_of(&n.text) {
                Some(k) => lerr(n.pos, format!("expected {what}, but `{}` is {}", n.text, k.article())),
                None => unknown(
                    n,
                    format!("undeclared location `{}` (declare it with `loc {} @ N`)", n.text, n.text),
                    self.lids.keys().map(String::as_str),
                ),
            },
        }
    }

    fn arg(&mut self, lw: &mut Lowerer, a: &Ex, p: Param) -> L<Expr> {
        let what = match p {
            Param::Loc => "a location",
            Param::Src => "a local location or an integer",
            Param::Val => "a value or a register",
            Param::Wid => "a work identifier",
            Param::Node => "a node",
            Param::Nodes => "a set of nodes `{1, 2}`",
            Param::Obj => "a barrier or ring",
        };
        let fresh = matches!(a, Ex::Var(n) if n.text == "_");
        match (p, a) {
            (Param::Wid, Ex::Var(n)) if fresh => {
                let _ = n;
                let id = self.world.wids.len() as u32;
                // fresh names cannot collide with user names (they start with `_` and a digit)
                let name = format!("_{id}");
                self.world.wids.push(name.clone());
                self.wids.insert(name, id);
                Ok(Expr::Val(Value::Wid(id)))
            }
            (_, _) if fresh => lerr(a.pos(), format!("expected {what}")),
            (Param::Loc | Param::Src, Ex::Var(n)) => self.location(n, what),
            (Param::Src, a) if int_literal(a).is_some() => {
                let v = int_literal(a).expect("checked");
                let node = self.world.threads[self.tid].node;
                let l = self.world.locs.len();
                self.world.locs.push(LocInfo {
                    name: format!("{v}"),
                    home: Some(node),
                    init: Value::Int(v),
                    size: None,
                    implicit: true,
                });
                self.literals.insert(Value::Int(v));
                Ok(Expr::Val(Value::Loc(l)))
            }
            (Param::Val, a) => self.value(lw, a),
            (Param::Wid, Ex::Var(n)) => {
                self.names.claim(n, Kind::Wid)?;
                let next = self.wids.len() as u32;
                let id = *self.wids.entry(n.text.clone()).or_insert(next);
                if id == next {
                    self.world.wids.push(n.text.clone());
                }
                Ok(Expr::Val(Value::Wid(id)))
            }
            (Param::Node, a) if int_literal(a).is_some() => {
                let v = int_literal(a).expect("checked");
                if v < 1 || v > u32::MAX as i64 || !self.world.nodes.contains(&(v as u32)) {
                    return lerr(
                        a.start(),
                        format!("node {v} is not a node of this test (nodes: {:?})", self.world.nodes),
                    );
                }
                Ok(Expr::Val(Value::Node(v as u32)))
            }
            (Param::Node, a) => {
                let e = lw.expr(a, self)?;
                Ok(self.to_node(e))
            }
            (Param::Nodes, Ex::Set(items, pos))
                if items.iter().all(|i| int_literal(i).is_some() || self.names_no_value(lw, i)) =>
            {
                let mut v = Vec::new();
                for i in items {
                    match int_literal(i) {
                        Some(n) if (1..=u32::MAX as i64).contains(&n) => v.push(n as u32),
                        Some(n) => {
                            return lerr(i.start(), format!("expected a node (a positive integer), found `{n}`"))
                        }
                        None => {
                            let shown = match i {
                                Ex::Var(n) => format!("`{}`", n.text),
                                _ => "an expression".into(),
                            };
                            return lerr(i.start(), format!("expected a node (a positive integer), found {shown}"));
                        }
                    }
                }
                v.sort();
                v.dedup();
                if let Some(bad) = v.iter().find(|n| !self.world.nodes.contains(n)) {
                    return lerr(
                        *pos,
                        format!("node {bad} is not a node of this test (nodes: {:?})", self.world.nodes),
                    );
                }
                Ok(Expr::Val(Value::Nodes(v)))
            }
            (Param::Nodes, a) => {
                let set = lw.expr(a, self)?;
                let var = lw.hidden_reg();
                Ok(Expr::Comp { body: Box::new(self.to_node(Expr::Reg(var))), var, set: Box::new(set) })
            }
            (Param::Obj, Ex::Var(n)) => match self.objs.get(&n.text) {
                Some(&o) => Ok(Expr::Val(Value::Obj(o as u32))),
                None => {
                    unknown(n, format!("undeclared barrier or ring `{}`", n.text), self.objs.keys().map(String::as_str))
                }
            },
            (_, a) => lerr(a.start(), format!("expected {what}")),
        }
    }

    /// Whether `e` is a name that denotes no value here (no loop variable, no
    /// register bound before): in a node set `{…}` it is reported as the base
    /// format does.
    fn names_no_value(&self, lw: &Lowerer, e: &Ex) -> bool {
        match e {
            Ex::Var(n) => {
                !lw.is_local(&n.text)
                    && !self.regs.get(&n.text).is_some_and(|&r| lw.is_defined(r))
                    && !matches!(n.text.as_str(), "node" | "nodes")
            }
            _ => false,
        }
    }

    fn method(&self, c: &CallEx) -> L<(usize, usize)> {
        resolve(self.libs, self.lib_names, c.lib.as_ref(), &c.method)
    }
}

impl Host for ThreadHost<'_> {
    fn name(&mut self, lw: &mut Lowerer, n: &Name) -> L<Expr> {
        if let Some(&r) = self.regs.get(&n.text) {
            if lw.is_defined(r) {
                lw.note_read(r);
                return Ok(Expr::Reg(r));
            }
        }
        match self.kind_of(&n.text) {
            None if n.text == "node" => Ok(Expr::Val(Value::Node(self.world.threads[self.tid].node))),
            None if n.text == "nodes" => Ok(Expr::Val(Value::Nodes(self.world.nodes.clone()))),
            Some(Kind::Reg) if self.regs.contains_key(&n.text) => {
                lerr(n.pos, format!("register `{}` is not bound earlier in this thread", n.text))
            }
            Some(Kind::Reg) | None => {
                // no register of this thread: a close name (a register, a loop
                // variable, a location in a value position) may be meant
                let vars = lw.visible();
                let known = self
                    .regs
                    .keys()
                    .map(String::as_str)
                    .chain(vars.iter().map(String::as_str))
                    .chain(self.lids.keys().map(String::as_str));
                unknown(n, format!("register `{}` is not bound earlier in this thread", n.text), known)
            }
            Some(k) => lerr(n.pos, format!("expected a value or a register, but `{}` is {}", n.text, k.article())),
        }
    }

    fn function(&mut self, n: &Name, _args: Vec<Expr>) -> L<Expr> {
        unknown(
            n,
            format!("unknown function `{}` (functions: min, max, len, hash, range)", n.text),
            crate::lang::grammar::OPERATOR_FUNCTIONS,
        )
    }

    fn call(&mut self, lw: &mut Lowerer, c: &CallEx) -> L<Prog> {
        let (li, mi) = self.method(c)?;
        let sig = &self.libs[li].methods()[mi];
        if c.args.len() != sig.params.len() {
            return lerr(
                c.method.pos,
                format!(
                    "`{}` takes {} argument{}, found {}",
                    sig.name,
                    sig.params.len(),
                    if sig.params.len() == 1 { "" } else { "s" },
                    c.args.len()
                ),
            );
        }
        lw.mark_call(self.libs[li].read_only(mi));
        let mut args = Vec::with_capacity(c.args.len());
        let mut static_args = Vec::with_capacity(c.args.len());
        for (a, p) in c.args.iter().zip(&sig.params) {
            let e = self.arg(lw, a, *p)?;
            static_args.push(match &e {
                Expr::Val(v) => v.clone(),
                _ => Value::Unit,
            });
            args.push(e);
        }
        self.libs[li].check_call(self.world, self.tid, mi, &static_args).map_err(|m| {
            LErr::new(c.method.pos, format!("`{}`: {m}", sig.name)).with_span(c.method.text.chars().count())
        })?;
        Ok(Prog::Call { lib: li, method: mi, args })
    }

    fn bind(&mut self, _lw: &mut Lowerer, name: &Name, rhs: &Rhs) -> L<RegId> {
        match rhs {
            Rhs::Call(c) => {
                let (li, mi) = self.method(c)?;
                let sig = &self.libs[li].methods()[mi];
                if !sig.returns {
                    return lerr(name.pos, format!("`{}` returns no value; drop `{} =`", sig.name, name.text));
                }
            }
            _ => self.computed = true,
        }
        self.names.claim(name, Kind::Reg)?;
        Ok(self.regs[&name.text])
    }

    fn local(&mut self, n: &Name) -> L<()> {
        if self.regs.contains_key(&n.text) {
            return lerr(
                n.pos,
                format!("`{}` is a register of this thread; a loop variable needs another name", n.text),
            );
        }
        self.names.claim(n, Kind::Reg)
    }
}
