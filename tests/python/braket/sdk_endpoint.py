"""A Braket and S3 endpoint made of the Braket SDK's own parts, kept for the one thing `qchess
serve`'s Braket stand-in cannot check: that botocore's own signer computes the signature of
every request qchess sends (the stand-in checks them with qchess's signer). botocore's
`SigV4Auth` recomputes every request's signature (over the headers the request says it signed) and refuses any other with AWS's error
shape; `braket.ir.openqasm.Program` and the request fields of botocore's service model check each
`CreateQuantumTask`; a verbatim program is checked by the SDK's `LocalEmulator` built from the
device's published capabilities, and every task runs on the SDK's own simulator, whose
`GateModelTaskResult` is the `results.json` object served path-style under `/s3/BUCKET/KEY`.

Devices: the five checked-in QPUs and `sv1`. IQM Emerald is OFFLINE; Rigetti Cepheus' tasks
fail with a reason; Rigetti Ankaa-3's tasks complete without a results object. Tasks stay QUEUED
for `queue_seconds` after they are created.
"""

import gzip
import json
import re
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import botocore
import botocore.auth
import botocore.awsrequest
import botocore.credentials
from braket.circuits import Circuit
from braket.default_simulator import StateVectorSimulator
from braket.devices import LocalSimulator
from braket.emulation.local_emulator import LocalEmulator
from braket.ir.openqasm import Program

DATA = Path(__file__).resolve().parents[3] / "crates" / "qchess-route" / "data"
QPUS = {
    "arn:aws:braket:eu-north-1::device/qpu/iqm/Garnet": ("Garnet", "IQM", "braket_iqm_garnet.json", "ONLINE"),
    "arn:aws:braket:eu-north-1::device/qpu/iqm/Emerald": ("Emerald", "IQM", "braket_iqm_emerald.json", "OFFLINE"),
    "arn:aws:braket:us-west-1::device/qpu/rigetti/Ankaa-3": ("Ankaa-3", "Rigetti", "braket_rigetti_ankaa_3.json", "ONLINE"),
    "arn:aws:braket:us-west-1::device/qpu/rigetti/Cepheus-1-108Q": (
        "Cepheus-1-108Q", "Rigetti", "braket_rigetti_cepheus_1_108q.json", "ONLINE"),
    "arn:aws:braket:us-east-1::device/qpu/ionq/Forte-Enterprise-1": (
        "Forte Enterprise 1", "IonQ", "braket_ionq_forte_enterprise_1.json", "ONLINE"),
}
SV1 = "arn:aws:braket:::device/quantum-simulator/amazon/sv1"
FAILING = "arn:aws:braket:us-west-1::device/qpu/rigetti/Cepheus-1-108Q"
NO_RESULTS = "arn:aws:braket:us-west-1::device/qpu/rigetti/Ankaa-3"
ACCOUNT = "123456789012"


def create_task_members() -> set:
    """The members botocore's service model gives CreateQuantumTask's request."""
    model = Path(botocore.__file__).parent / "data" / "braket" / "2019-09-01" / "service-2.json.gz"
    shapes = json.loads(gzip.decompress(model.read_bytes()))["shapes"]
    return set(shapes["CreateQuantumTaskRequest"]["members"]), set(shapes["CreateQuantumTaskRequest"]["required"])


