//! The rules of the machines, named as in the paper (Fig. 6-8, Fig. 19-20) and
//! for the remote RMWs (issue 33).

use std::fmt;

/// The rules of the machines, named as in the paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    // Fig. 6 + Fig. 7 (program and hardware together, Fig. 8), labelled transitions
    /// `lW(x, v)`: the write enters the store buffer.
    LW,
    /// `lR(x, v)`: `(M ◁ B(t))(x) = v`.
    LR,
    /// `CASS(x, v1, v2)`: `B(t) = ε`, `M(x) = v1`.
    CASS,
    /// `CASF(x, v)`: `B(t) = ε`, `M(x) = v ≠ e_old`.
    CASF,
    /// `F`: `B(t) = ε`.
    F,
    /// `Get(x, ȳ)`: the get enters the store buffer.
    Get,
    /// `Put(ȳ, x)`: the put enters the store buffer.
    Put,
    /// `rF(n̄)`: the remote fence enters the store buffer.
    RF,
    /// `P(n̄)`: `wb_L = α · cn` of the n̄-queue pair; the cn is removed.
    P,
    /// LOCO App. F.1's set operations: stamp aMF, so `B(t) = ε` as for `F`.
    SetOp,
    /// `RCAS`/`RFAA` (issue 33): the remote RMW enters the store buffer, as `Get`.
    Rmw,
    // Fig. 7, silent hardware transitions
    /// `B(t) = b · (x := v)`: the oldest write leaves the store buffer for memory.
    SbW,
    /// `B(t) = b · rc`: the oldest remote operation leaves the store buffer for req_L
    /// (for the pipe, in the simplified machine).
    SbRc,
    // Fig. 7, concrete queue-pair transitions (steps of p. 11)
    G1,
    G2,
    G3,
    G4,
    G5,
    G6,
    P1,
    P2,
    P3,
    P4,
    P5,
    /// The third →qp rule: `req_L = α · rfence`, `in_R = out_R = rsp_L = ε`.
    QpRF,
    // Fig. 19, simplified queue-pair transitions
    /// `pipe = α · rfence`.
    SRF,
    /// Step P1 in the pipe.
    SP1,
    /// Step P2 (the put becomes its ack in place).
    SP2,
    /// Steps P3-P4: the head of wb_R to memory.
    SP34,
    /// Step P5.
    SP5,
    /// Steps G1-G4: the get is fulfilled in the pipe.
    SG14,
    /// Step G5.
    SG5,
    /// Step G6.
    SG6,
    // issue 33: remote RMWs (docs/design.md, "Remote RMWs in the machines")
    /// A1 (as G1): the RMW req_L -> in_R.
    A1,
    /// A2 (as G2): the RMW in_R -> out_R, not yet fulfilled.
    A2,
    /// A3 (G3's analogue): the NIC of the target's node reads y and, in the same
    /// step, produces the write (to this queue pair's wb_R, marked atomic, with
    /// [`Atomicity::Hca`]; to memory with [`Atomicity::Global`]); the entry becomes
    /// a fulfilled get carrying the old value, which G4-G6 take back.
    A3,
    /// A1-A3 in the pipe of the simplified machine (SG14's analogue); then SG5, SG6.
    SA13,
}

impl Rule {
    pub fn describe(self) -> &'static str {
        match self {
            Rule::LW => "lW: CPU write enters the store buffer",
            Rule::LR => "lR: CPU read from M ◁ B(t)",
            Rule::CASS => "CASS: successful CAS (store buffer empty)",
            Rule::CASF => "CASF: failed CAS (store buffer empty)",
            Rule::F => "F: mfence (store buffer empty)",
            Rule::Get => "Get: the get enters the store buffer",
            Rule::Put => "Put: the put enters the store buffer",
            Rule::RF => "rF: the remote fence enters the store buffer",
            Rule::P => "P: poll removes the cn at the head of wb_L",
            Rule::SetOp => "set operation (App. F.1, a fence: store buffer empty)",
            Rule::SbW => "store buffer: oldest write to memory",
            Rule::SbRc => "store buffer: oldest remote operation to the queue pair",
            Rule::G1 => "G1: get req_L -> in_R",
            Rule::G2 => "G2: get in_R -> out_R (not yet fulfilled)",
            Rule::G3 => "G3: get fulfilled in out_R (remote read)",
            Rule::G4 => "G4: fulfilled get out_R -> rsp_L",
            Rule::G5 => "G5: fulfilled get rsp_L -> wb_L, with its cn",
            Rule::G6 => "G6: get's write leaves wb_L for local memory",
            Rule::P1 => "P1: put req_L -> in_R, local read",
            Rule::P2 => "P2: put in_R -> wb_R, ack_p -> out_R",
            Rule::P3 => "P3: put's write leaves wb_R for remote memory",
            Rule::P4 => "P4: ack_p out_R -> rsp_L",
            Rule::P5 => "P5: ack_p rsp_L -> wb_L as cn",
            Rule::QpRF => "rfence leaves req_L (in_R, out_R, rsp_L empty)",
            Rule::SRF => "rfence leaves the pipe (at its head)",
            Rule::SP1 => "P1: put's local read in the pipe",
            Rule::SP2 => "P2: put -> wb_R, ack_p in its place",
            Rule::SP34 => "P3-P4: put's write leaves wb_R for remote memory",
            Rule::SP5 => "P5: ack_p at the pipe's head -> wb_L as cn",
            Rule::SG14 => "G1-G4: get fulfilled in the pipe (remote read)",
            Rule::SG5 => "G5: fulfilled get at the pipe's head -> wb_L, with its cn",
            Rule::SG6 => "G6: get's write leaves wb_L for local memory",
            Rule::Rmw => "Rmw: the remote RMW (RCAS/RFAA) enters the store buffer",
            Rule::A1 => "A1: RMW req_L -> in_R",
            Rule::A2 => "A2: RMW in_R -> out_R (not yet fulfilled)",
            Rule::A3 => "A3: RMW fulfilled in out_R (remote read and write in one step of the NIC's atomic unit)",
            Rule::SA13 => "A1-A3: RMW fulfilled in the pipe (remote read and write in one step)",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}
