//! The syntactic conditions read off their definitions pair by pair (quadratic):
//! the reference [`conditions`] is checked against in `tests/robust.rs`.

// relations over event indices: index loops read best here
#![allow(clippy::needless_range_loop)]

use mowgli_core::{StampOrder, StampTable};
use mowgli_libs::catalogue::Catalogue;
use mowgli_libs::rdma::Kinds;

use crate::lang::{lower, syntax, InputError};

use super::*;

/// The reference check of LDRF, fenced and tree-fenced (with their TSO versions for
/// `Model::Tso`) on one pre-execution, read off the definitions pair by pair with gb
/// as a transitively closed relation: quadratic (cubic in the closure), kept to check
/// [`conditions`] against. `oppo` is the model's (gb or gb_tso for fenced); LDRF always
/// uses gb with RDMA^sc's `oppo_sc` (App. B.2: "our notion of local data-race freedom
/// (Def. 7) remains unchanged under TSO and does not use the new definition of
/// gb_tso").
pub fn conditions_reference(
    pe: &PreExec,
    model: Model,
    oppo_sc: &StampTable,
    oppo: &StampTable,
    places: &Places,
) -> Syntactic {
    let public = pe.public();
    let is_pub = |e: &PEv| e.loc.is_some_and(|l| public[l]);
    let mut out = Syntactic { ldrf: true, fenced: true, tree_fenced: true, ..Default::default() };
    let tname = |t: usize| places.thread_names.get(t).cloned().unwrap_or_else(|| format!("T{}", t + 1));
    for (t, evs) in pe.threads.iter().enumerate() {
        let gb = pe.gb(t, oppo);
        let gb_sc = if model == Model::Sc { gb.clone() } else { pe.gb(t, oppo_sc) };
        // ⇝* over E^pub \ t
        let qps = pe.qps(&|e: &PEv| e.thread != t && is_pub(e));
        let comp = pe.components(&qps);
        let connected = |n1: u32, n2: u32| n1 == n2 || (comp.contains_key(&n1) && comp.get(&n1) == comp.get(&n2));
        for i in 0..evs.len() {
            for j in i + 1..evs.len() {
                let (a, b) = (&evs[i], &evs[j]);
                // Def. 7: locally conflicting
                if !gb_sc.contains(i, j) && a.loc.is_some() && a.loc == b.loc && (a.ty.is_write() || b.ty.is_write()) {
                    out.ldrf = false;
                    out.push(v_ldrf(model, places, tname(t), a, b));
                    continue;
                }
                // Def. 8 / 13
                if !gb.contains(i, j) && is_pub(a) && is_pub(b) {
                    let (na, nb) = (a.loc.and_then(|l| pe.loc_nodes[l]), b.loc.and_then(|l| pe.loc_nodes[l]));
                    if let (Some(na), Some(nb)) = (na, nb) {
                        if connected(na, nb) {
                            out.fenced = false;
                            out.push(v_fenced(model, places, tname(t), a, b, (na, nb)));
                        }
                    }
                }
            }
        }
        // Def. 9 (1): local locations of RDMA operations are private
        for e in evs {
            if matches!(e.ty, Ty::NLR | Ty::NLW) && is_pub(e) {
                out.tree_fenced = false;
                out.push(v_private(places, tname(t), e));
            }
        }
        // Def. 9 (2): each get followed by an rfence (or polled) before the next remote
        // operation on its queue pair
        for i in 0..evs.len() {
            if evs[i].ty != Ty::NRR {
                continue;
            }
            for j in i + 1..evs.len() {
                let (a, b) = (&evs[i], &evs[j]);
                if !matches!(b.ty, Ty::NRR | Ty::NRW) || !PreExec::sqp(a, b) {
                    continue;
                }
                let fenced = (i + 1..j).any(|f| evs[f].ty == Ty::NF && PreExec::sqp(a, &evs[f]));
                let polled = i + 1 < evs.len() && evs[i + 1].ty == Ty::NLW && pe.pf[t][i + 1].is_some_and(|p| p < j);
                if !fenced && !polled {
                    out.tree_fenced = false;
                    out.push(v_get_fence(places, tname(t), a, b));
                }
                break;
            }
        }
        // Def. 14 (2): a fence between a public CPU write and a later public CPU read
        if model == Model::Tso {
            for i in 0..evs.len() {
                for j in i + 1..evs.len() {
                    let (a, b) = (&evs[i], &evs[j]);
                    if a.ty == Ty::LW && b.ty == Ty::LR && is_pub(a) && is_pub(b) {
                        let f = (i + 1..j).any(|f| matches!(evs[f].ty, Ty::F | Ty::Cas));
                        if !f {
                            out.tree_fenced = false;
                            out.push(v_mfence(places, tname(t), a, b));
                        }
                    }
                }
            }
        }
    }
    network(pe, &tname, &mut out);
    out.violations.sort();
    out.violations.dedup();
    out
}

