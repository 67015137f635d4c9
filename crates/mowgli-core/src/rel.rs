//! Binary relations over a finite carrier `0..n` (events or subevents) as bit matrices.
//!
//! Litmus-sized graphs have a few dozen subevents, so each row is a handful of
//! machine words and composition / closure are word-parallel.

use std::fmt;

/// A relation `r ⊆ A × A` with `A = {0, …, n-1}`, stored row-wise as bit vectors.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BitRel {
    n: usize,
    words: usize,
    bits: Vec<u64>,
}

impl BitRel {
    /// The empty relation on `n` elements.
    pub fn new(n: usize) -> Self {
        let words = n.div_ceil(64).max(1);
        BitRel { n, words, bits: vec![0; words * n] }
    }

    /// The identity relation `[A]` restricted to the elements satisfying `keep`.
    pub fn identity_on(n: usize, keep: impl Fn(usize) -> bool) -> Self {
        let mut r = BitRel::new(n);
        for i in 0..n {
            if keep(i) {
                r.add(i, i);
            }
        }
        r
    }

    /// `{(a, b) | pred(a, b)}`.
    pub fn from_fn(n: usize, pred: impl Fn(usize, usize) -> bool) -> Self {
        let mut r = BitRel::new(n);
        for a in 0..n {
            for b in 0..n {
                if pred(a, b) {
                    r.add(a, b);
                }
            }
        }
        r
    }

    pub fn size(&self) -> usize {
        self.n
    }

    #[inline]
    pub fn add(&mut self, a: usize, b: usize) {
        self.bits[a * self.words + b / 64] |= 1u64 << (b % 64);
    }

    #[inline]
    pub fn remove(&mut self, a: usize, b: usize) {
        self.bits[a * self.words + b / 64] &= !(1u64 << (b % 64));
    }

