//! A library's declaration as the tools read it: its methods' signatures (what
//! each parameter stands for, what each method returns) and the shape of its
//! memory. Client generators, observers and analyses build programs from these
//! alone, never from a library's or a method's name.

/// The kinds of argument a method takes; front ends use them to parse and check calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// A location.
    Loc,
    /// A local location read as a source; an integer literal stands for an
    /// implicit fresh location holding it.
    Src,
    /// A value (integer, boolean, tuple, register).
    Val,
    /// A work identifier.
    Wid,
    /// A node.
    Node,
    /// A set of nodes.
    Nodes,
    /// A library object (barrier, ring).
    Obj,
}

/// Which threads may call a method on an object (what the library's
/// well-formedness axioms allow; calls by others make the specification vacuous).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callers {
    /// Every thread.
    Any,
    /// The object's participants (a barrier's, a ring's readers).
    Participants,
    /// The object's writer (a ring's).
    Writer,
}

/// What a parameter stands for, as the library declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A location. `local`: on the caller's node; `written`: the call may write
    /// it; `sized_like`: a location of the same tuple size as parameter i.
    Loc { local: bool, written: bool, sized_like: Option<usize> },
    /// A local source: a location of the caller's node or a literal.
    Src,
    /// A value: a scalar, or (tuple memory) a tuple of the location's size.
    Val,
    /// A value the call compares with what it reads (a CAS's expected value):
    /// the initial value is worth comparing with too.
    Expected,
    /// A tuple of the size of location parameter i.
    Tuple(usize),
    /// A work identifier the call starts (`awaited: false`) or waits for
    /// (`awaited: true`: the call completes the earlier calls that named it).
    Wid { awaited: bool },
    /// A node. `completes`: the call completes the caller's oldest outstanding
    /// remote operation towards that node and blocks when there is none.
    Node { completes: bool },
    /// A set of nodes.
    Nodes,
    /// A barrier.
    Barrier(Callers),
    /// A ring buffer.
    Ring(Callers),
}

impl Role {
    /// The argument kind front ends parse for this role.
    pub fn param(self) -> Param {
        match self {
            Role::Loc { .. } => Param::Loc,
            Role::Src => Param::Src,
            Role::Val | Role::Expected | Role::Tuple(_) => Param::Val,
            Role::Wid { .. } => Param::Wid,
            Role::Node { .. } => Param::Node,
            Role::Nodes => Param::Nodes,
            Role::Barrier(_) | Role::Ring(_) => Param::Obj,
        }
    }

    /// The default role of an argument kind: any location, never written; a
    /// started work identifier; a plain node.
    pub fn of(p: Param) -> Role {
        match p {
            Param::Loc => Role::Loc { local: false, written: false, sized_like: None },
            Param::Src => Role::Src,
            Param::Val => Role::Val,
            Param::Wid => Role::Wid { awaited: false },
            Param::Node => Role::Node { completes: false },
            Param::Nodes => Role::Nodes,
            Param::Obj => Role::Barrier(Callers::Any),
        }
    }

    /// Whether this is the remote side of a remote operation on located memory:
    /// a location not declared local, or a node (not a node set).
    pub fn remote_side(self) -> bool {
        matches!(self, Role::Loc { local: false, .. } | Role::Node { .. })
    }
}

/// What a method may return (one of the alternatives a declaration lists).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    /// A value location parameter i may hold (a tuple on tuple memory).
    ValueOf(usize),
    Bool,
    /// A message of a ring.
    Message,
    /// ⊥ (the call failed).
    Bot,
    /// The undefined value ⊤.
    Top,
    /// An identifier of the call itself (e.g. of an operation it starts, which a
    /// later call completes): data of no client's interest.
    Id,
}

/// What a call does to memory, as the library declares it (analyses that rewrite
/// programs, e.g. `mowgli robust`, find the methods they write by it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Effect {
    /// Not declared.
    #[default]
    Other,
    /// Returns the value of location parameter `loc`.
    Reads { loc: usize },
    /// Writes value parameter `val` to location parameter `loc`.
    Writes { loc: usize, val: usize },
    /// Orders every earlier call of the caller before every later one.
    Fence,
    /// Orders the caller's earlier operations towards node parameter `node`
    /// before its later ones.
    FenceTowards { node: usize },
    /// Copies parameter `from` into location parameter `to`, asynchronously: a
    /// later call that completes operations towards the remote side finishes it.
    Copies { from: usize, to: usize },
    /// Completes the caller's oldest outstanding operation towards node
    /// parameter `node`.
    Completes { node: usize },
    /// Reads and writes location parameter `target` as one atomic update (a
    /// remote read-modify-write) and copies its old value into location parameter
    /// `into`, asynchronously as [`Effect::Copies`] does: a later call that
    /// completes operations towards the remote side finishes it.
    Updates { target: usize, into: usize },
}

