//! The project file, `mowgli.toml` (docs/user-guide.md, "A project file"): the
//! library files a repository's tests and implementations use, and the checks of
//! its bounded-refinement suite, each with the verdict it is expected to reach.
//! `mowgli check` runs the checks (`analyses::project`); every other command reads
//! the library files from it.
//!
//! This module reads the file: TOML through serde, every table closed (an unknown
//! key is an error with a suggestion), every error a [`Diagnostic`] at its
//! `file:line:column` ([`errors`]). It does not run anything.

mod errors;
mod find;

use std::path::{Path, PathBuf};

use mowgli_diag::Diagnostic;
use serde::Deserialize;
use toml::Spanned;

pub use find::{find, FILE_NAME};

/// The verdict an entry is expected to reach.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// Verified to the bound (the default).
    #[default]
    Verified,
    /// Refuted: a mutant, a client that must fail.
    Counterexample,
    /// Undecided within the bound, as known (a loop the unrolling bound cuts):
    /// the entry still fails when it is refuted, and when it becomes verified
    /// (the expectation is then stale).
    Inconclusive,
}

impl Expect {
    pub fn word(self) -> &'static str {
        match self {
            Expect::Verified => "verified",
            Expect::Counterexample => "counterexample",
            Expect::Inconclusive => "inconclusive",
        }
    }
}

/// `engine` of a `[[litmus]]` entry (`mowgli litmus --engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LitmusEngine {
    #[default]
    Explicit,
    Z3,
    Operational,
    OperationalSimplified,
    Both,
}

/// `engine` of a `[[refine]]` entry (`mowgli refine --engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RefineEngine {
    #[default]
    Explicit,
    Z3,
}

/// `engine` of an `[[obligations]]` entry (`mowgli obligations --engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObligationsEngine {
    Explicit,
    Z3,
    /// The default, as `mowgli obligations`'s.
    #[default]
    Auto,
}

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    #[serde(default)]
    libraries: Libraries,
    #[serde(default)]
    litmus: Vec<Spanned<LitmusEntry>>,
    #[serde(default)]
    refine: Vec<Spanned<RefineEntry>>,
    #[serde(default)]
    obligations: Vec<Spanned<ObligationsEntry>>,
}

/// `[libraries]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Libraries {
    /// Library files (`.lib`), relative to the project file's folder.
    #[serde(default)]
    pub files: Vec<Spanned<String>>,
}

/// What every entry has besides its check.
#[derive(Clone, Debug, Default)]
pub struct Common {
    pub name: String,
    pub groups: Vec<String>,
    pub expect: Expect,
    /// Seconds: no new test or client is started after it, a generated run or the
    /// obligations stop then (the entry is then inconclusive unless refuted).
    pub time_limit: Option<f64>,
}

/// `[[litmus]]`: litmus tests and their own expectations (`mowgli litmus`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LitmusEntry {
    pub name: Option<Spanned<String>>,
    #[serde(default)]
    pub groups: Vec<String>,
    #[serde(default)]
    pub expect: Expect,
    pub time_limit: Option<Spanned<f64>>,
    /// Files or folders (searched for `*.litmus`).
    pub paths: Vec<Spanned<String>>,
    #[serde(default)]
    pub engine: LitmusEngine,
    pub stamp_order: Option<Spanned<String>>,
    pub max_values: Option<usize>,
}

/// `[[refine]]`: bounded refinement of an implementation (`mowgli refine`), on
/// given clients and/or every generated client up to a bound.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RefineEntry {
    pub name: Option<Spanned<String>>,
    #[serde(default)]
    pub groups: Vec<String>,
    #[serde(default)]
    pub expect: Expect,
    pub time_limit: Option<Spanned<f64>>,
    pub implementation: Spanned<String>,
    /// Client files or folders.
    #[serde(default)]
    pub clients: Vec<Spanned<String>>,
    pub spec: Option<Spanned<String>>,
    pub stamp_order: Option<Spanned<String>>,
    pub loop_bound: Option<usize>,
    #[serde(default)]
    pub engine: RefineEngine,
    // generated clients (`mowgli refine --calls …`)
    pub calls: Option<usize>,
    pub size: Option<usize>,
    pub threads: Option<Spanned<usize>>,
    pub nodes: Option<usize>,
    pub locs: Option<usize>,
    pub values: Option<usize>,
    pub wids: Option<usize>,
    pub tuple_size: Option<usize>,
    pub objects: Option<usize>,
    pub observer: Option<String>,
    pub observer_locs: Option<usize>,
    pub observer_wids: Option<usize>,
    pub symmetry: Option<bool>,
}

