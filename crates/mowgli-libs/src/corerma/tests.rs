use super::model::{Model, Rule, Rules};
use super::*;

#[test]
fn rule_names_round_trip() {
    for r in Rule::ALL {
        assert_eq!(Rule::parse(r.name()), Some(r));
        assert_eq!(Rule::parse(&r.name().to_ascii_lowercase().replace('-', "")), Some(r));
    }
    assert_eq!(CoreRma::parse_name("corerma"), Some(Rules::none()));
    assert_eq!(CoreRma::parse_name("corerma_noir"), Some(Rules::of(&[Rule::IR])));
    assert_eq!(CoreRma::parse_name("corerma_nor1_nocasf"), Some(Rules::of(&[Rule::R1, Rule::CasF])));
    assert_eq!(CoreRma::parse_name("corerma_nox"), None);
    assert_eq!(CoreRma::parse_name("coreRMA"), None);
}

/// Fig. 3a as actions, by hand: X = get(Y); X = 1; a = X on process 0 (X on it, Y on
/// process 1), every access non-atomic. "a can be 0, 1, or undefined" (§2.3 a).
#[test]
fn fig3a_by_brute_force() {
    let home = |l: usize| if l == 0 { 1 } else { 2 };
    let n = |k| vec![false; k];
    let mut acts = actions_of(Stmt::Get, &n(2), &[Value::Loc(0), Value::Loc(1)], 0, 1, 0, 0, &home);
    acts.extend(actions_of(Stmt::Write, &n(1), &[Value::Loc(0), Value::Int(1)], 0, 1, 1, 2, &home));
    acts.extend(actions_of(Stmt::Read, &n(1), &[Value::Loc(0)], 0, 1, 2, 3, &home));
    acts.push(init_action(0, 1, Value::Int(0)));
    acts.push(init_action(1, 2, Value::Int(0)));
    let g = Graph::new(acts, 2);
    let a: std::collections::BTreeSet<Value> =
        Model::stock().executions(&g).into_iter().map(|e| e.rval[3].clone()).collect();
    assert_eq!(a, [Value::Int(0), Value::Int(1), Value::Top].into_iter().collect());
    // without rule C the race gives no undefined value
    let a: std::collections::BTreeSet<Value> =
        Model::without(Rules::of(&[Rule::C])).executions(&g).into_iter().map(|e| e.rval[3].clone()).collect();
    assert_eq!(a, [Value::Int(0), Value::Int(1)].into_iter().collect());
}
