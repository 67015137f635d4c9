//! The one token cursor of Mowgli's parsers: the litmus statement lines
//! ([`super::syntax`]) and the statement grammar of thread bodies and `.impl` files
//! ([`super::grammar`]) both read their tokens through it, and report "expected …,
//! found …" the same way.

use super::lex::{Name, Tok, Token};
use mowgli_diag::{Diagnostic, Pos, MAX_NESTING};

type R<T> = Result<T, Diagnostic>;

/// A position in a token sequence that ends at `end`, called `end_desc` in
/// messages ("the end of the line", "the end of the file").
pub struct Cursor<'a> {
    pub toks: &'a [Token],
    pub i: usize,
    end: Pos,
    end_desc: String,
    /// How many levels the parser is in (brackets, blocks, unary operators), see
    /// [`Cursor::enter`].
    pub depth: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(toks: &'a [Token], end: Pos, end_desc: impl Into<String>) -> Cursor<'a> {
        Cursor { toks, i: 0, end, end_desc: end_desc.into(), depth: 0 }
    }

    /// One level deeper (a bracket, a block, a unary operator) at `pos`: an error
    /// past [`MAX_NESTING`], which keeps the recursive descent, and every pass over
    /// the tree it builds, within the stack.
    pub fn enter(&mut self, pos: Pos) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Diagnostic::too_deep(pos));
        }
        Ok(())
    }

    /// Back one level (after [`Cursor::enter`]).
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Checks a tree `depth` deep built at `pos` (a chain of binary operators, each
    /// a level of the tree) below the levels the parser is in.
    pub fn check_depth(&self, depth: usize, pos: Pos) -> R<()> {
        if self.depth + depth > MAX_NESTING {
            return Err(Diagnostic::too_deep(pos));
        }
        Ok(())
    }

    /// Where the next token starts (the end when there is none).
    pub fn pos(&self) -> Pos {
        self.toks.get(self.i).map(|t| t.pos).unwrap_or(self.end)
    }

    pub fn at_end(&self) -> bool {
        self.i >= self.toks.len()
    }

    /// The next token, if any.
    pub fn peek(&self) -> Option<&'a Tok> {
        self.peek_at(0)
    }

    pub fn peek_at(&self, k: usize) -> Option<&'a Tok> {
        self.toks.get(self.i + k).map(|t| &t.tok)
    }

    /// The next token, a new line at the end (statement bodies, where the end of
    /// the input ends a statement as a new line does).
    pub fn tok(&self) -> &'a Tok {
        self.tok_at(0)
    }

    pub fn tok_at(&self, k: usize) -> &'a Tok {
        self.peek_at(k).unwrap_or(&Tok::Newline)
    }

    /// An error at the next token: `what` was expected, that token was found.
    pub fn err<T>(&self, what: &str) -> R<T> {
        let (found, len) = match self.peek() {
            Some(t) => (t.describe(), t.width()),
            None => (self.end_desc.clone(), 1),
        };
        Err(Diagnostic::expected_found(self.pos(), what, &found, len))
    }

    /// Whether the next token is the punctuation `p`.
    pub fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::P(q)) if *q == p)
    }

    /// Whether the next token is the word `k`.
    pub fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if s == k)
    }

    pub fn eat(&mut self, p: &str) -> bool {
        let yes = self.is(p);
        self.i += yes as usize;
        yes
    }

    pub fn expect(&mut self, p: &str) -> R<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.err(&format!("`{p}`"))
        }
    }

    /// A name; `what` says which in the error.
    pub fn ident(&mut self, what: &str) -> R<Name> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let n = Name { text: s.clone(), pos: self.pos() };
                self.i += 1;
                Ok(n)
            }
            _ => self.err(what),
        }
    }

    /// The word `k`.
    pub fn keyword(&mut self, k: &str) -> R<()> {
        if self.is_kw(k) {
            self.i += 1;
            Ok(())
        } else {
            self.err(&format!("`{k}`"))
        }
    }
}
