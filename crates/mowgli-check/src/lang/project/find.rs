//! Finding the project file: `mowgli.toml` in the current folder or the nearest
//! folder above it, as Cargo finds `Cargo.toml`.

use std::path::{Path, PathBuf};

/// The project file's name.
pub const FILE_NAME: &str = "mowgli.toml";

/// The nearest `mowgli.toml` from `dir` upwards, as a path relative to `dir`
/// (`mowgli.toml`, `../mowgli.toml`, …) when `dir` is relative or the current
/// folder, so that the paths of the project print as short as the user's own.
pub fn find(dir: &Path) -> Option<PathBuf> {
    let mut up = PathBuf::new();
    for ancestor in dir.ancestors() {
        if ancestor.join(FILE_NAME).is_file() {
            return Some(up.join(FILE_NAME));
        }
        up.push("..");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_file_upwards() {
        let base = std::env::temp_dir().join(format!("mowgli-find-{}", std::process::id()));
        let deep = base.join("a/b");
        std::fs::create_dir_all(&deep).expect("temp dir");
        std::fs::write(base.join(FILE_NAME), "").expect("write");
        assert_eq!(find(&deep), Some(PathBuf::from("../../mowgli.toml")));
        assert_eq!(find(&base), Some(PathBuf::from("mowgli.toml")));
        std::fs::remove_dir_all(&base).ok();
    }
}
