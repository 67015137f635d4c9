//! The flat state of the machines and its buffers: memory, where each buffer ends,
//! and the entries, in one vector of words (docs/design.md, "States in memory"),
//! with the hash of a state computed once for the visited set.

use crate::{Ev, Explorer, Src};

/// The kinds of buffer entry (Fig. 5). The first four live in store buffers,
/// the others in queue-pair buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum K {
    /// `x := v` (a = x, b = v).
    W = 1,
    /// A put in the store buffer (a = dst, b = src).
    SbPut,
    /// A get in the store buffer (a = dst, b = src).
    SbGet,
    /// `rfence(n)` in the store buffer (a = n).
    SbRf,
    /// `ȳ := x`: a put not yet read (a = dst, b = src).
    Put,
    /// `ȳ := v` (a = dst, b = v).
    PutV,
    /// `ack_p`.
    Ack,
    /// `x := ȳ`: a get not yet fulfilled (a = dst, b = src).
    Get,
    /// `x := v` (a = dst, b = v).
    GetV,
    /// `rfence`.
    Rf,
    /// `cn`, with the identifier of the operation it completes.
    Cn,
    /// A remote RMW (RCAS/RFAA, issue 33) in the store buffer (a = its index in
    /// the explorer's RMW table).
    SbRmw,
    /// A remote RMW not yet fulfilled, in a queue pair (a = its RMW table index).
    /// Once fulfilled (step A3) it becomes a [`K::GetV`] carrying the old value to
    /// its local destination, and travels back as a fulfilled get.
    Rmw,
    /// `ȳ := v` marked atomic: the write of a remote RMW pending in wb_R (a = y,
    /// b = v). It lands like a put's write (P3); until it has, no other RMW of the
    /// same NIC reads y (A3's atomic-unit premise).
    RmwW,
}

impl K {
    pub(crate) fn of(b: u8) -> K {
        match b {
            1 => K::W,
            2 => K::SbPut,
            3 => K::SbGet,
            4 => K::SbRf,
            5 => K::Put,
            6 => K::PutV,
            7 => K::Ack,
            8 => K::Get,
            9 => K::GetV,
            10 => K::Rf,
            11 => K::Cn,
            12 => K::SbRmw,
            13 => K::Rmw,
            14 => K::RmwW,
            _ => unreachable!("buffer entries are written by `E::encode` only"),
        }
    }
}

/// A buffer entry: its kind, two operands (locations, a node, a value — see
/// [`K`]), the identifier of a put/get (a value), and the event (call) it
/// belongs to. Values are interned ([`Explorer::vals`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct E {
    pub(crate) kind: K,
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) id: u32,
    pub(crate) ev: Ev,
}

/// Words per entry in [`State::w`].
pub(crate) const ENTRY: usize = 4;

impl E {
    pub(crate) fn new(kind: K, a: u32, b: u32, id: u32, ev: Ev) -> E {
        E { kind, a, b, id, ev }
    }
    pub(crate) fn encode(self) -> [u32; ENTRY] {
        [self.kind as u32 | (self.a << 8), self.b, self.id, (self.ev.0 as u32) << 16 | self.ev.1 as u32]
    }
    pub(crate) fn decode(w: &[u32]) -> E {
        E { kind: K::of(w[0] as u8), a: w[0] >> 8, b: w[1], id: w[2], ev: ((w[3] >> 16) as u16, w[3] as u16) }
    }
    /// A write in a write-back buffer (`ȳ := v` of a put or an RMW, or `x := v`).
    pub(crate) fn nic_write(&self) -> bool {
        matches!(self.kind, K::PutV | K::GetV | K::RmwW)
    }
    /// The subevent of the call a NIC write is ([`crate::graph`]): part 1 (a
    /// put's nrW, a get's or an RMW's nlW), part 2 for an RMW's remote write.
    pub(crate) fn write_part(&self) -> u8 {
        if self.kind == K::RmwW {
            2
        } else {
            1
        }
    }
}

/// The queue-pair buffers, in the order of [`State::w`]. In the simplified
/// machine `REQ` is the pipe and `IN`, `OUT`, `RSP` stay empty.
pub(crate) const REQ: usize = 0;
pub(crate) const IN: usize = 1;
pub(crate) const WBR: usize = 2;
pub(crate) const OUT: usize = 3;
pub(crate) const RSP: usize = 4;
pub(crate) const WBL: usize = 5;
pub(crate) const QP_BUFS: usize = 6;

/// A state of the machine: per thread its node in its call tree (`pc`, which
/// stands for its program counter and registers), and in one flat vector of
/// words (`w`, hashed and copied as one block): memory (one interned value per
/// location), where every buffer ends (per thread its store buffer, then per
/// (thread, node) queue pair its six buffers; the number of entries in this
/// buffer and all before it), and the buffers' entries one after the other,
/// oldest first, [`ENTRY`] words each.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub pc: Vec<u32>,
    pub(crate) w: Vec<u32>,
}

/// FxHash (rustc's hasher): the states are vectors of small words.
#[derive(Default, Clone, Copy)]
pub struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

