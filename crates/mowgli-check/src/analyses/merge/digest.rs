//! What a shard is a shard of: a SHA-256 digest of the tool's version, of every
//! input file's contents and of the options that change the result (issue 32,
//! item 4). Two shards merge only when their digests agree; when they do not, the
//! per-input digests say which input differs. Paths are recorded for the reader
//! but never compared: `specs/x.impl` and `./specs/x.impl` are the same input
//! when their bytes are, and a file swapped at the same path is a different one.

use std::path::Path;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// The version that enters every digest: the package version of the tool.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// An input file (or folder) of a run, under the name of the option that gave it
/// (`implementation`, `stamp_order`, `lib`, `paths`, …).
#[derive(Clone, Debug)]
pub struct Input {
    pub role: String,
    pub path: std::path::PathBuf,
}

impl Input {
    pub fn new(role: &str, path: impl Into<std::path::PathBuf>) -> Input {
        Input { role: role.to_string(), path: path.into() }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The files a library file includes (`include "F"`, relative to its folder),
/// found by their lines; an `include` in a comment only adds a file to the digest.
fn includes(text: &str, dir: &Path) -> Vec<std::path::PathBuf> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("include"))
        .filter_map(|rest| {
            let rest = rest.trim_start().strip_prefix('"')?;
            Some(dir.join(&rest[..rest.find('"')?]))
        })
        .collect()
}

/// Feeds the contents of `path` into `h`: a file's bytes (and those of the files
/// it includes, for a library file), or a folder's files in name order, each with
/// its path relative to the folder.
fn feed(h: &mut Sha256, path: &Path, rel: &str, depth: usize) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    if meta.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            feed(h, &p, &format!("{rel}/{name}"), depth)?;
        }
        return Ok(());
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    h.update((rel.len() as u64).to_le_bytes());
    h.update(rel.as_bytes());
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(&bytes);
    let is_lib = path.extension().is_some_and(|x| x == "lib" || x == "inc");
    if is_lib && depth < 8 {
        let text = String::from_utf8_lossy(&bytes);
        for inc in includes(&text, path.parent().unwrap_or(Path::new("."))) {
            // an include that cannot be read is the library's own error, reported
            // when it is parsed; here it adds nothing
            if inc.is_file() {
                let name = inc.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
                feed(h, &inc, &format!("{rel}+{name}"), depth + 1)?;
            }
        }
    }
    Ok(())
}

/// The SHA-256 of an input's contents, in hex.
pub fn of_path(path: &Path) -> Result<String, String> {
    let mut h = Sha256::new();
    feed(&mut h, path, ".", 0)?;
    Ok(hex(&h.finalize()))
}

/// The SHA-256 of some options, in hex: of their JSON text with keys sorted.
pub fn of_options(options: &Value) -> String {
    hex(&Sha256::digest(canonical(options).as_bytes()))
}

/// `v` as JSON text with every object's keys sorted.
fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let fields: Vec<String> =
                keys.iter().map(|k| format!("{}:{}", Value::from(k.as_str()), canonical(&m[k.as_str()]))).collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(canonical).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

/// The contents digest of each input, or the first that cannot be read.
pub fn digests(inputs: &[Input]) -> Result<Vec<(Input, String)>, String> {
    inputs.iter().map(|i| Ok((i.clone(), of_path(&i.path)?))).collect()
}

/// The `identity` of a run: `{"digest", "version", "options", "inputs": [{"role",
/// "path", "digest"}]}`, where `digest` covers the version, the options digest and
/// each input's role and contents digest (not its path). `options`: the run's
/// options without its inputs' paths and its time limits.
pub fn identity(inputs: &[(Input, String)], options: &Value) -> Value {
    let options_digest = of_options(options);
    let mut whole = Sha256::new();
    whole.update(VERSION.as_bytes());
    whole.update([0]);
    whole.update(options_digest.as_bytes());
    let mut list = Vec::new();
    for (i, d) in inputs {
        whole.update(i.role.as_bytes());
        whole.update([0]);
        whole.update(d.as_bytes());
        list.push(json!({"role": i.role, "path": i.path.display().to_string(), "digest": d}));
    }
    json!({
        "digest": hex(&whole.finalize()),
        "version": VERSION,
        "options": options_digest,
        "inputs": list,
    })
}

/// The first 12 hex digits of a digest, for messages.
fn short(d: &str) -> &str {
    &d[..d.len().min(12)]
}

