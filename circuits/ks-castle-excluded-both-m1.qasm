// ks-castle-excluded-both-m1: KS_CASTLE EXCLUDED .m1 with f1 and g1 both superposed (knights split to g1/c3 and f1/d5): an ancilla 'f1 and g1 empty' is measured 1
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 7 qubits, 1 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: e2 (square e2)
// q[1]: g1 (square g1)
// q[2]: c3 (square c3)
// q[3]: e3 (square e3)
// q[4]: f1 (square f1)
// q[5]: d5 (square d5)
// q[6]: anc6_cond (ancilla: measured condition)
// Post-selection: keep only the runs in which every bit below reads the value shown.
//   c[0] = 1 (measured from q[6], anc6_cond)
// Final measurements: meas[0] = q[2], meas[1] = q[5].
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
qreg q[7];
creg c[1];
creg meas[2];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
sqrt_iswap q[3], q[4];
iswap q[3], q[5];
x q[4];
x q[1];
ccx q[4], q[1], q[6];
x q[4];
x q[1];
measure q[6] -> c[0];
measure q[2] -> meas[0];
measure q[5] -> meas[1];
