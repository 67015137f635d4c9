//! The clients of a size class: shapes, per-thread call sequences, the grammar's
//! filters, and the reduction to canonical clients.

use super::canon::*;
use super::*;

impl Generator {
    /// A generator for the built-in library `lib` under `order`.
    pub fn new(lib: &str, order: &StampOrder, bounds: &Bounds) -> Result<Generator, String> {
        Generator::in_catalogue(lib, order, &Catalogue::builtins(), bounds)
    }

    /// A generator for the library `lib` of `cat` (a litmus library name) under `order`.
    pub fn in_catalogue(lib: &str, order: &StampOrder, cat: &Catalogue, bounds: &Bounds) -> Result<Generator, String> {
        let l: Box<dyn Library> = cat.library(lib, order).map_err(|e| e.to_string())?;
        let decl = Decl::of(l.as_ref());
        let sigs = decl.sigs.clone();
        let odecl = match &bounds.observer {
            Some(o) if o == lib => None,
            Some(o) => Some(Decl::of(cat.library(o, order).map_err(|e| e.to_string())?.as_ref())),
            None => None,
        };
        if let Some(o) = &odecl {
            if o.objects.is_some() || !o.has_locs {
                return Err(format!(
                    "the observer library `{}` must have locations and no barriers or rings (its reads observe)",
                    o.name
                ));
            }
        }
        let observer = odecl.as_ref().map(|o| (o.name.clone(), o.sigs.clone()));
        let b = bounds;
        if b.threads == 0 || b.nodes == 0 || b.calls == 0 {
            return Err("threads, nodes and calls must be at least 1".into());
        }
        if b.threads > 8 || b.nodes > 8 || b.calls > 16 || b.values > 8 || b.locs > 6 || b.observer_locs > 6 {
            return Err("bounds too large: at most 8 threads, 8 nodes, 16 calls, 8 values, 6 locations".into());
        }
        if b.objects > 4 || b.wids + b.observer_wids > 6 || b.tuple_size > 8 {
            return Err("bounds too large: at most 4 objects, 6 work identifiers, tuples of 8".into());
        }
        if decl.objects.is_some() && b.objects == 0 {
            return Err(format!("`{lib}` clients need at least one object (`--objects`)"));
        }
        if decl.has_locs && b.locs == 0 && observer.is_none() && b.need_register {
            return Err(format!("`{lib}` clients need at least one location (`--locs`)"));
        }
        if b.values == 0 {
            return Err("values must be at least 1".into());
        }
        Ok(Generator { lib: lib.to_string(), decl, sigs, observer, odecl, bounds: bounds.clone(), deadline: None })
    }

    /// The largest size (total calls).
    pub fn max_size(&self) -> usize {
        let all = self.bounds.threads * self.bounds.calls;
        self.bounds.size.map_or(all, |s| s.min(all))
    }

    pub fn library(&self) -> &str {
        &self.lib
    }

    pub(super) fn placed(&self) -> bool {
        self.decl.placed
    }

    pub(super) fn nlocs(&self) -> usize {
        if self.decl.has_locs {
            self.bounds.locs
        } else {
            0
        }
    }

    pub(super) fn nolocs(&self) -> usize {
        if self.observer.is_some() {
            self.bounds.observer_locs
        } else {
            0
        }
    }

    pub(super) fn nobjs(&self) -> usize {
        if self.decl.objects.is_some() {
            self.bounds.objects
        } else {
            0
        }
    }

