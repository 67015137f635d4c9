//! Stamps and stamp orders (LOCO paper §3.1, Fig. 10).
//!
//! A stamp is either a single stamp (`aCR`) or a member of a node-indexed family
//! (`aNRW_n`). A stamp order `to ⊆ Stamp × Stamp` is *data*: a table whose cells are
//! ✓ (ordered), ✗ (unordered) or SN (ordered iff both stamps carry the same node index).
//! The same table format also carries other per-pair ordering tables, e.g. the
//! ippo/oppo tables of an underlying memory model, which use the same kinds.

use std::collections::BTreeMap;
use std::fmt;

pub use mowgli_diag::{Diagnostic, Pos};

/// Index of a stamp kind in a [`StampOrder`]'s column list.
pub type StampKind = u8;
/// A node of the distributed system.
pub type NodeId = u32;

/// A stamp: a kind and, for families, the node index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Stamp {
    pub kind: StampKind,
    pub node: Option<NodeId>,
}

/// One cell of a stamp-order table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Cell {
    /// ✓: subevents with these stamps keep their program order.
    Ordered,
    /// ✗: they may be reordered.
    Unordered,
    /// SN (or `sqp`): ordered iff both stamps have the same node index.
    SameNode,
}

impl Cell {
    pub fn symbol(self) -> &'static str {
        match self {
            Cell::Ordered => "✓",
            Cell::Unordered => "✗",
            Cell::SameNode => "SN",
        }
    }
}

/// An error in a stamp-order file (its file name is added by the caller,
/// [`Diagnostic::in_file`]).
pub type StampOrderError = Diagnostic;

/// A stamp-order table: the kinds (columns and rows, same order) and the cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StampTable {
    pub name: String,
    /// Stamp kind names, e.g. `aCR`, `aNRW` (family names are given without `_n`).
    pub kinds: Vec<String>,
    /// Whether kind i is a node-indexed family.
    pub family: Vec<bool>,
    /// `cells[earlier][later]`.
    pub cells: Vec<Vec<Cell>>,
}

impl StampTable {
    pub fn kind(&self, name: &str) -> Option<StampKind> {
        let name = name.strip_suffix("_n").unwrap_or(name);
        self.kinds.iter().position(|k| k == name).map(|i| i as StampKind)
    }

    /// `(a1, a2) ∈ to`.
    #[inline]
    pub fn ordered(&self, a1: Stamp, a2: Stamp) -> bool {
        match self.cells[a1.kind as usize][a2.kind as usize] {
            Cell::Ordered => true,
            Cell::Unordered => false,
            Cell::SameNode => a1.node == a2.node,
        }
    }

    /// Row letter (A, B, …) and column number (1, 2, …) of a cell, as in the papers' figures.
    pub fn cell_name(&self, earlier: StampKind, later: StampKind) -> String {
        format!("{}{}", (b'A' + earlier) as char, later as usize + 1)
    }

    pub fn stamp_name(&self, s: Stamp) -> String {
        match s.node {
            Some(n) => format!("{}_{}", self.kinds[s.kind as usize], n),
            None => self.kinds[s.kind as usize].clone(),
        }
    }
}

/// A file of one or more named tables (`to`, `ippo`, `oppo`, …).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct StampOrder {
    pub tables: BTreeMap<String, StampTable>,
}

impl StampOrder {
    /// The table called `name`.
    pub fn table(&self, name: &str) -> Option<&StampTable> {
        self.tables.get(name)
    }

