//! A [`Graph`] as SVG, laid out by [`crate::layout`] (no Graphviz): threads as
//! columns, program order down, communication edges across as curves with
//! arrowheads and labels, the highlighted edges red and bold, and a legend.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::layout::{layout, text_width, Layout, Rect, FONT, GROUP_LABEL_H, LINE_H, MARGIN};
use crate::model::{style, Edge, Graph, HIGHLIGHT};
use crate::xml_escape as esc;

/// The point at parameter `t` of a cubic Bézier curve.
fn cubic(p: [(f64, f64); 4], t: f64) -> (f64, f64) {
    let u = 1.0 - t;
    let (a, b, c, d) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
    (a * p[0].0 + b * p[1].0 + c * p[2].0 + d * p[3].0, a * p[0].1 + b * p[1].1 + c * p[2].1 + d * p[3].1)
}

/// An edge's curve (four Bézier points) between its nodes' boxes; `k` numbers the
/// edges between the same two nodes, so that parallel edges do not overlap.
fn curve(a: &Rect, b: &Rect, same_column: bool, adjacent: bool, k: usize, forward: bool) -> [(f64, f64); 4] {
    let spread = k as f64 * 16.0 * if forward { 1.0 } else { -1.0 };
    if same_column && adjacent && k == 0 {
        let (x0, y0, y1) = if a.y < b.y { (a.cx(), a.bottom(), b.y) } else { (a.cx(), a.y, b.bottom()) };
        return [(x0, y0), (x0, y0 + (y1 - y0) / 3.0), (x0, y1 - (y1 - y0) / 3.0), (x0, y1)];
    }
    if same_column {
        // an arc on the right of the column, wider for longer spans
        let (x0, x1) = (a.right(), b.right());
        let span = (b.cy() - a.cy()).abs();
        let bulge = x0.max(x1) + 26.0 + span * 0.12 + k as f64 * 16.0;
        return [(x0, a.cy()), (bulge, a.cy()), (bulge, b.cy()), (x1, b.cy())];
    }
    // across columns: from the side of `a` facing `b` to the side of `b` facing `a`
    let (x0, x1) = if a.cx() < b.cx() { (a.right(), b.x) } else { (a.x, b.right()) };
    let (y0, y1) = (a.cy(), b.cy());
    let (dx, dy) = (x1 - x0, y1 - y0);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (nx, ny) = (-dy / len * spread, dx / len * spread);
    [(x0, y0), (x0 + dx / 3.0 + nx, y0 + dy / 3.0 + ny), (x0 + 2.0 * dx / 3.0 + nx, y0 + 2.0 * dy / 3.0 + ny), (x1, y1)]
}

/// The space the title, the notes and the column labels take.
fn header_height(notes: &[String]) -> f64 {
    MARGIN + 20.0 + notes.len() as f64 * 16.0 + 28.0
}

