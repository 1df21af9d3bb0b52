OPENQASM 3.0;
include "stdgates.inc";
// An `extern` function runs the binding given on the command line:
//   qchess sim extern.qasm --extern majority.qasm
extern majority(bit[3]) -> bit;
qubit[3] q;
qubit out;
x q[0];
x q[2];
bit[3] m = measure q;
if (majority(m)) { x out; }
