//! Stamp-order files (`.to`) named on the command line: parsed
//! ([`StampOrder::parse`]), checked against the tables Mowgli's libraries use, and
//! put in place of the default order's tables of the same names.

use std::path::Path;

use mowgli_core::StampOrder;
use mowgli_diag::{Diagnostic, Pos};

/// The tables the libraries read (`docs/formats.md`, "Stamp-order files").
pub const KNOWN_TABLES: [&str; 6] = ["to", "ippo", "oppo", "oppo_nopcie", "ippo_sc", "oppo_sc"];

/// Reads stamp-order file `path` and returns `default` with the file's tables in place.
pub fn load(path: &Path, default: &StampOrder) -> Result<StampOrder, Diagnostic> {
    let file = path.display().to_string();
    let text = mowgli_diag::read_source(path, &file)?;
    load_text(&file, &text, default)
}

/// [`load`] of a file's text.
pub fn load_text(file: &str, text: &str, default: &StampOrder) -> Result<StampOrder, Diagnostic> {
    let user = StampOrder::parse(text).map_err(|e| e.in_file(file, text))?;
    if !KNOWN_TABLES.iter().any(|t| user.table(t).is_some()) {
        let first = user.tables.keys().next().map(String::as_str).unwrap_or("");
        let d = Diagnostic::new(
            Pos { line: 1, col: 1 },
            "expected a table `to`, `ippo`, `oppo`, `oppo_nopcie`, `ippo_sc` or `oppo_sc`",
        )
        .suggesting(first, KNOWN_TABLES);
        return Err(d.in_file(file, text));
    }
    unknown_stamps(text, default).map_err(|e| e.in_file(file, text))?;
    let mut order = default.clone();
    order.tables.extend(user.tables);
    Ok(order)
}

/// Every stamp in the `columns` line of a table the libraries read must be one of
/// that table's stamps in `default`: no library gives events another stamp, so
/// another name is a typo (its cells would order nothing).
fn unknown_stamps(text: &str, default: &StampOrder) -> Result<(), Diagnostic> {
    let mut table: Option<&str> = None;
    for (ln, raw) in text.lines().enumerate() {
        let code = raw.split('#').next().unwrap_or("");
        // words with their 1-based character columns
        let mut words: Vec<(usize, &str)> = Vec::new();
        let mut start: Option<(usize, usize)> = None;
        for (ci, (bi, ch)) in code.char_indices().enumerate() {
            if ch.is_whitespace() {
                if let Some((sb, sc)) = start.take() {
                    words.push((sc + 1, &code[sb..bi]));
                }
            } else if start.is_none() {
                start = Some((bi, ci));
            }
        }
        if let Some((sb, sc)) = start {
            words.push((sc + 1, &code[sb..]));
        }
        match words.first().map(|w| w.1) {
            Some("table") => table = words.get(1).map(|w| w.1),
            Some("columns") => {
                let Some(known) = table.and_then(|t| default.table(t)) else { continue };
                for &(col, w) in &words[1..] {
                    let bare = w.strip_suffix("_n").unwrap_or(w);
                    if !known.kinds.iter().any(|k| k == bare) {
                        let d = Diagnostic::unknown(
                            Pos { line: ln + 1, col },
                            w,
                            format!(
                                "unknown stamp `{w}` in table `{}`: no library has it (its stamps: {})",
                                known.name,
                                known.kinds.join(", ")
                            ),
                            known.kinds.iter().map(String::as_str),
                        );
                        return Err(d);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_stamps_are_refused_with_a_suggestion() {
        let default = mowgli_libs::orders::default_order();
        let e = load_text("u.to", "table to\ncolumns aCR aCX\nA aCR ✓ ✓\nB aCX ✗ ✓\n", &default).unwrap_err();
        assert_eq!((e.line, e.col), (2, 13));
        assert!(e.msg.starts_with("unknown stamp `aCX` in table `to`"), "{e}");
        assert_eq!(e.help.as_deref(), Some("did you mean `aCR`?"));
        let ok =
            load_text("k.to", "table to\ncolumns aCR aCW\nA aCR ✓ ✓\nB aCW ✗ ✓\n", &default).expect("known stamps");
        assert_eq!(ok.table("to").map(|t| t.kinds.len()), Some(2));
        assert!(ok.table("ippo").is_some(), "the other tables are the default ones");
        let e = load_text("n.to", "table ot\ncolumns aCR\nA aCR ✓\n", &default).unwrap_err();
        assert_eq!(e.help.as_deref(), Some("did you mean `to`?"));
    }
}
