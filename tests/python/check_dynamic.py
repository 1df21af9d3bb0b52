"""`qchess sim` on OpenQASM 3 programs that read their own measurement results, against
qiskit-aer on equivalent circuits built here with Qiskit's control flow (while loops, if tests,
switches): repeat until success, iterative phase estimation of a phase that four bits cannot
hold, a syndrome round whose syndrome is random, and teleportation with a switch. qchess's exact
distribution is tested against aer's counts (chi-squared goodness of fit), and where qchess
samples, its counts against aer's (chi-squared homogeneity); p > 1e-6, fixed seeds."""

import math
import tempfile
from pathlib import Path

import numpy as np
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister, transpile
from qiskit.circuit.classical import expr
from qiskit_aer import AerSimulator
from scipy.stats import chi2

from qchess_helpers import Report, goodness_of_fit, probabilities_vector, run_qchess

SHOTS = 4000
SIMULATOR = AerSimulator()

HEADER = 'OPENQASM 3.0;\ninclude "stdgates.inc";\n'

RUS = HEADER + """
qubit psi;
qubit[2] anc;
bit[2] flags = "11";
output bit out;
ry(0.7) psi;
while (flags != 0) {
    reset anc;
    h anc;
    ccx anc[0], anc[1], psi;
    s psi;
    ccx anc[0], anc[1], psi;
    z psi;
    h anc;
    flags = measure anc;
}
h psi;
out = measure psi;
"""

IPE = HEADER + """
input float theta;
output bit[4] bits;
qubit q;
qubit r;
uint[4] found = 0;
x r;
for uint i in [0:3] {
    reset q;
    h q;
    ctrl @ pow(2 ** (3 - i)) @ phase(theta) q, r;
    angle[4] known = angle[4](bit[4](found << (3 - i)));
    phase(-known) q;
    h q;
    bits[i] = measure q;
    found |= uint[4](bits[i]) << i;
}
"""

QEC = HEADER + """
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
ry(0.4) data[0];
ry(1.3) data[1];
ry(2.2) data[2];
bit[2] s = syndrome(data, anc);
switch (uint[2](s)) {
    case 1 { x data[0]; }
    case 3 { x data[1]; }
    case 2 { x data[2]; }
    default { }
}
h data[1];
"""

TELEPORT = HEADER + """
qubit[3] q;
bit[2] m;
U(1.1, 0.4, -0.7) q[0];
h q[1];
cx q[1], q[2];
cx q[0], q[1];
h q[0];
m[0] = measure q[0];
m[1] = measure q[1];
switch (int[2](m)) {
    case 0 { }
    case 1 { z q[2]; }
    case -2 { x q[2]; }
    case -1 { x q[2]; z q[2]; }
}
h q[2];
"""


def aer_counts(qc: QuantumCircuit, seed: int) -> dict:
    """aer's counts keyed by the integer the classical bits spell (bit i = clbit i)."""
    counts = SIMULATOR.run(transpile(qc, SIMULATOR), shots=SHOTS, seed_simulator=seed).result().get_counts()
    return {str(int(key.replace(" ", ""), 2)): n for key, n in counts.items()}


def homogeneity(first: dict, second: dict) -> float:
    """Chi-squared test that two samples come from one distribution; outcomes seen fewer than
    10 times in both are pooled. Returns the p-value."""
    keys = sorted(set(first) | set(second), key=int)
    table = np.array([[first.get(k, 0) for k in keys], [second.get(k, 0) for k in keys]], dtype=float)
    small = table.sum(axis=0) < 10
    if small.any():
        table = np.column_stack([table[:, ~small], table[:, small].sum(axis=1)])
    totals = table.sum(axis=1, keepdims=True)
    expected = totals * table.sum(axis=0, keepdims=True) / table.sum()
    statistic = float(((table - expected) ** 2 / expected).sum())
    return float(chi2.sf(statistic, max(table.shape[1] - 1, 1)))


def qchess(text: str, *args: str) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "program.qasm"
        path.write_text(text)
        return run_qchess("sim", str(path), *args)


