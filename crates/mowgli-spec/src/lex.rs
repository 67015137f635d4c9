//! Tokens of the library language: identifiers (letters, digits, `_`),
//! integers, strings, and punctuation; `#` starts a comment.

use mowgli_diag::{Diagnostic, Pos};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum T {
    Ident(String),
    Int(i64),
    Str(String),
    /// Punctuation: `( ) [ ] { } , : ; | & \ = == != -> . + * ^-1 @ ~`.
    P(&'static str),
    Eof,
}

#[derive(Clone, Debug)]
pub struct Tok {
    pub t: T,
    pub pos: Pos,
    /// Length in characters.
    pub len: usize,
}

impl Tok {
    /// How the token is shown in `found …`.
    pub fn shown(&self) -> String {
        match &self.t {
            T::Ident(s) => format!("`{s}`"),
            T::Int(i) => format!("`{i}`"),
            T::Str(s) => format!("\"{s}\""),
            T::P(p) => format!("`{p}`"),
            T::Eof => "the end of the file".into(),
        }
    }
}

const PUNCT: [&str; 23] = [
    "^-1", "==", "!=", "->", "(", ")", "[", "]", "{", "}", ",", ":", ";", "|", "&", "\\", "=", ".", "+", "*", "@", "~",
    "-",
];

pub fn lex(text: &str) -> Result<Vec<Tok>, Diagnostic> {
    let mut out = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let pos = Pos { line: ln + 1, col: i + 1 };
            if c == '#' {
                break;
            }
            if c.is_whitespace() {
                i += 1;
                continue;
            }
            if c.is_ascii_alphabetic() || c == '_' {
                let s = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                out.push(Tok { t: T::Ident(chars[s..i].iter().collect()), pos, len: i - s });
                continue;
            }
            if c.is_ascii_digit() {
                let s = i;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                let txt: String = chars[s..i].iter().collect();
                let v = txt
                    .parse::<i64>()
                    .map_err(|_| Diagnostic::new(pos, format!("integer `{txt}` is too large")).with_span(i - s))?;
                out.push(Tok { t: T::Int(v), pos, len: i - s });
                continue;
            }
            if c == '"' {
                let s = i;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += 1;
                }
                if i >= chars.len() {
                    return Err(Diagnostic::new(pos, "unterminated string: expected `\"`").with_span(i - s));
                }
                i += 1;
                out.push(Tok { t: T::Str(chars[s + 1..i - 1].iter().collect()), pos, len: i - s });
                continue;
            }
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            match PUNCT.iter().find(|p| rest.starts_with(**p)) {
                Some(p) => {
                    let n = p.chars().count();
                    out.push(Tok { t: T::P(p), pos, len: n });
                    i += n;
                }
                None => {
                    return Err(Diagnostic::new(pos, format!("unexpected character `{c}`"))
                        .with_label("not part of the language"));
                }
            }
        }
    }
    let last = text.lines().count().max(1);
    let col = text.lines().last().map(|l| l.chars().count() + 1).unwrap_or(1);
    out.push(Tok { t: T::Eof, pos: Pos { line: last, col }, len: 1 });
    Ok(out)
}