/// A library related to another one by what differs between them, as the
/// library declares it (an analysis that switches a program to a related
/// library reads the relation, never the names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The same library with sequentially consistent local (same-node) accesses.
    ScLocal,
    /// The same library with TSO local accesses.
    TsoLocal,
    /// The same library with its in-order path from remote operations to memory.
    OrderedPath,
    /// The same library without it.
    UnorderedPath,
    /// The same library with read-modify-writes atomic against one another only
    /// (other accesses may come between one's read and its write).
    IsolatedRmw,
    /// The same library with read-modify-writes atomic against every access.
    GlobalRmw,
}

/// What a library declares of one of its [`Variant`]s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Related {
    /// The library has no such dimension (the question does not apply).
    Unrelated,
    /// The library is that variant itself.
    Itself,
    /// The library of that name is.
    Named(String),
    /// The library has no such variant.
    Lacks,
}

/// A method's signature.
#[derive(Clone, Debug)]
pub struct MethodSig {
    pub name: &'static str,
    pub params: Vec<Param>,
    /// Whether the method returns a value worth binding (`r = m(…)`).
    pub returns: bool,
    /// What each parameter stands for (as many as `params`).
    pub roles: Vec<Role>,
    /// What the method may return (empty when it returns nothing).
    pub rets: Vec<Ret>,
    /// An extension of the library's core interface (operations beyond the ones
    /// its programs usually use): generated litmus suites leave it out unless asked.
    pub extension: bool,
    /// The calls this method is tantamount to in a library that lacks it, in order:
    /// each a method name and whether it takes this call's arguments (a program is
    /// translated to another library by them, `mowgli explore`).
    pub same_as: Vec<(&'static str, bool)>,
    /// What a call does to memory ([`Effect::Other`] when not declared).
    pub effect: Effect,
}

impl MethodSig {
    /// A signature from its roles and return alternatives.
    pub fn new(name: &'static str, roles: Vec<Role>, rets: Vec<Ret>) -> MethodSig {
        let params = roles.iter().map(|r| r.param()).collect();
        MethodSig {
            name,
            params,
            returns: !rets.is_empty(),
            roles,
            rets,
            extension: false,
            same_as: vec![],
            effect: Effect::Other,
        }
    }

    /// A signature from argument kinds alone: each parameter gets its kind's
    /// default role ([`Role::of`]); a returning method returns some value.
    pub fn plain(name: &'static str, params: &[Param], returns: bool) -> MethodSig {
        let roles = params.iter().map(|p| Role::of(*p)).collect();
        let rets = if returns { vec![Ret::Top] } else { vec![] };
        MethodSig {
            name,
            params: params.to_vec(),
            returns,
            roles,
            rets,
            extension: false,
            same_as: vec![],
            effect: Effect::Other,
        }
    }

    /// The same signature, marked an extension of the core interface.
    pub fn extension(mut self) -> MethodSig {
        self.extension = true;
        self
    }

    /// The same signature, tantamount to the calls `calls` (see [`MethodSig::same_as`]).
    pub fn same_as(mut self, calls: &[(&'static str, bool)]) -> MethodSig {
        self.same_as = calls.to_vec();
        self
    }

    /// The same signature, with the effect `e` (see [`MethodSig::effect`]).
    pub fn effect(mut self, e: Effect) -> MethodSig {
        self.effect = e;
        self
    }

    /// The role of parameter `i` (its kind's default when the roles are missing).
    pub fn role(&self, i: usize) -> Role {
        self.roles.get(i).copied().unwrap_or_else(|| Role::of(self.params[i]))
    }

    /// Whether the call returns only its own identifiers (nothing a client compares).
    pub fn returns_ids_only(&self) -> bool {
        !self.rets.is_empty() && self.rets.iter().all(|r| *r == Ret::Id)
    }

    /// Whether a call of this method issues a remote operation: it names a
    /// location that may be on another node, which it reads or writes remotely.
    pub fn remote_location(&self) -> Option<usize> {
        let locs = || self.roles.iter().enumerate().filter(|(_, r)| matches!(r, Role::Loc { .. } | Role::Src));
        if locs().count() < 2 {
            return None;
        }
        locs().find(|(_, r)| matches!(r, Role::Loc { local: false, .. })).map(|(i, _)| i)
    }

    /// Whether the method waits for work identifiers (every parameter an awaited one).
    pub fn awaits(&self) -> bool {
        self.roles.iter().any(|r| matches!(r, Role::Wid { awaited: true }))
    }
}

/// How a library lays out its memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryShape {
    /// One copy of every location per node (sv); otherwise each location has a
    /// home node.
    pub replicated: bool,
    /// Locations hold tuples of their declared size (msw).
    pub tuples: bool,
}
