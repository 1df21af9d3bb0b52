//! The executor's samplexes against samplomatic: the fixtures in `tests/data/executor` (made by
//! `make_fixtures.py` there) hold samplex items as the client-side Estimator sends them and the
//! template parameter values samplomatic computes for them.

use std::f64::consts::PI;
use std::path::PathBuf;

use base64::Engine;
use serde_json::{Value, json};

use super::*;

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/executor").join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("fixture JSON")
}

fn item(fixture: &Value) -> Value {
    json!({
        "item_type": "samplex",
        "samplex": fixture["samplex"],
        "samplex_arguments": fixture["samplex_arguments"],
        "shape": fixture["shape"],
    })
}

/// The distance between two angles, around the circle.
fn angle_distance(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(2.0 * PI);
    d.min(2.0 * PI - d)
}

#[test]
fn samplexes_give_the_template_values_samplomatic_gives() {
    for name in ["bell", "ghz_tail", "sweep_fez"] {
        let fixture = fixture(name);
        let parameters = fixture["template_parameters"].as_u64().expect("count") as usize;
        let (bindings, _) = samplex_bindings(&item(&fixture), parameters).unwrap_or_else(|e| panic!("{name}: {e}"));
        let shape: Vec<usize> =
            fixture["shape"].as_array().expect("shape").iter().map(|d| d.as_u64().expect("d") as usize).collect();
        assert_eq!(bindings.shape, shape, "{name}");
        let expected: Vec<f64> =
            fixture["expected"].as_array().expect("values").iter().map(|v| v.as_f64().expect("f")).collect();
        let ours: Vec<f64> = bindings.rows.concat();
        assert_eq!(ours.len(), expected.len(), "{name}");
        for (i, (a, b)) in ours.iter().zip(&expected).enumerate() {
            assert!(angle_distance(*a, *b) < 1e-5, "{name}: value {i} is {a}, samplomatic's {b}");
        }
    }
}

#[test]
fn broken_samplex_items_are_refused_with_the_reason() {
    let good = fixture("ghz_tail");
    let parameters = good["template_parameters"].as_u64().expect("count") as usize;
    let mut missing = item(&good);
    missing["samplex_arguments"] = json!({});
    assert!(samplex_bindings(&missing, parameters).expect_err("missing").contains("is missing"));
    let mut narrow = item(&good);
    narrow["shape"] = json!([1, 3]);
    assert!(samplex_bindings(&narrow, parameters).expect_err("shape").contains("does not extend"));
    assert!(samplex_bindings(&item(&good), parameters + 1).expect_err("count").contains("template circuit"));
    let mut noisy = item(&good);
    let mut graph: Value =
        serde_json::from_str(good["samplex"]["samplex_json"].as_str().expect("text")).expect("graph");
    graph["nodes"][1]["data"]["id"] = json!("N5");
    noisy["samplex"]["samplex_json"] = json!(graph.to_string());
    let error = samplex_bindings(&noisy, parameters).expect_err("noise injection");
    assert!(error.contains("N5") && error.contains("PEC"), "{error}");
    let mut garbage = item(&good);
    garbage["samplex"]["samplex_json"] = json!("{not json");
    assert!(samplex_bindings(&garbage, parameters).expect_err("garbage").contains("not JSON"));
}

#[test]
fn circuit_items_bind_their_arguments_by_rows() {
    let values: Vec<u8> = [0.1f64, 0.2, 0.3, 0.4, 0.5, 0.6].iter().flat_map(|x| x.to_le_bytes()).collect();
    let arguments = json!({ "data": runtime::encode_bytes(&values), "shape": [3, 2], "dtype": "f64" });
    let bindings = circuit_bindings(&json!({ "circuit_arguments": arguments, "shape": [] }), 2).expect("bindings");
    assert_eq!(bindings.shape, vec![3]);
    assert_eq!(bindings.rows, vec![vec![0.1, 0.2], vec![0.3, 0.4], vec![0.5, 0.6]]);
    let error = circuit_bindings(&json!({ "circuit_arguments": arguments }), 3).expect_err("width");
    assert!(error.contains("2 values per binding for a circuit of 3"), "{error}");
    let none = json!({ "data": runtime::encode_bytes(&[]), "shape": [0], "dtype": "f64" });
    let single = circuit_bindings(&json!({ "circuit_arguments": none }), 0).expect("no parameters");
    assert_eq!((single.shape, single.rows), (Vec::new(), vec![Vec::new()]));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// A samplex damaged anywhere (one character of its graph changed) is read or refused,
    /// never a panic.
    #[test]
    fn damaged_samplexes_never_panic(position in 0usize..100_000, replacement in proptest::char::any()) {
        let good = fixture("ghz_tail");
        let parameters = good["template_parameters"].as_u64().expect("count") as usize;
        let text = good["samplex"]["samplex_json"].as_str().expect("text");
        let mut chars: Vec<char> = text.chars().collect();
        let at = position % chars.len();
        chars[at] = replacement;
        let mut damaged = item(&good);
        damaged["samplex"]["samplex_json"] = json!(chars.into_iter().collect::<String>());
        let _ = samplex_bindings(&damaged, parameters);
    }

    /// Tensors of any declared shape, type and data are read or refused, never a panic.
    #[test]
    fn arbitrary_tensors_never_panic(
        shape in proptest::collection::vec(0usize..70_000, 0..4),
        dtype in proptest::sample::select(vec!["f64", "f32", "i8", "u8", "u32", "c128", "bool", "x"]),
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
        samplex in proptest::prelude::any::<bool>(),
    ) {
        let data = if samplex { base64::engine::general_purpose::STANDARD.encode(&bytes) } else { runtime::encode_bytes(&bytes) };
        let value = json!({ "data": data, "shape": shape, "dtype": dtype });
        let _ = tensor::reals(&value, samplex);
        let _ = tensor::integers(&value, samplex);
        let _ = tensor::complexes(&value, samplex);
        let _ = circuit_bindings(&json!({ "circuit_arguments": value }), 2);
    }
}
