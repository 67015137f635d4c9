//! The test's memory library as `mowgli robust` reads it: the library and the
//! library of each model, found by the variants it declares, and the methods the
//! analysis reads and writes, found by their declared effects (never by a name).

use mowgli_core::{Effect, Library, MethodSig, Related, Role, StampOrder, Variant};
use mowgli_libs::catalogue::Catalogue;

use crate::lang::ast::CallEx;
use crate::lang::{edit, print};

use super::Model;

/// The library of the test and of each model.
pub(super) struct Models {
    /// The test's own library.
    pub from: String,
    /// The model the test's library has (its own SC-local or TSO-local variant).
    pub own: Model,
    /// The library of RDMA^sc and of RDMA^TSO (the test's or its declared variants).
    pub sc: String,
    pub tso: String,
}

impl Models {
    /// The models of library `name`: it must declare itself one of its SC-local and
    /// TSO-local variants and name the other (`None` otherwise).
    pub fn of(name: &str, cat: &Catalogue, order: &StampOrder) -> Option<Models> {
        let lib = cat.library(name, order).ok()?;
        let resolve = |v| match lib.variant(v) {
            Related::Itself => Some((true, name.to_string())),
            Related::Named(n) => Some((false, n)),
            Related::Unrelated | Related::Lacks => None,
        };
        let ((sc_self, sc), (tso_self, tso)) = (resolve(Variant::ScLocal)?, resolve(Variant::TsoLocal)?);
        let own = match (sc_self, tso_self) {
            (true, _) => Model::Sc,
            (false, true) => Model::Tso,
            (false, false) => return None,
        };
        Some(Models { from: name.to_string(), own, sc, tso })
    }

    /// The library of `model`.
    pub fn library(&self, model: Model) -> &str {
        match model {
            Model::Sc => &self.sc,
            Model::Tso => &self.tso,
        }
    }
}

/// What a call does, as the analysis needs it (arguments as written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op<'a> {
    /// Reads location `loc` and returns its value.
    Read {
        loc: &'a str,
    },
    /// Writes `val` to `loc`.
    Write {
        loc: &'a str,
        val: &'a str,
    },
    /// A full fence.
    Fence,
    /// A copy between the caller's memory and location `remote` (a put or a get),
    /// or a remote read-modify-write of `remote` (its old value copied back).
    Copy {
        remote: &'a str,
    },
    /// Completes the caller's oldest operation towards node `node`.
    Complete {
        node: &'a str,
    },
    Other,
}

/// The methods of a library by their declared effects.
#[derive(Clone)]
pub(super) struct Vocab {
    methods: Vec<MethodSig>,
}

impl Vocab {
    /// No methods: every call is [`Op::Other`].
    pub fn empty() -> Vocab {
        Vocab { methods: vec![] }
    }

    pub fn of(lib: &dyn Library) -> Vocab {
        Vocab { methods: lib.methods().to_vec() }
    }

    /// The vocabulary of library `name` (empty when it cannot be built: every call
    /// is then [`Op::Other`]).
    pub fn named(name: &str, cat: &Catalogue, order: &StampOrder) -> Vocab {
        cat.library(name, order).map(|l| Vocab::of(&*l)).unwrap_or_else(|_| Vocab::empty())
    }

