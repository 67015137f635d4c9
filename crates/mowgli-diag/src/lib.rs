//! Diagnostics of Mowgli's input files: one type for every front end (litmus
//! files, herd7 x86 files, implementation files and their `concretise` lines,
//! stamp-order files, names given on the command line) and one renderer.
//!
//! A diagnostic renders as
//!
//! ```text
//! t.litmus:9:3: unknown method `Wrte`: no library of rdmatso has it (methods: …)
//!    ,-[ t.litmus:9:3 ]
//!    |
//!  9 |   Wrte(y, 1)
//!    |   ^^|^
//!    |     `--- unknown method
//! ---'
//! help: did you mean `Write`?
//! ```
//!
//! The first line, `file:line:column: message`, is the machine-readable part that
//! scripts grep; it and the `help:` line are written here, the frame with the
//! source line and the caret under the span by [`ariadne`]. Output is plain text
//! (no colours), on a terminal and in a pipe alike.

use std::fmt;
use std::ops::{Deref, DerefMut};

use ariadne::{CharSet, Config, IndexType, Label, Report, ReportKind, Source};
use serde::ser::SerializeStruct;

/// A position in a file: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

/// An input that cannot be read, is malformed or is ill-typed.
///
/// Parsers build it with a position and a message; the boundary that knows the
/// file ([`Diagnostic::in_file`]) adds the file name and the offending source line.
/// `line == 0` means the whole file (e.g. it cannot be read). The fields are those
/// of [`Data`] (`d.line`, `d.msg`, …); they are boxed so that a `Result` carrying
/// a diagnostic stays one pointer wide on its error side.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Diagnostic(Box<Data>);

/// The contents of a [`Diagnostic`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Data {
    pub file: String,
    pub line: usize,
    pub col: usize,
    /// Characters under the caret (at least one is shown).
    pub span_len: usize,
    pub msg: String,
    /// What the parser expected at this position, one alternative per entry
    /// (e.g. `` `,` `` and `` `)` ``).
    pub expected: Vec<String>,
    /// A short text under the caret; by default the expected tokens, if any.
    pub label: Option<String>,
    /// A suggestion, e.g. ``did you mean `Write`?``.
    pub help: Option<String>,
    /// The text of line `line`, once the file is known.
    pub source: Option<String>,
    /// Not a malformed input: a limit of the tool (a value domain, an unfolding)
    /// stopped the work on it. A run with such a diagnostic is inconclusive
    /// (exit 3), not an error (exit 2).
    pub limit: bool,
}

impl Deref for Diagnostic {
    type Target = Data;
    fn deref(&self) -> &Data {
        &self.0
    }
}

impl DerefMut for Diagnostic {
    fn deref_mut(&mut self) -> &mut Data {
        &mut self.0
    }
}

impl Diagnostic {
    /// An error at `pos`.
    pub fn new(pos: Pos, msg: impl Into<String>) -> Diagnostic {
        Diagnostic(Box::new(Data { line: pos.line, col: pos.col, span_len: 1, msg: msg.into(), ..Default::default() }))
    }

    /// A limit of the tool reached at `pos` (see [`Data::limit`]).
    pub fn limit(pos: Pos, msg: impl Into<String>) -> Diagnostic {
        let mut d = Diagnostic::new(pos, msg);
        d.limit = true;
        d
    }

    /// An error about a whole file (`file:0:0: message`), e.g. one that cannot be read.
    pub fn whole_file(file: impl Into<String>, msg: impl Into<String>) -> Diagnostic {
        Diagnostic(Box::new(Data { file: file.into(), msg: msg.into(), ..Default::default() }))
    }

    /// The same diagnostic, `shift` columns further right (for a part of a line
    /// that was read on its own).
    pub fn shifted(mut self, shift: usize) -> Diagnostic {
        self.col += shift;
        self
    }

