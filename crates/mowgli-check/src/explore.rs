//! Model comparison on a corpus (`mowgli explore --base A --variant B PATH...`):
//! run every litmus test under two models and list the tests whose outcome sets
//! differ, with the outcomes only one side allows.
//!
//! A model is either a stamp-order file (its tables replace the default ones, as
//! with `--stamp-order`) or a library: `--base rdmatso --variant rdmatso_nopcie`
//! runs the tests that use `rdmatso` as written and with `rdmatso` renamed to
//! `rdmatso_nopcie` (in the `libraries` line and in qualified calls).

use std::collections::BTreeSet;
use std::path::PathBuf;

use mowgli_core::StampOrder;
use serde::Serialize;

use crate::litmus::{self, InputError};

/// One side of a comparison.
#[derive(Clone, Debug)]
pub enum Model {
    /// A stamp order (the default tables with the file's tables in place).
    Order { label: String, order: StampOrder },
    /// A library name of the litmus format.
    Library(String),
}

impl Model {
    /// `arg` names a library of the litmus format, or a stamp-order file.
    pub fn parse(arg: &str, default: &StampOrder) -> Result<Model, String> {
        if mowgli_libs::registry::KNOWN.contains(&arg) {
            return Ok(Model::Library(arg.to_string()));
        }
        let text = std::fs::read_to_string(arg).map_err(|e| {
            format!(
                "{arg}:0:0: neither a library ({}) nor a readable stamp-order file: {e}",
                mowgli_libs::registry::KNOWN.join(", ")
            )
        })?;
        let user = StampOrder::parse(&text).map_err(|e| format!("{arg}:{}:{}: {}", e.line, e.column, e.message))?;
        let mut order = default.clone();
        order.tables.extend(user.tables);
        Ok(Model::Order { label: arg.to_string(), order })
    }

    pub fn label(&self) -> &str {
        match self {
            Model::Order { label, .. } => label,
            Model::Library(l) => l,
        }
    }
}

/// A test whose outcome sets differ.
#[derive(Clone, Debug, Serialize)]
pub struct Difference {
    pub file: String,
    pub name: String,
    /// Outcomes (as `name=value` lists) only the base allows, and only the variant.
    pub only_base: Vec<String>,
    pub only_variant: Vec<String>,
    pub base_outcomes: usize,
    pub variant_outcomes: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub base: String,
    pub variant: String,
    pub tests: usize,
    /// Tests that do not use the base library (library comparisons).
    pub skipped: usize,
    pub same: usize,
    pub differences: Vec<Difference>,
    pub errors: Vec<String>,
    pub millis: f64,
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `from` replaced by `to` as a whole word in the `libraries` line and as a call
/// qualifier `from.`.
pub fn rename_library(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let code_end = line.find('#').unwrap_or(line.len());
        let (code, comment) = line.split_at(code_end);
        let is_libraries = code.trim_start().starts_with("libraries");
        let mut rest = code;
        let mut done = String::new();
        while let Some(pos) = rest.find(from) {
            let before_ok = rest[..pos].chars().last().is_none_or(|c| !is_ident(c));
            let after = &rest[pos + from.len()..];
            let after_char = after.chars().next();
            let whole = after_char.is_none_or(|c| !is_ident(c));
            let qualifier = after_char == Some('.');
            if before_ok && whole && (is_libraries || qualifier) {
                done.push_str(&rest[..pos]);
                done.push_str(to);
            } else {
                done.push_str(&rest[..pos + from.len()]);
            }
            rest = after;
        }
        done.push_str(rest);
        out.push_str(&done);
        out.push_str(comment);
    }
    out
}

fn outcome_set(r: &litmus::TestReport) -> BTreeSet<String> {
    r.outcomes.iter().map(|o| o.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")).collect()
}

/// Runs every test of `paths` under both models.
pub fn compare(
    paths: &[PathBuf],
    base: &Model,
    variant: &Model,
    default: &StampOrder,
) -> Result<Comparison, InputError> {
    let start = std::time::Instant::now();
    let files = litmus::collect(paths)?;
    let mut cmp = Comparison {
        base: base.label().to_string(),
        variant: variant.label().to_string(),
        tests: 0,
        skipped: 0,
        same: 0,
        differences: Vec::new(),
        errors: Vec::new(),
        millis: 0.0,
    };
    for f in &files {
        let file = f.display().to_string();
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                cmp.errors.push(format!("{file}:0:0: cannot read: {e}"));
                continue;
            }
        };
        let (bt, bo, vt, vo) = match (base, variant) {
            (Model::Order { order: a, .. }, Model::Order { order: b, .. }) => (text.clone(), a, text.clone(), b),
            (Model::Library(a), Model::Library(b)) => {
                // tests of the base library only
                let uses = text.lines().any(|l| {
                    let l = l.split('#').next().unwrap_or("").trim_start();
                    l.starts_with("libraries") && l["libraries".len()..].split(',').any(|n| n.trim() == a)
                });
                if !uses {
                    cmp.skipped += 1;
                    continue;
                }
                (text.clone(), default, rename_library(&text, a, b), default)
            }
            _ => {
                return Err(InputError {
                    file: String::new(),
                    line: 0,
                    col: 0,
                    msg: "--base and --variant must both be libraries or both stamp-order files".into(),
                })
            }
        };
        let rb = litmus::check_text(&file, &bt, bo);
        let rv = litmus::check_text(&file, &vt, vo);
        let (rb, rv) = match (rb, rv) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                cmp.errors.push(e.to_string());
                continue;
            }
        };
        cmp.tests += 1;
        let (sb, sv) = (outcome_set(&rb), outcome_set(&rv));
        if sb == sv {
            cmp.same += 1;
        } else {
            cmp.differences.push(Difference {
                file,
                name: rb.name.clone(),
                only_base: sb.difference(&sv).cloned().collect(),
                only_variant: sv.difference(&sb).cloned().collect(),
                base_outcomes: sb.len(),
                variant_outcomes: sv.len(),
            });
        }
    }
    cmp.millis = start.elapsed().as_secs_f64() * 1000.0;
    Ok(cmp)
}
