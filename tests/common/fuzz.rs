//! The mutator of the fuzz tests (`tests/fuzz_inputs.rs`): a seed file (one of
//! the project's own, `specs/`, or `tests/fuzz/corpus/`) edited by a few random
//! edits at the byte, token or line level, drawn by proptest strategies. The
//! edits aim where Mowgli's readers once broke: deep nesting, long runs of a line,
//! huge numbers, long names, bytes that are not UTF-8, other line endings.

use proptest::prelude::*;

/// A position in a sequence of any length: `index(n)` scales it to `0..n`.
#[derive(Clone, Copy, Debug)]
pub struct Index(pub u64);

impl Index {
    pub fn index(&self, n: usize) -> usize {
        ((n as u128 * self.0 as u128) >> 64) as usize
    }
    /// The position `k` tenths of the way.
    pub fn tenths(k: u64) -> Index {
        Index(u64::MAX / 10 * k)
    }
}

fn ix() -> impl Strategy<Value = Index> {
    any::<u64>().prop_map(Index)
}

/// One edit of a text.
#[derive(Clone, Debug)]
pub enum Edit {
    DeleteToken(Index),
    DupToken(Index, usize),
    SwapTokens(Index, Index),
    /// A token of the language's dictionary inserted before a token.
    InsertToken(Index, Index),
    DeleteLine(Index),
    /// A line repeated (the copies follow it).
    RepeatLine(Index, usize),
    /// An opening (and its closing, if `closed`) around a token, `depth` times.
    Nest(Index, Index, usize, bool),
    /// A number token (or any word) replaced by an extreme number.
    Number(Index, Index),
    /// A word replaced by a long name.
    LongName(Index, usize),
    /// A raw byte inserted (not always UTF-8).
    Byte(Index, u8),
    /// A stretch of another seed's tokens inserted.
    Splice(Index, Index, Index, usize),
    /// Line ends rewritten: `\r\n`, `\r` or none.
    LineEnds(u8),
    /// A non-ASCII character inserted.
    Unicode(Index, Index),
}

/// Openings and closings for [`Edit::Nest`] (brackets of every language, unary
/// operators, blocks, and operator chains: each repetition is a level).
pub const NESTS: [(&str, &str); 16] = [
    ("(", ")"),
    ("[", "]"),
    ("{", "}"),
    ("~", ""),
    ("!", ""),
    ("-", ""),
    ("not ", ""),
    ("if true {\n", "\n}\n"),
    ("loop {\n", "\nbreak\n}\n"),
    ("for n in nodes { ", " }"),
    ("1 + ", ""),
    ("x ; ", ""),
    ("a /\\ ", ""),
    ("[x] ; ", ""),
    ("if ret == bot then { ", " } else { aWT }"),
    ("T1:a = 0 \\/ ", ""),
];

/// Numbers for [`Edit::Number`].
pub const NUMBERS: [&str; 13] = [
    "0",
    "-1",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "99999999999999999999999999",
    "1e20",
    "nan",
    "inf",
    "0x10",
    "007",
];

const UNICODE: [&str; 6] = ["é", "→", "∀", "\u{feff}", "\u{2028}", "𝔸"];

/// The strategy of one edit.
pub fn edit() -> impl Strategy<Value = Edit> {
    let depth = prop_oneof![Just(8usize), Just(40), Just(65), Just(300), Just(20_000)];
    let count = prop_oneof![Just(2usize), Just(10), Just(100), Just(300), Just(3_000)];
    let long = prop_oneof![Just(65usize), Just(1_000), Just(50_000)];
    prop_oneof![
        3 => ix().prop_map(Edit::DeleteToken),
        2 => (ix(), 1usize..4).prop_map(|(i, n)| Edit::DupToken(i, n)),
        2 => (ix(), ix()).prop_map(|(i, j)| Edit::SwapTokens(i, j)),
        3 => (ix(), ix()).prop_map(|(i, j)| Edit::InsertToken(i, j)),
        2 => ix().prop_map(Edit::DeleteLine),
        2 => (ix(), count).prop_map(|(i, n)| Edit::RepeatLine(i, n)),
        2 => (ix(), ix(), depth, any::<bool>()).prop_map(|(i, k, d, c)| Edit::Nest(i, k, d, c)),
        2 => (ix(), ix()).prop_map(|(i, k)| Edit::Number(i, k)),
        1 => (ix(), long).prop_map(|(i, n)| Edit::LongName(i, n)),
        1 => (ix(), any::<u8>()).prop_map(|(i, b)| Edit::Byte(i, b)),
        1 => (ix(), ix(), ix(), 1usize..40).prop_map(|(i, s, f, n)| Edit::Splice(i, s, f, n)),
        1 => (0u8..3).prop_map(Edit::LineEnds),
        1 => (ix(), ix()).prop_map(|(i, k)| Edit::Unicode(i, k)),
    ]
}

