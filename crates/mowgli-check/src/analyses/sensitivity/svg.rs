//! The heat map of a table's cells as SVG: one coloured, labelled square per cell.

use super::*;

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// White for 0, then light yellow to dark red on a logarithmic scale up to `max`.
fn colour(score: usize, max: usize) -> (String, bool) {
    if score == 0 {
        return ("#ffffff".into(), false);
    }
    let f = if max <= 1 { 1.0 } else { ((score as f64).ln() / (max as f64).ln()).clamp(0.0, 1.0) };
    // from (255, 237, 160) to (165, 0, 38)
    let lerp = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
    let (r, g, b) = (lerp(255.0, 165.0), lerp(237.0, 0.0), lerp(160.0, 38.0));
    (format!("#{r:02x}{g:02x}{b:02x}"), f > 0.55)
}

/// The table as an SVG heat map: rows are the earlier stamp (letters), columns the
/// later one (numbers), as in the papers' figures. Each cell shows the base cell
/// (✓ ordered, ✗ unordered, SN same node), what it was flipped to, and its number
/// (tests changed + checks broken), and is coloured by that number; a cell's
/// `<title>` (a tooltip in browsers) names the smallest test and the broken checks.
pub fn heat_map_svg(s: &Sensitivity, title: &str) -> String {
    let n = s.kinds.len();
    let (cw, ch, left, top) = (74usize, 60usize, 120usize, 96usize);
    let width = left + n * cw + 30;
    let legend_y = top + n * ch + 24;
    let height = legend_y + 86;
    let max = s.cells.iter().map(CellReport::score).max().unwrap_or(0);
    let mut o = String::new();
    o += &format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
    );
    o += &format!("<rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\n");
    o += &format!("<text x=\"{}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>\n", 12, xml_escape(title));
    o += &format!(
        "<text x=\"12\" y=\"44\" font-size=\"12\">rows: earlier stamp; columns: later stamp. Each cell: base → flipped, and tests changed + checks broken ({} candidates, {} checks).</text>\n",
        s.candidates,
        s.base_checks.len()
    );
    // column headers
    for c in 0..n {
        let x = left + c * cw + cw / 2;
        o += &format!(
            "<text x=\"{x}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\">{}</text>\n",
            top - 26,
            c + 1
        );
        let name = format!("{}{}", s.kinds[c], if s.family[c] { "_n" } else { "" });
        o += &format!(
            "<text x=\"{x}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n",
            top - 10,
            xml_escape(&name)
        );
    }
    // row headers
    for r in 0..n {
        let y = top + r * ch + ch / 2 + 5;
        let name = format!("{}{}", s.kinds[r], if s.family[r] { "_n" } else { "" });
        o += &format!(
            "<text x=\"12\" y=\"{y}\" font-size=\"14\" font-weight=\"bold\">{}</text><text x=\"32\" y=\"{y}\" font-size=\"11\">{}</text>\n",
            (b'A' + r as u8) as char,
            xml_escape(&name)
        );
    }
    let by_pos: BTreeMap<(usize, usize), &CellReport> = s.cells.iter().map(|c| ((c.row, c.col), c)).collect();
    for r in 0..n {
        for c in 0..n {
            let (x, y) = (left + c * cw, top + r * ch);
            let name = format!("{}{}", (b'A' + r as u8) as char, c + 1);
            let base = s.base_cells[r][c];
            let rep = by_pos.get(&(r, c));
            let score = rep.map_or(0, |p| p.score());
            let (fill, dark) = if rep.is_some() { colour(score, max) } else { ("#eeeeee".into(), false) };
            let ink = if dark { "#ffffff" } else { "#000000" };
            let mut tip = format!("{name} ({}, {}): {}", s.kinds[r], s.kinds[c], base.symbol());
            if let Some(p) = rep {
                tip += &format!(
                    " → {}: {} tests change, {} checks broken",
                    p.to.symbol(),
                    p.changed.len(),
                    p.broken.len()
                );
                if let Some(t) = &p.smallest {
                    tip += &format!("; smallest test {} ({} instructions)", t.name, t.size);
                }
                for b in &p.broken {
                    tip += &format!("; breaks {}", b.check);
                }
            } else {
                tip += " (not flipped)";
            }
            // ordered cells get a solid border, unordered a dashed one, SN a dotted one
            let dash = match base {
                Cell::Ordered => "",
                Cell::Unordered => " stroke-dasharray=\"4 3\"",
                Cell::SameNode => " stroke-dasharray=\"1 2\"",
            };
            o += &format!("<g class=\"cell\" id=\"cell-{name}\"><title>{}</title>", xml_escape(&tip));
            o += &format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" stroke=\"#555555\" stroke-width=\"1.2\"{dash}/>",
                x + 1,
                y + 1,
                cw - 2,
                ch - 2
            );
            let flip = rep
                .map(|p| format!("{}→{}", base.symbol(), p.to.symbol()))
                .unwrap_or_else(|| base.symbol().to_string());
            o += &format!(
                "<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"{ink}\">{}</text>",
                x + 5,
                y + 14,
                xml_escape(&flip)
            );
            o += &format!(
                "<text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"{ink}\" text-anchor=\"end\">{name}</text>",
                x + cw - 5,
                y + 14
            );
            let num = if rep.is_some() { score.to_string() } else { String::new() };
            o += &format!(
                "<text x=\"{}\" y=\"{}\" font-size=\"17\" font-weight=\"bold\" fill=\"{ink}\" text-anchor=\"middle\">{num}</text>",
                x + cw / 2,
                y + ch - 19
            );
            if let Some(p) = rep.filter(|p| p.score() > 0) {
                o += &format!(
                    "<text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"{ink}\" text-anchor=\"middle\">{}t + {}c</text>",
                    x + cw / 2,
                    y + ch - 6,
                    p.changed.len(),
                    p.broken.len()
                );
            }
            o += "</g>\n";
        }
    }
    // legend
    o += &format!(
        "<text x=\"12\" y=\"{}\" font-size=\"12\">colour and number: tests changed + checks broken (0 = white); below it: t = tests whose outcomes change, c = implementation checks broken</text>\n",
        legend_y
    );
    let steps: Vec<usize> = {
        let mut v = vec![0, 1];
        let mut k = 2;
        while k < max {
            v.push(k);
            k *= 2;
        }
        if max > 1 {
            v.push(max);
        }
        v
    };
    for (i, v) in steps.iter().enumerate() {
        let (fill, dark) = colour(*v, max);
        let x = 12 + i * 46;
        o += &format!(
            "<rect x=\"{x}\" y=\"{}\" width=\"42\" height=\"22\" fill=\"{fill}\" stroke=\"#555555\"/><text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\" fill=\"{}\">{v}</text>\n",
            legend_y + 8,
            x + 21,
            legend_y + 23,
            if dark { "#ffffff" } else { "#000000" }
        );
    }
    o += &format!(
        "<text x=\"12\" y=\"{}\" font-size=\"12\">border: solid = ✓ ordered, dashed = ✗ unordered, dotted = SN (ordered iff same node) in the base table</text>\n",
        legend_y + 50
    );
    o += "</svg>\n";
    o
}
