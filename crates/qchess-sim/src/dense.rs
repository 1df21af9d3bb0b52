//! Dense state-vector simulator.
