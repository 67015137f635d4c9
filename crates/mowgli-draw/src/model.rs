//! The graph model: columns (threads), nodes placed by column and row (program
//! order down), groups (a box around consecutive nodes of one column: an event's
//! subevents, an abstract call's implementation), and named edges.

use std::collections::BTreeSet;

/// A node: one subevent (or event) in column `column`, at row `row` (its place in
/// program order; rows are shared by all columns, so equal rows line up).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub column: usize,
    pub row: usize,
    /// The label, one entry per line (e.g. the call `Read(y) = 0`, then the stamp).
    pub lines: Vec<String>,
}

/// A box around nodes of one column (an event with several subevents, an
/// abstract call and its implementation), labelled above its nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub label: String,
    pub nodes: Vec<usize>,
}

/// An edge of relation `kind` (po, ppo, rf, mo, rb, so, g, …). A highlighted edge
/// is the one a verdict is about: the refuted edge, a forbidding cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub kind: String,
    /// Its label when drawn (the kind when `None`).
    pub label: Option<String>,
    pub highlight: bool,
}

impl Edge {
    pub fn text(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.kind)
    }
}

/// An execution graph to draw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Graph {
    pub title: String,
    /// Lines under the title (the outcome, the broken axiom, …).
    pub notes: Vec<String>,
    /// Column labels, left to right (`T1 @ node 1`).
    pub columns: Vec<String>,
    pub nodes: Vec<Node>,
    pub groups: Vec<Group>,
    pub edges: Vec<Edge>,
    /// What the highlighted edges are (shown in the legend).
    pub highlight_meaning: Option<String>,
}

/// How an edge kind is drawn: its colour and whether it is dashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    pub colour: &'static str,
    pub dashed: bool,
}

/// The colour of the usual relation names (herd7's choices where they exist: po
/// black, mo/co blue; rf green here, since red marks the highlighted edges).
pub fn style(kind: &str) -> Style {
    let (colour, dashed) = match kind {
        "po" => ("#000000", false),
        "ppo" => ("#7a7a7a", false),
        "rf" => ("#1b7f1b", false),
        "mo" | "co" => ("#1f4fd1", false),
        "rb" | "fr" => ("#d9780a", false),
        "pf" | "nfo" => ("#8e2bb0", false),
        "so" | "so'" => ("#0d8a8a", false),
        "hb" => ("#5a3d1e", false),
        "g" => ("#1b7f1b", true),
        _ => ("#555555", true),
    };
    Style { colour, dashed }
}

/// The colour of highlighted edges.
pub const HIGHLIGHT: &str = "#d0021b";

impl Graph {
    pub fn new(title: impl Into<String>) -> Graph {
        Graph { title: title.into(), ..Graph::default() }
    }

    /// Adds a column, returning its index.
    pub fn column(&mut self, label: impl Into<String>) -> usize {
        self.columns.push(label.into());
        self.columns.len() - 1
    }

    /// Adds a node, returning its index.
    pub fn node(&mut self, column: usize, row: usize, lines: Vec<String>) -> usize {
        self.nodes.push(Node { column, row, lines });
        self.nodes.len() - 1
    }

    pub fn edge(&mut self, from: usize, to: usize, kind: impl Into<String>) {
        self.edges.push(Edge { from, to, kind: kind.into(), label: None, highlight: false });
    }

    pub fn highlighted(&mut self, from: usize, to: usize, kind: impl Into<String>, label: Option<String>) {
        self.edges.push(Edge { from, to, kind: kind.into(), label, highlight: true });
    }

    /// Marks the edges `from → to` of `kind` highlighted; adds one if there is none.
    pub fn highlight(&mut self, from: usize, to: usize, kind: &str) {
        let mut found = false;
        for e in self.edges.iter_mut().filter(|e| e.from == from && e.to == to && e.kind == kind) {
            e.highlight = true;
            found = true;
        }
        if !found {
            self.highlighted(from, to, kind, None);
        }
    }

    /// Program order drawn as herd7 draws it: in each column, an edge of `kind`
    /// from each node to the next one down (the transitive reduction of the
    /// column's total order).
    pub fn chain_columns(&mut self, kind: &str) {
        for c in 0..self.columns.len() {
            let mut mine: Vec<usize> = (0..self.nodes.len()).filter(|&n| self.nodes[n].column == c).collect();
            mine.sort_by_key(|&n| self.nodes[n].row);
            for w in mine.windows(2) {
                self.edge(w[0], w[1], kind);
            }
        }
    }