/// A case: which seed, and one to three edits.
pub fn case() -> impl Strategy<Value = (Index, Vec<Edit>)> {
    (ix(), proptest::collection::vec(edit(), 1..=3))
}

/// Splits `text` into tokens: words (letters, digits, `_`, any non-ASCII byte),
/// runs of blanks, line ends, and single other bytes.
pub fn tokens(text: &[u8]) -> Vec<Vec<u8>> {
    let class = |b: u8| match b {
        b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | 0x80..=0xff => 0,
        b' ' | b'\t' => 1,
        _ => 2,
    };
    let mut out: Vec<Vec<u8>> = Vec::new();
    for &b in text {
        match out.last_mut() {
            Some(t) if class(b) < 2 && class(t[0]) == class(b) => t.push(b),
            _ => out.push(vec![b]),
        }
    }
    out
}

fn is_word(t: &[u8]) -> bool {
    t.first().is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// `text` with `edits` applied in turn; `dict` gives tokens to insert and
/// `others` the seeds to splice from. Never more than about 4 MB.
pub fn apply(text: &[u8], edits: &[Edit], dict: &[Vec<u8>], others: &[&[u8]]) -> Vec<u8> {
    const MAX: usize = 4 << 20;
    let mut toks = tokens(text);
    for e in edits {
        if toks.is_empty() {
            toks.push(b"\n".to_vec());
        }
        let n = toks.len();
        match e {
            Edit::DeleteToken(i) => {
                toks.remove(i.index(n));
            }
            Edit::DupToken(i, k) => {
                let i = i.index(n);
                let t = toks[i].clone();
                for _ in 0..*k {
                    toks.insert(i, t.clone());
                }
            }
            Edit::SwapTokens(i, j) => toks.swap(i.index(n), j.index(n)),
            Edit::InsertToken(i, j) => {
                if !dict.is_empty() {
                    let t = dict[j.index(dict.len())].clone();
                    toks.insert(i.index(n), t);
                }
            }
            Edit::DeleteLine(i) | Edit::RepeatLine(i, _) => {
                // the line holding token i: from after the previous line end to its own
                let at = i.index(n);
                let start = toks[..at].iter().rposition(|t| t == b"\n").map_or(0, |p| p + 1);
                let end = toks[at..].iter().position(|t| t == b"\n").map_or(n, |p| at + p + 1);
                match e {
                    Edit::DeleteLine(_) => {
                        toks.drain(start..end);
                    }
                    Edit::RepeatLine(_, k) => {
                        let line: Vec<Vec<u8>> = toks[start..end].to_vec();
                        let size: usize = line.iter().map(Vec::len).sum();
                        let k = (*k).min(MAX / size.max(1));
                        let copies: Vec<Vec<u8>> = (0..k).flat_map(|_| line.iter().cloned()).collect();
                        toks.splice(end..end, copies);
                    }
                    _ => {}
                }
            }
            Edit::Nest(i, k, depth, closed) => {
                let (open, close) = NESTS[k.index(NESTS.len())];
                let at = i.index(n);
                let opens: Vec<Vec<u8>> = (0..*depth).map(|_| open.as_bytes().to_vec()).collect();
                if *closed && !close.is_empty() {
                    let closes: Vec<Vec<u8>> = (0..*depth).map(|_| close.as_bytes().to_vec()).collect();
                    toks.splice(at + 1..at + 1, closes);
                }
                toks.splice(at..at, opens);
            }
            Edit::Number(i, k) => {
                let at = i.index(n);
                // the first word from token i on (a number, preferably)
                let found = (at..n).chain(0..at).find(|&j| toks[j].first().is_some_and(u8::is_ascii_digit));
                let j = found.or_else(|| (0..n).find(|&j| is_word(&toks[j]))).unwrap_or(at);
                toks[j] = NUMBERS[k.index(NUMBERS.len())].as_bytes().to_vec();
            }
            Edit::LongName(i, len) => {
                let at = i.index(n);
                if let Some(j) = (at..n).chain(0..at).find(|&j| is_word(&toks[j])) {
                    let old = toks[j].clone();
                    toks[j] = vec![b'a'; *len];
                    // the same name once more, misspelt (a "did you mean" for it)
                    if let Some(k) = (j + 1..n).find(|&k| toks[k] == old) {
                        toks[k] = vec![b'a'; len.saturating_sub(3).max(1)];
                    }
                }
            }
            Edit::Byte(i, b) => toks.insert(i.index(n), vec![*b]),
            Edit::Splice(i, s, from, len) => {
                if !others.is_empty() {
                    let src = tokens(others[s.index(others.len())]);
                    if !src.is_empty() {
                        let f = from.index(src.len());
                        let part: Vec<Vec<u8>> = src[f..(f + len).min(src.len())].to_vec();
                        toks.splice(i.index(n)..i.index(n), part);
                    }
                }
            }
            Edit::LineEnds(k) => {
                let to: &[u8] = match k {
                    0 => b"\r\n",
                    1 => b"\r",
                    _ => b" ",
                };
                for t in toks.iter_mut().filter(|t| t.as_slice() == b"\n") {
                    *t = to.to_vec();
                }
            }
            Edit::Unicode(i, k) => toks.insert(i.index(n), UNICODE[k.index(UNICODE.len())].as_bytes().to_vec()),
        }
        if toks.iter().map(Vec::len).sum::<usize>() > MAX {
            break;
        }
    }
    let mut out: Vec<u8> = toks.concat();
    out.truncate(MAX);
    out
}

/// The distinct tokens of `seeds` that are not blanks (a language's dictionary).
pub fn dictionary(seeds: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut d: Vec<Vec<u8>> = seeds.iter().flat_map(|s| tokens(s)).filter(|t| !t[0].is_ascii_whitespace()).collect();
    d.sort();
    d.dedup();
    d
}

/// One edit of a command line, argument by argument.
#[derive(Clone, Debug)]
pub enum ArgEdit {
    Delete(Index),
    Dup(Index),
    Swap(Index, Index),
    /// An argument of the dictionary (options, values) inserted.
    Insert(Index, Index),
    /// An argument replaced by an extreme value.
    Value(Index, Index),
    /// An edit of the text of one argument.
    Text(Index, Edit),
}

/// Extreme values for [`ArgEdit::Value`] (besides [`NUMBERS`]). A folder stands
/// for a path: `specs` (every test and file of the project's specifications),
/// not `.`, whose tests include `tests/fuzz/crashers` (each a run to a limit of
/// a few seconds: together a long run the user asked for, not a hang).
pub const VALUES: [&str; 10] =
    ["", "-", "--", "=", "é→", "/dev/null", "/proc/mowgli-none/x", "specs", "@TMP@", "@TMP@/x/y"];

/// The strategy of a command line's edits (one or two).
pub fn arg_case() -> impl Strategy<Value = (Index, Vec<ArgEdit>)> {
    let one = prop_oneof![
        3 => ix().prop_map(ArgEdit::Delete),
        2 => ix().prop_map(ArgEdit::Dup),
        2 => (ix(), ix()).prop_map(|(i, j)| ArgEdit::Swap(i, j)),
        4 => (ix(), ix()).prop_map(|(i, j)| ArgEdit::Insert(i, j)),
        5 => (ix(), ix()).prop_map(|(i, k)| ArgEdit::Value(i, k)),
        1 => (ix(), edit()).prop_map(|(i, e)| ArgEdit::Text(i, e)),
    ];
    (ix(), proptest::collection::vec(one, 1..=2))
}

/// `args` with `edits` applied; `dict` gives arguments to insert.
pub fn apply_args(mut args: Vec<String>, edits: &[ArgEdit], dict: &[Vec<u8>]) -> Vec<String> {
    for e in edits {
        let n = args.len();
        match e {
            ArgEdit::Delete(i) if n > 0 => {
                args.remove(i.index(n));
            }
            ArgEdit::Dup(i) if n > 0 => {
                let i = i.index(n);
                args.insert(i, args[i].clone());
            }
            ArgEdit::Swap(i, j) if n > 0 => args.swap(i.index(n), j.index(n)),
            ArgEdit::Insert(i, j) if !dict.is_empty() => {
                let a = String::from_utf8_lossy(&dict[j.index(dict.len())]).into_owned();
                args.insert(i.index(n + 1), a);
            }
            ArgEdit::Value(i, k) if n > 0 => {
                let all: Vec<&str> = NUMBERS.iter().chain(VALUES.iter()).copied().collect();
                args[i.index(n)] = all[k.index(all.len())].to_string();
            }
            ArgEdit::Text(i, e) if n > 0 => {
                let i = i.index(n);
                args[i] =
                    String::from_utf8_lossy(&apply(args[i].as_bytes(), std::slice::from_ref(e), &[], &[])).into_owned();
            }
            _ => {}
        }
    }
    args
}
