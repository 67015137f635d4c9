//! Diagnostics of every front end, as the `mowgli` binary prints them: the
//! `file:line:column: message` line, the source line with a caret under the
//! culprit, the expected tokens, and a `help: did you mean …?` for a close name.
//! Each test runs the binary in its own directory on relative file names, so the
//! expected text is exact. A property test mutates valid files and checks that
//! every error still starts with a `file:line:column:` inside the file.

use mowgli_libs::catalogue::Catalogue;
use std::path::{Path, PathBuf};
use std::process::Command;

use mowgli_libs::orders::default_order;
use proptest::prelude::*;

/// A fresh directory holding `files` (name, text).
fn dir(test: &str, files: &[(&str, &str)]) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mowgli-diag-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    for (name, text) in files {
        std::fs::write(d.join(name), text).expect("write");
    }
    d
}

/// Runs `mowgli args` in `dir`: (exit code, stdout, stderr).
fn mowgli(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mowgli")).current_dir(dir).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// `mowgli args` must fail with exit 2 and print exactly `want` on stderr.
fn rejects(dir: &Path, args: &[&str], want: &str) {
    let (code, out, err) = mowgli(dir, args);
    assert_eq!(code, 2, "{args:?}: exit {code}\n{out}{err}");
    assert_eq!(err, want, "{args:?}\n--- got ---\n{err}\n--- want ---\n{want}");
}

fn shipped(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)).expect("shipped file")
}

const MP: &str = "test MP
libraries rdmatso
thread writer @ 1
thread reader @ 1
loc data @ 1
loc flag @ 1
writer:
  Write(data, 1)
  Write(flag, 1)
reader:
  a = Read(flag)
  b = Read(data)
expect allowed reader:a = 1 /\\ reader:b = 0
";

#[test]
fn an_unknown_method_suggests_the_close_one() {
    let d = dir("method", &[("wrte.litmus", &MP.replace("  Write(flag, 1)", "  Wrte(flag, 1)"))]);
    rejects(
        &d,
        &["litmus", "wrte.litmus"],
        "wrte.litmus:9:3: unknown method `Wrte`: no library of rdmatso has it (methods: CAS, Get, Mfence, Poll, \
         Put, Read, Rfence, SetAdd, SetIsEmpty, SetRemove, Write)
   ,-[ wrte.litmus:9:3 ]
   |
 9 |   Wrte(flag, 1)
   |   ^^|^
   |     `--- unknown
---'
help: did you mean `Write`?
",
    );
}

#[test]
fn an_unknown_location_suggests_a_declared_one() {
    let d = dir("location", &[("flg.litmus", &MP.replace("  Write(flag, 1)", "  Write(flg, 1)"))]);
    rejects(
        &d,
        &["litmus", "flg.litmus"],
        "flg.litmus:9:9: undeclared location `flg` (declare it with `loc flg @ N`)
   ,-[ flg.litmus:9:9 ]
   |
 9 |   Write(flg, 1)
   |         ^|^
   |          `--- unknown
---'
help: did you mean `flag`?
",
    );
}

