//! herd7's x86 tokens: OCaml comments blanked, words, numbers, punctuation.

/// `text` with OCaml comments `(* … *)` (nested) replaced by blanks, new lines
/// kept, so positions are unchanged. A `"…"` string is no comment.
pub(super) fn blank_comments(text: &str) -> Result<Vec<char>, (usize, String)> {
    let mut cs: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut in_str = false;
    while i < cs.len() {
        if in_str {
            if cs[i] == '"' || cs[i] == '\n' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if cs[i] == '"' {
            in_str = true;
            i += 1;
            continue;
        }
        if cs[i] == '(' && cs.get(i + 1) == Some(&'*') {
            let start = i;
            let mut depth = 0;
            loop {
                if i >= cs.len() {
                    return Err((start, "this comment `(*` is not closed by `*)`".into()));
                }
                if cs[i] == '(' && cs.get(i + 1) == Some(&'*') {
                    depth += 1;
                    cs[i] = ' ';
                    cs[i + 1] = ' ';
                    i += 2;
                } else if cs[i] == '*' && cs.get(i + 1) == Some(&')') {
                    depth -= 1;
                    cs[i] = ' ';
                    cs[i + 1] = ' ';
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if cs[i] != '\n' {
                        cs[i] = ' ';
                    }
                    i += 1;
                }
            }
            continue;
        }
        i += 1;
    }
    Ok(cs)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Word(String),
    Int(i64),
    /// `$n`: an immediate.
    Imm(i64),
    /// `%name`: an AT&T register.
    Reg(String),
    Punct(&'static str),
}

impl Tok {
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Imm(i) => format!("`${i}`"),
            Tok::Reg(r) => format!("`%{r}`"),
            Tok::Punct(p) => format!("`{p}`"),
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    /// Index of its first character in the file.
    pub(super) at: usize,
}

pub(super) const PUNCT: [&str; 20] =
    ["<<", "/\\", "\\/", "=>", "==", "!=", "(", ")", "[", "]", "{", "}", ",", ":", ";", "|", "=", "~", "*", "+"];

pub(super) fn is_word_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

pub(super) fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// The number starting at `cs[i]` (decimal, or hexadecimal `0x…`, optionally
/// negative) and the index after it.
pub(super) fn number(cs: &[char], i: usize) -> Option<(Result<i64, String>, usize)> {
    let neg = cs.get(i) == Some(&'-');
    let s = if neg { i + 1 } else { i };
    if !cs.get(s).is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    let hex = cs.get(s) == Some(&'0') && matches!(cs.get(s + 1), Some('x' | 'X'));
    let (digits_from, radix) = if hex { (s + 2, 16) } else { (s, 10) };
    let mut j = digits_from;
    while j < cs.len() && cs[j].is_digit(radix) {
        j += 1;
    }
    let text: String = cs[digits_from..j].iter().collect();
    let v = i64::from_str_radix(&text, radix).map(|v| if neg { -v } else { v });
    let shown: String = cs[i..j].iter().collect();
    Some((v.map_err(|_| format!("the number `{shown}` is out of range")), j))
}

pub(super) fn lex(cs: &[char], from: usize) -> Result<Vec<Token>, (usize, String)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if let Some((v, j)) = number(cs, i) {
            out.push(Token { tok: Tok::Int(v.map_err(|m| (i, m))?), at: i });
            i = j;
            continue;
        }
        if c == '$' {
            match number(cs, i + 1) {
                Some((v, j)) => {
                    out.push(Token { tok: Tok::Imm(v.map_err(|m| (i, m))?), at: i });
                    i = j;
                    continue;
                }
                None => return Err((i, "expected a number after `$`".into())),
            }
        }
        if c == '%' && cs.get(i + 1).is_some_and(|&d| is_word_start(d)) {
            let mut j = i + 1;
            while j < cs.len() && is_word_char(cs[j]) {
                j += 1;
            }
            out.push(Token { tok: Tok::Reg(cs[i + 1..j].iter().collect()), at: i });
            i = j;
            continue;
        }
        if is_word_start(c) {
            let mut j = i;
            while j < cs.len() && is_word_char(cs[j]) {
                j += 1;
            }
            out.push(Token { tok: Tok::Word(cs[i..j].iter().collect()), at: i });
            i = j;
            continue;
        }
        let two: String = cs[i..(i + 2).min(cs.len())].iter().collect();
        if let Some(p) = PUNCT.iter().find(|p| p.len() == 2 && two == **p) {
            out.push(Token { tok: Tok::Punct(p), at: i });
            i += 2;
            continue;
        }
        if let Some(p) = PUNCT.iter().find(|p| p.len() == 1 && p.starts_with(c)) {
            out.push(Token { tok: Tok::Punct(p), at: i });
            i += 1;
            continue;
        }
        return Err((i, format!("unexpected character `{c}`")));
    }
    Ok(out)
}
