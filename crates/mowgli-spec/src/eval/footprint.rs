//! A call's footprint ([`Footprint`]) read off its method's declaration: the
//! locations its accesses read and write, how each write is made, its work
//! identifier and the one it completes (`completes d`).

use mowgli_core::program::retry::{Footprint, Made};
use mowgli_core::Value;

use crate::{AccVal, Kind, Method, RmwVal};

/// The footprint of a call of `m` with arguments `args`; `None` when an access
/// names a location per node (`x @ n`: a cell, not a location) or an argument is
/// missing.
pub(super) fn of(m: &Method, args: &[Value]) -> Option<Footprint> {
    // `copy` and `cas(e, v)` speak of the call's latest read: with one read, the read
    let one_read = m.accesses.iter().filter(|a| !a.write).count() == 1;
    let mut fp = Footprint::default();
    for a in &m.accesses {
        if a.node.is_some() {
            return None;
        }
        let l = args.get(a.loc)?.clone();
        if a.write {
            let how = match &a.val {
                AccVal::Copy if one_read => Made::Copy,
                AccVal::Rmw(RmwVal::Cas { expected, .. }) if one_read => Made::If(args.get(*expected)?.clone()),
                _ => Made::Always,
            };
            fp.writes.push((l, how));
        } else {
            if a.val == AccVal::Ret {
                fp.reads_ret.push(l.clone());
            }
            fp.reads.push(l);
        }
    }
    fp.completes = match m.completes {
        Some(i) => Some(args.get(i)?.clone()),
        None => None,
    };
    // the call's own work identifier: its one `wid` parameter besides the completed one
    let own: Vec<usize> =
        (0..m.params.len()).filter(|&i| m.params[i].1 == Kind::Wid && Some(i) != m.completes).collect();
    fp.wid = match own.as_slice() {
        [i] => Some(args.get(*i)?.clone()),
        _ => None,
    };
    Some(fp)
}
