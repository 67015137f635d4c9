//! Concretisation maps g (LOCO Def. 3.13): for an abstract call e' and one of
//! its subevents ⟨e', a'⟩, the subevent of f⁻¹(e') it is mapped to.
//!
//! A map is a list of entries, one per abstract method and abstract stamp kind,
//! written in an implementation file as
//!
//! ```text
//! concretise GF aGF_n -> last Wait aWT
//! concretise TryRead aWT -> first Read aCR
//! ```
//!
//! meaning: g(⟨e', aGF_n⟩) is the last subevent of f⁻¹(e') that belongs to a
//! `Wait` call and has stamp kind aWT. Instead of `first`/`last`, a position
//! `1`, `2`, … picks the k-th such subevent in program order (App. G.4 maps a
//! receive to "the second event" of its implementation: `concretise Receive aCR ->
//! 2 Read aCR`). When both stamps are node families the
//! node is kept (`concretise Bcast aNRW_n -> first Put aNRW_n` maps aNRW_2 to the
//! put's aNRW_2). Without an entry, g keeps the stamp: the first subevent of
//! f⁻¹(e') with the same stamp (the paper's "in most cases"); if there is none an
//! entry is inferred: the first candidate that keeps `to`'s promises (O1) on the
//! execution where it is needed first, trying the last occurrence of each
//! (method, stamp kind) pair of f⁻¹(e'), latest pair first, then first occurrences. Inferred entries are
//! printed so that the user can pin them.

use mowgli_core::{ExecGraph, Library, Stamp, StampTable};
use mowgli_diag::{Diagnostic, Pos};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Pick {
    First,
    Last,
    /// The k-th (1-based) in program order.
    Nth(usize),
}

/// One entry of a concretisation map.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct MapEntry {
    /// The abstract method and stamp kind (family names without `_n`).
    pub method: String,
    pub stamp: String,
    pub pick: Pick,
    /// The implementation method (of a library of `uses`) and stamp kind.
    pub target_method: String,
    pub target_stamp: String,
}

impl MapEntry {
    pub fn render(&self) -> String {
        format!(
            "concretise {} {} -> {} {} {}",
            self.method,
            self.stamp,
            match self.pick {
                Pick::First => "first".to_string(),
                Pick::Last => "last".to_string(),
                Pick::Nth(k) => k.to_string(),
            },
            self.target_method,
            self.target_stamp
        )
    }
}

#[derive(Clone, Debug, Default)]
pub struct ConcMap {
    pub entries: Vec<MapEntry>,
}

impl ConcMap {
    pub fn get(&self, method: &str, stamp: &str) -> Option<&MapEntry> {
        self.entries.iter().find(|e| e.method == method && e.stamp == stamp)
    }
}

/// A map error: 1-based line and column, and what was expected.
pub type MapError = Diagnostic;

/// Reads the `concretise` lines of an implementation file (other lines are the
/// implementation parser's business). Stamp names are checked against `to`.
pub fn parse(text: &str, to: &StampTable) -> Result<ConcMap, MapError> {
    parse_checked(text, to, None)
}

/// [`parse`], and when `methods` is given (the implemented library's methods, the
/// methods of the libraries it uses), the method names are checked against them.
pub fn parse_checked(text: &str, to: &StampTable, methods: Option<(&[&str], &[&str])>) -> Result<ConcMap, MapError> {
    let mut map = ConcMap::default();
    for (ln, line) in text.lines().enumerate() {
        let code = line.split('#').next().unwrap_or("");
        let trimmed = code.trim_start();
        if !trimmed.starts_with("concretise") {
            continue;
        }
        let indent = code.len() - trimmed.len();
        // words with their columns
        let mut words: Vec<(usize, &str)> = Vec::new();
        let mut col = indent;
        for w in trimmed.split_whitespace() {
            let at = code[col..].find(w).map(|i| col + i).unwrap_or(col);
            words.push((at + 1, w));
            col = at + w.len();
        }
        let err = |i: usize, msg: String| {
            let col = words.get(i).map(|w| w.0).unwrap_or(code.len() + 1);
            Diagnostic::new(Pos { line: ln + 1, col }, msg).with_span(words.get(i).map_or(1, |w| w.1.chars().count()))
        };
        if words.first().map(|w| w.1) != Some("concretise") {
            continue; // e.g. an identifier starting with `concretise`
        }
        if words.len() != 7 {
            return Err(err(
                words.len().min(7),
                "expected `concretise METHOD STAMP -> first|last METHOD STAMP`".into(),
            ));
        }
        let kind = |i: usize| -> Result<String, MapError> {
            let name = words[i].1;
            let k = to.kind(name).ok_or_else(|| {
                let bare = name.strip_suffix("_n").unwrap_or(name);
                err(i, format!("unknown stamp `{name}` (not a stamp of the order `to`)"))
                    .with_label("unknown")
                    .suggesting(bare, to.kinds.iter().map(String::as_str))
            })?;
            Ok(to.kinds[k as usize].clone())
        };
        if let Some((abstract_methods, concrete_methods)) = methods {
            for (i, known, what) in
                [(1, abstract_methods, "the implemented library"), (5, concrete_methods, "the libraries of `uses`")]
            {
                if !known.contains(&words[i].1) {
                    return Err(err(
                        i,
                        format!("unknown method `{}`: no method of {what} ({})", words[i].1, known.join(", ")),
                    )
                    .with_label("unknown")
                    .suggesting(words[i].1, known.iter().copied()));
                }
            }
        }
        let stamp = kind(2)?;
        if words[3].1 != "->" {
            return Err(err(3, "expected `->`".into()));
        }
        let pick = match words[4].1 {
            "first" => Pick::First,
            "last" => Pick::Last,
            w => match w.parse::<usize>() {
                Ok(k) if k >= 1 => Pick::Nth(k),
                _ => return Err(err(4, "expected `first`, `last` or a position 1, 2, …".into())),
            },
        };
        let target_stamp = kind(6)?;
        let entry = MapEntry {
            method: words[1].1.to_string(),
            stamp,
            pick,
            target_method: words[5].1.to_string(),
            target_stamp,
        };
        if map.get(&entry.method, &entry.stamp).is_some() {
            return Err(err(1, format!("a second entry for {} {}", entry.method, entry.stamp)));
        }
        map.entries.push(entry);
    }
    Ok(map)
}

