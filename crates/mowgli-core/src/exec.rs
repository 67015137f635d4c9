//! Executions `⟨E, po, stmp, so, hb⟩` (LOCO Def. 3.3): events split into stamped
//! subevents, program order, and the preserved program order `ppo` derived from
//! `po` and the stamp order `to`.

use crate::model::{Event, LibId, Value, World};
use crate::rel::BitRel;
use crate::stamp::{Stamp, StampTable};

/// A subevent `⟨e, a⟩`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SubEvent {
    /// Index of the event in [`ExecGraph::events`].
    pub event: usize,
    pub stamp: Stamp,
    /// Position of the stamp in the event's stamp list (libraries use it to
    /// order the subevents of one event, e.g. a put reads before it writes).
    pub pos: usize,
}

/// A plain execution with its stamping: the input of every library's
/// consistency predicate. Relations are over subevent indices.
#[derive(Clone, Debug)]
pub struct ExecGraph<'w> {
    pub world: &'w World,
    pub events: Vec<Event>,
    pub subs: Vec<SubEvent>,
    /// Subevent indices of each event.
    pub subs_of: Vec<Vec<usize>>,
    /// `po` lifted to subevents: `(s1, s2)` iff `s1.e po s2.e`.
    pub po: BitRel,
    /// `ppo` (LOCO §3.1).
    pub ppo: BitRel,
    /// Per event: its return value is left open (see [`crate::Library::symbolic_return`]);
    /// the library reads it off the witness instead of checking it.
    pub sym_ret: Vec<bool>,
    /// Per event with an open return value: the values the plain executions
    /// searched together allow it to return (`None`: any).
    pub sym_vals: Vec<Option<Vec<Value>>>,
}

impl ExecGraph<'_> {
    /// How a library should constrain the value read by the read subevent of
    /// event `ei` whose return value is `ret` (see [`ExecGraph::sym_ret`]).
    pub fn read_val(&self, ei: usize, ret: &Value) -> crate::memory::ReadVal {
        use crate::memory::ReadVal;
        if !self.sym_ret[ei] {
            return ReadVal::Known(ret.clone());
        }
        match self.sym_vals.get(ei).cloned().flatten() {
            Some(vs) => ReadVal::Among(vs),
            None => ReadVal::Free,
        }
    }
}

impl<'w> ExecGraph<'w> {
    /// Builds the subevents of `events` (grouped by thread, in program order
    /// within each thread) with the stamping function `stmp`.
    pub fn new(world: &'w World, events: Vec<Event>, stmp: &dyn Fn(&Event) -> Vec<Stamp>, to: &StampTable) -> Self {
        let mut subs = Vec::new();
        let mut subs_of = Vec::with_capacity(events.len());
        for (i, e) in events.iter().enumerate() {
            let mut mine = Vec::new();
            for (pos, stamp) in stmp(e).into_iter().enumerate() {
                mine.push(subs.len());
                subs.push(SubEvent { event: i, stamp, pos });
            }
            subs_of.push(mine);
        }
        let n = subs.len();
        let mut po = BitRel::new(n);
        let mut ppo = BitRel::new(n);
        for (a, sa) in subs.iter().enumerate() {
            let ea = &events[sa.event];
            for (b, sb) in subs.iter().enumerate() {
                let eb = &events[sb.event];
                if ea.thread == eb.thread && ea.index < eb.index {
                    po.add(a, b);
                    if to.ordered(sa.stamp, sb.stamp) {
                        ppo.add(a, b);
                    }
                }
            }
        }
        let sym_ret = vec![false; events.len()];
        let sym_vals = vec![None; events.len()];
        ExecGraph { world, events, subs, subs_of, po, ppo, sym_ret, sym_vals }
    }

    pub fn len(&self) -> usize {
        self.subs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.subs.is_empty()
    }

    pub fn event_of(&self, s: usize) -> &Event {
        &self.events[self.subs[s].event]
    }

    /// Subevents of library `lib`.
    pub fn subs_of_lib(&self, lib: LibId) -> impl Iterator<Item = usize> + '_ {
        (0..self.subs.len()).filter(move |&s| self.event_of(s).lib == lib)
    }

    /// `po` on subevents extended with the order of the subevents inside one
    /// event (by stamp position): the program order of a model whose
    /// operations are several events, such as RDMA^TSO's put = nlR; nrW.
    pub fn po_with_internal(&self) -> BitRel {
        let mut r = self.po.clone();
        for s in &self.subs_of {
            for (i, &a) in s.iter().enumerate() {
                for &b in &s[i + 1..] {
                    r.add(a, b);
                }
            }
        }
        r
    }
}