    /// `expected WHAT, found FOUND` at `pos`, over `found_len` characters. The
    /// alternatives of `what` become [`Diagnostic::expected`]; when `found` is an
    /// identifier close to a keyword of `what` (`` `allowed` ``), the help suggests it.
    pub fn expected_found(pos: Pos, what: &str, found: &str, found_len: usize) -> Diagnostic {
        let mut d = Diagnostic::new(pos, format!("expected {what}, found {found}"));
        d.expected = alternatives(what);
        d.span_len = found_len.max(1);
        if let Some(word) = found.strip_prefix('`').and_then(|f| f.strip_suffix('`')) {
            if is_identifier(word) {
                let keywords = quoted_words(what);
                d.help = did_you_mean(word, keywords.iter().map(String::as_str));
            }
        }
        d
    }

    /// An unknown name `name` at `pos`: the span covers the name (labelled
    /// "unknown"), and the help suggests the closest of `known`, if one is close.
    pub fn unknown<'a>(
        pos: Pos,
        name: &str,
        msg: impl Into<String>,
        known: impl IntoIterator<Item = &'a str>,
    ) -> Diagnostic {
        let mut d = Diagnostic::new(pos, msg);
        d.span_len = name.chars().count().max(1);
        d.label = Some("unknown".into());
        d.help = did_you_mean(name, known);
        d
    }

    /// An error about the value `value` of option `option` on the command line
    /// `args` (the program's name first): the command line is the source
    /// (`<command line>:1:COLUMN: message`), shown with a caret under the value
    /// (also as one item of a comma-separated list, `--libs sv,rdmatos`).
    pub fn command_line(args: &[String], option: &str, value: &str, msg: impl Into<String>) -> Diagnostic {
        let mut words: Vec<&str> = args.iter().map(String::as_str).collect();
        if let Some(w) = words.first_mut() {
            *w = "mowgli";
        }
        let mut col = 1;
        let mut at = None;
        // the column of `value` as an item of `list` (starting at column `start`)
        let item = |list: &str, start: usize| {
            let mut c = start;
            for part in list.split(',') {
                if part == value {
                    return Some(c);
                }
                c += part.chars().count() + 1;
            }
            None
        };
        let prefix = format!("{option}=");
        for (i, w) in words.iter().enumerate() {
            let q = usize::from(needs_quotes(w));
            if i > 0 && words[i - 1] == option {
                at = item(w, col + q);
            } else if let Some(list) = w.strip_prefix(&prefix) {
                at = item(list, col + q + prefix.chars().count());
            }
            if at.is_some() {
                break;
            }
            col += shown_word(w).chars().count() + 1;
        }
        let line = words.iter().map(|w| shown_word(w)).collect::<Vec<_>>().join(" ");
        let (col, len) = match at {
            Some(c) => (c, value.chars().count()),
            None => (1, line.chars().count()),
        };
        Diagnostic::new(Pos { line: 1, col }, msg).with_span(len).in_file("<command line>", &line)
    }

    /// An error about the word `word` of the command line `args` (an option or a
    /// value, also as `OPTION=VALUE`), shown like [`Diagnostic::command_line`]:
    /// under the first word that is `word` (or starts with `word=`), else under
    /// the whole command line.
    pub fn command_line_word(args: &[String], word: &str, msg: impl Into<String>) -> Diagnostic {
        let words: Vec<&str> =
            args.iter().enumerate().map(|(i, w)| if i == 0 { "mowgli" } else { w.as_str() }).collect();
        let line = words.iter().map(|w| shown_word(w)).collect::<Vec<_>>().join(" ");
        let mut col = 1;
        let mut at = None;
        for (i, w) in words.iter().enumerate() {
            let shown = shown_word(w).chars().count();
            if i > 0 {
                let q = usize::from(needs_quotes(w));
                // the word itself, `word=VALUE`, or `OPTION=word`
                let at_value = w.strip_suffix(word).filter(|o| !word.is_empty() && o.ends_with('=') && o.len() > 1);
                if *w == word {
                    // (quoted when empty or blank: the span covers the quotes)
                    at = Some((col, shown));
                } else if !word.is_empty() && w.strip_prefix(word).is_some_and(|r| r.starts_with('=')) {
                    at = Some((col + q, word.chars().count()));
                } else if let Some(o) = at_value {
                    at = Some((col + q + o.chars().count(), word.chars().count()));
                }
                if at.is_some() {
                    break;
                }
            }
            col += shown + 1;
        }
        let (col, len) = at.unwrap_or((1, line.chars().count()));
        Diagnostic::new(Pos { line: 1, col }, msg).with_span(len).in_file("<command line>", &line)
    }

    /// An error about `option VALUE` (or `option=VALUE`) of this process's
    /// command line, shown there (see [`Diagnostic::command_line`]).
    pub fn on_option(option: &str, value: &str, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::command_line(&process_args(), option, value, msg)
    }

    /// An error about `word` of this process's command line, shown there (see
    /// [`Diagnostic::command_line_word`]).
    pub fn on_word(word: &str, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::command_line_word(&process_args(), word, msg)
    }

    /// An output `path` that cannot be written (`msg`: why): shown at the word of
    /// this process's command line naming it or a folder holding it (an option's
    /// value, `--out DIR`), else under the whole command line.
    pub fn output(path: &std::path::Path, msg: impl std::fmt::Display) -> Diagnostic {
        let args = process_args();
        let p = path.display().to_string();
        let holds = |a: &&String| {
            let a = a.rsplit_once('=').map_or(a.as_str(), |(_, v)| v).trim_end_matches('/');
            !a.is_empty() && (p == a || p.starts_with(&format!("{a}/")))
        };
        let word = args.iter().skip(1).filter(holds).max_by_key(|a| a.len()).cloned().unwrap_or_default();
        let word = word.rsplit_once('=').map_or(word.as_str(), |(_, v)| v).to_string();
        Diagnostic::command_line_word(&args, &word, format!("{p}: {msg}"))
    }

    /// This error about a whole file (it does not exist, cannot be read) at the
    /// word of this process's command line naming the file, if one does (the file
    /// has no line to show).
    pub fn on_command_line(self) -> Diagnostic {
        let args = process_args();
        let file = self.file.clone();
        let named = |a: &String| *a == file || a.rsplit_once('=').is_some_and(|(_, v)| v == file);
        if self.line != 0 || file.is_empty() || !args.iter().skip(1).any(named) {
            return self;
        }
        Diagnostic::command_line_word(&args, &file, format!("{file}: {}", self.msg))
    }

    pub fn pos(&self) -> Pos {
        Pos { line: self.line, col: self.col }
    }

    /// The span covers `len` characters.
    pub fn with_span(mut self, len: usize) -> Diagnostic {
        self.span_len = len.max(1);
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Adds ``did you mean `X`?`` when a name of `known` is close to `name`.
    pub fn suggesting<'a>(mut self, name: &str, known: impl IntoIterator<Item = &'a str>) -> Diagnostic {
        if let Some(h) = did_you_mean(name, known) {
            self.help = Some(h);
        }
        self
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    /// The diagnostic in file `file` whose text is `text`: the position is moved
    /// into the file's bounds (a position past the last line, "the end of the
    /// file", becomes the end of the last line; a column past the end of its line,
    /// the end of the line) and the offending line is kept for rendering.
    pub fn in_file(mut self, file: &str, text: &str) -> Diagnostic {
        self.file = file.to_string();
        if self.line == 0 {
            return self;
        }
        let lines: Vec<&str> = text.lines().collect();
        if self.line > lines.len() {
            self.line = lines.len().max(1);
            self.col = usize::MAX;
        }
        // a carriage return ending the line (a lone one: `lines` keeps it) is no
        // character of it
        let src = lines.get(self.line - 1).copied().unwrap_or("").trim_end_matches('\r');
        let len = src.chars().count();
        self.col = self.col.clamp(1, len + 1);
        self.span_len = self.span_len.clamp(1, (len + 1 - (self.col - 1)).max(1));
        self.source = Some(src.to_string());
        self
    }

    /// The first line: `file:line:column: message`.
    pub fn headline(&self) -> String {
        format!("{}:{}:{}: {}", self.file, self.line, self.col, self.msg)
    }

    /// The text under the caret.
    fn label_text(&self) -> String {
        match (&self.label, self.expected.is_empty()) {
            (Some(l), _) => l.clone(),
            (None, false) => format!("expected {}", join_or(&self.expected)),
            (None, true) => "here".into(),
        }
    }

    /// The whole diagnostic: the first line, the source line with a caret under
    /// the span (when the file's text is known), and the help.
    pub fn render(&self) -> String {
        let mut out = self.headline();
        if let Some(src) = self.source.as_ref().filter(|_| self.line >= 1) {
            out.push('\n');
            out += &self.frame(src);
        }
        if let Some(h) = &self.help {
            out += &format!("\nhelp: {h}");
        }
        out
    }

    /// The source line and the caret, drawn by ariadne. The line is given to it
    /// at its place (after `line - 1` empty lines) so that it shows its number.
    fn frame(&self, src: &str) -> String {
        // ariadne also breaks lines at `\r` and other vertical space, the lexers
        // (`str::lines`) do not: such characters are drawn as spaces
        let src: String = src
            .chars()
            .map(|c| if matches!(c, '\r' | '\x0b' | '\x0c' | '\u{85}' | '\u{2028}' | '\u{2029}') { ' ' } else { c })
            .collect();
        let text = format!("{}{}\n", "\n".repeat(self.line - 1), src);
        let start = (self.line - 1) + (self.col - 1);
        let span = start..start + self.span_len.max(1);
        let id = self.file.as_str();
        let config = Config::default()
            .with_color(false)
            .with_char_set(CharSet::Ascii)
            .with_index_type(IndexType::Char)
            .with_compact(false);
        // the report's own header ("Error: ") is dropped: the first line is ours
        let report = Report::build(ReportKind::Error, (id, span.clone()))
            .with_config(config)
            .with_message("")
            .with_label(Label::new((id, span)).with_message(self.label_text()))
            .finish();
        let mut buf = Vec::new();
        if report.write((id, Source::from(text)), &mut buf).is_err() {
            return String::new();
        }
        let drawn = String::from_utf8_lossy(&buf);
        let lines: Vec<&str> = drawn.lines().skip(1).map(str::trim_end).filter(|l| !l.is_empty()).collect();
        lines.join("\n")
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostic {}

/// In JSON: `file`, `line`, `column`, `message`, `expected`, `help` (`null` when none).
impl serde::Serialize for Diagnostic {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Diagnostic", 6)?;
        st.serialize_field("file", &self.file)?;
        st.serialize_field("line", &self.line)?;
        st.serialize_field("column", &self.col)?;
        st.serialize_field("message", &self.msg)?;
        st.serialize_field("expected", &self.expected)?;
        st.serialize_field("help", &self.help)?;
        st.end()
    }
}

/// How deeply the parsers let constructs nest: brackets, blocks, `if`/`loop`/`for`
/// bodies, unary operators and chains of binary operators (each operator of a
/// chain is a level: the tree it builds is that deep). The passes after parsing
/// (lowering, evaluation, printing) recurse over the tree, so this bound keeps
/// them within a thread's stack too. Past it, the parser reports
/// [`Diagnostic::too_deep`] where the limit is exceeded.
pub const MAX_NESTING: usize = 64;

impl Diagnostic {
    /// The nesting limit [`MAX_NESTING`] exceeded at `pos`.
    pub fn too_deep(pos: Pos) -> Diagnostic {
        Diagnostic::new(
            pos,
            format!("nested too deeply: more than {MAX_NESTING} levels of brackets, blocks or operators"),
        )
        .with_label("too deep")
        .with_help("split the construct, e.g. with `let` bindings")
    }

    /// A size limit of the input language exceeded at `pos` (`what`: e.g. "statements
    /// in one thread", `max`: the limit).
    pub fn too_many(pos: Pos, what: &str, max: usize) -> Diagnostic {
        Diagnostic::new(pos, format!("too many {what}: at most {max}")).with_label("over the limit")
    }
}

/// The text of the file at `path`, named `file` in diagnostics: unreadable files
/// give a whole-file diagnostic (`file:0:0: cannot read: …`), and text that is not
/// UTF-8 one at the first invalid byte (line and column of the text before it).
pub fn read_source(path: &std::path::Path, file: &str) -> Result<String, Diagnostic> {
    let bytes = std::fs::read(path).map_err(|e| Diagnostic::whole_file(file, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| utf8_error(file, e.as_bytes(), e.utf8_error().valid_up_to()))
}

/// The diagnostic of text whose byte `at` starts an invalid UTF-8 sequence.
fn utf8_error(file: &str, bytes: &[u8], at: usize) -> Diagnostic {
    // the text before `at` is valid UTF-8
    let before = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    let msg = format!("not UTF-8 text: byte 0x{:02x} starts no character", bytes[at]);
    let lossy = String::from_utf8_lossy(bytes);
    Diagnostic::new(Pos { line, col }, msg).with_label("not UTF-8").in_file(file, &lossy)
}

/// This process's command line (arguments that are not Unicode, approximated).
/// Whether a word of the command line is shown quoted: an empty word, or one with
/// white space or a quote in it, would otherwise not be seen (or not be one word).
fn needs_quotes(w: &str) -> bool {
    w.is_empty() || w.chars().any(|c| c.is_whitespace() || c == '\'' || c == '"' || c.is_control())
}

/// A word of the command line as shown: quoted as a shell would take it back when
/// [`needs_quotes`] (`' '`, `''`, `'it'\''s'`), control characters escaped.
fn shown_word(w: &str) -> std::borrow::Cow<'_, str> {
    if !needs_quotes(w) {
        return std::borrow::Cow::Borrowed(w);
    }
    let mut s = String::from("'");
    for c in w.chars() {
        match c {
            '\'' => s.push_str("'\\''"),
            c if c.is_control() => s.extend(c.escape_default()),
            c => s.push(c),
        }
    }
    s.push('\'');
    std::borrow::Cow::Owned(s)
}

fn process_args() -> Vec<String> {
    std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect()
}

/// Names longer than this get no "did you mean" (the edit distance is quadratic
/// in the names' length, and a long name is no typo of a short one).
const MAX_SUGGESTED_LEN: usize = 64;

/// ``did you mean `X`?`` for the name of `known` closest to `name`, if one is close.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<String> {
    suggest(name, known).map(|s| format!("did you mean `{s}`?"))
}

