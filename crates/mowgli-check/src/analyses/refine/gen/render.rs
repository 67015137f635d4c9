//! Clients as litmus texts: names of locations, objects and work identifiers.

use super::canon::{decode, used_of};
use super::enumerate::Here;
use super::*;
use crate::lang::ast::{CallEx, Ex, Rhs, Stmt};
use crate::lang::lex::Name;
use crate::lang::print;
use crate::lang::syntax::{Litmus, LocDecl, Pos};

/// The names of locations: the implemented library's, then the observer's.
pub(super) const LOC_NAMES: [&str; 6] = ["x", "y", "w", "u", "v", "s"];
pub(super) const OLOC_NAMES: [&str; 6] = ["a", "b", "c", "e", "f", "g"];
pub(super) const WID_LETTERS: [&str; 6] = ["d", "e", "f", "g", "h", "i"];

pub(super) fn loc_name(i: u8) -> String {
    LOC_NAMES.get(i as usize).map_or_else(|| format!("x{i}"), |s| s.to_string())
}
/// The name of observer location `i` in generated clients (`a`, `b`, …).
pub fn observer_location(i: usize) -> String {
    oloc_name(i.min(255) as u8)
}

pub(super) fn oloc_name(i: u8) -> String {
    OLOC_NAMES.get(i as usize).map_or_else(|| format!("a{i}"), |s| s.to_string())
}

/// `prefix` and the number `i` (without the formatting machinery below 10: every
/// checked client names its threads, registers and work identifiers).
fn numbered(prefix: &str, i: usize) -> String {
    if i >= 10 {
        return format!("{prefix}{i}");
    }
    let mut s = String::with_capacity(prefix.len() + 1);
    s.push_str(prefix);
    s.push(char::from(b'0' + i as u8));
    s
}
pub(super) fn obj_name(c: &Client, o: u8) -> String {
    let ring = (o as usize) < c.rings;
    let n = c.rings + c.barriers;
    match (ring, n) {
        (true, 1) => "q".into(),
        (false, 1) => "z".into(),
        (true, _) => numbered("q", o as usize + 1),
        (false, _) => numbered("z", o as usize + 1),
    }
}

impl Generator {
    /// The client space in words: the methods each library's calls are drawn
    /// from (every method of its declaration, or those `--methods` keeps), how
    /// the observer names its work identifiers.
    pub fn space(&self) -> String {
        let names = |sigs: &[mowgli_core::MethodSig], keep: &dyn Fn(&mowgli_core::MethodSig) -> bool| {
            sigs.iter().filter(|m| !m.name.starts_with('#') && keep(m)).map(|m| m.name).collect::<Vec<_>>().join(", ")
        };
        let mine = |m: &mowgli_core::MethodSig| {
            (self.bounds.extensions || !m.extension)
                && self.bounds.methods.as_ref().is_none_or(|ms| ms.iter().any(|n| n == m.name))
        };
        let mut s = format!("calls of `{}` ({})", self.lib, names(&self.sigs, &mine));
        if let Some(o) = &self.odecl {
            let fences = self.bounds.observer_fences;
            let owids = self.bounds.observer_wids;
            let keep = |m: &mowgli_core::MethodSig| {
                (owids > 0 || !m.awaits()) && (fences || !m.params.iter().all(|p| *p == Param::Nodes))
            };
            let wids = match owids {
                0 => "its work identifiers `_`".to_string(),
                n => format!("up to {n} work identifier{} per thread", if n == 1 { "" } else { "s" }),
            };
            s += &format!(" and of the observer `{}` ({}; {wids})", o.name, names(&o.sigs, &keep));
        }
        s
    }

    /// The litmus text of client `i` of a class, named `name`.
    pub fn render(&self, class: &SizeClass, i: usize, name: &str) -> String {
        self.render_with(class, i, name, &class.description)
    }

    /// The description line of a generated client of `size` calls.
    pub(super) fn description(&self, size: usize) -> String {
        let b = &self.bounds;
        format!(
            "generated client for {} ({} call{}; bounds: {} threads, {} nodes, {} calls per thread{})",
            self.lib,
            size,
            if size == 1 { "" } else { "s" },
            b.threads,
            b.nodes,
            b.calls,
            b.size.map(|s| format!(", {s} calls in all")).unwrap_or_default()
        )
    }

    /// The litmus text of client `i` of a class, named `name`, with description
    /// `description` (no expectations).
    pub fn render_with(&self, class: &SizeClass, i: usize, name: &str, description: &str) -> String {
        let osigs: &[mowgli_core::MethodSig] = self.observer.as_ref().map(|o| o.1.as_slice()).unwrap_or(&[]);
        let c = decode(&class.keys[i], &self.sigs, osigs);
        self.render_client(&c, name, description)
    }

    pub(super) fn render_client(&self, c: &Client, name: &str, description: &str) -> String {
        print::print(&self.client_litmus(c, name, description))
    }

    /// The test of client `i` of a class, named `name`, as the parser would give
    /// it back from its text ([`Generator::render`] prints it): checked without
    /// a text round trip.
    pub fn litmus(&self, class: &SizeClass, i: usize, name: &str) -> Litmus {
        self.litmus_with(class, i, name, &class.description)
    }

