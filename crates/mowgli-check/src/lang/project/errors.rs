//! A TOML or serde error of the project file as a [`Diagnostic`]: its position as
//! `file:line:column` from the error's byte span, the source line with a caret, and
//! for an unknown key or value, the closest known one.

use mowgli_diag::{Diagnostic, Pos};

/// The diagnostic of a parse or shape error of the project file `file`, whose text is `text`.
pub fn of_toml(e: &toml::de::Error, file: &str, text: &str) -> Diagnostic {
    let msg = e.message().trim_end().to_string();
    let span = e.span().unwrap_or(0..0);
    let mut d = at(file, text, span.clone(), plain(&msg));
    // serde's words for a closed table or enum: "unknown field `x`, expected one
    // of `a`, `b`" / "unknown variant `x`, expected `a` or `b`"
    for what in ["unknown field", "unknown variant"] {
        let Some(rest) = msg.strip_prefix(what) else { continue };
        let mut quoted = rest.split('`').skip(1).step_by(2);
        let Some(name) = quoted.next() else { continue };
        let known: Vec<&str> = quoted.collect();
        d.msg = if what == "unknown field" {
            format!("unknown key `{name}`{}", listed(&known, "keys"))
        } else {
            format!("unknown value `{name}`{}", listed(&known, "values"))
        };
        d = d.with_label("unknown").suggesting(name, known.iter().copied());
    }
    d
}

/// serde's words in the project file's: keys, not fields; types as a user writes them.
fn plain(msg: &str) -> String {
    let msg = match msg.strip_prefix("missing field `") {
        Some(rest) => format!("missing key `{rest}"),
        None => msg.to_string(),
    };
    msg.replace("expected usize", "expected a whole number")
        .replace("expected f64", "expected a number")
        .replace("a sequence", "an array")
        .replace("invalid type: map", "invalid type: table")
        .replace("invalid type: sequence", "invalid type: array")
}

/// ` (the keys here: `a`, `b`)`, or nothing when none is known.
fn listed(known: &[&str], what: &str) -> String {
    if known.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    format!(" (the {what} here: {})", quoted.join(", "))
}

/// A diagnostic at the byte range `span` of `text`.
pub fn at(file: &str, text: &str, span: std::ops::Range<usize>, msg: String) -> Diagnostic {
    let start = pos_of(text, span.start);
    // the caret covers the span on its first line
    let line_end = text[span.start.min(text.len())..].find('\n').map_or(text.len(), |i| span.start + i);
    let end = span.end.clamp(span.start, line_end.max(span.start));
    let len = text.get(span.start..end).map_or(1, |s| s.chars().count());
    Diagnostic::new(start, msg).with_span(len).in_file(file, text)
}

/// The position of byte `offset` of `text` (1-based line, column in characters).
pub fn pos_of(text: &str, offset: usize) -> Pos {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Pos { line, col }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        let t = "ab\né = 1\n";
        assert_eq!(pos_of(t, 0), Pos { line: 1, col: 1 });
        assert_eq!(pos_of(t, 3), Pos { line: 2, col: 1 });
        assert_eq!(pos_of(t, 5), Pos { line: 2, col: 2 });
        assert_eq!(pos_of(t, 100), Pos { line: 3, col: 1 });
    }

    #[test]
    fn an_unknown_key_gets_a_suggestion() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct T {
            calls: Option<usize>,
            threads: Option<usize>,
        }
        let text = "calls = 1\nthreds = 2\n";
        let e = toml::from_str::<T>(text).expect_err("unknown key");
        let d = of_toml(&e, "p.toml", text);
        assert_eq!(d.headline(), "p.toml:2:1: unknown key `threds` (the keys here: `calls`, `threads`)");
        assert_eq!(d.help.as_deref(), Some("did you mean `threads`?"));
    }
}