/// The name of `known` closest to `name` by edit distance (optimal string
/// alignment: insertions, deletions, substitutions, swaps of neighbours), if it is
/// close: at most one edit per three characters of `name` (at least one), fewer
/// edits than `name` has characters (`b` is not "close" to `a`), or the same name
/// in another case. Ties go to the alphabetically first name; `name` itself and
/// hidden names (starting with `#`) are never suggested.
pub fn suggest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let len = name.chars().count();
    if len > MAX_SUGGESTED_LEN {
        return None;
    }
    let limit = (len / 3).max(1).min(len.saturating_sub(1));
    let lower = name.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        // a name longer by more than `limit` characters is that many edits away
        if k == name || k.starts_with('#') || k.is_empty() || k.chars().nth(len + limit).is_some() {
            continue;
        }
        let d = if k.to_lowercase() == lower { 0 } else { strsim::osa_distance(name, k) };
        if d > limit {
            continue;
        }
        best = match best {
            Some((bd, bk)) if (bd, bk) <= (d, k) => Some((bd, bk)),
            _ => Some((d, k)),
        };
    }
    best.map(|(_, k)| k.to_string())
}

/// The alternatives of an "expected" description: `` `,` or `)` `` gives
/// `` `,` `` and `` `)` ``; `` `a`, `b` or `c` `` three. Separators inside
/// backquotes and parentheses do not split.
pub fn alternatives(what: &str) -> Vec<String> {
    let chars: Vec<char> = what.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut tick, mut depth) = (false, 0usize);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !tick && depth == 0 {
            let rest: String = chars[i..chars.len().min(i + 4)].iter().collect();
            let sep = if rest.starts_with(", ") {
                2
            } else if rest == " or " {
                4
            } else {
                0
            };
            if sep > 0 {
                out.push(std::mem::take(&mut cur));
                i += sep;
                continue;
            }
        }
        match c {
            '`' => tick = !tick,
            '(' | '[' if !tick => depth += 1,
            ')' | ']' if !tick => depth = depth.saturating_sub(1),
            _ => {}
        }
        cur.push(c);
        i += 1;
    }
    out.push(cur);
    out.into_iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

