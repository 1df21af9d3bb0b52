"""Writes the QPY fixtures of the QPY reader's tests: each NAME.qpy as qiskit-ibm-runtime's
RuntimeEncoder writes a circuit (QPY version 17, before base64 and zlib), and NAME.json with what
Qiskit itself reads back from it (instructions with their qubit and bit indices, parameters,
conditions and blocks), which the tests compare against.

Run with the environment of tests/python/ibm/run.sh:
    .venv-ibm-runtime/bin/python crates/qchess-qasm/tests/data/qpy/make_fixtures.py
"""

import io
import json
import math
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")

from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister, qpy, transpile
from qiskit.circuit import Parameter
from qiskit.circuit.library import ECRGate
from qiskit_ibm_runtime.fake_provider import FakeBrisbane, FakeFez

HERE = Path(__file__).resolve().parent
VERSION = 17  # min(SERVICE_MAX_SUPPORTED_QPY_VERSION, QPY_VERSION) in qiskit-ibm-runtime 0.51


def value(param):
    try:
        return float(param)
    except TypeError:
        return str(param)


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
                target, val = op.condition
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

    registers = [{"name": r.name, "bits": [circuit.find_bit(b).index for b in r]} for r in circuit.cregs]
    return {
        "num_qubits": circuit.num_qubits,
        "num_clbits": circuit.num_clbits,
        "global_phase": float(circuit.global_phase),
        "registers": registers,
        "instructions": ops(circuit),
    }


def save(name, circuit):
    buffer = io.BytesIO()
    qpy.dump(circuit, buffer, version=VERSION)
    (HERE / f"{name}.qpy").write_bytes(buffer.getvalue())
    read = qpy.load(io.BytesIO(buffer.getvalue()))[0]
    described = describe(read)
    if read.parameters:
        # Values for the parameters in Qiskit's order, and the circuit they bind to.
        values = [0.3 + 0.25 * i for i in range(len(read.parameters))]
        described["parameter_names"] = [str(p) for p in read.parameters]
        described["parameter_values"] = values
        described["bound"] = describe(read.assign_parameters(values))["instructions"]
    (HERE / f"{name}.json").write_text(json.dumps(described, indent=1) + "\n")


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


if __name__ == "__main__":
    main()
