//! The litmus printer: a parsed test ([`Litmus`]) back to the text of the litmus
//! format (`docs/litmus-format.md`), thread bodies in the implementation language
//! (`docs/formats.md`). [`syntax::parse`] of the printed text gives the test back,
//! up to positions and the spelling of conditions ([`normalised`]): comments and
//! layout are not kept. A test read from herd7's format is printed as a test of
//! this format (its herd information is not).
//!
//! [`syntax::parse`]: super::syntax::parse

use std::fmt::Write as _;

use super::syntax::Litmus;
use super::syntax::{Cond, Expect, Lit, LocDecl, Name, Pos};
use crate::lang::ast::{BinOp, Block, CallEx, Ex, Rhs, Stmt};

/// The text of a test.
pub fn print(t: &Litmus) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "test {}", t.name);
    if let Some(d) = &t.description {
        let _ = writeln!(s, "\"{d}\"");
    }
    if !t.libraries.is_empty() {
        let _ = writeln!(s, "libraries {}", names(&t.libraries));
    }
    for (th, n) in &t.threads {
        let _ = writeln!(s, "thread {} @ {n}", th.text);
    }
    for l in &t.locs {
        let _ = writeln!(s, "{}", loc_decl(l));
    }
    for (z, ts) in &t.barriers {
        let _ = writeln!(s, "barrier {} : {}", z.text, names(ts));
    }
    for (q, w, rs, size) in &t.rings {
        let _ = write!(s, "ring {} : writer {} readers {}", q.text, w.text, names(rs));
        if let Some(k) = size {
            let _ = write!(s, " size {k}");
        }
        s.push('\n');
    }
    for (th, body) in &t.bodies {
        let _ = writeln!(s, "{}:", th.text);
        for st in body {
            stmt(&mut s, st, 1);
        }
    }
    for e in &t.expects {
        let _ = writeln!(s, "{}", expect_line(e));
    }
    s
}

fn names(ns: &[Name]) -> String {
    ns.iter().map(|n| n.text.as_str()).collect::<Vec<_>>().join(", ")
}

fn loc_decl(l: &LocDecl) -> String {
    let mut s = format!("loc {}", l.name.text);
    if let Some(n) = l.node {
        let _ = write!(s, " @ {n}");
    }
    if let Some(v) = &l.init {
        let _ = write!(s, " = {}", lit(v));
    } else if let Some(k) = l.size {
        let _ = write!(s, " size {k}");
    }
    s
}

/// `expect allowed|forbidden COND`.
pub fn expect_line(e: &Expect) -> String {
    format!("expect {} {}", if e.allowed { "allowed" } else { "forbidden" }, cond(&e.cond))
}

/// A value of a condition (or an initial value).
pub fn lit(l: &Lit) -> String {
    match l {
        Lit::Int(i) => i.to_string(),
        Lit::Bool(b) => b.to_string(),
        Lit::Bot => "bot".into(),
        Lit::Top => "top".into(),
        Lit::Unit => "()".into(),
        Lit::Tuple(vs) => format!("[{}]", vs.iter().map(lit).collect::<Vec<_>>().join(", ")),
    }
}

/// A condition, with the parentheses its parse needs (`\/` binds loosest, then
/// `/\`, both to the left, then `~`).
pub fn cond(c: &Cond) -> String {
    cond_at(c, 0)
}

/// `level`: 0 a `\/` operand on the left (anything), 1 a `/\` operand on the left
/// or a `\/` operand on the right, 2 a `/\` operand on the right or under `~`.
fn cond_at(c: &Cond, level: u8) -> String {
    let (s, own) = match c {
        Cond::True => ("true".to_string(), 3),
        Cond::Reg { thread, reg, val } => (format!("{}:{} = {}", thread.text, reg.text, lit(val)), 3),
        Cond::Loc { loc, node, val } => match node {
            Some((n, _)) => (format!("{}@{n} = {}", loc.text, lit(val)), 3),
            None => (format!("{} = {}", loc.text, lit(val)), 3),
        },
        Cond::Not(a) => (format!("~{}", cond_at(a, 2)), 3),
        Cond::And(a, b) => (format!("{} /\\ {}", cond_at(a, 1), cond_at(b, 2)), 1),
        Cond::Or(a, b) => (format!("{} \\/ {}", cond_at(a, 0), cond_at(b, 1)), 0),
    };
    if own < level {
        format!("({s})")
    } else {
        s
    }
}

