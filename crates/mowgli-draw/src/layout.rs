//! Where each node goes: a column per thread (as wide as its widest node), a
//! row per program-order position (as tall as its tallest node, shared by all
//! columns so that equal positions line up), room above a row for the labels of
//! the groups that start there, and gaps between columns wide enough for the
//! labels of the edges that cross them.

use crate::model::Graph;

/// Width of one character of the labels (a monospace font at [`FONT`] px).
pub const CHAR_W: f64 = 7.4;
/// Font size of labels, px.
pub const FONT: f64 = 12.0;
/// Height of one label line, px.
pub const LINE_H: f64 = 15.0;
/// Padding inside a node, px.
const PAD: f64 = 7.0;
/// Height of a group's label above its first node, px.
pub const GROUP_LABEL_H: f64 = 17.0;
/// Padding of a group's box around its nodes, px.
pub const GROUP_PAD: f64 = 6.0;
/// Vertical gap between rows, px.
const ROW_GAP: f64 = 38.0;
/// Horizontal gap between columns, px.
const COL_GAP: f64 = 120.0;
/// Margin around the drawing, px.
pub const MARGIN: f64 = 16.0;

/// A node's box: top-left corner and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn cx(&self) -> f64 {
        self.x + self.w / 2.0
    }
    pub fn cy(&self) -> f64 {
        self.y + self.h / 2.0
    }
    pub fn right(&self) -> f64 {
        self.x + self.w
    }
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
}

/// The placed graph.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Per node, its box.
    pub nodes: Vec<Rect>,
    /// Per column, its left edge and width.
    pub columns: Vec<(f64, f64)>,
    /// Per group, its box (around its nodes).
    pub groups: Vec<Rect>,
    /// Width and height of the whole drawing.
    pub width: f64,
    pub height: f64,
}

pub fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * CHAR_W
}

/// Places `g`'s nodes below `top` (the space the title takes).
pub fn layout(g: &Graph, top: f64) -> Layout {
    let cols = g.columns.len().max(g.nodes.iter().map(|n| n.column + 1).max().unwrap_or(0));
    let rows = g.rows();
    let size = |lines: &[String]| {
        let w = lines.iter().map(|l| text_width(l)).fold(0.0, f64::max) + 2.0 * PAD;
        (w.max(60.0), lines.len().max(1) as f64 * LINE_H + 2.0 * PAD - 3.0)
    };
    // column widths: nodes, group labels, the column label
    let mut col_w = vec![90.0f64; cols];
    for (c, w) in col_w.iter_mut().enumerate() {
        if let Some(l) = g.columns.get(c) {
            *w = w.max(text_width(l) + 8.0);
        }
    }
    for n in &g.nodes {
        col_w[n.column] = col_w[n.column].max(size(&n.lines).0);
    }
    for gr in &g.groups {
        if let Some(&first) = gr.nodes.first() {
            let c = g.nodes[first].column;
            col_w[c] = col_w[c].max(text_width(&gr.label) + 2.0 * GROUP_PAD);
        }
    }
    // row heights, and the room for group labels above each row
    let mut row_h = vec![0.0f64; rows];
    for n in &g.nodes {
        row_h[n.row] = row_h[n.row].max(size(&n.lines).1);
    }
    let mut starts = vec![vec![0usize; cols]; rows];
    let mut ends = vec![vec![0usize; cols]; rows];
    for gr in &g.groups {
        let rs = gr.nodes.iter().map(|&n| g.nodes[n].row);
        if let (Some(lo), Some(hi), Some(&first)) = (rs.clone().min(), rs.max(), gr.nodes.first()) {
            starts[lo][g.nodes[first].column] += 1;
            ends[hi][g.nodes[first].column] += 1;
        }
    }
    let above: Vec<f64> =
        starts.iter().map(|s| s.iter().copied().max().unwrap_or(0) as f64 * (GROUP_LABEL_H + GROUP_PAD)).collect();
    let below: Vec<f64> = ends.iter().map(|s| s.iter().copied().max().unwrap_or(0) as f64 * GROUP_PAD).collect();
    let mut row_y = vec![0.0; rows];
    let mut y = top;
    for r in 0..rows {
        y += above[r];
        row_y[r] = y;
        y += row_h[r] + below[r] + ROW_GAP;
    }
    // same-column arcs bulge to the right: widen the gap after a column that has them
    let mut arcs = vec![0.0f64; cols];
    for e in &g.edges {
        let (a, b) = (&g.nodes[e.from], &g.nodes[e.to]);
        if a.column == b.column && a.row.abs_diff(b.row) != 1 {
            arcs[a.column] = arcs[a.column].max(text_width(e.text()) + 30.0);
        }
    }
    let mut columns = Vec::with_capacity(cols);
    let mut x = MARGIN;
    for c in 0..cols {
        columns.push((x, col_w[c]));
        x += col_w[c] + COL_GAP.max(arcs[c] + 40.0);
    }
    let width = (x - COL_GAP + MARGIN).max(MARGIN * 2.0);
    let nodes: Vec<Rect> = g
        .nodes
        .iter()
        .map(|n| {
            let (w, h) = size(&n.lines);
            let (cx, cw) = columns[n.column];
            Rect { x: cx + (cw - w) / 2.0, y: row_y[n.row] + (row_h[n.row] - h) / 2.0, w, h }
        })
        .collect();
    let groups = group_boxes(g, &nodes, &columns);
    let height = y - ROW_GAP + MARGIN;
    Layout { nodes, columns, groups, width, height }
}

