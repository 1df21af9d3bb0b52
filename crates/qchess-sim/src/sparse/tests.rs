//! Unit tests of the sparse simulator.