def rus_circuit() -> QuantumCircuit:
    q, flags, out = QuantumRegister(3), ClassicalRegister(2, "flags"), ClassicalRegister(1, "out")
    qc = QuantumCircuit(q, flags, out)
    qc.ry(0.7, 0)
    qc.x([1, 2])
    qc.measure([1, 2], flags)
    with qc.while_loop(expr.not_equal(flags, 0)):
        qc.reset([1, 2])
        qc.h([1, 2])
        qc.ccx(1, 2, 0)
        qc.s(0)
        qc.ccx(1, 2, 0)
        qc.z(0)
        qc.h([1, 2])
        qc.measure([1, 2], flags)
    qc.h(0)
    qc.measure(0, out)
    return qc


def ipe_circuit(theta: float) -> QuantumCircuit:
    bits = ClassicalRegister(4, "bits")
    qc = QuantumCircuit(QuantumRegister(2), bits)
    qc.x(1)
    for i in range(4):
        qc.reset(0)
        qc.h(0)
        qc.cp(theta * 2 ** (3 - i), 0, 1)
        for j in range(i):
            with qc.if_test((bits[j], 1)):
                qc.p(-2 * math.pi * 2**j / 2 ** (i + 1), 0)
        qc.h(0)
        qc.measure(0, bits[i])
    return qc


def qec_circuit() -> QuantumCircuit:
    data, anc, syndrome = QuantumRegister(3, "data"), QuantumRegister(2, "anc"), ClassicalRegister(2, "s")
    final = ClassicalRegister(5, "final")
    qc = QuantumCircuit(data, anc, syndrome, final)
    for qubit, angle in zip(data, [0.4, 1.3, 2.2]):
        qc.ry(angle, qubit)
    qc.cx(data[0], anc[0])
    qc.cx(data[1], anc[0])
    qc.cx(data[1], anc[1])
    qc.cx(data[2], anc[1])
    qc.measure(anc, syndrome)
    with qc.switch(syndrome) as case:
        with case(1):
            qc.x(data[0])
        with case(3):
            qc.x(data[1])
        with case(2):
            qc.x(data[2])
    qc.h(data[1])
    qc.measure(list(data) + list(anc), final)
    return qc


def teleport_circuit() -> QuantumCircuit:
    q, m, final = QuantumRegister(3), ClassicalRegister(2, "m"), ClassicalRegister(3, "final")
    qc = QuantumCircuit(q, m, final)
    qc.u(1.1, 0.4, -0.7, 0)
    qc.h(1)
    qc.cx(1, 2)
    qc.cx(0, 1)
    qc.h(0)
    qc.measure([0, 1], m)
    with qc.switch(m) as case:
        with case(1):
            qc.z(2)
        with case(2):
            qc.x(2)
        with case(3):
            qc.x(2)
            qc.z(2)
    qc.h(2)
    qc.measure(q, final)
    return qc


def final_register(counts: dict, skip: int) -> dict:
    """Counts of the bits after the first `skip` (the final measurements' register)."""
    out: dict = {}
    for key, n in counts.items():
        value = str(int(key) >> skip)
        out[value] = out.get(value, 0) + n
    return out


def run() -> Report:
    report = Report("dynamic programs against qiskit-aer")

    exact = qchess(RUS)
    psi_one = sum(p for k, p in exact["probabilities"].items() if int(k) & 1)
    aer = final_register(aer_counts(rus_circuit(), 11), 2)
    p = goodness_of_fit(aer, np.array([1 - psi_one, psi_one]), SHOTS)
    report.check("repeat until success: exact P(psi) against aer's while loop", p > 1e-6, f"p = {p:.3g}")

    theta = 2 * math.pi * 0.3
    sampled = qchess(IPE, "--input", f"theta={theta!r}", "--shots", str(SHOTS), "--seed", "12")["counts"]
    p = homogeneity(sampled, aer_counts(ipe_circuit(theta), 13))
    report.check("iterative phase estimation of 0.3 turns: shots against aer's", p > 1e-6, f"p = {p:.3g}")

    exact = qchess(QEC)
    expected = probabilities_vector(exact["probabilities"], 5)
    p = goodness_of_fit(final_register(aer_counts(qec_circuit(), 14), 2), expected, SHOTS)
    report.check("syndrome round with a switch: exact against aer", p > 1e-6, f"p = {p:.3g}")

    exact = qchess(TELEPORT)
    expected = probabilities_vector(exact["probabilities"], 3)
    p = goodness_of_fit(final_register(aer_counts(teleport_circuit(), 15), 2), expected, SHOTS)
    report.check("teleportation with a switch on int[2](m): exact against aer", p > 1e-6, f"p = {p:.3g}")
    return report


if __name__ == "__main__":
    raise SystemExit(run().finish())