#[test]
fn an_unknown_library_suggests_a_known_one() {
    let d = dir("library", &[("lib.litmus", &MP.replace("libraries rdmatso", "libraries rdmatos"))]);
    rejects(
        &d,
        &["litmus", "lib.litmus"],
        "lib.litmus:2:11: unknown library `rdmatos` (known: rdmatso, rdmatso_nopcie, rdmasc, rdmatso_f1, rdmatso_rmw, rdmatso_rmw_nopcie, rdmatso_rmw_glob, rdmasc_rmw, rdmasc_rmw_glob, rdmawait, sv, bal, \
         bal_all, rbl, rbl_weak, rbl_rfe, msw, corerma, corerma_noir)
   ,-[ lib.litmus:2:11 ]
   |
 2 | libraries rdmatos
   |           ^^^|^^^
   |              `----- unknown
---'
help: did you mean `rdmatso`?
",
    );
}

#[test]
fn an_unknown_thread_or_register_in_a_condition() {
    let d = dir(
        "condition",
        &[
            ("thread.litmus", &MP.replace("expect allowed reader:a", "expect allowed raeder:a")),
            ("reg.litmus", &MP.replace("reader:b = 0", "reader:bb = 0")),
        ],
    );
    rejects(
        &d,
        &["litmus", "thread.litmus"],
        "thread.litmus:13:16: undeclared thread `raeder`
    ,-[ thread.litmus:13:16 ]
    |
 13 | expect allowed raeder:a = 1 /\\ reader:b = 0
    |                ^^^|^^
    |                   `---- unknown
----'
help: did you mean `reader`?
",
    );
    // `bb` is one edit from `b`; `a` would be as close to `b` but is no suggestion for one letter
    rejects(
        &d,
        &["litmus", "reg.litmus"],
        "reg.litmus:13:39: thread `reader` binds no register `bb`
    ,-[ reg.litmus:13:39 ]
    |
 13 | expect allowed reader:a = 1 /\\ reader:bb = 0
    |                                       ^|
    |                                        `-- unknown
----'
help: did you mean `b`?
",
    );
}

#[test]
fn a_misspelt_register_and_a_misspelt_keyword() {
    let d = dir(
        "register",
        &[
            ("reg.litmus", &MP.replace("  Write(data, 1)", "  value = Read(data)\n  Write(data, valeu)")),
            ("kw.litmus", &MP.replace("expect allowed", "expect alowed")),
        ],
    );
    rejects(
        &d,
        &["litmus", "reg.litmus"],
        "reg.litmus:9:15: register `valeu` is not bound earlier in this thread
   ,-[ reg.litmus:9:15 ]
   |
 9 |   Write(data, valeu)
   |               ^^|^^
   |                 `---- unknown
---'
help: did you mean `value`?
",
    );
    rejects(
        &d,
        &["litmus", "kw.litmus"],
        "kw.litmus:13:8: expected `allowed` or `forbidden`, found `alowed`
    ,-[ kw.litmus:13:8 ]
    |
 13 | expect alowed reader:a = 1 /\\ reader:b = 0
    |        ^^^|^^
    |           `---- expected `allowed` or `forbidden`
----'
help: did you mean `allowed`?
",
    );
}

#[test]
fn the_expected_tokens_at_the_end_of_a_line_and_of_the_file() {
    let d = dir(
        "expected",
        &[
            ("eol.litmus", &MP.replace("  Write(data, 1)", "  Write(data, 1")),
            ("eof.litmus", "test E\nlibraries rdmatso\nthread T1 @ 1\nloc x @ 1\nT1:\n  loop {\n    a = Read(x)"),
        ],
    );
    rejects(
        &d,
        &["litmus", "eol.litmus"],
        "eol.litmus:8:16: expected `,` or `)`, found the end of the line
   ,-[ eol.litmus:8:16 ]
   |
 8 |   Write(data, 1
   |                |
   |                `-- expected `,` or `)`
---'
",
    );
    // the end of the file is shown at the end of the last line
    rejects(
        &d,
        &["litmus", "eof.litmus"],
        "eof.litmus:7:16: expected `}`, found the end of the file
   ,-[ eof.litmus:7:16 ]
   |
 7 |     a = Read(x)
   |                |
   |                `-- expected `}`
---'
",
    );
}

#[test]
fn herd_files_suggest_a_supported_instruction() {
    let d = dir("herd", &[("f.litmus", "X86 F\n{ x=0; }\n P0 ;\n MFNCE ;\nexists (x=1)\n")]);
    rejects(
        &d,
        &["litmus", "f.litmus"],
        "f.litmus:4:2: unsupported X86 instruction `MFNCE` (Mowgli reads MOV between a register and a location or an \
         immediate, and MFENCE)
   ,-[ f.litmus:4:2 ]
   |
 4 |  MFNCE ;
   |  ^^|^^
   |    `---- unknown
---'
help: did you mean `MFENCE`?
",
    );
}

const CLIENT: &str = "test C\nlibraries sv\nthread T1 @ 1\nloc x\nT1:\n  a = Read(x)\n";