    /// [`Generator::litmus`] with description `description` (what
    /// [`Generator::render_with`] prints).
    pub fn litmus_with(&self, class: &SizeClass, i: usize, name: &str, description: &str) -> Litmus {
        let osigs: &[mowgli_core::MethodSig] = self.observer.as_ref().map(|o| o.1.as_slice()).unwrap_or(&[]);
        let c = decode(&class.keys[i], &self.sigs, osigs);
        self.client_litmus(&c, name, description)
    }

    /// The test of a client (positions are the default: it has no text).
    pub(super) fn client_litmus(&self, c: &Client, name: &str, description: &str) -> Litmus {
        let b = &self.bounds;
        let osigs: &[mowgli_core::MethodSig] = self.observer.as_ref().map(|o| o.1.as_slice()).unwrap_or(&[]);
        let nm = |text: String| Name { text, pos: Pos::default() };
        let mut libraries = vec![nm(self.lib.clone())];
        if let Some((o, _)) = &self.observer {
            if c.threads.iter().any(|t| t.2.iter().any(|x| x.lib == 1)) {
                libraries.push(nm(o.clone()));
            }
        }
        let tname = |i: usize| nm(numbered("T", i + 1));
        let threads = c.threads.iter().enumerate().map(|(i, (n, _, _))| (tname(i), i64::from(*n))).collect();
        let used = used_of(c);
        let mut locs = Vec::new();
        for (l, &h) in c.homes.iter().enumerate() {
            if used.locs.contains(&(l as u8)) {
                locs.push(LocDecl {
                    name: nm(loc_name(l as u8)),
                    node: (h != 0).then_some(i64::from(h)),
                    init: None,
                    size: self.decl.tuples.then_some(b.tuple_size as i64),
                });
            }
        }
        for (l, &h) in c.ohomes.iter().enumerate() {
            if used.olocs.contains(&(l as u8)) {
                locs.push(LocDecl {
                    name: nm(oloc_name(l as u8)),
                    node: (h != 0).then_some(i64::from(h)),
                    init: None,
                    size: None,
                });
            }
        }
        let (mut rings, mut barriers) = (Vec::new(), Vec::new());
        for o in 0..c.rings + c.barriers {
            if !used.objs.contains(&(o as u8)) {
                continue;
            }
            let name = nm(obj_name(c, o as u8));
            let with = |bit: u8| -> Vec<Name> {
                c.threads.iter().enumerate().filter(|(_, t)| t.1[o] & bit != 0).map(|(i, _)| tname(i)).collect()
            };
            if o < c.rings {
                let mut writers = with(1);
                // a ring has one writer (the generator gives each ring exactly one)
                let writer = if writers.is_empty() { nm(String::new()) } else { writers.remove(0) };
                rings.push((name, writer, with(2), None));
            } else {
                barriers.push((name, with(1)));
            }
        }
        let clash = |name: &str, lib: u8| -> bool {
            let other: &[mowgli_core::MethodSig] = if lib == 0 { osigs } else { &self.sigs };
            other.iter().any(|m| m.name == name)
        };
        let int = |v: i64| Ex::Int(v, Pos::default());
        let mut bodies = Vec::new();
        for (i, (_, _, calls)) in c.threads.iter().enumerate() {
            let mut reg = 0;
            let mut body = Vec::new();
            for call in calls {
                let (sig, lname) = if call.lib == 0 {
                    (&self.sigs[call.method as usize], self.lib.as_str())
                } else {
                    (&osigs[call.method as usize], self.observer.as_ref().map(|o| o.0.as_str()).unwrap_or("?"))
                };
                let args: Vec<Ex> = call
                    .args
                    .iter()
                    .map(|a| match a {
                        Arg::Loc(l) => Ex::Var(nm(loc_name(*l))),
                        Arg::OLoc(l) => Ex::Var(nm(oloc_name(*l))),
                        Arg::Lit(v) | Arg::Val(v) => int(i64::from(*v)),
                        Arg::Tuple(vs) => Ex::Tuple(vs.iter().map(|v| int(i64::from(*v))).collect(), Pos::default()),
                        Arg::Wid(0) => Ex::Var(nm("_".into())),
                        Arg::Wid(w) => Ex::Var(nm(numbered(WID_LETTERS[*w as usize - 1], i + 1))),
                        Arg::Node(n) => int(i64::from(*n)),
                        Arg::Nodes(m) => Ex::Set(
                            (1..=32u32).filter(|n| m & (1 << (n - 1)) != 0).map(|n| int(i64::from(n))).collect(),
                            Pos::default(),
                        ),
                        Arg::Obj(o) => Ex::Var(nm(obj_name(c, *o))),
                    })
                    .collect();
                let lib = clash(sig.name, call.lib).then(|| nm(lname.to_string()));
                let ce = CallEx { lib, method: nm(sig.name.to_string()), args };
                body.push(if self.returns(call) {
                    reg += 1;
                    Stmt::Assign { name: nm(numbered("r", reg - 1)), rhs: Rhs::Call(ce) }
                } else {
                    Stmt::Call(ce)
                });
            }
            bodies.push((tname(i), body));
        }
        Litmus {
            name: name.to_string(),
            description: Some(description.replace('"', "'")),
            libraries,
            libraries_pos: Some(Pos::default()),
            threads,
            locs,
            barriers,
            rings,
            bodies,
            expects: Vec::new(),
            herd: None,
        }
    }
}

