//! The libraries every shipped test may name: the built-ins and the library
//! files of `specs/libs` that are not built in, added as `--lib` adds them.

use mowgli_libs::catalogue::Catalogue;

/// The built-ins and every library file of `specs/libs` whose name is not built in.
#[allow(dead_code)]
pub fn catalogue(root: &std::path::Path) -> Catalogue {
    let mut cat = Catalogue::builtins();
    for e in std::fs::read_dir(root.join("specs/libs")).expect("specs/libs") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "lib") {
            let spec = mowgli_spec::parse_file(&p).expect("the library file");
            if !cat.knows(&spec.name) {
                cat.add_spec(&spec);
            }
        }
    }
    cat
}

/// A copy of the library file `specs/libs/NAME.lib` whose methods claim no
/// completion (`completes d` dropped), with the files it may include, in a fresh
/// temporary folder: passed with `--lib`, it replaces the project's library, and
/// retry loops then unroll the failed attempts they would otherwise drop.
#[allow(dead_code)]
pub fn without_completion(root: &std::path::Path, name: &str) -> std::path::PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("mowgli-no-completion-{}-{k}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let libs = root.join("specs/libs");
    for e in std::fs::read_dir(&libs).expect("specs/libs") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "inc") {
            std::fs::copy(&p, dir.join(p.file_name().expect("a name"))).expect("copied");
        }
    }
    let text = std::fs::read_to_string(libs.join(format!("{name}.lib"))).expect("the library file");
    let plain = text.replace(" completes d {", " {");
    assert_ne!(plain, text, "{name}.lib declares no `completes d`");
    let file = dir.join(format!("{name}.lib"));
    std::fs::write(&file, plain).expect("written");
    file
}
