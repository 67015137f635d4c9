//! Value domains: the values each location may hold in a bounded program's
//! executions, an over-approximation used to bound the values reads return.
//!
//! A domain is a fixpoint. It starts from the constants (initial values, the
//! program's literals, each library's own literals, [`crate::Library::constants`]),
//! and each round adds what every call of the program's unfoldings may write when
//! reads return values of the domain so far ([`crate::Library::writes`]: arguments,
//! literals, values copied or computed from what the call reads). Every value read
//! in an execution is an initial value or a value written; a written value that is
//! no constant is derived from values read before it in that execution, so its
//! derivation passes only through writes that are not of constants, and after as
//! many rounds as an execution has such writes every value written is in the
//! domain. A copy (a write of a value the call read, unchanged:
//! [`Written::copied`]) makes no new value, so a round closes the sets under its
//! calls' copies ([`crate::fixpoint::DomainSets::close_copies`]) and copies are
//! not counted: by induction on the computed writes of a value's derivation, a
//! value whose derivation has k of them is in the domain after round k (the round
//! that adds it also carries it along every copy that follows, in any number).
//! [`crate::fixpoint::DomainSets`] is one round's accumulator, shared by every
//! front end that computes a domain.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::model::{LocId, Value};

/// The set of values each location may hold in any execution (an
/// over-approximation computed from the program), used to bound return values.
///
/// It is read through [`ValueDomain::at`] and [`ValueDomain::messages`], which
/// note what they were asked: one who then grows the domain can tell whether the
/// return values offered so far could change ([`ValueDomain::consulted_locations`]).
#[derive(Debug, Default)]
pub struct ValueDomain {
    per_loc: Vec<Vec<Value>>,
    /// Messages (tuples) the program may send, for message-passing libraries.
    messages: Vec<Value>,
    /// Per location: whether [`ValueDomain::at`] was asked for it; then, whether
    /// [`ValueDomain::messages`] was asked (atomics, as a problem is shared).
    consulted: Vec<AtomicBool>,
}

impl Clone for ValueDomain {
    /// A copy of the values; nothing consulted yet.
    fn clone(&self) -> Self {
        ValueDomain::new(self.per_loc.clone(), self.messages.clone())
    }
}

impl ValueDomain {
    /// Per location its values, and the messages.
    pub fn new(per_loc: Vec<Vec<Value>>, messages: Vec<Value>) -> Self {
        let consulted = (0..=per_loc.len()).map(|_| AtomicBool::new(false)).collect();
        ValueDomain { per_loc, messages, consulted }
    }

    /// The values location `l` may hold (none for a location the domain does not know).
    pub fn at(&self, l: LocId) -> &[Value] {
        match self.per_loc.get(l) {
            Some(v) => {
                self.consulted[l].store(true, Ordering::Relaxed);
                v
            }
            None => &[],
        }
    }

    /// The messages the program may send.
    pub fn messages(&self) -> &[Value] {
        self.consulted[self.per_loc.len()].store(true, Ordering::Relaxed);
        &self.messages
    }

    /// The locations [`ValueDomain::at`] was asked about so far.
    pub fn consulted_locations(&self) -> impl Iterator<Item = LocId> + '_ {
        (0..self.per_loc.len()).filter(|&l| self.consulted[l].load(Ordering::Relaxed))
    }

    /// Whether [`ValueDomain::messages`] was asked so far.
    pub fn messages_consulted(&self) -> bool {
        self.consulted[self.per_loc.len()].load(Ordering::Relaxed)
    }
}

/// A value a call may write (an over-approximation, see [`crate::Library::writes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// The location written; `None` for a value the call sends as a message
    /// (a call naming no location: a ring's `Submit`).
    pub loc: Option<LocId>,
    pub value: Value,
    /// Whether the value comes from what the call reads (copied, or computed
    /// from it), not from the call's arguments or the library's literals alone.
    pub derived: bool,
    /// Whether the value is one the call read, written unchanged (a get's or a
    /// put's copy): one of the values a location already may hold, never a new one
    /// ([`crate::fixpoint::DomainSets::add_copies`]).
    pub copied: bool,
}