/// Notes wrapped at spaces to lines of at most `width` characters.
fn wrap(notes: &[String], width: usize) -> Vec<String> {
    let mut out = Vec::new();
    for n in notes {
        let mut line = String::new();
        for word in n.split(' ') {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
                out.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push(line);
    }
    out
}

/// The graph as a standalone SVG document. `id` prefixes the element ids (the
/// arrowhead markers), so that several graphs can share one HTML page.
pub fn svg(g: &Graph, id: &str) -> String {
    let notes = wrap(&g.notes, 110);
    let top = header_height(&notes);
    let l = layout(g, top);
    let kinds = g.kinds();
    let legend_h = 18.0 + if g.edges.iter().any(|e| e.highlight) { 18.0 } else { 0.0 } + 8.0;
    // the title is larger and bold: about 1.25 times as wide per character
    let title_w = (text_width(&g.title) * 1.25 + 2.0 * MARGIN)
        .max(notes.iter().map(|t| text_width(t) + 2.0 * MARGIN).fold(0.0, f64::max));
    let legend_w: f64 = kinds.iter().map(|k| text_width(k) + 46.0).sum::<f64>() + 2.0 * MARGIN;
    let width = l.width.max(title_w).max(legend_w).ceil();
    let height = (l.height + legend_h).ceil();
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"mowgli-graph\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"{FONT}\">"
    );
    let _ = writeln!(o, "<title>{}</title>", esc(&g.title));
    markers(&mut o, g, id);
    let _ = writeln!(o, "<rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>");
    let _ = writeln!(
        o,
        "<text x=\"{MARGIN}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\">{}</text>",
        MARGIN + 12.0,
        esc(&g.title)
    );
    for (i, n) in notes.iter().enumerate() {
        let _ = writeln!(
            o,
            "<text x=\"{MARGIN}\" y=\"{}\" fill=\"#333\">{}</text>",
            MARGIN + 32.0 + 16.0 * i as f64,
            esc(n)
        );
    }
    columns(&mut o, g, &l, top);
    for (gr, r) in g.groups.iter().zip(&l.groups) {
        let _ = writeln!(
            o,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"6\" fill=\"#f6f6fb\" stroke=\"#9a9ab8\" stroke-dasharray=\"4 3\"/>",
            r.x, r.y, r.w, r.h
        );
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#33335a\">{}</text>",
            r.x + 6.0,
            r.y + GROUP_LABEL_H - 3.0,
            esc(&gr.label)
        );
    }
    let labels = edges(&mut o, g, &l, id);
    for (n, r) in g.nodes.iter().zip(&l.nodes) {
        let _ = writeln!(
            o,
            "<rect class=\"node\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"4\" fill=\"#ffffff\" stroke=\"#222\"/>",
            r.x, r.y, r.w, r.h
        );
        for (i, line) in n.lines.iter().enumerate() {
            let fill = if i == 0 { "#000" } else { "#555" };
            let _ = writeln!(
                o,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{fill}\">{}</text>",
                r.cx(),
                r.y + 7.0 + LINE_H * (i as f64 + 1.0) - 4.0,
                esc(line)
            );
        }
    }
    o.push_str(&labels);
    legend(&mut o, g, &kinds, l.height + 4.0);
    o.push_str("</svg>\n");
    o
}

fn markers(o: &mut String, g: &Graph, id: &str) {
    let mut colours: Vec<&str> = g.edges.iter().map(|e| colour(e)).collect();
    colours.sort();
    colours.dedup();
    o.push_str("<defs>\n");
    for c in colours {
        let _ = writeln!(
            o,
            "<marker id=\"{id}-ah-{}\" viewBox=\"0 0 10 8\" refX=\"9.5\" refY=\"4\" markerWidth=\"10\" markerHeight=\"8\" markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,0 L10,4 L0,8 z\" fill=\"{c}\"/></marker>",
            c.trim_start_matches('#')
        );
    }
    o.push_str("</defs>\n");
}

fn colour(e: &Edge) -> &'static str {
    if e.highlight {
        HIGHLIGHT
    } else {
        style(&e.kind).colour
    }
}

/// Column labels above the first row, and a faint guide down each column.
fn columns(o: &mut String, g: &Graph, l: &Layout, top: f64) {
    for (c, &(x, w)) in l.columns.iter().enumerate() {
        let label = g.columns.get(c).map(String::as_str).unwrap_or("");
        let _ = writeln!(
            o,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#e4e4e4\" stroke-width=\"1\"/>",
            x + w / 2.0,
            top - 6.0,
            x + w / 2.0,
            l.height - MARGIN
        );
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>",
            x + w / 2.0,
            top - 10.0,
            esc(label)
        );
    }
}

