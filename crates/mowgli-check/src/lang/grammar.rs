//! Lexer and parser of implementation files (`.impl`, grammar in
//! `docs/impl-language.md`). Errors carry `line:column` and what was expected.

pub use super::lex::Name;
pub use mowgli_diag::Diagnostic;
pub use mowgli_diag::Pos;

use super::ast::{BinOp, Block, CallEx, Ex, FamilyDecl, ImplFile, MethodDecl, Rhs, Stmt};
use super::cursor::Cursor;
pub use super::lex::{lex, lex_lines, Tok, Token};

/// A syntax error (a [`Diagnostic`] whose file is added by the caller).
pub type SyntaxError = Diagnostic;

type R<T> = Result<T, SyntaxError>;

/// A statement body or `.impl` file: the shared cursor, where the end of the input
/// ends a statement as a new line does.
struct Parser<'a> {
    c: Cursor<'a>,
    /// Statements of the body being read (a method's, a thread's), nested ones
    /// included: at most [`MAX_STATEMENTS`].
    stmts: usize,
}

/// At most this many statements in one body (a method of an `.impl` file, a
/// litmus thread), those of nested blocks included. A body is one chain of
/// statements for the passes after parsing (lowering, unfolding), which recurse
/// along it; the bound keeps them within a thread's stack, and the tests within
/// what the engines check in reasonable time.
pub const MAX_STATEMENTS: usize = 256;

impl<'a> std::ops::Deref for Parser<'a> {
    type Target = Cursor<'a>;
    fn deref(&self) -> &Cursor<'a> {
        &self.c
    }
}

impl std::ops::DerefMut for Parser<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.c
    }
}

