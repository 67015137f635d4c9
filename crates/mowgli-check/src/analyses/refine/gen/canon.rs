//! Symmetry reduction: the canonical encoding of a client over every renaming of
//! its nodes, locations, objects and values, and its decoding.

use super::*;

pub(super) fn perms(n: usize) -> Vec<Vec<u8>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in perms(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, (n - 1) as u8);
            out.push(q);
        }
    }
    out.sort();
    out
}

/// Renaming maps (old index → new index, `u8::MAX` if unused).
pub(super) struct Renaming<'a> {
    pub(super) node: &'a [u8],
    pub(super) loc: &'a [u8],
    pub(super) oloc: &'a [u8],
    pub(super) obj: &'a [u8],
    pub(super) val: &'a [u8],
}

pub(super) const TAG_LOC: u8 = 1;
pub(super) const TAG_OLOC: u8 = 2;
pub(super) const TAG_LIT: u8 = 3;
pub(super) const TAG_VAL: u8 = 4;
pub(super) const TAG_TUPLE: u8 = 5;
pub(super) const TAG_WID: u8 = 6;
pub(super) const TAG_NODE: u8 = 7;
pub(super) const TAG_NODES: u8 = 8;
pub(super) const TAG_OBJ: u8 = 9;

pub(super) fn encode_call(c: &Call, r: &Renaming, out: &mut Vec<u8>) {
    out.push(c.lib);
    out.push(c.method);
    for a in &c.args {
        match a {
            Arg::Loc(l) => out.extend([TAG_LOC, r.loc[*l as usize]]),
            Arg::OLoc(l) => out.extend([TAG_OLOC, r.oloc[*l as usize]]),
            Arg::Lit(v) => out.extend([TAG_LIT, r.val[*v as usize]]),
            Arg::Val(v) => out.extend([TAG_VAL, r.val[*v as usize]]),
            Arg::Tuple(vs) => {
                out.extend([TAG_TUPLE, vs.len() as u8]);
                out.extend(vs.iter().map(|v| r.val[*v as usize]));
            }
            Arg::Wid(w) => out.extend([TAG_WID, *w]),
            Arg::Node(n) => out.extend([TAG_NODE, r.node[*n as usize]]),
            Arg::Nodes(m) => {
                let mut nm = 0u32;
                for n in 1..=32u32 {
                    if m & (1 << (n - 1)) != 0 {
                        nm |= 1 << (r.node[n as usize] - 1);
                    }
                }
                out.push(TAG_NODES);
                out.extend(nm.to_le_bytes());
            }
            Arg::Obj(o) => out.extend([TAG_OBJ, r.obj[*o as usize]]),
        }
    }
}

/// The buffers of one encoding, reused from renaming to renaming.
#[derive(Default)]
struct Encoder {
    /// The thread blocks, one after the other, and the range of each.
    blocks: Vec<u8>,
    spans: Vec<(usize, usize)>,
    /// The encoding.
    out: Vec<u8>,
}

impl Encoder {
    /// The encoding of `c` under renaming `r` (in `self.out`): header `[k, t, locs,
    /// olocs, objs, rings]`, the thread blocks sorted (each `[len_hi, len_lo, node,
    /// roles…, ncalls, calls…]`), then the homes of the locations and of the observer
    /// locations in their new order.
    fn encode(&mut self, c: &Client, r: &Renaming, used: &Used, sort: bool) {
        let Encoder { blocks, spans, out } = self;
        let nobj = used.objs.len();
        blocks.clear();
        spans.clear();
        for (node, roles, calls) in &c.threads {
            let start = blocks.len();
            blocks.push(r.node[*node as usize]);
            let rs = blocks.len();
            blocks.resize(rs + nobj, 0);
            for &o in &used.objs {
                blocks[rs + r.obj[o as usize] as usize] = roles[o as usize];
            }
            blocks.push(calls.len() as u8);
            for call in calls {
                encode_call(call, r, blocks);
            }
            spans.push((start, blocks.len()));
        }
        if sort {
            spans.sort_unstable_by(|a, b| blocks[a.0..a.1].cmp(&blocks[b.0..b.1]));
        }
        let nrings = used.objs.iter().filter(|&&o| (o as usize) < c.rings).count();
        out.clear();
        out.extend([c.k, c.threads.len() as u8, used.locs.len() as u8, used.olocs.len() as u8, nobj as u8]);
        out.push(nrings as u8);
        for &(s, e) in spans.iter() {
            out.extend(((e - s) as u16).to_be_bytes());
            out.extend_from_slice(&blocks[s..e]);
        }
        let renamed_homes = |out: &mut Vec<u8>, locs: &[u8], map: &[u8], homes: &[u8]| {
            let at = out.len();
            out.resize(at + locs.len(), 0);
            for &l in locs {
                let h = homes[l as usize];
                out[at + map[l as usize] as usize] = if h == 0 { 0 } else { r.node[h as usize] };
            }
        };
        renamed_homes(out, &used.locs, r.loc, &c.homes);
        renamed_homes(out, &used.olocs, r.oloc, &c.ohomes);
    }
}

