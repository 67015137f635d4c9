//! Parser of the litmus format (`shared/litmus-format.md`): one statement per line.

use super::lex::{lex_line, Tok, Token};

/// A position in a file (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lit {
    Int(i64),
    Bool(bool),
    Bot,
    Unit,
    Tuple(Vec<Lit>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Name(Name),
    Int(i64, Pos),
    Bool(bool, Pos),
    Nodes(Vec<i64>, Pos),
    Tuple(Vec<Arg>, Pos),
    Fresh(Pos),
}

impl Arg {
    pub fn pos(&self) -> Pos {
        match self {
            Arg::Name(n) => n.pos,
            Arg::Int(_, p) | Arg::Bool(_, p) | Arg::Nodes(_, p) | Arg::Tuple(_, p) | Arg::Fresh(p) => *p,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    pub dest: Option<Name>,
    pub lib: Option<Name>,
    pub method: Name,
    pub args: Vec<Arg>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    True,
    Reg { thread: Name, reg: Name, val: Lit },
    Loc { loc: Name, node: Option<(i64, Pos)>, val: Lit },
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expect {
    pub allowed: bool,
    pub cond: Cond,
    /// The condition as written.
    pub text: String,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocDecl {
    pub name: Name,
    pub node: Option<i64>,
    pub init: Option<Lit>,
    pub size: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Litmus {
    pub name: String,
    pub description: Option<String>,
    pub libraries: Vec<Name>,
    pub libraries_pos: Option<Pos>,
    pub threads: Vec<(Name, i64)>,
    pub locs: Vec<LocDecl>,
    pub barriers: Vec<(Name, Vec<Name>)>,
    pub rings: Vec<(Name, Name, Vec<Name>, Option<i64>)>,
    /// Thread bodies: (thread name at `T:`, instructions with their line).
    pub bodies: Vec<(Name, Vec<Instr>)>,
    pub expects: Vec<Expect>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub pos: Pos,
    pub msg: String,
}

type R<T> = Result<T, SyntaxError>;

struct Line<'a> {
    toks: &'a [Token],
    i: usize,
    line: usize,
    end_col: usize,
}

impl<'a> Line<'a> {
    fn pos(&self) -> Pos {
        Pos { line: self.line, col: self.toks.get(self.i).map(|t| t.col).unwrap_or(self.end_col) }
    }
    fn err<T>(&self, what: &str) -> R<T> {
        let found = match self.toks.get(self.i) {
            Some(t) => t.tok.describe(),
            None => "the end of the line".into(),
        };
        Err(SyntaxError { pos: self.pos(), msg: format!("expected {what}, found {found}") })
    }
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.i + k).map(|t| &t.tok)
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, p: &str) -> R<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.err(&format!("`{p}`"))
        }
    }
    fn ident(&mut self, what: &str) -> R<Name> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let n = Name { text: s.clone(), pos: self.pos() };
                self.i += 1;
                Ok(n)
            }
            _ => self.err(what),
        }
    }
    fn keyword(&mut self, kw: &str) -> R<()> {
        match self.peek() {
            Some(Tok::Ident(s)) if s == kw => {
                self.i += 1;
                Ok(())
            }
            _ => self.err(&format!("`{kw}`")),
        }
    }
    fn int(&mut self, what: &str) -> R<i64> {
        match self.peek() {
            Some(Tok::Int(v)) => {
                let v = *v;
                self.i += 1;
                Ok(v)
            }
            _ => self.err(what),
        }
    }
    fn node(&mut self) -> R<i64> {
        let p = self.pos();
        let n = self.int("a node (a positive integer)")?;
        if n < 1 || n > u32::MAX as i64 {
            return Err(SyntaxError { pos: p, msg: format!("expected a node (a positive integer), found `{n}`") });
        }
        Ok(n)
    }
    fn done(&self) -> R<()> {
        if self.i < self.toks.len() {
            self.err("the end of the line")
        } else {
            Ok(())
        }
    }
    fn lit(&mut self) -> R<Lit> {
        match self.peek().cloned() {
            Some(Tok::Int(v)) => {
                self.i += 1;
                Ok(Lit::Int(v))
            }
            Some(Tok::Ident(s)) if s == "true" || s == "false" => {
                self.i += 1;
                Ok(Lit::Bool(s == "true"))
            }
            Some(Tok::Ident(s)) if s == "bot" => {
                self.i += 1;
                Ok(Lit::Bot)
            }
            Some(Tok::Punct("(")) => {
                self.i += 1;
                self.expect(")")?;
                Ok(Lit::Unit)
            }
            Some(Tok::Punct("[")) => {
                self.i += 1;
                let mut vs = Vec::new();
                if !self.eat("]") {
                    loop {
                        vs.push(self.lit()?);
                        if self.eat("]") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                Ok(Lit::Tuple(vs))
            }
            _ => self.err("a value (integer, true, false, bot, [tuple] or ())"),
        }
    }
    fn arg(&mut self) -> R<Arg> {
        let pos = self.pos();
        match self.peek().cloned() {
            Some(Tok::Int(v)) => {
                self.i += 1;
                Ok(Arg::Int(v, pos))
            }
            Some(Tok::Ident(s)) if s == "true" || s == "false" => {
                self.i += 1;
                Ok(Arg::Bool(s == "true", pos))
            }
            Some(Tok::Ident(s)) => {
                self.i += 1;
                Ok(Arg::Name(Name { text: s, pos }))
            }
            Some(Tok::Punct("_")) => {
                self.i += 1;
                Ok(Arg::Fresh(pos))
            }
            Some(Tok::Punct("{")) => {
                self.i += 1;
                let mut ns = Vec::new();
                if !self.eat("}") {
                    loop {
                        ns.push(self.node()?);
                        if self.eat("}") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                Ok(Arg::Nodes(ns, pos))
            }
            Some(Tok::Punct("[")) => {
                self.i += 1;
                let mut vs = Vec::new();
                if !self.eat("]") {
                    loop {
                        vs.push(self.arg()?);
                        if self.eat("]") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                Ok(Arg::Tuple(vs, pos))
            }
            _ => self.err("an argument (location, integer, register, {nodes}, [tuple] or identifier)"),
        }
    }
    fn cond_or(&mut self) -> R<Cond> {
        let mut c = self.cond_and()?;
        while self.eat("\\/") {
            let d = self.cond_and()?;
            c = Cond::Or(Box::new(c), Box::new(d));
        }
        Ok(c)
    }
    fn cond_and(&mut self) -> R<Cond> {
        let mut c = self.cond_unary()?;
        while self.eat("/\\") {
            let d = self.cond_unary()?;
            c = Cond::And(Box::new(c), Box::new(d));
        }
        Ok(c)
    }
    fn cond_unary(&mut self) -> R<Cond> {
        if self.eat("~") {
            return Ok(Cond::Not(Box::new(self.cond_unary()?)));
        }
        if self.eat("(") {
            let c = self.cond_or()?;
            self.expect(")")?;
            return Ok(c);
        }
        if matches!(self.peek(), Some(Tok::Ident(s)) if s == "true") && !matches!(self.peek_at(1), Some(Tok::Punct(_)))
        {
            self.i += 1;
            return Ok(Cond::True);
        }
        if matches!(self.peek(), Some(Tok::Ident(s)) if s == "true")
            && matches!(self.peek_at(1), Some(Tok::Punct(p)) if *p == "/\\" || *p == "\\/" || *p == ")")
        {
            self.i += 1;
            return Ok(Cond::True);
        }
        let first = self.ident("a condition atom (`T:R = V`, `X = V`, `X@N = V`, `true`, `~`, `(`)")?;
        if self.eat(":") {
            let reg = self.ident("a register name after `T:`")?;
            self.expect("=")?;
            let val = self.lit()?;
            return Ok(Cond::Reg { thread: first, reg, val });
        }
        let node = if self.eat("@") {
            let p = self.pos();
            Some((self.node()?, p))
        } else {
            None
        };
        self.expect("=")?;
        let val = self.lit()?;
        Ok(Cond::Loc { loc: first, node, val })
    }
}

fn is_test_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '.' | '-'))
}

/// Parses a litmus file.
pub fn parse(text: &str) -> R<Litmus> {
    let mut t = Litmus {
        name: String::new(),
        description: None,
        libraries: vec![],
        libraries_pos: None,
        threads: vec![],
        locs: vec![],
        barriers: vec![],
        rings: vec![],
        bodies: vec![],
        expects: vec![],
    };
    let mut seen_test = false;
    let mut last_was_test = false;
    let mut cur_body: Option<usize> = None;
    for (ln, raw) in text.lines().enumerate() {
        let line = ln + 1;
        let trimmed = raw.trim_start();
        let toks = if !seen_test && (trimmed == "test" || trimmed.starts_with("test ") || trimmed.starts_with("test\t"))
        {
            // the test name may contain `+ . -`: only the keyword is a token
            vec![Token { tok: Tok::Ident("test".into()), col: raw.chars().count() - trimmed.chars().count() + 1 }]
        } else {
            lex_line(raw).map_err(|(col, msg)| SyntaxError { pos: Pos { line, col }, msg })?
        };
        if toks.is_empty() {
            continue;
        }
        let end_col = raw.chars().count() + 1;
        let mut l = Line { toks: &toks, i: 0, line, end_col };
        let first_kw = match &toks[0].tok {
            Tok::Ident(s) => s.as_str(),
            _ => "",
        };
        if !seen_test {
            if first_kw != "test" {
                return l.err("`test NAME` as the first statement");
            }
            // the name is the rest of the line, up to a comment
            let rest: String = raw.chars().skip(toks[0].col - 1 + 4).collect();
            let rest = rest.split('#').next().unwrap_or("").trim().to_string();
            let skip = toks[0].col - 1 + 4;
            let col = skip + 1 + raw.chars().skip(skip).take_while(|c| c.is_whitespace()).count();
            if !is_test_name(&rest) {
                return Err(SyntaxError {
                    pos: Pos { line, col },
                    msg: format!(
                        "expected a test name ([A-Za-z0-9_+.-]+), found {}",
                        if rest.is_empty() { "the end of the line".to_string() } else { format!("`{rest}`") }
                    ),
                });
            }
            t.name = rest;
            seen_test = true;
            last_was_test = true;
            continue;
        }
        if let Tok::Str(_) = &toks[0].tok {
            if !last_was_test || t.description.is_some() {
                return Err(SyntaxError {
                    pos: Pos { line, col: toks[0].col },
                    msg: "a description must come right after `test NAME`".into(),
                });
            }
            // a `#` inside the description is part of it: re-read from the raw line
            let start = raw.find('"').unwrap_or(0) + 1;
            let end = raw[start..].find('"').map(|e| start + e).unwrap_or(raw.len());
            t.description = Some(raw[start..end].to_string());
            let after: String = raw[end + 1..].to_string();
            let rest =
                lex_line(&after).map_err(|(col, msg)| SyntaxError { pos: Pos { line, col: col + end + 1 }, msg })?;
            if let Some(tok) = rest.first() {
                return Err(SyntaxError {
                    pos: Pos { line, col: raw[..end + 1].chars().count() + tok.col },
                    msg: format!("expected the end of the line, found {}", tok.tok.describe()),
                });
            }
            last_was_test = false;
            continue;
        }
        last_was_test = false;
        // `T:` starts a body
        if toks.len() == 2 && matches!(toks[0].tok, Tok::Ident(_)) && toks[1].tok == Tok::Punct(":") {
            let name = l.ident("a thread name")?;
            cur_body = Some(t.bodies.len());
            t.bodies.push((name, vec![]));
            continue;
        }
        match first_kw {
            "test" => return Err(SyntaxError { pos: l.pos(), msg: "`test` may appear only once, first".into() }),
            "libraries" => {
                l.i += 1;
                if t.libraries_pos.is_some() {
                    return Err(SyntaxError {
                        pos: Pos { line, col: toks[0].col },
                        msg: "`libraries` given twice".into(),
                    });
                }
                t.libraries_pos = Some(Pos { line, col: toks[0].col });
                loop {
                    t.libraries.push(l.ident("a library name")?);
                    if !l.eat(",") {
                        break;
                    }
                }
                l.done()?;
            }
            "thread" => {
                l.i += 1;
                let name = l.ident("a thread name")?;
                l.expect("@")?;
                let n = l.node()?;
                l.done()?;
                t.threads.push((name, n));
            }
            "loc" => {
                l.i += 1;
                let name = l.ident("a location name")?;
                let mut d = LocDecl { name, node: None, init: None, size: None };
                if l.eat("@") {
                    d.node = Some(l.node()?);
                }
                if l.eat("=") {
                    d.init = Some(l.lit()?);
                } else if matches!(l.peek(), Some(Tok::Ident(s)) if s == "size") {
                    if d.node.is_none() {
                        return l.err("`@ N` before `size`");
                    }
                    l.i += 1;
                    let p = l.pos();
                    let k = l.int("a tuple size")?;
                    if k < 1 {
                        return Err(SyntaxError {
                            pos: p,
                            msg: format!("expected a positive tuple size, found `{k}`"),
                        });
                    }
                    d.size = Some(k);
                }
                l.done()?;
                t.locs.push(d);
            }
            "barrier" => {
                l.i += 1;
                let name = l.ident("a barrier name")?;
                l.expect(":")?;
                let mut ts = vec![l.ident("a thread name")?];
                while l.eat(",") {
                    ts.push(l.ident("a thread name")?);
                }
                l.done()?;
                t.barriers.push((name, ts));
            }
            "ring" => {
                l.i += 1;
                let name = l.ident("a ring name")?;
                l.expect(":")?;
                l.keyword("writer")?;
                let w = l.ident("the writer thread")?;
                l.keyword("readers")?;
                let mut rs = vec![l.ident("a reader thread")?];
                while l.eat(",") {
                    rs.push(l.ident("a reader thread")?);
                }
                let mut size = None;
                if matches!(l.peek(), Some(Tok::Ident(s)) if s == "size") {
                    l.i += 1;
                    let p = l.pos();
                    let s = l.int("a ring size")?;
                    if s < 1 {
                        return Err(SyntaxError { pos: p, msg: format!("expected a positive ring size, found `{s}`") });
                    }
                    size = Some(s);
                }
                l.done()?;
                t.rings.push((name, w, rs, size));
            }
            "expect" => {
                let pos = Pos { line, col: toks[0].col };
                l.i += 1;
                let kind = l.ident("`allowed` or `forbidden`")?;
                let allowed = match kind.text.as_str() {
                    "allowed" => true,
                    "forbidden" => false,
                    _ => {
                        return Err(SyntaxError {
                            pos: kind.pos,
                            msg: format!("expected `allowed` or `forbidden`, found `{}`", kind.text),
                        })
                    }
                };
                let start_col = l.pos().col;
                let cond = l.cond_or()?;
                l.done()?;
                let text: String = raw.chars().skip(start_col - 1).collect();
                let text = text.split('#').next().unwrap_or("").trim().to_string();
                t.expects.push(Expect { allowed, cond, text, pos });
            }
            _ => {
                let Some(b) = cur_body else {
                    return l.err("a declaration (`libraries`, `thread`, `loc`, `barrier`, `ring`, `expect`) or `T:`");
                };
                let instr = parse_instr(&mut l)?;
                t.bodies[b].1.push(instr);
            }
        }
    }
    if !seen_test {
        return Err(SyntaxError {
            pos: Pos { line: 1, col: 1 },
            msg: "expected `test NAME`, found an empty file".into(),
        });
    }
    Ok(t)
}

fn parse_instr(l: &mut Line) -> R<Instr> {
    let mut dest = None;
    let first = l.ident("an instruction `[R =] [LIB.]Method(ARG, ...)`")?;
    let (lib, method) = if l.eat("=") {
        dest = Some(first);
        let m = l.ident("a method name")?;
        if l.eat(".") {
            (Some(m), l.ident("a method name after `.`")?)
        } else {
            (None, m)
        }
    } else if l.eat(".") {
        (Some(first), l.ident("a method name after `.`")?)
    } else {
        (None, first)
    };
    l.expect("(")?;
    let mut args = Vec::new();
    if !l.eat(")") {
        loop {
            args.push(l.arg()?);
            if l.eat(")") {
                break;
            }
            if !l.is(",") {
                return l.err("`,` or `)`");
            }
            l.i += 1;
        }
    }
    l.done()?;
    Ok(Instr { dest, lib, method, args })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MP: &str = r#"# MP3bis
test MP3bis
"put towards node 2 # not a comment"
libraries rdmatso
thread T1 @ 1
thread T2 @ 2
loc x @ 2
loc y @ 1
T1:
  Put(x, 1)
  Write(y, 1)
T2:
  Get(a, y)
  b = Read(x)
loc a @ 2
expect allowed   a = 1 /\ T2:b = 0
expect forbidden ~(a = 1 \/ true) /\ x@2 = [1, 2]
"#;

    #[test]
    fn parses_the_format_example() {
        let t = parse(MP).unwrap();
        assert_eq!(t.name, "MP3bis");
        assert_eq!(t.description.as_deref(), Some("put towards node 2 # not a comment"));
        assert_eq!(t.bodies.len(), 2);
        assert_eq!(t.bodies[1].1[1].dest.as_ref().unwrap().text, "b");
        assert_eq!(t.locs.len(), 3);
        assert_eq!(t.expects.len(), 2);
        assert_eq!(t.expects[0].text, "a = 1 /\\ T2:b = 0");
    }

    #[test]
    fn errors_point_at_the_token() {
        let e = parse("test X\nthread T1 @ zero\n").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (2, 13));
        assert!(e.msg.contains("expected a node"), "{}", e.msg);
        let e = parse("thread T1 @ 1\n").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (1, 1));
        let e = parse("test X\nT1:\n  Put(x, 1\n").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (3, 11));
        let e = parse("test X\nexpect maybe x = 1\n").unwrap_err();
        assert!(e.msg.contains("`allowed` or `forbidden`"));
        let e = parse("test X\n  Write(x, 1)\n").unwrap_err();
        assert!(e.msg.contains("declaration"));
        let e = parse("test X\nloc x @ 1 = $\n").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (3 - 1, 13));
    }
}
