//! The one lexer of Mowgli's own languages: litmus statement lines and statement
//! bodies (litmus thread bodies and `.impl` files) share it. Columns are 1-based
//! characters; `#` starts a comment to the end of the line.
//!
//! The two dialects differ in a few tokens only:
//! - [`Dialect::Litmus`] (a litmus file's statement lines: `loc x @ 1`, `expect …`):
//!   strings `"…"` (descriptions), negative integers `-1` as one token, and the
//!   connectives `/\` `\/` and `~`;
//! - [`Dialect::Statements`] (bodies): the operators `== != <= >= && || -> + - * / %
//!   ! | ? ;`, with `-` a token of its own (so `a-1` is a subtraction).

use mowgli_diag::{Diagnostic, Pos};

/// A name as written, with where it starts (shared by the litmus and
/// implementation parsers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Int(i64),
    /// A string (litmus descriptions).
    Str(String),
    /// Punctuation and operators.
    P(&'static str),
    /// The end of a line (statement bodies only, from [`lex_lines`]).
    Newline,
}

impl Tok {
    /// The token's length in characters, as written.
    pub fn width(&self) -> usize {
        match self {
            Tok::Ident(s) => s.chars().count(),
            Tok::Int(i) => i.to_string().len(),
            Tok::Str(s) => s.chars().count() + 2,
            Tok::P(p) => p.chars().count(),
            Tok::Newline => 1,
        }
    }

    /// The token as an error message names it.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Str(_) => "a string".into(),
            Tok::P(p) => format!("`{p}`"),
            Tok::Newline => "the end of the line".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub pos: Pos,
}

/// Which language a line is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Litmus,
    Statements,
}

const LITMUS_PUNCT: [&str; 14] = ["/\\", "\\/", "@", "=", ",", ":", "(", ")", "{", "}", "[", "]", "~", "."];

const STATEMENT_PUNCT: [&str; 30] = [
    "==", "!=", "<=", ">=", "&&", "||", "->", "(", ")", "{", "}", "[", "]", ",", ";", "=", "<", ">", "+", "-", "*",
    "/", "%", "!", "|", "@", ".", ":", "_", "?",
];

/// Splits line `line_no` into tokens.
pub fn lex_line(line_no: usize, line: &str, dialect: Dialect) -> Result<Vec<Token>, Diagnostic> {
    let punct: &[&'static str] = match dialect {
        Dialect::Litmus => &LITMUS_PUNCT,
        Dialect::Statements => &STATEMENT_PUNCT,
    };
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line: line_no, col: i + 1 };
        if c == '#' {
            break;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '"' && dialect == Dialect::Litmus {
            let mut j = i + 1;
            let mut s = String::new();
            while j < chars.len() && chars[j] != '"' {
                s.push(chars[j]);
                j += 1;
            }
            if j == chars.len() {
                return Err(Diagnostic::new(pos, "expected a closing `\"` for this description"));
            }
            out.push(Token { tok: Tok::Str(s), pos });
            i = j + 1;
            continue;
        }
        let negative = dialect == Dialect::Litmus && c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit());
        if c.is_ascii_digit() || negative {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            let text: String = chars[i..j].iter().collect();
            let v = text.parse::<i64>().map_err(|_| {
                Diagnostic::new(pos, format!("integer `{text}` is out of range")).with_span(text.chars().count())
            })?;
            out.push(Token { tok: Tok::Int(v), pos });
            i = j;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let mut j = i + 1;
            while j < chars.len() && (chars[j].is_ascii_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            let text: String = chars[i..j].iter().collect();
            // `_` alone is punctuation (a fresh work identifier, a wildcard)
            out.push(Token { tok: if text == "_" { Tok::P("_") } else { Tok::Ident(text) }, pos });
            i = j;
            continue;
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        if let Some(p) = punct.iter().find(|p| p.chars().count() == 2 && **p == two) {
            out.push(Token { tok: Tok::P(p), pos });
            i += 2;
            continue;
        }
        match punct.iter().find(|p| p.chars().count() == 1 && p.starts_with(c)) {
            Some(p) => out.push(Token { tok: Tok::P(p), pos }),
            None => return Err(Diagnostic::new(pos, format!("unexpected character `{c}`"))),
        }
        i += 1;
    }
    Ok(out)
}

/// Lexes statement lines given with their (1-based) line numbers (a litmus thread
/// body is lexed where it stands in its file); each line ends with a
/// [`Tok::Newline`].
pub fn lex_lines<'t>(lines: impl IntoIterator<Item = (usize, &'t str)>) -> Result<Vec<Token>, Diagnostic> {
    let mut out = Vec::new();
    for (line_no, line) in lines {
        out.extend(lex_line(line_no, line, Dialect::Statements)?);
        out.push(Token { tok: Tok::Newline, pos: Pos { line: line_no, col: line.chars().count() + 1 } });
    }
    Ok(out)
}

/// Lexes a whole text of statement lines.
pub fn lex(text: &str) -> Result<Vec<Token>, Diagnostic> {
    lex_lines(text.lines().enumerate().map(|(i, l)| (i + 1, l)))
}