/// Each group's box: its column's width (less padding per nesting level), from
/// above its first node (with its label) to below its last.
fn group_boxes(g: &Graph, nodes: &[Rect], columns: &[(f64, f64)]) -> Vec<Rect> {
    g.groups
        .iter()
        .map(|gr| {
            let Some(&first) = gr.nodes.first() else { return Rect { x: 0.0, y: 0.0, w: 0.0, h: 0.0 } };
            let (cx, cw) = columns[g.nodes[first].column];
            let top = gr.nodes.iter().map(|&n| nodes[n].y).fold(f64::INFINITY, f64::min);
            let bottom = gr.nodes.iter().map(|&n| nodes[n].bottom()).fold(0.0, f64::max);
            Rect {
                x: cx - GROUP_PAD,
                y: top - GROUP_LABEL_H - GROUP_PAD,
                w: cw + 2.0 * GROUP_PAD,
                h: bottom - top + GROUP_LABEL_H + 2.0 * GROUP_PAD,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_threads() -> Graph {
        let mut g = Graph::new("SB");
        let t1 = g.column("T1 @ node 1");
        let t2 = g.column("T2 @ node 2");
        let a = g.node(t1, 0, vec!["e0: Write(x, 1)".into(), "aCW".into()]);
        let b = g.node(t1, 1, vec!["e1: Read(y) = 0".into(), "aCR".into()]);
        let c = g.node(t2, 0, vec!["e2: Write(y, 1)".into(), "aCW".into()]);
        let d = g.node(t2, 1, vec!["e3: Read(x) = 0".into(), "aCR".into()]);
        g.chain_columns("po");
        g.edge(b, c, "rb");
        g.edge(d, a, "rb");
        g
    }

    #[test]
    fn threads_are_columns_and_program_order_goes_down() {
        let g = two_threads();
        let l = layout(&g, 40.0);
        // one column per thread, left to right, not overlapping
        assert_eq!(l.columns.len(), 2);
        assert!(l.columns[0].0 + l.columns[0].1 < l.columns[1].0);
        for (n, r) in g.nodes.iter().zip(&l.nodes) {
            let (cx, cw) = l.columns[n.column];
            assert!(r.x >= cx - 1e-9 && r.right() <= cx + cw + 1e-9, "node inside its column");
        }
        // po goes down; equal rows line up across columns
        for e in g.edges.iter().filter(|e| e.kind == "po") {
            assert!(l.nodes[e.from].bottom() < l.nodes[e.to].y);
        }
        assert_eq!(l.nodes[0].cy(), l.nodes[2].cy());
        assert!(l.nodes[0].y >= 40.0);
        assert!(l.width >= l.columns[1].0 + l.columns[1].1);
        assert!(l.height >= l.nodes[3].bottom());
    }

    #[test]
    fn a_group_boxes_its_nodes_and_its_label() {
        let mut g = Graph::new("put");
        let c = g.column("T1");
        let a = g.node(c, 0, vec!["aNLR_2".into()]);
        let b = g.node(c, 1, vec!["aNRW_2".into()]);
        g.groups.push(crate::Group { label: "e0: Put(x, 1)".into(), nodes: vec![a, b] });
        let l = layout(&g, 0.0);
        let gb = l.groups[0];
        for n in [a, b] {
            let r = l.nodes[n];
            assert!(gb.x <= r.x && gb.right() >= r.right() && gb.y + GROUP_LABEL_H <= r.y && gb.bottom() >= r.bottom());
        }
    }
}
