//! One round of a value-domain fixpoint ([`crate::domain`]): what the calls of
//! a program's unfoldings may write, gathered per location.

use std::collections::BTreeSet;

use crate::domain::{ValueDomain, Written};
use crate::library::Library;
use crate::model::{LocId, ThreadId, Value, World};
use crate::program::CallRecord;

/// One round of a domain fixpoint: per location the values found so far, and
/// the messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomainSets {
    pub per_loc: Vec<BTreeSet<Value>>,
    pub messages: BTreeSet<Value>,
    /// A reused buffer for [`Library::writes`].
    buf: Vec<Written>,
}

impl DomainSets {
    /// `nlocs` locations, each starting with `start(l)`.
    pub fn new(nlocs: usize, start: impl Fn(LocId) -> BTreeSet<Value>) -> Self {
        DomainSets { per_loc: (0..nlocs).map(start).collect(), messages: BTreeSet::new(), buf: Vec::new() }
    }

    /// The domain these sets stand for (messages: the tuples among the values,
    /// and every value sent as a message).
    pub fn domain(&self) -> ValueDomain {
        let per_loc = self.per_loc.iter().map(|d| d.iter().filter(|v| !matches!(v, Value::Unit)).cloned().collect());
        // the tuples locations may hold, and every value sent as a message
        let mut messages: BTreeSet<&Value> =
            self.per_loc.iter().flatten().filter(|v| matches!(v, Value::Tuple(_))).collect();
        messages.extend(self.messages.iter().filter(|v| !matches!(v, Value::Unit)));
        ValueDomain::new(per_loc.collect(), messages.into_iter().cloned().collect())
    }

    /// How many values in all (the sets only grow: the same size is the same sets).
    pub fn size(&self) -> usize {
        self.per_loc.iter().map(BTreeSet::len).sum::<usize>() + self.messages.len()
    }

    /// What `call` may write when reads return values of `dom`, in the reused
    /// buffer (the caller puts it back in `self.buf` when done).
    fn writes_of(
        &mut self,
        lib: &dyn Library,
        world: &World,
        thread: ThreadId,
        call: &CallRecord,
        dom: &ValueDomain,
    ) -> Vec<Written> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        lib.writes(world, thread, call.method, &call.args, dom, &mut buf);
        buf
    }

    /// Adds what `call` (of thread `thread`, a call of `lib`) may write when reads
    /// return values of `dom`. Returns whether the call may write a value that is
    /// no constant (derived from reads, or not in `constants`): the writes that
    /// count towards the rounds a fixpoint needs.
    pub fn add_call(
        &mut self,
        lib: &dyn Library,
        world: &World,
        thread: ThreadId,
        call: &CallRecord,
        dom: &ValueDomain,
        constants: &BTreeSet<Value>,
    ) -> bool {
        let mut buf = self.writes_of(lib, world, thread, call, dom);
        let mut dependent = false;
        for w in buf.drain(..) {
            // a copy adds no new value: [`DomainSets::add_copies`] closes the
            // sets under copies within a round, so copies cost no round
            dependent |= !w.copied && (w.derived || !constants.contains(&w.value));
            match w.loc {
                Some(l) => {
                    if let Some(d) = self.per_loc.get_mut(l) {
                        d.insert(w.value);
                    }
                }
                None => {
                    self.messages.insert(w.value);
                }
            }
        }
        self.buf = buf;
        dependent
    }

    /// Adds the values `call` may copy ([`Written::copied`]: what it reads,
    /// unchanged) when reads return values of `dom`; returns whether a set grew.
    /// A round of a fixpoint repeats this over its calls, each time on the sets
    /// so far, until nothing grows: a value reaches every location it can be
    /// copied to in the round it appears, so a copy, which makes no new value,
    /// costs no round (`add_call` does not count it as dependent). It ends: every
    /// value copied is one some set already holds.
    pub fn add_copies(
        &mut self,
        lib: &dyn Library,
        world: &World,
        thread: ThreadId,
        call: &CallRecord,
        dom: &ValueDomain,
    ) -> bool {
        let mut buf = self.writes_of(lib, world, thread, call, dom);
        let mut grew = false;
        for w in buf.drain(..).filter(|w| w.copied) {
            if let Some(d) = w.loc.and_then(|l| self.per_loc.get_mut(l)) {
                grew |= d.insert(w.value);
            }
        }
        self.buf = buf;
        grew
    }

    /// Closes the sets under the copies of `calls` (each with its library and
    /// thread): [`DomainSets::add_copies`] until nothing grows.
    pub fn close_copies<'c>(&mut self, world: &World, calls: &[(&'c dyn Library, ThreadId, &'c CallRecord)]) {
        loop {
            let dom = self.domain();
            let mut grew = false;
            for &(lib, t, c) in calls {
                grew |= self.add_copies(lib, world, t, c, &dom);
            }
            if !grew {
                return;
            }
        }
    }

    /// The first location holding more than `max` values, with its count.
    pub fn over(&self, max: usize) -> Option<(LocId, usize)> {
        self.per_loc.iter().enumerate().find(|(_, d)| d.len() > max).map(|(l, d)| (l, d.len()))
    }
}