#[test]
fn implementation_files_suggest_methods_names_and_libraries() {
    let isv = shipped("specs/impls/isv.impl");
    let d = dir(
        "impl",
        &[
            ("client.litmus", CLIENT),
            ("call.impl", &isv.replace("  Wait(d)\n", "  Wiat(d)\n")),
            ("method.impl", &isv.replace("method Read(x) {", "method Raed(x) {")),
            ("family.impl", &isv.replace("Get(dummy[node]", "Get(dumy[node]")),
            ("uses.impl", &isv.replace("uses rdmawait", "uses rdmawiat")),
            ("keyword.impl", &isv.replace("implements sv", "implemnts sv")),
        ],
    );
    let refine = |f: &str, want: &str| rejects(&d, &["refine", f, "--clients", "client.litmus"], want);
    refine(
        "call.impl",
        "call.impl:33:3: unknown method `Wiat`: no library of `uses` (rdmawait) has it
    ,-[ call.impl:33:3 ]
    |
 33 |   Wiat(d)
    |   ^^|^
    |     `--- unknown
----'
help: did you mean `Wait`?
",
    );
    refine(
        "method.impl",
        "method.impl:20:8: `sv` has no method `Raed` (its methods: Write, Read, Bcast, Wait, GF)
    ,-[ method.impl:20:8 ]
    |
 20 | method Raed(x) {
    |        ^^|^
    |          `--- unknown
----'
help: did you mean `Read`?
",
    );
    refine(
        "family.impl",
        "family.impl:39:9: undeclared name `dumy`
    ,-[ family.impl:39:9 ]
    |
 39 |     Get(dumy[node], dummy[n], d0)
    |         ^^|^
    |           `--- unknown
----'
help: did you mean `dummy`?
",
    );
    refine(
        "uses.impl",
        "uses.impl:8:6: unknown library `rdmawiat` (known: rdmatso, rdmatso_nopcie, rdmasc, rdmatso_f1, rdmatso_rmw, rdmatso_rmw_nopcie, rdmatso_rmw_glob, rdmasc_rmw, rdmasc_rmw_glob, rdmawait, sv, bal, \
         bal_all, rbl, rbl_weak, rbl_rfe, msw, corerma, corerma_noir)
   ,-[ uses.impl:8:6 ]
   |
 8 | uses rdmawiat
   |      ^^^^|^^^
   |          `----- unknown
---'
help: did you mean `rdmawait`?
",
    );
    refine(
        "keyword.impl",
        "keyword.impl:7:1: expected `implements`, `uses`, `loc`, `wid` or `method`, found `implemnts`
   ,-[ keyword.impl:7:1 ]
   |
 7 | implemnts sv
   | ^^^^|^^^^
   |     `------ expected `implements`, `uses`, `loc`, `wid` or `method`
---'
help: did you mean `implements`?
",
    );
}

#[test]
fn concretise_lines_suggest_stamps_and_methods() {
    let isv = shipped("specs/impls/isv.impl");
    let line = "concretise GF aGF_n -> last Wait aWT";
    assert!(isv.contains(line), "isv.impl has its concretise line");
    let d = dir(
        "concretise",
        &[
            ("client.litmus", CLIENT),
            ("stamp.impl", &isv.replace(line, "concretise GF aGF_n -> last Wait aWX")),
            ("target.impl", &isv.replace(line, "concretise GF aGF_n -> last Wiat aWT")),
        ],
    );
    rejects(
        &d,
        &["refine", "stamp.impl", "--clients", "client.litmus"],
        "stamp.impl:48:34: unknown stamp `aWX` (not a stamp of the order `to`)
    ,-[ stamp.impl:48:34 ]
    |
 48 | concretise GF aGF_n -> last Wait aWX
    |                                  ^|^
    |                                   `--- unknown
----'
help: did you mean `aWT`?
",
    );
    rejects(
        &d,
        &["refine", "target.impl", "--clients", "client.litmus"],
        "target.impl:48:29: unknown method `Wiat`: no method of the libraries of `uses` (Read, Write, CAS, Mfence, \
         Put, Get, Wait, Rfence)
    ,-[ target.impl:48:29 ]
    |
 48 | concretise GF aGF_n -> last Wiat aWT
    |                             ^^|^
    |                               `--- unknown
----'
help: did you mean `Wait`?
",
    );
}

#[test]
fn stamp_order_files_suggest_stamps() {
    let d = dir(
        "stamps",
        &[
            ("column.to", "table to\ncolumns aCR aCX\nA aCR ✓ ✓\nB aCX ✗ ✓\n"),
            ("row.to", "table to\ncolumns aCR aCW\nA aCR ✓ ✓\nB aCV ✗ ✓\n"),
        ],
    );
    rejects(
        &d,
        &["stamp-order", "--stamp-order", "column.to"],
        "column.to:2:13: unknown stamp `aCX` in table `to`: no library has it (its stamps: aCR, aCW, aCAS, aMF, aWT, \
         aNLR, aNRW, aNRR, aNLW, aRF, aGF, aNAR, aNAW)
   ,-[ column.to:2:13 ]
   |
 2 | columns aCR aCX
   |             ^|^
   |              `--- unknown
---'
help: did you mean `aCR`?
",
    );
    rejects(
        &d,
        &["stamp-order", "--stamp-order", "row.to"],
        "row.to:4:3: expected row `aCW` (rows follow the column order), found `aCV`
   ,-[ row.to:4:3 ]
   |
 4 | B aCV ✗ ✓
   |   ^|^
   |    `--- expected `aCW`
---'
help: did you mean `aCW`?
",
    );
}

#[test]
fn a_library_on_the_command_line_is_shown_in_the_command_line() {
    let d = dir("cli", &[("client.litmus", CLIENT), ("isv.impl", &shipped("specs/impls/isv.impl"))]);
    rejects(
        &d,
        &["refine", "isv.impl", "--clients", "client.litmus", "--spec", "svx"],
        "<command line>:1:55: --spec svx: unknown library `svx` (known: rdmatso, rdmatso_nopcie, rdmasc, rdmatso_f1, \
         rdmatso_rmw, rdmatso_rmw_nopcie, rdmatso_rmw_glob, rdmasc_rmw, rdmasc_rmw_glob, rdmawait, sv, bal, bal_all, rbl, rbl_weak, rbl_rfe, msw, corerma, corerma_noir)
   ,-[ <command line>:1:55 ]
   |
 1 | mowgli refine isv.impl --clients client.litmus --spec svx
   |                                                       ^|^
   |                                                        `--- unknown
---'
help: did you mean `sv`?
",
    );
}

