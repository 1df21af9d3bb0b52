OPENQASM 3.0;
include "stdgates.inc";
// Iterative phase estimation of the phase gate's eigenvalue exp(2 pi i k / 16) on |1>, one bit
// per round, least significant first. Round i applies the controlled gate 2^(3 - i) times,
// undoes the phase of the bits already found, and measures the next one.
//   qchess sim ipe.qasm --input k=11 --shots 10    # bits = 11
input uint[4] k;
output bit[4] bits;
const uint n = 4;
qubit q;
qubit r;
angle[4] phi = k * (pi / 8);           // an angle of four bits holds k/16 of a turn exactly
uint[4] found = 0;
x r;
for uint i in [0:n - 1] {
    reset q;
    h q;
    ctrl @ pow(2 ** (n - 1 - i)) @ phase(phi) q, r;
    angle[4] known = angle[4](bit[4](found << (n - 1 - i)));
    phase(-known) q;
    h q;
    bits[i] = measure q;
    found |= uint[4](bits[i]) << i;
}
