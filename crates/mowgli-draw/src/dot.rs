//! A [`Graph`] as Graphviz DOT, drawn as herd7 draws executions: one cluster per
//! thread (a column), the rows held level across columns (`rank=same`, with
//! `newrank`), invisible edges keeping the columns in order, program order down,
//! and the communication edges across without moving the ranks
//! (`constraint=false`). Highlighted edges are red and bold.

use std::fmt::Write;

use crate::model::{style, Graph, HIGHLIGHT};

/// Escapes a DOT string's contents.
fn q(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// The graph in DOT; `name` is the digraph's name (an identifier).
pub fn dot(g: &Graph, name: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "digraph {} {{", ident(name));
    o.push_str("  rankdir=TB; newrank=true; nodesep=0.6; ranksep=0.45;\n");
    o.push_str("  node [shape=box, style=rounded, fontname=monospace, fontsize=11];\n");
    o.push_str("  edge [fontname=monospace, fontsize=10];\n");
    let mut label = g.title.clone();
    for n in &g.notes {
        label += "\n";
        label += n;
    }
    if let (Some(m), true) = (&g.highlight_meaning, g.edges.iter().any(|e| e.highlight)) {
        label += &format!("\nred: {m}");
    }
    let _ = writeln!(o, "  labelloc=t; label=\"{}\";", q(&label));
    for (c, col) in g.columns.iter().enumerate() {
        let _ = writeln!(o, "  subgraph cluster_c{c} {{ label=\"{}\"; style=solid; color=\"#cccccc\";", q(col));
        // the groups of this column as nested clusters, then its other nodes
        let mut grouped = vec![false; g.nodes.len()];
        for (gi, gr) in g.groups.iter().enumerate() {
            if gr.nodes.first().is_none_or(|&n| g.nodes[n].column != c) {
                continue;
            }
            let _ = writeln!(
                o,
                "    subgraph cluster_g{gi} {{ label=\"{}\"; style=dashed; color=\"#9a9ab8\";",
                q(&gr.label)
            );
            for &n in &gr.nodes {
                grouped[n] = true;
                node(&mut o, g, n, "      ");
            }
            o.push_str("    }\n");
        }
        for n in (0..g.nodes.len()).filter(|&n| g.nodes[n].column == c && !grouped[n]) {
            node(&mut o, g, n, "    ");
        }
        o.push_str("  }\n");
    }
    // rows level across columns, columns kept in order by invisible edges
    for r in 0..g.rows() {
        let mut row: Vec<usize> = (0..g.nodes.len()).filter(|&n| g.nodes[n].row == r).collect();
        row.sort_by_key(|&n| g.nodes[n].column);
        if row.len() > 1 {
            let names: Vec<String> = row.iter().map(|n| format!("n{n}")).collect();
            let _ = writeln!(o, "  {{ rank=same; {}; }}", names.join("; "));
            for w in row.windows(2) {
                let _ = writeln!(o, "  n{} -> n{} [style=invis];", w[0], w[1]);
            }
        }
    }
    for e in &g.edges {
        let (a, b) = (&g.nodes[e.from], &g.nodes[e.to]);
        let st = style(&e.kind);
        let colour = if e.highlight { HIGHLIGHT } else { st.colour };
        let mut attrs = vec![format!("color=\"{colour}\""), format!("fontcolor=\"{colour}\"")];
        let plain_po = e.kind == "po" && a.column == b.column && b.row == a.row + 1;
        if !plain_po || e.highlight {
            attrs.push(format!("label=\"{}\"", q(e.text())));
        }
        if st.dashed {
            attrs.push("style=dashed".into());
        }
        if e.highlight {
            attrs.push("penwidth=2.5".into());
        }
        // only program order down a column shapes the ranks
        if !(a.column == b.column && a.row < b.row) {
            attrs.push("constraint=false".into());
        }
        let _ = writeln!(o, "  n{} -> n{} [{}];", e.from, e.to, attrs.join(", "));
    }
    o.push_str("}\n");
    o
}

fn node(o: &mut String, g: &Graph, n: usize, indent: &str) {
    let _ = writeln!(o, "{indent}n{n} [label=\"{}\"];", q(&g.nodes[n].lines.join("\n")));
}

/// `name` made a DOT identifier (letters, digits, `_`; not starting with a digit).
fn ident(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("g_{s}")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small DOT reader, enough to check the writer: balanced braces outside
    /// strings, every edge between declared nodes, every attribute list closed.
    pub(crate) fn well_formed(d: &str) -> Result<(), String> {
        let (mut depth, mut in_str, mut esc) = (0i32, false, false);
        for c in d.chars() {
            match (in_str, esc, c) {
                (true, true, _) => esc = false,
                (true, false, '\\') => esc = true,
                (true, false, '"') => in_str = false,
                (false, _, '"') => in_str = true,
                (false, _, '{') => depth += 1,
                (false, _, '}') => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return Err("a `}` closes nothing".into());
            }
        }
        if depth != 0 || in_str {
            return Err(format!("unbalanced: depth {depth}, in string {in_str}"));
        }
        let declared: std::collections::BTreeSet<&str> = d
            .lines()
            .filter_map(|l| l.trim().split_once(" [label=").map(|(n, _)| n))
            .filter(|n| !n.contains("->"))
            .collect();
        for l in d.lines().map(str::trim).filter(|l| l.contains(" -> ")) {
            let (a, rest) = l.split_once(" -> ").ok_or("edge")?;
            let b = rest.split([' ', ';']).next().unwrap_or("");
            if !declared.contains(a) || !declared.contains(b) {
                return Err(format!("edge between undeclared nodes: {l}"));
            }
            if !(l.ends_with("];") && l.contains(" [")) {
                return Err(format!("edge attributes not closed: {l}"));
            }
        }
        Ok(())
    }

    #[test]
    fn columns_rows_and_highlight() {
        let mut g = Graph::new("MP \"quoted\"");
        g.notes.push("outcome: a=1".into());
        let t1 = g.column("T1");
        let t2 = g.column("T2");
        let a = g.node(t1, 0, vec!["Write(x, 1)".into(), "aCW".into()]);
        let b = g.node(t1, 1, vec!["Write(y, 1)".into()]);
        let c = g.node(t2, 0, vec!["Read(y) = 1".into()]);
        let d = g.node(t2, 1, vec!["Read(x) = 0".into()]);
        g.groups.push(crate::Group { label: "call 0".into(), nodes: vec![a, b] });
        g.chain_columns("po");
        g.edge(b, c, "rf");
        g.highlight(d, a, "rb");
        let s = dot(&g, "MP+x");
        well_formed(&s).unwrap();
        assert!(s.starts_with("digraph MP_x {"));
        assert!(s.contains("subgraph cluster_c0 { label=\"T1\"") && s.contains("subgraph cluster_c1 { label=\"T2\""));
        assert!(s.contains("subgraph cluster_g0 { label=\"call 0\""));
        assert!(s.contains("{ rank=same; n0; n2; }") && s.contains("n0 -> n2 [style=invis]"));
        // po down without a label; rf across without constraining ranks; the highlight red
        assert!(s.contains(&format!("n0 -> n1 [color=\"{}\"", style("po").colour)));
        assert!(s.contains("label=\"rf\", constraint=false"));
        assert!(s.contains(&format!("n3 -> n0 [color=\"{HIGHLIGHT}\"")) && s.contains("penwidth=2.5"));
        assert!(s.contains("MP \\\"quoted\\\"\\noutcome: a=1"));
        assert!(well_formed("digraph a { n0 -> n1 [x]; }").is_err());
    }
}