/// An observer call as the generator draws it ([`Generator::observer_calls`]).
#[derive(Clone, Debug)]
pub struct DrawnCall {
    /// The call, qualified by the observer library's name.
    pub call: CallEx,
    /// It returns a value (a register binds it).
    pub returns: bool,
    /// The observer locations it names (indices into the homes given).
    pub locs: Vec<usize>,
    /// Those it writes (by its declaration: a location parameter `written`).
    pub written: Vec<usize>,
    /// Its work identifiers other than `_`: (argument index, identifier
    /// `0..observer_wids`, whether the call waits for it). The argument is a
    /// placeholder name ([`observer_wid`]) for the caller to rename.
    pub wids: Vec<(usize, usize, bool)>,
}

/// The placeholder name of observer work identifier `w` in [`DrawnCall::call`].
pub fn observer_wid(w: usize) -> String {
    numbered(WID_LETTERS[0], w + 1)
}

impl Generator {
    /// The observer library's name, if the bounds have one.
    pub fn observer(&self) -> Option<&str> {
        self.observer.as_ref().map(|o| o.0.as_str())
    }

    /// The observer's calls a thread on node `at` may make, drawn by parameter
    /// role exactly as the generator draws them for its clients (every method of
    /// the observer's declaration that the bounds keep; work identifiers `_`, and
    /// with `observer_wids` also `0..observer_wids` ([`DrawnCall::wids`]: the
    /// caller names them and keeps only the calls whose waits follow the grammar
    /// of the module doc), in a client whose nodes are `nodes` and whose
    /// observer locations `a`, `b`, … have homes `homes` (ignored on replicated
    /// memory). Empty without an observer, or when `at` or a home is not in `nodes`.
    pub fn observer_calls(&self, nodes: &[i64], at: i64, homes: &[i64]) -> Vec<DrawnCall> {
        let (Some(o), Some((oname, _))) = (&self.odecl, &self.observer) else { return Vec::new() };
        let index = |n: i64| nodes.iter().position(|&m| m == n).map(|i| i as u8 + 1);
        let Some(node) = index(at) else { return Vec::new() };
        let mut h = Vec::new();
        for &n in homes {
            match (o.placed, index(n)) {
                (false, _) => h.push(0),
                (true, Some(i)) => h.push(i),
                (true, None) => return Vec::new(),
            }
        }
        if nodes.len() > 8 || h.len() > OLOC_NAMES.len() {
            return Vec::new();
        }
        let mut calls = Vec::new();
        let there = Here { k: nodes.len() as u8, node, roles: &[], homes: &h };
        self.lib_calls(1, o, &there, &mut calls);
        let nm = |text: String| Name { text, pos: Pos::default() };
        let int = |v: i64| Ex::Int(v, Pos::default());
        let node_of = |n: u8| int(nodes[n as usize - 1]);
        // the observer's work identifiers follow the implemented library's
        let first = self.bounds.wids + 1;
        calls
            .iter()
            .filter_map(|c| {
                let sig = self.sig_of(c);
                let mut locs = Vec::new();
                let mut written = Vec::new();
                let mut wids = Vec::new();
                let mut args = Vec::new();
                for (i, a) in c.args.iter().enumerate() {
                    args.push(match a {
                        Arg::OLoc(l) => {
                            locs.push(*l as usize);
                            if Decl::writes(sig, i) {
                                written.push(*l as usize);
                            }
                            Ex::Var(nm(oloc_name(*l)))
                        }
                        Arg::Lit(v) | Arg::Val(v) => int(i64::from(*v)),
                        Arg::Tuple(vs) => Ex::Tuple(vs.iter().map(|v| int(i64::from(*v))).collect(), Pos::default()),
                        Arg::Wid(0) => Ex::Var(nm("_".into())),
                        Arg::Wid(w) if (*w as usize) >= first => {
                            let w = *w as usize - first;
                            wids.push((i, w, matches!(sig.role(i), Role::Wid { awaited: true })));
                            Ex::Var(nm(observer_wid(w)))
                        }
                        Arg::Node(n) => node_of(*n),
                        Arg::Nodes(m) => Ex::Set(
                            (1..=nodes.len() as u8).filter(|n| m & (1 << (n - 1)) != 0).map(node_of).collect(),
                            Pos::default(),
                        ),
                        // the observer has no locations of the implemented library,
                        // no objects and no work identifiers of the implemented library
                        Arg::Loc(_) | Arg::Obj(_) | Arg::Wid(_) => return None,
                    });
                }
                let call = CallEx { lib: Some(nm(oname.clone())), method: nm(sig.name.to_string()), args };
                Some(DrawnCall { call, returns: self.returns(c), locs, written, wids })
            })
            .collect()
    }
}