#[test]
fn json_errors_are_structured() {
    let d = dir(
        "json",
        &[
            ("ok.litmus", MP),
            ("bad.litmus", &MP.replace("  Write(flag, 1)", "  Wrte(flag, 1)")),
            ("client.litmus", CLIENT),
        ],
    );
    let (code, out, _) = mowgli(&d, &["litmus", "--json", "ok.litmus", "bad.litmus"]);
    assert_eq!(code, 2, "{out}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let e = &doc["errors"][0];
    assert_eq!(e["file"], "bad.litmus");
    assert_eq!((e["line"].as_u64(), e["column"].as_u64()), (Some(9), Some(3)), "{e}");
    assert!(e["message"].as_str().is_some_and(|m| m.starts_with("unknown method `Wrte`")), "{e}");
    assert_eq!(e["help"], "did you mean `Write`?");
    assert_eq!(doc["summary"]["malformed"], 1);
    // refine --json: a client with an error, with the tokens it expected
    std::fs::write(d.join("bad-client.litmus"), CLIENT.replace("a = Read(x)", "a = Read(x")).expect("write");
    std::fs::write(d.join("isv.impl"), shipped("specs/impls/isv.impl")).expect("write");
    let (code, out, _) = mowgli(&d, &["refine", "isv.impl", "--json", "--clients", "bad-client.litmus"]);
    assert_eq!(code, 2, "{out}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let e = &doc["errors"][0];
    assert_eq!(
        (e["file"].as_str(), e["line"].as_u64(), e["column"].as_u64()),
        (Some("bad-client.litmus"), Some(6), Some(13))
    );
    assert_eq!(e["expected"], serde_json::json!(["`,`", "`)`"]), "{e}");
    assert_eq!(e["help"], serde_json::Value::Null);
    // an implementation file that stops the whole run
    let isv = shipped("specs/impls/isv.impl").replace("uses rdmawait", "uses rdmawiat");
    std::fs::write(d.join("uses.impl"), isv).expect("write");
    let (code, out, _) = mowgli(&d, &["refine", "uses.impl", "--json", "--clients", "client.litmus"]);
    assert_eq!(code, 2, "{out}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let e = &doc["errors"][0];
    assert_eq!((e["file"].as_str(), e["line"].as_u64(), e["column"].as_u64()), (Some("uses.impl"), Some(8), Some(6)));
    assert_eq!(e["help"], "did you mean `rdmawait`?");
}

/// The position of a first line `FILE:LINE:COLUMN: …` of a diagnostic of `file`.
fn headline_position(rendered: &str, file: &str) -> Option<(usize, usize)> {
    let first = rendered.lines().next()?;
    let rest = first.strip_prefix(file)?.strip_prefix(':')?;
    let mut parts = rest.splitn(3, ':');
    let line = parts.next()?.parse().ok()?;
    let col = parts.next()?.parse().ok()?;
    parts.next()?.strip_prefix(' ')?;
    Some((line, col))
}

/// Whether (line, col) is inside `text`: a line of it (line 1 of an empty text),
/// and a column of that line or just after its end.
fn inside(text: &str, (line, col): (usize, usize)) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len().max(1);
    let len = lines.get(line.wrapping_sub(1)).map_or(0, |l| l.chars().count());
    (1..=n).contains(&line) && (1..=len + 1).contains(&col)
}

/// `text` with the edits applied: (where, 0 delete / 1 replace / 2 insert, char).
fn mutate(text: &str, edits: &[(prop::sample::Index, u8, char)]) -> String {
    let mut cs: Vec<char> = text.chars().collect();
    for (ix, op, c) in edits {
        if cs.is_empty() {
            break;
        }
        let i = ix.index(cs.len());
        match op {
            0 => {
                cs.remove(i);
            }
            1 => cs[i] = *c,
            _ => cs.insert(i, *c),
        }
    }
    cs.into_iter().collect()
}

fn edits() -> impl Strategy<Value = Vec<(prop::sample::Index, u8, char)>> {
    prop::collection::vec(
        (
            any::<prop::sample::Index>(),
            0..3u8,
            prop::sample::select(vec![
                '(', ')', '{', '}', '[', ']', ',', '=', '@', ':', '~', '\n', ' ', 'x', 'T', '1', '_', '#', '"', '/',
                '\\', 'é', '\t',
            ]),
        ),
        1..6,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn mutated_litmus_files_give_a_position_inside_the_file(es in edits()) {
        let text = mutate(MP, &es);
        let order = default_order();
        if let Err(e) = mowgli_check::analyses::litmus::check_text("m.litmus", &text, &order, &Catalogue::builtins()) {
            let shown = e.to_string();
            let pos = headline_position(&shown, "m.litmus");
            prop_assert!(pos.is_some_and(|p| inside(&text, p)), "{}\n--- in ---\n{}", shown, text);
            prop_assert!(shown.contains(" | "), "no source line: {}", shown);
        }
    }

    #[test]
    fn mutated_implementation_files_give_a_position_inside_the_file(es in edits()) {
        let text = mutate(&shipped("specs/impls/isv.impl"), &es);
        let order = default_order();
        if let Err(e) = mowgli_check::lang::implementation::Implementation::parse("m.impl", &text, &order, &Catalogue::builtins()) {
            let shown = e.to_string();
            let pos = headline_position(&shown, "m.impl");
            prop_assert!(pos.is_some_and(|p| inside(&text, p)), "{}\n--- in ---\n{}", shown, text);
            prop_assert!(shown.contains(" | "), "no source line: {}", shown);
        }
    }
}
