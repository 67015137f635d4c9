//! Private location families of an implementation: a family every use of which
//! names the calling thread's own location (`buf(l)[self]`) and passes it straight
//! to a call where a location is expected. Only the thread an index names then
//! reaches such a location: no register holds it, no call stores it. Retry loops
//! drop failed attempts that wrote only such locations
//! (`mowgli_core::program::retry`).

use mowgli_core::program::{Expr, Prog};
use mowgli_core::{Library, Param};

/// Per family (`nfam` of them), whether the bodies `bodies`, whose calls name the
/// libraries `libs`, keep it private.
pub fn private_families<'a>(
    nfam: usize,
    bodies: impl IntoIterator<Item = &'a Prog>,
    libs: &[Box<dyn Library>],
) -> Vec<bool> {
    let mut w = Walk { selfs: vec![None; nfam], escaped: vec![false; nfam], libs };
    for b in bodies {
        w.prog(b);
    }
    (0..nfam).map(|f| !w.escaped[f] && w.selfs[f].as_ref().is_some_and(|p| !p.is_empty())).collect()
}

struct Walk<'l> {
    /// Per family: the index positions that are `self` in every use seen (`None`:
    /// no use yet).
    selfs: Vec<Option<Vec<usize>>>,
    /// Per family: some use is not a location argument of a call.
    escaped: Vec<bool>,
    libs: &'l [Box<dyn Library>],
}

impl Walk<'_> {
    fn prog(&mut self, p: &Prog) {
        match p {
            Prog::Ret(e) | Prog::Break(_, e) => self.expr(e),
            Prog::Call { lib, method, args } => {
                let params = self.libs.get(*lib).and_then(|l| l.methods().get(*method)).map(|s| s.params.clone());
                for (i, a) in args.iter().enumerate() {
                    let is_loc =
                        params.as_ref().and_then(|ps| ps.get(i)).is_some_and(|p| matches!(p, Param::Loc | Param::Src));
                    match a {
                        Expr::Derived { family, base, index } if is_loc => {
                            self.used(*family as usize, index);
                            if let Some(b) = base {
                                self.expr(b);
                            }
                            index.iter().for_each(|e| self.expr(e));
                        }
                        _ => self.expr(a),
                    }
                }
            }
            Prog::Let { first, rest, .. } => {
                self.prog(first);
                self.prog(rest);
            }
            Prog::Loop(b) | Prog::Spin(b, _) | Prog::Retry(b) => self.prog(b),
            Prog::If(c, a, b) => {
                self.expr(c);
                self.prog(a);
                self.prog(b);
            }
            Prog::For { set, body, .. } => {
                self.expr(set);
                self.prog(body);
            }
        }
    }

    /// A use of family `f` as a call's location argument, with indices `index`.
    fn used(&mut self, f: usize, index: &[Expr]) {
        let here: Vec<usize> =
            (0..index.len()).filter(|&i| matches!(&index[i], Expr::Ctx(n, a) if n == "self" && a.is_empty())).collect();
        if let Some(s) = self.selfs.get_mut(f) {
            *s = Some(match s.take() {
                None => here,
                Some(before) => before.into_iter().filter(|i| here.contains(i)).collect(),
            });
        }
    }

    /// An expression anywhere else: the families in it escape.
    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Val(_) | Expr::Reg(_) => {}
            Expr::Tuple(es) | Expr::Op(_, es) | Expr::Ctx(_, es) => es.iter().for_each(|e| self.expr(e)),
            Expr::Comp { body, set, .. } => {
                self.expr(body);
                self.expr(set);
            }
            Expr::Derived { family, base, index } => {
                if let Some(x) = self.escaped.get_mut(*family as usize) {
                    *x = true;
                }
                if let Some(b) = base {
                    self.expr(b);
                }
                index.iter().for_each(|e| self.expr(e));
            }
        }
    }
}
