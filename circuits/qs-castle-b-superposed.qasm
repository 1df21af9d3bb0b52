// qs-castle-b-superposed: QS_CASTLE BASIC with b1 superposed (a knight split to b1/f3): king and rook move anti-controlled on b1
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 7 qubits, 0 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: d2 (square d2)
// q[1]: b1 (square b1)
// q[2]: f3 (square f3)
// q[3]: e1 (square e1)
// q[4]: c1 (square c1)
// q[5]: a1 (square a1)
// q[6]: d1 (square d1)
// Post-selection: none.
// Final measurements: meas[0] = q[5], meas[1] = q[1], meas[2] = q[4], meas[3] = q[6], meas[4] = q[3], meas[5] = q[2].
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
qreg q[7];
creg meas[6];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
x q[5];
x q[1];
c1_iswap q[1], q[5], q[6];
x q[1];
x q[1];
c1_iswap q[1], q[3], q[4];
x q[1];
measure q[5] -> meas[0];
measure q[1] -> meas[1];
measure q[4] -> meas[2];
measure q[6] -> meas[3];
measure q[3] -> meas[4];
measure q[2] -> meas[5];