class Endpoint:
    """The state behind the server: credentials, tasks, objects, and what was checked."""

    def __init__(self, access_key: str, secret: str, queue_seconds: float):
        self.credentials = botocore.credentials.Credentials(access_key, secret)
        self.access_key = access_key
        self.queue_seconds = queue_seconds
        self.tasks = {}
        self.tokens = {}
        self.objects = {}
        self.signatures_checked = 0
        self.problems = []
        self.lock = threading.Lock()
        self.members, self.required = create_task_members()

    def verify(self, method: str, path: str, headers: dict, body: bytes) -> str | None:
        """None when botocore computes the same signature; else AWS's error code."""
        auth = headers.get("authorization", "")
        match = re.match(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
                         r"SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$", auth)
        if not match:
            return "MissingAuthenticationTokenException"
        key, _day, region, service, signed, signature = match.groups()
        if key != self.access_key:
            return "UnrecognizedClientException"
        request = botocore.awsrequest.AWSRequest(method=method, url=f"http://{headers['host']}{path}", data=body)
        for name in signed.split(";"):
            request.headers[name] = headers.get(name, "")
        request.context["timestamp"] = headers.get("x-amz-date", "")
        signer = (botocore.auth.S3SigV4Auth if service == "s3" else botocore.auth.SigV4Auth)(
            self.credentials, service, region)
        canonical = signer.canonical_request(request)
        expected = signer.signature(signer.string_to_sign(request, canonical), request)
        with self.lock:
            self.signatures_checked += 1
        return None if expected == signature else "InvalidSignatureException"

    def device(self, arn: str) -> dict | None:
        if arn == SV1:
            return {"deviceArn": arn, "deviceName": "SV1", "providerName": "Amazon Braket", "deviceType": "SIMULATOR",
                    "deviceStatus": "ONLINE", "deviceCapabilities": LocalSimulator().properties.json()}
        if arn not in QPUS:
            return None
        name, provider, file, status = QPUS[arn]
        return {"deviceArn": arn, "deviceName": name, "providerName": provider, "deviceType": "QPU",
                "deviceStatus": status, "deviceCapabilities": (DATA / file).read_text()}

    def create(self, body: dict) -> tuple[int, dict]:
        unknown = set(body) - self.members
        missing = self.required - set(body)
        if unknown or missing:
            return 400, {"message": f"unknown members {sorted(unknown)}, missing {sorted(missing)}"}
        program = Program.parse_raw(body["action"])
        device = self.device(body["deviceArn"])
        if device is None:
            return 404, {"message": f"device {body['deviceArn']} not found"}
        if device["deviceStatus"] != "ONLINE":
            return 424, {"__type": "DeviceOfflineException", "message": f"Device {body['deviceArn']} is offline"}
        with self.lock:
            if body["clientToken"] in self.tokens:
                return 201, {"quantumTaskArn": self.tokens[body["clientToken"]]}
        if device["deviceType"] == "QPU":
            LocalEmulator.from_json(device["deviceCapabilities"]).validate(Circuit.from_ir(program))
        region = body["deviceArn"].split(":")[3] or "us-east-1"
        task_id = str(uuid.uuid4())
        arn = f"arn:aws:braket:{region}:{ACCOUNT}:quantum-task/{task_id}"
        directory = f"{body['outputS3KeyPrefix']}/{task_id}"
        result = StateVectorSimulator().run_openqasm(program, shots=body["shots"])
        failing = body["deviceArn"] == FAILING
        if body["deviceArn"] != NO_RESULTS and not failing:
            self.objects[(body["outputS3Bucket"], f"{directory}/results.json")] = result.json().encode()
        with self.lock:
            self.tokens[body["clientToken"]] = arn
            self.tasks[arn] = {"created": time.monotonic(), "body": body, "directory": directory,
                               "failing": failing, "cancelled": False}
        return 201, {"quantumTaskArn": arn}

    def state(self, arn: str) -> tuple[int, dict]:
        task = self.tasks.get(arn)
        if task is None:
            return 404, {"message": f"task {arn} not found"}
        body = task["body"]
        status = "QUEUED" if time.monotonic() - task["created"] < self.queue_seconds else "COMPLETED"
        answer = {"quantumTaskArn": arn, "deviceArn": body["deviceArn"], "shots": body["shots"], "deviceParameters": "{}",
                  "outputS3Bucket": body["outputS3Bucket"], "outputS3Directory": task["directory"],
                  "createdAt": "2026-11-29T00:00:00Z"}
        if task["cancelled"]:
            status = "CANCELLED"
        elif status == "COMPLETED" and task["failing"]:
            status = "FAILED"
            answer["failureReason"] = "the device could not calibrate"
        if status == "QUEUED":
            answer["queueInfo"] = {"queue": "QUANTUM_TASKS_QUEUE", "position": "2"}
        answer["status"] = status
        return 200, answer


