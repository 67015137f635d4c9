//! The HTML reports (`--html DIR`) in a real browser: headless Chromium loads
//! each page from disk, and its DOM must hold the verdict, every test, client
//! or obligation by name, and one `<svg>` per graph. Ignored by default (it
//! needs `chromium`; `.ci/run` installs it and runs this test):
//! `cargo test --release --test html_browser -- --ignored`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mowgli-html-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `mowgli ARGS` in the repository; its exit code.
fn mowgli(args: &[&str]) -> i32 {
    let out = Command::new(env!("CARGO_BIN_EXE_mowgli")).current_dir(root()).args(args).output().unwrap();
    out.status.code().unwrap_or(-1)
}

/// The page's DOM as Chromium builds it.
fn dump_dom(page: &Path) -> String {
    let browser = std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".into());
    // one profile per page: the tests run in parallel, and a profile is locked
    let tag = page.parent().and_then(|d| d.file_name()).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let profile = scratch(&format!("profile-{tag}"));
    let out = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {browser}: {e} (install chromium, or set CHROMIUM)"));
    assert!(out.status.success(), "{browser} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Loads `dir/index.html`: the DOM has the verdict word, every name, and as
/// many `<svg>` elements as the page has figures (at least `min_graphs`).
fn check_page(dir: &Path, verdict: &str, names: &[&str], min_graphs: usize) {
    let page = dir.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let figures = html.matches("<figure>").count();
    let dom = dump_dom(&page);
    assert!(dom.contains("id=\"verdict\"") && dom.contains(&format!("<b>{verdict}</b>")), "verdict {verdict}");
    for n in names {
        assert!(dom.contains(n), "{n} missing from the page");
    }
    let svgs = dom.matches("<svg").count();
    assert_eq!(svgs, figures, "one <svg> per graph");
    assert!(svgs >= min_graphs, "{svgs} graphs, expected at least {min_graphs}");
    // every graph rendered with its nodes and edges
    assert!(dom.matches("class=\"node\"").count() >= svgs && dom.matches("class=\"edge\"").count() >= svgs);
}

#[test]
#[ignore = "needs chromium (.ci/run installs it)"]
fn litmus_report_loads_with_every_test_and_graph() {
    let dir = scratch("litmus");
    let tests = scratch("tests");
    let sb = std::fs::read_to_string(root().join("specs/litmus/rdma/RDMA-Fig3a-SB3bis-put-read.litmus")).unwrap();
    let failing = tests.join("SB-forbidden.litmus");
    std::fs::write(
        &failing,
        sb.replace("test RDMA-Fig3a-SB3bis-put-read", "test SB-forbidden")
            .replace("expect allowed", "expect forbidden"),
    )
    .unwrap();
    let failing = failing.display().to_string();
    let out = dir.display().to_string();
    let code = mowgli(&[
        "litmus",
        &failing,
        "specs/litmus/rdma/RDMA-Fig3a-SB3bis-put-read.litmus",
        "specs/litmus/rdma/RDMA-Fig11-MP1-puts-to-reader.litmus",
        "specs/litmus/loco",
        "--show",
        "allowed",
        "--html",
        &out,
        "-q",
    ]);
    assert_eq!(code, 1, "the forbidden SB fails");
    // the failing counterexample, the allowed SB outcome, and every allowed loco expectation
    let mut names = vec!["SB-forbidden", "RDMA-Fig3a-SB3bis-put-read", "RDMA-Fig11-MP1-puts-to-reader"];
    let loco: Vec<String> = std::fs::read_dir(root().join("specs/litmus/loco"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let t = std::fs::read_to_string(e.path()).ok()?;
            t.lines().find_map(|l| l.strip_prefix("test ").map(|n| n.trim().to_string()))
        })
        .collect();
    names.extend(loco.iter().map(String::as_str));
    check_page(&dir, "counterexample", &names, 2);
}

#[test]
#[ignore = "needs chromium (.ci/run installs it)"]
fn refine_and_obligations_reports_load() {
    let dir = scratch("refine");
    let out = dir.display().to_string();
    let code = mowgli(&["refine", "specs/impls/irbl.impl", "--clients", "specs/clients/rbl-self-read", "--html", &out]);
    assert_eq!(code, 1);
    check_page(&dir, "counterexample", &["rbl-self-sb-rdmawait", "rbl-self-sb-sv"], 2);

    let dir = scratch("obligations");
    let out = dir.display().to_string();
    let code =
        mowgli(&["obligations", "specs/impls/irbl.impl", "--first-fail", "--observe-budget", "0", "--html", &out]);
    assert_eq!(code, 1);
    check_page(&dir, "counterexample", &["method Submit", "method Receive", "O2 refuted for"], 1);
}

#[test]
#[ignore = "needs chromium (.ci/run installs it)"]
fn the_project_report_loads_with_every_entry_and_its_pictures() {
    let dir = scratch("check");
    let out = dir.display().to_string();
    // two mutants refuted as expected (a given client and an obligation), a test suite
    let entries = ["refine/irbl_nowait", "obligations/ilock_test_then_set", "litmus/flag-clients"];
    let mut args = vec!["check", "--html", &out];
    for e in &entries {
        args.extend(["--only", e]);
    }
    assert_eq!(mowgli(&args), 0, "every entry reaches its expected verdict");
    check_page(&dir, "verified", &entries, 2);
}
