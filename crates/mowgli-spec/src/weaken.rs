//! Weakenings of a library (axiom sensitivity, `mowgli axioms`): each variant
//! allows every execution the library allows, usually more.
//!
//! - drop a named axiom ([`Spec::without_axiom`]);
//! - `acyclic r` → `irreflexive r` (a cycle is allowed unless it is a self-loop
//!   of r itself);
//! - an axiom over a union `r1 | r2 | …`: drop one term at a time. The union is
//!   the first one met (outermost, left first) in a position where a smaller
//!   relation gives a weaker axiom: under closures, inverses, `[…]`, `;`, `&`, the
//!   left of `\`, and `let` names; a `let` on the way is inlined into the axiom
//!   only, so the other uses of the name (e.g. in `so`) keep it whole;
//! - `so = t1 | t2 | …`: drop one so term at a time (less hb: every axiom over
//!   hb, and the execution's acyclicity, gets weaker).

use crate::*;

/// What a weakening changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    DropAxiom,
    /// `acyclic r` → `irreflexive r`.
    Irreflexive,
    /// The axiom's union without term i (printed).
    DropUnionTerm(usize, String),
    /// so without term i (printed).
    DropSoTerm(usize, String),
}

/// One weakening of a library.
#[derive(Clone, Debug)]
pub struct Weakening {
    /// The axiom changed (`None`: so).
    pub axiom: Option<String>,
    pub change: Change,
    /// An identifier for the variant's library name (`without_cr_rb_cw`,
    /// `ib_irreflexive`, `ib_minus_3`, `so_minus_2`).
    pub tag: String,
    /// What it does, for people (`irreflexive ib without the term rf`).
    pub description: String,
    pub spec: Spec,
}

/// The terms of a union (flattened; a single term when `e` is no union).
fn union_terms(e: &Expr) -> Vec<Expr> {
    match e {
        Expr::Union(a, b) => {
            let mut v = union_terms(a);
            v.extend(union_terms(b));
            v
        }
        e => vec![e.clone()],
    }
}

fn union_of(terms: Vec<Expr>, ty: Ty) -> Expr {
    terms.into_iter().reduce(|a, b| Expr::Union(Box::new(a), Box::new(b))).unwrap_or(Expr::Empty(ty))
}

type Rebuild = Box<dyn Fn(Expr) -> Expr>;

/// The first union of `e` (pre-order, left operand first) in a position where a
/// smaller relation makes `e` smaller: under closures, inverses, `[…]`, both
/// operands of `;` and `&`, the left one of `\`, and through `let` names (inlined).
/// Returns its terms and how to rebuild `e` around a replacement. `None`: none.
fn outer_union(e: &Expr, lets: &[Let]) -> Option<(Vec<Expr>, Rebuild)> {
    outer_union_in(e, lets, 0)
}

/// [`outer_union`] at `depth` lets deep (a `let rec` names itself: give up deep down).
fn outer_union_in(e: &Expr, lets: &[Let], depth: usize) -> Option<(Vec<Expr>, Rebuild)> {
    if depth > 32 {
        return None;
    }
    type Wrap1 = fn(Box<Expr>) -> Expr;
    type Wrap2 = fn(Box<Expr>, Box<Expr>) -> Expr;
    let unary = |a: &Expr, w: Wrap1| -> Option<(Vec<Expr>, Rebuild)> {
        let (terms, inner) = outer_union_in(a, lets, depth)?;
        Some((terms, Box::new(move |x| w(Box::new(inner(x))))))
    };
    let binary = |a: &Expr, b: &Expr, w: Wrap2, right_too: bool| -> Option<(Vec<Expr>, Rebuild)> {
        if let Some((terms, inner)) = outer_union_in(a, lets, depth) {
            let b = b.clone();
            return Some((terms, Box::new(move |x| w(Box::new(inner(x)), Box::new(b.clone())))));
        }
        if !right_too {
            return None;
        }
        let (terms, inner) = outer_union_in(b, lets, depth)?;
        let a = a.clone();
        Some((terms, Box::new(move |x| w(Box::new(a.clone()), Box::new(inner(x))))))
    };
    match e {
        Expr::Union(..) => Some((union_terms(e), Box::new(|x| x))),
        Expr::Let(i, _) => outer_union_in(&lets[*i].expr, lets, depth + 1),
        Expr::Plus(a) => unary(a, Expr::Plus),
        Expr::Star(a) => unary(a, Expr::Star),
        Expr::Inv(a) => unary(a, Expr::Inv),
        Expr::Ident(a) => unary(a, Expr::Ident),
        Expr::Seq(a, b) => binary(a, b, Expr::Seq, true),
        Expr::Inter(a, b) => binary(a, b, Expr::Inter, true),
        Expr::Diff(a, b) => binary(a, b, Expr::Diff, false),
        _ => None,
    }
}