fn indent(s: &mut String, depth: usize) {
    for _ in 0..depth {
        s.push_str("  ");
    }
}

/// A statement on its own line(s), at `depth`.
fn stmt(s: &mut String, st: &Stmt, depth: usize) {
    indent(s, depth);
    stmt_inline(s, st, depth);
    s.push('\n');
}

/// A statement as one would write it in a thread body (blocks over several lines).
pub fn statement(st: &Stmt) -> String {
    let mut s = String::new();
    stmt_inline(&mut s, st, 0);
    s
}

/// A statement from the current column; blocks end at `depth`.
fn stmt_inline(s: &mut String, st: &Stmt, depth: usize) {
    match st {
        Stmt::Let { name, rhs: r, mutable } => {
            let _ = write!(s, "{} {} = ", if *mutable { "var" } else { "let" }, name.text);
            rhs(s, r, depth);
        }
        Stmt::Assign { name, rhs: r } => {
            let _ = write!(s, "{} = ", name.text);
            rhs(s, r, depth);
        }
        Stmt::Call(c) => s.push_str(&call(c)),
        Stmt::If { cond: c, then, els, .. } => {
            let _ = write!(s, "if {} ", expr(c));
            block(s, then, depth);
            if let Some(e) = els {
                s.push_str(" else ");
                match e.stmts.as_slice() {
                    [inner @ Stmt::If { .. }] => stmt_inline(s, inner, depth),
                    _ => block(s, e, depth),
                }
            }
        }
        Stmt::Loop(b, _) => {
            s.push_str("loop ");
            block(s, b, depth);
        }
        Stmt::For { var, set, body } => {
            let _ = write!(s, "for {} in {} ", var.text, expr(set));
            block(s, body, depth);
        }
        Stmt::Break(v, _) => {
            s.push_str("break");
            if let Some(v) = v {
                let _ = write!(s, " {}", expr(v));
            }
        }
        Stmt::Value(e) => s.push_str(&expr(e)),
    }
}

fn rhs(s: &mut String, r: &Rhs, depth: usize) {
    match r {
        Rhs::Call(c) => s.push_str(&call(c)),
        Rhs::Expr(e) => s.push_str(&expr(e)),
        Rhs::If(st) => stmt_inline(s, st, depth),
    }
}

/// `{`, the statements one per line at `depth + 1`, `}` at `depth`.
fn block(s: &mut String, b: &Block, depth: usize) {
    s.push_str("{\n");
    for st in &b.stmts {
        stmt(s, st, depth + 1);
    }
    indent(s, depth);
    s.push('}');
}

/// `[LIB.]Method(ARG, ...)`.
pub fn call(c: &CallEx) -> String {
    let args: Vec<String> = c.args.iter().map(expr).collect();
    match &c.lib {
        Some(l) => format!("{}.{}({})", l.text, c.method.text, args.join(", ")),
        None => format!("{}({})", c.method.text, args.join(", ")),
    }
}

/// Binding strength of an expression: 1 `||`, 2 `&&`, 3 comparisons and `in`, 4
/// `+ -`, 5 `* / %`, 6 unary, 7 postfix and primary.
fn strength(e: &Ex) -> u8 {
    match e {
        Ex::Bin(op, ..) => op_strength(*op),
        Ex::Neg(..) | Ex::Not(..) => 6,
        _ => 7,
    }
}

fn op_strength(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::In => 3,
        BinOp::Add | BinOp::Sub => 4,
        BinOp::Mul | BinOp::Div | BinOp::Mod => 5,
    }
}

fn op_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Mod => "%",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::And => "&&",
        BinOp::Or => "||",
        BinOp::In => "in",
    }
}

