// pawn-two-step-excluded-m0: PAWN_TWO_STEP EXCLUDED .m0: e2 -> e4, held by a knight split to e4/g4, past e3 (a knight split to e3/h4); e4 is measured occupied: the pawn stays
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 6 qubits, 1 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: f6 (square f6)
// q[1]: e4 (square e4)
// q[2]: g4 (square g4)
// q[3]: g2 (square g2)
// q[4]: e3 (square e3)
// q[5]: h4 (square h4)
// Post-selection: keep only the runs in which every bit below reads the value shown.
//   c[0] = 1 (measured from q[1], e4)
// Final measurements: meas[0] = q[4], meas[1] = q[2], meas[2] = q[5].
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
qreg q[6];
creg c[1];
creg meas[3];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
sqrt_iswap q[3], q[4];
iswap q[3], q[5];
measure q[1] -> c[0];
measure q[4] -> meas[0];
measure q[2] -> meas[1];
measure q[5] -> meas[2];