    /// Adds the edges of `pairs` as `kind`, keeping only its transitive reduction:
    /// a pair implied by two or more others of `pairs` is left out (for an order
    /// such as ppo, whose transitive edges say nothing new). `pairs` must be acyclic.
    pub fn reduced(&mut self, pairs: &[(usize, usize)], kind: &str) {
        for (a, b) in transitive_reduction(pairs) {
            self.edge(a, b, kind);
        }
    }

    /// The edge kinds present, in first-seen order.
    pub fn kinds(&self) -> Vec<&str> {
        let mut seen = BTreeSet::new();
        self.edges.iter().filter(|e| seen.insert(e.kind.as_str())).map(|e| e.kind.as_str()).collect()
    }

    /// The number of rows (one more than the largest row).
    pub fn rows(&self) -> usize {
        self.nodes.iter().map(|n| n.row + 1).max().unwrap_or(0)
    }
}

/// The transitive reduction of an acyclic relation: the pairs (a, b) with no
/// path a → c → … → b of two or more steps.
pub fn transitive_reduction(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let n = pairs.iter().map(|&(a, b)| a.max(b) + 1).max().unwrap_or(0);
    let mut succ: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for &(a, b) in pairs {
        if a != b {
            succ[a].insert(b);
        }
    }
    // reach[a]: every node reachable from a in one or more steps
    let mut reach: Vec<Option<BTreeSet<usize>>> = vec![None; n];
    fn reach_of(a: usize, succ: &[BTreeSet<usize>], reach: &mut Vec<Option<BTreeSet<usize>>>) -> BTreeSet<usize> {
        if let Some(r) = &reach[a] {
            return r.clone();
        }
        reach[a] = Some(BTreeSet::new()); // a cycle (not expected) stops here
        let mut r = BTreeSet::new();
        for &b in &succ[a] {
            r.insert(b);
            r.extend(reach_of(b, succ, reach));
        }
        reach[a] = Some(r.clone());
        r
    }
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for &(a, b) in pairs {
        if a == b || !seen.insert((a, b)) {
            continue;
        }
        let implied = succ[a].iter().any(|&c| c != b && reach_of(c, &succ, &mut reach).contains(&b));
        if !implied {
            out.push((a, b));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduction_drops_transitive_pairs_only() {
        // a total order on 4 elements: 6 pairs, 3 in the reduction
        let all: Vec<(usize, usize)> = (0..4).flat_map(|a| (a + 1..4).map(move |b| (a, b))).collect();
        assert_eq!(transitive_reduction(&all), vec![(0, 1), (1, 2), (2, 3)]);
        // a diamond keeps its four sides and drops the diagonal
        let d = [(0, 1), (0, 2), (1, 3), (2, 3), (0, 3)];
        assert_eq!(transitive_reduction(&d), vec![(0, 1), (0, 2), (1, 3), (2, 3)]);
    }

    #[test]
    fn chain_links_each_node_to_the_next_in_its_column() {
        let mut g = Graph::new("t");
        let c0 = g.column("T1");
        let c1 = g.column("T2");
        let a = g.node(c0, 1, vec!["a".into()]);
        let b = g.node(c0, 0, vec!["b".into()]);
        let c = g.node(c1, 0, vec!["c".into()]);
        let d = g.node(c0, 2, vec!["d".into()]);
        g.chain_columns("po");
        let po: Vec<(usize, usize)> = g.edges.iter().map(|e| (e.from, e.to)).collect();
        assert_eq!(po, vec![(b, a), (a, d)]);
        assert!(!po.iter().any(|&(x, y)| x == c || y == c));
    }

    #[test]
    fn highlight_marks_an_existing_edge_or_adds_one() {
        let mut g = Graph::new("t");
        let c = g.column("T1");
        let a = g.node(c, 0, vec![]);
        let b = g.node(c, 1, vec![]);
        g.edge(a, b, "rf");
        g.highlight(a, b, "rf");
        g.highlight(b, a, "rb");
        assert_eq!(g.edges.len(), 2);
        assert!(g.edges.iter().all(|e| e.highlight));
    }
}