/// `a`, `a or b`, `a, b or c`.
pub fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The identifiers written between backquotes in `what`.
fn quoted_words(what: &str) -> Vec<String> {
    what.split('`').skip(1).step_by(2).filter(|w| is_identifier(w)).map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_close_names() {
        let methods = ["Read", "Write", "Put", "Get", "Poll"];
        assert_eq!(suggest("Wrte", methods), Some("Write".into()));
        assert_eq!(suggest("write", methods), Some("Write".into()));
        assert_eq!(suggest("Wirte", methods), Some("Write".into()));
        assert_eq!(suggest("Fence", methods), None);
        assert_eq!(suggest("Put", methods), None, "the name itself is no suggestion");
        assert_eq!(suggest("x", ["y", "z"]), None, "a one-character name has no close name but itself");
        assert_eq!(suggest("X", ["y", "x"]), Some("x".into()), "another case");
        assert_eq!(suggest("T3", ["T2", "T1", "P0"]), Some("T1".into()), "first of a tie");
        assert_eq!(suggest("rdma", ["rdmatso", "rdmawait", "sv"]), None);
        assert_eq!(suggest("rdmatos", ["rdmatso", "rdmawait", "sv"]), Some("rdmatso".into()));
        assert_eq!(suggest("aCX", ["aCR", "#hidden"]), Some("aCR".into()));
    }

    #[test]
    fn alternatives_split_at_the_top_level() {
        assert_eq!(alternatives("`,` or `)`"), vec!["`,`", "`)`"]);
        assert_eq!(alternatives("`implements`, `uses`, `loc`, `wid` or `method`").len(), 5);
        assert_eq!(
            alternatives("a declaration (`libraries`, `thread`) or `T:`"),
            vec!["a declaration (`libraries`, `thread`)", "`T:`"]
        );
        assert_eq!(alternatives("a node (a positive integer)"), vec!["a node (a positive integer)"]);
        assert_eq!(join_or(&alternatives("`a`, `b` or `c`")), "`a`, `b` or `c`");
    }

    #[test]
    fn renders_the_line_a_caret_and_the_help() {
        let text = "test X\nT1:\n  Wrte(x, 1)\n";
        let d = Diagnostic::unknown(Pos { line: 3, col: 3 }, "Wrte", "unknown method `Wrte`", ["Write", "Read"])
            .in_file("t.litmus", text);
        assert_eq!(
            d.to_string(),
            "t.litmus:3:3: unknown method `Wrte`\n   ,-[ t.litmus:3:3 ]\n   |\n 3 |   Wrte(x, 1)\n   |   ^^|^\n   |     \
             `--- unknown\n---'\nhelp: did you mean `Write`?"
        );
    }

    #[test]
    fn positions_are_moved_into_the_file() {
        let text = "a\nbcd";
        let d = Diagnostic::new(Pos { line: 3, col: 1 }, "expected `}`, found the end of the file").in_file("f", text);
        assert_eq!((d.line, d.col, d.source.as_deref()), (2, 4, Some("bcd")));
        assert!(d.to_string().contains(" 2 | bcd\n   |    |"), "{d}");
        let d = Diagnostic::new(Pos { line: 1, col: 40 }, "m").with_span(9).in_file("f", text);
        assert_eq!((d.line, d.col, d.span_len), (1, 2, 1));
        let d = Diagnostic::new(Pos { line: 1, col: 1 }, "empty").in_file("f", "");
        assert_eq!((d.line, d.col), (1, 1));
        assert!(d.to_string().starts_with("f:1:1: empty\n"), "{d}");
        let d = Diagnostic::whole_file("g", "cannot read: no such file").in_file("g", "");
        assert_eq!(d.to_string(), "g:0:0: cannot read: no such file");
    }

    #[test]
    fn command_line_values_are_shown_in_the_command_line() {
        let args: Vec<String> = ["/x/mowgli", "refine", "i.impl", "--spec", "rbl_rfx"].map(String::from).to_vec();
        let d = Diagnostic::command_line(&args, "--spec", "rbl_rfx", "unknown library `rbl_rfx`")
            .suggesting("rbl_rfx", ["rbl", "rbl_rfe"]);
        assert_eq!(d.headline(), "<command line>:1:29: unknown library `rbl_rfx`");
        assert!(
            d.to_string()
                .contains(" 1 | mowgli refine i.impl --spec rbl_rfx\n   |                             ^^^|^^^"),
            "{d}"
        );
        let args: Vec<String> = ["mowgli", "refine", "--spec=rbl_rfx"].map(String::from).to_vec();
        let d = Diagnostic::command_line(&args, "--spec", "rbl_rfx", "m");
        assert_eq!((d.col, d.span_len), (22, 7));
        let args: Vec<String> = ["mowgli", "generate", "--libs", "sv,rdmatos"].map(String::from).to_vec();
        let d = Diagnostic::command_line(&args, "--libs", "rdmatos", "m");
        assert_eq!((d.col, d.span_len), (27, 7));
        let d = Diagnostic::command_line(&args, "--libs", "bal", "m");
        assert_eq!((d.col, d.span_len), (1, 33), "not found: the whole command line");
    }

    #[test]
    fn blank_and_empty_words_are_quoted_where_they_are_shown() {
        // found by the campaign of seed 4171864703: a path " " was shown past the
        // end of the (trimmed) command line
        let args: Vec<String> = ["m", "litmus", "--format", "herd", " "].iter().map(|s| s.to_string()).collect();
        let d = Diagnostic::command_line_word(&args, " ", "no such file");
        assert_eq!((d.col, d.span_len), (29, 3));
        let args: Vec<String> = ["m", "refine", "", "--lib", "it's"].iter().map(|s| s.to_string()).collect();
        let d = Diagnostic::command_line(&args, "--lib", "it's", "m");
        assert_eq!((d.col, d.span_len), (25, 4), "after its opening quote");
        let d = Diagnostic::command_line_word(&args, "", "m");
        assert_eq!((d.col, d.span_len), (15, 2));
    }

    #[test]
    fn expected_tokens_and_keyword_suggestions() {
        let d = Diagnostic::expected_found(Pos { line: 1, col: 8 }, "`allowed` or `forbidden`", "`alowed`", 6);
        assert_eq!(d.msg, "expected `allowed` or `forbidden`, found `alowed`");
        assert_eq!(d.expected, vec!["`allowed`", "`forbidden`"]);
        assert_eq!(d.help.as_deref(), Some("did you mean `allowed`?"));
        let d = d.in_file("e.litmus", "expect alowed x = 1");
        assert_eq!(
            d.to_string(),
            "e.litmus:1:8: expected `allowed` or `forbidden`, found `alowed`\n   ,-[ e.litmus:1:8 ]\n   |\n 1 | \
             expect alowed x = 1\n   |        ^^^|^^\n   |           `---- expected `allowed` or `forbidden`\n---'\n\
             help: did you mean `allowed`?"
        );
        let json = serde_json::to_value(&d).expect("serialises");
        assert_eq!(json["column"], 8);
        assert_eq!(json["help"], "did you mean `allowed`?");
    }
}
