//! Parser of the litmus format (`docs/litmus-format.md`): one statement per line.
//!
//! Thread bodies are written in the implementation language (`docs/formats.md`,
//! "Extension: thread bodies in the implementation language"): the lines of a body
//! are parsed by the implementation language's statement parser
//! ([`crate::lang::grammar`]); a line of the base format, `[R =] [LIB.]Method(ARG,
//! ...)`, is one of its statements. An error on such a line is reported as the
//! base format's parser reports it.

use super::cursor::Cursor;
use super::lex::{lex_line, Dialect, Tok, Token};
use crate::lang::ast::{Block, CallEx, Ex, Rhs, Stmt};
use crate::lang::grammar as lang;
pub use mowgli_diag::{Diagnostic, Pos};

pub use super::lex::Name;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lit {
    Int(i64),
    Bool(bool),
    Bot,
    /// ⊤, coreRMA's undefined value.
    Top,
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
    /// Thread bodies: (thread name at `T:`, statements). A body may be split by
    /// declarations; its parts are concatenated.
    pub bodies: Vec<(Name, Vec<Stmt>)>,
    pub expects: Vec<Expect>,
    /// A test read from herd7's x86 format ([`super::herd`]): its condition and
    /// what herd's log shows.
    pub herd: Option<Box<super::herd::HerdInfo>>,
}

/// A syntax error (a [`Diagnostic`] whose file is added by the caller).
pub type SyntaxError = Diagnostic;

type R<T> = Result<T, SyntaxError>;

/// A litmus statement line: the shared cursor, ending at the end of the line.
struct Line<'a>(Cursor<'a>);

impl<'a> std::ops::Deref for Line<'a> {
    type Target = Cursor<'a>;
    fn deref(&self) -> &Cursor<'a> {
        &self.0
    }
}

