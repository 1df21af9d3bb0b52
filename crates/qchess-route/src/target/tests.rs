use super::*;

#[test]
fn heron_and_eagle_presets_are_the_published_devices() {
    let heron = Target::resolve("ibm-heron").expect("preset");
    assert_eq!((heron.name.as_str(), heron.num_qubits, heron.basis), ("ibm_fez", 156, Basis::Cz));
    assert_eq!(heron.coupling.len(), 352);
    assert!(heron.qubit_error.as_ref().is_some_and(|e| e.len() == 156 && e.iter().all(|&x| (0.0..1.0).contains(&x))));
    assert!((heron.pair_error_of(72, 73).expect("calibrated") - 0.027903006224195892).abs() < 1e-15);

    let eagle = Target::resolve("ibm-eagle").expect("preset");
    assert_eq!((eagle.name.as_str(), eagle.num_qubits, eagle.basis), ("ibm_brisbane", 127, Basis::Ecr));
    assert_eq!(eagle.coupling.len(), 144);
    // ECR is directed: brisbane lists [1, 0] but not [0, 1].
    assert!(eagle.allows(1, 0) && !eagle.allows(0, 1) && eagle.is_coupled(0, 1));
    for target in [&heron, &eagle] {
        let far = (0..target.num_qubits).map(|q| target.distance(0, q)).max().expect("qubits");
        assert!(far < u16::MAX, "{} is connected", target.name);
    }
}

#[test]
fn small_presets_have_their_shapes() {
    let line = Target::resolve("line:5").expect("preset");
    assert_eq!((line.num_qubits, line.basis, line.distance(0, 4)), (5, Basis::Cz, 4));
    let grid = Target::resolve("grid:3x4").expect("preset");
    assert_eq!((grid.num_qubits, grid.distance(0, 11), grid.neighbours(5)), (12, 5, &[1, 4, 6, 9][..]));
    let all = Target::resolve("all:6").expect("preset");
    assert_eq!((all.basis, all.distance(0, 5)), (Basis::IonqNative, 1));
    let sycamore = Target::resolve("sycamore").expect("preset");
    assert_eq!((sycamore.num_qubits, sycamore.basis), (54, Basis::SqrtIswap));
    assert_eq!(sycamore.coupling.len(), 2 * 88);
    assert!((0..54).all(|q| sycamore.neighbours(q).len() <= 4));
    let ecr_line = Target::resolve("line:3@ecr").expect("preset");
    assert!(ecr_line.allows(0, 1) && ecr_line.allows(1, 0) && ecr_line.basis == Basis::Ecr);
}

#[test]
fn bad_specs_name_what_is_wrong() {
    for spec in ["line:0", "grid:3", "grid:0x2", "nowhere", "line:x"] {
        let error = Target::resolve(spec).unwrap_err();
        assert_eq!(error, TargetError::UnknownPreset(spec.into()), "{spec}");
        assert!(error.to_string().contains(spec));
    }
    assert_eq!(Target::resolve("line:3@cx").unwrap_err(), TargetError::UnknownBasis("cx".into()));
}

#[test]
fn our_format_reads_and_checks_couplings() {
    let text = r#"{"name": "tee", "qubits": 4, "basis": "ecr", "coupling": [[0, 1], [1, 2], [1, 3]], "directed": true,
                   "qubit_errors": [0.01, 0.02, 0.03, 0.04], "pair_errors": [[0, 1, 0.005]]}"#;
    let tee = Target::from_json(text, "tee.json").expect("valid");
    assert!(tee.allows(0, 1) && !tee.allows(1, 0) && tee.distance(0, 3) == 2);
    assert_eq!(tee.pair_error_of(1, 0), Some(0.005));
    let bad = r#"{"name": "x", "qubits": 2, "basis": "cz", "coupling": [[0, 2]]}"#;
    let error = Target::from_json(bad, "x.json").unwrap_err();
    assert_eq!(error.to_string(), "x.json: coupling [0, 2] is not a pair of distinct qubits below 2");
    let typo = r#"{"name": "x", "qubits": 2, "basis": "cz", "couplings": []}"#;
    assert!(
        Target::from_json(typo, "x.json").unwrap_err().to_string().starts_with("x.json: unknown field `couplings`")
    );
}

#[test]
fn ibm_configuration_needs_a_two_qubit_gate_and_matching_properties() {
    let conf = r#"{"backend_name": "toy", "n_qubits": 2, "basis_gates": ["rz", "sx"], "coupling_map": [[0, 1]]}"#;
    assert!(matches!(Target::from_json(conf, "conf_toy.json"), Err(TargetError::NoTwoQubitGate { .. })));
    let conf =
        r#"{"backend_name": "toy", "n_qubits": 2, "basis_gates": ["cz", "rz", "sx", "x"], "coupling_map": [[0, 1]]}"#;
    let toy = Target::from_json(conf, "conf_toy.json").expect("valid");
    let props = r#"{"backend_name": "other", "qubits": [], "gates": []}"#;
    assert_eq!(
        ibm::with_properties(toy, props, "props_toy.json").unwrap_err(),
        TargetError::PropertiesMismatch { configuration: "toy".into(), properties: "other".into() }
    );
}

#[test]
fn a_configuration_file_picks_up_its_properties_next_to_it() {
    let dir = std::env::temp_dir().join(format!("qchess-route-target-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("conf_brisbane.json"), include_str!("../../data/conf_brisbane.json")).expect("write");
    std::fs::write(dir.join("props_brisbane.json"), include_str!("../../data/props_brisbane.json")).expect("write");
    let target = Target::resolve(dir.join("conf_brisbane.json").to_str().expect("utf-8")).expect("valid");
    assert_eq!(target, Target::resolve("ibm-eagle").expect("preset"));
    std::fs::remove_dir_all(&dir).expect("cleanup");
}
