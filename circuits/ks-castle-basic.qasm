// ks-castle-basic: KS_CASTLE BASIC: f1 and g1 classically empty after the knight split away, so the castle is classical and adds no gate
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 3 qubits, 0 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: g1 (square g1)
// q[1]: f3 (square f3)
// q[2]: h3 (square h3)
// Post-selection: none.
// Final measurements: meas[0] = q[1], meas[1] = q[2].
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
creg meas[2];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
measure q[1] -> meas[0];
measure q[2] -> meas[1];
