//! Sparse state-vector simulator.
