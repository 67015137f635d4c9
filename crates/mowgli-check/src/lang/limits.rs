//! The bounds of the input languages that are not their grammar's: how many
//! threads a test has and statements a thread, and how deep a condition nests.
//! Each keeps the passes over what the parser built (lowering, unfolding,
//! evaluation) within a thread's stack and the engines within reasonable time;
//! an input past one is refused with a diagnostic where it exceeds it.

use mowgli_diag::{Diagnostic, Pos};

use super::ast::{count_statements, Stmt};
use super::grammar::MAX_STATEMENTS;
use super::syntax::{Cond, SyntaxError};

/// At most this many threads in a test (the engines' work grows exponentially
/// with them; the tests of the project have at most four).
pub const MAX_THREADS: usize = 32;

/// At most this many components of a tuple location (`loc x size K`) and slots
/// of a ring (`ring q: … size K`): each is a value of every execution (the
/// project's tests use at most 4).
pub const MAX_SIZE: i64 = 64;

impl Cond {
    /// How deep the tree is (an atom: 1; kept within the nesting limit by the parser).
    pub fn depth(&self) -> usize {
        match self {
            Cond::Not(c) => 1 + c.depth(),
            Cond::And(a, b) | Cond::Or(a, b) => 1 + a.depth().max(b.depth()),
            Cond::True | Cond::Reg { .. } | Cond::Loc { .. } => 1,
        }
    }
}

/// Adds a part of a thread body (read from `lines`) to the body: the whole body
/// keeps within [`MAX_STATEMENTS`] (each part does on its own).
pub(super) fn extend_body(body: &mut Vec<Stmt>, part: Vec<Stmt>, lines: &[(usize, &str)]) -> Result<(), SyntaxError> {
    if !body.is_empty() {
        let n = count_statements(body) + count_statements(&part);
        if n > MAX_STATEMENTS {
            let (line, raw) = lines.first().copied().unwrap_or((1, ""));
            let col = raw.chars().take_while(|c| c.is_whitespace()).count() + 1;
            return Err(Diagnostic::too_many(Pos { line, col }, "statements in one thread", MAX_STATEMENTS));
        }
    }
    body.extend(part);
    Ok(())
}
