//! The rules of coreRMA's Fig. 4 by name, and sets of them (a model switches
//! rules off: [`super::CoreRma::without`]).

/// One rule of Fig. 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    R1,
    R2,
    NoC,
    C,
    IR,
    GA,
    CasF,
    CasT,
    F1,
    F2,
    F3,
    PG,
    LO,
    WS,
}

impl Rule {
    pub const ALL: [Rule; 14] = [
        Rule::R1,
        Rule::R2,
        Rule::NoC,
        Rule::C,
        Rule::IR,
        Rule::GA,
        Rule::CasF,
        Rule::CasT,
        Rule::F1,
        Rule::F2,
        Rule::F3,
        Rule::PG,
        Rule::LO,
        Rule::WS,
    ];

    /// The rules that require hb edges: the pivots of Table 6 (in its row order).
    pub const PIVOTS: [Rule; 12] = [
        Rule::R1,
        Rule::R2,
        Rule::F1,
        Rule::F2,
        Rule::F3,
        Rule::IR,
        Rule::GA,
        Rule::PG,
        Rule::CasF,
        Rule::CasT,
        Rule::LO,
        Rule::WS,
    ];

    /// The paper's name.
    pub fn name(self) -> &'static str {
        match self {
            Rule::R1 => "R1",
            Rule::R2 => "R2",
            Rule::NoC => "no-C",
            Rule::C => "C",
            Rule::IR => "IR",
            Rule::GA => "GA",
            Rule::CasF => "CAS-F",
            Rule::CasT => "CAS-T",
            Rule::F1 => "F1",
            Rule::F2 => "F2",
            Rule::F3 => "F3",
            Rule::PG => "PG",
            Rule::LO => "LO",
            Rule::WS => "WS",
        }
    }

    /// A rule by its paper name (case and `-`/`_` ignored).
    pub fn parse(s: &str) -> Option<Rule> {
        let norm = |t: &str| t.to_ascii_lowercase().replace(['-', '_'], "");
        Rule::ALL.into_iter().find(|r| norm(r.name()) == norm(s))
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// A set of rules (the disabled ones, for a model).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rules(u16);

impl Rules {
    pub fn none() -> Rules {
        Rules(0)
    }
    pub fn of(rules: &[Rule]) -> Rules {
        Rules(rules.iter().fold(0, |m, r| m | r.bit()))
    }
    pub fn contains(self, r: Rule) -> bool {
        self.0 & r.bit() != 0
    }
    pub fn with(self, r: Rule) -> Rules {
        Rules(self.0 | r.bit())
    }
    pub fn iter(self) -> impl Iterator<Item = Rule> {
        Rule::ALL.into_iter().filter(move |r| self.contains(*r))
    }
}