    /// Object configurations for `t` threads (the first is the default, used for
    /// unused objects).
    pub(super) fn obj_options(&self, t: usize) -> Vec<ObjCfg> {
        match self.decl.objects {
            Some(Objects::Barriers) => {
                let all = (1u32 << t) - 1;
                if self.bounds.objects == 1 {
                    vec![ObjCfg::Barrier(all)]
                } else {
                    let min = t.min(2) as u32;
                    let mut v = vec![ObjCfg::Barrier(all)];
                    v.extend((1..all).filter(|m| m.count_ones() >= min).map(ObjCfg::Barrier));
                    v
                }
            }
            Some(Objects::Rings) => {
                // the writer and every other thread reading first (the one
                // configuration of the generator before self-reading writers)
                let all = (1u32 << t) - 1;
                let mut v = Vec::new();
                for w in 0..t as u8 {
                    let others = if t == 1 { all } else { all & !(1 << w) };
                    v.push(ObjCfg::Ring(w, others));
                    if self.bounds.self_reading_writers {
                        v.extend((1..=all).filter(|&m| m != others).map(|m| ObjCfg::Ring(w, m)));
                    }
                }
                v
            }
            None => vec![],
        }
    }

    pub(super) fn roles(&self, cfgs: &[ObjCfg], i: usize) -> Vec<u8> {
        cfgs.iter()
            .map(|c| match c {
                ObjCfg::Barrier(m) => (m >> i & 1) as u8,
                ObjCfg::Ring(w, readers) => (*w as usize == i) as u8 | ((readers >> i & 1) as u8) << 1,
            })
            .collect()
    }

    pub(super) fn values(&self) -> impl Iterator<Item = u8> {
        1..=self.bounds.values as u8
    }

