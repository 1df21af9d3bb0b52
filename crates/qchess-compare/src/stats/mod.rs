//! The statistics of a comparison: is what two backends showed for one move (or circuit)
//! consistent with one distribution, and across many moves, do the backends agree?
//!
//! # Per move
//!
//! Each backend gives an [`Observation`](crate::observation::Observation): exact
//! probabilities `p` (a simulator) or `n` shot counts `O` (sampled hardware). [`pair::compare`]
//! picks the test:
//!
//! | sides | test | p-value |
//! |---|---|---|
//! | both certain of the same outcome | none (not counted) | 1 |
//! | exact vs exact | equality: total variation distance at most 1e-9 | 1 or 0 |
//! | exact vs sampled, a shot outside the exact support | impossible under the null | 0 |
//! | exact vs sampled, few possible tables (`C(n+k-1, k-1) <= 2·10⁵`) | exact multinomial ([`exact`]) | `Σ {P(x) : P(x) <= P(O)}` |
//! | exact vs sampled, otherwise | Pearson goodness of fit ([`chi_squared`]) | `P(χ²_{b-1} >= Σ (O-E)²/E)`, `E = n p` |
//! | sampled vs sampled | Pearson homogeneity, 2 × b table ([`chi_squared`]) | `P(χ²_{b-1} >= Σ_r Σ_j (O_rj - E_rj)²/E_rj)`, `E_rj = n_r c_j / N` |
//!
//! **Small expected counts.** Chi-squared tests need every expected count to be at least 5
//! (Cochran 1954). Outcomes expected below 5 are pooled into one rare bin, chosen from the
//! expected counts alone so the test keeps its level; a rare bin still below 5 joins the
//! smallest other bin ([`chi_squared::pool`]). When the support is small the exact
//! multinomial test is used instead, which needs no approximation; it is conservative (its
//! p-values are discrete).
//!
//! **Distances.** Total variation distance `TVD = ½ Σ |p_i - q_i|` and Hellinger fidelity
//! `F = (Σ sqrt(p_i q_i))²` (Qiskit's `hellinger_fidelity`) of the observed frequencies, with
//! percentile bootstrap intervals ([`distance::distances`], Efron and Tibshirani 1993, ch. 13):
//! each sampled side is redrawn 1000 times as a multinomial sample of its own size from its
//! frequencies, exact sides held fixed, with a ChaCha8 generator seeded from the comparison's
//! seed, so reports are reproducible. The plug-in TVD is biased upward for small samples (it is
//! about `½ Σ sqrt(p_i (1 - p_i) / n)` even when the distributions are equal); the intervals
//! describe the size of a difference, the tests decide whether there is one.
//!
//! # Across moves
//!
//! Every counted per-move test enters the Holm-Bonferroni procedure ([`holm`], Holm 1979):
//! the backends disagree when some Holm-adjusted p-value is at most `alpha` (default 0.01),
//! which bounds the chance of a false alarm by `alpha` whatever the dependence between moves.
//!
//! The chi-squared distribution is statrs' (`ChiSquared::sf`, the regularised upper incomplete
//! gamma function); [`uniformity`] has the Kolmogorov-Smirnov test used to check that the
//! p-values are uniform when backends agree.
//!
//! References: W. G. Cochran, "Some methods for strengthening the common χ² tests",
//! Biometrics 10 (1954); S. Holm, "A simple sequentially rejective multiple test procedure",
//! Scand. J. Statist. 6 (1979); B. Efron and R. Tibshirani, "An Introduction to the Bootstrap"
//! (1993); A. Agresti, "Categorical Data Analysis", 3rd ed. (2013), sections 1.5 and 3.5.

pub mod chi_squared;
pub mod distance;
pub mod exact;
pub mod holm;
pub mod pair;
pub mod uniformity;