    #[inline]
    pub fn contains(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.words + b / 64] >> (b % 64) & 1 == 1
    }

    #[inline]
    fn row(&self, a: usize) -> &[u64] {
        &self.bits[a * self.words..(a + 1) * self.words]
    }

    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|w| *w == 0)
    }

    pub fn clear(&mut self) {
        self.bits.iter_mut().for_each(|w| *w = 0);
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// All pairs, row by row.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        // one word at a time, lowest bit first (a flat walk over the words)
        let mut i = 0;
        let mut w = self.bits.first().copied().unwrap_or(0);
        std::iter::from_fn(move || loop {
            if w != 0 {
                let t = w.trailing_zeros() as usize;
                w &= w - 1;
                return Some((i / self.words, (i % self.words) * 64 + t));
            }
            i += 1;
            w = *self.bits.get(i)?;
        })
    }

    /// `{b | (a, b) ∈ r}`.
    pub fn successors(&self, a: usize) -> impl Iterator<Item = usize> + '_ {
        self.row(a).iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let t = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + t)
            })
        })
    }

    /// `self ∪= other`.
    pub fn union_with(&mut self, other: &BitRel) {
        debug_assert_eq!(self.n, other.n);
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a |= *b;
        }
    }

    pub fn union(&self, other: &BitRel) -> BitRel {
        let mut r = self.clone();
        r.union_with(other);
        r
    }

    /// `self ∩ other`.
    pub fn intersect(&self, other: &BitRel) -> BitRel {
        let mut r = self.clone();
        for (a, b) in r.bits.iter_mut().zip(&other.bits) {
            *a &= *b;
        }
        r
    }

    /// `self \ other`.
    pub fn minus(&self, other: &BitRel) -> BitRel {
        let mut r = self.clone();
        for (a, b) in r.bits.iter_mut().zip(&other.bits) {
            *a &= !*b;
        }
        r
    }

    /// `self ∩= other`.
    pub fn intersect_with(&mut self, other: &BitRel) {
        debug_assert_eq!(self.n, other.n);
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a &= *b;
        }
    }

    /// `self \= other`.
    pub fn minus_with(&mut self, other: &BitRel) {
        debug_assert_eq!(self.n, other.n);
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a &= !*b;
        }
    }

    /// `r⁻¹`.
    pub fn inverse(&self) -> BitRel {
        let mut r = BitRel::new(self.n);
        for (a, b) in self.pairs() {
            r.add(b, a);
        }
        r
    }

    /// `self ; other` (relational composition).
    pub fn compose(&self, other: &BitRel) -> BitRel {
        let mut r = BitRel::new(self.n);
        let w = self.words;
        for a in 0..self.n {
            for c in self.successors(a) {
                let (dst, src) = (&mut r.bits[a * w..(a + 1) * w], &other.bits[c * w..(c + 1) * w]);
                for (d, s) in dst.iter_mut().zip(src) {
                    *d |= *s;
                }
            }
        }
        r
    }

    /// `[A]; r; [B]` where A and B are given as predicates.
    pub fn restrict(&self, dom: impl Fn(usize) -> bool, rng: impl Fn(usize) -> bool) -> BitRel {
        // row-parallel: each kept row masked by the kept range
        let w = self.words;
        let mut r = BitRel::new(self.n);
        if w == 1 {
            // at most 64 elements: one word per row
            let mask = (0..self.n).filter(|&b| rng(b)).fold(0u64, |m, b| m | 1 << b);
            for (a, (out, row)) in r.bits.iter_mut().zip(&self.bits).enumerate() {
                if dom(a) {
                    *out = row & mask;
                }
            }
            return r;
        }
        let mut mask = vec![0u64; w];
        for b in (0..self.n).filter(|&b| rng(b)) {
            mask[b / 64] |= 1 << (b % 64);
        }
        for a in (0..self.n).filter(|&a| dom(a)) {
            for (k, m) in mask.iter().enumerate() {
                r.bits[a * w + k] = self.bits[a * w + k] & m;
            }
        }
        r
    }

    /// [`BitRel::restrict`] in place: `self := [A]; self; [B]`.
    pub fn restrict_with(&mut self, dom: impl Fn(usize) -> bool, rng: impl Fn(usize) -> bool) {
        let w = self.words;
        if w == 1 {
            let mask = (0..self.n).filter(|&b| rng(b)).fold(0u64, |m, b| m | 1 << b);
            for (a, row) in self.bits.iter_mut().enumerate() {
                *row = if dom(a) { *row & mask } else { 0 };
            }
            return;
        }
        let mut mask = vec![0u64; w];
        for b in (0..self.n).filter(|&b| rng(b)) {
            mask[b / 64] |= 1 << (b % 64);
        }
        for (a, row) in self.bits.chunks_mut(w).enumerate() {
            let keep = dom(a);
            for (x, m) in row.iter_mut().zip(&mask) {
                *x = if keep { *x & m } else { 0 };
            }
        }
    }

    /// Keeps only pairs satisfying `pred`.
    pub fn filter(&self, pred: impl Fn(usize, usize) -> bool) -> BitRel {
        let mut r = BitRel::new(self.n);
        for (a, b) in self.pairs() {
            if pred(a, b) {
                r.add(a, b);
            }
        }
        r
    }

    /// `r⁺` in place (Warshall's algorithm, row-parallel).
    pub fn close_transitively(&mut self) {
        let w = self.words;
        if w == 1 {
            // one word per row: row k joins every row that reaches k
            for k in 0..self.n {
                let (kb, row_k) = (1u64 << k, self.bits[k]);
                for row in self.bits.iter_mut() {
                    if *row & kb != 0 {
                        *row |= row_k;
                    }
                }
            }
            return;
        }
        for k in 0..self.n {
            let (kw, kb) = (k / 64, 1u64 << (k % 64));
            for i in 0..self.n {
                if self.bits[i * w + kw] & kb != 0 && i != k {
                    for j in 0..w {
                        let v = self.bits[k * w + j];
                        self.bits[i * w + j] |= v;
                    }
                }
            }
        }
    }

    /// `r⁺`.
    pub fn transitive_closure(&self) -> BitRel {
        let mut r = self.clone();
        r.close_transitively();
        r
    }

    /// `r*` (reflexive-transitive closure).
    pub fn reflexive_transitive_closure(&self) -> BitRel {
        let mut r = self.transitive_closure();
        for i in 0..self.n {
            r.add(i, i);
        }
        r
    }

    pub fn is_irreflexive(&self) -> bool {
        (0..self.n).all(|i| !self.contains(i, i))
    }

    /// Whether `r⁺` is irreflexive, i.e. `r` has no cycle. Uses a depth-first
    /// search (Kahn's algorithm), cheaper than computing the closure.
    pub fn is_acyclic(&self) -> bool {
        if self.words == 1 {
            // one word per row: peel off the elements no remaining element
            // points to, until none is left (acyclic) or none can go (a cycle)
            let mut left: u64 = if self.n == 64 { u64::MAX } else { (1u64 << self.n) - 1 };
            while left != 0 {
                let mut pointed = 0u64;
                let mut rest = left;
                while rest != 0 {
                    let a = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    pointed |= self.bits[a];
                }
                let sources = left & !pointed;
                if sources == 0 {
                    return false;
                }
                left &= !sources;
            }
            return true;
        }
        let mut indeg = vec![0usize; self.n];
        for (_, b) in self.pairs() {
            indeg[b] += 1;
        }
        let mut stack: Vec<usize> = (0..self.n).filter(|&i| indeg[i] == 0).collect();
        let mut seen = 0;
        while let Some(a) = stack.pop() {
            seen += 1;
            for b in self.successors(a) {
                indeg[b] -= 1;
                if indeg[b] == 0 {
                    stack.push(b);
                }
            }
        }
        seen == self.n
    }

    /// Some cycle of `r`, as a list of elements, if there is one.
    pub fn find_cycle(&self) -> Option<Vec<usize>> {
        // colours: 0 white, 1 grey, 2 black
        let mut colour = vec![0u8; self.n];
        let mut parent = vec![usize::MAX; self.n];
        for root in 0..self.n {
            if colour[root] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, Vec<usize>)> = vec![(root, self.successors(root).collect())];
            colour[root] = 1;
            while let Some((node, succ)) = stack.last_mut() {
                let node = *node;
                if let Some(next) = succ.pop() {
                    match colour[next] {
                        0 => {
                            colour[next] = 1;
                            parent[next] = node;
                            let s = self.successors(next).collect();
                            stack.push((next, s));
                        }
                        1 => {
                            let mut cyc = vec![next];
                            let mut cur = node;
                            while cur != next {
                                cyc.push(cur);
                                cur = parent[cur];
                            }
                            cyc.reverse();
                            // rotate so that `next` is first
                            cyc.rotate_right(1);
                            return Some(cyc);
                        }
                        _ => {}
                    }
                } else {
                    colour[node] = 2;
                    stack.pop();
                }
            }
        }
        None
    }
}

