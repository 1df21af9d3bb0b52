// qs-castle-excluded-b-superposed-m1: QS_CASTLE EXCLUDED .m1 with b1 superposed: d1 (a knight split to d1/g4) is measured empty, then king and rook move anti-controlled on b1
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 10 qubits, 1 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: d2 (square d2)
// q[1]: b1 (square b1)
// q[2]: f3 (square f3)
// q[3]: e3 (square e3)
// q[4]: d1 (square d1)
// q[5]: g4 (square g4)
// q[6]: e1 (square e1)
// q[7]: c1 (square c1)
// q[8]: a1 (square a1)
// q[9]: d1_1 (square d1, qubit 2 of it)
// Post-selection: keep only the runs in which every bit below reads the value shown.
//   c[0] = 0 (measured from q[4], d1)
// Final measurements: meas[0] = q[8], meas[1] = q[1], meas[2] = q[7], meas[3] = q[9], meas[4] = q[6], meas[5] = q[2], meas[6] = q[5].
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
qreg q[10];
creg c[1];
creg meas[7];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
sqrt_iswap q[3], q[4];
iswap q[3], q[5];
measure q[4] -> c[0];
x q[6];
x q[8];
x q[1];
c1_iswap q[1], q[8], q[9];
x q[1];
x q[1];
c1_iswap q[1], q[6], q[7];
x q[1];
measure q[8] -> meas[0];
measure q[1] -> meas[1];
measure q[7] -> meas[2];
measure q[9] -> meas[3];
measure q[6] -> meas[4];
measure q[2] -> meas[5];
measure q[5] -> meas[6];
