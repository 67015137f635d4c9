//! The object-based sets and relations of a file library (barriers, rings):
//! `participant`, `writer`, `balanced` and `same_round` over one plain execution.

use mowgli_core::{BitRel, Value};

use super::{FileSearch, Set};
use crate::*;

impl FileSearch<'_> {
    pub(super) fn obj_set(&self, which: ObjSet, a: &ArgRef) -> Set {
        let g = self.g;
        let w = g.world;
        let obj = |s: usize| match self.arg(s, a) {
            Some(Value::Obj(o)) => w.objs.get(*o as usize),
            _ => None,
        };
        match which {
            ObjSet::Participant => Set::from_fn(self.n, |s| {
                self.m.mine[s] && obj(s).is_some_and(|o| o.threads.contains(&g.event_of(s).thread))
            }),
            ObjSet::Writer => Set::from_fn(self.n, |s| {
                self.m.mine[s] && obj(s).is_some_and(|o| o.writer == Some(g.event_of(s).thread))
            }),
            ObjSet::Balanced => {
                // per object: every participant calls the method on it equally often
                let mut ok_obj = vec![true; w.objs.len()];
                for (oi, o) in w.objs.iter().enumerate() {
                    let count = |t: usize| {
                        g.events
                            .iter()
                            .enumerate()
                            .filter(|(ei, e)| {
                                e.thread == t
                                    && e.method == a.method
                                    && g.subs_of[*ei].first().is_some_and(|&s| self.m.mine[s])
                                    && matches!(self.arg(g.subs_of[*ei][0], a), Some(Value::Obj(x)) if *x as usize == oi)
                            })
                            .count()
                    };
                    let counts: Vec<usize> = o.threads.iter().map(|&t| count(t)).collect();
                    ok_obj[oi] = counts.windows(2).all(|c| c[0] == c[1]);
                }
                Set::from_fn(self.n, |s| {
                    self.m.mine[s]
                        && matches!(self.arg(s, a), Some(Value::Obj(o)) if ok_obj.get(*o as usize) == Some(&true))
                })
            }
        }
    }

    pub(super) fn same_round(&self, a: &ArgRef) -> BitRel {
        let g = self.g;
        // rank of each event among its thread's calls of the method with the same argument
        let mut rank: Vec<Option<usize>> = vec![None; g.events.len()];
        let mut order: Vec<usize> = (0..g.events.len()).collect();
        order.sort_by_key(|&e| (g.events[e].thread, g.events[e].index));
        for (k, &e) in order.iter().enumerate() {
            let ev = &g.events[e];
            let Some(&s0) = g.subs_of[e].first() else { continue };
            if !self.m.mine[s0] || ev.method != a.method {
                continue;
            }
            let v = self.arg(s0, a);
            let r = order[..k]
                .iter()
                .filter(|&&e2| {
                    let e2v = &g.events[e2];
                    e2v.thread == ev.thread
                        && e2v.method == a.method
                        && g.subs_of[e2].first().is_some_and(|&s| self.m.mine[s] && self.arg(s, a) == v)
                })
                .count();
            rank[e] = Some(r);
        }
        BitRel::from_fn(self.n, |x, y| {
            let (ex, ey) = (g.subs[x].event, g.subs[y].event);
            rank[ex].is_some() && rank[ex] == rank[ey] && self.arg(x, a) == self.arg(y, a)
        })
    }
}