    /// Parses the stamp-order format (see `docs/formats.md`):
    ///
    /// ```text
    /// table to
    /// columns aCR aCW aNRW_n
    /// A aCR  ✓ ✓ ✓     # comment
    /// B aCW  ✗ ✓ ✓
    /// C aNRW ✗ ✗ SN
    /// ```
    pub fn parse(text: &str) -> Result<StampOrder, StampOrderError> {
        let mut out = StampOrder::default();
        let mut cur: Option<StampTable> = None;
        let err = |line: usize, col: usize, message: String| Diagnostic::new(Pos { line, col }, message);
        for (ln, raw) in text.lines().enumerate() {
            let line = ln + 1;
            let body = raw.split('#').next().unwrap_or("");
            let mut words = Vec::new();
            // (word, 1-based column in characters)
            let mut start: Option<(usize, usize)> = None;
            for (ci, (bi, ch)) in body.char_indices().enumerate() {
                if ch.is_whitespace() {
                    if let Some((sb, sc)) = start.take() {
                        words.push((&body[sb..bi], sc + 1));
                    }
                } else if start.is_none() {
                    start = Some((bi, ci));
                }
            }
            if let Some((sb, sc)) = start {
                words.push((&body[sb..], sc + 1));
            }
            if words.is_empty() {
                continue;
            }
            match words[0].0 {
                "table" => {
                    if let Some(t) = cur.take() {
                        finish(&mut out, t, line)?;
                    }
                    let Some((name, _)) = words.get(1) else {
                        return Err(err(line, words[0].1 + 5, "expected a table name after `table`".into()));
                    };
                    if out.tables.contains_key(*name) {
                        return Err(err(line, words[1].1, format!("table `{name}` is defined twice"))
                            .with_span(name.chars().count()));
                    }
                    cur = Some(StampTable { name: name.to_string(), kinds: vec![], family: vec![], cells: vec![] });
                }
                "columns" => {
                    let Some(t) = cur.as_mut() else {
                        return Err(err(line, words[0].1, "expected `table NAME` before `columns`".into()));
                    };
                    if !t.kinds.is_empty() {
                        return Err(err(line, words[0].1, "`columns` given twice for this table".into()));
                    }
                    for (w, c) in &words[1..] {
                        let (name, fam) = match w.strip_suffix("_n") {
                            Some(base) => (base, true),
                            None => (*w, false),
                        };
                        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                            return Err(err(line, *c, format!("expected a stamp name, found `{w}`"))
                                .with_span(w.chars().count()));
                        }
                        if t.kinds.iter().any(|k| k == name) {
                            return Err(
                                err(line, *c, format!("stamp `{name}` listed twice")).with_span(w.chars().count())
                            );
                        }
                        t.kinds.push(name.to_string());
                        t.family.push(fam);
                    }
                    if t.kinds.len() > 26 {
                        return Err(err(line, words[0].1, "at most 26 stamp kinds per table".into()));
                    }
                }
                _ => {
                    let Some(t) = cur.as_mut() else {
                        return Err(Diagnostic::expected_found(
                            Pos { line, col: words[0].1 },
                            "`table NAME`",
                            &format!("`{}`", words[0].0),
                            words[0].0.chars().count(),
                        )
                        .suggesting(words[0].0, ["table", "columns"]));
                    };
                    if t.kinds.is_empty() {
                        return Err(err(line, words[0].1, "expected `columns …` before the rows".into()));
                    }
                    let r = t.cells.len();
                    let mut ws = &words[..];
                    // optional row letter
                    let letter = ((b'A' + r as u8) as char).to_string();
                    if ws[0].0 == letter {
                        ws = &ws[1..];
                    }
                    let expected_name = &t.kinds.get(r).cloned().unwrap_or_default();
                    let Some((name, c)) = ws.first() else {
                        return Err(err(line, words[0].1, "expected a row".into()));
                    };
                    if r >= t.kinds.len() {
                        return Err(err(
                            line,
                            *c,
                            format!("table has {} columns but this is row {}", t.kinds.len(), r + 1),
                        ));
                    }
                    let bare = name.strip_suffix("_n").unwrap_or(name);
                    if bare != expected_name {
                        let mut d = err(
                            line,
                            *c,
                            format!("expected row `{expected_name}` (rows follow the column order), found `{name}`"),
                        )
                        .with_span(name.chars().count());
                        d.expected = vec![format!("`{expected_name}`")];
                        return Err(match t.kinds.iter().position(|k| k == bare) {
                            Some(j) => d.with_help(format!(
                                "`{bare}` is column {} of `columns`: its row comes {}",
                                j + 1,
                                if j < r { "earlier" } else { "later" }
                            )),
                            None => d.suggesting(bare, [expected_name.as_str()]),
                        });
                    }
                    let cells_w = &ws[1..];
                    if cells_w.len() != t.kinds.len() {
                        let c = cells_w.last().map(|w| w.1).unwrap_or(*c);
                        return Err(err(
                            line,
                            c,
                            format!("expected {} cells in row `{bare}`, found {}", t.kinds.len(), cells_w.len()),
                        ));
                    }
                    let mut row = Vec::new();
                    for (j, (w, c)) in cells_w.iter().enumerate() {
                        let cell = match *w {
                            "✓" | "Y" | "y" | "yes" => Cell::Ordered,
                            "✗" | "N" | "n" | "no" => Cell::Unordered,
                            "SN" | "sqp" => Cell::SameNode,
                            _ => {
                                return Err(Diagnostic::expected_found(
                                    Pos { line, col: *c },
                                    "a cell (✓, ✗, SN; or Y, N)",
                                    &format!("`{w}`"),
                                    w.chars().count(),
                                ))
                            }
                        };
                        if cell == Cell::SameNode && !(t.family[r] && t.family[j]) {
                            return Err(err(
                                line,
                                *c,
                                "SN needs both stamps to be node-indexed families (`_n`)".into(),
                            ));
                        }
                        row.push(cell);
                    }
                    t.cells.push(row);
                }
            }
        }
        if let Some(t) = cur.take() {
            finish(&mut out, t, text.lines().count() + 1)?;
        }
        if out.tables.is_empty() {
            return Err(err(1, 1, "expected `table NAME`: no table in this file".into()));
        }
        Ok(out)
    }

    /// Writes the tables back in the file format (comments are not kept).
    pub fn render(&self) -> String {
        let mut s = String::new();
        for t in self.tables.values() {
            s += &format!("table {}\ncolumns", t.name);
            for (k, f) in t.kinds.iter().zip(&t.family) {
                s += &format!(" {k}{}", if *f { "_n" } else { "" });
            }
            s += "\n";
            for (i, row) in t.cells.iter().enumerate() {
                s += &format!("{} {}", (b'A' + i as u8) as char, t.kinds[i]);
                for c in row {
                    s += &format!(" {}", c.symbol());
                }
                s += "\n";
            }
        }
        s
    }
}