impl Default for BitRel {
    /// The empty relation on no elements.
    fn default() -> Self {
        BitRel::new(0)
    }
}

/// More in-place forms (beside `intersect_with`, `minus_with`, `restrict_with`),
/// for a check that rebuilds the same relations at every candidate: they reuse
/// the storage of their target.
impl BitRel {
    /// `self := other` (any size), keeping `self`'s storage when it is large enough.
    pub fn assign(&mut self, other: &BitRel) {
        self.n = other.n;
        self.words = other.words;
        self.bits.clone_from(&other.bits);
    }

    /// The empty relation on `n` elements, in `self`'s storage.
    pub fn reset(&mut self, n: usize) {
        self.n = n;
        self.words = n.div_ceil(64).max(1);
        self.bits.clear();
        self.bits.resize(self.words * n, 0);
    }

    /// `out := self ; other` ([`BitRel::compose`] into `out`'s storage).
    pub fn compose_into(&self, other: &BitRel, out: &mut BitRel) {
        out.reset(self.n);
        let w = self.words;
        for a in 0..self.n {
            for c in self.successors(a) {
                let (dst, src) = (&mut out.bits[a * w..(a + 1) * w], &other.bits[c * w..(c + 1) * w]);
                for (d, s) in dst.iter_mut().zip(src) {
                    *d |= *s;
                }
            }
        }
    }
}

