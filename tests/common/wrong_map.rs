//! I_SV with a wrong concretisation map (the example): GF's aGF_n sent to
//! the Get's aNRR_n instead of the Wait's aWT, which O1 refutes.

use mowgli_libs::catalogue::Catalogue;
use std::path::Path;

use mowgli_check::lang::implementation::Implementation;
use mowgli_core::StampOrder;

pub fn isv_wrong_map(root: &Path, order: &StampOrder) -> Implementation {
    let text = std::fs::read_to_string(root.join("specs/impls/isv.impl"))
        .expect("reads")
        .replace("concretise GF aGF_n -> last Wait aWT", "concretise GF aGF_n -> first Get aNRR_n");
    Implementation::parse("isv-wrong-map.impl", &text, order, &Catalogue::builtins()).unwrap_or_else(|e| panic!("{e}"))
}
