//! The libraries every shipped test may name: the built-ins and the library
//! files of `specs/libs` that are not built in, added as `--lib` adds them.

use mowgli_libs::catalogue::Catalogue;

/// The built-ins and every library file of `specs/libs` whose name is not built in.
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