/// Draws the edges; returns their labels, drawn after the nodes (on top).
fn edges(o: &mut String, g: &Graph, l: &Layout, id: &str) -> String {
    let mut labels = String::new();
    let mut between: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    // plain edges first, highlighted ones on top
    let order = g.edges.iter().filter(|e| !e.highlight).chain(g.edges.iter().filter(|e| e.highlight));
    for e in order {
        let key = (e.from.min(e.to), e.from.max(e.to));
        let k = *between.entry(key).and_modify(|k| *k += 1).or_insert(0);
        let (na, nb) = (&g.nodes[e.from], &g.nodes[e.to]);
        let same = na.column == nb.column;
        let adjacent = na.row.abs_diff(nb.row) == 1;
        let (a, b) = (&l.nodes[e.from], &l.nodes[e.to]);
        let p = if e.from == e.to {
            let (x, y) = (a.right(), a.cy());
            [(x, y - 6.0), (x + 36.0, y - 22.0), (x + 36.0, y + 22.0), (x, y + 6.0)]
        } else {
            curve(a, b, same, adjacent, k, e.from < e.to)
        };
        let c = colour(e);
        let st = style(&e.kind);
        let width = if e.highlight { 2.6 } else { 1.3 };
        let dash = if st.dashed { " stroke-dasharray=\"6 4\"" } else { "" };
        let _ = writeln!(
            o,
            "<path class=\"edge\" d=\"M{:.1},{:.1} C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"none\" stroke=\"{c}\" stroke-width=\"{width}\"{dash} marker-end=\"url(#{id}-ah-{})\"><title>{}</title></path>",
            p[0].0,
            p[0].1,
            p[1].0,
            p[1].1,
            p[2].0,
            p[2].1,
            p[3].0,
            p[3].1,
            c.trim_start_matches('#'),
            esc(e.text())
        );
        // po between neighbours is plain (as herd7 draws it); other edges say what they are
        if (e.kind == "po" || e.kind == "ppo") && same && adjacent && !e.highlight {
            continue;
        }
        let (x, y) = cubic(p, if same { 0.5 } else { 0.3 });
        let text = e.text();
        let w = text_width(text) + 6.0;
        let weight = if e.highlight { " font-weight=\"bold\"" } else { "" };
        let _ = writeln!(
            labels,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"15\" fill=\"#ffffff\" fill-opacity=\"0.85\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{c}\"{weight}>{}</text>",
            x - w / 2.0,
            y - 8.0,
            y + 4.0,
            esc(text)
        );
    }
    labels
}

fn legend(o: &mut String, g: &Graph, kinds: &[&str], y: f64) {
    let mut x = MARGIN;
    for k in kinds {
        let st = style(k);
        let dash = if st.dashed { " stroke-dasharray=\"6 4\"" } else { "" };
        let _ = writeln!(
            o,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"1.6\"{dash}/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            y + 6.0,
            x + 26.0,
            y + 6.0,
            st.colour,
            x + 31.0,
            y + 10.0,
            esc(k)
        );
        x += text_width(k) + 46.0;
    }
    if g.edges.iter().any(|e| e.highlight) {
        let meaning = g.highlight_meaning.as_deref().unwrap_or("highlighted");
        let _ = writeln!(
            o,
            "<line x1=\"{MARGIN}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{HIGHLIGHT}\" stroke-width=\"2.6\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"{HIGHLIGHT}\">{}</text>",
            y + 24.0,
            MARGIN + 26.0,
            y + 24.0,
            MARGIN + 31.0,
            y + 28.0,
            esc(meaning)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sb() -> Graph {
        let mut g = Graph::new("SB & <friends>");
        let t1 = g.column("T1");
        let t2 = g.column("T2");
        let a = g.node(t1, 0, vec!["Write(x, 1)".into()]);
        let b = g.node(t1, 1, vec!["Read(y) = 0".into()]);
        let c = g.node(t2, 0, vec!["Write(y, 1)".into()]);
        let d = g.node(t2, 1, vec!["Read(x) = 0".into()]);
        g.chain_columns("po");
        g.edge(b, c, "rb");
        g.highlighted(d, a, "rb", Some("rb (cycle)".into()));
        g.highlight_meaning = Some("the cycle".into());
        g
    }

    #[test]
    fn every_node_and_edge_is_drawn_and_the_highlight_is_red() {
        let s = svg(&sb(), "g1");
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert_eq!(s.matches("class=\"edge\"").count(), 4, "2 po + 2 rb edges");
        assert_eq!(s.matches("class=\"node\"").count(), 4, "a box per node");
        assert!(s.contains(&format!("stroke=\"{HIGHLIGHT}\" stroke-width=\"2.6\"")));
        assert!(s.contains("rb (cycle)") && s.contains("the cycle"));
        // escaped text, ids prefixed
        assert!(s.contains("SB &amp; &lt;friends&gt;"));
        assert!(s.contains("id=\"g1-ah-") && !s.contains("url(#ah-"));
    }
}
