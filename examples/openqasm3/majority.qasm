OPENQASM 3.0;
// The binding of extern.qasm's `majority`: a `def` of the same name and signature.
def majority(bit[3] b) -> bit {
    return (b[0] && b[1]) || (b[0] && b[2]) || (b[1] && b[2]);
}
