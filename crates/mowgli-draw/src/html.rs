//! A run as one self-contained HTML page: the verdict, a table of contents, and
//! per test (client, obligation) its status, its text and its graphs as inline
//! SVG. Inline CSS, no script, no external resource: the page opens from disk in
//! any browser, with no Graphviz installed.

use std::fmt::Write;

use crate::model::Graph;
use crate::svg::svg;
use crate::xml_escape as esc;

/// One entry of the report: a test, a client, an obligation.
#[derive(Clone, Debug, Default)]
pub struct Section {
    pub name: String,
    /// Its status as the text report writes it (`ok`, `FAIL`, …).
    pub status: String,
    /// Whether the status is a pass (green), a failure (red), or neither (grey).
    pub tone: Tone,
    /// Lines under the name (the file, the expectations, …), shown as written.
    pub text: String,
    /// The graphs, each with a caption.
    pub graphs: Vec<(String, Graph)>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tone {
    Pass,
    Fail,
    #[default]
    Other,
}

impl Tone {
    fn class(self) -> &'static str {
        match self {
            Tone::Pass => "pass",
            Tone::Fail => "fail",
            Tone::Other => "other",
        }
    }
}

/// The page.
#[derive(Clone, Debug, Default)]
pub struct Page {
    /// The command line that made the run.
    pub title: String,
    /// The run's verdict word and its reason.
    pub verdict: String,
    pub verdict_reason: String,
    pub verdict_tone: Tone,
    /// The summary line of the text report.
    pub summary: String,
    pub sections: Vec<Section>,
}

const CSS: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222}
h1{font-size:1.4em;margin-bottom:.2em}h2{font-size:1.15em;margin:0}
.verdict{font-size:1.1em;padding:.5em .8em;border-radius:6px;margin:.8em 0}
.badge{display:inline-block;font-weight:bold;font-family:monospace;padding:.05em .5em;border-radius:4px;margin-right:.5em}
.pass{background:#dff3df;color:#145214}.fail{background:#fbe0e0;color:#8a0f14}.other{background:#ececec;color:#444}
section{border:1px solid #ddd;border-radius:8px;padding:.8em 1em;margin:1em 0}
pre{background:#fafafa;border:1px solid #eee;padding:.6em;overflow-x:auto;font-size:.85em}
figure{margin:.8em 0;overflow-x:auto}figcaption{font-size:.9em;color:#444;margin-bottom:.3em}
nav ul{columns:2;list-style:none;padding-left:0}nav li{margin:.15em 0}
a{color:#1f4fd1;text-decoration:none}";

/// The page as HTML.
pub fn render(p: &Page) -> String {
    let mut o = String::new();
    o.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(o, "<title>{}</title>", esc(&p.title));
    let _ = writeln!(o, "<style>\n{CSS}\n</style>\n</head>\n<body>");
    let _ = writeln!(o, "<h1>{}</h1>", esc(&p.title));
    let _ = writeln!(
        o,
        "<div class=\"verdict {}\" id=\"verdict\">verdict: <b>{}</b> ({})</div>",
        p.verdict_tone.class(),
        esc(&p.verdict),
        esc(&p.verdict_reason)
    );
    if !p.summary.is_empty() {
        let _ = writeln!(o, "<p class=\"summary\">{}</p>", esc(&p.summary));
    }
    let graphs: usize = p.sections.iter().map(|s| s.graphs.len()).sum();
    let _ = writeln!(o, "<nav><p>{} entries, {graphs} graphs</p><ul>", p.sections.len());
    for (i, s) in p.sections.iter().enumerate() {
        let _ = writeln!(
            o,
            "<li><span class=\"badge {}\">{}</span><a href=\"#s{i}\">{}</a></li>",
            s.tone.class(),
            esc(&s.status),
            esc(&s.name)
        );
    }
    o.push_str("</ul></nav>\n");
    let mut g = 0;
    for (i, s) in p.sections.iter().enumerate() {
        let _ = writeln!(o, "<section id=\"s{i}\" class=\"entry\" data-name=\"{}\">", esc(&s.name));
        let _ =
            writeln!(o, "<h2><span class=\"badge {}\">{}</span>{}</h2>", s.tone.class(), esc(&s.status), esc(&s.name));
        if !s.text.is_empty() {
            let _ = writeln!(o, "<pre>{}</pre>", esc(s.text.trim_end()));
        }
        for (caption, graph) in &s.graphs {
            g += 1;
            let _ = writeln!(o, "<figure><figcaption>{}</figcaption>", esc(caption));
            o.push_str(&svg(graph, &format!("g{g}")));
            o.push_str("</figure>\n");
        }
        o.push_str("</section>\n");
    }
    o.push_str("</body>\n</html>\n");
    o
}

/// Writes the page as `dir/index.html` (creating `dir`), returning its path.
pub fn write(dir: &std::path::Path, p: &Page) -> std::io::Result<std::path::PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("index.html");
    std::fs::write(&path, render(p))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_svg_per_graph_and_unique_ids() {
        let mut gr = Graph::new("x");
        let c = gr.column("T1");
        let a = gr.node(c, 0, vec!["a".into()]);
        let b = gr.node(c, 1, vec!["b".into()]);
        gr.edge(a, b, "po");
        let page = Page {
            title: "mowgli litmus <x>".into(),
            verdict: "counterexample".into(),
            verdict_reason: "1 of 2".into(),
            verdict_tone: Tone::Fail,
            summary: String::new(),
            sections: vec![
                Section {
                    name: "A".into(),
                    status: "FAIL".into(),
                    tone: Tone::Fail,
                    text: "t".into(),
                    graphs: vec![("c".into(), gr.clone())],
                },
                Section {
                    name: "B".into(),
                    status: "ok".into(),
                    tone: Tone::Pass,
                    text: String::new(),
                    graphs: vec![("c".into(), gr.clone()), ("d".into(), gr)],
                },
            ],
        };
        let h = render(&page);
        assert_eq!(h.matches("<svg").count(), 3);
        assert!(h.contains("id=\"g1-ah-") && h.contains("id=\"g3-ah-"));
        assert!(h.contains("mowgli litmus &lt;x&gt;"));
        assert!(
            !h.contains("<script") && !h.contains("http://") || h.matches("http://").count() == 3,
            "only the SVG namespace"
        );
    }
}
