//! Reads-from and modification-order witnesses over a memory of cells, as a
//! backtracking search (the `rf`/`mo` components shared by the consistency
//! predicates of memory-like libraries). A *cell* is whatever a library's reads
//! and writes address: a location, or one node's copy of a replicated location.
//!
//! Variables: first one per read (its rf source: a write of the same cell with a
//! compatible value, or the initial value), then one per write beyond the first of
//! each cell (its insertion position in the cell's mo, so a prefix of assigned
//! variables fixes a total order on a prefix of the cell's writes). Every relation
//! derived from a partial assignment is a subset of the one derived from any
//! completion, which is what lets the engine prune.
//!
//! A write may compute its value from a read ([`WriteVal::Rmw`]: a remote
//! compare-and-swap or fetch-and-add) and may then be *absent* (a failed
//! compare-and-swap writes nothing). Until its read's value is known, such a write
//! is left out of mo and rb (its edges would vanish if it turned out absent); an
//! absent write is never read and never last in mo.

use crate::model::Value;
use crate::rel::BitRel;

/// The value a read must return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadVal {
    /// Fixed by the event's label (e.g. the return value of a CPU read).
    Known(Value),
    /// Not in the label (e.g. the NIC read of a put): any value.
    Free,
    /// A symbolic return value that the plain executions searched together allow
    /// to be any of these (see `ExecGraph::sym_vals`).
    Among(Vec<Value>),
}

/// The value a write writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteVal {
    Known(Value),
    /// The value read by read number `i` (e.g. a put writes what its NIC read read).
    CopyOf(usize),
    /// What `op` makes of the value read by read number `read`; no write at all
    /// when `op` gives none (a remote read-modify-write).
    Rmw {
        read: usize,
        op: RmwOp,
    },
}

/// What a read-modify-write writes, given the value it read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RmwOp {
    /// `new` when the value read equals `expected`; nothing otherwise.
    Cas { expected: Value, new: Value },
    /// The value read plus `k` (wrapping, as 64-bit integers); nothing when the
    /// value read is not an integer.
    Add(i64),
}

impl RmwOp {
    /// The value written after reading `old` (`None`: no write).
    pub fn apply(&self, old: &Value) -> Option<Value> {
        match self {
            RmwOp::Cas { expected, new } => (old == expected).then(|| new.clone()),
            RmwOp::Add(k) => match old {
                Value::Int(i) => Some(Value::Int(i.wrapping_add(*k))),
                _ => None,
            },
        }
    }
}

/// Whether a write happens and with which value, as far as the witness so far says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteState {
    /// Not determined yet.
    Unknown,
    /// A read-modify-write that writes nothing.
    Absent,
    Value(Value),
}

#[derive(Clone, Debug)]
pub struct ReadSpec {
    pub sub: usize,
    pub cell: usize,
    pub val: ReadVal,
}

#[derive(Clone, Debug)]
pub struct WriteSpec {
    pub sub: usize,
    pub cell: usize,
    pub val: WriteVal,
}

#[derive(Clone, Debug)]
pub struct RfMo {
    pub reads: Vec<ReadSpec>,
    pub writes: Vec<WriteSpec>,
    /// Initial value of each cell.
    pub init: Vec<Value>,
    /// Number of subevents (size of the relations).
    n: usize,
    /// Per read: candidate sources (`None` = the initial value).
    cands: Ragged<Option<usize>>,
    /// Per read: chosen candidate index.
    rf: Vec<Option<usize>>,
    /// Per read: whether its sources can give it two different values (otherwise
    /// its rf choice changes no value anywhere).
    open: Vec<bool>,
    /// Per read: its value when all its sources give the same one.
    single: Vec<Option<Value>>,
    /// Per read: whether its value can reach a returned value (see
    /// [`RfMo::returned_reads`]); all of them until that is called.
    reaches_return: Vec<bool>,
    /// Per cell: its writes in declaration order.
    cell_writes: Ragged<usize>,
    /// mo variables: (cell, position of the write in `cell_writes[cell]`, ≥ 1).
    mo_vars: Vec<(usize, usize)>,
    /// Per write: chosen insertion position.
    mo_pos: Vec<Option<usize>>,
}

