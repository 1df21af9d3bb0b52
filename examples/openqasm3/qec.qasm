OPENQASM 3.0;
include "stdgates.inc";
// One round of the three-qubit bit-flip code: ry(theta)|0> encoded on three qubits, an error
// on qubit `error` - 1 (none when 0), the syndrome measured by a subroutine, the correction
// chosen by a `switch` on it, then decoded: `result` reads 1 with probability sin^2(theta/2)
// on its first bit and 0 on the others, whatever the error.
//   qchess sim qec.qasm --input theta=1.2 --input error=2
input float theta;
input uint[2] error;
output bit[3] result;
qubit[3] data;
qubit[2] anc;

def syndrome(qubit[3] d, qubit[2] a) -> bit[2] {
    reset a;
    cx d[0], a[0];
    cx d[1], a[0];
    cx d[1], a[1];
    cx d[2], a[1];
    return measure a;
}

ry(theta) data[0];
cx data[0], data[1];
cx data[0], data[2];
if (error != 0) { x data[error - 1]; }
bit[2] s = syndrome(data, anc);
switch (uint[2](s)) {
    case 1 { x data[0]; }
    case 3 { x data[1]; }
    case 2 { x data[2]; }
    default { }
}
cx data[0], data[2];
cx data[0], data[1];
result = measure data;