/// The locations, objects and values a client uses (sorted).
#[derive(Default)]
pub(super) struct Used {
    pub(super) locs: Vec<u8>,
    pub(super) olocs: Vec<u8>,
    pub(super) objs: Vec<u8>,
    pub(super) vals: Vec<u8>,
}

pub(super) fn used_of(c: &Client) -> Used {
    let mut u = Used::default();
    u.fill(c);
    u
}

impl Used {
    /// What `c` uses (the buffers reused).
    pub(super) fn fill(&mut self, c: &Client) {
        // sets of indices (all below 32: the bounds allow at most 8 values, 6
        // locations and 4 objects)
        let (mut locs, mut olocs, mut objs, mut vals) = (0u32, 0u32, 0u32, 0u32);
        for (_, _, calls) in &c.threads {
            for call in calls {
                for a in &call.args {
                    match a {
                        Arg::Loc(l) => locs |= 1 << l,
                        Arg::OLoc(l) => olocs |= 1 << l,
                        // 0, the initial value, is never renamed
                        Arg::Lit(v) | Arg::Val(v) if *v > 0 => vals |= 1 << v,
                        Arg::Tuple(vs) => vs.iter().for_each(|v| vals |= 1 << v),
                        Arg::Obj(o) => objs |= 1 << o,
                        _ => {}
                    }
                }
            }
        }
        for (v, mut set) in
            [(&mut self.locs, locs), (&mut self.olocs, olocs), (&mut self.objs, objs), (&mut self.vals, vals)]
        {
            v.clear();
            while set != 0 {
                v.push(set.trailing_zeros() as u8);
                set &= set - 1;
            }
        }
    }
}

/// The renaming maps of one kind of item, `size` long each, one after the other.
#[derive(Default)]
struct Maps {
    flat: Vec<u8>,
    size: usize,
    count: usize,
    /// What they were made of.
    used: Vec<u8>,
    base: u8,
}

impl Maps {
    /// The used items (sorted) mapped by every permutation `p` of `perms` onto `base..`.
    fn fill(&mut self, size: usize, used: &[u8], perms: &[Vec<u8>], base: u8) {
        if (self.size, self.count, self.base) == (size, perms.len(), base) && self.used == used {
            return; // as for the previous client
        }
        self.used.clear();
        self.used.extend_from_slice(used);
        self.base = base;
        self.flat.clear();
        self.flat.resize(size * perms.len(), u8::MAX);
        for (m, p) in self.flat.chunks_exact_mut(size.max(1)).zip(perms) {
            for (i, &x) in used.iter().enumerate() {
                m[x as usize] = p[i] + base;
            }
        }
        (self.size, self.count) = (size, perms.len());
    }

    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.count).map(|i| &self.flat[i * self.size..(i + 1) * self.size])
    }
}

/// Canonical encodings of clients, with buffers reused from client to client (one
/// `Canon` per worker).
#[derive(Default)]
pub(super) struct Canon {
    /// The renaming maps of nodes, locations, observer locations, objects, values.
    maps: [Maps; 5],
    enc: Encoder,
    best: Vec<u8>,
}