/// The values write `w` can write: its own when known, else those its copy can
/// get (`copied`, sorted).
fn write_vals<'a>(writes: &'a [WriteSpec], copied: &'a [Vec<Value>], w: usize) -> &'a [Value] {
    match &writes[w].val {
        WriteVal::Known(v) => std::slice::from_ref(v),
        WriteVal::CopyOf(_) | WriteVal::Rmw { .. } => &copied[w],
    }
}

/// Rows of different lengths in one vector (a few small lists per search,
/// without one allocation each).
#[derive(Clone, Debug)]
struct Ragged<T> {
    items: Vec<T>,
    /// Row `i` is `items[ends[i - 1]..ends[i]]` (from 0 for the first).
    ends: Vec<usize>,
}

impl<T> Ragged<T> {
    fn with_capacity(rows: usize) -> Self {
        Ragged { items: Vec::new(), ends: Vec::with_capacity(rows) }
    }
    /// Appends an item to the row being built.
    fn push(&mut self, x: T) {
        self.items.push(x);
    }
    /// Closes the row being built.
    fn end_row(&mut self) {
        self.ends.push(self.items.len());
    }
    fn len(&self) -> usize {
        self.ends.len()
    }
    fn rows(&self) -> impl Iterator<Item = &[T]> + '_ {
        (0..self.len()).map(|i| &self[i])
    }
}

impl Ragged<usize> {
    /// Row `k` holds, in order, the indices `i` with `key(i) = k`, for `k < rows`.
    fn group(rows: usize, keys: impl Iterator<Item = usize> + Clone) -> Self {
        // counting sort: row sizes, then each index at its row's next free place
        let mut next = vec![0; rows + 1];
        for k in keys.clone() {
            next[k + 1] += 1;
        }
        for k in 1..=rows {
            next[k] += next[k - 1];
        }
        let mut items = vec![0; next[rows]];
        for (i, k) in keys.enumerate() {
            items[next[k]] = i;
            next[k] += 1;
        }
        next.pop();
        Ragged { items, ends: next }
    }
}

impl<T> std::ops::Index<usize> for Ragged<T> {
    type Output = [T];
    fn index(&self, i: usize) -> &[T] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.items[start..self.ends[i]]
    }
}

/// The values read `r` can read, given the values each write can write so far.
fn read_vals(
    reads: &[ReadSpec],
    writes: &[WriteSpec],
    copied: &[Vec<Value>],
    init: &[Value],
    cell_writes: &Ragged<usize>,
    r: usize,
) -> Vec<Value> {
    let rd = &reads[r];
    match &rd.val {
        ReadVal::Known(v) => vec![v.clone()],
        ReadVal::Among(vs) => vs.clone(),
        ReadVal::Free => {
            let mut vals = vec![init[rd.cell].clone()];
            for &w2 in &cell_writes[rd.cell] {
                if writes[w2].sub != rd.sub {
                    vals.extend(write_vals(writes, copied, w2).iter().cloned());
                }
            }
            vals
        }
    }
}

