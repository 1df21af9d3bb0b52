OPENQASM 3.0;
include "stdgates.inc";
// `input` variables take their values from the command line:
//   qchess sim inputs.qasm --input theta=pi/2 --input which=1
input angle[16] theta;
input uint[1] which;
qubit[2] q;
ry(theta) q[which];
