"""Writes the QPY fixtures of the QPY reader's tests: each NAME.qpy as qiskit-ibm-runtime's
RuntimeEncoder writes a circuit (QPY version 17, before base64 and zlib), NAME.v18.qpy as its
client-side primitives (the executor program) write it (QPY version 18, Qiskit 2.6's newest), and
NAME.json with what Qiskit itself reads back from them (instructions with their qubit and bit
indices, parameters, conditions and blocks; a list of those for a payload of several circuits),
which the tests compare against. Where Qiskit reads the version-18 payload back differently, that
goes in NAME.v18.json.

Run with the environment of tests/python/ibm/run.sh:
    .venv-ibm-runtime/bin/python crates/qchess-qasm/tests/data/qpy/make_fixtures.py
"""

import base64
import io
import json
import math
import warnings
import zlib
from pathlib import Path

warnings.filterwarnings("ignore")

from ibm_quantum_schemas.common import CompressedQpyDataModel
from qiskit import AncillaRegister, ClassicalRegister, QuantumCircuit, QuantumRegister, qpy, transpile
from qiskit.circuit import Clbit, Parameter, ParameterVector, Qubit
from qiskit.circuit.classical import expr
from qiskit.circuit.library import ECRGate
from qiskit_ibm_runtime.fake_provider import FakeBrisbane, FakeFez

HERE = Path(__file__).resolve().parent
VERSION = 17  # min(SERVICE_MAX_SUPPORTED_QPY_VERSION, QPY_VERSION) in qiskit-ibm-runtime 0.51
EXECUTOR_VERSION = 18  # qiskit.qpy.QPY_VERSION of Qiskit 2.6, which the executor program sends


def value(param):
    try:
        return float(param)
    except TypeError:
        return str(param)


def simple_condition(condition):
    """A tuple condition, or an expression of one bit or register compared with a constant, as
    (bit or register, value)."""
    if not isinstance(condition, expr.Expr):
        return condition
    if isinstance(condition, expr.Var):
        return condition.var, 1
    if isinstance(condition, expr.Unary) and condition.op == expr.Unary.Op.LOGIC_NOT:
        return condition.operand.var, 0
    if isinstance(condition, expr.Binary) and condition.op == expr.Binary.Op.EQUAL:
        left, right = condition.left, condition.right
        while isinstance(left, expr.Cast):
            left = left.operand
        return left.var, right.value
    raise ValueError(f"not a simple condition: {condition}")


def describe(circuit):
    def ops(circ):
        out = []
        for inst in circ.data:
            op = inst.operation
            entry = {
                "name": op.name,
                "qubits": [circ.find_bit(q).index for q in inst.qubits],
                "clbits": [circ.find_bit(c).index for c in inst.clbits],
            }
            if op.name == "if_else":
                target, val = simple_condition(op.condition)
                if hasattr(target, "name") and not hasattr(target, "_index"):
                    bits = [circ.find_bit(b).index for b in target]
                else:
                    bits = [circ.find_bit(target).index]
                entry["condition"] = {"bits": bits, "value": int(val)}
                entry["blocks"] = [ops(b) if b is not None else None for b in op.blocks]
            elif op.name == "delay":
                entry["duration"] = float(op.duration)
                entry["unit"] = op.unit
            else:
                entry["params"] = [value(p) for p in op.params]
            out.append(entry)
        return out

    def listed(registers):
        return [{"name": r.name, "bits": [circuit.find_bit(b).index for b in r]} for r in registers]

    return {
        "num_qubits": circuit.num_qubits,
        "num_clbits": circuit.num_clbits,
        "global_phase": value(circuit.global_phase),
        "registers": listed(circuit.cregs),
        "quantum_registers": listed(circuit.qregs),
        "instructions": ops(circuit),
    }


def described(circuit):
    out = describe(circuit)
    if circuit.parameters:
        # Values for the parameters in Qiskit's order, and the circuit they bind to.
        values = [0.3 + 0.25 * i for i in range(len(circuit.parameters))]
        out["parameter_names"] = [str(p) for p in circuit.parameters]
        out["parameter_values"] = values
        bound = describe(circuit.assign_parameters(values))
        out["bound"] = bound["instructions"]
        out["bound_global_phase"] = bound["global_phase"]
    return out


