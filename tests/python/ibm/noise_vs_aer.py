"""`qchess serve --ibm-noise device` against qiskit-aer's `NoiseModel.from_backend(FakeFez())` on
the same ISA circuits: a Bell pair, GHZ states on 5 and 12 qubits, and a routed 10-move game.

For each circuit, aer's exact noisy distribution (density matrix under the noise model, each
measured bit then read wrong with its qubit's readout error, as aer applies readout errors) is
compared with SHOTS shots of the stand-in, submitted over REST as OpenQASM 3 (so any qchess
binary can be measured, including one whose stand-in reads no QPY). Reports the total variation
distance (TVD) of our frequencies from aer's distribution, the TVD an aer sample of the same size
has (the sampling floor), Pearson's chi-squared p-value (cells expected below 5 shots pooled) and
the job's wall time.

As a figure for the README (release build, 100,000 shots):
    .venv-ibm-runtime/bin/python tests/python/ibm/noise_vs_aer.py --bin target/release/qchess --shots 100000
As a check (check_noise.py imports it): fewer shots, with a bound derived for that size.
"""

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import warnings
from pathlib import Path

import numpy as np

warnings.filterwarnings("ignore")

ROOT = Path(__file__).resolve().parents[3]
KEY = "test"
CRN = "crn:v1:bluemix:public:quantum-computing:us-east:a/0123456789:qchess-test::"
# The routed 10-move game: four splits, then classical moves; 12 physical qubits on ibm_fez.
GAME = "g1^f3h3 g8^f6h6 b1^a3c3 b8^a6c6 e2e4 e7e5 d2d3 d7d6 c1e3 c8e6"


def request(url, data=None, token=None, form=False):
    headers = {"Service-CRN": CRN}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    body = None
    if data is not None:
        if form:
            body = urllib.parse.urlencode(data).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        else:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
    with urllib.request.urlopen(urllib.request.Request(url, body, headers), timeout=600) as answer:
        return json.loads(answer.read())


def run_rest(base, qasm, shots):
    """Runs `qasm` on ibm_fez for `shots` shots over REST: per register, each shot's value."""
    token = request(f"{base}/identity/token", {"grant_type": "urn:ibm:params:oauth:grant-type:apikey", "apikey": KEY}, form=True)["access_token"]
    started = time.monotonic()
    job = request(f"{base}/api/v1/jobs", {"program_id": "sampler", "backend": "ibm_fez", "params": {"pubs": [[qasm, None, shots]], "version": 2}}, token)
    while True:
        state = request(f"{base}/api/v1/jobs/{job['id']}", token=token)
        if state["status"] not in ("Queued", "Running"):
            break
        time.sleep(0.05)
    seconds = time.monotonic() - started
    if state["status"] != "Completed":
        raise RuntimeError(f"job {job['id']} is {state['status']}: {state.get('state')}")
    results = request(f"{base}/api/v1/jobs/{job['id']}/results", token=token)
    data = results["results"][0]["data"]
    return {name: [int(s, 16) for s in register["samples"]] for name, register in data.items()}, seconds


def isa_circuits():
    """(name, ISA circuit, OpenQASM 3 text) of every compared circuit."""
    from qiskit import QuantumCircuit, qasm3, transpile
    from qiskit_ibm_runtime.fake_provider import FakeFez

    fez = FakeFez()
    out = []
    for name, n in [("bell", 2), ("ghz_5", 5), ("ghz_12", 12)]:
        qc = QuantumCircuit(n)
        qc.h(0)
        for i in range(n - 1):
            qc.cx(i, i + 1)
        qc.measure_all()
        isa = transpile(qc, backend=fez, optimization_level=1, seed_transpiler=0)
        out.append((name, isa, qasm3.dumps(isa)))
    return out


def game_circuit(binary):
    """The routed 10-move game as `qchess compile` writes it for ibm_fez, and Qiskit's reading."""
    from qiskit import qasm3

    text = subprocess.run(
        [binary, "compile", "--position", "startpos", "--moves", GAME, "--seed", "3", "--target", "ibm-heron", "--format", "qasm3"],
        check=True, capture_output=True, text=True,
    ).stdout
    return ("game_10_moves", qasm3.loads(text), text)


