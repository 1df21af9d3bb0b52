"""Writes the samplex fixtures of the executor's tests: each NAME.json holds one samplex item as
qiskit-ibm-runtime 0.51's client-side Estimator (resilience level 0) sends it (its samplex, its
arguments and its shape) and the template parameter values samplomatic itself computes from them
for every element of the shape, which the tests compare against.

Run with the environment of tests/python/ibm/run.sh:
    .venv-ibm-runtime/bin/python crates/qchess-standins/tests/data/executor/make_fixtures.py
"""

import json
import math
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")

import numpy as np
from qiskit import QuantumCircuit, transpile
from qiskit.circuit import Parameter
from qiskit.quantum_info import SparsePauliOp
from qiskit_ibm_runtime.executor_estimator.prepare import prepare
from qiskit_ibm_runtime.fake_provider import FakeFez
from qiskit_ibm_runtime.options_models.estimator import EstimatorOptions
from qiskit_ibm_runtime.quantum_program.converters.converters_2_0 import quantum_program_to_2_0
from samplomatic.samplex import Samplex
from qiskit_ibm_runtime.fake_provider.executor.broadcast_sample import broadcast_sample

HERE = Path(__file__).resolve().parent


def save(name, circuit, observables, values=None):
    options = EstimatorOptions()
    options.resilience_level = 0
    pub = (circuit, observables) if values is None else (circuit, observables, values)
    program, executor_options = prepare([pub], options)
    item = program.items[0]
    sampled = broadcast_sample(item.samplex, item.samplex_arguments, item.shape, np.random.default_rng(0))
    expected = np.asarray(sampled["parameter_values"], dtype=float)
    model = quantum_program_to_2_0(program, executor_options).model_dump(mode="json")
    item_json = model["quantum_program"]["items"][0]
    fixture = {
        "samplex": item_json["samplex"],
        "samplex_arguments": item_json["samplex_arguments"],
        "shape": item_json["shape"],
        "template_parameters": item.circuit.num_parameters,
        "expected_shape": list(expected.shape),
        "expected": expected.ravel().tolist(),
    }
    (HERE / f"{name}.json").write_text(json.dumps(fixture, indent=1) + "\n")


def main():
    fez = FakeFez()
    bell = QuantumCircuit(2)
    bell.h(0)
    bell.cx(0, 1)
    save("bell", bell, [SparsePauliOp("ZZ"), SparsePauliOp("XX"), SparsePauliOp("YI")])

    ghz = QuantumCircuit(3)
    ghz.h(0)
    ghz.cx(0, 1)
    ghz.cx(1, 2)
    ghz.sx(2)
    ghz.rz(0.3, 1)
    save("ghz_tail", ghz, [SparsePauliOp("ZZZ"), SparsePauliOp("XYI")])

    theta = Parameter("θ")
    sweep = QuantumCircuit(2)
    sweep.ry(theta, 0)
    sweep.cx(0, 1)
    sweep.rx(theta / 2, 1)
    sweep.s(0)
    isa = transpile(sweep, backend=fez, optimization_level=1, seed_transpiler=0)
    observables = [[SparsePauliOp(label).apply_layout(isa.layout)] for label in ("ZZ", "XI", "IY")]
    save("sweep_fez", isa, observables, np.linspace(0, math.pi, 4).reshape(1, -1, 1))


if __name__ == "__main__":
    main()
