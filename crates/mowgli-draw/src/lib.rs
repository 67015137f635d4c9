//! # mowgli-draw
//!
//! One model of an execution graph ([`Graph`]: events in thread columns, ordered
//! down by program order, edges named by their relation, some highlighted), and
//! the back-ends every command draws with: Graphviz DOT ([`dot`]), SVG by a small
//! layout of its own ([`svg`], no Graphviz needed), and a self-contained HTML
//! report page ([`html`]) that inlines the SVGs.
//!
//! The crate knows no memory model: the commands build a [`Graph`] from their
//! executions (litmus counterexamples, refinement, obligations, robustness,
//! machine runs) and choose the relation names; only the colours of the usual
//! names (po, ppo, rf, mo, rb, pf, nfo, so, g) are fixed here ([`style`]).

pub mod dot;
pub mod html;
mod layout;
mod model;
pub mod svg;

pub use model::{Edge, Graph, Group, Node, Style};

/// `style` of an edge kind: its colour and dash pattern.
pub use model::style;

/// Escapes text for XML/HTML content and attribute values.
pub fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