def measured(circuit):
    """The circuit without its measurements, and the qubit each classical bit measures."""
    bare = circuit.copy_empty_like()
    qubit_of = {}
    for instruction in circuit.data:
        if instruction.operation.name == "measure":
            qubit_of[circuit.find_bit(instruction.clbits[0]).index] = circuit.find_bit(instruction.qubits[0]).index
        else:
            bare.append(instruction)
    return bare, [qubit_of[c] for c in sorted(qubit_of)], sorted(qubit_of)


def device_model():
    """FakeFez and aer's noise model of it (built once: it takes a while for 156 qubits)."""
    from qiskit_aer.noise import NoiseModel
    from qiskit_ibm_runtime.fake_provider import FakeFez

    fez = FakeFez()
    return fez, NoiseModel.from_backend(fez)


def aer_exact(circuit, device):
    """aer's exact distribution over the measured bits (bit i = i-th measured clbit), readout
    errors included, and the clbits it is over; `device` is `device_model()`."""
    from qiskit_aer import AerSimulator

    fez, model = device
    bare, qubits, clbits = measured(circuit)
    bare.save_probabilities(qubits)
    probabilities = np.asarray(AerSimulator(method="density_matrix", noise_model=model).run(bare).result().data()["probabilities"])
    for bit, qubit in enumerate(qubits):
        r = fez.target["measure"][(qubit,)].error
        flipped = probabilities.reshape(-1, 2, 1 << bit)[:, ::-1, :].reshape(-1)
        probabilities = (1 - r) * probabilities + r * flipped
    return probabilities, clbits


def outcomes(circuit, registers, clbits):
    """Each shot's measured bits packed as in `aer_exact`."""
    starts = {}
    for register in circuit.cregs:
        starts[register.name] = circuit.find_bit(register[0]).index
    shots = len(next(iter(registers.values())))
    values = [0] * shots
    for name, samples in registers.items():
        for i, sample in enumerate(samples):
            values[i] |= sample << starts[name]
    position = {c: i for i, c in enumerate(clbits)}
    packed = []
    for value in values:
        packed.append(sum(1 << position[c] for c in clbits if value >> c & 1))
    return packed


def tvd(counts, probabilities, shots):
    frequencies = np.bincount(counts, minlength=len(probabilities))[: len(probabilities)] / shots
    return 0.5 * float(np.abs(frequencies - probabilities).sum())


def chi_squared_p(counts, probabilities, shots):
    """Pearson's goodness of fit, cells expected below 5 shots pooled."""
    from scipy.stats import chi2

    observed = np.bincount(counts, minlength=len(probabilities))[: len(probabilities)].astype(float)
    expected = probabilities * shots
    small = expected < 5
    cells_o = list(observed[~small]) + ([observed[small].sum()] if small.any() else [])
    cells_e = list(expected[~small]) + ([expected[small].sum()] if small.any() else [])
    cells_o, cells_e = np.array(cells_o), np.array(cells_e)
    keep = cells_e > 0
    if (~keep & (cells_o > 0)).any():
        return 0.0
    statistic = float(((cells_o[keep] - cells_e[keep]) ** 2 / cells_e[keep]).sum())
    return float(chi2.sf(statistic, max(int(keep.sum()) - 1, 1)))


def sampling_floor(probabilities, shots, seed=1, repeats=50):
    """The mean TVD of `shots`-shot samples of `probabilities` from it: what sampling alone gives."""
    rng = np.random.default_rng(seed)
    return float(np.mean([0.5 * np.abs(rng.multinomial(shots, probabilities) / shots - probabilities).sum() for _ in range(repeats)]))


def aer_parities(circuit, labels, device):
    """`circuit`'s parities in the bases `labels` (ZZ or XX on its first two qubits) under aer's
    device model (`device_model()`), before readout, and the readout errors of those qubits."""
    from qiskit_aer import AerSimulator

    fake, model = device
    physical = [circuit.layout.final_index_layout()[i] for i in range(2)]
    parities = []
    for label in labels:
        measured = circuit.copy()
        if label == "XX":
            for q in physical:
                measured.rz(math.pi / 2, q)
                measured.sx(q)
                measured.rz(math.pi / 2, q)
        measured.save_density_matrix(physical)
        rho = np.asarray(AerSimulator(method="density_matrix", noise_model=model).run(measured).result().data()["density_matrix"])
        parities.append(sum(rho[k, k].real * (-1) ** bin(k).count("1") for k in range(4)))
    return parities, [fake.target["measure"][(q,)].error for q in physical]