/// An expression of the implementation language.
pub fn expr(e: &Ex) -> String {
    expr_at(e, 0)
}

/// `e` where an expression of strength at least `min` stands (parenthesised if weaker).
fn expr_at(e: &Ex, min: u8) -> String {
    let list = |es: &[Ex]| es.iter().map(expr).collect::<Vec<_>>().join(", ");
    let s = match e {
        Ex::Int(i, _) => i.to_string(),
        Ex::Bool(b, _) => b.to_string(),
        Ex::Bot(_) => "bot".into(),
        Ex::Unit(_) => "()".into(),
        Ex::Var(n) => n.text.clone(),
        Ex::Tuple(es, _) => format!("[{}]", list(es)),
        Ex::Set(es, _) => format!("{{{}}}", list(es)),
        Ex::Comp { body, var, set, .. } => format!("{{{} | {} in {}}}", expr(body), var.text, expr(set)),
        Ex::Bin(op, a, b, _) => {
            let k = op_strength(*op);
            // left-associative; comparisons do not chain: both sides one level up
            let left = if k == 3 { k + 1 } else { k };
            format!("{} {} {}", expr_at(a, left), op_text(*op), expr_at(b, k + 1))
        }
        Ex::Neg(a, _) => format!("-{}", expr_at(a, 6)),
        Ex::Not(a, _) => format!("!{}", expr_at(a, 6)),
        Ex::App(n, args) => format!("{}({})", n.text, list(args)),
        Ex::Index(b, ix, _) => format!("{}[{}]", expr_at(b, 7), list(ix)),
    };
    if strength(e) < min {
        format!("({s})")
    } else {
        s
    }
}

/// The test with every position set to the default and every condition's text set
/// to its printed form: what [`print`] keeps, so that `normalised(parse(print(t)))
/// == normalised(t)`. The herd information is dropped.
pub fn normalised(t: &Litmus) -> Litmus {
    let mut t = t.clone();
    t.herd = None;
    if t.libraries_pos.is_some() {
        t.libraries_pos = Some(Pos::default());
    }
    t.libraries.iter_mut().for_each(name);
    for (n, _) in &mut t.threads {
        name(n);
    }
    for l in &mut t.locs {
        name(&mut l.name);
    }
    for (z, ts) in &mut t.barriers {
        name(z);
        ts.iter_mut().for_each(name);
    }
    for (q, w, rs, _) in &mut t.rings {
        name(q);
        name(w);
        rs.iter_mut().for_each(name);
    }
    for (n, body) in &mut t.bodies {
        name(n);
        body.iter_mut().for_each(stmt_pos);
    }
    for e in &mut t.expects {
        e.pos = Pos::default();
        cond_pos(&mut e.cond);
        e.text = cond(&e.cond);
    }
    t
}

fn name(n: &mut Name) {
    n.pos = Pos::default();
}

fn cond_pos(c: &mut Cond) {
    match c {
        Cond::True => {}
        Cond::Reg { thread, reg, .. } => {
            name(thread);
            name(reg);
        }
        Cond::Loc { loc, node, .. } => {
            name(loc);
            if let Some((_, p)) = node {
                *p = Pos::default();
            }
        }
        Cond::Not(a) => cond_pos(a),
        Cond::And(a, b) | Cond::Or(a, b) => {
            cond_pos(a);
            cond_pos(b);
        }
    }
}

fn stmt_pos(s: &mut Stmt) {
    match s {
        Stmt::Let { name: n, rhs, .. } | Stmt::Assign { name: n, rhs } => {
            name(n);
            rhs_pos(rhs);
        }
        Stmt::Call(c) => call_pos(c),
        Stmt::If { cond, then, els, pos } => {
            *pos = Pos::default();
            ex_pos(cond);
            block_pos(then);
            if let Some(e) = els {
                block_pos(e);
            }
        }
        Stmt::Loop(b, pos) => {
            *pos = Pos::default();
            block_pos(b);
        }
        Stmt::For { var, set, body } => {
            name(var);
            ex_pos(set);
            block_pos(body);
        }
        Stmt::Break(v, pos) => {
            *pos = Pos::default();
            if let Some(v) = v {
                ex_pos(v);
            }
        }
        Stmt::Value(e) => ex_pos(e),
    }
}

