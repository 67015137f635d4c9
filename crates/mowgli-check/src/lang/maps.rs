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
//! put's aNRW_2). An entry may list alternatives separated by `|`, tried in
//! order: g takes the first one that f⁻¹(e') has, so the image follows the path
//! the unfolded body took (`concretise TryRead aCR -> first Get aNRR_n | first
//! Read aCR`: the first get when the call read a remote location, else its first
//! CPU read). Without an entry, g keeps the stamp: the first subevent of
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
    /// Further alternatives `| PICK M2 B`, tried in order when f⁻¹(e') has no
    /// subevent for the ones before (a per-path map).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub or: Vec<Alternative>,
}

/// One alternative of a per-path entry: PICK M2 B.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Alternative {
    pub pick: Pick,
    pub target_method: String,
    pub target_stamp: String,
}

fn render_pick(p: Pick) -> String {
    match p {
        Pick::First => "first".to_string(),
        Pick::Last => "last".to_string(),
        Pick::Nth(k) => k.to_string(),
    }
}

impl MapEntry {
    pub fn render(&self) -> String {
        let mut out = format!(
            "concretise {} {} -> {} {} {}",
            self.method,
            self.stamp,
            render_pick(self.pick),
            self.target_method,
            self.target_stamp
        );
        for alt in &self.or {
            out += &format!(" | {} {} {}", render_pick(alt.pick), alt.target_method, alt.target_stamp);
        }
        out
    }

    /// The alternatives in the order they are tried: the first, then `or`.
    pub fn alternatives(&self) -> Vec<Alternative> {
        let first = Alternative {
            pick: self.pick,
            target_method: self.target_method.clone(),
            target_stamp: self.target_stamp.clone(),
        };
        std::iter::once(first).chain(self.or.iter().cloned()).collect()
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
        const SHAPE: &str = "expected `concretise METHOD STAMP -> PICK METHOD STAMP [| PICK METHOD STAMP …]` (PICK: `first`, `last` or a position)";
        if words.len() < 7 || !(words.len() - 7).is_multiple_of(4) {
            let at = if words.len() < 7 { words.len() } else { words.len() - (words.len() - 7) % 4 };
            // a stray word after a complete alternative: point at it
            let (i, msg) = match words.get(at) {
                Some(w) if words.len() > 7 && w.1 != "|" => {
                    (at, format!("expected `|` before another alternative, found `{}`", w.1))
                }
                _ => (words.len(), SHAPE.to_string()),
            };
            return Err(err(i, msg));
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
        let check_method = |i: usize, known: &[&str], what: &str| -> Result<(), MapError> {
            if known.contains(&words[i].1) {
                return Ok(());
            }
            Err(err(i, format!("unknown method `{}`: no method of {what} ({})", words[i].1, known.join(", ")))
                .with_label("unknown")
                .suggesting(words[i].1, known.iter().copied()))
        };
        if let Some((abstract_methods, _)) = methods {
            check_method(1, abstract_methods, "the implemented library")?;
        }
        let stamp = kind(2)?;
        if words[3].1 != "->" {
            return Err(err(3, "expected `->`".into()));
        }
        // alternatives at words 4.., each PICK METHOD STAMP, separated by `|`
        let mut alts: Vec<Alternative> = Vec::new();
        let mut i = 4;
        loop {
            let pick = match words[i].1 {
                "first" => Pick::First,
                "last" => Pick::Last,
                w => match w.parse::<usize>() {
                    Ok(k) if k >= 1 => Pick::Nth(k),
                    _ => return Err(err(i, "expected `first`, `last` or a position 1, 2, …".into())),
                },
            };
            if let Some((_, concrete_methods)) = methods {
                check_method(i + 1, concrete_methods, "the libraries of `uses`")?;
            }
            let alt = Alternative { pick, target_method: words[i + 1].1.to_string(), target_stamp: kind(i + 2)? };
            if alts.contains(&alt) {
                return Err(err(i, "this alternative repeats an earlier one of the entry".into()));
            }
            alts.push(alt);
            i += 3;
            if i == words.len() {
                break;
            }
            if words[i].1 != "|" {
                return Err(err(i, format!("expected `|` before another alternative, found `{}`", words[i].1)));
            }
            i += 1;
        }
        let first = alts.remove(0);
        let entry = MapEntry {
            method: words[1].1.to_string(),
            stamp,
            pick: first.pick,
            target_method: first.target_method,
            target_stamp: first.target_stamp,
            or: alts,
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

/// g(⟨e', a⟩) by `entry`, among `pre` = f⁻¹(e') (subevents in program order):
/// its first alternative that `pre` has a subevent for.
pub fn apply(
    entry: &MapEntry,
    g: &ExecGraph,
    libs: &[Box<dyn Library>],
    pre: &[usize],
    a: Stamp,
    to: &StampTable,
) -> Option<usize> {
    entry.alternatives().iter().find_map(|alt| apply_one(alt, g, libs, pre, a, to))
}

fn apply_one(
    alt: &Alternative,
    g: &ExecGraph,
    libs: &[Box<dyn Library>],
    pre: &[usize],
    a: Stamp,
    to: &StampTable,
) -> Option<usize> {
    let fits = |s: usize| {
        let st = g.subs[s].stamp;
        to.kinds[st.kind as usize] == alt.target_stamp
            && method_name(g, libs, s) == alt.target_method
            && (a.node.is_none() || st.node.is_none() || st.node == a.node)
    };
    match alt.pick {
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
                or: Vec::new(),
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
                or: Vec::new(),
            };
            if apply(&entry, g, libs, pre, a, to).is_some_and(ok) {
                return Some(entry);
            }
        }
    }
    None
}