/// The text with its `concretise` lines blanked (line numbers kept), for the
/// implementation parser.
pub fn strip(text: &str) -> String {
    text.lines().map(|l| if l.trim_start().starts_with("concretise ") { "" } else { l }).collect::<Vec<_>>().join("\n")
}

fn method_name(g: &ExecGraph, libs: &[Box<dyn Library>], s: usize) -> String {
    let e = g.event_of(s);
    libs.get(e.lib).and_then(|l| l.methods().get(e.method)).map(|m| m.name.to_string()).unwrap_or_default()
}

/// g(⟨e', a⟩) by `entry`, among `pre` = f⁻¹(e') (subevents in program order).
pub fn apply(
    entry: &MapEntry,
    g: &ExecGraph,
    libs: &[Box<dyn Library>],
    pre: &[usize],
    a: Stamp,
    to: &StampTable,
) -> Option<usize> {
    let fits = |s: usize| {
        let st = g.subs[s].stamp;
        to.kinds[st.kind as usize] == entry.target_stamp
            && method_name(g, libs, s) == entry.target_method
            && (a.node.is_none() || st.node.is_none() || st.node == a.node)
    };
    match entry.pick {
        Pick::First => pre.iter().copied().find(|&s| fits(s)),
        Pick::Last => pre.iter().rev().copied().find(|&s| fits(s)),
        Pick::Nth(k) => pre.iter().copied().filter(|&s| fits(s)).nth(k - 1),
    }
}

/// The default g: the first subevent of f⁻¹(e') with the same stamp.
pub fn same_stamp(g: &ExecGraph, pre: &[usize], a: Stamp) -> Option<usize> {
    pre.iter().copied().find(|&s| g.subs[s].stamp == a)
}

/// Every entry f⁻¹(e') offers for (`method`, `stamp`): those keeping the stamp
/// first, each group `last` then `first` of each (method, stamp kind) pair of
/// `pre`, latest pair first.
pub fn alternatives(
    method: &str,
    stamp: &str,
    g: &ExecGraph,
    libs: &[Box<dyn Library>],
    pre: &[usize],
    to: &StampTable,
) -> Vec<MapEntry> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for &s in pre {
        let p = (method_name(g, libs, s), to.kinds[g.subs[s].stamp.kind as usize].clone());
        if !pairs.contains(&p) {
            pairs.push(p);
        }
    }
    let mut out = Vec::new();
    for pick in [Pick::Last, Pick::First] {
        let order: Vec<&(String, String)> =
            if pick == Pick::Last { pairs.iter().rev().collect() } else { pairs.iter().collect() };
        for (m, k) in order {
            out.push(MapEntry {
                method: method.to_string(),
                stamp: stamp.to_string(),
                pick,
                target_method: m.clone(),
                target_stamp: k.clone(),
            });
        }
    }
    // entries that keep the stamp first (the paper's usual choice)
    out.sort_by_key(|e| e.target_stamp != stamp);
    out
}

/// Infers an entry for (`method`, `stamp`) on this execution: the first
/// candidate whose target satisfies `ok` (O1).
#[allow(clippy::too_many_arguments)]
pub fn infer(
    method: &str,
    stamp: &str,
    g: &ExecGraph,
    libs: &[Box<dyn Library>],
    pre: &[usize],
    a: Stamp,
    to: &StampTable,
    ok: &dyn Fn(usize) -> bool,
) -> Option<MapEntry> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for &s in pre {
        let p = (method_name(g, libs, s), to.kinds[g.subs[s].stamp.kind as usize].clone());
        if !pairs.contains(&p) {
            pairs.push(p);
        }
    }
    // the paper's choice for a stamp the implementation does not have (App. G.1:
    // GF's aGF_n ↦ the Wait's aWT) is the subevent that completes the call: try the
    // last occurrence of each pair, latest pair first, then the first occurrences
    let latest_first: Vec<&(String, String)> = pairs.iter().rev().collect();
    let earliest_first: Vec<&(String, String)> = pairs.iter().collect();
    for (pick, order) in [(Pick::Last, latest_first), (Pick::First, earliest_first)] {
        for (m, k) in order {
            let entry = MapEntry {
                method: method.to_string(),
                stamp: stamp.to_string(),
                pick,
                target_method: m.clone(),
                target_stamp: k.clone(),
            };
            if apply(&entry, g, libs, pre, a, to).is_some_and(ok) {
                return Some(entry);
            }
        }
    }
    None
}
