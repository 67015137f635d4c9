//! A file library's declaration as the tools read it ([`mowgli_core::signature`]):
//! parameter roles from the parameter kinds, the accesses and the well-formedness
//! axioms; return alternatives; the memory's shape.

use mowgli_core::{Callers, MemoryShape, MethodSig, Ret, Role};

use crate::{AxiomKind, Expr, Kind, MemoryKind, ObjSet, RetKind, Spec, StampItem, ValRef};

/// The signatures of the methods of `spec`, interning names with `intern`.
pub(super) fn method_sigs(spec: &Spec, intern: impl Fn(&str) -> &'static str) -> Vec<MethodSig> {
    spec.methods
        .iter()
        .enumerate()
        .map(|(mi, m)| {
            // a method whose parameters are all work identifiers waits for them
            // (rdmawait's `Wait(d)`); elsewhere a work identifier names the
            // operation the call starts (`Put(x, y, d)`)
            let awaited = !m.params.is_empty() && m.params.iter().all(|(_, k)| *k == Kind::Wid);
            let roles = m
                .params
                .iter()
                .enumerate()
                .map(|(pi, (_, k))| match k {
                    Kind::Loc { local, sized_like } => Role::Loc {
                        local: *local,
                        written: m.accesses.iter().any(|a| a.write && a.loc == pi),
                        sized_like: *sized_like,
                    },
                    Kind::Src { .. } => Role::Src,
                    Kind::Val if compared(&m.stamps, pi) => Role::Expected,
                    Kind::Val => Role::Val,
                    Kind::Tuple(i) => Role::Tuple(*i),
                    Kind::Wid => Role::Wid { awaited },
                    Kind::Node => Role::Node { completes: false },
                    Kind::Nodes => Role::Nodes,
                    Kind::Barrier => Role::Barrier(callers(spec, mi, pi)),
                    Kind::Ring => Role::Ring(callers(spec, mi, pi)),
                })
                .collect();
            let rets = m
                .ret
                .iter()
                .map(|r| match r {
                    RetKind::ValueOf(i) | RetKind::TupleOf(i) | RetKind::Sums(i) => Ret::ValueOf(*i),
                    RetKind::Bool => Ret::Bool,
                    RetKind::Message => Ret::Message,
                    RetKind::Bot => Ret::Bot,
                    RetKind::Top => Ret::Top,
                })
                .collect();
            MethodSig::new(intern(&m.name), roles, rets)
        })
        .collect()
}

/// Whether the stamping compares the returned value with parameter `pi`
/// (`if ret == e then …`: a CAS's expected value).
fn compared(items: &[StampItem], pi: usize) -> bool {
    items.iter().any(|i| match i {
        StampItem::Stamp { .. } => false,
        StampItem::For { body, .. } => compared(body, pi),
        StampItem::If { cond, then, els } => cond.val == ValRef::Param(pi) || compared(then, pi) || compared(els, pi),
    })
}

/// Who may call method `mi` on its object parameter `pi`: what an axiom
/// `empty M \ writer(M.p)` (the writer) or `empty M \ participant(M.p)` (the
/// participants; also `balanced`) says; every thread when none does.
fn callers(spec: &Spec, mi: usize, pi: usize) -> Callers {
    let mut out = Callers::Any;
    for a in spec.axioms.iter().filter(|a| a.kind == AxiomKind::Empty) {
        if let Expr::Diff(lhs, rhs) = &a.expr {
            if let (Expr::Method(m), Expr::Obj(set, arg)) = (lhs.as_ref(), rhs.as_ref()) {
                if *m == mi && arg.method == mi && arg.param == Some(pi) {
                    match set {
                        ObjSet::Writer => return Callers::Writer,
                        ObjSet::Participant | ObjSet::Balanced => out = Callers::Participants,
                    }
                }
            }
        }
    }
    out
}

/// The memory's shape.
pub(super) fn memory_shape(spec: &Spec) -> MemoryShape {
    match spec.memory {
        Some(m) => MemoryShape { replicated: m.kind == MemoryKind::Replicated, tuples: m.tuples },
        None => MemoryShape::default(),
    }
}
