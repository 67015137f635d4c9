//! Failed attempts of a retry loop ([`Prog::Retry`]) that may be dropped although
//! they wrote: an attempt that wrote only locations private to its thread, waited
//! for those writes to complete, and whose conditional writes of shared locations
//! are known not to have happened (a remote compare-and-swap whose old value, read
//! back from the private location it landed in, differs from the expected one).
//!
//! Why dropping such an attempt `d` loses no outcome. Take a consistent execution
//! with `d` followed by the attempt `k` that runs next (the body is traceless, so
//! `k` is also a run of the body from the state `d` started from). Remove `d`'s
//! events. The relations of what is left are restrictions of the old ones, so it
//! stays consistent, and its happens-before only shrinks; the values the remaining
//! reads return stay the same provided none of them read from `d`'s writes:
//! - shared locations: `d` wrote none (its conditional writes were not made);
//! - private locations: only the thread accesses them; `d` completed its writes
//!   (a call declared `completes w` came after them, w their work identifier), so
//!   they are ordered before all of `k`; `k` writes each such location again and
//!   completes that write before reading it ([`rewrites_first`]), so `k`'s reads
//!   and everything after `k` read that write or a later one (coherence).
//!
//! Removing the last such attempt first, every execution reduces to one without
//! them, with the same calls' returns and a smaller happens-before: the unfolding
//! needs only those. The premise that a relation restricted to fewer events loses
//! no edge between the events left is the one [`Prog::Spin`] rests on.
//!
//! [`Prog::Retry`]: super::Prog::Retry
//! [`Prog::Spin`]: super::Prog::Spin

use crate::model::Value;

use super::CallRecord;

/// What a call does to memory as its library declares it: the locations it reads
/// and writes, its work identifier and the work identifier it completes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    /// The locations the call reads.
    pub reads: Vec<Value>,
    /// Those of them read with the call's returned value (`reads x = ret`).
    pub reads_ret: Vec<Value>,
    /// The locations the call writes, and how.
    pub writes: Vec<(Value, Made)>,
    /// The work identifier the call names: a later call that completes it finishes
    /// the call's writes.
    pub wid: Option<Value>,
    /// The work identifier whose earlier calls (of the same thread) this call
    /// completes: their writes are ordered before everything after it.
    pub completes: Option<Value>,
}

/// How a [`Footprint`]'s write is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Made {
    /// Always, with a value the footprint does not say.
    Always,
    /// Always, with the value the call's one read returned.
    Copy,
    /// Only when the call's one read returned this value (`cas(e, v)`).
    If(Value),
}

/// The calls of one attempt with their footprints (`None`: not declared), and
/// whether each, as made, only read.
pub struct Attempt<'a> {
    pub calls: &'a [CallRecord],
    pub footprints: Vec<Option<Footprint>>,
    pub read_only: Vec<bool>,
}

/// The private locations an attempt that did not break wrote, when it may be
/// dropped as the module says (given that the attempt after it rewrites them
/// first); `None` when it may not. `private` tells the thread's private locations.
pub fn failed_attempt(a: &Attempt, private: &dyn Fn(&Value) -> bool) -> Option<Vec<Value>> {
    // per private location written: (completed, the call whose read it copies)
    let mut latest: Vec<(Value, Option<Value>, bool, Option<usize>)> = Vec::new();
    let mut read_value: Vec<Option<Value>> = vec![None; a.calls.len()];
    let mut unmade: Vec<(usize, Value)> = Vec::new();
    for (i, c) in a.calls.iter().enumerate() {
        let Some(fp) = a.footprints[i].as_ref() else {
            if a.read_only[i] {
                continue;
            }
            return None;
        };
        // what a read of a private location returns tells what the call whose
        // completed write it reads (a copy) read
        for x in &fp.reads_ret {
            if let Some((_, _, true, Some(j))) = latest.iter().find(|l| &l.0 == x) {
                // (not when the read stands for several values, or for any value: ⊤)
                if !matches!(c.ret, Value::OneOf(_) | Value::Top) && read_value[*j].is_none() {
                    read_value[*j] = Some(c.ret.clone());
                }
            }
        }
        // a call read-only as made (a failed compare-and-swap) writes nothing
        let writes = if a.read_only[i] { &[][..] } else { &fp.writes[..] };
        for (x, how) in writes {
            if private(x) {
                // a write that cannot be completed keeps the attempt
                fp.wid.as_ref()?;
                let copy = (*how == Made::Copy).then_some(i);
                latest.retain(|l| &l.0 != x);
                latest.push((x.clone(), fp.wid.clone(), false, copy));
            } else {
                match how {
                    Made::If(e) => unmade.push((i, e.clone())),
                    _ => return None,
                }
            }
        }
        if let Some(w) = &fp.completes {
            for l in latest.iter_mut().filter(|l| l.1.as_ref() == Some(w)) {
                l.2 = true;
            }
        }
    }
    let completed = latest.iter().all(|l| l.2);
    let not_made = unmade.iter().all(|(i, e)| read_value[*i].as_ref().is_some_and(|v| v != e));
    (completed && not_made).then(|| latest.into_iter().map(|l| l.0).collect())
}

