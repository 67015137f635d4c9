//! The syntax tree of statements and expressions, shared by litmus thread bodies
//! ([`crate::lang::syntax`]) and implementation files ([`crate::lang::grammar`],
//! whose whole file is an [`ImplFile`]).

use super::lex::Name;
use mowgli_diag::Pos;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    /// `s - t` on sets is written `minus` after typing; parsed as Sub.
    In,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ex {
    Int(i64, Pos),
    Bool(bool, Pos),
    Bot(Pos),
    Unit(Pos),
    Var(Name),
    Tuple(Vec<Ex>, Pos),
    Set(Vec<Ex>, Pos),
    Comp {
        body: Box<Ex>,
        var: Name,
        set: Box<Ex>,
        pos: Pos,
    },
    Bin(BinOp, Box<Ex>, Box<Ex>, Pos),
    Neg(Box<Ex>, Pos),
    Not(Box<Ex>, Pos),
    /// `f(args)`: a function (builtin or family with an object) — resolved later.
    App(Name, Vec<Ex>),
    /// `e[i, …]`: a family index or a tuple component.
    Index(Box<Ex>, Vec<Ex>, Pos),
}

impl Ex {
    pub fn pos(&self) -> Pos {
        match self {
            Ex::Int(_, p)
            | Ex::Bool(_, p)
            | Ex::Bot(p)
            | Ex::Unit(p)
            | Ex::Tuple(_, p)
            | Ex::Set(_, p)
            | Ex::Comp { pos: p, .. }
            | Ex::Bin(_, _, _, p)
            | Ex::Neg(_, p)
            | Ex::Not(_, p)
            | Ex::Index(_, _, p) => *p,
            Ex::Var(n) | Ex::App(n, _) => n.pos,
        }
    }

    /// How deep the tree is (a leaf: 1). The parser keeps it within
    /// [`mowgli_diag::MAX_NESTING`], so this recursion is shallow.
    pub fn depth(&self) -> usize {
        let most = |v: &[Ex]| v.iter().map(Ex::depth).max().unwrap_or(0);
        1 + match self {
            Ex::Tuple(v, _) | Ex::Set(v, _) | Ex::App(_, v) => most(v),
            Ex::Comp { body, set, .. } => body.depth().max(set.depth()),
            Ex::Bin(_, a, b, _) => a.depth().max(b.depth()),
            Ex::Neg(a, _) | Ex::Not(a, _) => a.depth(),
            Ex::Index(b, ix, _) => b.depth().max(most(ix)),
            Ex::Int(..) | Ex::Bool(..) | Ex::Bot(_) | Ex::Unit(_) | Ex::Var(_) => 0,
        }
    }

    /// Where the expression starts (the position of a binary operation or an
    /// index is its operator's).
    pub fn start(&self) -> Pos {
        match self {
            Ex::Bin(_, a, _, _) => a.start(),
            Ex::Index(b, _, _) => b.start(),
            e => e.pos(),
        }
    }
}

/// A call of a library method: `[LIB.]Method(args)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallEx {
    pub lib: Option<Name>,
    pub method: Name,
    pub args: Vec<Ex>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rhs {
    Call(CallEx),
    Expr(Ex),
    If(Box<Stmt>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Let {
        name: Name,
        rhs: Rhs,
        mutable: bool,
    },
    Assign {
        name: Name,
        rhs: Rhs,
    },
    Call(CallEx),
    If {
        cond: Ex,
        then: Block,
        els: Option<Block>,
        pos: Pos,
    },
    Loop(Block, Pos),
    For {
        var: Name,
        set: Ex,
        body: Block,
    },
    Break(Option<Ex>, Pos),
    /// A trailing expression: the block's value.
    Value(Ex),
}

/// How many statements `ss` has, those of nested blocks included (what
/// [`crate::lang::grammar::MAX_STATEMENTS`] bounds).
pub fn count_statements(ss: &[Stmt]) -> usize {
    let block = |b: &Block| count_statements(&b.stmts);
    ss.iter()
        .map(|s| {
            1 + match s {
                Stmt::If { then, els, .. } => block(then) + els.as_ref().map_or(0, block),
                Stmt::Loop(b, _) | Stmt::For { body: b, .. } => block(b),
                Stmt::Let { rhs: Rhs::If(s), .. } | Stmt::Assign { rhs: Rhs::If(s), .. } => {
                    count_statements(std::slice::from_ref(&**s))
                }
                _ => 0,
            }
        })
        .sum()
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub pos: Pos,
}

/// `loc NAME[(OBJ)][[i, …]] [@ node] [= init] [for i in set, …]`, or `wid NAME[(OBJ)]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilyDecl {
    pub name: Name,
    pub object: Option<Name>,
    pub index: Vec<Name>,
    pub node: Option<Ex>,
    pub init: Option<Ex>,
    pub ranges: Vec<(Name, Ex)>,
    pub wid: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodDecl {
    pub name: Name,
    pub params: Vec<Name>,
    pub body: Block,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImplFile {
    pub name: Name,
    pub implements: Name,
    pub uses: Vec<Name>,
    pub families: Vec<FamilyDecl>,
    pub methods: Vec<MethodDecl>,
}
