// pawn-step-basic: PAWN_STEP BASIC from a superposed source: the pawn on e4 (superposed after capturing a half knight on d5) steps to e5
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 5 qubits, 0 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: f6 (square f6)
// q[1]: d5 (square d5)
// q[2]: h5 (square h5)
// q[3]: e4 (square e4)
// q[4]: e5 (square e5)
// Post-selection: none.
// Final measurements: meas[0] = q[1], meas[1] = q[4], meas[2] = q[2].
gate rxx(theta) a, b {
  h a;
  h b;
  cx a, b;
  rz(theta) b;
  cx a, b;
  h a;
  h b;
}
gate ryy(theta) a, b {
  sdg a;
  sdg b;
  h a;
  h b;
  cx a, b;
  rz(theta) b;
  cx a, b;
  h a;
  h b;
  s a;
  s b;
}
gate sqrt_iswap a, b {
  rxx(-pi/4) a, b;
  ryy(-pi/4) a, b;
}
gate iswap a, b {
  s a;
  s b;
  h a;
  cx a, b;
  cx b, a;
  h b;
}
qreg q[5];
creg meas[3];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
cx q[1], q[3];
iswap q[3], q[4];
measure q[1] -> meas[0];
measure q[4] -> meas[1];
measure q[2] -> meas[2];