class Handler(BaseHTTPRequestHandler):
    endpoint: Endpoint

    def log_message(self, *args):  # quiet
        pass

    def handle(self):
        # A client that gave up waiting (a --timeout) closes the connection: not the server's error.
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def answer(self, status: int, body, xml: bool = False):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/xml" if xml else "application/json")
        if isinstance(body, dict) and "__type" in body:
            self.send_header("x-amzn-ErrorType", body["__type"])
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self, method: str):
        length = int(self.headers.get("content-length", 0))
        body = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        refused = self.endpoint.verify(method, self.path, headers, body)
        if refused:
            code = "SignatureDoesNotMatch" if self.path.startswith("/s3/") else refused
            message = "The request signature we calculated does not match the signature you provided."
            if self.path.startswith("/s3/"):
                xml = f"<?xml version=\"1.0\"?><Error><Code>{code}</Code><Message>{message}</Message></Error>"
                return self.answer(403, xml.encode(), xml=True)
            return self.answer(403, {"__type": refused, "message": message})
        path = urllib.parse.unquote(self.path.split("?")[0])
        if path.startswith("/s3/"):
            bucket, _, key = path[len("/s3/"):].partition("/")
            data = self.endpoint.objects.get((bucket, key))
            if data is None:
                xml = "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>"
                return self.answer(404, xml.encode(), xml=True)
            return self.answer(200, data)
        if path.startswith("/sts"):
            xml = (f"<GetCallerIdentityResponse><GetCallerIdentityResult><Account>{ACCOUNT}</Account>"
                   "</GetCallerIdentityResult></GetCallerIdentityResponse>")
            return self.answer(200, xml.encode(), xml=True)
        path = path[len("/braket"):]
        if method == "GET" and path.startswith("/device/"):
            device = self.endpoint.device(path[len("/device/"):])
            if device is None:
                return self.answer(404, {"__type": "ResourceNotFoundException", "message": "Braket device not found"})
            return self.answer(200, device)
        if method == "POST" and path == "/devices":
            devices = [self.endpoint.device(arn) for arn in [*QPUS, SV1]]
            return self.answer(200, {"devices": [{k: v for k, v in d.items() if k != "deviceCapabilities"} for d in devices]})
        if method == "POST" and path == "/quantum-task":
            try:
                status, answer = self.endpoint.create(json.loads(body))
            except Exception as error:  # noqa: BLE001 - the SDK's validation says what is wrong
                self.endpoint.problems.append(f"CreateQuantumTask refused: {error}")
                status, answer = 400, {"__type": "ValidationException", "message": str(error)}
            return self.answer(status, answer)
        if path.startswith("/quantum-task/"):
            arn = path[len("/quantum-task/"):]
            if method == "PUT" and arn.endswith("/cancel"):
                arn = arn[: -len("/cancel")]
                if arn in self.endpoint.tasks:
                    self.endpoint.tasks[arn]["cancelled"] = True
                    return self.answer(200, {"quantumTaskArn": arn, "cancellationStatus": "CANCELLING"})
            if method == "GET":
                return self.answer(*self.endpoint.state(arn))
        return self.answer(404, {"message": f"no route {method} {path}"})

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")


def start(access_key: str, secret: str, queue_seconds: float = 0.3) -> tuple[ThreadingHTTPServer, Endpoint, str]:
    endpoint = Endpoint(access_key, secret, queue_seconds)
    handler = type("BoundHandler", (Handler,), {"endpoint": endpoint})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, endpoint, f"http://127.0.0.1:{server.server_address[1]}"
