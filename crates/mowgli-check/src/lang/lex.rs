//! Tokens of one line of a litmus file, with 1-based character columns.

use mowgli_diag::{Diagnostic, Pos};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Int(i64),
    Str(String),
    /// Punctuation: `@ = , : ( ) { } [ ] . _ ~` and the connectives `/\` `\/`.
    Punct(&'static str),
}

impl Tok {
    /// The token's length in characters, as written.
    pub fn width(&self) -> usize {
        match self {
            Tok::Ident(s) => s.chars().count(),
            Tok::Int(i) => i.to_string().len(),
            Tok::Str(s) => s.chars().count() + 2,
            Tok::Punct(p) => p.chars().count(),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Str(_) => "a string".into(),
            Tok::Punct(p) => format!("`{p}`"),
        }
    }
}

/// A name as written, with where it starts (shared by the litmus and
/// implementation parsers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub col: usize,
}

/// Splits line `line_no` (comment already allowed) into tokens.
pub fn lex_line(line_no: usize, line: &str) -> Result<Vec<Token>, Diagnostic> {
    let err = |col: usize, msg: String| Diagnostic::new(Pos { line: line_no, col }, msg);
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c == '#' {
            break;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '"' {
            let mut j = i + 1;
            let mut s = String::new();
            while j < chars.len() && chars[j] != '"' {
                s.push(chars[j]);
                j += 1;
            }
            if j == chars.len() {
                return Err(err(col, "expected a closing `\"` for this description".into()));
            }
            out.push(Token { tok: Tok::Str(s), col });
            i = j + 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            let text: String = chars[i..j].iter().collect();
            let v = text
                .parse::<i64>()
                .map_err(|_| err(col, format!("integer `{text}` is out of range")).with_span(text.chars().count()))?;
            out.push(Token { tok: Tok::Int(v), col });
            i = j;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let mut j = i + 1;
            while j < chars.len() && (chars[j].is_ascii_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            let text: String = chars[i..j].iter().collect();
            if text == "_" {
                out.push(Token { tok: Tok::Punct("_"), col });
            } else {
                out.push(Token { tok: Tok::Ident(text), col });
            }
            i = j;
            continue;
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        if two == "/\\" || two == "\\/" {
            out.push(Token { tok: Tok::Punct(if two == "/\\" { "/\\" } else { "\\/" }), col });
            i += 2;
            continue;
        }
        let p = match c {
            '@' => "@",
            '=' => "=",
            ',' => ",",
            ':' => ":",
            '(' => "(",
            ')' => ")",
            '{' => "{",
            '}' => "}",
            '[' => "[",
            ']' => "]",
            '~' => "~",
            '.' => ".",
            _ => return Err(err(col, format!("unexpected character `{c}`"))),
        };
        out.push(Token { tok: Tok::Punct(p), col });
        i += 1;
    }
    Ok(out)
}
