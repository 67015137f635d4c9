//! `BitRel`'s word-parallel operations against their definitions, computed here
//! pair by pair, on random relations of 1 to 70 elements (one machine word per
//! row up to 64 elements, two beyond: both code paths), and the in-place forms
//! against the allocating ones.

use mowgli_core::BitRel;
use proptest::prelude::*;

/// A relation on `n` elements with the given pairs (taken modulo `n`).
fn rel(n: usize, pairs: &[(usize, usize)]) -> BitRel {
    let mut r = BitRel::new(n);
    for &(a, b) in pairs {
        r.add(a % n, b % n);
    }
    r
}

fn relation() -> impl Strategy<Value = BitRel> {
    (1usize..=70).prop_flat_map(|n| {
        let density = 0usize..=3;
        (Just(n), density)
            .prop_flat_map(|(n, d)| proptest::collection::vec((0..n, 0..n), 0..=n * d).prop_map(move |ps| rel(n, &ps)))
    })
}

/// The pairs of `r⁺`, by repeated relational steps until nothing changes.
fn naive_closure(r: &BitRel) -> Vec<Vec<bool>> {
    let n = r.size();
    let mut m: Vec<Vec<bool>> = (0..n).map(|a| (0..n).map(|b| r.contains(a, b)).collect()).collect();
    loop {
        let mut changed = false;
        for row in m.iter_mut() {
            for b in 0..n {
                if row[b] {
                    for (c, cell) in row.iter_mut().enumerate() {
                        if r.contains(b, c) && !*cell {
                            *cell = true;
                            changed = true;
                        }
                    }
                }
            }
        }
        if !changed {
            return m;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn closure_and_acyclicity_follow_their_definitions(r in relation()) {
        let n = r.size();
        let want = naive_closure(&r);
        let got = r.transitive_closure();
        for (a, row) in want.iter().enumerate() {
            for (b, &w) in row.iter().enumerate() {
                prop_assert_eq!(got.contains(a, b), w, "({}, {}) in r⁺ on {} elements", a, b, n);
            }
        }
        let cyclic = (0..n).any(|a| want[a][a]);
        prop_assert_eq!(r.is_acyclic(), !cyclic);
        prop_assert_eq!(r.find_cycle().is_some(), cyclic);
    }

    #[test]
    fn compose_and_restrict_follow_their_definitions(r in relation(), s in any::<u64>(), keep in any::<u128>()) {
        let n = r.size();
        let other = BitRel::from_fn(n, |a, b| (a * 31 + b * 17 + s as usize).is_multiple_of(5));
        let comp = r.compose(&other);
        let dom = |a: usize| keep >> (a % 128) & 1 == 1;
        let rng = |b: usize| keep >> ((b + 64) % 128) & 1 == 1;
        let res = r.restrict(dom, rng);
        for a in 0..n {
            for c in 0..n {
                let via = (0..n).any(|b| r.contains(a, b) && other.contains(b, c));
                prop_assert_eq!(comp.contains(a, c), via);
                prop_assert_eq!(res.contains(a, c), r.contains(a, c) && dom(a) && rng(c));
            }
        }
    }

    /// The in-place forms give what their allocating forms give, into storage
    /// left over from a relation of another size.
    #[test]
    fn in_place_forms_agree(r in relation(), q in relation(), s in any::<u64>(), keep in any::<u128>()) {
        let n = r.size();
        let other = BitRel::from_fn(n, |a, b| (a * 13 + b * 7 + s as usize).is_multiple_of(3));
        let dom = |a: usize| keep >> (a % 128) & 1 == 1;
        let rng = |b: usize| keep >> ((b + 64) % 128) & 1 == 1;
        let mut x = q.clone();
        x.assign(&r);
        prop_assert_eq!(&x, &r);
        x.intersect_with(&other);
        prop_assert_eq!(&x, &r.intersect(&other));
        x.assign(&r);
        x.minus_with(&other);
        prop_assert_eq!(&x, &r.minus(&other));
        x.assign(&r);
        x.restrict_with(dom, rng);
        prop_assert_eq!(&x, &r.restrict(dom, rng));
        let mut out = q.clone();
        r.compose_into(&other, &mut out);
        prop_assert_eq!(&out, &r.compose(&other));
        out.reset(n);
        prop_assert_eq!(&out, &BitRel::new(n));
    }
}
