//! The first pass on the device: broken elements out, and the one connected part of the working
//! device the circuit will live in.
//!
//! Broken qubits and couplers (see [`crate::target::calibration`]) are removed from a copy of
//! the target. When what remains falls apart into several connected parts, the circuit is placed
//! inside the largest one that holds all its qubits (every other qubit is excluded); when none
//! does, the error gives the sizes.

use std::collections::VecDeque;

use crate::error::RouteError;
use crate::target::Target;

/// The working part of `target` for a circuit of `needed` qubits: broken qubits and couplers
/// removed, and only the largest connected part of the rest kept.
pub fn usable_part(target: &Target, needed: u32) -> Result<Target, RouteError> {
    let broken: Vec<bool> = (0..target.num_qubits).map(|q| target.is_qubit_broken(q)).collect();
    let working = target.restricted(|a, b| !target.is_pair_broken(a, b), |q| broken[q as usize]);
    let parts = components(&working);
    let largest = parts.first().map_or(0, Vec::len) as u32;
    if largest < needed.max(1) {
        return Err(RouteError::NoPartFits {
            target: target.name.clone(),
            needed,
            largest,
            parts: parts.len(),
            broken_qubits: broken.iter().filter(|&&b| b).count(),
            broken_couplers: target.broken_couplers().len(),
        });
    }
    let mut inside = vec![false; target.num_qubits as usize];
    parts[0].iter().for_each(|&q| inside[q as usize] = true);
    if parts.len() == 1 {
        return Ok(working);
    }
    Ok(working.restricted(|_, _| true, |q| !inside[q as usize]))
}

/// The connected parts of the qubits `target` does not exclude, largest first (ties: the part
/// with the smaller first qubit), each in increasing order.
pub fn components(target: &Target) -> Vec<Vec<u32>> {
    let n = target.num_qubits as usize;
    let mut seen = vec![false; n];
    let mut parts = Vec::new();
    for start in 0..target.num_qubits {
        if seen[start as usize] || target.is_excluded(start) {
            continue;
        }
        seen[start as usize] = true;
        let mut part = vec![start];
        let mut queue = VecDeque::from([start]);
        while let Some(q) = queue.pop_front() {
            for &next in target.neighbours(q) {
                if !seen[next as usize] && !target.is_excluded(next) {
                    seen[next as usize] = true;
                    part.push(next);
                    queue.push_back(next);
                }
            }
        }
        part.sort_unstable();
        parts.push(part);
    }
    parts.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torino_loses_its_broken_elements_and_keeps_one_part() {
        let torino = Target::resolve("ibm-torino").expect("preset");
        assert_eq!(torino.broken_qubits(), vec![86]);
        assert_eq!(torino.broken_couplers().len(), 11);
        let usable = usable_part(&torino, 40).expect("fits");
        assert!(usable.is_excluded(86) && usable.neighbours(86).is_empty());
        for &(a, b) in &usable.coupling {
            assert!(!torino.is_pair_broken(a, b), "({a}, {b}) is broken");
        }
        assert!(!usable.is_coupled(58, 59) && torino.is_coupled(58, 59));
        let parts = components(&usable);
        assert_eq!(parts.len(), 1, "one part is kept");
        let excluded = (0..usable.num_qubits).filter(|&q| usable.is_excluded(q)).count();
        assert_eq!(parts[0].len() + excluded, 133);
    }

    #[test]
    fn a_split_device_places_the_circuit_in_a_part_that_fits_or_says_why_not() {
        // Two lines of 4 joined by a broken coupler.
        let text = r#"{"name": "split", "qubits": 8, "basis": "cz",
                       "coupling": [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7]],
                       "pair_errors": [[3, 4, 1.0], [0, 1, 0.01]], "qubit_errors": [0, 0, 0, 0, 0, 0, 0.7, 0]}"#;
        let split = Target::from_json(text, "split.json").expect("valid");
        assert_eq!((split.broken_qubits(), split.broken_couplers()), (vec![6], vec![(3, 4)]));
        let usable = usable_part(&split, 3).expect("the part 0-3 holds 3 qubits");
        assert!((0..4).all(|q| !usable.is_excluded(q)) && (4..8).all(|q| usable.is_excluded(q)));
        let error = usable_part(&split, 5).unwrap_err();
        assert_eq!(
            error,
            RouteError::NoPartFits {
                target: "split".into(),
                needed: 5,
                largest: 4,
                parts: 3,
                broken_qubits: 1,
                broken_couplers: 1
            }
        );
        let text = error.to_string();
        assert!(
            text.contains("needs 5 qubits") && text.contains("largest connected part") && text.contains('4'),
            "{text}"
        );
    }
}
