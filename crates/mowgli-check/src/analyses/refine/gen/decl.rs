//! What the generator knows of a library: what its declaration says (memory
//! shape, parameter roles, return alternatives), never its name.

use mowgli_core::{Callers, Library, MethodSig, Role};

/// The objects a library's methods take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Objects {
    Barriers,
    Rings,
}

/// A library as the generator sees it.
#[derive(Clone, Debug)]
pub(super) struct Decl {
    pub(super) name: String,
    pub(super) sigs: Vec<MethodSig>,
    /// Some method takes a location.
    pub(super) has_locs: bool,
    /// Locations have a home node (the memory is not replicated).
    pub(super) placed: bool,
    /// Locations hold tuples (`memory … tuples`, or a method takes a tuple).
    pub(super) tuples: bool,
    /// The objects its methods take (a library takes one kind).
    pub(super) objects: Option<Objects>,
}

impl Decl {
    pub(super) fn of(l: &dyn Library) -> Decl {
        let sigs = l.methods().to_vec();
        let roles = || sigs.iter().flat_map(|s| s.roles.iter());
        let has_locs = roles().any(|r| matches!(r, Role::Loc { .. } | Role::Src));
        let memory = l.memory();
        let objects = if roles().any(|r| matches!(r, Role::Ring(_))) {
            Some(Objects::Rings)
        } else if roles().any(|r| matches!(r, Role::Barrier(_))) {
            Some(Objects::Barriers)
        } else {
            None
        };
        Decl {
            name: l.name().to_string(),
            has_locs,
            placed: has_locs && !memory.replicated,
            tuples: memory.tuples || roles().any(|r| matches!(r, Role::Tuple(_))),
            objects,
            sigs,
        }
    }

    /// Whether a value argument of `sig` is a message (the method takes a ring):
    /// generated as a one-value tuple, LOCO's messages being tuples.
    pub(super) fn message(sig: &MethodSig) -> bool {
        sig.roles.iter().any(|r| matches!(r, Role::Ring(_)))
    }

    /// Whether a thread with `role` bits in an object (bit 0: participant of a
    /// barrier / writer of a ring, bit 1: reader of a ring) may call a method
    /// whose object parameter admits `callers`.
    pub(super) fn may_call(&self, callers: Callers, role: u8) -> bool {
        match (callers, self.objects) {
            (Callers::Any, _) => true,
            (Callers::Writer, _) => role & 1 != 0,
            (Callers::Participants, Some(Objects::Rings)) => role & 2 != 0,
            (Callers::Participants, _) => role & 1 != 0,
        }
    }

    /// Whether a call of `sig` writes its location argument `i`.
    pub(super) fn writes(sig: &MethodSig, i: usize) -> bool {
        matches!(sig.role(i), Role::Loc { written: true, .. })
    }
}