impl RfMo {
    pub fn new(n: usize, init: Vec<Value>, reads: Vec<ReadSpec>, writes: Vec<WriteSpec>) -> Self {
        let ncells = init.len();
        let cell_writes = Ragged::group(ncells, writes.iter().map(|w| w.cell));
        // the values each write can possibly write: a fixpoint through the copies
        // (a put writes what its NIC read can read), used to drop sources that can
        // never give a read its value. Sorted without duplicates; a known value is
        // read off the write itself, only copies need room of their own.
        let mut copied: Vec<Vec<Value>> = vec![Vec::new(); writes.len()];
        // read-modify-writes make new values, so the rounds are bounded: a value
        // that flows through k writes needs k rounds, and a flow through a write
        // twice is an rf cycle, which no consistent execution has
        for _ in 0..=writes.len() {
            let mut changed = false;
            for wi in 0..writes.len() {
                let (r, op) = match &writes[wi].val {
                    WriteVal::Known(_) => continue,
                    WriteVal::CopyOf(r) => (*r, None),
                    WriteVal::Rmw { read, op } => (*read, Some(op)),
                };
                let mut vals = read_vals(&reads, &writes, &copied, &init, &cell_writes, r);
                if let Some(op) = op {
                    vals = vals.iter().filter_map(|v| op.apply(v)).collect();
                }
                vals.sort_unstable();
                vals.dedup();
                let have = &mut copied[wi];
                if !vals.iter().all(|v| have.binary_search(v).is_ok()) {
                    have.extend(vals);
                    have.sort_unstable();
                    have.dedup();
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut open = Vec::with_capacity(reads.len());
        let mut single = Vec::with_capacity(reads.len());
        let mut cands = Ragged::with_capacity(reads.len());
        for (ri, r) in reads.iter().enumerate() {
            let ok = |v: &Value| match &r.val {
                ReadVal::Known(k) => k == v,
                ReadVal::Free => true,
                ReadVal::Among(vs) => vs.contains(v),
            };
            // the smallest value the read can get, and whether it can get another
            let mut least: Option<&Value> = None;
            let mut several = false;
            if ok(&init[r.cell]) {
                cands.push(None);
                least = Some(&init[r.cell]);
            }
            for &w in &cell_writes[r.cell] {
                let own = matches!(writes[w].val, WriteVal::Rmw { read, .. } if read == ri);
                if writes[w].sub == r.sub || own {
                    continue; // a CAS does not read its own write
                }
                let vals = write_vals(&writes, &copied, w);
                if vals.iter().any(ok) {
                    cands.push(Some(w));
                    for v in vals.iter().filter(|v| ok(v)) {
                        match least {
                            None => least = Some(v),
                            Some(l) if l == v => {}
                            Some(l) => {
                                several = true;
                                if v < l {
                                    least = Some(v);
                                }
                            }
                        }
                    }
                }
            }
            cands.end_row();
            open.push(several);
            single.push(if several { None } else { least.cloned() });
        }
        let mut mo_vars = Vec::new();
        for c in 0..cell_writes.len() {
            for j in 1..cell_writes[c].len() {
                mo_vars.push((c, j));
            }
        }
        let nr = reads.len();
        let nw = writes.len();
        RfMo {
            reads,
            writes,
            init,
            n,
            cands,
            rf: vec![None; nr],
            open,
            single,
            reaches_return: vec![true; nr],
            cell_writes,
            mo_vars,
            mo_pos: vec![None; nw],
        }
    }

    /// The candidate sources of read `r`, by value index of its rf variable
    /// (`None`: the initial value).
    pub fn candidates(&self, r: usize) -> &[Option<usize>] {
        &self.cands[r]
    }

    /// The writes of `cell` in declaration order; mo variable `(cell, j)` places the
    /// `j`-th of them (value = how many of the writes `0..j` are mo-before it).
    pub fn writes_of_cell(&self, cell: usize) -> &[usize] {
        &self.cell_writes[cell]
    }

    /// The mo variables in order: (cell, index of the write in [`RfMo::writes_of_cell`]).
    pub fn mo_variables(&self) -> &[(usize, usize)] {
        &self.mo_vars
    }

    /// Whether `var` is an rf variable (the others order writes: mo). Return
    /// values are read along rf, never along mo.
    pub fn is_rf_var(&self, var: usize) -> bool {
        var < self.reads.len()
    }

    /// Declares which reads' values are returned values (`is_returned(sub)` for
    /// the read's subevent): [`RfMo::changes_returns`] then only holds for the rf
    /// variables of reads whose value can flow into one of them, through writes
    /// that copy what a read read (a put writes what its NIC read read).
    pub fn returned_reads(&mut self, is_returned: impl Fn(usize) -> bool) {
        let mut reach: Vec<bool> = self.reads.iter().map(|r| is_returned(r.sub)).collect();
        let mut work: Vec<usize> = (0..reach.len()).filter(|&r| reach[r]).collect();
        while let Some(r) = work.pop() {
            for w in self.cands[r].iter().flatten() {
                if let WriteVal::CopyOf(r2) | WriteVal::Rmw { read: r2, .. } = self.writes[*w].val {
                    if !reach[r2] {
                        reach[r2] = true;
                        work.push(r2);
                    }
                }
            }
        }
        self.reaches_return = reach;
    }

    /// Whether `var` is an rf variable that can change a returned value: its
    /// read's sources can give it two different values, and its value can flow
    /// into a returned one ([`RfMo::returned_reads`]). Values flow only along rf
    /// and copies, so any other rf choice changes no returned value.
    pub fn changes_returns(&self, var: usize) -> bool {
        var < self.reads.len() && self.open[var] && self.reaches_return[var]
    }

    pub fn num_vars(&self) -> usize {
        self.reads.len() + self.mo_vars.len()
    }

    /// Whether some read has no write (nor the initial value) it can read from:
    /// its variable's domain is empty, and no witness exists.
    pub fn unreadable(&self) -> bool {
        self.cands.rows().any(<[_]>::is_empty)
    }

    /// The subevent variable `var` places: the read whose source it chooses, or
    /// the write whose position in its cell's mo it chooses.
    pub fn var_subevent(&self, var: usize) -> usize {
        if var < self.reads.len() {
            self.reads[var].sub
        } else {
            let (c, j) = self.mo_vars[var - self.reads.len()];
            self.writes[self.cell_writes[c][j]].sub
        }
    }

    /// Upper bound of the number of complete assignments (the naive rf × mo count).
    pub fn naive_count(&self) -> f64 {
        (0..self.num_vars()).map(|v| self.domain(v) as f64).product()
    }

    /// Complete rf × mo candidates of a naive enumeration: every read from any
    /// write of its cell or the initial value, every permutation of each cell's writes.
    pub fn naive_unfiltered(&self) -> f64 {
        let rf: f64 = self.reads.iter().map(|r| (self.cell_writes[r.cell].len() + 1) as f64).product();
        let mo: f64 = self.cell_writes.rows().map(|ws| (1..=ws.len()).map(|k| k as f64).product::<f64>()).product();
        rf * mo
    }

    pub fn domain(&self, var: usize) -> usize {
        if var < self.reads.len() {
            self.cands[var].len()
        } else {
            self.mo_vars[var - self.reads.len()].1 + 1
        }
    }

    pub fn assign(&mut self, var: usize, val: Option<usize>) {
        if var < self.reads.len() {
            self.rf[var] = val;
        } else {
            let (c, j) = self.mo_vars[var - self.reads.len()];
            self.mo_pos[self.cell_writes[c][j]] = val;
        }
    }

    /// The rf source of read `r`: `None` unassigned, `Some(None)` initial value.
    pub fn source(&self, r: usize) -> Option<Option<usize>> {
        self.rf[r].map(|i| self.cands[r][i])
    }

    /// The value written by write `w`, if already determined (`None` also for a
    /// write that is absent: see [`RfMo::write_state`]).
    pub fn write_value(&self, w: usize) -> Option<Value> {
        match self.write_state(w) {
            WriteState::Value(v) => Some(v),
            _ => None,
        }
    }

    /// Whether write `w` happens and with which value, as far as the choices so
    /// far say (writes that copy or compute their value follow their reads' sources).
    pub fn write_state(&self, w: usize) -> WriteState {
        self.write_state_within(w, self.writes.len() + 1)
    }

    /// [`RfMo::write_state`] following at most `depth` writes (a cycle of copies
    /// has no value).
    fn write_state_within(&self, w: usize, depth: usize) -> WriteState {
        if depth == 0 {
            return WriteState::Unknown;
        }
        let (r, op) = match &self.writes[w].val {
            WriteVal::Known(v) => return WriteState::Value(v.clone()),
            WriteVal::CopyOf(r) => (*r, None),
            WriteVal::Rmw { read, op } => (*read, Some(op)),
        };
        let read = match self.source(r) {
            None => self.single[r].clone(),
            Some(None) => Some(self.init[self.reads[r].cell].clone()),
            Some(Some(w2)) => match self.write_state_within(w2, depth - 1) {
                WriteState::Value(v) => Some(v),
                _ => None,
            },
        };
        match (read, op) {
            (None, _) => WriteState::Unknown,
            (Some(v), None) => WriteState::Value(v),
            (Some(v), Some(op)) => op.apply(&v).map_or(WriteState::Absent, WriteState::Value),
        }
    }

    /// Whether write `w` is known to happen (its edges in mo and rb are then final).
    fn present(&self, w: usize) -> bool {
        match &self.writes[w].val {
            WriteVal::Known(_) | WriteVal::CopyOf(_) => true,
            WriteVal::Rmw { .. } => matches!(self.write_state(w), WriteState::Value(_)),
        }
    }

    /// The value read by the read at subevent `sub`, if already determined: by its
    /// rf source, or (before that is chosen) because every source gives the same.
    pub fn value_read_by(&self, sub: usize) -> Option<Value> {
        let r = self.reads.iter().position(|r| r.sub == sub)?;
        match self.source(r) {
            None => self.single[r].clone(),
            Some(None) => Some(self.init[self.reads[r].cell].clone()),
            Some(Some(w)) => self.write_value(w),
        }
    }

    /// Whether the chosen sources give every read its required value so far, and
    /// no read reads from a write that does not happen. With `complete`, also
    /// requires every write's value (or absence) to be determined.
    pub fn values_ok(&self, complete: bool) -> bool {
        for (i, r) in self.reads.iter().enumerate() {
            let Some(Some(w)) = self.source(i) else { continue };
            match (self.write_state(w), &r.val) {
                (WriteState::Absent, _) => return false,
                (WriteState::Value(wv), ReadVal::Known(v)) if &wv != v => return false,
                (WriteState::Value(wv), ReadVal::Among(vs)) if !vs.contains(&wv) => return false,
                _ => {}
            }
        }
        if complete {
            return (0..self.writes.len()).all(|w| self.write_state(w) != WriteState::Unknown);
        }
        true
    }

    /// The writes of `cell` whose mo position is fixed, in mo order.
    pub fn mo_order(&self, cell: usize) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.cell_writes[cell].len());
        self.mo_order_into(cell, &mut order);
        order
    }

    /// [`RfMo::mo_order`] into `order`'s storage.
    fn mo_order_into(&self, cell: usize, order: &mut Vec<usize>) {
        order.clear();
        for (j, &w) in self.cell_writes[cell].iter().enumerate() {
            if j == 0 {
                order.push(w);
                continue;
            }
            match self.mo_pos[w] {
                Some(p) => order.insert(p, w),
                None => break,
            }
        }
    }

    /// rf over subevents (initial-value reads have no edge).
    pub fn rf_rel(&self) -> BitRel {
        let mut r = BitRel::new(self.n);
        self.rf_into(&mut r);
        r
    }

    /// [`RfMo::rf_rel`] into `r`'s storage.
    pub fn rf_into(&self, r: &mut BitRel) {
        r.reset(self.n);
        for (i, rd) in self.reads.iter().enumerate() {
            if let Some(Some(w)) = self.source(i) {
                r.add(self.writes[w].sub, rd.sub);
            }
        }
    }

    /// mo over subevents (on the writes placed so far).
    pub fn mo_rel(&self) -> BitRel {
        let mut r = BitRel::new(self.n);
        self.mo_into(&mut r, &mut Vec::new());
        r
    }

    /// [`RfMo::mo_rel`] into `r`'s storage (`order` is room for one cell's writes).
    pub fn mo_into(&self, r: &mut BitRel, order: &mut Vec<usize>) {
        r.reset(self.n);
        for c in 0..self.cell_writes.len() {
            self.mo_order_into(c, order);
            order.retain(|&w| self.present(w));
            for (i, &a) in order.iter().enumerate() {
                for &b in &order[i + 1..] {
                    r.add(self.writes[a].sub, self.writes[b].sub);
                }
            }
        }
    }

    /// rb: a read is before every write mo-after its source, and before every
    /// write of its cell when it reads the initial value; minus the identity.
    pub fn rb_rel(&self) -> BitRel {
        let mut r = BitRel::new(self.n);
        self.rb_into(&mut r, &mut Vec::new());
        r
    }

    /// [`RfMo::rb_rel`] into `r`'s storage (`order` is room for one cell's writes).
    pub fn rb_into(&self, r: &mut BitRel, order: &mut Vec<usize>) {
        r.reset(self.n);
        for (i, rd) in self.reads.iter().enumerate() {
            match self.source(i) {
                None => {}
                Some(None) => {
                    for &w in &self.cell_writes[rd.cell] {
                        if self.writes[w].sub != rd.sub && self.present(w) {
                            r.add(rd.sub, self.writes[w].sub);
                        }
                    }
                }
                Some(Some(src)) => {
                    self.mo_order_into(rd.cell, order);
                    if let Some(p) = order.iter().position(|&w| w == src) {
                        for &w in &order[p + 1..] {
                            if self.writes[w].sub != rd.sub && self.present(w) {
                                r.add(rd.sub, self.writes[w].sub);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Final value of a cell (complete assignment): its mo-last write, or its initial value.
    pub fn final_value(&self, cell: usize) -> Option<Value> {
        match self.mo_order(cell).into_iter().rev().find(|&w| self.write_state(w) != WriteState::Absent) {
            Some(w) => self.write_value(w),
            None => Some(self.init[cell].clone()),
        }
    }

    /// Whether some read or write addresses `cell`.
    pub fn touched(&self, cell: usize) -> bool {
        !self.cell_writes[cell].is_empty() || self.reads.iter().any(|r| r.cell == cell)
    }

    pub fn num_cells(&self) -> usize {
        self.init.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_values_and_rb() {
        // subevents: 0 = W(x,1), 1 = W(x,2), 2 = R(x)=1, 3 = copy-read of x, 4 = write y := copy
        let reads = vec![
            ReadSpec { sub: 2, cell: 0, val: ReadVal::Known(Value::Int(1)) },
            ReadSpec { sub: 3, cell: 0, val: ReadVal::Free },
        ];
        let writes = vec![
            WriteSpec { sub: 0, cell: 0, val: WriteVal::Known(Value::Int(1)) },
            WriteSpec { sub: 1, cell: 0, val: WriteVal::Known(Value::Int(2)) },
            WriteSpec { sub: 4, cell: 1, val: WriteVal::CopyOf(1) },
        ];
        let mut m = RfMo::new(5, vec![Value::Int(0), Value::Int(0)], reads, writes);
        assert_eq!(m.domain(0), 1); // only W(x,1)
        assert_eq!(m.domain(1), 3); // init, W(x,1), W(x,2)
        assert_eq!(m.num_vars(), 3); // two reads + one mo variable for x
        m.assign(0, Some(0));
        m.assign(1, Some(2)); // reads W(x,2)
        assert_eq!(m.write_value(2), Some(Value::Int(2)));
        m.assign(2, Some(1)); // W(x,2) after W(x,1)
        assert!(m.values_ok(true));
        let rb = m.rb_rel();
        assert!(rb.contains(2, 1) && !rb.contains(3, 1));
        assert_eq!(m.final_value(0), Some(Value::Int(2)));
        assert_eq!(m.final_value(1), Some(Value::Int(2)));
    }

    /// A compare-and-swap writes only when it reads its expected value; an absent
    /// write is never read, is in no mo or rb edge, and is never the final value.
    #[test]
    fn a_failed_compare_and_swap_writes_nothing() {
        // subevents: 0 = the RMW's read of y, 1 = its write (CAS 0 → 1), 2 = W(y,5),
        // 3 = R(y) reading 1
        let reads = vec![
            ReadSpec { sub: 0, cell: 0, val: ReadVal::Free },
            ReadSpec { sub: 3, cell: 0, val: ReadVal::Known(Value::Int(1)) },
        ];
        let cas = RmwOp::Cas { expected: Value::Int(0), new: Value::Int(1) };
        let writes = vec![
            WriteSpec { sub: 1, cell: 0, val: WriteVal::Rmw { read: 0, op: cas } },
            WriteSpec { sub: 2, cell: 0, val: WriteVal::Known(Value::Int(5)) },
        ];
        let mut m = RfMo::new(4, vec![Value::Int(0)], reads, writes);
        assert_eq!(m.candidates(0), &[None, Some(1)], "the RMW reads the initial value or W(y,5)");
        assert_eq!(m.candidates(1), &[Some(0)], "only the CAS can write 1");
        assert_eq!(m.write_state(0), WriteState::Unknown);
        // the CAS reads W(y,5): it fails
        m.assign(0, Some(1));
        assert_eq!(m.write_state(0), WriteState::Absent);
        m.assign(2, Some(0)); // the CAS's (absent) write mo-after W(y,5)
        assert!(m.mo_rel().is_empty() && m.rb_rel().is_empty(), "no edge to an absent write");
        assert_eq!(m.final_value(0), Some(Value::Int(5)), "an absent write is not the final value");
        m.assign(1, Some(0)); // R(y)=1 from the absent write
        assert!(!m.values_ok(false));
        // the CAS reads the initial value: it writes 1
        m.assign(0, Some(0));
        assert_eq!(m.write_value(0), Some(Value::Int(1)));
        assert!(m.values_ok(true));
        assert!(m.mo_rel().contains(2, 1) && m.rb_rel().contains(0, 2));
        assert_eq!(m.final_value(0), Some(Value::Int(1)));
    }

    /// Fetch-and-adds chain their values; the rounds that find what a write can
    /// write end even though every round could add one more.
    #[test]
    fn fetch_and_adds_compute_new_values() {
        // 0/1: first FAA's read and write (+1), 2/3: second FAA's (+1), 4: R(y)=2
        let reads = vec![
            ReadSpec { sub: 0, cell: 0, val: ReadVal::Free },
            ReadSpec { sub: 2, cell: 0, val: ReadVal::Free },
            ReadSpec { sub: 4, cell: 0, val: ReadVal::Known(Value::Int(2)) },
        ];
        let writes = vec![
            WriteSpec { sub: 1, cell: 0, val: WriteVal::Rmw { read: 0, op: RmwOp::Add(1) } },
            WriteSpec { sub: 3, cell: 0, val: WriteVal::Rmw { read: 1, op: RmwOp::Add(1) } },
        ];
        let mut m = RfMo::new(5, vec![Value::Int(0)], reads, writes);
        assert_eq!(m.candidates(2), &[Some(0), Some(1)], "either FAA can write 2");
        m.assign(0, Some(0)); // first reads 0, writes 1
        m.assign(1, Some(1)); // second reads the first's write, writes 2
        m.assign(2, Some(1));
        m.assign(3, Some(1));
        assert!(m.values_ok(true));
        assert_eq!(m.final_value(0), Some(Value::Int(2)));
        assert_eq!(RmwOp::Add(1).apply(&Value::Bool(true)), None, "no write of a non-integer sum");
    }
}