/// Checks [`PreExec::gb_last`] against [`PreExec::gb`] (both tables of `model`, and
/// RDMA^sc's) and [`conditions`] against [`conditions_reference`] on every
/// pre-execution of the test; returns how many pre-executions were compared and the
/// differences found (the first few).
pub fn compare_with_reference(
    text: &str,
    order: &StampOrder,
    cat: &Catalogue,
    model: Model,
) -> Result<(usize, Vec<String>), InputError> {
    let file = "<text>";
    let ast0 = syntax::parse(text).map_err(|e| e.in_file(file, text))?;
    let s = Subject::new(file, text, order, cat);
    let (model, ast) = on_model(&s, ast0, Some(model))?;
    let low = s.lower(&ast).map_err(|e| e.in_file(file, text))?;
    let to = order.table("to").ok_or_else(|| input_error(file, 1, 1, "no table `to`".into()))?;
    let (_, oppo) =
        model.tables(order).ok_or_else(|| input_error(file, 1, 1, "the model's tables are missing".into()))?;
    let (_, oppo_sc) = Model::Sc.tables(order).ok_or_else(|| input_error(file, 1, 1, "no rdmasc tables".into()))?;
    let k = Kinds::of(to).map_err(|e| input_error(file, 1, 1, e.to_string()))?;
    let prob = lower::problem(&low, to);
    let (lines, places) = lines_and_places(&ast, &low);
    let (mut compared, mut diffs) = (0, Vec::new());
    for_each_pre_execution(&prob, &k, &lines, &mut |pe| {
        compared += 1;
        for t in 0..pe.threads.len() {
            for table in [oppo, oppo_sc] {
                let (fast, slow) = (pe.gb_last(t, table), pe.gb(t, table));
                let n = pe.threads[t].len();
                for i in 0..n {
                    for j in 0..n {
                        if fast.contains(i, j) != slow.contains(i, j) && diffs.len() < 10 {
                            diffs.push(format!(
                                "thread {t}, events {i} → {j}: gb_last says {}, gb says {}",
                                fast.contains(i, j),
                                slow.contains(i, j)
                            ));
                        }
                    }
                }
            }
        }
        let (fast, slow) =
            (conditions(pe, model, oppo_sc, oppo, &places), conditions_reference(pe, model, oppo_sc, oppo, &places));
        let verdicts = |s: &Syntactic| (s.ldrf, s.fenced, s.tree_fenced, s.violations_total);
        let under_cap = slow.violations_total <= MAX_VIOLATIONS;
        if (verdicts(&fast) != verdicts(&slow) || (under_cap && fast.violations != slow.violations)) && diffs.len() < 10
        {
            diffs.push(format!(
                "conditions {:?} ≠ reference {:?}\n  {:?}\n  {:?}",
                verdicts(&fast),
                verdicts(&slow),
                fast.violations,
                slow.violations
            ));
        }
    })
    .map_err(|e| engine_error(file, e))?;
    Ok((compared, diffs))
}
