//! Why a candidate execution is not consistent: the axiom it breaks and a cycle
//! of subevents through the axiom's relations, each edge named by the relation
//! it comes from. A library gives the reason through
//! [`crate::WitnessSearch::explain`] (for its current complete witness); this
//! module has the library-independent parts: the answer's shape and shortest
//! cycles and paths through a union of named relations.

use std::collections::VecDeque;

use crate::rel::BitRel;

/// One edge of a cycle: from subevent `from`, by relation `rel`, to the next
/// edge's `from` (the last edge closes the cycle at the first).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct CycleEdge {
    pub from: usize,
    pub rel: String,
}

/// The reason a candidate execution is inconsistent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The broken axiom, named as in the library's paper (e.g. `Def. 4.4 (2): ob is irreflexive`).
    pub axiom: String,
    /// Its place among the library's conditions, checked in that order (0: the
    /// first): a candidate that breaks a later one satisfies the earlier ones.
    pub rank: usize,
    pub cycle: Vec<CycleEdge>,
}

/// What a library says of a complete witness of a plain execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Candidate {
    /// Not a candidate execution: some read's value is not its write's, an
    /// identifier or a poll does not match, ….
    IllFormed,
    Consistent,
    Inconsistent(Violation),
}

/// A shortest cycle of the union of `parts` (relations with their names), each
/// edge named by the first relation of `parts` that has it.
pub fn shortest_cycle(parts: &[(&str, &BitRel)]) -> Option<Vec<CycleEdge>> {
    let n = parts.first()?.1.size();
    let mut best: Option<Vec<CycleEdge>> = None;
    for a in 0..n {
        // a shortest path from a successor of a back to a, closed by the edge a → b
        for (name, r) in parts {
            for b in r.successors(a) {
                let path = if b == a { Some(vec![]) } else { shortest_path(parts, b, a) };
                if let Some(path) = path {
                    if best.as_ref().is_none_or(|c| path.len() + 1 < c.len()) {
                        let mut cyc = vec![CycleEdge { from: a, rel: name.to_string() }];
                        cyc.extend(path);
                        best = Some(cyc);
                    }
                }
            }
        }
    }
    best
}

/// A shortest path (at least one edge when `a ≠ b`, none when `a = b`) from `a`
/// to `b` in the union of `parts`, as its edges.
pub fn shortest_path(parts: &[(&str, &BitRel)], a: usize, b: usize) -> Option<Vec<CycleEdge>> {
    if a == b {
        return Some(vec![]);
    }
    let n = parts.first()?.1.size();
    // predecessor of each node on a shortest path from a, with the relation
    let mut pred: Vec<Option<(usize, usize)>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[a] = true;
    let mut queue = VecDeque::from([a]);
    while let Some(x) = queue.pop_front() {
        for (k, (_, r)) in parts.iter().enumerate() {
            for y in r.successors(x) {
                if !seen[y] {
                    seen[y] = true;
                    pred[y] = Some((x, k));
                    if y == b {
                        let mut path = Vec::new();
                        let mut cur = b;
                        while let Some((p, k)) = pred[cur] {
                            path.push(CycleEdge { from: p, rel: parts[k].0.to_string() });
                            if p == a {
                                break;
                            }
                            cur = p;
                        }
                        path.reverse();
                        return Some(path);
                    }
                    queue.push_back(y);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(n: usize, pairs: &[(usize, usize)]) -> BitRel {
        let mut r = BitRel::new(n);
        for &(a, b) in pairs {
            r.add(a, b);
        }
        r
    }

    #[test]
    fn shortest_cycle_names_each_edge() {
        // 0 -a-> 1 -b-> 2 -a-> 0, and a longer cycle 0 -a-> 3 -b-> 4 -b-> 5 -a-> 0
        let a = rel(6, &[(0, 1), (2, 0), (0, 3), (5, 0)]);
        let b = rel(6, &[(1, 2), (3, 4), (4, 5)]);
        let c = shortest_cycle(&[("a", &a), ("b", &b)]).expect("a cycle");
        assert_eq!(c.len(), 3);
        let names: Vec<(usize, &str)> = c.iter().map(|e| (e.from, e.rel.as_str())).collect();
        assert_eq!(names, vec![(0, "a"), (1, "b"), (2, "a")]);
        assert_eq!(shortest_cycle(&[("a", &rel(3, &[(0, 1), (1, 2)]))]), None);
        let self_loop = rel(2, &[(1, 1)]);
        assert_eq!(shortest_cycle(&[("x", &self_loop)]), Some(vec![CycleEdge { from: 1, rel: "x".into() }]));
    }

    #[test]
    fn shortest_path_takes_fewest_edges() {
        let a = rel(4, &[(0, 1), (1, 2), (2, 3)]);
        let b = rel(4, &[(0, 2)]);
        let p = shortest_path(&[("a", &a), ("b", &b)], 0, 3).expect("a path");
        let names: Vec<(usize, &str)> = p.iter().map(|e| (e.from, e.rel.as_str())).collect();
        assert_eq!(names, vec![(0, "b"), (2, "a")]);
        assert_eq!(shortest_path(&[("a", &a)], 3, 0), None);
    }
}
