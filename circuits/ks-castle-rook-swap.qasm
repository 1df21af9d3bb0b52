// ks-castle-rook-swap: KS_CASTLE BASIC onto a rook in superposition: the rook split to f1/f5; the king moves classically and an iSWAP exchanges h1 and f1
OPENQASM 2.0;
include "qelib1.inc";
// qchess circuit: 4 qubits, 0 classical bits.
// Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.
// q[0]: f3 (square f3)
// q[1]: f1 (square f1)
// q[2]: f5 (square f5)
// q[3]: h1 (square h1)
// Post-selection: none.
// Final measurements: meas[0] = q[1], meas[1] = q[3], meas[2] = q[2].
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
creg meas[3];
x q[0];
sqrt_iswap q[0], q[1];
iswap q[0], q[2];
x q[3];
iswap q[3], q[1];
measure q[1] -> meas[0];
measure q[3] -> meas[1];
measure q[2] -> meas[2];