impl Spec {
    /// Every weakening of this library, axiom by axiom (in file order), then so's.
    pub fn weakenings(&self) -> Vec<Weakening> {
        let mut out = Vec::new();
        for (ai, ax) in self.axioms.iter().enumerate() {
            // the value conditions of coreRMA-like files (`defined`, `undefined`,
            // `undefined final`) and named clauses of a `let` are only dropped
            let (kind, relational) = match ax.kind {
                AxiomKind::Acyclic => ("acyclic", true),
                AxiomKind::Irreflexive => ("irreflexive", true),
                AxiomKind::Empty => ("empty", true),
                AxiomKind::Defined => ("defined", false),
                AxiomKind::Undefined => ("undefined", false),
                AxiomKind::FinalUndefined => ("undefined final", false),
                AxiomKind::Clause(i) => (self.lets[i].name.as_str(), false),
            };
            let shown = self.show(&ax.expr);
            // a name shared by several axioms (coreRMA's R1: an hb term and a
            // constraint) is one rule: dropped once, with all of them
            let first = self.axioms.iter().position(|a| a.name == ax.name) == Some(ai);
            let dropped = if first { self.without_axiom(&ax.name) } else { None };
            if let Some(spec) = dropped {
                out.push(Weakening {
                    axiom: Some(ax.name.clone()),
                    change: Change::DropAxiom,
                    tag: format!("without_{}", ax.name),
                    description: format!("without {}: `{kind} {shown}`", ax.name),
                    spec,
                });
            }
            if !relational {
                continue;
            }
            if ax.kind == AxiomKind::Acyclic {
                let mut spec = self.clone();
                spec.axioms[ai].kind = AxiomKind::Irreflexive;
                spec.refresh_flags();
                out.push(Weakening {
                    axiom: Some(ax.name.clone()),
                    change: Change::Irreflexive,
                    tag: format!("{}_irreflexive", ax.name),
                    description: format!("{}: `irreflexive {shown}` instead of `acyclic`", ax.name),
                    spec,
                });
            }
            if let Some((terms, rebuild)) = outer_union(&ax.expr, &self.lets) {
                if terms.len() < 2 {
                    continue;
                }
                for i in 0..terms.len() {
                    let rest: Vec<Expr> =
                        terms.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, t)| t.clone()).collect();
                    let mut spec = self.clone();
                    spec.axioms[ai].expr = rebuild(union_of(rest, Ty::Rel));
                    spec.refresh_flags();
                    let term = self.show(&terms[i]);
                    out.push(Weakening {
                        axiom: Some(ax.name.clone()),
                        change: Change::DropUnionTerm(i, term.clone()),
                        tag: format!("{}_minus_{}", ax.name, i + 1),
                        description: format!("{}: `{kind}` without the union term `{term}`", ax.name),
                        spec,
                    });
                }
            }
        }
        if let Some(so) = &self.so {
            let terms = union_terms(so);
            if terms.len() > 1 {
                for i in 0..terms.len() {
                    let rest: Vec<Expr> =
                        terms.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, t)| t.clone()).collect();
                    let mut spec = self.clone();
                    spec.so = Some(union_of(rest, Ty::Rel));
                    spec.refresh_flags();
                    let term = self.show(&terms[i]);
                    out.push(Weakening {
                        axiom: None,
                        change: Change::DropSoTerm(i, term.clone()),
                        tag: format!("so_minus_{}", i + 1),
                        description: format!("so without the term `{term}`"),
                        spec,
                    });
                }
            }
        }
        out
    }

    /// An expression in the file's syntax (names of lets, stamps, methods).
    pub fn show(&self, e: &Expr) -> String {
        self.show_in(e, 0)
    }

    /// `e` where an operator of precedence `min` is expected (`|` 1, `&` and `\` 2,
    /// `;` 3, postfix and atoms 4): parenthesised when it binds less tightly.
    fn show_in(&self, e: &Expr, min: u8) -> String {
        use Expr::*;
        let arg = |a: &ArgRef| {
            let m = &self.methods[a.method];
            match a.param {
                Some(p) => format!("{}.{}", m.name, m.params[p].0),
                None => format!("{}.ret", m.name),
            }
        };
        let prec = match e {
            Union(..) => 1,
            Inter(..) | Diff(..) => 2,
            Seq(..) | Prod(..) => 3,
            _ => 4,
        };
        let s = match e {
            All => "all".into(),
            Stamp(k) => self.stamps[*k].name.clone(),
            Method(m) => self.methods[*m].name.clone(),
            MethodStamp(m, k) => format!("{}.{}", self.methods[*m].name, self.stamps[*k].name),
            Reads => "reads".into(),
            Writes => "writes".into(),
            Tag(i) => self.tags[*i].clone(),
            InitReads => "init_reads".into(),
            WitSet(i, first) => match &self.witnesses[*i].kind {
                WitnessKind::Splits { names, .. } => names[usize::from(!*first)].clone(),
                _ => format!("{}?", self.witnesses[*i].name),
            },
            ValEq(a) => format!("val_eq({})", self.show(a)),
            ValNe(a) => format!("val_ne({})", self.show(a)),
            Obj(o, a) => {
                let f = match o {
                    ObjSet::Participant => "participant",
                    ObjSet::Writer => "writer",
                    ObjSet::Balanced => "balanced",
                };
                format!("{f}({})", arg(a))
            }
            Domain(a) => format!("domain({})", self.show(a)),
            Range(a) => format!("range({})", self.show(a)),
            Base(b) => parse::BASES.iter().find(|(_, x)| x == b).map_or("?", |(n, _)| n).to_string(),
            Same(a, b) => format!("same({}, {})", arg(a), arg(b)),
            SameRound(a) => format!("same_round({})", arg(a)),
            Wit(WitRel::Rf) => "rf".into(),
            Wit(WitRel::Mo) => "mo".into(),
            Wit(WitRel::Rb) => "rb".into(),
            Wit(WitRel::Named(i)) => self.witnesses[*i].name.clone(),
            Ident(a) => format!("[{}]", self.show(a)),
            Prod(a, b) => format!("{} * {}", self.show_in(a, 4), self.show_in(b, 4)),
            Inv(a) => format!("{}^-1", self.show_in(a, 4)),
            Plus(a) => format!("{}+", self.show_in(a, 4)),
            Star(a) => format!("{}*", self.show_in(a, 4)),
            Seq(a, b) => format!("{} ; {}", self.show_in(a, 3), self.show_in(b, 3)),
            Let(i, _) => self.lets[*i].name.clone(),
            Union(a, b) => format!("{} | {}", self.show_in(a, 1), self.show_in(b, 1)),
            Inter(a, b) => format!("{} & {}", self.show_in(a, 2), self.show_in(b, 3)),
            Diff(a, b) => format!("{} \\ {}", self.show_in(a, 2), self.show_in(b, 3)),
            Empty(_) => "0".into(),
            Const(i, _) => format!("#{i}"),
        };
        if prec < min {
            format!("({s})")
        } else {
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::weaken::Change;
    use crate::*;

    const LIB: &str = "library t\nstamps aCR aCW\nmemory located\n\
        method W(x: local loc, v: val) { stamps aCW\n aCW writes x = v }\n\
        method R(x: local loc) -> value(x) readonly { stamps aCR\n aCR reads x = ret }\n\
        let c = (rf | mo | rb)+\n\
        acyclic c as coh\n\
        empty rb & [aCR] ; po^-1 ; [aCW] as cr\n\
        empty rf^-1 ; rf & (po | po^-1) as once\n\
        so = rf | [aCW] ; po ; [aCR]\n";

    #[test]
    fn the_weakenings_of_a_small_library() {
        let s = parse_text("t.lib", LIB, None).expect("parses");
        let w = s.weakenings();
        let tags: Vec<&str> = w.iter().map(|w| w.tag.as_str()).collect();
        assert_eq!(
            tags,
            [
                "without_coh",
                "coh_irreflexive",
                "coh_minus_1",
                "coh_minus_2",
                "coh_minus_3",
                "without_cr",
                "without_once",
                "once_minus_1",
                "once_minus_2",
                "so_minus_1",
                "so_minus_2"
            ]
        );
        // the let is inlined into the axiom only
        let m2 = &w[3];
        assert_eq!(m2.change, Change::DropUnionTerm(1, "mo".into()));
        assert_eq!(s.show(&m2.spec.axioms[0].expr), "(rf | rb)+");
        assert_eq!(m2.spec.lets, s.lets);
        assert_eq!(w[1].spec.axioms[0].kind, AxiomKind::Irreflexive);
        assert_eq!(s.show(&w[8].spec.axioms[2].expr), "rf^-1 ; rf & po");
        assert_eq!(s.show(w[10].spec.so.as_ref().expect("so")), "rf");
        assert_eq!(w[9].change, Change::DropSoTerm(0, "rf".into()));
        assert_eq!(s.show(&s.axioms[1].expr), "rb & [aCR] ; po^-1 ; [aCW]");
    }
}