pub(crate) type FxBuild = std::hash::BuildHasherDefault<Fx>;

/// A state in the visited set, with its hash computed once (the set hashes it
/// again when it grows, and a lookup plus an insertion would hash it twice).
#[derive(Clone, Debug)]
pub(crate) struct Key {
    pub(crate) hash: u64,
    pub(crate) s: State,
}

impl Key {
    pub(crate) fn new(s: State) -> Key {
        use std::hash::Hasher;
        let mut h = Fx::default();
        for w in s.pc.iter().chain(&s.w) {
            h.write_u32(*w);
        }
        Key { hash: h.finish(), s }
    }
}

impl PartialEq for Key {
    fn eq(&self, o: &Key) -> bool {
        self.hash == o.hash && self.s == o.s
    }
}

impl Eq for Key {}

impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u64(self.hash);
    }
}

/// The hasher of [`Key`]: its hash, as it is.
#[derive(Default, Clone, Copy)]
pub(crate) struct Id(u64);

impl std::hash::Hasher for Id {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
}

impl Explorer<'_> {
    // ---- the flat state: buffers ----

    /// The buffer number of thread t's store buffer.
    pub(crate) fn sb(&self, t: usize) -> usize {
        t
    }

    /// The buffer number of buffer `k` of queue pair `i`.
    pub(crate) fn qb(&self, i: usize, k: usize) -> usize {
        self.tries.len() + i * QP_BUFS + k
    }

    /// The number of entries in the buffers before buffer b.
    pub(crate) fn start(&self, s: &State, b: usize) -> usize {
        if b == 0 {
            0
        } else {
            s.w[self.nlocs + b - 1] as usize
        }
    }

    pub(crate) fn len(&self, s: &State, b: usize) -> usize {
        s.w[self.nlocs + b] as usize - self.start(s, b)
    }

    pub(crate) fn off(&self, s: &State, b: usize) -> usize {
        self.nlocs + self.nbufs + ENTRY * self.start(s, b)
    }

    /// One more (`+1`) or one fewer entry in buffer b.
    pub(crate) fn resize(&self, s: &mut State, b: usize, grow: bool) {
        for end in &mut s.w[self.nlocs + b..self.nlocs + self.nbufs] {
            if grow {
                *end += 1;
            } else {
                *end -= 1;
            }
        }
    }

    pub(crate) fn get(&self, s: &State, b: usize, k: usize) -> E {
        let o = self.off(s, b) + ENTRY * k;
        E::decode(&s.w[o..o + ENTRY])
    }

    pub(crate) fn first(&self, s: &State, b: usize) -> Option<E> {
        (self.len(s, b) > 0).then(|| self.get(s, b, 0))
    }

    pub(crate) fn entries(&self, s: &State, b: usize) -> Vec<E> {
        let o = self.off(s, b);
        s.w[o..o + ENTRY * self.len(s, b)].chunks(ENTRY).map(E::decode).collect()
    }

    pub(crate) fn push(&self, s: &mut State, b: usize, e: E) {
        let o = self.off(s, b) + ENTRY * self.len(s, b);
        s.w.splice(o..o, e.encode());
        self.resize(s, b, true);
    }

    pub(crate) fn remove(&self, s: &mut State, b: usize, k: usize) -> E {
        let o = self.off(s, b) + ENTRY * k;
        let e = E::decode(&s.w[o..o + ENTRY]);
        s.w.drain(o..o + ENTRY);
        self.resize(s, b, false);
        e
    }

    pub(crate) fn set(&self, s: &mut State, b: usize, k: usize, e: E) {
        let o = self.off(s, b) + ENTRY * k;
        s.w[o..o + ENTRY].copy_from_slice(&e.encode());
    }

    pub(crate) fn mem(&self, s: &State, x: u32) -> u32 {
        s.w[x as usize]
    }

    /// `(M ◁ B(t))(x)`: the newest write to x in t's store buffer, else memory.
    pub(crate) fn lookup_sb(&self, s: &State, t: usize, x: u32) -> (u32, Src) {
        let b = self.sb(t);
        for k in (0..self.len(s, b)).rev() {
            let e = self.get(s, b, k);
            if e.kind == K::W && e.a == x {
                return (e.b, Src::Entry(e.ev, 0));
            }
        }
        (self.mem(s, x), Src::Memory)
    }

    /// `(M ◁ α)(x)` over a write-back buffer: the newest pending write to x, else memory.
    pub(crate) fn lookup_wb(&self, s: &State, b: usize, x: u32) -> (u32, Src) {
        for k in (0..self.len(s, b)).rev() {
            let e = self.get(s, b, k);
            if e.nic_write() && e.a == x {
                return (e.b, Src::Entry(e.ev, e.write_part()));
            }
        }
        (self.mem(s, x), Src::Memory)
    }

    /// `wb_L ∈ cn*`, and the position of its oldest write if not.
    pub(crate) fn wbl_write(&self, s: &State, i: usize) -> Option<usize> {
        let b = self.qb(i, WBL);
        (0..self.len(s, b)).find(|&k| self.get(s, b, k).kind != K::Cn)
    }
}
