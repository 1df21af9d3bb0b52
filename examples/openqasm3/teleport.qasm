OPENQASM 3.0;
include "stdgates.inc";
// Teleportation of U(theta, phi, lambda)|0> from q[0] to q[2], the corrections chosen by a
// `switch` on the two measured bits read as an integer; then the inverse of U brings q[2] back
// to |0>, so `result` reads 0 and q[0], q[1] are uniform.
const float theta = 1.1;
const float phi = 0.4;
const float lambda = -0.7;
qubit[3] q;
bit[2] m;
output bit result;
U(theta, phi, lambda) q[0];
h q[1];
cx q[1], q[2];
cx q[0], q[1];
h q[0];
m[0] = measure q[0];
m[1] = measure q[1];
switch (uint[2](m)) {
    case 0 { }
    case 1 { z q[2]; }
    case 2 { x q[2]; }
    case 3 {
        x q[2];
        z q[2];
    }
}
inv @ U(theta, phi, lambda) q[2];
result = measure q[2];