impl Canon {
    /// The canonical encoding of a client (the smallest over all renamings).
    pub(super) fn canonical(&mut self, c: &Client, bounds: &Bounds, used: &Used, pcache: &[Vec<Vec<u8>>]) -> &[u8] {
        let Canon { maps: [node, loc, oloc, obj, val], enc, best } = self;
        if !bounds.symmetry {
            // every location, object and value keeps its name (unused ones are not declared)
            let ident = |n: usize| -> Vec<u8> { (0..n as u8).collect() };
            let nobj = c.rings + c.barriers;
            let full = Used {
                locs: ident(c.homes.len()),
                olocs: ident(c.ohomes.len()),
                objs: ident(nobj),
                vals: (1..=bounds.values as u8).collect(),
            };
            let node: Vec<u8> = (0..=c.k).collect();
            let val: Vec<u8> = (0..=bounds.values as u8).collect();
            let r = Renaming { node: &node, loc: &full.locs, oloc: &full.olocs, obj: &full.objs, val: &val };
            enc.encode(c, &r, &full, false);
            std::mem::swap(best, &mut enc.out);
            return best;
        }
        // nodes 1..=k are permuted (0, no node, is never looked up)
        let k = c.k as usize;
        node.fill(k + 1, &NODES[1..=k], &pcache[k], 1);
        loc.fill(bounds.locs, &used.locs, &pcache[used.locs.len()], 0);
        oloc.fill(bounds.observer_locs, &used.olocs, &pcache[used.olocs.len()], 0);
        // objects of different kinds are never mixed: barriers and rings are not both generated
        obj.fill(bounds.objects, &used.objs, &pcache[used.objs.len()], 0);
        val.fill(bounds.values + 1, &used.vals, &pcache[used.vals.len()], 1);
        // the initial value 0 (a CAS's expected value) stays 0
        val.flat.iter_mut().step_by(bounds.values + 1).for_each(|v| *v = 0);
        best.clear();
        for nm in node.iter() {
            for lm in loc.iter() {
                for om in oloc.iter() {
                    for bm in obj.iter() {
                        for vm in val.iter() {
                            let r = Renaming { node: nm, loc: lm, oloc: om, obj: bm, val: vm };
                            enc.encode(c, &r, used, true);
                            // an encoding is never empty: an empty `best` is none yet
                            if best.is_empty() || enc.out < *best {
                                std::mem::swap(best, &mut enc.out);
                            }
                        }
                    }
                }
            }
        }
        best
    }
}

/// Node numbers.
const NODES: [u8; 9] = [0, 1, 2, 3, 4, 5, 6, 7, 8];

/// Decodes a canonical encoding (locations, objects and values numbered from 0/1).
pub(super) fn decode(key: &[u8], sigs: &[mowgli_core::MethodSig], osigs: &[mowgli_core::MethodSig]) -> Client {
    let (k, t, nl, nol, nobj, nrings) =
        (key[0], key[1] as usize, key[2] as usize, key[3] as usize, key[4] as usize, key[5] as usize);
    let mut pos = 6;
    let mut threads = Vec::with_capacity(t);
    for _ in 0..t {
        let len = u16::from_be_bytes([key[pos], key[pos + 1]]) as usize;
        pos += 2;
        let b = &key[pos..pos + len];
        pos += len;
        let node = b[0];
        let roles = b[1..1 + nobj].to_vec();
        let ncalls = b[1 + nobj] as usize;
        let mut q = 2 + nobj;
        let mut calls = Vec::with_capacity(ncalls);
        for _ in 0..ncalls {
            let (lib, method) = (b[q], b[q + 1]);
            q += 2;
            let sig = if lib == 0 { &sigs[method as usize] } else { &osigs[method as usize] };
            let mut args = Vec::with_capacity(sig.params.len());
            for _ in &sig.params {
                let tag = b[q];
                q += 1;
                let a = match tag {
                    TAG_LOC => Arg::Loc(b[q]),
                    TAG_OLOC => Arg::OLoc(b[q]),
                    TAG_LIT => Arg::Lit(b[q]),
                    TAG_VAL => Arg::Val(b[q]),
                    TAG_TUPLE => {
                        let n = b[q] as usize;
                        let vs = b[q + 1..q + 1 + n].to_vec();
                        q += n;
                        Arg::Tuple(vs)
                    }
                    TAG_WID => Arg::Wid(b[q]),
                    TAG_NODE => Arg::Node(b[q]),
                    TAG_NODES => {
                        let m = u32::from_le_bytes([b[q], b[q + 1], b[q + 2], b[q + 3]]);
                        q += 3;
                        Arg::Nodes(m)
                    }
                    TAG_OBJ => Arg::Obj(b[q]),
                    _ => unreachable!("bad tag {tag}"),
                };
                q += 1;
                args.push(a);
            }
            calls.push(Call { lib, method, args });
        }
        threads.push((node, roles, calls));
    }
    let homes = key[pos..pos + nl].to_vec();
    let ohomes = key[pos + nl..pos + nl + nol].to_vec();
    Client { k, threads, homes, ohomes, rings: nrings, barriers: nobj - nrings }
}