    pub(super) fn tuples(&self, n: usize) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = vec![vec![]];
        for _ in 0..n {
            out = out.into_iter().flat_map(|p| self.values().map(move |v| [p.clone(), vec![v]].concat())).collect();
        }
        out
    }

    /// The calls thread `i` may make (work identifiers not yet filtered): those of
    /// the implemented library, then the observer's.
    pub(super) fn alphabet(&self, k: u8, node: u8, roles: &[u8], homes: &[u8], ohomes: &[u8]) -> Vec<Call> {
        let mut out = Vec::new();
        let here = Here { k, node, roles, homes };
        self.lib_calls(0, &self.decl, &here, &mut out);
        if let Some(o) = &self.odecl {
            let there = Here { k, node, roles: &[], homes: ohomes };
            self.lib_calls(1, o, &there, &mut out);
        }
        out
    }

    /// The calls of library `lib` (0: the implemented one, 1: the observer) a
    /// thread on node `at.node` may make, with arguments by parameter role.
    pub(super) fn lib_calls(&self, lib: u8, decl: &Decl, at: &Here, out: &mut Vec<Call>) {
        let observer = lib == 1;
        let nlocs = if observer { self.nolocs() } else { self.nlocs() } as u8;
        let loc = |l: u8| if observer { Arg::OLoc(l) } else { Arg::Loc(l) };
        let node_sets: Vec<u32> = (1..(1u32 << at.k)).collect();
        let remote_only = self.bounds.remote_only && decl.placed;
        for (mi, sig) in decl.sigs.iter().enumerate() {
            if sig.name.starts_with('#')
                || (sig.extension && !self.bounds.extensions)
                || (!observer && self.bounds.methods.as_ref().is_some_and(|ms| !ms.iter().any(|m| m == sig.name)))
                || (observer && !self.bounds.observer_fences && sig.params.iter().all(|p| *p == Param::Nodes))
                // without work identifiers of its own the observer has nothing to wait for
                || (observer && self.bounds.observer_wids == 0 && sig.awaits())
            {
                continue;
            }
            let mut choices: Vec<Vec<Arg>> = vec![vec![]];
            for role in &sig.roles {
                let home = |l: u8| at.homes[l as usize];
                let opts: Vec<Arg> = match *role {
                    Role::Loc { local, .. } => (0..nlocs)
                        .filter(|&l| !decl.placed || !local || home(l) == at.node)
                        .filter(|&l| !remote_only || !role.remote_side() || home(l) != at.node)
                        .map(loc)
                        .collect(),
                    Role::Src => {
                        let mut v: Vec<Arg> =
                            (0..nlocs).filter(|&l| !decl.placed || home(l) == at.node).map(loc).collect();
                        v.extend(self.values().map(Arg::Lit));
                        v
                    }
                    Role::Tuple(_) => self.tuples(self.bounds.tuple_size).into_iter().map(Arg::Tuple).collect(),
                    Role::Val if Decl::message(sig) => self.tuples(1).into_iter().map(Arg::Tuple).collect(),
                    Role::Val if decl.tuples => {
                        self.tuples(self.bounds.tuple_size).into_iter().map(Arg::Tuple).collect()
                    }
                    Role::Val => self.values().map(Arg::Val).collect(),
                    // the initial value 0 too (a CAS expecting it)
                    Role::Expected => {
                        let initial = self.bounds.compare_initial.then_some(0);
                        initial.into_iter().chain(self.values()).map(Arg::Val).collect()
                    }
                    // the observer's work identifiers follow the implemented library's
                    Role::Wid { awaited } => {
                        let (first, n) = match observer {
                            true => (self.bounds.wids as u8 + 1, self.bounds.observer_wids as u8),
                            false => (1, self.bounds.wids as u8),
                        };
                        let none = (!awaited).then_some(Arg::Wid(0));
                        none.into_iter().chain((first..first + n).map(Arg::Wid)).collect()
                    }
                    Role::Node { .. } => (1..=at.k).filter(|&n| !remote_only || n != at.node).map(Arg::Node).collect(),
                    Role::Nodes => node_sets.iter().map(|&m| Arg::Nodes(m)).collect(),
                    Role::Barrier(callers) | Role::Ring(callers) => (0..at.roles.len() as u8)
                        .filter(|&o| decl.may_call(callers, at.roles[o as usize]))
                        .map(Arg::Obj)
                        .collect(),
                };
                choices = choices
                    .into_iter()
                    .flat_map(|c| opts.iter().map(move |o| [c.clone(), vec![o.clone()]].concat()))
                    .collect();
            }
            // a put or get of a location onto itself copies nothing: not generated
            let self_copy = |args: &[Arg]| {
                let locs: Vec<&Arg> = args.iter().filter(|a| matches!(a, Arg::Loc(_) | Arg::OLoc(_))).collect();
                locs.len() == 2 && locs[0] == locs[1]
            };
            out.extend(choices.into_iter().filter(|a| !self_copy(a)).map(|args| Call { lib, method: mi as u8, args }));
        }
    }

    /// The signature of a call.
    pub(super) fn sig_of(&self, c: &Call) -> &mowgli_core::MethodSig {
        match (&self.odecl, c.lib) {
            (Some(o), 1) => &o.sigs[c.method as usize],
            _ => &self.sigs[c.method as usize],
        }
    }

    pub(super) fn is_wait(&self, c: &Call) -> bool {
        self.sig_of(c).awaits()
    }

    /// Every sequence of `len` calls of `alpha` that follows the work-identifier grammar.
    pub(super) fn sequences(&self, alpha: Vec<Call>, len: usize) -> Sequences {
        let uses: Vec<WidUse> = alpha
            .iter()
            .map(|c| WidUse {
                wait: self.is_wait(c),
                pool: c.lib.min(1) as usize,
                base: if c.lib == 1 { self.bounds.wids as u8 } else { 0 },
                wids: c
                    .args
                    .iter()
                    .filter_map(|a| match a {
                        Arg::Wid(w) if *w != 0 => Some(*w),
                        _ => None,
                    })
                    .collect(),
            })
            .collect();
        let mut idx = Vec::new();
        let mut cur = Vec::new();
        seq_rec(&uses, len, &mut cur, [0, 0], 0, &mut idx);
        Sequences { alpha, len, idx }
    }

    pub(super) fn returns(&self, c: &Call) -> bool {
        let sig = self.sig_of(c);
        sig.returns && (self.bounds.bind_ids || !sig.returns_ids_only())
    }

    /// The permutations of `0..n` for every `n` a renaming of a client may need.
    pub(super) fn perm_cache(&self) -> Vec<Vec<Vec<u8>>> {
        let b = &self.bounds;
        let n = [b.nodes, self.nlocs(), self.nolocs(), self.nobjs(), b.values].into_iter().max().unwrap_or(0);
        (0..=n).map(perms).collect()
    }

    /// Whether every call completing the oldest remote operation towards a node
    /// (a parameter [`Role::Node`] with `completes`, RDMA^TSO's `Poll(n)`) has an
    /// outstanding one of its thread to complete (without, it blocks: the program
    /// has no execution). A remote operation is a call naming a location that is
    /// not declared local besides a local one ([`mowgli_core::MethodSig::remote_location`]).
    pub(super) fn polls_pending(&self, c: &Client) -> bool {
        c.threads.iter().all(|(_, _, calls)| {
            let mut pending = [0usize; 33];
            calls.iter().all(|x| {
                let sig = self.sig_of(x);
                let homes = if x.lib == 0 { &c.homes } else { &c.ohomes };
                if let Some(i) = sig.remote_location() {
                    if let Some(Arg::Loc(l) | Arg::OLoc(l)) = x.args.get(i) {
                        pending[homes[*l as usize] as usize] += 1;
                    }
                    return true;
                }
                x.args.iter().zip(&sig.roles).all(|(a, r)| match (r, a) {
                    (Role::Node { completes: true }, Arg::Node(n)) if pending[*n as usize] > 0 => {
                        pending[*n as usize] -= 1;
                        true
                    }
                    (Role::Node { completes: true }, _) => false,
                    _ => true,
                })
            })
        })
    }

    /// Whether the threads of `c` interact (see [`Bounds::connected`]).
    pub(super) fn connected(&self, c: &Client) -> bool {
        // per thread: the locations it names and those it writes (bit l: location l
        // of the library, bit 16 + l: location l of the observer)
        let uses: Vec<(u32, u32)> = c
            .threads
            .iter()
            .map(|(_, _, calls)| {
                let (mut named, mut written) = (0u32, 0u32);
                for call in calls {
                    let sig = self.sig_of(call);
                    for (i, a) in call.args.iter().enumerate() {
                        let bit = match a {
                            Arg::Loc(l) => 1 << l,
                            Arg::OLoc(l) => 1 << (16 + l),
                            _ => continue,
                        };
                        named |= bit;
                        if Decl::writes(sig, i) {
                            written |= bit;
                        }
                    }
                }
                (named, written)
            })
            .collect();
        if uses.len() == 1 {
            return uses[0].1 != 0;
        }
        let linked = |a: (u32, u32), b: (u32, u32)| (a.0 & b.1) | (a.1 & b.0) != 0;
        let mut reached = 1u32;
        loop {
            let before = reached;
            for i in 0..uses.len() {
                if reached & (1 << i) == 0
                    && (0..uses.len()).any(|j| reached & (1 << j) != 0 && linked(uses[i], uses[j]))
                {
                    reached |= 1 << i;
                }
            }
            if reached == before {
                return reached.count_ones() as usize == uses.len();
            }
        }
    }

    /// Whether a labelled client is one the generator keeps (see the module doc).
    pub(super) fn valid(&self, c: &Client, used: &Used, cfgs: &[ObjCfg]) -> bool {
        // a call of the implemented library and a register
        let calls = || c.threads.iter().flat_map(|t| t.2.iter());
        if !calls().any(|x| x.lib == 0) || (self.bounds.need_register && !calls().any(|x| self.returns(x))) {
            return false;
        }
        if self.decl.objects == Some(Objects::Rings) && !self.bounds.self_ring && c.threads.len() == 1 {
            return false;
        }
        if c.threads.len() < self.bounds.min_threads || (self.bounds.connected && !self.connected(c)) {
            return false;
        }
        if self.bounds.remote_only && self.decl.placed && !self.polls_pending(c) {
            return false;
        }
        // nodes 1..=k all present; unused locations and objects in their default placement
        let mut present = 0u32;
        for (n, _, _) in &c.threads {
            present |= 1 << (n - 1);
        }
        for (l, &h) in c.homes.iter().enumerate() {
            if used.locs.contains(&(l as u8)) {
                if h > 0 {
                    present |= 1 << (h - 1);
                }
            } else if h > 1 {
                return false;
            }
        }
        for (l, &h) in c.ohomes.iter().enumerate() {
            if used.olocs.contains(&(l as u8)) {
                if h > 0 {
                    present |= 1 << (h - 1);
                }
            } else if h > 1 {
                return false;
            }
        }
        if present != (1u32 << c.k) - 1 {
            return false;
        }
        let defaults = self.obj_options(c.threads.len());
        for (o, cfg) in cfgs.iter().enumerate() {
            if !used.objs.contains(&(o as u8)) {
                if *cfg != defaults[0] {
                    return false;
                }
                continue;
            }
            if let ObjCfg::Barrier(m) = cfg {
                // every participant calls BAR(o) the same number of times
                let counts: Vec<usize> = (0..c.threads.len())
                    .filter(|i| m >> i & 1 != 0)
                    .map(|i| c.threads[i].2.iter().filter(|x| x.lib == 0 && x.args == [Arg::Obj(o as u8)]).count())
                    .collect();
                if counts.iter().any(|&n| n != counts[0]) {
                    return false;
                }
            }
        }
        true
    }

    /// Generates size class `size`: every labelled client with `size` calls in all,
    /// reduced to one per renaming class.
    pub fn class(&self, size: usize) -> SizeClass {
        self.class_par(size, 1)
    }

    /// [`Generator::class`] on `jobs` worker threads: the shapes of the class
    /// (threads, calls per thread, nodes, placements, object roles) are shared out,
    /// each worker reduces its clients into a set of its own, and the sets are merged.
    /// The result does not depend on `jobs`.
    pub fn class_par(&self, size: usize, jobs: usize) -> SizeClass {
        self.reduce(size, self.shapes(size), jobs)
    }

    /// The parts of size class `size`, in the order `mowgli refine` checks them:
    /// (threads, calls of the longest thread), smallest first. Renaming keeps both,
    /// so each part is closed under symmetry and is generated on its own
    /// ([`Generator::class_part`]).
    pub fn parts(&self, size: usize) -> Vec<(usize, usize)> {
        let mut parts: Vec<(usize, usize)> =
            self.shapes(size).iter().map(|s| (s.lens.len(), s.lens.iter().copied().max().unwrap_or(0))).collect();
        parts.sort_unstable();
        parts.dedup();
        parts
    }

    /// Every part of every size class up to the bound, in the order `mowgli refine`
    /// checks them: fewest threads first, then the shortest longest thread, then
    /// fewest calls in all (and, within a part, fewest nodes). A one-thread client
    /// of four calls thus comes before every two-thread client: a bug that needs no
    /// second thread is found before the larger two-thread classes are generated.
    pub fn order(&self) -> Vec<(usize, (usize, usize))> {
        let mut order: Vec<(usize, (usize, usize))> =
            (1..=self.max_size()).flat_map(|size| self.parts(size).into_iter().map(move |p| (size, p))).collect();
        order.sort_unstable_by_key(|&(size, (threads, longest))| (threads, longest, size));
        order
    }

    /// The clients of size class `size` with `part.0` threads whose longest thread
    /// has `part.1` calls, in the order of their canonical encodings (fewest nodes
    /// first: the encoding starts with them).
    pub fn class_part(&self, size: usize, part: (usize, usize), jobs: usize) -> SizeClass {
        let shapes = self
            .shapes(size)
            .into_iter()
            .filter(|s| (s.lens.len(), s.lens.iter().copied().max().unwrap_or(0)) == part)
            .collect();
        self.reduce(size, shapes, jobs)
    }

    /// The labelled clients of `shapes`, reduced to one per renaming class.
    fn reduce(&self, size: usize, shapes: Vec<Shape>, jobs: usize) -> SizeClass {
        // the call sequences of each shape's threads (a part of one shape is
        // mostly these: computed on the workers too)
        let per_thread = par_map(&shapes, jobs, |sh| self.per_thread(sh));
        let shapes: Vec<(Shape, Vec<Sequences>)> = shapes.into_iter().zip(per_thread).collect();
        // work items: a shape with a range of its first thread's call sequences,
        // about `CHUNK` labelled clients each
        const CHUNK: usize = 20_000;
        let mut items: Vec<(usize, usize, usize)> = Vec::new();
        for (si, (_, pt)) in shapes.iter().enumerate() {
            let rest: usize = pt[1..].iter().map(Sequences::count).product::<usize>().max(1);
            let step = (CHUNK / rest).max(1);
            let n = pt[0].count();
            let mut lo = 0;
            while lo < n {
                items.push((si, lo, (lo + step).min(n)));
                lo += step;
            }
        }
        let pcache = self.perm_cache();
        let next = AtomicUsize::new(0);
        let jobs = jobs.max(1).min(items.len().max(1));
        let parts: Mutex<Vec<(HashSet<Vec<u8>>, u64)>> = Mutex::new(Vec::new());
        let cut = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|sc| {
            for _ in 0..jobs {
                sc.spawn(|| {
                    let mut w = Worker::default();
                    loop {
                        // a chunk of about CHUNK clients between two looks at the clock
                        if self.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                            cut.store(true, Ordering::Relaxed);
                            break;
                        }
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(si, lo, hi)) = items.get(i) else { break };
                        let (shape, pt) = &shapes[si];
                        self.shape_clients(shape, pt, lo..hi, &pcache, &mut w);
                    }
                    parts.lock().expect("parts").push((w.keys, w.generated));
                });
            }
        });
        let mut parts = parts.into_inner().expect("parts");
        parts.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        let mut it = parts.into_iter();
        let (mut keys, mut generated) = it.next().unwrap_or_default();
        for (k, g) in it {
            keys.extend(k);
            generated += g;
        }
        let mut keys: Vec<Vec<u8>> = keys.into_iter().collect();
        keys.sort();
        SizeClass { size, generated, description: self.description(size), keys, cut: cut.into_inner() }
    }

    /// The call sequences of each thread of `shape`.
    pub(super) fn per_thread(&self, shape: &Shape) -> Vec<Sequences> {
        let t = shape.lens.len();
        (0..t)
            .map(|i| {
                let roles = self.roles(&shape.cfgs, i);
                let alpha = self.alphabet(shape.k, shape.tnodes[i], &roles, &shape.homes, &shape.ohomes);
                self.sequences(alpha, shape.lens[i])
            })
            .collect()
    }

    /// The shapes of size class `size`.
    pub(super) fn shapes(&self, size: usize) -> Vec<Shape> {
        let b = &self.bounds;
        let (nl, nol, nobj) = (self.nlocs(), self.nolocs(), self.nobjs());
        let mut out = Vec::new();
        for t in b.min_threads.max(1)..=b.threads.min(size) {
            for lens in compositions(size, t, b.calls) {
                for k in 1..=b.nodes as u8 {
                    for tnodes in tuples_of(t, k) {
                        let home_opts = if self.placed() { tuples_of(nl, k) } else { vec![vec![0; nl]] };
                        for homes in &home_opts {
                            let oplaced = self.odecl.as_ref().is_some_and(|o| o.placed);
                            let ohome_opts = if oplaced { tuples_of(nol, k) } else { vec![vec![0; nol]] };
                            for ohomes in ohome_opts {
                                // a node must at least be able to host something
                                let mut cover = 0u32;
                                tnodes
                                    .iter()
                                    .chain(homes.iter())
                                    .chain(ohomes.iter())
                                    .filter(|&&n| n > 0)
                                    .for_each(|&n| cover |= 1 << (n - 1));
                                if cover != (1u32 << k) - 1 {
                                    continue;
                                }
                                for cfgs in cfg_tuples(&self.obj_options(t), nobj) {
                                    out.push(Shape {
                                        lens: lens.clone(),
                                        k,
                                        tnodes: tnodes.clone(),
                                        homes: homes.clone(),
                                        ohomes: ohomes.clone(),
                                        cfgs,
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// Every valid labelled client of `shape` whose first thread runs one of the
    /// sequences `first` of `per_thread[0]`, reduced into `w.keys`.
    pub(super) fn shape_clients(
        &self,
        shape: &Shape,
        per_thread: &[Sequences],
        first: std::ops::Range<usize>,
        pcache: &[Vec<Vec<u8>>],
        w: &mut Worker,
    ) {
        let t = shape.lens.len();
        let nobj = self.nobjs();
        let Shape { k, tnodes, homes, ohomes, cfgs, .. } = shape;
        let mut lists: Vec<(usize, &[u32])> = per_thread.iter().map(|v| (v.len, v.idx.as_slice())).collect();
        lists[0].1 = &lists[0].1[first.start * lists[0].0..first.end * lists[0].0];
        let rings = if self.decl.objects == Some(Objects::Rings) { nobj } else { 0 };
        // one client refilled for every choice of sequences: a thread's calls are
        // copied only when its sequence changes (the last thread's at every choice)
        let mut client = Client {
            k: *k,
            threads: (0..t).map(|i| (tnodes[i], self.roles(cfgs, i), Vec::new())).collect(),
            homes: homes.clone(),
            ohomes: ohomes.clone(),
            rings,
            barriers: nobj - rings,
        };
        let mut current: Vec<Option<&[u32]>> = vec![None; t];
        for_product(&lists, &mut |seqs| {
            for (i, (cur, &seq)) in current.iter_mut().zip(seqs).enumerate() {
                if *cur != Some(seq) {
                    *cur = Some(seq);
                    let alpha = &per_thread[i].alpha;
                    let calls = &mut client.threads[i].2;
                    calls.truncate(seq.len());
                    for (j, &c) in seq.iter().enumerate() {
                        match calls.get_mut(j) {
                            Some(call) => call.clone_from(&alpha[c as usize]),
                            None => calls.push(alpha[c as usize].clone()),
                        }
                    }
                }
            }
            w.used.fill(&client);
            if !self.valid(&client, &w.used, cfgs) {
                return;
            }
            w.generated += 1;
            let key = w.canon.canonical(&client, &self.bounds, &w.used, pcache);
            if !w.keys.contains(key) {
                w.keys.insert(key.to_vec());
            }
        });
    }
}

/// What a worker of [`Generator::reduce`] has found (the canonical encodings of its
/// clients, how many labelled clients), with its buffers.
#[derive(Default)]
pub(super) struct Worker {
    keys: HashSet<Vec<u8>>,
    generated: u64,
    canon: Canon,
    used: Used,
}

/// The work identifiers (not `_`) a call of a thread's alphabet uses, and whether
/// it waits for them (a `Wait`) or starts work with them.
pub(super) struct WidUse {
    wait: bool,
    /// Whose work identifiers: 0 the implemented library's, 1 the observer's
    /// (numbered from `base + 1`); each pool introduces its own in order.
    pool: usize,
    base: u8,
    wids: Vec<u8>,
}

/// The sequences of [`Generator::sequences`] that extend `cur` (indices into the
/// alphabet whose calls use work identifiers as `uses` says). `intro`: work
/// identifiers introduced, per pool (`base + 1..=base + intro`); `pending`: bit w
/// set when a call with w is not yet waited for.
pub(super) fn seq_rec(
    uses: &[WidUse],
    len: usize,
    cur: &mut Vec<u32>,
    intro: [u8; 2],
    pending: u32,
    out: &mut Vec<u32>,
) {
    if cur.len() == len {
        if pending == 0 {
            out.extend_from_slice(cur);
        }
        return;
    }
    // a pending identifier needs a later Wait: one call per pending identifier at least
    if (pending.count_ones() as usize) > len - cur.len() {
        return;
    }
    for (ci, u) in uses.iter().enumerate() {
        let (mut intro2, mut pending2) = (intro, pending);
        let mut ok = true;
        for &w in &u.wids {
            if u.wait {
                if pending2 & (1 << w) == 0 {
                    ok = false;
                }
                pending2 &= !(1 << w);
            } else {
                let k = w - u.base;
                if k > intro2[u.pool] + 1 {
                    ok = false;
                }
                intro2[u.pool] = intro2[u.pool].max(k);
                pending2 |= 1 << w;
            }
        }
        if !ok {
            continue;
        }
        cur.push(ci as u32);
        seq_rec(uses, len, cur, intro2, pending2, out);
        cur.pop();
    }
}

/// Compositions of `n` into `t` parts in `1..=max`.
pub(super) fn compositions(n: usize, t: usize, max: usize) -> Vec<Vec<usize>> {
    if t == 0 {
        return if n == 0 { vec![vec![]] } else { vec![] };
    }
    let mut out = Vec::new();
    for first in 1..=max.min(n) {
        for rest in compositions(n - first, t - 1, max) {
            out.push([vec![first], rest].concat());
        }
    }
    out
}

/// Every tuple of `n` nodes among `1..=k`.
pub(super) fn tuples_of(n: usize, k: u8) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![vec![]];
    for _ in 0..n {
        out = out.into_iter().flat_map(|p| (1..=k).map(move |v| [p.clone(), vec![v]].concat())).collect();
    }
    out
}

pub(super) fn cfg_tuples(opts: &[ObjCfg], n: usize) -> Vec<Vec<ObjCfg>> {
    let mut out: Vec<Vec<ObjCfg>> = vec![vec![]];
    for _ in 0..n {
        out = out.into_iter().flat_map(|p| opts.iter().map(move |o| [p.clone(), vec![*o]].concat())).collect();
    }
    out
}

/// Every choice of one sequence per list; a list is (sequence length, the
/// sequences one after the other).
pub(super) fn for_product<'a>(lists: &[(usize, &'a [u32])], f: &mut dyn FnMut(&[&'a [u32]])) {
    fn rec<'a>(lists: &[(usize, &'a [u32])], cur: &mut Vec<&'a [u32]>, f: &mut dyn FnMut(&[&'a [u32]])) {
        if cur.len() == lists.len() {
            f(cur);
            return;
        }
        let (len, seqs) = lists[cur.len()];
        for s in seqs.chunks_exact(len.max(1)) {
            cur.push(s);
            rec(lists, cur, f);
            cur.pop();
        }
    }
    rec(lists, &mut Vec::new(), f);
}

/// `f` on every item, on at most `jobs` worker threads; the results in the order
/// of the items.
pub(super) fn par_map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|sc| {
        for _ in 0..jobs.max(1).min(items.len()) {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                done.lock().expect("par_map").push((i, r));
            });
        }
    });
    let mut done = done.into_inner().expect("par_map");
    done.sort_by_key(|d| d.0);
    done.into_iter().map(|d| d.1).collect()
}

/// The call sequences of one thread: every sequence of `len` calls of the
/// thread's alphabet, as indices into it, one after the other.
pub(super) struct Sequences {
    alpha: Vec<Call>,
    len: usize,
    idx: Vec<u32>,
}

impl Sequences {
    /// How many sequences.
    fn count(&self) -> usize {
        self.idx.len().checked_div(self.len).unwrap_or(0)
    }
}

/// Where a thread stands when its calls are drawn: nodes `1..=k`, its node, its
/// roles in the objects, the homes of the locations its calls may name.
pub(super) struct Here<'a> {
    pub(super) k: u8,
    pub(super) node: u8,
    pub(super) roles: &'a [u8],
    pub(super) homes: &'a [u8],
}
