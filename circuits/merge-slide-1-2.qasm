// merge-slide-1-2: MERGE_SLIDE arm case (1,2): the rook split to a5/e1 merges back on a1, arm 1 through a3, arm 2 through b1 and c1
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 15 qubits, 0 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: a1 (square a1)
// q[1]: a5 (square a5)
// q[2]: e1 (square e1)
// q[3]: b5 (square b5)
// q[4]: a3 (square a3)
// q[5]: d6 (square d6)
// q[6]: d2 (square d2)
// q[7]: b1 (square b1)
// q[8]: f3 (square f3)
// q[9]: e2 (square e2)
// q[10]: c1 (square c1)
// q[11]: g3 (square g3)
// q[12]: a1_1 (square a1, qubit 2 of it)
// q[13]: anc13_path (ancilla: path-clear flag)
// q[14]: anc14_scratch (ancilla: scratch)
// Post-selection: none.
// Final measurements: meas[0] = q[12], meas[1] = q[7], meas[2] = q[10], meas[3] = q[2], meas[4] = q[4], meas[5] = q[8], meas[6] = q[11], meas[7] = q[1], meas[8] = q[5].
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
// c1_iswap_dg: iswap_dg with 1 control(s), controls first
gate c1_iswap_dg c0, a, b {
  cx a, b;
  h a;
  u1(pi/4) c0;
  u1(pi/4) b;
  cx c0, b;
  u1(-pi/4) b;
  cx c0, b;
  u1(pi/4) a;
  cx c0, a;
  u1(-pi/4) a;
  cx b, a;
  u1(pi/4) a;
  cx c0, a;
  u1(-pi/4) a;
  cx b, a;
  h a;
  u1(-pi/4) c0;
  u1(-pi/4) b;
  cx c0, b;
  u1(pi/4) b;
  cx c0, b;
  cx a, b;
}
// c1_sqrt_iswap_dg: sqrt_iswap_dg with 1 control(s), controls first
gate c1_sqrt_iswap_dg c0, a, b {
  cx a, b;
  h a;
  u1(pi/8) c0;
  u1(pi/8) b;
  cx c0, b;
  u1(-pi/8) b;
  cx c0, b;
  u1(pi/8) a;
  cx c0, a;
  u1(-pi/8) a;
  cx b, a;
  u1(pi/8) a;
  cx c0, a;
  u1(-pi/8) a;
  cx b, a;
  h a;
  u1(-pi/8) c0;
  u1(-pi/8) b;
  cx c0, b;
  u1(pi/8) b;
  cx c0, b;
  cx a, b;
}
gate swap a, b {
  cx a, b;
  cx b, a;
  cx a, b;
}
qreg q[15];
creg meas[9];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
sqrt_iswap q[3], q[4];
iswap q[3], q[5];
x q[6];
sqrt_iswap q[6], q[7];
iswap q[6], q[8];
x q[9];
sqrt_iswap q[9], q[10];
iswap q[9], q[11];
x q[7];
x q[10];
ccx q[7], q[10], q[13];
x q[7];
x q[10];
x q[4];
ccx q[4], q[13], q[14];
c1_iswap_dg q[14], q[1], q[12];
c1_sqrt_iswap_dg q[14], q[2], q[12];
cx q[13], q[14];
c1_iswap_dg q[14], q[2], q[12];
cx q[13], q[14];
swap q[13], q[4];
cx q[13], q[14];
c1_iswap_dg q[14], q[1], q[12];
cx q[13], q[14];
swap q[13], q[4];
ccx q[4], q[13], q[14];
x q[4];
x q[7];
x q[10];
ccx q[7], q[10], q[13];
x q[7];
x q[10];
measure q[12] -> meas[0];
measure q[7] -> meas[1];
measure q[10] -> meas[2];
measure q[2] -> meas[3];
measure q[4] -> meas[4];
measure q[8] -> meas[5];
measure q[11] -> meas[6];
measure q[1] -> meas[7];
measure q[5] -> meas[8];
