//! Bell correlations and entanglement on real games, against hand-derived values.

mod common;

use common::{EXACT, play_all, sq};
use qchess_engine::Game;

fn assert_values(actual: &[f64], expected: &[f64]) {
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() < EXACT, "{actual:?} != {expected:?}");
    }
}

#[test]
fn a_knight_split_is_maximally_entangled() {
    // b1^a3c3: sqrt-iSWAP(b1,a3) then iSWAP(b1,c3) leave (i/sqrt2)(|10> + |01>) on (a3, c3):
    // Psi+ up to a phase, so O1 = 1, O2 = 0, O3 = O4 = |<Psi+-i|Psi+>|^2 = 1/2, the Phis 0.
    let mut game = Game::standard();
    play_all(&mut game, "b1^a3c3");
    let bell = game.bell_correlations(sq("a3"), sq("c3")).expect("exact");
    assert_values(&bell.values, &[1.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0]);
    let entanglement = game.entanglement(sq("a3")).expect("exact");
    for square in qchess_core::Square::ALL {
        let expected = if square == sq("c3") { 1.0 } else { 0.0 };
        assert!((entanglement[usize::from(square)] - expected).abs() < EXACT, "{square}");
    }
    assert_eq!(game.state_size(), 2);
    // A certain square is in a product state: (a3, e2) is |x>|1>.
    let bell = game.bell_correlations(sq("a3"), sq("e2")).expect("exact");
    assert_values(&bell.values, &[0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25]);
}

#[test]
fn a_three_way_split_is_partly_entangled() {
    // b1^a3c3 then c3^b5d5 leave (i/sqrt2)|a3> - (1/2)|b5> - (1/2)|d5>. On (a3, b5):
    // rho = 1/4 |00><00| + |psi><psi|, psi = (i/sqrt2)|10> - (1/2)|01>, so rho_11 = 1/4,
    // rho_22 = 1/2, rho_12 = i/(2 sqrt2). Then O1 = O2 = 3/8, O3 = 3/8 - sqrt2/4,
    // O4 = 3/8 + sqrt2/4, each Phi 1/8. The partial transpose has eigenvalues 1/2, 1/4, 1/2
    // and -1/4 (from [[1/4, c], [c*, 0]] with |c|^2 = 1/8): trace norm 3/2.
    let mut game = Game::standard();
    play_all(&mut game, "b1^a3c3 e7e6 c3^b5d5");
    let r = std::f64::consts::SQRT_2 / 4.0;
    let bell = game.bell_correlations(sq("a3"), sq("b5")).expect("exact");
    assert_values(&bell.values, &[0.375, 0.375, 0.375 - r, 0.375 + r, 0.125, 0.125, 0.125, 0.125]);
    let entanglement = game.entanglement(sq("a3")).expect("exact");
    assert!((entanglement[usize::from(sq("b5"))] - 1.5f64.log2()).abs() < EXACT);
    assert!((entanglement[usize::from(sq("d5"))] - 1.5f64.log2()).abs() < EXACT);
    assert_eq!(entanglement[usize::from(sq("a3"))], 0.0);
}

#[test]
fn a_measurement_leaves_product_states() {
    let mut game = Game::standard();
    play_all(&mut game, "g1^f3h3 a7a6 f2wf3.m1");
    let entanglement = game.entanglement(sq("h3")).expect("exact");
    assert!(entanglement.iter().all(|&v| v.abs() < EXACT), "{entanglement:?}");
    assert_eq!(game.distribution().expect("exact").len(), 1);
}