/// Why two shards' identities `a` (of `file_a`) and `b` (of `file_b`) are not those
/// of one run, or `None` when they are. `options_diff` names the option that
/// differs, when the digests say the options do.
pub fn differ(
    (file_a, a): (&str, &Value),
    (file_b, b): (&str, &Value),
    options_diff: impl Fn() -> Option<String>,
) -> Option<String> {
    let field = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    if a["digest"].is_null() || b["digest"].is_null() {
        let old = if a["digest"].is_null() { file_a } else { file_b };
        return Some(format!(
            "{old} has no `identity` digest (a report of an older mowgli?): run that shard again with this one"
        ));
    }
    if a["digest"] == b["digest"] {
        return None;
    }
    let prefix = format!("{file_a} and {file_b} are shards of different runs");
    if a["version"] != b["version"] {
        return Some(format!("{prefix}: made by mowgli {} and mowgli {}", field(a, "version"), field(b, "version")));
    }
    let empty = Vec::new();
    let (ia, ib) = (a["inputs"].as_array().unwrap_or(&empty), b["inputs"].as_array().unwrap_or(&empty));
    for (x, y) in ia.iter().zip(ib) {
        if x["role"] != y["role"] {
            return Some(format!(
                "{prefix}: an input `{}` in one where the other has `{}`",
                field(x, "role"),
                field(y, "role")
            ));
        }
        if x["digest"] != y["digest"] {
            let (px, py) = (field(x, "path"), field(y, "path"));
            let place = if px == py { format!("`{px}` has") } else { format!("`{px}` and `{py}` have") };
            return Some(format!(
                "{prefix}: input `{}` differs: {place} different contents (SHA-256 {}… and {}…)",
                field(x, "role"),
                short(&field(x, "digest")),
                short(&field(y, "digest"))
            ));
        }
    }
    if ia.len() != ib.len() {
        let roles = |l: &[Value]| l.iter().map(|x| field(x, "role")).collect::<Vec<_>>().join(", ");
        return Some(format!("{prefix}: inputs [{}] and [{}]", roles(ia), roles(ib)));
    }
    Some(match options_diff() {
        Some(d) => format!("{prefix}: {d}"),
        None if a["options"] != b["options"] => format!("{prefix}: their options differ"),
        None => format!("{prefix}: their digests differ"),
    })
}

/// `run` without the keys named by `roles` (the options that hold input paths).
pub fn without_inputs(run: &Map<String, Value>, roles: &[String]) -> Map<String, Value> {
    run.iter().filter(|(k, _)| !roles.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_not_paths() {
        let d = std::env::temp_dir().join(format!("mowgli-digest-{}", std::process::id()));
        std::fs::create_dir_all(d.join("sub")).expect("dir");
        std::fs::write(d.join("a.lib"), "library a\ninclude \"sub/b.inc\"\n").expect("write");
        std::fs::write(d.join("sub/b.inc"), "stamps x\n").expect("write");
        let one = of_path(&d.join("a.lib")).expect("digest");
        let dotted = of_path(&d.join("sub/../a.lib")).expect("digest");
        assert_eq!(one, dotted);
        // an included file is part of the library's contents
        std::fs::write(d.join("sub/b.inc"), "stamps y\n").expect("write");
        assert_ne!(one, of_path(&d.join("a.lib")).expect("digest"));
        // a folder: its files and their names
        let folder = of_path(&d).expect("digest");
        std::fs::write(d.join("c.litmus"), "").expect("write");
        assert_ne!(folder, of_path(&d).expect("digest"));
        assert!(of_path(&d.join("none")).is_err_and(|e| e.contains("cannot read")));
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn options_are_digested_in_a_canonical_order() {
        assert_eq!(
            of_options(&json!({"a": 1, "b": [{"y": 2, "x": 1}]})),
            of_options(&json!({"b": [{"x": 1, "y": 2}], "a": 1}))
        );
        assert_ne!(of_options(&json!({"a": 1})), of_options(&json!({"a": 2})));
    }

    #[test]
    fn the_difference_is_named() {
        let id = |d: &str, path: &str, opts: Value| {
            let mut v = json!({"digest": format!("{d}{opts}"), "version": VERSION, "options": opts.to_string(),
                "inputs": [{"role": "implementation", "path": path, "digest": d}]});
            v["digest"] = Value::from(format!("{d}/{opts}"));
            v
        };
        let none = || None;
        assert_eq!(differ(("a", &id("1", "x", json!(1))), ("b", &id("1", "./x", json!(1))), none), None);
        let why = differ(("a", &id("1", "x", json!(1))), ("b", &id("2", "x", json!(1))), none).expect("differs");
        assert!(why.contains("input `implementation` differs: `x` has different contents"), "{why}");
        let why = differ(("a", &id("1", "x", json!(1))), ("b", &id("1", "x", json!(2))), || Some("`calls` …".into()))
            .expect("differs");
        assert!(why.ends_with("different runs: `calls` …"), "{why}");
        let why = differ(("a", &json!({})), ("b", &id("1", "x", json!(1))), none).expect("differs");
        assert!(why.contains("a has no `identity`"), "{why}");
    }
}
