//! The source languages: the litmus format (`syntax`, `lex`, its printer `print`,
//! the edits analyses make of a parsed test `edit`),
//! herd7's x86 format (`herd`), the implementation files with their statement
//! grammar (`grammar`, `implementation`) and `concretise` lines (`maps`), and their
//! lowering to the engine's problems (`lower`); the project file `mowgli.toml`
//! (`project`). Below the analyses; above the
//! engine, whose `Problem` they produce.

pub mod ast;
pub mod cursor;
pub mod edit;
pub mod grammar;
pub mod herd;
pub mod implementation;
pub mod lex;
pub mod limits;
pub mod lower;
pub mod maps;
pub mod print;
pub mod private;
pub mod project;
pub mod stamporder;
pub mod stmts;
pub mod syntax;

/// An unreadable or malformed input: a positioned diagnostic.
pub type InputError = mowgli_diag::Diagnostic;