    /// What call `m(args)` does (`Other` when its arguments do not fit its declaration).
    pub fn op<'a>(&self, m: &str, args: &'a [String]) -> Op<'a> {
        let Some(sig) = self.methods.iter().find(|s| s.name == m) else { return Op::Other };
        if args.len() != sig.params.len() {
            return Op::Other;
        }
        match sig.effect {
            Effect::Reads { loc } => Op::Read { loc: &args[loc] },
            Effect::Writes { loc, val } => Op::Write { loc: &args[loc], val: &args[val] },
            Effect::Fence => Op::Fence,
            Effect::Copies { .. } => match sig.remote_location() {
                Some(i) => Op::Copy { remote: &args[i] },
                None => Op::Other,
            },
            Effect::Completes { node } => Op::Complete { node: &args[node] },
            // a remote RMW is a remote operation a poll completes, as a get is
            Effect::Updates { target, .. } => Op::Copy { remote: &args[target] },
            Effect::FenceTowards { .. } | Effect::Other => Op::Other,
        }
    }

    fn find(&self, what: &str, f: impl Fn(&MethodSig) -> bool) -> Result<&'static str, String> {
        self.methods.iter().find(|s| f(s)).map(|s| s.name).ok_or_else(|| format!("the library declares no {what}"))
    }

    fn remote(sig: &MethodSig, i: usize) -> bool {
        matches!(sig.role(i), Role::Loc { local: false, .. })
    }

    /// The method that reads a location.
    pub fn read(&self) -> Result<&'static str, String> {
        self.find("read", |s| matches!(s.effect, Effect::Reads { .. }))
    }
    /// The method that writes a value to a location.
    pub fn write(&self) -> Result<&'static str, String> {
        self.find("write", |s| matches!(s.effect, Effect::Writes { .. }))
    }
    /// The full fence.
    pub fn fence(&self) -> Result<&'static str, String> {
        self.find("fence", |s| s.effect == Effect::Fence)
    }
    /// The fence towards a node.
    pub fn fence_towards(&self) -> Result<&'static str, String> {
        self.find("fence towards a node", |s| matches!(s.effect, Effect::FenceTowards { .. }))
    }
    /// The copy into a remote location (a put).
    pub fn put(&self) -> Result<&'static str, String> {
        self.find("copy to a remote location", |s| matches!(s.effect, Effect::Copies { to, .. } if Self::remote(s, to)))
    }
    /// The copy from a remote location (a get).
    pub fn get(&self) -> Result<&'static str, String> {
        self.find(
            "copy from a remote location",
            |s| matches!(s.effect, Effect::Copies { from, .. } if Self::remote(s, from)),
        )
    }
    /// A call of `m` with the arguments at the given positions (the rest `_`).
    fn call(&self, m: &str, at: &[(usize, &str)]) -> CallEx {
        let n = self.methods.iter().find(|s| s.name == m).map_or(at.len(), |s| s.params.len());
        let args = (0..n).map(|i| edit::arg(at.iter().find(|(j, _)| *j == i).map_or("_", |(_, a)| *a))).collect();
        edit::call(None, m, args)
    }
    /// A call of copy method `m` from `from` into `to`.
    pub fn copy_call(&self, m: &str, to: &str, from: &str) -> CallEx {
        match self.methods.iter().find(|s| s.name == m).map(|s| s.effect) {
            Some(Effect::Copies { from: f, to: t }) => self.call(m, &[(t, to), (f, from)]),
            _ => edit::call(None, m, vec![edit::arg(to), edit::arg(from)]),
        }
    }
    /// A call of write method `m` of `val` to `loc`.
    pub fn write_call(&self, m: &str, loc: &str, val: &str) -> CallEx {
        match self.methods.iter().find(|s| s.name == m).map(|s| s.effect) {
            Some(Effect::Writes { loc: l, val: v }) => self.call(m, &[(l, loc), (v, val)]),
            _ => edit::call(None, m, vec![edit::arg(loc), edit::arg(val)]),
        }
    }
    /// What call `c` does ([`Vocab::op`] of its method and its arguments as written,
    /// in `args`).
    pub fn op_of<'a>(&self, c: &CallEx, args: &'a mut Vec<String>) -> Op<'a> {
        *args = c.args.iter().map(print::expr).collect();
        self.op(&c.method.text, args)
    }
    /// The call that completes an operation towards a node (a poll).
    pub fn poll(&self) -> Result<&'static str, String> {
        self.find("completing call", |s| matches!(s.effect, Effect::Completes { .. }))
    }
}
