// pawn-capture-superposed-source-m0: PAWN_CAPTURE .m0 from a superposed source: the pawn on d5 (present after taking half a knight) is measured absent: nothing is captured
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 4 qubits, 1 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: f6 (square f6)
// q[1]: d5 (square d5)
// q[2]: h5 (square h5)
// q[3]: e4 (square e4)
// Post-selection: keep only the runs in which every bit below reads the value shown.
//   c[0] = 0 (measured from q[1], d5)
// Final measurements: meas[0] = q[3], meas[1] = q[2].
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
qreg q[4];
creg c[1];
creg meas[2];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
cx q[1], q[3];
measure q[1] -> c[0];
measure q[3] -> meas[0];
measure q[2] -> meas[1];