/// Whether an attempt writes each of `locs` and completes that write before it
/// reads the location, and before it ends.
pub fn rewrites_first(a: &Attempt, locs: &[Value]) -> bool {
    // per location of `locs` written: (its work identifier, completed)
    let mut state: Vec<(Value, Option<Value>, bool)> = Vec::new();
    for (i, fp) in a.footprints.iter().enumerate() {
        let Some(fp) = fp else { return false };
        let done = |x: &Value, st: &[(Value, Option<Value>, bool)]| st.iter().any(|s| &s.0 == x && s.2);
        if fp.reads.iter().any(|x| locs.contains(x) && !done(x, &state)) {
            return false;
        }
        let writes = if a.read_only[i] { &[][..] } else { &fp.writes[..] };
        for (x, how) in writes.iter().filter(|(x, _)| locs.contains(x)) {
            if matches!(how, Made::If(_)) {
                return false;
            }
            state.retain(|s| &s.0 != x);
            state.push((x.clone(), fp.wid.clone(), false));
        }
        if let Some(w) = &fp.completes {
            for s in state.iter_mut().filter(|s| s.1.as_ref() == Some(w)) {
                s.2 = true;
            }
        }
    }
    locs.iter().all(|x| state.iter().any(|s| &s.0 == x && s.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUF: Value = Value::Loc(0);
    const WORD: Value = Value::Loc(1);
    const D: Value = Value::Wid(0);

    fn call(ret: Value) -> CallRecord {
        CallRecord { lib: 0, method: 0, args: Vec::new().into(), ret, origin: None }
    }
    /// `RCAS(buf, word, 0, 1, d)`: reads word, lands a copy in buf, writes word if 0.
    fn rcas() -> (CallRecord, Footprint) {
        let fp = Footprint {
            reads: vec![WORD],
            writes: vec![(BUF, Made::Copy), (WORD, Made::If(Value::Int(0)))],
            wid: Some(D),
            ..Default::default()
        };
        (call(Value::Unit), fp)
    }
    fn wait() -> (CallRecord, Footprint) {
        (call(Value::Unit), Footprint { completes: Some(D), ..Default::default() })
    }
    fn read(v: i64) -> (CallRecord, Footprint) {
        (call(Value::Int(v)), Footprint { reads: vec![BUF], reads_ret: vec![BUF], ..Default::default() })
    }
    fn check(seq: &[(CallRecord, Footprint)]) -> Option<Vec<Value>> {
        let calls: Vec<CallRecord> = seq.iter().map(|c| c.0.clone()).collect();
        let a = Attempt {
            calls: &calls,
            footprints: seq.iter().map(|c| Some(c.1.clone())).collect(),
            read_only: vec![false; seq.len()],
        };
        failed_attempt(&a, &|l| *l == BUF)
    }
    fn rewrites(seq: &[(CallRecord, Footprint)]) -> bool {
        let calls: Vec<CallRecord> = seq.iter().map(|c| c.0.clone()).collect();
        let a = Attempt {
            calls: &calls,
            footprints: seq.iter().map(|c| Some(c.1.clone())).collect(),
            read_only: vec![false; seq.len()],
        };
        rewrites_first(&a, &[BUF])
    }

    #[test]
    fn a_failed_remote_cas_read_back_is_a_failed_attempt() {
        assert_eq!(check(&[rcas(), wait(), read(1)]), Some(vec![BUF]));
    }

    #[test]
    fn an_attempt_is_kept_when_its_cas_may_have_written() {
        // read back 0: the CAS succeeded and wrote the shared word
        assert_eq!(check(&[rcas(), wait(), read(0)]), None);
        // read before the landing was waited for: what the CAS read is unknown
        assert_eq!(check(&[rcas(), read(1), wait()]), None);
        // never waited for: the landing is not completed
        assert_eq!(check(&[rcas(), read(1)]), None);
        // read back as ⊤ or as one of several values: what the CAS read is unknown
        for ret in [Value::Top, Value::OneOf(vec![Value::Int(0), Value::Int(1)])] {
            assert_eq!(check(&[rcas(), wait(), (call(ret), read(1).1)]), None);
        }
    }

    #[test]
    fn the_next_attempt_must_write_and_complete_before_it_reads() {
        assert!(rewrites(&[rcas(), wait(), read(0)]));
        // reads the buffer first: it could read the dropped attempt's landing
        assert!(!rewrites(&[read(1), rcas(), wait(), read(0)]));
        // rewrites without completing before the read
        assert!(!rewrites(&[rcas(), read(0), wait()]));
        // does not write the buffer at all: later code could read the dropped landing
        assert!(!rewrites(&[wait()]));
    }
}
