//! Random text edits for the "bad input never panics" property tests: each edit
//! removes, replaces or inserts one character at a position drawn by proptest.

use proptest::sample::Index;

/// `text` with `edits` applied in turn: op 0 removes the character at the index,
/// 1 replaces it with `c`, anything else inserts `c` before it.
pub fn apply(text: &str, edits: &[(Index, u8, char)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for (ix, op, c) in edits {
        if chars.is_empty() {
            break;
        }
        let i = ix.index(chars.len());
        match op {
            0 => {
                chars.remove(i);
            }
            1 => chars[i] = *c,
            _ => chars.insert(i, *c),
        }
    }
    chars.into_iter().collect()
}
