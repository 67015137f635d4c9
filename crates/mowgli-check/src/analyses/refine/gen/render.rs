//! Clients as litmus texts: names of locations, objects and work identifiers.

use super::canon::{decode, used_of};
use super::*;

/// The names of locations: the implemented library's, then the observer's.
pub(super) const LOC_NAMES: [&str; 6] = ["x", "y", "w", "u", "v", "s"];
pub(super) const OLOC_NAMES: [&str; 6] = ["a", "b", "c", "e", "f", "g"];
pub(super) const WID_LETTERS: [&str; 6] = ["d", "e", "f", "g", "h", "i"];

pub(super) fn loc_name(i: u8) -> String {
    LOC_NAMES.get(i as usize).map(|s| s.to_string()).unwrap_or(format!("x{i}"))
}
pub(super) fn oloc_name(i: u8) -> String {
    OLOC_NAMES.get(i as usize).map(|s| s.to_string()).unwrap_or(format!("a{i}"))
}
pub(super) fn obj_name(c: &Client, o: u8) -> String {
    let ring = (o as usize) < c.rings;
    let n = c.rings + c.barriers;
    match (ring, n) {
        (true, 1) => "q".into(),
        (false, 1) => "z".into(),
        (true, _) => format!("q{}", o + 1),
        (false, _) => format!("z{}", o + 1),
    }
}

pub(super) fn nodes_text(m: u32) -> String {
    let ns: Vec<String> = (1..=32u32).filter(|n| m & (1 << (n - 1)) != 0).map(|n| n.to_string()).collect();
    format!("{{{}}}", ns.join(", "))
}

/// Whether a method writes the location of its first argument (`Write`, `CAS`,
/// `Put`/`Get` at their destination, `sv`'s `Bcast` to the other copies).
pub(super) fn writes_first(m: &str) -> bool {
    matches!(m, "Write" | "CAS" | "Put" | "Get" | "Bcast")
}

impl Generator {
    /// The litmus text of client `i` of a class, named `name`.
    pub fn render(&self, class: &SizeClass, i: usize, name: &str) -> String {
        let b = &self.bounds;
        let size = class.size;
        let description = format!(
            "generated client for {} ({} call{}; bounds: {} threads, {} nodes, {} calls per thread{})",
            self.lib,
            size,
            if size == 1 { "" } else { "s" },
            b.threads,
            b.nodes,
            b.calls,
            b.size.map(|s| format!(", {s} calls in all")).unwrap_or_default()
        );
        self.render_with(class, i, name, &description)
    }

    /// The litmus text of client `i` of a class, named `name`, with description
    /// `description` (no expectations).
    pub fn render_with(&self, class: &SizeClass, i: usize, name: &str, description: &str) -> String {
        let osigs: &[mowgli_core::MethodSig] = self.observer.as_ref().map(|o| o.1.as_slice()).unwrap_or(&[]);
        let c = decode(&class.keys[i], &self.sigs, osigs);
        self.render_client(&c, name, description)
    }

    pub(super) fn render_client(&self, c: &Client, name: &str, description: &str) -> String {
        let b = &self.bounds;
        let osigs: &[mowgli_core::MethodSig] = self.observer.as_ref().map(|o| o.1.as_slice()).unwrap_or(&[]);
        let mut s = format!("test {name}\n");
        s += &format!("\"{}\"\n", description.replace('"', "'"));
        let libs = match &self.observer {
            Some((o, _)) if c.threads.iter().any(|t| t.2.iter().any(|x| x.lib == 1)) => {
                format!("{}, {o}", self.lib)
            }
            _ => self.lib.clone(),
        };
        s += &format!("libraries {libs}\n");
        let tname = |i: usize| format!("T{}", i + 1);
        for (i, (n, _, _)) in c.threads.iter().enumerate() {
            s += &format!("thread {} @ {n}\n", tname(i));
        }
        let used = used_of(c);
        for (l, &h) in c.homes.iter().enumerate() {
            if !used.locs.contains(&(l as u8)) {
                continue;
            }
            let name = loc_name(l as u8);
            s += &match (h, self.kind) {
                (0, _) => format!("loc {name}\n"),
                (_, Kind::Msw) => format!("loc {name} @ {h} size {}\n", b.tuple_size),
                _ => format!("loc {name} @ {h}\n"),
            };
        }
        for (l, &h) in c.ohomes.iter().enumerate() {
            if !used.olocs.contains(&(l as u8)) {
                continue;
            }
            s += &if h == 0 {
                format!("loc {}\n", oloc_name(l as u8))
            } else {
                format!("loc {} @ {h}\n", oloc_name(l as u8))
            };
        }
        let nobj = c.rings + c.barriers;
        for o in 0..nobj {
            if !used.objs.contains(&(o as u8)) {
                continue;
            }
            let name = obj_name(c, o as u8);
            let with = |bit: u8| -> Vec<String> {
                c.threads.iter().enumerate().filter(|(_, t)| t.1[o] & bit != 0).map(|(i, _)| tname(i)).collect()
            };
            if o < c.rings {
                s += &format!("ring {name} : writer {} readers {}\n", with(1).join(", "), with(2).join(", "));
            } else {
                s += &format!("barrier {name} : {}\n", with(1).join(", "));
            }
        }
        let clash = |name: &str, lib: u8| -> bool {
            let other: &[mowgli_core::MethodSig] = if lib == 0 { osigs } else { &self.sigs };
            other.iter().any(|m| m.name == name)
        };
        for (i, (_, _, calls)) in c.threads.iter().enumerate() {
            s += &format!("{}:\n", tname(i));
            let mut reg = 0;
            for call in calls {
                let (sig, lname) = if call.lib == 0 {
                    (&self.sigs[call.method as usize], self.lib.as_str())
                } else {
                    (&osigs[call.method as usize], self.observer.as_ref().map(|o| o.0.as_str()).unwrap_or("?"))
                };
                let args: Vec<String> = call
                    .args
                    .iter()
                    .map(|a| match a {
                        Arg::Loc(l) => loc_name(*l),
                        Arg::OLoc(l) => oloc_name(*l),
                        Arg::Lit(v) | Arg::Val(v) => v.to_string(),
                        Arg::Tuple(vs) => {
                            format!("[{}]", vs.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
                        }
                        Arg::Wid(0) => "_".into(),
                        Arg::Wid(w) => format!("{}{}", WID_LETTERS[*w as usize - 1], i + 1),
                        Arg::Node(n) => n.to_string(),
                        Arg::Nodes(m) => nodes_text(*m),
                        Arg::Obj(o) => obj_name(c, *o),
                    })
                    .collect();
                let lhs = if self.returns(call) {
                    reg += 1;
                    format!("r{} = ", reg - 1)
                } else {
                    String::new()
                };
                let q = if clash(sig.name, call.lib) { format!("{lname}.") } else { String::new() };
                s += &format!("  {lhs}{q}{}({})\n", sig.name, args.join(", "));
            }
        }
        s
    }
}