fn finish(out: &mut StampOrder, t: StampTable, line: usize) -> Result<(), StampOrderError> {
    if t.cells.len() != t.kinds.len() {
        return Err(Diagnostic::new(
            Pos { line, col: 1 },
            format!("table `{}` has {} columns but {} rows", t.name, t.kinds.len(), t.cells.len()),
        ));
    }
    out.tables.insert(t.name.clone(), t);
    Ok(())
}

impl fmt::Display for StampTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:8}", self.name)?;
        for k in &self.kinds {
            write!(f, " {k:>6}")?;
        }
        writeln!(f)?;
        for (i, row) in self.cells.iter().enumerate() {
            write!(f, "{} {:6}", (b'A' + i as u8) as char, self.kinds[i])?;
            for c in row {
                write!(f, " {:>6}", c.symbol())?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_query() {
        let o =
            StampOrder::parse("table to\ncolumns aCR aCW aX_n\nA aCR ✓ ✓ ✓\nB aCW ✗ ✓ Y # c\nC aX_n N N SN\n").unwrap();
        let t = o.table("to").unwrap();
        let cr = Stamp { kind: 0, node: None };
        let cw = Stamp { kind: 1, node: None };
        let x1 = Stamp { kind: 2, node: Some(1) };
        let x2 = Stamp { kind: 2, node: Some(2) };
        assert!(!t.ordered(cw, cr));
        assert!(t.ordered(cr, cw));
        assert!(t.ordered(x1, x1) && !t.ordered(x1, x2));
        assert_eq!(t.cell_name(1, 0), "B1");
        assert_eq!(StampOrder::parse(&o.render()).unwrap(), o);
    }

    #[test]
    fn errors_have_positions() {
        let e = StampOrder::parse("table to\ncolumns aCR aCW\nA aCR ✓\n").unwrap_err();
        assert_eq!((e.line, e.col), (3, 7));
        let e = StampOrder::parse("table to\ncolumns aCR\nA aCR maybe\n").unwrap_err();
        assert_eq!((e.line, e.col), (3, 7));
        assert!(e.msg.contains("maybe"));
        let e = StampOrder::parse("table to\ncolumns aCR aCW\nA aCR ✓ SN\n").unwrap_err();
        assert!(e.msg.contains("SN"));
        let e = StampOrder::parse("table to\ncolumns aCR aCW\nA aCX ✓ ✓\n").unwrap_err();
        assert_eq!(e.help.as_deref(), Some("did you mean `aCR`?"));
        let e = StampOrder::parse("table to\ncolumns aCR aCW\nA aCW ✓ ✓\n").unwrap_err();
        assert_eq!(e.help.as_deref(), Some("`aCW` is column 2 of `columns`: its row comes later"));
    }
}