def write(path, payload):
    """`payload` to `path`, and what Qiskit reads back from it."""
    path.write_bytes(payload)
    read = [described(c) for c in qpy.load(io.BytesIO(payload))]
    return read[0] if len(read) == 1 else read


def save(name, *circuits):
    """`circuits` as one payload at QPY 17 (NAME.qpy) and at 18 (NAME.v18.qpy), with what Qiskit
    reads back: NAME.json, and NAME.v18.json only where that differs."""
    reads = []
    for version, suffix in [(VERSION, ""), (EXECUTOR_VERSION, f".v{EXECUTOR_VERSION}")]:
        buffer = io.BytesIO()
        qpy.dump(list(circuits), buffer, version=version)
        read = write(HERE / f"{name}{suffix}.qpy", buffer.getvalue())
        own = HERE / f"{name}{suffix}.json"
        if not reads or read != reads[0]:
            own.write_text(json.dumps(read, indent=1) + "\n")
        else:
            own.unlink(missing_ok=True)
        reads.append(read)


def save_as_executor(name, *circuits):
    """`circuits` as the executor program sends them (zlib-compressed QPY in base64), inflated."""
    model = CompressedQpyDataModel.from_python(list(circuits), qpy_version=EXECUTOR_VERSION)
    payload = zlib.decompress(base64.b64decode(model.b64_data))
    read = write(HERE / f"{name}.v{EXECUTOR_VERSION}.qpy", payload)
    (HERE / f"{name}.v{EXECUTOR_VERSION}.json").write_text(json.dumps(read, indent=1) + "\n")