impl RefineEntry {
    /// Whether the entry checks generated clients: it has `calls` or `size`, or no `clients`.
    pub fn generates(&self) -> bool {
        self.calls.is_some() || self.size.is_some() || self.clients.is_empty()
    }

    /// A key that bounds generated clients, given where none are generated.
    fn stray_bound(&self) -> Option<&'static str> {
        let keys: [(&'static str, bool); 11] = [
            ("threads", self.threads.is_some()),
            ("nodes", self.nodes.is_some()),
            ("locs", self.locs.is_some()),
            ("values", self.values.is_some()),
            ("wids", self.wids.is_some()),
            ("tuple-size", self.tuple_size.is_some()),
            ("objects", self.objects.is_some()),
            ("observer", self.observer.is_some()),
            ("observer-locs", self.observer_locs.is_some()),
            ("observer-wids", self.observer_wids.is_some()),
            ("symmetry", self.symmetry.is_some()),
        ];
        if self.generates() {
            return None;
        }
        keys.iter().find(|(_, given)| *given).map(|(k, _)| *k)
    }
}

/// `[[obligations]]`: the local-soundness obligations of an implementation to a
/// bound (`mowgli obligations`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ObligationsEntry {
    pub name: Option<Spanned<String>>,
    #[serde(default)]
    pub groups: Vec<String>,
    #[serde(default)]
    pub expect: Expect,
    pub time_limit: Option<Spanned<f64>>,
    pub implementation: Spanned<String>,
    pub spec: Option<Spanned<String>>,
    pub stamp_order: Option<Spanned<String>>,
    pub loop_bound: Option<usize>,
    #[serde(default)]
    pub engine: ObligationsEngine,
    pub calls: Option<usize>,
    pub threads: Option<usize>,
    pub nodes: Option<usize>,
    pub locs: Option<usize>,
    pub values: Option<usize>,
    pub wids: Option<usize>,
    pub tuple_size: Option<usize>,
    #[serde(default)]
    pub no_self_ring: bool,
    #[serde(default)]
    pub infer_map: bool,
    #[serde(default)]
    pub check_specs: bool,
}

/// One check of the project.
#[derive(Clone, Debug)]
pub enum Check {
    Litmus(LitmusEntry),
    Refine(Box<RefineEntry>),
    Obligations(Box<ObligationsEntry>),
}

/// An entry: its check and what every entry has.
#[derive(Clone, Debug)]
pub struct Entry {
    pub common: Common,
    pub check: Check,
}

impl Entry {
    /// `litmus`, `refine` or `obligations`: the table the entry is in.
    pub fn kind(&self) -> &'static str {
        match self.check {
            Check::Litmus(_) => "litmus",
            Check::Refine(_) => "refine",
            Check::Obligations(_) => "obligations",
        }
    }

    /// `KIND/NAME`, what `--only` matches and the report shows.
    pub fn id(&self) -> String {
        format!("{}/{}", self.kind(), self.common.name)
    }
}

/// A read project file.
#[derive(Clone, Debug)]
pub struct Project {
    /// The file, as given or found.
    pub file: PathBuf,
    /// Its folder: the paths in it are relative to this.
    pub root: PathBuf,
    /// The library files, resolved against [`Project::root`].
    pub libraries: Vec<PathBuf>,
    /// The entries in file order: `[[litmus]]`, then `[[refine]]`, then `[[obligations]]`.
    pub entries: Vec<Entry>,
    /// The text (for diagnostics of later checks).
    text: String,
}

impl Project {
    /// Reads and checks `file`: TOML, every key known, every value of its type,
    /// names unique, library files present.
    pub fn load(file: &Path) -> Result<Project, Diagnostic> {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(file)
            .map_err(|e| Diagnostic::whole_file(name.clone(), format!("cannot read: {e}")))?;
        Project::parse(file, &text)
    }