impl fmt::Debug for BitRel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.pairs()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_and_cycles() {
        let mut r = BitRel::new(70);
        r.add(0, 1);
        r.add(1, 65);
        r.add(65, 3);
        assert!(r.is_acyclic());
        let c = r.transitive_closure();
        assert!(c.contains(0, 3));
        assert!(!c.contains(3, 0));
        r.add(3, 0);
        assert!(!r.is_acyclic());
        let cyc = r.find_cycle().unwrap();
        assert_eq!(cyc.len(), 4);
        for i in 0..cyc.len() {
            assert!(r.contains(cyc[i], cyc[(i + 1) % cyc.len()]));
        }
        assert!(!r.transitive_closure().is_irreflexive());
    }

    /// `restrict` (row-parallel) against its definition, pair by pair, on
    /// pseudo-random relations of sizes around the 64-bit word boundary.
    #[test]
    fn restrict_keeps_exactly_the_pairs_in_domain_and_range() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for n in [1, 5, 63, 64, 65, 130] {
            let mut r = BitRel::new(n);
            for _ in 0..3 * n {
                let (a, b) = ((next() % n as u64) as usize, (next() % n as u64) as usize);
                r.add(a, b);
            }
            let (dm, rm) = (next(), next());
            let dom = |a: usize| dm >> (a % 64) & 1 == 1;
            let rng = |b: usize| rm >> ((b * 7) % 64) & 1 == 1;
            let got = r.restrict(dom, rng);
            let want = BitRel::from_fn(n, |a, b| r.contains(a, b) && dom(a) && rng(b));
            assert_eq!(got.pairs().collect::<Vec<_>>(), want.pairs().collect::<Vec<_>>(), "n = {n}");
            let mut inplace = r.clone();
            inplace.restrict_with(dom, rng);
            assert_eq!(inplace, want, "n = {n}");
            let other = BitRel::from_fn(n, |a, b| (a + b) % 3 == 0);
            let mut i = r.clone();
            i.intersect_with(&other);
            assert_eq!(i, r.intersect(&other));
            let mut m = r.clone();
            m.minus_with(&other);
            assert_eq!(m, r.minus(&other));
        }
    }

    /// `pairs` lists exactly the pairs `contains` says, row by row.
    #[test]
    fn pairs_are_the_contained_pairs_in_order() {
        for n in [0, 1, 3, 64, 65, 129] {
            let r = BitRel::from_fn(n, |a, b| (a * 31 + b * 17) % 5 == 0 || b + 1 == n);
            let want: Vec<(usize, usize)> =
                (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).filter(|&(a, b)| r.contains(a, b)).collect();
            assert_eq!(r.pairs().collect::<Vec<_>>(), want, "n = {n}");
        }
    }

    #[test]
    fn compose_inverse() {
        let mut a = BitRel::new(4);
        a.add(0, 1);
        let mut b = BitRel::new(4);
        b.add(1, 2);
        b.add(1, 3);
        let c = a.compose(&b);
        assert_eq!(c.pairs().collect::<Vec<_>>(), vec![(0, 2), (0, 3)]);
        assert_eq!(c.inverse().pairs().collect::<Vec<_>>(), vec![(2, 0), (3, 0)]);
    }
}