impl Generator {
    /// The canonical encoding of a straight-line litmus program over this
    /// generator's library (no observer, barriers or rings), the same as that of the
    /// generated client it renames to: threads in declaration order, nodes renumbered
    /// `1..` in increasing order over the nodes of threads and of used locations, used
    /// locations in declaration order, work identifiers that no later `Wait` uses
    /// made `_`. Register and location names do not matter. An error when the
    /// program is not of that form or exceeds the bounds (locations, values `1..=V`).
    /// The grammar's other filters (e.g. [`Bounds::connected`]) are not applied.
    pub fn canonical_key(&self, text: &str) -> Result<Vec<u8>, String> {
        use crate::lang::ast::{Ex, Rhs, Stmt};
        if self.decl.objects.is_some() || self.observer.is_some() {
            return Err(format!("canonical keys of `{}` programs are not supported", self.lib));
        }
        let ast = crate::lang::syntax::parse(text).map_err(|e| format!("{}:{}: {}", e.line, e.col, e.msg))?;
        if ast.libraries.len() != 1 || ast.libraries[0].text != self.lib {
            return Err(format!("expected a program over `{}` alone", self.lib));
        }
        // the calls of each thread: (method, arguments)
        let mut bodies: Vec<Vec<(usize, Vec<Ex>)>> = Vec::new();
        for (tname, _) in &ast.threads {
            let mut calls = Vec::new();
            for (bname, stmts) in ast.bodies.iter().filter(|(b, _)| b.text == tname.text) {
                for st in stmts {
                    let call = match st {
                        Stmt::Call(c) => c,
                        Stmt::Assign { rhs: Rhs::Call(c), .. } | Stmt::Let { rhs: Rhs::Call(c), .. } => c,
                        _ => return Err(format!("thread {}: not a straight-line list of calls", bname.text)),
                    };
                    let m = self
                        .sigs
                        .iter()
                        .position(|m| m.name == call.method.text)
                        .ok_or_else(|| format!("unknown method `{}`", call.method.text))?;
                    calls.push((m, call.args.clone()));
                }
            }
            bodies.push(calls);
        }
        let var = |e: &Ex| match e {
            Ex::Var(n) => Some(n.text.clone()),
            _ => None,
        };
        // used locations, in declaration order
        let mut used_names: Vec<&crate::lang::syntax::LocDecl> = Vec::new();
        for d in &ast.locs {
            let is_used = bodies.iter().flatten().any(|(m, args)| {
                args.iter().zip(&self.sigs[*m].params).any(|(a, p)| {
                    matches!(p, Param::Loc | Param::Src) && var(a).as_deref() == Some(d.name.text.as_str())
                })
            });
            if is_used {
                if d.init.is_some() {
                    return Err(format!("location `{}` has an initial value", d.name.text));
                }
                used_names.push(d);
            }
        }
        if used_names.len() > self.nlocs() {
            return Err(format!("{} locations used, more than the bound {}", used_names.len(), self.nlocs()));
        }
        let mut nodes: Vec<i64> = ast.threads.iter().map(|t| t.1).collect();
        nodes.extend(used_names.iter().filter_map(|d| d.node));
        nodes.sort();
        nodes.dedup();
        if nodes.len() > self.bounds.nodes {
            return Err(format!("{} nodes, more than the bound {}", nodes.len(), self.bounds.nodes));
        }
        let node_of = |n: i64| -> Result<u8, String> {
            nodes
                .iter()
                .position(|&m| m == n)
                .map(|i| i as u8 + 1)
                .ok_or_else(|| format!("node {n} has no thread or location"))
        };
        let loc_of = |e: &Ex| -> Option<u8> {
            let n = var(e)?;
            used_names.iter().position(|d| d.name.text == n).map(|i| i as u8)
        };
        let value = |v: i64| -> Result<u8, String> {
            if v >= 1 && v <= self.bounds.values as i64 {
                Ok(v as u8)
            } else {
                Err(format!("value {v} outside 1..={}", self.bounds.values))
            }
        };
        let int = |e: &Ex| match e {
            Ex::Int(v, _) => Some(*v),
            _ => None,
        };
        let mut threads = Vec::new();
        for (ti, (_, tnode)) in ast.threads.iter().enumerate() {
            let calls = &bodies[ti];
            // work identifiers a later Wait uses, numbered by first use
            let mut wid_names: Vec<String> = Vec::new();
            for (ci, (m, args)) in calls.iter().enumerate() {
                if self.sigs[*m].awaits() {
                    continue;
                }
                for (a, p) in args.iter().zip(&self.sigs[*m].params) {
                    let Some(n) = var(a).filter(|_| *p == Param::Wid && var(a).as_deref() != Some("_")) else {
                        continue;
                    };
                    let waited = calls[ci + 1..]
                        .iter()
                        .any(|(m2, a2)| self.sigs[*m2].awaits() && a2.iter().any(|x| var(x).as_deref() == Some(&n)));
                    if waited && !wid_names.contains(&n) {
                        wid_names.push(n);
                    }
                }
            }
            if wid_names.len() > self.bounds.wids {
                return Err(format!(
                    "{} work identifiers in a thread, more than the bound {}",
                    wid_names.len(),
                    self.bounds.wids
                ));
            }
            let mut out = Vec::new();
            for (m, args) in calls {
                let sig = &self.sigs[*m];
                if args.len() != sig.params.len() {
                    return Err(format!("`{}` takes {} arguments", sig.name, sig.params.len()));
                }
                let mut cargs = Vec::new();
                for (a, p) in args.iter().zip(&sig.params) {
                    let bad = || format!("unexpected argument of `{}`", sig.name);
                    cargs.push(match p {
                        Param::Loc => Arg::Loc(loc_of(a).ok_or_else(bad)?),
                        Param::Src => match (loc_of(a), int(a)) {
                            (Some(l), _) => Arg::Loc(l),
                            (None, Some(v)) => Arg::Lit(value(v)?),
                            _ => return Err(bad()),
                        },
                        Param::Val => match a {
                            Ex::Int(v, _) if !self.decl.tuples => Arg::Val(value(*v)?),
                            Ex::Tuple(vs, _) if self.decl.tuples => {
                                let vs: Result<Vec<u8>, String> =
                                    vs.iter().map(|v| int(v).ok_or_else(bad).and_then(value)).collect();
                                Arg::Tuple(vs?)
                            }
                            _ => return Err(bad()),
                        },
                        Param::Wid => {
                            let n = var(a).ok_or_else(bad)?;
                            Arg::Wid(wid_names.iter().position(|w| *w == n).map(|i| i as u8 + 1).unwrap_or(0))
                        }
                        Param::Node => Arg::Node(node_of(int(a).ok_or_else(bad)?)?),
                        Param::Nodes => match a {
                            Ex::Set(ns, _) => {
                                let mut mask = 0u32;
                                for n in ns {
                                    mask |= 1 << (node_of(int(n).ok_or_else(bad)?)? - 1);
                                }
                                Arg::Nodes(mask)
                            }
                            _ => return Err(bad()),
                        },
                        Param::Obj => return Err(bad()),
                    });
                }
                out.push(Call { lib: 0, method: *m as u8, args: cargs });
            }
            threads.push((node_of(*tnode)?, Vec::new(), out));
        }
        let mut homes = vec![if self.placed() { 1 } else { 0 }; self.nlocs()];
        for (i, d) in used_names.iter().enumerate() {
            homes[i] = match (d.node, self.placed()) {
                (Some(n), true) => node_of(n)?,
                (None, false) => 0,
                _ => return Err(format!("location `{}` is not placed as `{}` expects", d.name.text, self.lib)),
            };
        }
        let client = Client { k: nodes.len() as u8, threads, homes, ohomes: Vec::new(), rings: 0, barriers: 0 };
        let used = used_of(&client);
        let pcache = self.perm_cache();
        Ok(Canon::default().canonical(&client, &self.bounds, &used, &pcache).to_vec())
    }
}
