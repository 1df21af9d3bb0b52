"""Writes crates/qchess-route/data/props_{fez,brisbane,torino}.json from the device properties that
qiskit-ibm-runtime 0.51.0 ships (qiskit_ibm_runtime/fake_provider/backends/<name>/props_<name>.json),
kept to what qchess reads: per qubit T1, T2 and the readout figures; per gate of the device's
basis (sx, x, id and its two-qubit gate) and reset, the calibrated error and length. Values are
copied unchanged; the JSON shape stays IBM's.

Run with the environment of tests/python/ibm/run.sh:
    .venv-ibm-runtime/bin/python scripts/trim-device-properties.py
"""

import json
import os
from pathlib import Path

import qiskit_ibm_runtime

QUBIT_FIGURES = {"T1", "T2", "readout_error", "prob_meas0_prep1", "prob_meas1_prep0", "readout_length"}
GATES = {
    "fez": {"sx", "x", "id", "cz", "reset"},
    "brisbane": {"sx", "x", "id", "ecr", "reset"},
    "torino": {"sx", "x", "id", "cz", "reset"},
}
ROOT = Path(__file__).resolve().parents[1]


def main():
    source = Path(os.path.dirname(qiskit_ibm_runtime.__file__)) / "fake_provider" / "backends"
    for name, gates in GATES.items():
        full = json.loads((source / name / f"props_{name}.json").read_text())
        trimmed = {
            "backend_name": full["backend_name"],
            "backend_version": full["backend_version"],
            "last_update_date": full["last_update_date"],
            "qubits": [[f for f in qubit if f["name"] in QUBIT_FIGURES] for qubit in full["qubits"]],
            "gates": [g for g in full["gates"] if g["gate"] in gates],
            "general": [],
        }
        out = ROOT / "crates" / "qchess-route" / "data" / f"props_{name}.json"
        out.write_text(json.dumps(trimmed, separators=(",", ":"), ensure_ascii=False))
        print(f"{out.relative_to(ROOT)}: {len(trimmed['qubits'])} qubits, {len(trimmed['gates'])} gates")


if __name__ == "__main__":
    main()
