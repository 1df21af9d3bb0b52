OPENQASM 3.0;
include "stdgates.inc";
// Repeat until success (Nielsen and Chuang, section 4.5): the segment applies Rz(theta + pi),
// cos(theta) = 3/5, when both ancillas read 0 (probability 5/8) and the identity otherwise, so
// it repeats until they do. Then rz(pi - theta) completes a full turn, and `out` reads 0. The
// number of rounds is geometric: P(rounds = r) = (3/8)^(r - 1) 5/8.
qubit psi;
qubit[2] anc;
bit[2] flags = "11";
output bit out;
output uint[4] rounds;
h psi;
while (flags != 0) {
    reset anc;
    h anc;
    ccx anc[0], anc[1], psi;
    s psi;
    ccx anc[0], anc[1], psi;
    z psi;
    h anc;
    flags = measure anc;
    rounds += 1;
}
rz(pi - arccos(3.0 / 5.0)) psi;
h psi;
out = measure psi;