def main():
    fez, brisbane = FakeFez(), FakeBrisbane()

    bell = QuantumCircuit(2)
    bell.h(0)
    bell.cx(0, 1)
    bell.measure_all()
    save("bell_fez", transpile(bell, backend=fez, optimization_level=1, seed_transpiler=0))

    ghz = QuantumCircuit(3, 3)
    ghz.h(0)
    ghz.cx(0, 1)
    ghz.cx(1, 2)
    ghz.measure(range(3), range(3))
    save("ghz_brisbane", transpile(ghz, backend=brisbane, optimization_level=1, seed_transpiler=0))

    theta, phi = Parameter("θ"), Parameter("phi")
    unbound = QuantumCircuit(2)
    unbound.ry(theta, 0)
    unbound.rz(2 * theta + math.pi / 2, 1)
    unbound.rx(phi * theta - 1, 0)
    unbound.cx(0, 1)
    save("parameters", unbound)
    save("parameters_fez", transpile(unbound, backend=fez, optimization_level=1, seed_transpiler=0))

    q, c, d = QuantumRegister(3, "q"), ClassicalRegister(2, "c"), ClassicalRegister(1, "d")
    dynamic = QuantumCircuit(q, c, d, global_phase=0.25)
    dynamic.h(0)
    dynamic.measure(0, c[0])
    with dynamic.if_test((c[0], 1)) as otherwise:
        dynamic.x(1)
    with otherwise:
        dynamic.z(1)
    dynamic.measure(1, c[1])
    with dynamic.if_test((c, 2)):
        dynamic.reset(2)
        dynamic.sx(2)
    dynamic.delay(100, 2, unit="ns")
    dynamic.delay(32, 1)
    dynamic.barrier()
    dynamic.measure(2, d[0])
    save("dynamic", dynamic)

    gates = QuantumCircuit(4, 1)
    gates.h(0)
    gates.cx(0, 1)
    gates.ccx(0, 1, 2)
    gates.cp(0.3, 2, 3)
    gates.u(0.1, 0.2, 0.3, 3)
    gates.sxdg(1)
    gates.rzz(0.4, 0, 3)
    gates.append(ECRGate(), [2, 1])
    gates.swap(0, 3)
    gates.cswap(3, 0, 1)
    gates.crz(0.7, 1, 0)
    gates.s(2)
    gates.tdg(3)
    gates.id(0)
    gates.measure(3, 0)
    save("standard_gates", gates)

    inner = QuantumCircuit(2, name="mine")
    inner.h(0)
    inner.cx(0, 1)
    custom = QuantumCircuit(2)
    custom.append(inner.to_gate(), [0, 1])
    save("custom_gate", custom)

    # What QPY 18 changed. Two vectors, one element used in an `if_else` block (blocks carry
    # their own vector table), elements in expressions and a vector element as the global phase.
    x, y = ParameterVector("x", 3), ParameterVector("y", 2)
    alpha = Parameter("x")
    vectors = QuantumCircuit(QuantumRegister(2, "q"), ClassicalRegister(1, "c"), global_phase=y[1])
    vectors.rz(x[1], 0)
    vectors.rx(x[0] + 2 * x[2], 1)
    vectors.ry(alpha * y[0], 0)
    vectors.measure(0, 0)
    with vectors.if_test((vectors.clbits[0], 1)):
        vectors.rz(y[0] - x[2], 1)
    save("vectors", vectors)

    # Integer and real instruction parameters (little-endian up to QPY 17, big-endian from 18).
    numbers = QuantumCircuit(2, global_phase=3)
    numbers.delay(32, 0)
    # Qiskit 2.6 stores no delay unit: this reads back, in Qiskit too, as 250 dt (and a real
    # duration in `us` does not read back at all).
    numbers.delay(250, 1, unit="ns")
    numbers.rz(0.125, 0)
    numbers.rz(-3, 1)
    numbers.u(0.1, -2.5, 1e-7, 0)
    numbers.cp(7, 0, 1)
    save("numbers", numbers)

    # Conditions on a bit outside any register, a bit of a register and a register that does
    # not start at bit 0, as tuples and as expressions.
    loose = Clbit()
    c = ClassicalRegister(2, "c")
    conditions = QuantumCircuit(QuantumRegister(3, "q"), [loose], c)
    conditions.h(0)
    conditions.measure(0, loose)
    conditions.measure(1, c[1])
    with conditions.if_test((loose, 1)) as otherwise:
        conditions.x(2)
    with otherwise:
        conditions.h(2)
    with conditions.if_test((c[1], 0)):
        conditions.z(0)
    with conditions.if_test((c, 2)):
        conditions.y(1)
    # The same as expressions (stored as classical expressions, not registers).
    with conditions.if_test(expr.equal(c, 2)):
        conditions.s(1)
    with conditions.if_test(expr.logic_not(loose)):
        conditions.t(2)
    conditions.measure(2, c[0])
    save("conditions", conditions)

    # Registers: an ancilla register, a register over bits in reverse order, registers only some
    # of whose bits are in the circuit (so not in it themselves), and loose bits.
    q, anc, part = QuantumRegister(2, "q"), AncillaRegister(2, "anc"), QuantumRegister(3, "part")
    c, spare = ClassicalRegister(2, "c"), ClassicalRegister(2, "spare")
    registers = QuantumCircuit(q, anc, [part[0], part[2], Qubit()], c, [spare[1]])
    registers.add_register(QuantumRegister(name="rev", bits=[anc[1], q[1], q[0]]))
    registers.h(q[0])
    registers.cx(q[0], anc[1])
    registers.cx(anc[1], part[2])
    registers.x(registers.qubits[-1])
    registers.measure(q[0], c[0])
    registers.measure(part[2], c[1])
    registers.measure(anc[1], spare[1])
    save("registers", registers)

    # Several circuits in one payload, as the executor sends all its items' circuits.
    theta = Parameter("θ")
    second = QuantumCircuit(1, 1)
    second.rx(theta, 0)
    second.measure(0, 0)
    save("two_circuits", bell, second)

    # The executor's own encoding, of transpiled circuits with a parameter vector.
    w = ParameterVector("w", 2)
    sweep = QuantumCircuit(2)
    sweep.ry(w[0], 0)
    sweep.cx(0, 1)
    sweep.rz(w[1], 1)
    sweep.measure_all()
    isa = transpile([bell, sweep], backend=fez, optimization_level=1, seed_transpiler=0)
    save_as_executor("executor", *isa)


if __name__ == "__main__":
    main()
