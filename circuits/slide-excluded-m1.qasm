// slide-excluded-m1: SLIDE EXCLUDED .m1: the rook slides a1 -> a5, held by its knight split to a5/e7, with a3 superposed on the path; a5 is measured empty: the rook slides past a3 in superposition
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 8 qubits, 1 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: b5 (square b5)
// q[1]: a3 (square a3)
// q[2]: d6 (square d6)
// q[3]: c6 (square c6)
// q[4]: a5 (square a5)
// q[5]: e7 (square e7)
// q[6]: a1 (square a1)
// q[7]: a5_1 (square a5, qubit 2 of it)
// Post-selection: keep only the runs in which every bit below reads the value shown.
//   c[0] = 0 (measured from q[4], a5)
// Final measurements: meas[0] = q[6], meas[1] = q[1], meas[2] = q[7], meas[3] = q[2], meas[4] = q[5].
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
// c1_iswap: iswap with 1 control(s), controls first
gate c1_iswap c0, a, b {
  cx a, b;
  h a;
  u1(-pi/4) c0;
  u1(-pi/4) b;
  cx c0, b;
  u1(pi/4) b;
  cx c0, b;
  u1(-pi/4) a;
  cx c0, a;
  u1(pi/4) a;
  cx b, a;
  u1(-pi/4) a;
  cx c0, a;
  u1(pi/4) a;
  cx b, a;
  h a;
  u1(pi/4) c0;
  u1(pi/4) b;
  cx c0, b;
  u1(-pi/4) b;
  cx c0, b;
  cx a, b;
}
qreg q[8];
creg c[1];
creg meas[5];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
sqrt_iswap q[3], q[4];
iswap q[3], q[5];
measure q[4] -> c[0];
x q[6];
x q[1];
c1_iswap q[1], q[6], q[7];
x q[1];
measure q[6] -> meas[0];
measure q[1] -> meas[1];
measure q[7] -> meas[2];
measure q[2] -> meas[3];
measure q[5] -> meas[4];
