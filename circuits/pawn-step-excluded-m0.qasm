// pawn-step-excluded-m0: PAWN_STEP EXCLUDED .m0: the pawn steps c2 -> c3, where a knight split to a3/c3 may stand; c3 is measured occupied: the pawn stays
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 3 qubits, 1 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: b1 (square b1)
// q[1]: a3 (square a3)
// q[2]: c3 (square c3)
// Post-selection: keep only the runs in which every bit below reads the value shown.
//   c[0] = 1 (measured from q[2], c3)
// Final measurements: meas[0] = q[1].
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
qreg q[3];
creg c[1];
creg meas[1];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
measure q[2] -> c[0];
measure q[1] -> meas[0];