def assert_reads_as_aer(name, counts, probabilities, shots, false_alarm=1e-6):
    """Our shots of a circuit against aer's exact noisy distribution: Pearson's chi-squared
    p > `false_alarm`, and the TVD at most its sampling floor plus t = sqrt(ln(1/false_alarm) /
    (2 shots)): one shot moves the distance by at most 1/shots, so by McDiarmid's inequality a
    sample of aer's own distribution exceeds its mean by t with probability at most
    `false_alarm`."""
    distance = tvd(counts, probabilities, shots)
    bound = sampling_floor(probabilities, shots) + math.sqrt(math.log(1 / false_alarm) / (2 * shots))
    p = chi_squared_p(counts, probabilities, shots)
    print(f"     {name}: TVD {distance:.4f} (bound {bound:.4f}), chi-squared p = {p:.3g}")
    assert distance <= bound, f"{name}: TVD {distance} > {bound}"
    assert p > false_alarm, f"{name}: chi-squared p = {p}"


def compare(base, binary, shots, names=None):
    """Rows of (name, used qubits, two-qubit gates, TVD, floor, chi-squared p, seconds), for the
    circuits named (all by default)."""
    device = device_model()
    rows = []
    for name, circuit, text in isa_circuits() + [game_circuit(binary)]:
        if names is not None and name not in names:
            continue
        probabilities, clbits = aer_exact(circuit, device)
        registers, seconds = run_rest(base, text, shots)
        counts = outcomes(circuit, registers, clbits)
        used = len({circuit.find_bit(q).index for inst in circuit.data for q in inst.qubits if inst.operation.name != "barrier"})
        twos = sum(1 for inst in circuit.data if inst.operation.name == "cz")
        rows.append((name, used, twos, tvd(counts, probabilities, shots), sampling_floor(probabilities, shots), chi_squared_p(counts, probabilities, shots), seconds))
    return rows


def start(binary, *flags):
    """Starts `binary serve` on a free port; returns the process and its URL."""
    process = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:0", "--api-key", KEY, *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        process.kill()
        raise RuntimeError(f"qchess serve did not start: {line}{process.stderr.read()}")
    return process, line.split()[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=str(ROOT / "target" / "release" / "qchess"))
    parser.add_argument("--shots", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-game", metavar="MOVES", action="append", default=[],
                        help="also time SHOTS shots of this game routed for ibm_fez (no aer comparison)")
    args = parser.parse_args()
    process, base = start(args.bin, "--ibm-noise", "device", "--seed", str(args.seed), "--time-limit", "3600")
    try:
        rows = compare(base, args.bin, args.shots)
        timed = []
        for moves in args.time_game:
            text = subprocess.run([args.bin, "compile", "--position", "startpos", "--moves", moves, "--seed", "3", "--target", "ibm-heron", "--format", "qasm3"],
                                  check=True, capture_output=True, text=True).stdout
            _, seconds = run_rest(base, text, args.shots)
            used = len({q for line in text.splitlines() if not line.startswith("//") for q in __import__("re").findall(r"q\[(\d+)\]", line)})
            timed.append((moves, used, text.count("\ncz "), seconds))
    finally:
        process.kill()
    print(f"{args.bin}, --ibm-noise device --seed {args.seed}, {args.shots} shots; TVD against aer's exact distribution")
    print("| circuit | qubits used | CZ | TVD | sampling floor | chi-squared p | job time |")
    print("|---|---|---|---|---|---|---|")
    for name, used, twos, distance, floor, p, seconds in rows:
        print(f"| {name} | {used} | {twos} | {distance:.4f} | {floor:.4f} | {p:.3g} | {seconds:.2f} s |")
    for moves, used, twos, seconds in timed:
        print(f"| game `{moves}` | {used} | {twos} | | | | {seconds:.2f} s |")


if __name__ == "__main__":
    sys.exit(main())
