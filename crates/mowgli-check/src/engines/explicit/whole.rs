//! A whole program at once, for an engine that encodes every plain execution in
//! one query (the Z3 path of the obligations, `obligations::whole`).
//!
//! The groups of plain executions ([`super::for_each_plain_group`]: those that
//! differ only in open return values) of a program whose threads branch on
//! returned values differ in their events: per thread, each of its groups is a
//! different sequence of calls (a *copy* of the thread). The union graph has, per
//! thread, the events of every copy; an event exists in an execution iff its
//! thread takes its copy (the path condition: the returned values that lead
//! there), so po and ppo relate only events of one copy. Everything an engine
//! derives from the union (libraries' witnesses, relations) must then be guarded
//! by the existence of the events it relates; each group is the union restricted
//! to one copy per thread ([`WholeProgram::sub_map`]).

use mowgli_core::{Event, ExecGraph, Value};

use super::{each_group, graph, group_runs, terminating, Alternatives, EngineError, Problem};

/// The groups of plain executions of a program and their union.
pub struct WholeProgram<'w, 'u> {
    /// Per group of plain executions: its graph, the unfoldings per thread with the
    /// values that select them, and the copy each thread takes.
    pub groups: Vec<(ExecGraph<'w>, Alternatives<'u>, Vec<usize>)>,
    /// Every copy's events (open return values open, as in a group's graph); po
    /// and ppo only inside a copy.
    pub union: ExecGraph<'w>,
    /// Per event of the union: (thread, copy).
    pub copy_of: Vec<(usize, usize)>,
    /// Per thread: how many copies it has.
    pub copies: Vec<usize>,
    /// Per group: the union's index of each of its events, and of each of its
    /// subevents.
    pub event_map: Vec<Vec<usize>>,
    pub sub_map: Vec<Vec<usize>>,
}

/// Sees a whole program; returns whether to go on (errors are the caller's).
pub type WholeFn<'f> = dyn FnMut(&WholeProgram) -> Result<bool, String> + 'f;

/// Calls `f` once with the groups of plain executions of `p` and their union
/// (nothing when a thread has no terminating unfolding).
pub fn with_whole_program(p: &Problem, f: &mut WholeFn) -> Result<(), EngineError> {
    let all = super::unfold_threads(p)?;
    let Some(per_thread) = terminating(&all) else { return Ok(()) };
    let groups: Vec<Vec<super::Group>> = per_thread.iter().map(|runs| group_runs(p, runs)).collect();
    type Collected = (Vec<Event>, Vec<bool>, Vec<Option<Vec<Value>>>, Vec<usize>);
    let mut collected: Vec<Collected> = Vec::new();
    each_group(&per_thread, &groups, p, &mut |events, sym, sym_vals, chosen| {
        let choice: Vec<usize> = chosen
            .iter()
            .enumerate()
            .map(|(t, c)| groups[t].iter().position(|g| std::ptr::eq(g, *c)).unwrap_or(0))
            .collect();
        collected.push((events, sym, sym_vals, choice));
        true
    });
    let copies: Vec<usize> = groups.iter().map(Vec::len).collect();
    // the union: per thread, per copy, its events (from a group that takes it)
    let mut events: Vec<Event> = Vec::new();
    let (mut sym, mut sym_vals, mut copy_of) = (Vec::new(), Vec::new(), Vec::new());
    let mut offset: Vec<Vec<usize>> = copies.iter().map(|&n| vec![0; n]).collect();
    for (t, &n) in copies.iter().enumerate() {
        for (k, off) in offset[t].iter_mut().enumerate().take(n) {
            *off = events.len();
            let Some((ev, sy, sv, _)) = collected.iter().find(|c| c.3[t] == k) else { continue };
            for (i, e) in ev.iter().enumerate().filter(|(_, e)| e.thread == t) {
                events.push(e.clone());
                sym.push(sy[i]);
                sym_vals.push(sv[i].clone());
                copy_of.push((t, k));
            }
        }
    }
    let mut union = graph(p, events);
    union.sym_ret = sym;
    union.sym_vals = sym_vals;
    let copy = |s: usize| copy_of[union.subs[s].event];
    union.po = union.po.filter(|a, b| copy(a) == copy(b));
    union.ppo = union.ppo.filter(|a, b| copy(a) == copy(b));
    let mut out = Vec::with_capacity(collected.len());
    let (mut event_map, mut sub_map) = (Vec::new(), Vec::new());
    for (ev, sy, sv, choice) in collected {
        let mut em = Vec::with_capacity(ev.len());
        let mut seen = vec![0usize; copies.len()];
        for e in &ev {
            em.push(offset[e.thread][choice[e.thread]] + seen[e.thread]);
            seen[e.thread] += 1;
        }
        let mut g = graph(p, ev);
        g.sym_ret = sy;
        g.sym_vals = sv;
        let sm: Vec<usize> = (0..g.len()).map(|s| union.subs_of[em[g.subs[s].event]][g.subs[s].pos]).collect();
        let alts: Alternatives = choice
            .iter()
            .enumerate()
            .map(|(t, &k)| groups[t][k].by_values.iter().map(|(pat, r)| (pat.as_slice(), per_thread[t][*r])).collect())
            .collect();
        out.push((g, alts, choice));
        event_map.push(em);
        sub_map.push(sm);
    }
    let w = WholeProgram { groups: out, union, copy_of, copies, event_map, sub_map };
    f(&w).map(|_| ()).map_err(EngineError::Backend)
}