impl std::ops::DerefMut for Line<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl<'a> Line<'a> {
    fn new(toks: &'a [Token], line: usize, end_col: usize) -> Line<'a> {
        Line(Cursor::new(toks, Pos { line, col: end_col }, "the end of the line"))
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
            return Err(Diagnostic::expected_found(
                p,
                "a node (a positive integer)",
                &format!("`{n}`"),
                n.to_string().len(),
            ));
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
            Some(Tok::Ident(s)) if s == "top" => {
                self.i += 1;
                Ok(Lit::Top)
            }
            Some(Tok::P("(")) => {
                self.i += 1;
                self.expect(")")?;
                Ok(Lit::Unit)
            }
            Some(Tok::P("[")) => {
                let p = self.pos();
                self.i += 1;
                self.enter(p)?;
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
                self.leave();
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
            Some(Tok::P("_")) => {
                self.i += 1;
                Ok(Arg::Fresh(pos))
            }
            Some(Tok::P("{")) => {
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
            Some(Tok::P("[")) => {
                self.i += 1;
                self.enter(pos)?;
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
                self.leave();
                Ok(Arg::Tuple(vs, pos))
            }
            _ => self.err("an argument (location, integer, register, {nodes}, [tuple] or identifier)"),
        }
    }
    fn cond_or(&mut self) -> R<Cond> {
        let mut c = self.cond_and()?;
        let mut depth = c.depth();
        while self.is("\\/") {
            let p = self.pos();
            self.i += 1;
            let d = self.cond_and()?;
            depth = depth.max(d.depth()) + 1;
            self.check_depth(depth, p)?;
            c = Cond::Or(Box::new(c), Box::new(d));
        }
        Ok(c)
    }
    fn cond_and(&mut self) -> R<Cond> {
        let mut c = self.cond_unary()?;
        let mut depth = c.depth();
        while self.is("/\\") {
            let p = self.pos();
            self.i += 1;
            let d = self.cond_unary()?;
            depth = depth.max(d.depth()) + 1;
            self.check_depth(depth, p)?;
            c = Cond::And(Box::new(c), Box::new(d));
        }
        Ok(c)
    }
    fn cond_unary(&mut self) -> R<Cond> {
        let p = self.pos();
        if self.eat("~") {
            self.enter(p)?;
            let c = self.cond_unary()?;
            self.leave();
            return Ok(Cond::Not(Box::new(c)));
        }
        if self.eat("(") {
            self.enter(p)?;
            let c = self.cond_or()?;
            self.expect(")")?;
            self.leave();
            return Ok(c);
        }
        if matches!(self.peek(), Some(Tok::Ident(s)) if s == "true") && !matches!(self.peek_at(1), Some(Tok::P(_))) {
            self.i += 1;
            return Ok(Cond::True);
        }
        if matches!(self.peek(), Some(Tok::Ident(s)) if s == "true")
            && matches!(self.peek_at(1), Some(Tok::P(p)) if *p == "/\\" || *p == "\\/" || *p == ")")
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

/// Parses a litmus file (or a herd7 x86 test, [`super::herd::is_herd`]).
pub fn parse(text: &str) -> R<Litmus> {
    if super::herd::is_herd(text) {
        return super::herd::parse(text);
    }
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
        herd: None,
    };
    let mut seen_test = false;
    let mut last_was_test = false;
    let mut cur_body: Option<usize> = None;
    // the lines of the current part of the current body, parsed when it ends
    let mut body_lines: Vec<(usize, &str)> = Vec::new();
    for (ln, raw) in text.lines().enumerate() {
        let line = ln + 1;
        let trimmed = raw.trim_start();
        if seen_test {
            match line_kind(raw) {
                LineKind::Blank => continue,
                LineKind::Body if cur_body.is_some() => {
                    body_lines.push((line, raw));
                    last_was_test = false;
                    continue;
                }
                _ => {
                    if let Some(b) = cur_body {
                        if !body_lines.is_empty() {
                            let col = raw.chars().count() - trimmed.chars().count() + 1;
                            let word: String = trimmed.chars().take_while(|c| !c.is_whitespace()).take(20).collect();
                            let found = format!("the next statement `{word}`");
                            let stmts = parse_body(&body_lines, Pos { line, col }, found)?;
                            super::limits::extend_body(&mut t.bodies[b].1, stmts, &body_lines)?;
                            body_lines.clear();
                        }
                    }
                }
            }
        }
        let toks = if !seen_test && (trimmed == "test" || trimmed.starts_with("test ") || trimmed.starts_with("test\t"))
        {
            // the test name may contain `+ . -`: only the keyword is a token
            vec![Token {
                tok: Tok::Ident("test".into()),
                pos: Pos { line, col: raw.chars().count() - trimmed.chars().count() + 1 },
            }]
        } else {
            lex_line(line, raw, Dialect::Litmus)?
        };
        if toks.is_empty() {
            continue;
        }
        let end_col = raw.chars().count() + 1;
        let mut l = Line::new(&toks, line, end_col);
        let first_kw = match &toks[0].tok {
            Tok::Ident(s) => s.as_str(),
            _ => "",
        };
        if !seen_test {
            if first_kw != "test" {
                return l.err("`test NAME` as the first statement");
            }
            // the name is the rest of the line, up to a comment
            let rest: String = raw.chars().skip(toks[0].pos.col - 1 + 4).collect();
            let rest = rest.split('#').next().unwrap_or("").trim().to_string();
            let skip = toks[0].pos.col - 1 + 4;
            let col = skip + 1 + raw.chars().skip(skip).take_while(|c| c.is_whitespace()).count();
            if !is_test_name(&rest) {
                let found = if rest.is_empty() { "the end of the line".to_string() } else { format!("`{rest}`") };
                return Err(Diagnostic::expected_found(
                    Pos { line, col },
                    "a test name ([A-Za-z0-9_+.-]+)",
                    &found,
                    rest.chars().count(),
                ));
            }
            t.name = rest;
            seen_test = true;
            last_was_test = true;
            continue;
        }
        if let Tok::Str(_) = &toks[0].tok {
            if !last_was_test || t.description.is_some() {
                return Err(Diagnostic::new(
                    Pos { line, col: toks[0].pos.col },
                    "a description must come right after `test NAME`",
                )
                .with_span(toks[0].tok.width()));
            }
            // a `#` inside the description is part of it: re-read from the raw line
            let start = raw.find('"').unwrap_or(0) + 1;
            let end = raw[start..].find('"').map(|e| start + e).unwrap_or(raw.len());
            t.description = Some(raw[start..end].to_string());
            let after: String = raw[end + 1..].to_string();
            let shift = raw[..end + 1].chars().count();
            let rest = lex_line(line, &after, Dialect::Litmus).map_err(|d| d.shifted(shift))?;
            if let Some(tok) = rest.first() {
                return Err(Diagnostic::expected_found(
                    Pos { line, col: shift + tok.pos.col },
                    "the end of the line",
                    &tok.tok.describe(),
                    tok.tok.width(),
                ));
            }
            last_was_test = false;
            continue;
        }
        last_was_test = false;
        // `T:` starts a body
        if toks.len() == 2 && matches!(toks[0].tok, Tok::Ident(_)) && toks[1].tok == Tok::P(":") {
            let name = l.ident("a thread name")?;
            cur_body = Some(t.bodies.len());
            t.bodies.push((name, vec![]));
            continue;
        }
        match first_kw {
            "test" => return Err(Diagnostic::new(l.pos(), "`test` may appear only once, first").with_span(4)),
            "libraries" => {
                l.i += 1;
                if t.libraries_pos.is_some() {
                    return Err(
                        Diagnostic::new(Pos { line, col: toks[0].pos.col }, "`libraries` given twice").with_span(9)
                    );
                }
                t.libraries_pos = Some(Pos { line, col: toks[0].pos.col });
                loop {
                    t.libraries.push(l.ident("a library name")?);
                    if !l.eat(",") {
                        break;
                    }
                }
                l.done()?;
            }
            "thread" => {
                if t.threads.len() >= super::limits::MAX_THREADS {
                    return Err(Diagnostic::too_many(toks[0].pos, "threads", super::limits::MAX_THREADS));
                }
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
                    // `loc x @ N size K` (located tuples, msw) or `loc x size K`
                    // (replicated tuples: a library with `memory replicated tuples`)
                    l.i += 1;
                    let p = l.pos();
                    let k = l.int("a tuple size")?;
                    if !(1..=super::limits::MAX_SIZE).contains(&k) {
                        return Err(Diagnostic::expected_found(
                            p,
                            &format!("a tuple size from 1 to {}", super::limits::MAX_SIZE),
                            &format!("`{k}`"),
                            k.to_string().len(),
                        ));
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
                    if !(1..=super::limits::MAX_SIZE).contains(&s) {
                        return Err(Diagnostic::expected_found(
                            p,
                            &format!("a ring size from 1 to {}", super::limits::MAX_SIZE),
                            &format!("`{s}`"),
                            s.to_string().len(),
                        ));
                    }
                    size = Some(s);
                }
                l.done()?;
                t.rings.push((name, w, rs, size));
            }
            "expect" => {
                let pos = Pos { line, col: toks[0].pos.col };
                l.i += 1;
                let kind = l.ident("`allowed` or `forbidden`")?;
                let allowed = match kind.text.as_str() {
                    "allowed" => true,
                    "forbidden" => false,
                    _ => {
                        return Err(Diagnostic::expected_found(
                            kind.pos,
                            "`allowed` or `forbidden`",
                            &format!("`{}`", kind.text),
                            kind.text.chars().count(),
                        ))
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
                // a body line would have been collected above
                return l.err("a declaration (`libraries`, `thread`, `loc`, `barrier`, `ring`, `expect`) or `T:`");
            }
        }
    }
    if let (Some(b), false) = (cur_body, body_lines.is_empty()) {
        let end = Pos { line: text.lines().count() + 1, col: 1 };
        let stmts = parse_body(&body_lines, end, "the end of the file".into())?;
        super::limits::extend_body(&mut t.bodies[b].1, stmts, &body_lines)?;
    }
    if !seen_test {
        return Err(Diagnostic::new(Pos { line: 1, col: 1 }, "expected `test NAME`, found an empty file"));
    }
    Ok(t)
}

/// The statements that may start a line of a litmus file.
const DECLARATIONS: [&str; 7] = ["test", "libraries", "thread", "loc", "barrier", "ring", "expect"];

/// Words that start a statement of the implementation language but no
/// instruction of the base format.
const LANG_KEYWORDS: [&str; 8] = ["let", "var", "if", "else", "loop", "for", "break", "return"];

enum LineKind {
    /// Empty or a comment.
    Blank,
    /// `T:`, a declaration or a description.
    Statement,
    /// Anything else: a line of a thread body.
    Body,
}

fn line_kind(raw: &str) -> LineKind {
    let trimmed = raw.trim_start();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return LineKind::Blank;
    }
    if trimmed.starts_with('"') {
        return LineKind::Statement;
    }
    let word: String = trimmed.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if DECLARATIONS.contains(&word.as_str()) {
        return LineKind::Statement;
    }
    match lex_line(0, raw, Dialect::Litmus) {
        Ok(toks) if toks.len() == 2 && matches!(toks[0].tok, Tok::Ident(_)) && toks[1].tok == Tok::P(":") => {
            LineKind::Statement
        }
        _ => LineKind::Body,
    }
}

/// Parses a part of a thread body: `lines` with their line numbers, up to `end`
/// (described as `found` when a statement is cut there).
fn parse_body(lines: &[(usize, &str)], end: Pos, found: String) -> R<Vec<Stmt>> {
    let parsed = lang::parse_stmts_lines(lines.iter().copied(), end, found).and_then(|ss| litmus_stmts(ss, false));
    parsed.map_err(|e| base_format_error(lines, &e).unwrap_or(e))
}

/// On a line of the base format (`[R =] [LIB.]Method(ARG, ...)`), the error the
/// base format's parser reports, if it gets at least as far as `e` (and `e` is not
/// about a construct only the implementation language has).
fn base_format_error(lines: &[(usize, &str)], e: &SyntaxError) -> Option<SyntaxError> {
    if e.msg.contains("cannot stand inside an expression") {
        return None;
    }
    let raw = lines.iter().find(|(l, _)| *l == e.line)?.1;
    let toks = lex_line(e.line, raw, Dialect::Litmus).ok()?;
    match toks.first().map(|t| &t.tok) {
        Some(Tok::Ident(w)) if !LANG_KEYWORDS.contains(&w.as_str()) => {}
        _ => return None,
    }
    let mut l = Line::new(&toks, e.line, raw.chars().count() + 1);
    match parse_instr(&mut l) {
        Err(old) if old.col >= e.col => Some(old),
        _ => None,
    }
}

/// The statement forms of a thread body. A call of a method whose name does not
/// start with a capital is parsed as a function application: it is a call here
/// (unless it names an operator function such as `min`), so that an unknown
/// method is reported as such. An expression may stand as a statement only as the
/// value of a block of an `if` on the right of `=` (`r = if c { 1 } else { 2 }`).
fn litmus_stmts(ss: Vec<Stmt>, value_tail: bool) -> R<Vec<Stmt>> {
    let n = ss.len();
    ss.into_iter().enumerate().map(|(i, s)| litmus_stmt(s, value_tail && i + 1 == n)).collect()
}

fn as_call(e: Ex) -> Result<CallEx, Ex> {
    match e {
        Ex::App(n, args) if !lang::OPERATOR_FUNCTIONS.contains(&n.text.as_str()) => {
            Ok(CallEx { lib: None, method: n, args })
        }
        e => Err(e),
    }
}

fn litmus_block(b: Block, value_tail: bool) -> R<Block> {
    Ok(Block { stmts: litmus_stmts(b.stmts, value_tail)?, pos: b.pos })
}

fn litmus_rhs(r: Rhs) -> R<Rhs> {
    Ok(match r {
        Rhs::Expr(e) => match as_call(e) {
            Ok(c) => Rhs::Call(c),
            Err(e) => Rhs::Expr(e),
        },
        Rhs::If(s) => Rhs::If(Box::new(litmus_stmt(*s, true)?)),
        r => r,
    })
}

fn litmus_stmt(s: Stmt, value_ok: bool) -> R<Stmt> {
    Ok(match s {
        Stmt::Value(e) => match as_call(e) {
            Ok(c) => Stmt::Call(c),
            Err(e) if value_ok => Stmt::Value(e),
            Err(e) => {
                return Err(Diagnostic::new(
                    e.start(),
                    "expected a statement (a method call, `let`, `var`, `R = …`, `if`, `loop`, `for` or `break`), \
                     found an expression whose value would be unused",
                ))
            }
        },
        Stmt::Let { name, rhs, mutable } => Stmt::Let { name, rhs: litmus_rhs(rhs)?, mutable },
        Stmt::Assign { name, rhs } => Stmt::Assign { name, rhs: litmus_rhs(rhs)? },
        Stmt::If { cond, then, els, pos } => Stmt::If {
            cond,
            then: litmus_block(then, value_ok)?,
            els: els.map(|b| litmus_block(b, value_ok)).transpose()?,
            pos,
        },
        Stmt::Loop(b, pos) => Stmt::Loop(litmus_block(b, false)?, pos),
        Stmt::For { var, set, body } => Stmt::For { var, set, body: litmus_block(body, false)? },
        s => s,
    })
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
        assert!(matches!(&t.bodies[1].1[1], Stmt::Assign { name, rhs: Rhs::Call(_) } if name.text == "b"));
        assert_eq!(t.locs.len(), 3);
        assert_eq!(t.expects.len(), 2);
        assert_eq!(t.expects[0].text, "a = 1 /\\ T2:b = 0");
    }

    #[test]
    fn errors_point_at_the_token() {
        let e = parse("test X\nthread T1 @ zero\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 13));
        assert!(e.msg.contains("expected a node"), "{}", e.msg);
        let e = parse("thread T1 @ 1\n").unwrap_err();
        assert_eq!((e.line, e.col), (1, 1));
        let e = parse("test X\nT1:\n  Put(x, 1\n").unwrap_err();
        assert_eq!((e.line, e.col), (3, 11));
        let e = parse("test X\nexpect maybe x = 1\n").unwrap_err();
        assert!(e.msg.contains("`allowed` or `forbidden`"));
        let e = parse("test X\n  Write(x, 1)\n").unwrap_err();
        assert!(e.msg.contains("declaration"));
        let e = parse("test X\nloc x @ 1 = $\n").unwrap_err();
        assert_eq!((e.line, e.col), (3 - 1, 13));
    }
}
