"""Backends: a game whose moves run on a real `qchess serve` (sampled, IonQ v0.4 API) agrees
with the exact local game within sampling error."""

from __future__ import annotations

import math

import pytest

import qchess


def test_remote_game_agrees_with_local(serve_url):
    moves = "b1^a3c3 e7e6 g1^f3h3"
    local = qchess.Game(position=f"startpos moves {moves}")
    remote = qchess.Game(position=f"startpos moves {moves}", backend=serve_url, shots=2000, seed=5)
    assert remote.backend == serve_url
    assert remote.pieces() == local.pieces()
    theirs, ours = remote.probabilities(), local.probabilities()
    for square, p in ours.items():
        # Estimates from >= 2000 shots: 6 standard errors of a proportion (p < 2e-9 per square).
        sigma = math.sqrt(max(p * (1 - p), 1e-12) / 2000)
        assert abs(theirs[square] - p) <= 6 * sigma + 1e-12, (square, theirs[square], p)
    # The remote game's circuit is the local replay's.
    assert remote.circuit("qasm2") == local.circuit("qasm2")


def test_unreachable_provider_is_a_backend_error():
    game = qchess.Game(backend="http://127.0.0.1:9/v0.4", timeout=2)
    with pytest.raises(qchess.BackendError, match="127.0.0.1:9"):
        game.move("b1^a3c3")
    assert game.history == []


def test_ibm_device_on_the_stand_in_agrees_with_local(serve_url):
    # serve's IBM Quantum stand-in: IAM token exchange, ibm_fez's configuration, Sampler jobs
    # that refuse circuits not in the device's ISA.
    base = serve_url.removesuffix("/v0.4")
    moves = "b1^a3c3 e7e6 g1^f3h3"
    local = qchess.Game(position=f"startpos moves {moves}")
    remote = qchess.Game(
        position=f"startpos moves {moves}",
        backend="ibm:ibm_fez",
        ibm_api_key="any-key",
        ibm_crn="crn:v1:qchess:test",
        ibm_url=base,
        shots=2000,
        seed=3,
    )
    assert remote.backend == "ibm:ibm_fez"
    theirs, ours = remote.probabilities(), local.probabilities()
    for square, p in ours.items():
        sigma = math.sqrt(max(p * (1 - p), 1e-12) / 2000)
        assert abs(theirs[square] - p) <= 6 * sigma + 1e-12, (square, theirs[square], p)


def test_ibm_backend_needs_a_device_key_and_instance(monkeypatch):
    monkeypatch.delenv("QISKIT_IBM_TOKEN", raising=False)
    monkeypatch.delenv("QISKIT_IBM_INSTANCE", raising=False)
    with pytest.raises(qchess.ParseError, match="name the device"):
        qchess.Game(backend="ibm:")
    with pytest.raises(qchess.ParseError, match="QISKIT_IBM_TOKEN"):
        qchess.Game(backend="ibm:ibm_fez")
    with pytest.raises(qchess.ParseError, match="QISKIT_IBM_INSTANCE"):
        qchess.Game(backend="ibm:ibm_fez", ibm_api_key="k")
