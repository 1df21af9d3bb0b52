//! Tests of reading pubs: broadcasting, Pauli labels, options, and random requests.

use super::*;

#[test]
fn shapes_broadcast_as_numpy_does() {
    assert_eq!(broadcast(&[2, 1], &[3]), Some(vec![2, 3]));
    assert_eq!(broadcast(&[], &[4]), Some(vec![4]));
    assert_eq!(broadcast(&[2], &[3]), None);
    // Element (1, 2) of a (2, 3) result reads element 1 of a (2, 1) array and 2 of a (3,).
    assert_eq!(broadcast_index(&[2, 1], &[2, 3], 5), 1);
    assert_eq!(broadcast_index(&[3], &[2, 3], 5), 2);
    assert_eq!(broadcast_index(&[], &[2, 3], 5), 0);
}

#[test]
fn pauli_labels_read_with_qubit_zero_last() {
    assert_eq!(pauli("XIZ", 156), Ok(vec![(0, 'Z'), (2, 'X')]));
    assert!(pauli("XQ", 156).expect_err("not a Pauli").contains("`Q`"));
    assert!(pauli("ZZZ", 2).expect_err("too wide").contains("spans 3 qubits"));
    let read = observables(&serde_json::json!([{ "ZZ": 1.0, "XI": 0.5 }, "IY"]), 156).expect("reads");
    assert_eq!(read.shape, [2]);
    assert_eq!(read.items[1], vec![(vec![(0, 'Y')], 1.0)]);
}

/// Requests of random JSON, and damaged versions of valid ones, are refused with a message
/// or read; nothing panics.
mod fuzz {
    use proptest::prelude::*;
    use qchess_route::target::presets::FEZ_CONF;
    use serde_json::{Value, json};

    use super::super::prepare;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|i| json!(i)),
            (-1e6f64..1e6).prop_map(|x| json!(x)),
            "[ -~]{0,12}".prop_map(Value::String),
            Just(json!(
                "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[156] q;\nbit[1] c;\nx q[87];\nc[0] = measure q[87];\n"
            )),
            Just(
                json!({ "__type__": "ndarray", "__value__": "eJyb7BfqGxDJyFDGUK2eklqcXKRupaBuk2ahrqOgnpZfVFKUmBefX5SSChJ3S8wpTgWKF2ckFqQC+RoGOpo6CrUKFAAuAFOzG1s=" })
            ),
            "[A-Za-z0-9+/=]{0,40}".prop_map(|v| json!({ "__type__": "QuantumCircuit", "__value__": v })),
            Just(json!("ZZ")),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::hash_map("[a-z_]{1,8}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn random_requests_never_panic(program in prop_oneof![Just("sampler"), Just("estimator"), Just("other")], pubs in json_value(), options in json_value()) {
            let target = qchess_route::Target::from_json(FEZ_CONF, "ibm_fez").expect("target");
            let request = json!({ "program_id": program, "params": { "pubs": pubs, "options": options } });
            if let Err(message) = prepare(&request, &target) {
                prop_assert!(!message.is_empty());
            }
        }
    }
}

#[test]
fn options_set_but_not_applied_are_listed() {
    let mut found = Vec::new();
    let options = serde_json::json!({ "default_shots": 10, "dynamical_decoupling": { "enable": true, "sequence_type": "XX" }, "twirling": { "enable_gates": null } });
    leaves(&options, "", &mut |p| found.push(p));
    assert_eq!(found, ["default_shots", "dynamical_decoupling.enable", "dynamical_decoupling.sequence_type"]);
}