impl<'a> Parser<'a> {
    /// A parser of a whole file's tokens.
    fn new(toks: &'a [Token]) -> Parser<'a> {
        let end = toks.last().map(|t| Pos { line: t.pos.line + 1, col: 1 }).unwrap_or(Pos { line: 1, col: 1 });
        Parser { c: Cursor::new(toks, end, "the end of the file"), stmts: 0 }
    }
    fn skip_newlines(&mut self) {
        while !self.at_end() && (matches!(self.tok(), Tok::Newline) || self.is(";")) {
            self.i += 1;
        }
    }
    fn end_of_statement(&mut self) -> R<()> {
        if self.at_end() || self.is("}") {
            return Ok(());
        }
        if matches!(self.tok(), Tok::Newline) || self.is(";") {
            self.skip_newlines();
            return Ok(());
        }
        self.err("the end of the statement (a new line or `;`)")
    }
    fn file(&mut self) -> R<ImplFile> {
        self.skip_newlines();
        self.keyword("implementation")?;
        let name = self.ident("the implementation's name")?;
        self.end_of_statement()?;
        let mut implements = None;
        let mut uses = Vec::new();
        let mut families = Vec::new();
        let mut methods = Vec::new();
        while !self.at_end() {
            match self.tok().clone() {
                Tok::Ident(k) if k == "implements" => {
                    self.i += 1;
                    if implements.is_some() {
                        return self.err("one `implements` line");
                    }
                    implements = Some(self.ident("the implemented library's name")?);
                    self.end_of_statement()?;
                }
                Tok::Ident(k) if k == "uses" => {
                    self.i += 1;
                    loop {
                        uses.push(self.ident("a library name")?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                    self.end_of_statement()?;
                }
                Tok::Ident(k) if k == "loc" || k == "wid" => {
                    self.i += 1;
                    families.push(self.family(k == "wid")?);
                    self.end_of_statement()?;
                }
                Tok::Ident(k) if k == "method" => {
                    self.i += 1;
                    let name = self.ident("a method name")?;
                    self.expect("(")?;
                    let mut params = Vec::new();
                    if !self.is(")") {
                        loop {
                            params.push(self.ident("a parameter name")?);
                            if !self.eat(",") {
                                break;
                            }
                        }
                    }
                    self.expect(")")?;
                    self.stmts = 0;
                    let body = self.block()?;
                    methods.push(MethodDecl { name, params, body });
                    self.end_of_statement()?;
                }
                _ => return self.err("`implements`, `uses`, `loc`, `wid` or `method`"),
            }
        }
        let Some(implements) = implements else {
            return Err(
                Diagnostic::new(name.pos, "expected an `implements LIBRARY` line").with_span(name.text.chars().count())
            );
        };
        Ok(ImplFile { name, implements, uses, families, methods })
    }

    fn family(&mut self, wid: bool) -> R<FamilyDecl> {
        let name = self.ident("a location family name")?;
        let mut object = None;
        if self.eat("(") {
            object = Some(self.ident("the abstract object the family derives from")?);
            self.expect(")")?;
        }
        let mut index = Vec::new();
        if self.eat("[") {
            loop {
                index.push(self.ident("an index variable")?);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("]")?;
        }
        let mut node = None;
        let mut init = None;
        if !wid && self.eat("@") {
            node = Some(self.expr()?);
        }
        if !wid && self.eat("=") {
            init = Some(self.expr()?);
        }
        let mut ranges = Vec::new();
        if self.is_kw("for") {
            self.i += 1;
            loop {
                let v = self.ident("an index variable")?;
                self.keyword("in")?;
                let e = self.expr()?;
                ranges.push((v, e));
                if !self.eat(",") {
                    break;
                }
            }
        }
        for ix in &index {
            if !ranges.iter().any(|(v, _)| v.text == ix.text) {
                return Err(Diagnostic::new(
                    ix.pos,
                    format!("index `{}` has no range: add `for {} in SET`", ix.text, ix.text),
                )
                .with_span(ix.text.chars().count()));
            }
        }
        Ok(FamilyDecl { name, object, index, node, init, ranges, wid })
    }

    fn block(&mut self) -> R<Block> {
        let pos = self.pos();
        self.expect("{")?;
        self.enter(pos)?;
        self.skip_newlines();
        let mut stmts = Vec::new();
        while !self.is("}") {
            if self.at_end() {
                return self.err("`}`");
            }
            stmts.push(self.stmt()?);
            self.end_of_statement()?;
        }
        self.expect("}")?;
        self.leave();
        Ok(Block { stmts, pos })
    }

    fn is_call_start(&self) -> bool {
        // Method(…) with an upper-case initial, or lib.Method(…)
        match (self.tok(), self.tok_at(1), self.tok_at(2), self.tok_at(3)) {
            (Tok::Ident(m), Tok::P("("), _, _) => m.starts_with(|c: char| c.is_ascii_uppercase()),
            // `.` has no other use: a qualified name is always a call
            (Tok::Ident(_), Tok::P("."), Tok::Ident(_), Tok::P("(")) => true,
            _ => false,
        }
    }

    fn call(&mut self) -> R<CallEx> {
        let first = self.ident("a method name")?;
        let (lib, method) = if self.eat(".") { (Some(first), self.ident("a method name")?) } else { (None, first) };
        self.expect("(")?;
        let mut args = Vec::new();
        if !self.is(")") {
            loop {
                if self.is("_") {
                    let p = self.pos();
                    self.i += 1;
                    args.push(Ex::Var(Name { text: "_".into(), pos: p }));
                } else {
                    args.push(self.expr()?);
                }
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(")")?;
        Ok(CallEx { lib, method, args })
    }

    fn rhs(&mut self) -> R<Rhs> {
        if self.is_kw("if") {
            return Ok(Rhs::If(Box::new(self.if_stmt()?)));
        }
        if self.is_call_start() {
            return Ok(Rhs::Call(self.call()?));
        }
        Ok(Rhs::Expr(self.expr()?))
    }

    fn if_stmt(&mut self) -> R<Stmt> {
        let pos = self.pos();
        self.keyword("if")?;
        // an `else if` chain nests (each `if` is the `else` block of the one before)
        self.enter(pos)?;
        let cond = self.expr()?;
        let then = self.block()?;
        // `else` may start the next line
        let save = self.i;
        self.skip_newlines();
        if !self.is_kw("else") {
            self.i = save;
        }
        let els = if self.is_kw("else") {
            self.i += 1;
            if self.is_kw("if") {
                let p = self.pos();
                let s = self.if_stmt()?;
                Some(Block { stmts: vec![s], pos: p })
            } else {
                Some(self.block()?)
            }
        } else {
            None
        };
        self.leave();
        Ok(Stmt::If { cond, then, els, pos })
    }

    fn stmt(&mut self) -> R<Stmt> {
        let pos = self.pos();
        self.stmts += 1;
        if self.stmts > MAX_STATEMENTS {
            return Err(Diagnostic::too_many(pos, "statements in one body", MAX_STATEMENTS)
                .with_help("split the body into methods, or use a loop"));
        }
        // a keyword followed by `=` is a name being assigned (litmus registers may
        // be called `loop`, `if`, …: the litmus format has no keywords)
        if matches!(self.tok(), Tok::Ident(_)) && matches!(self.tok_at(1), Tok::P("=")) {
            let name = self.ident("a variable")?;
            self.expect("=")?;
            let rhs = self.rhs()?;
            return Ok(Stmt::Assign { name, rhs });
        }
        if self.is_kw("let") || self.is_kw("var") {
            let mutable = self.is_kw("var");
            self.i += 1;
            let name = self.ident("a variable name")?;
            self.expect("=")?;
            let rhs = self.rhs()?;
            return Ok(Stmt::Let { name, rhs, mutable });
        }
        if self.is_kw("if") {
            return self.if_stmt();
        }
        if self.is_kw("loop") {
            self.i += 1;
            return Ok(Stmt::Loop(self.block()?, pos));
        }
        if self.is_kw("for") {
            self.i += 1;
            let var = self.ident("a loop variable")?;
            self.keyword("in")?;
            let set = self.expr()?;
            let body = self.block()?;
            return Ok(Stmt::For { var, set, body });
        }
        if self.is_kw("break") {
            self.i += 1;
            let v = if matches!(self.tok(), Tok::Newline) || self.is(";") || self.is("}") {
                None
            } else {
                Some(self.expr()?)
            };
            return Ok(Stmt::Break(v, pos));
        }
        if self.is_kw("return") {
            self.i += 1;
            return Ok(match self.rhs()? {
                Rhs::Call(c) => Stmt::Call(c),
                Rhs::Expr(e) => Stmt::Value(e),
                Rhs::If(s) => *s,
            });
        }
        if self.is_call_start() {
            return Ok(Stmt::Call(self.call()?));
        }
        Ok(Stmt::Value(self.expr()?))
    }

    // expressions, by precedence: || ; && ; comparisons, in ; + - ; * / % ; unary ; postfix
    fn expr(&mut self) -> R<Ex> {
        let mut l = self.and()?;
        let mut d = l.depth();
        while self.is("||") {
            let p = self.pos();
            self.i += 1;
            let r = self.and()?;
            (l, d) = self.bin(BinOp::Or, (l, d), r, p)?;
        }
        Ok(l)
    }
    /// `l op r` at `p`, where `l` is `ld` deep: the node and its depth, which must
    /// stay within the nesting limit (a chain of operators is a tree as deep).
    fn bin(&self, op: BinOp, (l, ld): (Ex, usize), r: Ex, p: Pos) -> R<(Ex, usize)> {
        let d = ld.max(r.depth()) + 1;
        self.check_depth(d, p)?;
        Ok((Ex::Bin(op, Box::new(l), Box::new(r), p), d))
    }
    fn and(&mut self) -> R<Ex> {
        let mut l = self.cmp()?;
        let mut d = l.depth();
        while self.is("&&") {
            let p = self.pos();
            self.i += 1;
            let r = self.cmp()?;
            (l, d) = self.bin(BinOp::And, (l, d), r, p)?;
        }
        Ok(l)
    }
    fn cmp(&mut self) -> R<Ex> {
        let l = self.sum()?;
        let op = match self.tok() {
            Tok::P("==") => BinOp::Eq,
            Tok::P("!=") => BinOp::Ne,
            Tok::P("<") => BinOp::Lt,
            Tok::P("<=") => BinOp::Le,
            Tok::P(">") => BinOp::Gt,
            Tok::P(">=") => BinOp::Ge,
            Tok::Ident(k) if k == "in" => BinOp::In,
            _ => return Ok(l),
        };
        let p = self.pos();
        self.i += 1;
        let r = self.sum()?;
        let d = l.depth();
        Ok(self.bin(op, (l, d), r, p)?.0)
    }
    fn sum(&mut self) -> R<Ex> {
        let mut l = self.product()?;
        let mut d = l.depth();
        loop {
            let op = match self.tok() {
                Tok::P("+") => BinOp::Add,
                Tok::P("-") => BinOp::Sub,
                _ => return Ok(l),
            };
            let p = self.pos();
            self.i += 1;
            let r = self.product()?;
            (l, d) = self.bin(op, (l, d), r, p)?;
        }
    }
    fn product(&mut self) -> R<Ex> {
        let mut l = self.unary()?;
        let mut d = l.depth();
        loop {
            let op = match self.tok() {
                Tok::P("*") => BinOp::Mul,
                Tok::P("/") => BinOp::Div,
                Tok::P("%") => BinOp::Mod,
                _ => return Ok(l),
            };
            let p = self.pos();
            self.i += 1;
            let r = self.unary()?;
            (l, d) = self.bin(op, (l, d), r, p)?;
        }
    }
    fn unary(&mut self) -> R<Ex> {
        let p = self.pos();
        if self.is("-") || self.is("!") {
            let neg = self.eat("-");
            self.i += !neg as usize;
            self.enter(p)?;
            let e = Box::new(self.unary()?);
            self.leave();
            return Ok(if neg { Ex::Neg(e, p) } else { Ex::Not(e, p) });
        }
        let mut e = self.primary()?;
        let mut d = e.depth();
        while self.is("[") {
            let p = self.pos();
            self.i += 1;
            self.enter(p)?;
            let mut ix = Vec::new();
            loop {
                ix.push(self.expr()?);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("]")?;
            self.leave();
            d = d.max(ix.iter().map(Ex::depth).max().unwrap_or(0)) + 1;
            self.check_depth(d, p)?;
            e = Ex::Index(Box::new(e), ix, p);
        }
        Ok(e)
    }
    fn primary(&mut self) -> R<Ex> {
        let p = self.pos();
        match self.tok().clone() {
            Tok::Int(v) => {
                self.i += 1;
                Ok(Ex::Int(v, p))
            }
            Tok::Ident(s) if s == "true" || s == "false" => {
                self.i += 1;
                Ok(Ex::Bool(s == "true", p))
            }
            Tok::Ident(s) if s == "bot" => {
                self.i += 1;
                Ok(Ex::Bot(p))
            }
            Tok::Ident(_) => {
                if self.is_call_start() {
                    return Err(Diagnostic::new(
                        p,
                        "a method call cannot stand inside an expression: bind its result first (`let v = …`)",
                    ));
                }
                let n = self.ident("a name")?;
                if self.eat("(") {
                    self.enter(p)?;
                    let mut args = Vec::new();
                    if !self.is(")") {
                        loop {
                            args.push(self.expr()?);
                            if !self.eat(",") {
                                break;
                            }
                        }
                    }
                    self.expect(")")?;
                    self.leave();
                    return Ok(Ex::App(n, args));
                }
                Ok(Ex::Var(n))
            }
            Tok::P("(") => {
                self.i += 1;
                if self.eat(")") {
                    return Ok(Ex::Unit(p));
                }
                self.enter(p)?;
                let e = self.expr()?;
                self.expect(")")?;
                self.leave();
                Ok(e)
            }
            Tok::P("[") => {
                self.i += 1;
                self.enter(p)?;
                let mut items = Vec::new();
                if !self.is("]") {
                    loop {
                        items.push(self.expr()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                self.expect("]")?;
                self.leave();
                Ok(Ex::Tuple(items, p))
            }
            Tok::P("{") => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat("}") {
                    return Ok(Ex::Set(items, p));
                }
                self.enter(p)?;
                let first = self.expr()?;
                if self.eat("|") {
                    let var = self.ident("a variable")?;
                    self.keyword("in")?;
                    let set = self.expr()?;
                    self.expect("}")?;
                    self.leave();
                    return Ok(Ex::Comp { body: Box::new(first), var, set: Box::new(set), pos: p });
                }
                items.push(first);
                while self.eat(",") {
                    items.push(self.expr()?);
                }
                self.expect("}")?;
                self.leave();
                Ok(Ex::Set(items, p))
            }
            _ => self.err("an expression"),
        }
    }
}

/// Parses an implementation file.
pub fn parse(text: &str) -> R<ImplFile> {
    let toks = lex(text)?;
    let mut p = Parser::new(&toks);
    p.file()
}

/// Parses a block of statements.
pub fn parse_block(text: &str) -> R<Block> {
    let toks = lex(&format!("{{\n{text}\n}}"))?;
    let mut p = Parser::new(&toks);
    p.block()
}

/// Parses a sequence of statements given as lines with their line numbers (a
/// litmus thread body): the statements run to the end of the lines, which is
/// position `end` and is described as `end_desc` in messages.
pub fn parse_stmts_lines<'t>(
    lines: impl IntoIterator<Item = (usize, &'t str)>,
    end: Pos,
    end_desc: String,
) -> R<Vec<Stmt>> {
    let toks = lex_lines(lines)?;
    let mut p = Parser { c: Cursor::new(&toks, end, end_desc), stmts: 0 };
    p.skip_newlines();
    let mut out = Vec::new();
    while !p.at_end() {
        if p.is("}") {
            return p.err("a statement (this `}` closes no block)");
        }
        out.push(p.stmt()?);
        p.end_of_statement()?;
    }
    Ok(out)
}

/// The names of the functions expressions may apply besides the context
/// functions: `min(s)`, `max`, `len`, `hash`, `range`.
pub const OPERATOR_FUNCTIONS: [&str; 5] = ["min", "max", "len", "hash", "range"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_small_implementation() {
        let f = parse(
            "implementation isv\nimplements sv\nuses rdmawait\nloc copy(x)[n] @ n for n in nodes\nwid d0\n\
             method Read(x) {\n  return Read(copy(x)[node])\n}\n\
             method GF(ns) {\n  for n in ns { Get(dummy[node], dummy[n], d0) }\n  Wait(d0)\n}\n",
        )
        .unwrap();
        assert_eq!(f.name.text, "isv");
        assert_eq!(f.families.len(), 2);
        assert_eq!(f.methods.len(), 2);
        assert!(matches!(f.methods[1].body.stmts[0], Stmt::For { .. }));
    }

    #[test]
    fn statements_of_a_litmus_body() {
        let lines = [
            (7, "  loop = Read(x); if loop == 1 {"),
            (8, "    Write(x, [loop, 2])"),
            (9, "  }"),
            (10, "  else { sv.write(x) }"),
        ];
        let ss = parse_stmts_lines(lines, Pos { line: 11, col: 1 }, "the end".into()).unwrap();
        assert_eq!(ss.len(), 2);
        assert!(
            matches!(&ss[0], Stmt::Assign { name, .. } if name.text == "loop" && name.pos == Pos { line: 7, col: 3 })
        );
        let Stmt::If { els: Some(els), .. } = &ss[1] else { panic!("{:?}", ss[1]) };
        assert!(matches!(&els.stmts[0], Stmt::Call(c) if c.method.text == "write"));
        let e =
            parse_stmts_lines([(3, "  if a {"), (4, "    Write(x, 1)")], Pos { line: 5, col: 1 }, "`expect`".into())
                .unwrap_err();
        assert_eq!((e.pos(), e.msg.as_str()), (Pos { line: 5, col: 1 }, "expected `}`, found `expect`"));
        let e = parse_stmts_lines([(2, "  }")], Pos { line: 3, col: 1 }, "the end".into()).unwrap_err();
        assert_eq!(e.pos(), Pos { line: 2, col: 3 });
    }

    #[test]
    fn errors_have_positions() {
        let e = parse("implementation x\nimplements sv\nmethod W(x) {\n  let v = 1 +\n}\n").unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.msg.contains("expected an expression"), "{}", e.msg);
        let e = parse("implementation x\nimplements sv\nmethod W(x) {\n  let v = 1 + Read(x)\n}\n").unwrap_err();
        assert!(e.msg.contains("cannot stand inside an expression"), "{}", e.msg);
        let e = parse("implementation x\nmethod W() { 1 }\n").unwrap_err();
        assert!(e.msg.contains("implements"), "{}", e.msg);
    }
}