    /// [`Project::load`] of a file whose text is `text`.
    pub fn parse(file: &Path, text: &str) -> Result<Project, Diagnostic> {
        let name = file.display().to_string();
        let raw: Raw = toml::from_str(text).map_err(|e| errors::of_toml(&e, &name, text))?;
        let root = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut p =
            Project { file: file.to_path_buf(), root, libraries: Vec::new(), entries: Vec::new(), text: text.into() };
        for f in &raw.libraries.files {
            let path = p.path(f.get_ref());
            if !path.is_file() {
                return Err(p.at(f.span(), format!("library file `{}`: no such file", path.display())));
            }
            p.libraries.push(path);
        }
        for e in raw.litmus {
            let span = e.span();
            let e = e.into_inner();
            if e.paths.is_empty() {
                return Err(p.at(span, "a `[[litmus]]` entry needs `paths`: the tests it runs".into()));
            }
            let fallback = e.paths.iter().map(|s| s.get_ref().as_str()).collect::<Vec<_>>().join("+");
            let common = p.common(&e.name, &fallback, &e.groups, e.expect, &e.time_limit)?;
            p.push(common, Check::Litmus(e), span)?;
        }
        for e in raw.refine {
            let span = e.span();
            let e = e.into_inner();
            if let Some(k) = e.stray_bound() {
                let at = match (k, &e.threads) {
                    ("threads", Some(t)) => t.span(),
                    _ => span.clone(),
                };
                return Err(p.at(
                    at,
                    format!(
                        "`{k}` bounds generated clients, but this entry checks only its `clients`: \
                         add `calls` (or `size`) to generate clients too, or drop `{k}`"
                    ),
                ));
            }
            let common = p.common(&e.name, &stem(e.implementation.get_ref()), &e.groups, e.expect, &e.time_limit)?;
            p.push(common, Check::Refine(Box::new(e)), span)?;
        }
        for e in raw.obligations {
            let span = e.span();
            let e = e.into_inner();
            let common = p.common(&e.name, &stem(e.implementation.get_ref()), &e.groups, e.expect, &e.time_limit)?;
            p.push(common, Check::Obligations(Box::new(e)), span)?;
        }
        Ok(p)
    }

    /// A path of the file, relative to the project's folder.
    pub fn path(&self, p: &str) -> PathBuf {
        let path = Path::new(p);
        if path.is_absolute() || self.root == Path::new(".") {
            path.to_path_buf()
        } else {
            self.root.join(path)
        }
    }

    /// A diagnostic at the byte range `span` of the file.
    pub fn at(&self, span: std::ops::Range<usize>, msg: String) -> Diagnostic {
        errors::at(&self.file.display().to_string(), &self.text, span, msg)
    }

    /// The paths every entry names exist (`mowgli check` runs this before any
    /// check, so that a misspelt path stops the run before it starts).
    pub fn check_paths(&self) -> Result<(), Diagnostic> {
        let mut named: Vec<&Spanned<String>> = Vec::new();
        for e in &self.entries {
            match &e.check {
                Check::Litmus(l) => named.extend(l.paths.iter().chain(&l.stamp_order)),
                Check::Refine(r) => {
                    named.push(&r.implementation);
                    named.extend(r.clients.iter().chain(&r.stamp_order));
                }
                Check::Obligations(o) => {
                    named.push(&o.implementation);
                    named.extend(&o.stamp_order);
                }
            }
        }
        for s in named {
            let path = self.path(s.get_ref());
            if !path.exists() {
                return Err(self.at(s.span(), format!("`{}`: no such file or directory", path.display())));
            }
        }
        Ok(())
    }

    fn common(
        &self,
        name: &Option<Spanned<String>>,
        fallback: &str,
        groups: &[String],
        expect: Expect,
        time_limit: &Option<Spanned<f64>>,
    ) -> Result<Common, Diagnostic> {
        if let Some(t) = time_limit {
            if !(t.get_ref().is_finite() && *t.get_ref() > 0.0) {
                return Err(self.at(t.span(), "`time-limit` is a number of seconds, more than 0".into()));
            }
        }
        if let Some(n) = name {
            if n.get_ref().trim().is_empty() || n.get_ref().contains(char::is_control) {
                return Err(self.at(n.span(), "an entry's `name` is a non-empty line of text".into()));
            }
        }
        Ok(Common {
            name: name.as_ref().map_or_else(|| fallback.to_string(), |n| n.get_ref().clone()),
            groups: groups.to_vec(),
            expect,
            time_limit: time_limit.as_ref().map(|t| *t.get_ref()),
        })
    }

    fn push(&mut self, common: Common, check: Check, span: std::ops::Range<usize>) -> Result<(), Diagnostic> {
        let e = Entry { common, check };
        if self.entries.iter().any(|o| o.id() == e.id()) {
            return Err(self.at(
                span,
                format!("a second `[[{}]]` entry named `{}`: give one of them another `name`", e.kind(), e.common.name),
            ));
        }
        self.entries.push(e);
        Ok(())
    }
}

/// The file name without its folder and extension: an entry's default name.
fn stem(path: &str) -> String {
    Path::new(path).file_stem().map_or_else(|| path.to_string(), |s| s.to_string_lossy().into_owned())
}
