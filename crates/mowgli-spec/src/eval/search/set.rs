//! Sets of subevents as bits.

/// A set of subevents `0..n`: one bit each, the first 64 in place (no
/// allocation for the usual executions), the others in `more`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Set {
    lo: u64,
    more: Vec<u64>,
}

impl Set {
    /// The empty set (of any size: what `more` lacks is empty).
    pub(super) const EMPTY: Set = Set { lo: 0, more: Vec::new() };

    /// The empty set of `0..n`.
    pub(super) fn new(n: usize) -> Set {
        Set { lo: 0, more: vec![0; n.div_ceil(64).saturating_sub(1)] }
    }

    /// `{x < n | keep(x)}`.
    pub(super) fn from_fn(n: usize, keep: impl Fn(usize) -> bool) -> Set {
        let mut s = Set::new(n);
        for x in (0..n).filter(|&x| keep(x)) {
            s.insert(x);
        }
        s
    }

    pub(super) fn contains(&self, x: usize) -> bool {
        let w = if x < 64 { self.lo } else { self.more.get(x / 64 - 1).copied().unwrap_or(0) };
        w >> (x % 64) & 1 == 1
    }

    pub(super) fn insert(&mut self, x: usize) {
        if x < 64 {
            self.lo |= 1 << x;
        } else if let Some(w) = self.more.get_mut(x / 64 - 1) {
            *w |= 1 << (x % 64);
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.lo == 0 && self.more.iter().all(|w| *w == 0)
    }

    /// Every word of `self` becomes `f(it, other's)`.
    fn combine(&mut self, other: &Set, f: impl Fn(u64, u64) -> u64) {
        self.lo = f(self.lo, other.lo);
        for (a, b) in self.more.iter_mut().zip(&other.more) {
            *a = f(*a, *b);
        }
    }

    pub(super) fn union_with(&mut self, other: &Set) {
        self.combine(other, |a, b| a | b);
    }

    pub(super) fn intersect_with(&mut self, other: &Set) {
        self.combine(other, |a, b| a & b);
    }

    pub(super) fn minus_with(&mut self, other: &Set) {
        self.combine(other, |a, b| a & !b);
    }

    /// The elements, in increasing order.
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.lo).chain(self.more.iter().copied()).enumerate().flat_map(|(i, mut w)| {
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let t = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(i * 64 + t)
            })
        })
    }

    /// As one flag per subevent of `0..n`.
    pub(super) fn to_bools(&self, n: usize) -> Vec<bool> {
        (0..n).map(|x| self.contains(x)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_past_one_word() {
        for n in [0, 5, 64, 65, 130] {
            let a = Set::from_fn(n, |x| x % 3 == 0);
            let b = Set::from_fn(n, |x| x % 2 == 0);
            let (mut u, mut i, mut d) = (a.clone(), a.clone(), a.clone());
            u.union_with(&b);
            i.intersect_with(&b);
            d.minus_with(&b);
            for x in 0..n {
                assert_eq!(u.contains(x), x % 3 == 0 || x % 2 == 0);
                assert_eq!(i.contains(x), x % 6 == 0);
                assert_eq!(d.contains(x), x % 3 == 0 && x % 2 != 0);
            }
            assert_eq!(a.iter().collect::<Vec<_>>(), (0..n).filter(|x| x % 3 == 0).collect::<Vec<_>>());
            assert_eq!(a.to_bools(n), (0..n).map(|x| x % 3 == 0).collect::<Vec<_>>());
            assert!(Set::new(n).is_empty());
            assert_eq!(a.is_empty(), n == 0);
        }
    }
}
