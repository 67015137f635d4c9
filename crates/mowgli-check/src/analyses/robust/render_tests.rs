//! The edits `mowgli robust` makes of a parsed test: fix insertions written into its
//! bodies ([`Candidates::render`]), polls moved up ([`super::nofix`]) and the
//! single-server translation ([`super::star`]). Each printed result parses back to
//! the edited test.

use mowgli_libs::catalogue::Catalogue;
use mowgli_libs::orders::default_order;

use super::*;
use crate::lang::print::{normalised, print};
use crate::lang::syntax::{parse, Litmus};

const TEST: &str = "test F\nlibraries rdmasc\nthread T1 @ 1\nthread T2 @ 2\nloc x @ 2\nloc y @ 1\nT1:\n  \
                    Put(x, y)\n  r = Read(y)\nT2:\n  Write(x, 1)\n";

fn parsed(text: &str) -> Litmus {
    parse(text).unwrap_or_else(|e| panic!("{e:?}"))
}

/// The printed test, checked to parse back to `t`.
fn round_trips(t: &Litmus) -> String {
    let p = print(t);
    assert_eq!(normalised(&parsed(&p)), normalised(t), "\n{p}");
    p
}

fn candidates() -> Candidates {
    let c = Candidates::of("<t>", &parsed(TEST), Model::Sc, &Catalogue::builtins(), &default_order());
    c.expect("runs").expect("straight-line")
}

/// The first candidate of `thread` after `line` inserting `instr`.
fn find(c: &Candidates, thread: &str, line: usize, instr: &str) -> usize {
    let found = c.cands.iter().position(|(l, i)| i.thread == thread && *l == line && i.instr == instr);
    found.unwrap_or_else(|| panic!("no {instr} after {thread} line {line}"))
}

#[test]
fn a_fence_goes_after_its_call_and_the_calls_keep_their_original_places() {
    let c = candidates();
    let (t, at) = c.render(&[find(&c, "T1", 8, "Rfence(2)")]);
    let p = round_trips(&t);
    assert!(p.ends_with("T1:\n  Put(x, y)\n  Rfence(2)\n  r = Read(y)\nT2:\n  Write(x, 1)\n"), "{p}");
    // Put (line 8), the rfence after it, Read (line 9), Write (line 11)
    assert_eq!(at, [16, 17, 18, 22]);
}

#[test]
fn a_get_declares_its_fresh_location_and_a_gp_block_polls_up_to_it() {
    let c = candidates();
    let (t, at) = c.render(&[find(&c, "T1", 7, "Get(g_T1_7_x, x)")]);
    let p = round_trips(&t);
    assert!(p.contains("loc y @ 1\nloc g_T1_7_x @ 1\n"), "{p}");
    assert!(p.contains("T1:\n  Get(g_T1_7_x, x)\n  Put(x, y)\n"), "{p}");
    assert_eq!(at, [15, 16, 18, 22]);
    // after the put, a GP block polls the put and its own get
    let gp = find(&c, "T1", 8, "Get(gp_T1_8_x, x)");
    let (t, at) = c.render(&[gp]);
    let p = round_trips(&t);
    assert!(p.contains("  Put(x, y)\n  Get(gp_T1_8_x, x)\n  Poll(2)\n  Poll(2)\n  r = Read(y)\n"), "{p}");
    assert_eq!(at, [16, 17, 17, 17, 18, 22]);
    assert_eq!(c.insertions(&[gp])[0].instr, "Get(gp_T1_8_x, x); Poll(2); Poll(2)");
    assert!(!c.blocks_written(&[gp]));
}

#[test]
fn a_twin_writes_the_same_insertion_again_with_its_own_location() {
    let c = candidates();
    let get = find(&c, "T1", 7, "Get(g_T1_7_x, x)");
    let twin = find(&c, "T1", 7, "Get(g_T1_7_x_2, x)");
    let (t, _) = c.render(&[get, twin]);
    let p = round_trips(&t);
    assert!(p.contains("loc g_T1_7_x @ 1\nloc g_T1_7_x_2 @ 1\n"), "{p}");
    assert!(p.contains("T1:\n  Get(g_T1_7_x, x)\n  Get(g_T1_7_x_2, x)\n  Put(x, y)\n"), "{p}");
}

#[test]
fn a_moved_poll_takes_the_line_the_moved_text_gives_it() {
    let t = parsed(&TEST.replace("  r = Read(y)\n", "  r = Read(y)\n  Poll(2)\n").replace("T2:\n  Write(x, 1)\n", ""));
    let m = super::nofix::moved(&t, &[(10, 8)]);
    let p = round_trips(&m);
    assert!(p.ends_with("T1:\n  Put(x, y)\n  Poll(2)\n  r = Read(y)\n"), "{p}");
    let lines: Vec<usize> =
        m.bodies[0].1.iter().filter_map(crate::lang::edit::call_of).map(|c| c.method.pos.line).collect();
    assert_eq!(lines, [8, 9, 10]);
}

#[test]
fn the_single_server_translation_is_a_test_its_text_gives_back() {
    let sb = "test SB\nlibraries rdmasc\nthread T1 @ 1\nthread T2 @ 1\nloc x @ 1\nloc y @ 1\nT1:\n  Write(x, 1)\n  \
              a = Read(y)\nT2:\n  Write(y, 1)\n  b = Read(x)\n";
    let star = super::star::star_litmus("<t>", sb, &default_order(), &Catalogue::builtins()).expect("translates");
    let p = round_trips(&star);
    assert!(
        p.contains("T2:\n  Put(y, 1)\n  Get(t2_x_2, x)\n  Rfence(1)\n  Poll(1)\n  Poll(1)\n  b = Read(t2_x_2)\n"),
        "{p}"
    );
}
