//! The tests a command reads: the `*.litmus` files named by its paths, directories
//! searched recursively; a directory without any is an input error, never an empty run.

use std::path::{Path, PathBuf};

use crate::lang::InputError;

/// The `.litmus` files named by `paths` (directories are searched recursively), sorted.
/// A directory without any `*.litmus` file is an input error naming what was looked
/// for: every path given must contribute a test, so that a run never reports
/// `verified` on fewer tests than it was given (an empty run checks nothing).
/// The errors are at the path's word of the command line, when it names it.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    collect_files(paths).map_err(InputError::on_command_line)
}

fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let before = out.len();
            let mut others = Vec::new();
            walk(p, &mut out, &mut others)
                .map_err(|e| InputError::whole_file(p.display().to_string(), e.to_string()))?;
            if out.len() == before {
                return Err(no_tests(p, &others));
            }
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(InputError::whole_file(p.display().to_string(), "no such file or directory"));
        }
    }
    Ok(out)
}

/// The error for a directory holding no test: what was looked for, and what is there instead.
fn no_tests(dir: &Path, others: &[PathBuf]) -> InputError {
    let d = dir.display();
    let found = match others {
        [] => "it holds no files".to_string(),
        [one] => format!("its only file is `{}`", one.display()),
        [first, ..] => format!("it holds {} other files, e.g. `{}`", others.len(), first.display()),
    };
    InputError::whole_file(
        d.to_string(),
        format!(
            "no `*.litmus` files under `{d}`: nothing to check (looked for files named `*.litmus` in it and its subdirectories; {found})"
        ),
    )
}

/// Appends the `*.litmus` files under `dir` to `out` and the other files to `others`.
fn walk(dir: &Path, out: &mut Vec<PathBuf>, others: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out, others)?;
        } else if p.extension().is_some_and(|e| e == "litmus") {
            out.push(p);
        } else {
            others.push(p);
        }
    }
    Ok(())
}
