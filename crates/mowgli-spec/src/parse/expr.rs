//! Expressions: typed sets and relations (precedence, tightest first: postfix
//! `^-1 + *`, `;`, `&`, `\`, `|`), names resolved as they are read.

use mowgli_diag::{Diagnostic, Pos};

use super::{BASES, FUNCS, P, R};
use crate::lex::T;
use crate::*;

impl P<'_> {
    pub(super) fn rel_expr(&mut self, what: &str) -> R<Expr> {
        let pos = self.tok().pos;
        let (e, ty) = self.expr()?;
        if ty != Ty::Rel {
            return self.err(pos, 1, format!("expected {what}, this is a set (write `[S]` for its identity)"));
        }
        Ok(e)
    }

    pub(super) fn expr(&mut self) -> R<(Expr, Ty)> {
        self.binary(0)
    }

    /// Levels: 0 `|`, 1 `\`, 2 `&`, 3 `;`.
    fn binary(&mut self, level: usize) -> R<(Expr, Ty)> {
        if level == 4 {
            return self.postfix();
        }
        let op = ["|", "\\", "&", ";"][level];
        let pos = self.tok().pos;
        let (mut e, ty) = self.binary(level + 1)?;
        let mut depth = e.depth();
        while self.is_p(op) {
            let opos = self.tok().pos;
            self.bump();
            let (r, rty) = self.binary(level + 1)?;
            // each operator of a chain is a level of the tree it builds
            depth = depth.max(r.depth()) + 1;
            self.check_depth(depth, opos)?;
            if level == 3 && (ty != Ty::Rel || rty != Ty::Rel) {
                return self.err(
                    if ty != Ty::Rel { pos } else { opos },
                    1,
                    "`;` composes relations, not sets (write `[S]`)",
                );
            }
            if rty != ty {
                return self.err(opos, 1, format!("`{op}` between a {} and a {}", name(ty), name(rty)));
            }
            let (a, b) = (Box::new(e), Box::new(r));
            e = match level {
                0 => Expr::Union(a, b),
                1 => Expr::Diff(a, b),
                2 => Expr::Inter(a, b),
                _ => Expr::Seq(a, b),
            };
        }
        Ok((e, ty))
    }

    fn postfix(&mut self) -> R<(Expr, Ty)> {
        let pos = self.tok().pos;
        let (mut e, ty) = self.atom()?;
        let mut depth = e.depth();
        loop {
            let op = if self.is_p("+") {
                "+"
            } else if self.is_p("*") {
                "*"
            } else if self.is_p("^-1") {
                "^-1"
            } else {
                break;
            };
            if ty != Ty::Rel {
                return self.err(pos, 1, format!("`{op}` applies to relations, this is a set"));
            }
            depth += 1;
            self.check_depth(depth, self.tok().pos)?;
            self.bump();
            e = match op {
                "+" => Expr::Plus(Box::new(e)),
                "*" => Expr::Star(Box::new(e)),
                _ => Expr::Inv(Box::new(e)),
            };
        }
        Ok((e, ty))
    }

    fn arg_ref(&mut self) -> R<ArgRef> {
        let (m, pos) = self.ident("`Method.parameter`")?;
        let Some(method) = self.spec.method(&m) else {
            return Err(self.fix(Diagnostic::unknown(
                pos,
                &m,
                format!("unknown method `{m}`"),
                self.spec.methods.iter().map(|m| m.name.as_str()),
            )));
        };
        self.want_p(".")?;
        let (p, ppos) = self.ident("a parameter or `ret`")?;
        if p == "ret" {
            return Ok(ArgRef { method, param: None });
        }
        match self.spec.methods[method].params.iter().position(|(q, _)| *q == p) {
            Some(i) => Ok(ArgRef { method, param: Some(i) }),
            None => {
                let mut known = vec!["ret"];
                known.extend(self.spec.methods[method].params.iter().map(|(q, _)| q.as_str()));
                Err(self.fix(Diagnostic::unknown(ppos, &p, format!("method `{m}` has no parameter `{p}`"), known)))
            }
        }
    }

    fn atom(&mut self) -> R<(Expr, Ty)> {
        let pos = self.tok().pos;
        self.enter(pos)?;
        let r = self.atom_in();
        self.leave();
        r
    }

    fn atom_in(&mut self) -> R<(Expr, Ty)> {
        let t = self.tok().clone();
        match &t.t {
            T::P("(") => {
                self.bump();
                let r = self.expr()?;
                self.want_p(")")?;
                Ok(r)
            }
            T::P("[") => {
                self.bump();
                let pos = self.tok().pos;
                let (e, ty) = self.expr()?;
                if ty != Ty::Set {
                    return self.err(pos, 1, "`[…]` takes a set of subevents, this is a relation");
                }
                self.want_p("]")?;
                Ok((Expr::Ident(Box::new(e)), Ty::Rel))
            }
            T::Int(0) => {
                self.bump();
                Ok((Expr::Empty(Ty::Rel), Ty::Rel))
            }
            T::Ident(s) => {
                let s = s.clone();
                self.bump();
                if FUNCS.contains(&s.as_str()) && self.is_p("(") {
                    self.bump();
                    let r = match s.as_str() {
                        "same" => {
                            let a = self.arg_ref()?;
                            self.want_p(",")?;
                            let b = self.arg_ref()?;
                            (Expr::Same(a, b), Ty::Rel)
                        }
                        "same_round" => (Expr::SameRound(self.arg_ref()?), Ty::Rel),
                        "participant" => (Expr::Obj(ObjSet::Participant, self.obj_arg()?), Ty::Set),
                        "writer" => (Expr::Obj(ObjSet::Writer, self.obj_arg()?), Ty::Set),
                        "balanced" => (Expr::Obj(ObjSet::Balanced, self.obj_arg()?), Ty::Set),
                        "val_eq" | "val_ne" => {
                            if !self.spec.computes_values() {
                                return self.err(t.pos, 6, format!("`{s}` needs `memory … undefined`"));
                            }
                            let r = Box::new(self.rel_expr("a relation")?);
                            (if s == "val_eq" { Expr::ValEq(r) } else { Expr::ValNe(r) }, Ty::Rel)
                        }
                        _ => {
                            let e = self.rel_expr("a relation")?;
                            let e = Box::new(e);
                            (if s == "domain" { Expr::Domain(e) } else { Expr::Range(e) }, Ty::Set)
                        }
                    };
                    self.want_p(")")?;
                    return Ok(r);
                }
                self.name(&s, t.pos)
            }
            _ => self.expected("an expression (a name, `(`, `[` or `0`)"),
        }
    }

    fn obj_arg(&mut self) -> R<ArgRef> {
        let pos = self.tok().pos;
        let a = self.arg_ref()?;
        let ok = a.param.is_some_and(|i| matches!(self.spec.methods[a.method].params[i].1, Kind::Barrier | Kind::Ring));
        if !ok {
            return self.err(pos, 1, "expected a barrier or ring parameter");
        }
        Ok(a)
    }

    fn name(&mut self, s: &str, pos: Pos) -> R<(Expr, Ty)> {
        if let Some(i) = self.spec.lets.iter().rposition(|l| l.name == s) {
            if let Some(c) = self.clause_of {
                // the term becomes part of let c: a later let (or c itself, unless
                // it is recursive) would make c's value depend on itself
                let h = &self.spec.lets[c].name;
                if i > c {
                    let msg = format!(
                        "`{s}` is defined after `let {h}`: a term added to `{h}` may name only lets defined before it"
                    );
                    return self.err(pos, s.chars().count(), msg);
                }
                if i == c && !self.spec.lets[c].rec {
                    let msg = format!("a term added to `{h}` names `{h}` itself: declare it `let rec {h}`");
                    return self.err(pos, s.chars().count(), msg);
                }
            }
            let ty = self.spec.lets[i].ty;
            return Ok((Expr::Let(i, ty), ty));
        }
        if let Some(i) = self.spec.witnesses.iter().position(|w| w.name == s) {
            return Ok((Expr::Wit(WitRel::Named(i)), Ty::Rel));
        }
        for (i, w) in self.spec.witnesses.iter().enumerate() {
            if let WitnessKind::Splits { names, .. } = &w.kind {
                if let Some(k) = names.iter().position(|n| n == s) {
                    return Ok((Expr::WitSet(i, k == 0), Ty::Set));
                }
            }
        }
        if let Some(i) = self.spec.tags.iter().position(|t| t == s) {
            return Ok((Expr::Tag(i), Ty::Set));
        }
        if self.spec.memory.is_some() {
            match s {
                "rf" => return Ok((Expr::Wit(WitRel::Rf), Ty::Rel)),
                "mo" => return Ok((Expr::Wit(WitRel::Mo), Ty::Rel)),
                "rb" => return Ok((Expr::Wit(WitRel::Rb), Ty::Rel)),
                "R" => return Ok((Expr::Reads, Ty::Set)),
                "W" => return Ok((Expr::Writes, Ty::Set)),
                "init_reads" => return Ok((Expr::InitReads, Ty::Set)),
                _ => {}
            }
        }
        if let Some((_, b)) = BASES.iter().find(|(n, _)| *n == s) {
            return Ok((Expr::Base(*b), Ty::Rel));
        }
        if s == "all" {
            return Ok((Expr::All, Ty::Set));
        }
        if let Some(k) = self.spec.stamps.iter().position(|d| d.name == s) {
            return Ok((Expr::Stamp(k), Ty::Set));
        }
        if let Some(m) = self.spec.method(s) {
            if self.eat_p(".") {
                let (st, spos) = self.ident("a stamp")?;
                let (k, var) = self.stamp_name(&st, spos)?;
                if var.is_some() {
                    return self.err(
                        spos,
                        st.len(),
                        format!("write the family without its index: `{s}.{}`", self.spec.stamps[k].name),
                    );
                }
                return Ok((Expr::MethodStamp(m, k), Ty::Set));
            }
            return Ok((Expr::Method(m), Ty::Set));
        }
        let mut known: Vec<&str> = self.spec.lets.iter().map(|l| l.name.as_str()).collect();
        known.extend(self.spec.witnesses.iter().map(|w| w.name.as_str()));
        if self.spec.memory.is_some() {
            known.extend(["rf", "mo", "rb", "R", "W", "init_reads"]);
        }
        known.extend(self.spec.tags.iter().map(String::as_str));
        for w in &self.spec.witnesses {
            if let WitnessKind::Splits { names, .. } = &w.kind {
                known.extend(names.iter().map(String::as_str));
            }
        }
        known.extend(BASES.iter().map(|(n, _)| *n));
        known.extend(FUNCS);
        known.push("all");
        known.extend(self.spec.stamps.iter().map(|d| d.name.as_str()));
        known.extend(self.spec.methods.iter().map(|m| m.name.as_str()));
        Err(self.fix(Diagnostic::unknown(pos, s, format!("unknown name `{s}`"), known)))
    }
}

fn name(t: Ty) -> &'static str {
    match t {
        Ty::Set => "set",
        Ty::Rel => "relation",
    }
}
