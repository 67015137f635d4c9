//! Executions as [`mowgli_draw::Graph`]s, the one picture every command draws
//! (litmus counterexamples and allowed outcomes, forbidding cycles, refinement
//! counterexamples, robustness cycles): a column per thread, a node per
//! subevent (LOCO Def. 3.3) labelled with its call — method, arguments, returned
//! value — and its stamp, program order down each column, and the witness
//! relations (rf, mo, rb, pf, nfo, …) across. Orders (mo, ppo, hb) are drawn by
//! their transitive reduction.

use mowgli_core::{Event, World};
use mowgli_draw::Graph;

use crate::lang::lower;

/// Relations that are orders: drawn by their transitive reduction.
const ORDERS: [&str; 4] = ["mo", "co", "ppo", "hb"];

/// An event as its call: `Put(x, y) = 1`.
pub fn event_label(low: &lower::Lowered, e: &Event) -> String {
    let m = low.libs[e.lib].methods()[e.method].name;
    call(&low.world, m, e)
}

/// `NAME(args) = ret` (no `= …` for a unit return).
pub fn call(world: &World, name: &str, e: &Event) -> String {
    let args: Vec<String> = e.args.iter().map(|a| world.show(a)).collect();
    let call = format!("{name}({})", args.join(", "));
    if e.ret == mowgli_core::Value::Unit {
        call
    } else {
        format!("{call} = {}", world.show(&e.ret))
    }
}

/// An execution to draw: its events, its subevents (event, stamp name), and its
/// relations over subevents.
#[derive(Clone, Copy)]
pub struct Exec<'a> {
    pub events: &'a [Event],
    pub subevents: &'a [(usize, String)],
    pub relations: &'a [(String, Vec<(usize, usize)>)],
}

/// How subevents are boxed together.
pub enum Grouping<'f> {
    /// The subevents of an event with more than one (a put's nlR and nrW) in a
    /// box labelled by the call; an event with one subevent is one node.
    Events,
    /// A box per value of the function (e.g. the abstract call an event
    /// implements); every node shows its call and its stamp.
    By(&'f dyn Fn(&Event) -> Option<String>),
}

/// The graph of `x`: node `i` is subevent `i`. `label` gives an event's call;
/// relations named in `skip` are left out.
pub fn execution(
    world: &World,
    title: String,
    x: Exec,
    label: &dyn Fn(usize, &Event) -> String,
    grouping: Grouping,
    skip: &[&str],
) -> Graph {
    let mut g = Graph::new(title);
    for th in &world.threads {
        g.column(format!("{} @ node {}", th.name, th.node));
    }
    // rows: a thread's subevents in program order (events by index, then the
    // order inside an event)
    let mut row = vec![0usize; x.subevents.len()];
    for t in 0..world.threads.len() {
        let mut mine: Vec<usize> = (0..x.subevents.len()).filter(|&s| x.events[x.subevents[s].0].thread == t).collect();
        mine.sort_by_key(|&s| (x.events[x.subevents[s].0].index, s));
        for (r, &s) in mine.iter().enumerate() {
            row[s] = r;
        }
    }
    let count = |ei: usize| x.subevents.iter().filter(|(e, _)| *e == ei).count();
    for (s, (ei, stamp)) in x.subevents.iter().enumerate() {
        let e = &x.events[*ei];
        let lines = match grouping {
            Grouping::Events if count(*ei) > 1 => vec![format!("e{ei}.{stamp}")],
            _ => vec![format!("e{ei}: {}", label(*ei, e)), stamp.clone()],
        };
        g.node(e.thread, row[s], lines);
    }
    match grouping {
        Grouping::Events => {
            for (ei, e) in x.events.iter().enumerate() {
                let nodes: Vec<usize> = (0..x.subevents.len()).filter(|&s| x.subevents[s].0 == ei).collect();
                if nodes.len() > 1 {
                    g.groups.push(mowgli_draw::Group { label: format!("e{ei}: {}", label(ei, e)), nodes });
                }
            }
        }
        Grouping::By(key) => {
            let mut keys: Vec<(usize, String)> = Vec::new();
            for (s, (ei, _)) in x.subevents.iter().enumerate() {
                let e = &x.events[*ei];
                let Some(k) = key(e) else { continue };
                match g.groups.iter_mut().zip(&keys).find(|(_, (t, kk))| *t == e.thread && *kk == k) {
                    Some((gr, _)) => gr.nodes.push(s),
                    None => {
                        keys.push((e.thread, k.clone()));
                        g.groups.push(mowgli_draw::Group { label: k, nodes: vec![s] });
                    }
                }
            }
        }
    }
    g.chain_columns("po");
    for (name, pairs) in x.relations {
        if skip.contains(&name.as_str()) {
            continue;
        }
        if ORDERS.contains(&name.as_str()) {
            g.reduced(pairs, name);
        } else {
            for &(a, b) in pairs {
                g.edge(a, b, name.as_str());
            }
        }
    }
    g
}

/// A litmus execution (the test's own events): events grouped per call, ppo left
/// out (it follows from po and the stamp order).
pub fn litmus_execution(low: &lower::Lowered, title: String, x: Exec) -> Graph {
    execution(&low.world, title, x, &|_, e| event_label(low, e), Grouping::Events, &["ppo"])
}

/// Highlights a cycle `(from, relation)` of subevents (each step to the next
/// step's `from`, the last one back to the first), and says what it means.
pub fn highlight_cycle(g: &mut Graph, cycle: &[(usize, String)], meaning: String) {
    for (i, (a, rel)) in cycle.iter().enumerate() {
        let b = cycle[(i + 1) % cycle.len()].0;
        g.highlight(*a, b, rel);
    }
    g.highlight_meaning = Some(meaning);
}
