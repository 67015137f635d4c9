//! Methods: parameters, return kinds, the stamping function, accesses, tags and
//! computed values.

use mowgli_diag::{Diagnostic, Pos};

use super::{Scope, P, R};
use crate::lex::T;
use crate::*;

/// How deeply `for` may nest in a stamp list (a `for` inside a `for`): a call
/// has as many stamps as the product of the nested sets of nodes.
const MAX_STAMP_FOR: usize = 2;

impl P<'_> {
    // ---------- methods ----------

    pub(super) fn method(&mut self) -> R<()> {
        let (name, npos) = self.ident("a method name")?;
        if self.spec.method(&name).is_some() {
            return self.err(npos, name.len(), format!("method `{name}` declared twice"));
        }
        self.want_p("(")?;
        let mut params: Vec<(String, Kind)> = Vec::new();
        if !self.is_p(")") {
            loop {
                let (pn, ppos) = self.ident("a parameter name")?;
                if params.iter().any(|(q, _)| *q == pn) || pn == "ret" {
                    return self.err(ppos, pn.len(), format!("parameter `{pn}` given twice (or named `ret`)"));
                }
                self.want_p(":")?;
                let k = self.kind(&params)?;
                params.push((pn, k));
                if !self.eat_p(",") {
                    break;
                }
            }
        }
        self.want_p(")")?;
        let mut ret = Vec::new();
        if self.eat_p("->") {
            loop {
                ret.push(self.ret_kind(&params)?);
                if !self.eat_p("|") {
                    break;
                }
            }
        }
        let readonly = self.eat_kw("readonly");
        let readonly_if = match readonly && self.is_kw("if") {
            true => {
                let at = (self.tok().pos, self.tok().len);
                self.bump();
                Some((self.cond(&Scope { params: &params, var: None })?, at))
            }
            false => None,
        };
        let completes = match self.eat_kw("completes") {
            true => Some(self.param(&params, "a `wid` parameter", |k| *k == Kind::Wid)?),
            false => None,
        };
        self.want_p("{")?;
        let mut stamps = None;
        let mut accesses = Vec::new();
        let mut tags = Vec::new();
        while !self.eat_p("}") {
            if self.is_kw("stamps") {
                let pos = self.tok().pos;
                self.bump();
                if stamps.is_some() {
                    return self.err(pos, 6, "`stamps` given twice for this method");
                }
                let sc = Scope { params: &params, var: None };
                stamps = Some(self.sitems(&sc)?);
            } else if let T::Ident(_) = &self.tok().t {
                let (apos, alen) = (self.tok().pos, self.tok().len);
                match self.access(&params)? {
                    // a subevent reads a cell once and writes it once (a repeated
                    // access is one more memory action per repetition)
                    Ok(a)
                        if accesses.iter().any(|b: &Access| {
                            (b.stamp, b.occ, b.write, b.loc, &b.node) == (a.stamp, a.occ, a.write, a.loc, &a.node)
                        }) =>
                    {
                        let what = if a.write { "writes" } else { "reads" };
                        let msg = format!("this subevent already {what} this location in method `{name}`");
                        return self.err(apos, alen, msg);
                    }
                    Ok(a) if matches!(a.val, AccVal::Rmw(_)) && !accesses.iter().any(|b| !b.write) => {
                        let msg = "a `cas`/`add` write computes from the call's read: declare the read first";
                        return self.err(apos, alen, msg);
                    }
                    Ok(a) => accesses.push(a),
                    Err(t) => tags.push(t),
                }
            } else {
                return self.expected("`stamps`, an access (`aCR reads x = ret`) or `}`");
            }
        }
        let Some(stamps) = stamps else {
            return self.err(npos, name.len(), format!("method `{name}` has no `stamps` line"));
        };
        if let Some((c, (pos, len))) = &readonly_if {
            let under = stamps_under(&stamps, c);
            if let Some(a) = accesses.iter().find(|a| a.write && under.contains(&a.stamp)) {
                let st = self.spec.stamps.get(a.stamp).map(|d| d.name.as_str()).unwrap_or("?");
                let msg = format!(
                    "`readonly if` claims that such a call only reads, but its stamp `{st}` writes under that condition"
                );
                return self.err(*pos, *len, msg);
            }
        }
        let (readonly, readonly_if) = match readonly_if {
            Some((c, _)) => (false, Some(c)),
            None => (readonly, None),
        };
        self.spec.methods.push(Method { name, params, ret, readonly, readonly_if, completes, stamps, accesses, tags });
        Ok(())
    }

    fn param(&mut self, params: &[(String, Kind)], what: &str, ok: impl Fn(&Kind) -> bool) -> R<usize> {
        let (n, pos) = self.ident(what)?;
        match params.iter().position(|(q, _)| *q == n) {
            Some(i) if ok(&params[i].1) => Ok(i),
            Some(_) => self.err(pos, n.len(), format!("`{n}` is not {what}")),
            None => Err(self.fix(Diagnostic::unknown(
                pos,
                &n,
                format!("unknown parameter `{n}`: expected {what}"),
                params.iter().map(|(q, _)| q.as_str()),
            ))),
        }
    }

    fn kind(&mut self, params: &[(String, Kind)]) -> R<Kind> {
        let local = self.eat_kw("local");
        let is_loc = |k: &Kind| matches!(k, Kind::Loc { .. } | Kind::Src { .. });
        if self.eat_kw("loc") {
            let sized_like = if self.eat_kw("sized") {
                self.want_kw("like")?;
                Some(self.param(params, "a location parameter", is_loc)?)
            } else {
                None
            };
            return Ok(Kind::Loc { local, sized_like });
        }
        if self.eat_kw("src") {
            return Ok(Kind::Src { local });
        }
        if local {
            return self.expected("`loc` or `src` after `local`");
        }
        let (k, pos) = self.ident("a parameter kind")?;
        Ok(match k.as_str() {
            "val" => Kind::Val,
            "tuple" => {
                self.want_p("(")?;
                let i = self.param(params, "a location parameter", is_loc)?;
                self.want_p(")")?;
                Kind::Tuple(i)
            }
            "wid" => Kind::Wid,
            "node" => Kind::Node,
            "nodes" => Kind::Nodes,
            "barrier" => Kind::Barrier,
            "ring" => Kind::Ring,
            _ => {
                let kinds = ["loc", "local", "src", "val", "tuple", "wid", "node", "nodes", "barrier", "ring"];
                let mut d =
                    Diagnostic::unknown(pos, &k, format!("unknown parameter kind `{k}`"), kinds.iter().copied());
                d.expected = kinds.iter().map(|k| format!("`{k}`")).collect();
                return Err(self.fix(d));
            }
        })
    }

    fn ret_kind(&mut self, params: &[(String, Kind)]) -> R<RetKind> {
        let (k, pos) = self.ident("a return kind")?;
        let is_loc = |k: &Kind| matches!(k, Kind::Loc { .. } | Kind::Src { .. });
        Ok(match k.as_str() {
            "value" | "tuple" => {
                self.want_p("(")?;
                let i = self.param(params, "a location parameter", is_loc)?;
                self.want_p(")")?;
                if k == "value" {
                    RetKind::ValueOf(i)
                } else {
                    RetKind::TupleOf(i)
                }
            }
            "bool" => RetKind::Bool,
            "message" => RetKind::Message,
            "bot" => RetKind::Bot,
            "top" => RetKind::Top,
            "sum" => {
                self.want_p("(")?;
                let i = self.param(params, "a location parameter", is_loc)?;
                self.want_p(")")?;
                RetKind::Sums(i)
            }
            _ => {
                let kinds = ["value", "tuple", "bool", "message", "bot", "sum", "top"];
                return Err(self.fix(Diagnostic::unknown(
                    pos,
                    &k,
                    format!("unknown return kind `{k}`"),
                    kinds.iter().copied(),
                )));
            }
        })
    }

    /// A stamp name, as a single stamp or family member; returns (kind, bound variable).
    pub(super) fn stamp_name(&self, s: &str, pos: Pos) -> R<(usize, Option<String>)> {
        if let Some(k) = self.spec.stamps.iter().position(|d| d.name == s) {
            return Ok((k, None));
        }
        if let Some((base, var)) = s.rsplit_once('_') {
            if let Some(k) = self.spec.stamps.iter().position(|d| d.name == base && d.family) {
                return Ok((k, Some(var.to_string())));
            }
        }
        Err(self.fix(Diagnostic::unknown(
            pos,
            s,
            format!("unknown stamp `{s}` (declare it with `stamps`)"),
            self.spec.stamps.iter().map(|d| d.name.as_str()),
        )))
    }

    fn sitems(&mut self, sc: &Scope) -> R<Vec<StampItem>> {
        let mut out = vec![self.sitem(sc)?];
        while self.eat_p(",") {
            out.push(self.sitem(sc)?);
        }
        Ok(out)
    }

    fn sitem(&mut self, sc: &Scope) -> R<StampItem> {
        let pos = self.tok().pos;
        self.enter(pos)?;
        let r = self.sitem_in(sc);
        self.leave();
        r
    }

    fn sitem_in(&mut self, sc: &Scope) -> R<StampItem> {
        if self.is_kw("for") && self.for_depth >= MAX_STAMP_FOR {
            // a call has as many stamps as the product of the nested sets of nodes
            let pos = self.tok().pos;
            return self.err(pos, 3, format!("at most {MAX_STAMP_FOR} nested `for` in a stamp list"));
        }
        if self.eat_kw("for") {
            let (v, _) = self.ident("a node variable")?;
            self.want_kw("in")?;
            let set = self.node_set(sc)?;
            self.want_p("{")?;
            let inner = Scope { params: sc.params, var: Some(v) };
            self.for_depth += 1;
            let body = self.sitems(&inner);
            self.for_depth -= 1;
            let body = body?;
            self.want_p("}")?;
            return Ok(StampItem::For { set, body });
        }
        if self.eat_kw("if") {
            let cond = self.cond(sc)?;
            self.want_kw("then")?;
            self.want_p("{")?;
            let then = self.sitems(sc)?;
            self.want_p("}")?;
            self.want_kw("else")?;
            self.want_p("{")?;
            let els = self.sitems(sc)?;
            self.want_p("}")?;
            return Ok(StampItem::If { cond, then, els });
        }
        let (s, pos) = self.ident("a stamp, `for` or `if`")?;
        let (kind, var) = self.stamp_name(&s, pos)?;
        let family = self.spec.stamps[kind].family;
        let node = if let Some(v) = var {
            if sc.var.as_deref() != Some(v.as_str()) {
                return self.err(pos, s.len(), format!("`{v}` is not the variable of an enclosing `for`"));
            }
            Some(NodeExpr::Var)
        } else if self.eat_p("[") {
            let n = self.node_expr(sc)?;
            self.want_p("]")?;
            Some(n)
        } else {
            None
        };
        if family != node.is_some() {
            let msg = if family {
                format!("`{s}` is a family: give its node (`{s}_n` inside `for n in …`, or `{s}[node(x)]`)")
            } else {
                format!("`{s}` is a single stamp, it takes no node")
            };
            return self.err(pos, s.len(), msg);
        }
        Ok(StampItem::Stamp { kind, node })
    }

    fn node_expr(&mut self, sc: &Scope) -> R<NodeExpr> {
        let (n, pos) = self.ident("a node (`here`, `node(x)`, a node parameter or variable)")?;
        if n == "here" {
            return Ok(NodeExpr::Here);
        }
        if n == "node" && self.eat_p("(") {
            let i =
                self.param(sc.params, "a location parameter", |k| matches!(k, Kind::Loc { .. } | Kind::Src { .. }))?;
            self.want_p(")")?;
            return Ok(NodeExpr::NodeOf(i));
        }
        if sc.var.as_deref() == Some(n.as_str()) {
            return Ok(NodeExpr::Var);
        }
        match sc.params.iter().position(|(q, _)| *q == n) {
            Some(i) if sc.params[i].1 == Kind::Node => Ok(NodeExpr::Param(i)),
            _ => {
                let mut known: Vec<&str> = vec!["here", "node"];
                known.extend(sc.var.as_deref());
                known.extend(sc.params.iter().filter(|(_, k)| *k == Kind::Node).map(|(q, _)| q.as_str()));
                Err(self.fix(Diagnostic::unknown(pos, &n, format!("`{n}` is not a node"), known)))
            }
        }
    }

    fn node_set(&mut self, sc: &Scope) -> R<NodeSet> {
        let (n, pos) = self.ident("a set of nodes (`nodes`, `nodes(z)`, a `nodes` parameter)")?;
        let mut set = if n == "nodes" {
            if self.eat_p("(") {
                let i =
                    self.param(sc.params, "a barrier or ring parameter", |k| matches!(k, Kind::Barrier | Kind::Ring))?;
                self.want_p(")")?;
                NodeSet::Of(i)
            } else {
                NodeSet::All
            }
        } else {
            match sc.params.iter().position(|(q, _)| *q == n) {
                Some(i) if sc.params[i].1 == Kind::Nodes => NodeSet::Param(i),
                _ => {
                    let mut known = vec!["nodes"];
                    known.extend(sc.params.iter().filter(|(_, k)| *k == Kind::Nodes).map(|(q, _)| q.as_str()));
                    return Err(self.fix(Diagnostic::unknown(pos, &n, format!("`{n}` is not a set of nodes"), known)));
                }
            }
        };
        let mut depth = 0;
        while self.is_p("\\") {
            let at = self.tok().pos;
            self.bump();
            depth += 1;
            self.check_depth(depth, at)?;
            let n = self.node_expr(sc)?;
            set = NodeSet::Minus(Box::new(set), n);
        }
        Ok(set)
    }

    fn cond(&mut self, sc: &Scope) -> R<Cond> {
        self.want_kw("ret")?;
        let eq = if self.eat_p("==") {
            true
        } else if self.eat_p("!=") {
            false
        } else {
            return self.expected("`==` or `!=`");
        };
        let t = self.tok().clone();
        let val = match &t.t {
            T::Int(i) => ValRef::Int(*i),
            T::Ident(s) if s == "bot" => ValRef::Bot,
            T::Ident(s) if s == "true" => ValRef::Bool(true),
            T::Ident(s) if s == "false" => ValRef::Bool(false),
            T::Ident(s) => match sc.params.iter().position(|(q, _)| q == s) {
                Some(i) => ValRef::Param(i),
                None => {
                    let mut known = vec!["bot", "true", "false"];
                    known.extend(sc.params.iter().map(|(q, _)| q.as_str()));
                    return Err(self.fix(Diagnostic::unknown(t.pos, s, format!("unknown value `{s}`"), known)));
                }
            },
            _ => return self.expected("a value (`bot`, `true`, `false`, an integer or a parameter)"),
        };
        self.bump();
        Ok(Cond { eq, val })
    }

    /// `aX[.k]`, a subevent reference in a method body: (reference, bound variable).
    fn sub_ref(&mut self, family_var: bool) -> R<(SubRef, Option<String>, Pos, usize)> {
        let (s, pos) = self.ident("a stamp")?;
        let (stamp, var) = self.stamp_name(&s, pos)?;
        let family = self.spec.stamps[stamp].family;
        if family_var && family && var.is_none() {
            return self.err(pos, s.len(), format!("`{s}` is a family: write `{s}_n`"));
        }
        let occ = if self.eat_p(".") {
            let t = self.tok().clone();
            match t.t {
                T::Int(k) if k >= 1 => {
                    self.bump();
                    Some(k as usize)
                }
                _ => return self.expected("the number of the subevent (`aNLR.2`: the second aNLR of the call)"),
            }
        } else {
            None
        };
        Ok((SubRef { stamp, occ }, var, pos, s.len()))
    }

    /// An access (`aX reads …`, `aX writes …`) or a tag (`aX in TAG`).
    fn access(&mut self, params: &[(String, Kind)]) -> R<Result<Access, (SubRef, usize)>> {
        let (sr, var, pos, slen) = self.sub_ref(false)?;
        if self.eat_kw("in") {
            let (tn, tpos) = self.ident("a tag (declared with `tags`)")?;
            let Some(t) = self.spec.tags.iter().position(|x| *x == tn) else {
                return Err(self.fix(Diagnostic::unknown(
                    tpos,
                    &tn,
                    format!("unknown tag `{tn}` (declare it with `tags`)"),
                    self.spec.tags.iter().map(String::as_str),
                )));
            };
            return Ok(Err((sr, t)));
        }
        let SubRef { stamp, occ } = sr;
        if self.spec.stamps[stamp].family && var.is_none() {
            let s = self.spec.stamps[stamp].name.clone();
            return self.err(pos, slen, format!("`{s}` is a family: write `{s}_n`"));
        }
        let s = self.spec.stamps[stamp].name.clone();
        let write = if self.eat_kw("writes") {
            true
        } else if self.eat_kw("reads") {
            false
        } else {
            return self.expected("`reads` or `writes`");
        };
        let Some(mem) = self.spec.memory else {
            return self.err(pos, s.len(), "an access needs a `memory` declaration before the method");
        };
        let loc = self.param(params, "a location parameter", |k| matches!(k, Kind::Loc { .. } | Kind::Src { .. }))?;
        let sc = Scope { params, var };
        let node = if self.eat_p("@") {
            if mem.kind == MemoryKind::Located {
                let t = self.toks[self.i - 1].clone();
                return self.err(t.pos, 1, "located memory has one cell per location: no `@node`");
            }
            Some(self.node_expr(&sc)?)
        } else {
            if mem.kind == MemoryKind::Replicated {
                return self.expected("`@` and a node (replicated memory has one cell per node: `x@here`)");
            }
            None
        };
        let val = if self.eat_p("=") {
            if let T::Int(i) = self.tok().t {
                self.bump();
                if !(write && self.is_p("+")) {
                    return Ok(Ok(Access { stamp, occ, write, loc, node, val: AccVal::Int(i) }));
                }
                self.i -= 1;
            }
            if write && mem.undefined && (self.is_kw("val") || self.is_kw("if") || matches!(self.tok().t, T::Int(_))) {
                let v = self.val_expr(params)?;
                return Ok(Ok(Access { stamp, occ, write, loc, node, val: AccVal::Expr(v) }));
            }
            let call = matches!(self.toks.get(self.i + 1).map(|t| &t.t), Some(T::P("(")));
            if write && call && (self.is_kw("cas") || self.is_kw("add")) {
                return self.rmw_access(params, mem.undefined, (stamp, occ, loc, node));
            }
            let (v, vpos) = self.ident("`ret`, `copy`, `cas(e, v)`, `add(k)`, an integer or a parameter")?;
            match v.as_str() {
                "ret" if !write => AccVal::Ret,
                "copy" if write => AccVal::Copy,
                _ if write => match params.iter().position(|(q, _)| *q == v) {
                    Some(i) => AccVal::Param(i),
                    None => {
                        let mut known = vec!["copy"];
                        known.extend(params.iter().map(|(q, _)| q.as_str()));
                        return Err(self.fix(Diagnostic::unknown(vpos, &v, format!("unknown value `{v}`"), known)));
                    }
                },
                _ => {
                    return self.err(
                        vpos,
                        v.len(),
                        "a read's value is `ret` (what the call returns), an integer or nothing",
                    )
                }
            }
        } else if write {
            return self.expected("`=` and the value written (`copy` or a parameter)");
        } else {
            AccVal::Free
        };
        let _ = &s;
        Ok(Ok(Access { stamp, occ, write, loc, node, val }))
    }

    /// `cas(e, v)` or `add(k)` after `writes x =`: a read-modify-write's write
    /// (parameters named; memory without `undefined`).
    fn rmw_access(
        &mut self,
        params: &[(String, Kind)],
        undefined: bool,
        (stamp, occ, loc, node): (usize, Option<usize>, usize, Option<NodeExpr>),
    ) -> R<Result<Access, (SubRef, usize)>> {
        let (op, pos) = self.ident("`cas` or `add`")?;
        if undefined {
            return self.err(
                pos,
                op.len(),
                "`cas`/`add` writes need memory without `undefined` (the write may not happen)",
            );
        }
        if !self.eat_p("(") {
            return self.expected("`(`");
        }
        let mut names = Vec::new();
        loop {
            let p = self.param(params, "a value parameter", |k| matches!(k, Kind::Val))?;
            names.push(p);
            if !self.eat_p(",") {
                break;
            }
        }
        if !self.eat_p(")") {
            return self.expected("`,` or `)`");
        }
        let val = match (op.as_str(), names.as_slice()) {
            ("cas", [e, v]) => RmwVal::Cas { expected: *e, new: *v },
            ("add", [k]) => RmwVal::Add(*k),
            ("cas", _) => return self.err(pos, op.len(), "`cas` takes two parameters: `cas(expected, new)`"),
            _ => return self.err(pos, op.len(), "`add` takes one parameter: `add(k)`"),
        };
        Ok(Ok(Access { stamp, occ, write: true, loc, node, val: AccVal::Rmw(val) }))
    }

    /// A computed value: `val(aX.k)`, a parameter, an integer, `a + b`,
    /// `if a == b then c else d`, `if S then c else d` (S a `splits` set).
    fn val_expr(&mut self, params: &[(String, Kind)]) -> R<ValExpr> {
        let mut e = self.val_atom(params)?;
        let mut depth = e.depth();
        while self.is_p("+") {
            let at = self.tok().pos;
            self.bump();
            let r = self.val_atom(params)?;
            depth = depth.max(r.depth()) + 1;
            self.check_depth(depth, at)?;
            e = ValExpr::Add(Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn val_atom(&mut self, params: &[(String, Kind)]) -> R<ValExpr> {
        let pos = self.tok().pos;
        self.enter(pos)?;
        let r = self.val_atom_in(params);
        self.leave();
        r
    }

    fn val_atom_in(&mut self, params: &[(String, Kind)]) -> R<ValExpr> {
        let t = self.tok().clone();
        match &t.t {
            T::Int(i) => {
                self.bump();
                Ok(ValExpr::Int(*i))
            }
            T::P("(") => {
                self.bump();
                let e = self.val_expr(params)?;
                self.want_p(")")?;
                Ok(e)
            }
            T::Ident(k) if k == "val" => {
                self.bump();
                self.want_p("(")?;
                let (sr, _, _, _) = self.sub_ref(false)?;
                self.want_p(")")?;
                Ok(ValExpr::Read(sr))
            }
            T::Ident(k) if k == "if" => {
                self.bump();
                // `if S then t else e`: S a set of a `splits` witness declared earlier
                if let T::Ident(name) = &self.tok().t {
                    let split = self.spec.witnesses.iter().enumerate().find_map(|(i, w)| match &w.kind {
                        WitnessKind::Splits { names, .. } => names.iter().position(|n| n == name).map(|k| (i, k == 0)),
                        _ => None,
                    });
                    if let Some((i, first)) = split {
                        if params.iter().all(|(q, _)| q != name) {
                            self.bump();
                            self.want_kw("then")?;
                            let c = self.val_expr(params)?;
                            self.want_kw("else")?;
                            let d = self.val_expr(params)?;
                            return Ok(ValExpr::IfIn(i, first, Box::new(c), Box::new(d)));
                        }
                    }
                }
                let a = self.val_expr(params)?;
                self.want_p("==")?;
                let b = self.val_expr(params)?;
                self.want_kw("then")?;
                let c = self.val_expr(params)?;
                self.want_kw("else")?;
                let d = self.val_expr(params)?;
                Ok(ValExpr::IfEq(Box::new(a), Box::new(b), Box::new(c), Box::new(d)))
            }
            T::Ident(k) => match params.iter().position(|(q, _)| q == k) {
                Some(i) => {
                    self.bump();
                    Ok(ValExpr::Param(i))
                }
                None => {
                    let mut known = vec!["val", "if"];
                    known.extend(params.iter().map(|(q, _)| q.as_str()));
                    Err(self.fix(Diagnostic::unknown(t.pos, k, format!("unknown value `{k}`"), known)))
                }
            },
            _ => self.expected("a value (`val(aX)`, `if`, an integer or a parameter)"),
        }
    }
}

/// The stamps the stamping may give a call whose returned value meets `c`: an
/// `if` on the same comparison takes its branch, any other both.
fn stamps_under(items: &[StampItem], c: &Cond) -> Vec<usize> {
    let mut out = Vec::new();
    for it in items {
        match it {
            StampItem::Stamp { kind, .. } => out.push(*kind),
            StampItem::For { body, .. } => out.extend(stamps_under(body, c)),
            StampItem::If { cond, then, els } if cond.val == c.val => {
                out.extend(stamps_under(if cond.eq == c.eq { then } else { els }, c))
            }
            StampItem::If { then, els, .. } => {
                out.extend(stamps_under(then, c));
                out.extend(stamps_under(els, c));
            }
        }
    }
    out
}