fn rhs_pos(r: &mut Rhs) {
    match r {
        Rhs::Call(c) => call_pos(c),
        Rhs::Expr(e) => ex_pos(e),
        Rhs::If(s) => stmt_pos(s),
    }
}

fn block_pos(b: &mut Block) {
    b.pos = Pos::default();
    b.stmts.iter_mut().for_each(stmt_pos);
}

fn call_pos(c: &mut CallEx) {
    if let Some(l) = &mut c.lib {
        name(l);
    }
    name(&mut c.method);
    c.args.iter_mut().for_each(ex_pos);
}

fn ex_pos(e: &mut Ex) {
    match e {
        Ex::Int(_, p) | Ex::Bool(_, p) | Ex::Bot(p) | Ex::Unit(p) => *p = Pos::default(),
        Ex::Var(n) => name(n),
        Ex::Tuple(es, p) | Ex::Set(es, p) => {
            *p = Pos::default();
            es.iter_mut().for_each(ex_pos);
        }
        Ex::Comp { body, var, set, pos } => {
            *pos = Pos::default();
            ex_pos(body);
            name(var);
            ex_pos(set);
        }
        Ex::Bin(_, a, b, p) => {
            *p = Pos::default();
            ex_pos(a);
            ex_pos(b);
        }
        Ex::Neg(a, p) | Ex::Not(a, p) => {
            *p = Pos::default();
            ex_pos(a);
        }
        Ex::App(n, args) => {
            name(n);
            args.iter_mut().for_each(ex_pos);
        }
        Ex::Index(b, ix, p) => {
            *p = Pos::default();
            ex_pos(b);
            ix.iter_mut().for_each(ex_pos);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::syntax::parse;
    use super::*;

    fn round_trip(text: &str) -> String {
        let t = parse(text).unwrap_or_else(|e| panic!("{e:?}"));
        let printed = print(&t);
        let back = parse(&printed).unwrap_or_else(|e| panic!("{e:?} in\n{printed}"));
        assert_eq!(normalised(&back), normalised(&t), "\n{printed}");
        printed
    }

    #[test]
    fn conditions_keep_their_grouping() {
        let p = round_trip(
            "test C\nlibraries sv\nthread T @ 1\nloc x\nT:\n  r = Read(x)\n\
             expect allowed ~(T:r = 1 \\/ x@1 = [1, 2]) /\\ (T:r = 0 \\/ x = bot) /\\ ~~true\n\
             expect forbidden T:r = 1 \\/ (T:r = 2 \\/ T:r = 3) /\\ x = ()\n",
        );
        assert!(p.contains("expect allowed ~(T:r = 1 \\/ x@1 = [1, 2]) /\\ (T:r = 0 \\/ x = bot) /\\ ~~true"), "{p}");
        assert!(p.contains("expect forbidden T:r = 1 \\/ (T:r = 2 \\/ T:r = 3) /\\ x = ()"), "{p}");
    }

    #[test]
    fn expressions_keep_their_precedence() {
        let p = round_trip(
            "test E\nlibraries rdmawait\nthread T @ 1\nloc x @ 1\nT:\n  var i = (1 + 2) * 3 - (4 - 5)\n  \
             let s = {n * 2 | n in nodes - {node}}\n  if !(i == 1 || i < 2 && true) { break } else if i in s \
             { Write(x, -(-i)) } else { loop { i = [i, 2][0]; break } }\n  a = if i > 0 { 1 } else { 2 }\n  \
             for n in range(0, 2) { rdmawait.Put(x, 1, _) }\n",
        );
        assert!(p.contains("var i = (1 + 2) * 3 - (4 - 5)"), "{p}");
        assert!(p.contains("} else if i in s {"), "{p}");
    }
}
